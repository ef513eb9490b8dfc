// tilejit-inspect: print any stage of an example kernel at a chosen specialization.
//   tilejit-inspect softmax --block 1024 --warps 4 --emit ptx
//   tilejit-inspect softmax --block 1024 --backend cpu --emit asm
// Works without a GPU (CUDA stages compile for TILEJIT_ARCH, else sm_90). Without --backend the
// stage decides: cuda/ptx/cubin are CUDA's, llvm/asm the CPU's, anything else the default.
#include <fmt/format.h>

#include <cstdio>

#include "cli_args.h"
#include "example_kernels.h"
#include "tilejit/tilejit.h"

using namespace tilejit;

namespace {

void usage() {
  fmt::print(
      "usage: tilejit-inspect <kernel> [--block N] [--warps W] [--dtype f32|f16|bf16] [--rows M] [--cols N]\n"
      "                       [--backend cuda|cpu] [--arch sm_90] [--emit ir|ir.lowered|cuda|ptx|llvm|asm|meta]\n"
      "       tilejit-inspect --list\n\nkernels:\n");
  for (const auto& k : examples::example_kernels()) fmt::print("  {:<20} {}\n", k.name, k.description);
}

void print_meta(const CompiledKernel& k) {
  const auto& m = k.metadata();
  fmt::print(
      "kernel        {}\nentry         {}\nspecialization {}\nbackend       {}\narch          {}\nnum_warps     {}\n",
      m.kernel_name, m.entry_name, m.key, backend_name(m.backend), m.arch, m.num_warps);
  if (m.backend == Backend::cpu) {
    fmt::print("scratch       {} bytes per thread\n", m.cpu_scratch_bytes);
    fmt::print("time          trace+passes {:.2f} ms, codegen {:.2f} ms, LLVM {:.2f} ms\n", m.trace_ms, m.codegen_ms,
               m.compile_ms);
    fmt::print("stages        {}\n", fmt::join(k.stage_names(), ", "));
    return;
  }
  fmt::print("registers     {}\nspill bytes   {} stores, {} loads\nstack frame   {} bytes\n", m.registers,
             m.spill_store_bytes, m.spill_load_bytes, m.stack_frame_bytes);
  fmt::print("shared memory {} bytes (dynamic scratch)\n", m.dynamic_shared_bytes);
  fmt::print("time          trace+passes {:.2f} ms, codegen {:.2f} ms, nvrtc {:.2f} ms\n", m.trace_ms, m.codegen_ms,
             m.compile_ms);
  fmt::print("stages        {}\n", fmt::join(k.stage_names(), ", "));
  std::string why;
  if (has_gpu(&why)) {
    auto r = k.resources();
    fmt::print("device        {} regs, {} local bytes, {} static smem bytes, {} blocks/SM\n", r.n_regs, r.local_bytes,
               r.static_shared_bytes, r.max_active_blocks_per_sm);
  } else {
    fmt::print("device        none ({})\n", why);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--list") {
    usage();
    return 0;
  }
  try {
    const auto& example = examples::find_example(argv[1]);
    examples::CliArgs args(argc - 1, argv + 1,
                           {{"block", "1024"},
                            {"warps", "4"},
                            {"dtype", "f32"},
                            {"rows", "4096"},
                            {"cols", "0"},
                            {"arch", ""},
                            {"emit", "cuda"},
                            {"stages", "1"},
                            {"backend", ""}});
    DType dtype;
    if (!parse_dtype(args.str("dtype"), dtype)) throw Error(fmt::format("unknown dtype '{}'", args.str("dtype")));
    std::int64_t block = args.integer("block");
    std::int64_t cols = args.given("cols") ? args.integer("cols") : block;
    auto launch_args = example.arguments(args.integer("rows"), cols, block, dtype);
    CompileOptions options;
    options.num_warps = static_cast<int>(args.integer("warps"));
    options.num_stages = static_cast<int>(args.integer("stages"));
    options.arch = args.str("arch");
    const std::string& emit = args.str("emit");
    const std::string& backend = args.str("backend");
    if (backend == "cuda") options.backend = Backend::cuda;
    else if (backend == "cpu") options.backend = Backend::cpu;
    else if (!backend.empty()) throw Error(fmt::format("unknown --backend '{}' (cuda or cpu)", backend));
    else if (emit == "cuda" || emit == "ptx" || emit == "cubin") options.backend = Backend::cuda;
    else if (emit == "llvm" || emit == "asm") options.backend = Backend::cpu;
    const CompiledKernel& k = example.kernel->compile(launch_args, options);
    if (emit == "meta") print_meta(k);
    else std::fwrite(k.stage(emit).data(), 1, k.stage(emit).size(), stdout);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-inspect: {}\n", e.what());
    return 1;
  }
}
