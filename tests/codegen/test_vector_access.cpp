// Argument specialization drives 16-byte accesses: aligned pointers with strides and widths
// divisible by 16 give v4 loads and stores in the PTX; a pointer one element off, or a width
// whose masks change inside a group of four, gives scalar accesses. No GPU needed.
#include <doctest/doctest.h>

#include <string>

#include "codegen/ptx_access_counts.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/ops/softmax_seed.h"
#include "tilejit/tl.h"

using namespace tilejit;
namespace tl = tilejit::tl;

using tilejit_test::AccessCounts;
using tilejit_test::count_accesses;

namespace {

// CUDA kernels for sm_90 at 4 warps, compiled without a GPU.
CompileOptions sm90_options(GpuCodegen codegen = GpuCodegen::automatic) {
  CompileOptions o;
  o.num_warps = 4;
  o.arch = "sm_90";
  o.codegen = codegen;
  o.backend = Backend::cuda;
  return o;
}

// Every global load and store is a vector access.
void check_all_vector(const AccessCounts& c) {
  CHECK(c.vector_loads > 0);
  CHECK(c.scalar_loads == 0);
  CHECK(c.vector_stores > 0);
  CHECK(c.scalar_stores == 0);
}

const CompiledKernel& compile_seed(std::uint64_t out, std::uint64_t in, std::int64_t cols, DType t = DType::f32) {
  return ops::softmax_simple().compile({Pointer{out, t}, Pointer{in, t}, cols, cols, cols, 1024},
                                       sm90_options(GpuCodegen::cuda));  // these checks read the CUDA C stage
}

}  // namespace

TEST_CASE("aligned pointers and widths divisible by 16 give v4 loads and stores") {
  const auto& k = compile_seed(0x10000, 0x20000, 1024);
  check_all_vector(count_accesses(k.stage("ptx")));
  CHECK(k.stage("ptx").find("ld.global.v4.b32") != std::string::npos);
  CHECK(k.stage("ir.lowered").find("align(16)") != std::string::npos);
}

TEST_CASE("a pointer one element off 16 bytes gives scalar accesses for it") {
  const auto& k = compile_seed(0x10000, 0x20004, 1024);  // input misaligned, output aligned
  AccessCounts c = count_accesses(k.stage("ptx"));
  CHECK(c.vector_loads == 0);
  CHECK(c.scalar_loads > 0);
  CHECK(c.vector_stores > 0);
  CHECK(k.metadata().key != compile_seed(0x10000, 0x20000, 1024).metadata().key);
}

TEST_CASE("an odd row width gives scalar (predicated) accesses") {
  const auto& k = compile_seed(0x10000, 0x20000, 1001);
  AccessCounts c = count_accesses(k.stage("ptx"));
  CHECK(c.vector_loads == 0);
  CHECK(c.vector_stores == 0);
  CHECK(c.scalar_loads > 0);
}

TEST_CASE("f16 rows move 8 elements per 16-byte access") {
  const auto& k = compile_seed(0x10000, 0x20000, 1024, DType::f16);
  CHECK(k.stage("ptx").find("ld.global.v4.b32") != std::string::npos);
  CHECK(k.stage("cuda").find("r += 8") != std::string::npos);
}

TEST_CASE("do_not_specialize keeps a parameter's facts out of the key and the code") {
  static const ops::SoftmaxSimple k("softmax_simple_plain", ops::softmax_simple_kernel,
                                    {"out", "in", "in_stride", "out_stride", "n_cols", "BLOCK_SIZE"},
                                    {.do_not_specialize = {"in"}});
  CompileOptions o;
  o.arch = "sm_90";
  o.backend = Backend::cuda;
  const auto& c = k.compile({Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 1024, 1024, 1024, 1024}, o);
  CHECK(count_accesses(c.stage("ptx")).vector_loads == 0);
  CHECK(count_accesses(c.stage("ptx")).vector_stores > 0);
  auto make_bad = [] {
    ops::SoftmaxSimple bad("bad", ops::softmax_simple_kernel, {"a", "b", "c", "d", "e", "f"},
                           {.do_not_specialize = {"nope"}});
  };
  CHECK_THROWS_AS(make_bad(), Error);
}

namespace {

// Each program copies columns [begin, min(begin + chunk, n)) in BLOCK steps: split_row's shape.
// EMPTY_PAST_N: the end is chosen by a select, begin itself for programs past n (an empty range,
// as the overlapped group walk gives sets past the last row).
void chunk_copy_kernel(tl::Ptr out, tl::Ptr in, tl::Int n, tl::Int chunk, tl::Constexpr BLOCK,
                       tl::Constexpr EMPTY_PAST_N) {
  auto begin = tl::program_id(0) * chunk;
  auto end = tl::minimum(begin + chunk, n);
  if (EMPTY_PAST_N) end = tl::where(begin < n, end, begin);
  tl::for_range(begin, end, BLOCK, [&](tl::Int start) {
    auto cols = start + tl::arange(0, BLOCK);
    auto mask = cols < end;
    tl::store(out + cols, tl::load(in + cols, mask), mask);
  });
}

}  // namespace

