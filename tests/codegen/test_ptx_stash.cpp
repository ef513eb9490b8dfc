// Stashes (tl::stash) through the PTX generator, without a GPU: every round trip the GPU suite runs
// (tests/kernels/test_stash.cpp) assembles from generated PTX and takes the shared memory the CUDA
// C generator's build takes, so both generators lay the stash out alike; values read from a stash
// are streamed (read again by each consumer, a piece at a time) only where the stash is not
// written after the read. The numerics run in test_kernels_gpu_ptx.
#include <doctest/doctest.h>

#include <string>

#include "codegen/fake_pointer.h"
#include "codegen/ptx_access_counts.h"
#include "kernels/stash_cases.h"
#include "kernels/stash_round_trip_kernel.h"
#include "tilejit/kernel.h"
#include "tilejit/ops/softmax_seed.h"

using namespace tilejit;

namespace {

using tilejit_test::fake;

CompileOptions options(int num_warps, GpuCodegen codegen) {
  CompileOptions o;
  o.num_warps = num_warps;
  o.arch = "sm_90";
  o.backend = Backend::cuda;
  o.codegen = codegen;
  return o;
}

// Both builds of one kernel: the PTX generator's must be its own, and sized as NVRTC's.
template <class Compile>
void check_both(Compile&& compile, int num_warps) {
  const CompiledKernel& ptx = compile(options(num_warps, GpuCodegen::ptx));
  const CompiledKernel& cuda = compile(options(num_warps, GpuCodegen::cuda));
  REQUIRE_MESSAGE(ptx.metadata().codegen == "ptx", ptx.metadata().compile_reason);
  CHECK(ptx.metadata().dynamic_shared_bytes == cuda.metadata().dynamic_shared_bytes);
  CHECK(ptx.metadata().spill_store_bytes == 0);
  CHECK(ptx.stage("ptx").find("TJ_STASH") == std::string::npos);
}

}  // namespace

TEST_CASE("PTX stashes: the GPU suite's puts and gets assemble, in the CUDA C build's shared memory") {
  for (const tilejit_test::StashCase& c : tilejit_test::stash_round_trip_cases()) {
    INFO(tilejit_test::describe(c));
    check_both(
        [&](const CompileOptions& o) -> const CompiledKernel& {
          return tilejit_test::stash_round_trip().compile(
              {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 100000, c.slots, c.rows, c.cols,
               static_cast<std::int64_t>(c.dtype)},
              o);
        },
        c.num_warps);
  }
}

TEST_CASE("PTX stashes: the GPU suite's asynchronous copies assemble, in the CUDA C build's shared memory") {
  for (const tilejit_test::StashCase& c : tilejit_test::stash_copy_round_trip_cases()) {
    INFO(tilejit_test::describe(c));
    check_both(
        [&](const CompileOptions& o) -> const CompiledKernel& {
          return tilejit_test::stash_copy_round_trip().compile(
              {fake(c.dtype, 0), fake(c.dtype, 1), fake(c.dtype, 2), 100000, c.slots, c.rows, c.cols}, o);
        },
        c.num_warps);
  }
}

TEST_CASE("PTX stashes: a copy moves 16 bytes a cp.async where the pointers allow, 4 where one element off") {
  auto copy_ptx = [](std::uint64_t in) -> const std::string& {
    return tilejit_test::stash_copy_round_trip()
        .compile({fake(DType::f32, 0), fake(DType::f32, 1), Pointer{in, DType::f32}, 100000, 2, 1, 1024},
                 options(4, GpuCodegen::ptx))
        .stage("ptx");
  };
  // 1024 f32 over 128 threads: two 16-byte pieces a thread, a copy before the loop and one in it.
  const std::string& aligned = copy_ptx(0x30000);
  CHECK(tilejit_test::occurrences(aligned, "cp.async.cg.shared.global") == 4);
  CHECK(aligned.find("cp.async.ca") == std::string::npos);
  const std::string& off = copy_ptx(0x30004);
  CHECK(off.find("cp.async.cg") == std::string::npos);
  CHECK(tilejit_test::occurrences(off, "cp.async.ca.shared.global") == 16);
}

