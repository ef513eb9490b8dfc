// The PTX generator under a register cap (CompileOptions::min_blocks_per_sm), without a GPU: the
// seed's bf16 rows of 16384 (8 warps, three blocks an SM, 80 registers) fit with no local memory.
// Two forms make room: the row's maximum is taken on the 16-bit values two at a time, and the
// division by the row's sum has no branch (a power-of-two scale where 1/s is not normal).
// Uncapped kernels keep the branch.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tilejit/kernel.h"
#include "tilejit/ops/softmax_seed.h"

using namespace tilejit;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The seed's one-row-per-program kernel for `cols` columns of `t`, with the seed's launch choices
// or with the register cap `min_blocks` instead.
const CompiledKernel& seed_row_kernel(DType t, std::int64_t cols, int min_blocks) {
  const ops::SeedConfig seed = ops::seed_config(cols, dtype_size(t));
  CompileOptions o;
  o.num_warps = seed.num_warps;
  o.min_blocks_per_sm = min_blocks;
  o.arch = "sm_90";
  o.backend = Backend::cuda;
  o.codegen = GpuCodegen::ptx;
  const std::vector<Arg> args{Pointer{0x10000, t}, Pointer{0x20000, t}, cols, cols, cols, seed.block};
  return ops::softmax_simple().compile(args, o);
}

}  // namespace

TEST_CASE("the seed's bf16 rows of 16384 fit three blocks an SM with no local memory") {
  REQUIRE(ops::seed_config(16384, 2).min_blocks_per_sm == 3);
  const CompiledKernel& k = seed_row_kernel(DType::bf16, 16384, 3);
  REQUIRE(k.metadata().codegen == "ptx");
  CHECK(k.metadata().registers <= 80);  // 65536 / (3 x 256), rounded down to the allocation step
  CHECK(k.metadata().spill_store_bytes == 0);
  CHECK(k.metadata().spill_load_bytes == 0);
  CHECK(k.metadata().stack_frame_bytes == 0);
  const std::string& ptx = k.stage("ptx");
  // 64 values a thread in 32 words: 31 pairwise maxima, then one f32 maximum of the last pair.
  CHECK(count(ptx, "max.NaN.bf16x2") == 31);
  // The division: one reciprocal of the scaled sum, two multiplies an element, no branch at all.
  CHECK(count(ptx, "rcp.approx.ftz.f32") == 1);
  CHECK(count(ptx, "bfe.u32") == 1);
  CHECK(ptx.find("div.full") == std::string::npos);
  CHECK(ptx.find(" bra") == std::string::npos);
}

TEST_CASE("uncapped, the division keeps its uniform branch; f16 maxima pair up too") {
  const std::string& bf16 = seed_row_kernel(DType::bf16, 16384, 0).stage("ptx");
  CHECK(bf16.find("div.full.f32") != std::string::npos);
  CHECK(bf16.find("bra.uni") != std::string::npos);
  CHECK(bf16.find("bfe.u32") == std::string::npos);
  CHECK(count(bf16, "max.NaN.bf16x2") == 31);
  const CompiledKernel& f16 = seed_row_kernel(DType::f16, 4096, 0);
  CHECK(count(f16.stage("ptx"), "max.NaN.f16x2") > 0);
  CHECK(f16.metadata().spill_store_bytes == 0);
  // f32 rows have nothing to pair.
  const std::string& f32 = seed_row_kernel(DType::f32, 4096, 0).stage("ptx");
  CHECK(f32.find("x2 ") == std::string::npos);
}
