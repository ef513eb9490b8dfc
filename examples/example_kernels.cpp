#include "example_kernels.h"

#include <fmt/format.h>

#include "kernels/layernorm.h"
#include "kernels/softmax_online.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "kernels/vector_add.h"
#include "tilejit/error.h"

namespace tilejit::examples {
namespace {

// Non-null, 16-byte aligned fake addresses: compiling needs only the dtypes.
Pointer fake(DType t, int i) { return Pointer{0x10000u * static_cast<std::uint64_t>(i + 1), t}; }

std::vector<Arg> simple_args(std::int64_t, std::int64_t cols, std::int64_t block, DType t) {
  return {fake(t, 0), fake(t, 1), cols, cols, cols, block};
}
std::vector<Arg> persistent_args(std::int64_t rows, std::int64_t cols, std::int64_t block, DType t) {
  return {fake(t, 0), fake(t, 1), cols, cols, rows, cols, block, 2};
}
std::vector<Arg> rows_2d_args(std::int64_t rows, std::int64_t cols, std::int64_t block, DType t) {
  std::int64_t rows_per_program = std::max<std::int64_t>(1, 2048 / block);
  return {fake(t, 0), fake(t, 1), cols, cols, rows, cols, rows_per_program, block};
}
std::vector<Arg> online_args(std::int64_t, std::int64_t cols, std::int64_t block, DType t) {
  return {fake(t, 0), fake(t, 1), cols, cols, cols, block};
}
std::vector<Arg> layernorm_args(std::int64_t, std::int64_t cols, std::int64_t block, DType t) {
  return {fake(t, 0), fake(t, 1), fake(t, 2), fake(t, 3), cols, cols, cols, 1e-5f, block};
}
std::vector<Arg> vector_add_args(std::int64_t rows, std::int64_t cols, std::int64_t block, DType t) {
  return {fake(t, 0), fake(t, 1), fake(t, 2), rows * cols, block};
}

}  // namespace

std::int64_t next_power_of_two(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

const std::vector<ExampleKernel>& example_kernels() {
  static const std::vector<ExampleKernel> all = {
      {"softmax", "seed softmax, one program per row (alias of softmax_simple)", &softmax_simple(), simple_args},
      {"softmax_simple", "seed softmax, one program per row", &softmax_simple(), simple_args},
      {"softmax_held", "seed softmax, one program per row, the row held in shared memory", &softmax_held(),
       simple_args},
      {"softmax_persistent", "seed softmax, persistent grid-stride loop over rows", &softmax_persistent(),
       persistent_args},
      {"softmax_rows_2d", "softmax of many short rows with 2-D blocks", &softmax_rows_2d(), rows_2d_args},
      {"softmax_online", "online softmax with loop-carried running max and sum", &softmax_online(), online_args},
      {"layernorm", "layer normalization, one program per row", &layernorm(), layernorm_args},
      {"vector_add", "out = x + y", &vector_add(), vector_add_args},
  };
  return all;
}

const ExampleKernel& find_example(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& k : example_kernels()) {
    if (k.name == name) return k;
    names.push_back(k.name);
  }
  throw Error(fmt::format("unknown kernel '{}' (known: {})", name, fmt::join(names, ", ")));
}

}  // namespace tilejit::examples
