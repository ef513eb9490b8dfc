// Programs sharing a thread block (CompileOptions::programs_per_block) in both CUDA generators,
// without a GPU: the program id and count, each program's barrier and shared memory, the launch
// bounds, the cache key, and the kernels that cannot be packed. Numerics: tests/kernels.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "codegen/fake_pointer.h"
#include "codegen/ptx_access_counts.h"
#include "example_kernels.h"
#include "kernels/cluster_rows_kernel.h"
#include "kernels/softmax_seed.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"

using namespace tilejit;

namespace {

using tilejit_test::fake;

// The seed's persistent kernel over rows of 256: two warps exchange each reduction through
// shared memory behind a barrier.
const CompiledKernel& seed(GpuCodegen codegen, int programs_per_block, int num_warps = 2) {
  std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), 256, 256, 4096, 256, 256, 2};
  CompileOptions o;
  o.num_warps = num_warps;
  o.num_stages = 2;
  o.arch = "sm_90";
  o.codegen = codegen;
  o.programs_per_block = programs_per_block;
  return examples::softmax_persistent().compile(args, o);
}

}  // namespace

TEST_CASE("CUDA C: programs sharing a block take their id from the block and their own barrier") {
  const CompiledKernel& alone = seed(GpuCodegen::cuda, 1);
  const CompiledKernel& packed = seed(GpuCodegen::cuda, 4);
  REQUIRE(packed.metadata().codegen == "cuda");
  const std::string& src = packed.stage("cuda");
  CHECK(src.find("__launch_bounds__(256)") != std::string::npos);  // 4 programs x 2 warps
  CHECK(src.find("int v5, int tj_programs)") != std::string::npos);
  CHECK(src.find("const int tj_warp = (threadIdx.x >> 5) & 1;") != std::string::npos);
  CHECK(src.find("const int tj_program = (int)blockIdx.x * 4 + tj_program_in_block;") != std::string::npos);
  CHECK(src.find("if (tj_program >= tj_programs) return;") != std::string::npos);
  CHECK(tilejit_test::occurrences(src, "blockIdx") == 1);  // program_id(0) reads tj_program only
  CHECK(src.find("gridDim") == std::string::npos);         // num_programs(0) is the parameter
  CHECK(tilejit_test::occurrences(src, "__syncthreads") == 0);
  CHECK(tilejit_test::occurrences(src, R"(asm volatile("bar.sync %0, 64;" :: "r"(tj_program_in_block) : "memory");)") ==
        tilejit_test::occurrences(alone.stage("cuda"), "__syncthreads();"));
  CHECK(tilejit_test::occurrences(src, "bar.sync") >= 2);  // the max's and the sum's exchanges
  // Each program's own scratch, 16-byte aligned, four of them a block.
  const int per_program = (alone.metadata().dynamic_shared_bytes + 15) / 16 * 16;
  CHECK(per_program > 0);
  CHECK(packed.metadata().dynamic_shared_bytes == 4 * per_program);
  CHECK(src.find(fmt::format("constexpr int tj_program_smem_bytes = {};", per_program)) != std::string::npos);
  CHECK(packed.metadata().programs_per_block == 4);
  CHECK(packed.stage("cubin").size() > 4);  // NVRTC compiled it
  CHECK(packed.metadata().key.find(" programs=4 ") != std::string::npos);
  CHECK(alone.metadata().key.find("programs=") == std::string::npos);
}

TEST_CASE("PTX generator: programs sharing a block, as the CUDA C generator lays them out") {
  const CompiledKernel& alone = seed(GpuCodegen::ptx, 1);
  const CompiledKernel& packed = seed(GpuCodegen::ptx, 4);
  REQUIRE(packed.metadata().codegen == "ptx");  // no fallback to CUDA C
  const std::string& ptx = packed.stage("ptx");
  CHECK(ptx.find(".maxntid 256, 1, 1") != std::string::npos);
  CHECK(ptx.find(".param .u32 tj_param_programs") != std::string::npos);
  CHECK(ptx.find("ld.param.u32 %r5, [tj_param_programs];") != std::string::npos);
  CHECK(ptx.find("mad.lo.s32 %r4, %r3, 4, %r2;") != std::string::npos);  // %ctaid.x x 4 + place in block
  CHECK(tilejit_test::occurrences(ptx, "%nctaid") == 0);
  CHECK(tilejit_test::occurrences(ptx, "bar.sync 0") == 0);
  CHECK(tilejit_test::occurrences(ptx, "bar.sync %r2, 64;") ==
        tilejit_test::occurrences(alone.stage("ptx"), "bar.sync 0;"));
  CHECK(tilejit_test::occurrences(ptx, "TJ_PROGRAM_SHARED_BYTES") == 0);
  const int per_program = (alone.metadata().dynamic_shared_bytes + 15) / 16 * 16;
  CHECK(packed.metadata().dynamic_shared_bytes == 4 * per_program);
  CHECK(ptx.find(fmt::format(", %r2, {}, ", per_program)) != std::string::npos);  // this program's slice
  CHECK(packed.stage("cubin").size() > 4);                                        // ptxas assembled it
}

TEST_CASE("one-warp programs sharing a block need no barrier and no shared memory") {
  for (GpuCodegen g : {GpuCodegen::cuda, GpuCodegen::ptx}) {
    const CompiledKernel& k = seed(g, 8, 1);
    CAPTURE(k.metadata().codegen);
    CHECK(k.metadata().dynamic_shared_bytes == 0);
    const std::string& text = k.stage(g == GpuCodegen::cuda ? "cuda" : "ptx");
    CHECK(tilejit_test::occurrences(text, "bar.sync") == 0);
    CHECK(tilejit_test::occurrences(text, "__syncthreads") == 0);
    CHECK(text.find(g == GpuCodegen::cuda ? "__launch_bounds__(256)" : ".maxntid 256, 1, 1") != std::string::npos);
  }
}

TEST_CASE("programs_per_block out of range is refused, naming the limit") {
  for (auto [warps, programs] : {std::pair{4, 0}, {1, 17}, {4, 9}, {32, 2}}) {
    CAPTURE(warps);
    CAPTURE(programs);
    const std::string limit =
        fmt::format("programs_per_block must be between 1 and {} for {} warps", std::min(16, 32 / warps), warps);
    CHECK_THROWS_WITH_AS(seed(GpuCodegen::cuda, programs, warps), doctest::Contains(limit.c_str()), Error);
  }
}

TEST_CASE("kernels that need a block per program cannot share one") {
  std::vector<Arg> args{
      fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::i32, 2), fake(DType::f32, 3), 7, 400, 128, 4};
  CompileOptions o;
  o.num_warps = 4;
  o.arch = "sm_90";
  o.programs_per_block = 2;
  CHECK_THROWS_WITH_AS(tilejit_test::cluster_rows().compile(args, o),
                       doctest::Contains("reduces across clusters (tl::cluster_*), which needs a thread block per "
                                         "program; it cannot be compiled with programs_per_block = 2"),
                       Error);
}
