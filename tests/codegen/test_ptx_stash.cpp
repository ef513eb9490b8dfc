// Stashes (tl::stash) through the PTX generator, without a GPU: every round trip the GPU suite runs
// (tests/kernels/test_stash.cpp) assembles from generated PTX and takes the shared memory the CUDA
// C generator's build takes, so both generators lay the stash out alike. The numerics run in
// test_kernels_gpu_ptx.
#include <doctest/doctest.h>

#include <string>

#include "codegen/ptx_access_counts.h"
#include "kernels/stash_round_trip_kernel.h"
#include "tilejit/kernel.h"

using namespace tilejit;

namespace {

struct Case {
  std::int64_t slots, rows, cols;
  DType dtype;
  int num_warps;
};

Pointer fake(DType t, int i) { return Pointer{0x10000u * static_cast<std::uint64_t>(i + 1), t}; }

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
  for (const Case& c : {Case{4, 1, 1024, DType::f32, 4}, Case{3, 1, 512, DType::bf16, 4}, Case{2, 8, 64, DType::i32, 2},
                        Case{2, 4, 256, DType::bf16, 4}, Case{12, 1, 4096, DType::f32, 8}}) {
    CAPTURE(c.slots);
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(dtype_name(c.dtype));
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
  for (const Case& c :
       {Case{4, 1, 1024, DType::f32, 4}, Case{3, 1, 2048, DType::bf16, 8}, Case{2, 8, 64, DType::f32, 2},
        Case{3, 4, 256, DType::bf16, 8}, Case{12, 1, 4096, DType::f32, 8}}) {
    CAPTURE(c.slots);
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(dtype_name(c.dtype));
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