TEST_CASE("a chunk end min(begin + chunk, n) keeps 16-byte accesses when chunk and n are multiples of 16") {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr> k(
      "chunk_copy", chunk_copy_kernel, {"out", "in", "n", "chunk", "BLOCK", "EMPTY_PAST_N"});
  const CompileOptions o = sm90_options();
  // Without and with the end chosen by a select: a select of two aligned ends stays aligned.
  for (std::int64_t select : {0, 1}) {
    CAPTURE(select);
    check_all_vector(count_accesses(
        k.compile({Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 4096, 1024, 512, select}, o)
            .stage("ptx")));
    // An odd n: the last chunk ends inside a group of four, so no 16-byte access is provable.
    AccessCounts odd = count_accesses(
        k.compile({Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 4095, 1024, 512, select}, o)
            .stage("ptx"));
    CHECK(odd.vector_loads == 0);
    CHECK(odd.scalar_loads > 0);
  }
}

namespace {

// Each program copies ROWS rows of n columns in BLOCK steps, its row's first element carried
// through the row loop: base starts at a multiple of n and grows by n + SKEW each row.
void carried_base_copy_kernel(tl::Ptr out, tl::Ptr in, tl::Int n, tl::Constexpr ROWS, tl::Constexpr BLOCK,
                              tl::Constexpr SKEW) {
  tl::Tensor base = tl::program_id(0) * ROWS * n;
  tl::for_range(0, ROWS, 1, [&](tl::Int) {
    tl::for_range(0, n, BLOCK, [&](tl::Int start) {
      auto cols = start + tl::arange(0, BLOCK);
      auto mask = cols < n;
      tl::store(out + base + cols, tl::load(in + base + cols, mask), mask);
    });
    base = base + n + SKEW;  // assigned in the loop: carried
  });
}

}  // namespace

TEST_CASE("a loop-carried offset that stays a multiple of 16 keeps 16-byte accesses") {
  // The carried value's facts are what its initial value and every value the loop assigns it
  // share: n + 0 keeps base a multiple of n (16), n + 1 does not.
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr, tl::Constexpr, tl::Constexpr> k(
      "carried_base_copy", carried_base_copy_kernel, {"out", "in", "n", "ROWS", "BLOCK", "SKEW"});
  for (GpuCodegen codegen : {GpuCodegen::cuda, GpuCodegen::ptx}) {
    CAPTURE(codegen == GpuCodegen::cuda ? "cuda" : "ptx");
    auto counts = [&](std::int64_t skew) {
      return count_accesses(k.compile({Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 4096, 4, 512, skew},
                                      sm90_options(codegen))
                                .stage("ptx"));
    };
    check_all_vector(counts(0));
    AccessCounts skewed = counts(1);
    CHECK(skewed.vector_loads == 0);
    CHECK(skewed.scalar_loads > 0);
    CHECK(skewed.vector_stores == 0);
  }
}

namespace {

// Each program copies BLOCK elements from (program_id << SHIFT) >> DOWN: a block start built by
// shifts instead of a product.
void shifted_copy_kernel(tl::Ptr out, tl::Ptr in, tl::Constexpr SHIFT, tl::Constexpr DOWN, tl::Constexpr BLOCK) {
  auto start = (tl::program_id(0) << SHIFT.value) >> DOWN.value;
  auto offs = start + tl::arange(0, BLOCK);
  tl::store(out + offs, tl::load(in + offs));
}

}  // namespace

TEST_CASE("a block start made by constant shifts keeps the vector accesses its multiple allows") {
  // (pid << 10) >> 8 is a multiple of 4 f32 elements, 16 bytes; (pid << 10) >> 9 only of 2.
  static const Kernel<tl::Ptr, tl::Ptr, tl::Constexpr, tl::Constexpr, tl::Constexpr> k(
      "shifted_copy", shifted_copy_kernel, {"out", "in", "SHIFT", "DOWN", "BLOCK"});
  for (GpuCodegen codegen : {GpuCodegen::cuda, GpuCodegen::ptx}) {
    CAPTURE(codegen == GpuCodegen::cuda ? "cuda" : "ptx");
    auto ptx = [&](std::int64_t down) -> const std::string& {
      return k
          .compile({Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 10, down, 512}, sm90_options(codegen))
          .stage("ptx");
    };
    check_all_vector(count_accesses(ptx(8)));
    CHECK(ptx(8).find("ld.global.v4") != std::string::npos);
    // Two elements: 8-byte accesses, no 16-byte ones. (Before shifts had facts, neither.)
    check_all_vector(count_accesses(ptx(9)));
    CHECK(ptx(9).find("ld.global.v4") == std::string::npos);
    CHECK(ptx(9).find("ld.global.v2") != std::string::npos);
  }
}
