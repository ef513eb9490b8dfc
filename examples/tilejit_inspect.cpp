// tilejit-inspect: print any stage of an example kernel at a chosen specialization, or what
// the disk cache holds.
//   tilejit-inspect softmax --block 1024 --warps 4 --emit ptx
//   tilejit-inspect softmax --block 1024 --backend cpu --emit asm
//   tilejit-inspect softmax_persistent --codegen cuda --emit ptx  (NVRTC's PTX of the CUDA C generator)
//   tilejit-inspect --cache                      (entries of the disk cache)
//   tilejit-inspect --cache-entry FILE --emit ptx|cuda|sass|meta
// Works without a GPU (CUDA stages compile for TILEJIT_ARCH, else sm_90). Without --backend the
// stage decides: cuda/ptx/cubin/sass are CUDA's, llvm/asm the CPU's, anything else the default.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cstdio>
#include <ctime>

#include "cli_args.h"
#include "example_kernels.h"
#include "sass.h"
#include "tilejit/cache.h"
#include "tilejit/tilejit.h"

using namespace tilejit;

namespace {

void usage() {
  fmt::print(
      "usage: tilejit-inspect <kernel> [--block N] [--warps W] [--dtype f32|f16|bf16] [--rows M] [--cols N]\n"
      "                       [--backend cuda|cpu] [--arch sm_90] [--codegen ptx|cuda]\n"
      "                       [--emit ir|ir.lowered|cuda|ptx|sass|llvm|asm|meta]\n"
      "       tilejit-inspect --list\n"
      "       tilejit-inspect --cache\n"
      "       tilejit-inspect --cache-entry FILE [--emit cuda|ptx|sass|meta]\n\nkernels:\n");
  for (const auto& k : examples::example_kernels()) fmt::print("  {:<20} {}\n", k.name, k.description);
}

void print_meta(const CompiledKernel& k) {
  const auto& m = k.metadata();
  fmt::print(
      "kernel        {}\nentry         {}\nspecialization {}\nbackend       {}\narch          {}\nnum_warps     {}\n",
      m.kernel_name, m.entry_name, m.key, backend_name(m.backend), m.arch, m.num_warps);
  if (!m.codegen.empty()) fmt::print("codegen       {}\n", m.codegen);
  if (m.cluster_size > 1) fmt::print("cluster       {} programs (tl::cluster_* reductions)\n", m.cluster_size);
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
  fmt::print("time          trace+passes {:.2f} ms, codegen {:.2f} ms, {} {:.2f} ms\n", m.trace_ms, m.codegen_ms,
             m.from_disk_cache    ? "disk cache read"
             : m.codegen == "ptx" ? "PTX assembler"
                                  : "nvrtc",
             m.compile_ms);
  fmt::print("compiled      {}\n", m.compile_reason);
  if (!m.disk_cache_path.empty()) fmt::print("disk entry    {}\n", m.disk_cache_path);
  if (!m.override_path.empty()) fmt::print("override      {}\n", m.override_path);
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

std::string when(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  return fmt::format("{:%Y-%m-%d %H:%M:%S}", fmt::localtime(t));
}

int list_cache() {
  std::string why;
  std::string dir = cache_directory(&why);
  if (dir.empty()) {
    fmt::print("disk cache off: {}\n", why);
    return 0;
  }
  auto entries = list_cache_entries();
  std::uint64_t total = 0;
  for (const auto& e : entries) total += e.bytes;
  fmt::print("disk cache {}: {} entries, {} bytes (most recently used first)\n", dir, entries.size(), total);
  for (const auto& e : entries) {
    if (!e.valid) {
      fmt::print("\n{}\n  invalid ({}): it will be rebuilt\n", e.path, e.problem);
      continue;
    }
    fmt::print("\n{}  {}  {} bytes  last use {}\n  {}\n  {}\n", e.kernel_name, e.arch, e.bytes, when(e.last_use), e.key,
               e.path);
  }
  return 0;
}

void print_entry(const std::string& path, const std::string& emit) {
  if (emit == "sass") {
    fmt::print("{}", examples::disassemble(read_cache_entry_field(path, "cubin")));
  } else if (emit == "meta") {
    for (const char* f : {"kernel", "entry", "key", "arch", "registers", "spill_stores", "spill_loads", "stack_frame",
                          "dynamic_shared"})
      fmt::print("{:<15}{}\n", f, read_cache_entry_field(path, f));
    fmt::print("key components\n{}", read_cache_entry_field(path, "components"));
  } else {
    std::string text = read_cache_entry_field(path, emit);
    std::fwrite(text.data(), 1, text.size(), stdout);
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
    if (std::string(argv[1]) == "--cache") return list_cache();
    if (std::string(argv[1]) == "--cache-entry") {
      if (argc < 3) throw Error("--cache-entry needs a file (see --cache)");
      examples::CliArgs args(argc - 2, argv + 2, {{"emit", "meta"}});
      print_entry(argv[2], args.str("emit"));
      return 0;
    }
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
                            {"backend", ""},
                            {"codegen", ""}});
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
    else if (emit == "cuda" || emit == "ptx" || emit == "cubin" || emit == "sass") options.backend = Backend::cuda;
    else if (emit == "llvm" || emit == "asm") options.backend = Backend::cpu;
    const std::string& codegen = args.str("codegen");
    if (codegen == "ptx") options.codegen = GpuCodegen::ptx;
    else if (codegen == "cuda") options.codegen = GpuCodegen::cuda;
    else if (!codegen.empty()) throw Error(fmt::format("unknown --codegen '{}' (ptx or cuda)", codegen));
    // Asking for the CUDA C stage asks for the generator that writes it.
    if (codegen.empty() && args.str("emit") == "cuda") options.codegen = GpuCodegen::cuda;
    const CompiledKernel& k = example.kernel->compile(launch_args, options);
    if (emit == "meta") print_meta(k);
    else if (emit == "sass") fmt::print("{}", examples::disassemble(k.stage("cubin")));
    else std::fwrite(k.stage(emit).data(), 1, k.stage(emit).size(), stdout);
    return 0;
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-inspect: {}\n", e.what());
    return 1;
  }
}
