// Registry of the example kernels, for tools and tests that pick a kernel by name and build
// its argument list for a given shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilejit/kernel.h"

namespace tilejit::examples {

/// A named example with a way to compile it at a specialization, without running it.
struct ExampleKernel {
  std::string name;
  std::string description;
  const KernelBase* kernel;
  /// Launch arguments for a problem of `rows` x `cols` elements of `dtype` at `block` (null
  /// device pointers with 16-byte alignment: enough to compile).
  std::vector<Arg> (*arguments)(std::int64_t rows, std::int64_t cols, std::int64_t block, DType dtype);
};

const std::vector<ExampleKernel>& example_kernels();
/// Throws tilejit::Error listing the names when `name` is unknown.
const ExampleKernel& find_example(const std::string& name);

/// Smallest power of two >= n (n >= 1).
std::int64_t next_power_of_two(std::int64_t n);

}  // namespace tilejit::examples
