// CompileOptions::prefetch_in_shared: the persistent seed kernel's rows too wide to prefetch in
// registers reach the next iteration through shared memory (a stash filled by cp.async). What
// the compiler produces, without a GPU; the numerics run in the GPU kernel suites.
#include <doctest/doctest.h>

#include <string>

#include "codegen/ptx_access_counts.h"
#include "jit/jit_test_util.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/ops/softmax_seed.h"

using namespace tilejit;

namespace {

// The persistent seed kernel over 4096 rows of `cols` (f32 or bf16), 8 warps, 2 stages, for sm_90.
const CompiledKernel& persistent(std::int64_t cols, DType t, bool prefetch_in_shared, std::uint64_t in = 0x20000,
                                 int programs_per_block = 1, GpuCodegen codegen = GpuCodegen::automatic) {
  CompileOptions o;
  o.num_warps = 8;
  o.num_stages = 2;
  o.arch = "sm_90";
  o.backend = Backend::cuda;
  o.prefetch_in_shared = prefetch_in_shared;
  o.programs_per_block = programs_per_block;
  o.codegen = codegen;
  std::int64_t block = 1;
  while (block < cols) block <<= 1;
  return ops::softmax_persistent().compile({Pointer{0x10000, t}, Pointer{in, t}, cols, cols, 4096, cols, block, 2}, o);
}

}  // namespace

TEST_CASE("prefetch_in_shared: a row of 64 elements a thread lands in shared memory by cp.async") {
  for (DType t : {DType::f32, DType::bf16}) {
    CAPTURE(dtype_name(t));
    const CompiledKernel& k = persistent(16384, t, true);
    const std::string& ir = k.stage("ir.lowered");
    // One stash of one row; the first row's copy before the loop, the next row's inside it.
    CHECK(tilejit_test::occurrences(ir, "stash 0:") == 1);
    CHECK(tilejit_test::occurrences(ir, "stash_copy") == 2);
    CHECK(tilejit_test::occurrences(ir, "stash_get") == 1);
    CHECK(ir.find(" load ") == std::string::npos);
    CHECK(k.metadata().dynamic_shared_bytes >= 16384 * static_cast<int>(dtype_size(t)));
    CHECK(k.metadata().prefetch_in_shared);
    // Aligned rows move in 16-byte copies, then wait for the one a row needs.
    const std::string& ptx = k.stage("ptx");
    CHECK(ptx.find("cp.async.cg.shared.global") != std::string::npos);
    CHECK(ptx.find("cp.async.wait_group 0") != std::string::npos);
    CHECK(ptx.find("ld.global") == std::string::npos);  // nothing read from memory but by copies
  }
}

TEST_CASE("prefetch_in_shared: a row one element off 16 bytes is copied in 4-byte pieces") {
  const CompiledKernel& k = persistent(16384, DType::f32, true, 0x20004);
  const std::string& ptx = k.stage("ptx");
  CHECK(ptx.find("cp.async.cg") == std::string::npos);
  CHECK(ptx.find("cp.async.ca.shared.global") != std::string::npos);
}

TEST_CASE("prefetch_in_shared: both generators build the stash, in the same shared memory") {
  for (DType t : {DType::f32, DType::bf16}) {
    CAPTURE(dtype_name(t));
    const CompiledKernel& ptx = persistent(16384, t, true, 0x20000, 1, GpuCodegen::ptx);
    const CompiledKernel& cuda = persistent(16384, t, true, 0x20000, 1, GpuCodegen::cuda);
    REQUIRE(ptx.metadata().codegen == "ptx");
    REQUIRE(cuda.metadata().codegen == "cuda");
    CHECK(ptx.metadata().dynamic_shared_bytes == cuda.metadata().dynamic_shared_bytes);
    // The PTX generator's own: each thread's 16-byte pieces of the slot, copied, then read back.
    const std::string& code = ptx.stage("ptx");
    CHECK(tilejit_test::occurrences(code, "cp.async.cg.shared.global") == 2 * 16384 * dtype_size(t) / (256 * 16));
    CHECK(tilejit_test::occurrences(code, "ld.shared.v4.b32") == 16384 * dtype_size(t) / (256 * 16));
    CHECK(tilejit_test::occurrences(code, "cp.async.commit_group") == 2);
    CHECK(code.find("TJ_STASH") == std::string::npos);  // every stash placed
  }
}

TEST_CASE("prefetch_in_shared: the tiered default takes the PTX generator's stash kernels first") {
  // They passed the GPU suites (test_kernels_gpu_ptx, H100, 2026-12-05). A private disk cache and
  // a specialization no other case compiles (f16, input 8 bytes off 16), so no NVRTC build of it
  // is there to be taken instead.
  jit_test::ScopedCache cache;
  const CompiledKernel& k = persistent(16384, DType::f16, true, 0x20008, 1, GpuCodegen::tiered);
  CHECK(k.metadata().codegen == "ptx");
  CHECK(k.stage("ir.lowered").find("stash") != std::string::npos);
  wait_for_background_compiles();  // NVRTC's build, into the private cache before it goes
}

TEST_CASE("prefetch_in_shared, PTX generator: 16-bit rows one element off are copied an element at a time") {
  const CompiledKernel& k = persistent(16384, DType::bf16, true, 0x20002, 1, GpuCodegen::ptx);
  REQUIRE(k.metadata().codegen == "ptx");
  const std::string& code = k.stage("ptx");
  CHECK(code.find("cp.async.ca") == std::string::npos);
  CHECK(code.find("cp.async.cg") == std::string::npos);
  CHECK(tilejit_test::occurrences(code, "ld.global.b16") == 2 * 64);
  CHECK(tilejit_test::occurrences(code, "st.shared.b16") == 2 * 64);
  CHECK(tilejit_test::occurrences(code, "cp.async.commit_group") == 2);  // waits still count copies
}

TEST_CASE("prefetch_in_shared is part of the key, and off by default") {
  const CompiledKernel& off = persistent(16384, DType::f32, false);
  const CompiledKernel& on = persistent(16384, DType::f32, true);
  CHECK(off.metadata().key != on.metadata().key);
  CHECK(on.metadata().key.find("prefetch_in_shared") != std::string::npos);
  CHECK(CompileOptions{}.prefetch_in_shared == false);
  // Off, a row this wide is not pipelined at all: one load a row, no stash.
  CHECK(off.stage("ir.lowered").find("stash") == std::string::npos);
  CHECK(off.stage("ptx").find("cp.async") == std::string::npos);
  // Rows narrow enough for two copies in registers are prefetched there either way.
  CHECK(persistent(4096, DType::f32, true).stage("ir.lowered").find("stash") == std::string::npos);
}

TEST_CASE("prefetch_in_shared is refused beside programs sharing a block") {
  try {
    persistent(16384, DType::f32, true, 0x20000, 2);
    FAIL("compiled");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("programs_per_block = 2") != std::string::npos);
  }
}