namespace {

// The seed's kernels over bf16 rows of 16384, 8 warps, no occupancy bound, through the PTX generator.
const CompiledKernel& held_bf16_16384() {
  return ops::softmax_held().compile({fake(DType::bf16, 0), fake(DType::bf16, 1), 16384, 16384, 16384, 16384},
                                     options(8, GpuCodegen::ptx));
}

}  // namespace

TEST_CASE("PTX streamed values: the held seed kernel reads its row back in each phase and holds none of them") {
  const CompiledKernel& k = held_bf16_16384();
  REQUIRE(k.metadata().codegen == "ptx");
  const std::string& code = k.stage("ptx");
  // 64 elements a thread: 8 pieces of 16 bytes, copied once, read by the max, the sum and the
  // stores (emitted twice, on either side of the division's branch on the divisor).
  CHECK(tilejit_test::occurrences(code, "cp.async.cg.shared.global") == 8);
  CHECK(tilejit_test::occurrences(code, "ld.shared.v4.b32") == 4 * 8);
  CHECK(code.find("ld.global") == std::string::npos);
  CHECK(tilejit_test::occurrences(code, "div.full.f32") == 64);  // the slow path's, not predicated
  // Registers for a piece in hand, not a row: the simple kernel, holding the row, takes 80 at the
  // three blocks an SM it is built for, and ptxas takes more unbounded.
  CHECK(k.metadata().registers <= 48);
  CHECK(k.metadata().spill_store_bytes == 0);
}

TEST_CASE("PTX streamed values: a stash read followed by a copy into its stash is read once and held") {
  // The staged persistent kernel reads the row, then starts the next row's copy into the same slot.
  const CompiledKernel& k = ops::softmax_persistent().compile(
      {fake(DType::bf16, 0), fake(DType::bf16, 1), 16384, 16384, 4096, 16384, 16384, 2}, [] {
        CompileOptions o = options(8, GpuCodegen::ptx);
        o.num_stages = 2;
        o.prefetch_in_shared = true;
        return o;
      }());
  REQUIRE(k.metadata().codegen == "ptx");
  CHECK(tilejit_test::occurrences(k.stage("ptx"), "ld.shared.v4.b32") == 8);
}

namespace {

namespace tl = tilejit::tl;

// A row kept in a stash, divided by two of its statistics in turn: two divisions by a splat in one
// streamed chain.
void two_divisions_kernel(tl::Ptr out, tl::Ptr in, tl::Int n, tl::Constexpr BLOCK) {
  auto cols = tl::arange(0, BLOCK);
  auto mask = cols < n;
  auto kept = tl::stash({BLOCK.value}, in.dtype(), 1);
  kept.copy_async(0, in + cols, mask);
  tl::wait_copies(0);
  auto x = tl::where(mask, kept.get(0), 0.0f);
  tl::store(out + cols, x / tl::sum(x, 0) / tl::max(x, 0), mask);
}

}  // namespace

TEST_CASE("PTX streamed values: a store branches on one division's divisor; another in the chain tests per element") {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr> k("two_divisions", two_divisions_kernel,
                                                                  {"out", "in", "n", "BLOCK"});
  const CompiledKernel& c =
      k.compile({fake(DType::f32, 0), fake(DType::f32, 1), 1024, 1024}, options(4, GpuCodegen::ptx));
  REQUIRE(c.metadata().codegen == "ptx");
  const std::string& code = c.stage("ptx");
  // 8 elements a thread, the store emitted on both sides of the branch: the branched division takes
  // one path a side (8 div.full on the slow side), the other tests each element on both sides.
  CHECK(tilejit_test::occurrences(code, "bra $L") + tilejit_test::occurrences(code, "bra.uni $L") >= 2);
  CHECK(tilejit_test::occurrences(code, "\tdiv.full.f32") == 8);
  CHECK(tilejit_test::occurrences(code, " div.full.f32") == 2 * 8);  // predicated: @!%pN div.full
}
