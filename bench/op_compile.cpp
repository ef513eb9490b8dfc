// bench-op-compile: what a first call of ops::softmax costs in compiling, shape by shape. For each
// benchmark shape of issues 4 and 5 it takes the configuration the shipped H200 table picks and
// compiles the op's kernels for sm_90 through each CUDA generator (the PTX generator + ptxas, then
// CUDA C + NVRTC), from empty caches: trace, code generation and assembly, as KernelMetadata
// times them, and the registers ptxas gave. Needs no GPU.
//
//   bench-op-compile [--out FILE]      (default: op_compile.md in the working directory)
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"

using namespace tilejit;
namespace fs = std::filesystem;

namespace {

struct Shape {
  std::int64_t rows, cols;
};

// The op's kernels for one shape through one generator: the summed compile time, each kernel's
// registers, and which generator built each (the PTX generator hands what it cannot express to
// NVRTC).
struct Build {
  double ms = 0;
  std::vector<std::string> registers, generators;
};

Build build(const Shape& s, DType t, const ops::SoftmaxConfig& c, const char* generator) {
  setenv("TILEJIT_CODEGEN", generator, 1);
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  o.config = c;
  const Pointer in{0x10000, t}, out{0x20000, t};
  Build b;
  for (const CompiledKernel* k : ops::compile_softmax(out, in, s.rows, s.cols, s.cols, s.cols, false, o)) {
    const KernelMetadata& md = k->metadata();
    b.ms += md.trace_ms + md.codegen_ms + md.compile_ms;
    b.registers.push_back(std::to_string(md.registers));
    b.generators.push_back(md.codegen);
  }
  return b;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M", std::gmtime(&now));
  return text;
}

std::string joined(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, " + ")); }

}  // namespace

int main(int argc, char** argv) {
  std::string out_path = "op_compile.md";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--out" && i + 1 < argc) out_path = argv[++i];
    else {
      fmt::print(stderr, "usage: bench-op-compile [--out FILE]\n");
      return 2;
    }
  }
  // Empty caches: every kernel is compiled here, and nothing is left in the user's cache.
  const fs::path scratch = fs::temp_directory_path() / fmt::format("tilejit-op-compile-{}", ::getpid());
  fs::create_directories(scratch);
  setenv("TILEJIT_CACHE_DIR", scratch.c_str(), 1);
  const char* device = "NVIDIA H200";
  const std::vector<Shape> shapes = {{4096, 256},   {4096, 1024},  {4096, 2048},   {4096, 4096},   {4096, 8192},
                                     {4096, 16384}, {4096, 65536}, {4096, 262144}, {65536, 32},    {65536, 128},
                                     {32768, 512},  {1, 1 << 24},  {16, 1 << 22},  {128, 1 << 20}, {1, 1 << 20}};
  std::string md = fmt::format(
      "# Cold compile of ops::softmax's kernels, per CUDA generator\n\n"
      "Configurations: the shipped {} table's, for sm_90. Time: trace + code generation + assembly\n"
      "(KernelMetadata), summed over the op's kernels for the shape, from empty caches, one thread.\n"
      "Registers as ptxas gave them, one entry per kernel. Made by `bench-op-compile`; no GPU needed.\n"
      "Machine: {} hardware threads; {} UTC.\n\n"
      "| dtype | M x N | configuration | PTX generator ms | registers | CUDA C + NVRTC ms | registers | ratio |\n"
      "|---|---|---|---:|---|---:|---|---:|\n",
      device, std::thread::hardware_concurrency(), utc_now());
  for (DType t : {DType::f32, DType::bf16}) {
    for (const Shape& s : shapes) {
      const auto c = ops::shipped_softmax_config_for(device, s.rows, s.cols, t);
      if (!c) continue;
      const Build ptx = build(s, t, *c, "ptx"), cuda = build(s, t, *c, "cuda");
      std::string ptx_regs = joined(ptx.registers);
      for (const std::string& g : ptx.generators)
        if (g != "ptx") ptx_regs += " (NVRTC's)";
      md += fmt::format("| {} | {} x {} | {} | {:.1f} | {} | {:.1f} | {} | {:.1f}x |\n", dtype_name(t), s.rows, s.cols,
                        ops::describe(*c), ptx.ms, ptx_regs, cuda.ms, joined(cuda.registers), cuda.ms / ptx.ms);
      fmt::print("{} {} x {}: {:.1f} ms / {:.1f} ms\n", dtype_name(t), s.rows, s.cols, ptx.ms, cuda.ms);
    }
  }
  wait_for_background_compiles();
  fs::remove_all(scratch);
  std::ofstream(out_path) << md;
  fmt::print("wrote {}\n", out_path);
  return 0;
}
