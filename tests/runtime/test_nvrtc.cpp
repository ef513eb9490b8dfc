// NVRTC compilation: works without a GPU, reports ptxas figures, explains failures.
#include <doctest/doctest.h>

#include <string>

#include "runtime/nvrtc_compiler.h"
#include "tilejit/error.h"

using namespace tilejit;

namespace {

const char* const kAxpy = R"(
extern "C" __global__ void axpy_kernel(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// A per-thread array indexed by a run-time value cannot live in registers: it needs a stack frame.
const char* const kLocalArray = R"(
extern "C" __global__ void local_array_kernel(float* out, const int* idx, int n) {
  float scratch[256];
  for (int k = 0; k < 256; ++k) scratch[k] = out[k] * k;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scratch[idx[i] & 255];
}
)";

}  // namespace

TEST_CASE("nvrtc_version names the linked NVRTC") {
  const std::string v = rt::nvrtc_version();
  CHECK(v.find('.') != std::string::npos);
  CHECK(v != "unknown");
}

TEST_CASE("compile for real architectures: PTX, cubin and ptxas report") {
  for (const char* arch : {"sm_80", "sm_90"}) {
    CAPTURE(arch);
    rt::NvrtcOutput out = rt::nvrtc_compile(kAxpy, "axpy.cu", arch, {});
    INFO("log: " << out.log);
    CHECK(out.ptx.find(".entry axpy_kernel") != std::string::npos);
    CHECK(out.ptx.find(std::string(".target ") + arch) != std::string::npos);
    REQUIRE(out.cubin.size() > 4);
    CHECK(std::string(out.cubin.data() + 1, 3) == "ELF");
    CHECK(out.ptxas.valid);
    CHECK(out.ptxas.registers > 0);
    CHECK(out.ptxas.stack_frame_bytes == 0);
    CHECK(out.ptxas.spill_store_bytes == 0);
    CHECK(out.compile_ms > 0);
    REQUIRE(out.options.size() >= 5);
    CHECK(out.options[0] == std::string("--gpu-architecture=") + arch);
  }
}

TEST_CASE("recompiling the same source still reports ptxas figures") {
  // With a driver present NVRTC would otherwise serve the second compile from the driver's cache,
  // skipping ptxas and its report.
  for (int i = 0; i < 2; ++i) {
    CAPTURE(i);
    rt::NvrtcOutput out = rt::nvrtc_compile(kAxpy, "axpy_again.cu", "sm_90", {});
    CHECK(out.ptxas.valid);
  }
}

TEST_CASE("compute_XX yields PTX only") {
  rt::NvrtcOutput out = rt::nvrtc_compile(kAxpy, "axpy.cu", "compute_90", {"-DUNUSED=1"});
  CHECK(out.ptx.find(".entry axpy_kernel") != std::string::npos);
  CHECK(out.cubin.empty());
  CHECK_FALSE(out.ptxas.valid);
  CHECK(out.options.back() == "-DUNUSED=1");
}

TEST_CASE("a kernel with a dynamically indexed local array reports a stack frame") {
  rt::NvrtcOutput out = rt::nvrtc_compile(kLocalArray, "local.cu", "sm_90", {});
  INFO("log: " << out.log);
  CHECK(out.ptxas.valid);
  CHECK(out.ptxas.stack_frame_bytes >= 1024);
}

TEST_CASE("cuda_fp16.h and cuda_bf16.h are found") {
  const char* source = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void widen_kernel(float* out, const __half* h, const __nv_bfloat16* b) {
  out[threadIdx.x] = __half2float(h[threadIdx.x]) + __bfloat162float(b[threadIdx.x]);
}
)";
  REQUIRE_FALSE(rt::cuda_include_dir().empty());
  rt::NvrtcOutput out = rt::nvrtc_compile(source, "widen.cu", "sm_90", {});
  CHECK(out.ptx.find(".entry widen_kernel") != std::string::npos);
}

TEST_CASE("a syntax error throws CompileError with log, source and options") {
  const std::string source =
      "extern \"C\" __global__ void broken(float* y) {\n"
      "  y[0] = 1.0f\n"
      "  y[1] = 2.0f;\n"
      "}\n";
  try {
    rt::nvrtc_compile(source, "broken.cu", "sm_90", {"-DFOO=1"});
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.source() == source);
    CHECK(e.log().find("broken.cu(3)") != std::string::npos);
    CHECK(e.options().find("--gpu-architecture=sm_90") != std::string::npos);
    CHECK(e.options().find("-DFOO=1") != std::string::npos);
    const std::string what = e.what();
    CHECK(what.find("broken.cu") != std::string::npos);
    CHECK(what.find("sm_90") != std::string::npos);
  }
}

TEST_CASE("a malformed architecture is rejected up front") {
  CHECK_THROWS_AS(rt::nvrtc_compile(kAxpy, "axpy.cu", "hopper", {}), Error);
  CHECK_THROWS_AS(rt::nvrtc_compile(kAxpy, "axpy.cu", "sm_9", {}), Error);
}

TEST_CASE("parse_ptxas_info reads ptxas -v lines") {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 78 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n";
  rt::PtxasInfo info = rt::parse_ptxas_info(log);
  CHECK(info.valid);
  CHECK(info.registers == 78);
  CHECK(info.stack_frame_bytes == 24);
  CHECK(info.spill_store_bytes == 8);
  CHECK(info.spill_load_bytes == 12);
  CHECK(info.static_shared_bytes == 2048);
  CHECK_FALSE(rt::parse_ptxas_info("").valid);
  // The ptxas program of CUDA 13 prints the function's properties without the "ptxas" prefix.
  const std::string cli_log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "    488 bytes stack frame, 1240 bytes spill stores, 1232 bytes spill loads\n"
      "ptxas info    : Used 48 registers, used 1 barriers, 488 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 48.916 ms\n";
  info = rt::parse_ptxas_info(cli_log);
  CHECK(info.registers == 48);
  CHECK(info.stack_frame_bytes == 488);
  CHECK(info.spill_store_bytes == 1240);
  CHECK(info.spill_load_bytes == 1232);
  // A line of the user's own that merely mentions spills is not ptxas's report.
  CHECK(rt::parse_ptxas_info("note: 4 bytes stack frame, 4 bytes spill stores\n").spill_store_bytes == 0);
}
