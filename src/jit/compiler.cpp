#include "jit/compiler.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "codegen/cuda/codegen.h"
#include "codegen/ptx/codegen.h"
#include "dsl/trace.h"
#include "ir/printer.h"
#include "jit/cpu_backend.h"
#include "jit/disk_cache.h"
#include "jit/hash128.h"
#include "jit/miss_reason.h"
#include "passes/passes.h"
#include "runtime/device.h"
#include "runtime/nvrtc_compiler.h"
#include "runtime/ptx_assembler.h"
#include "tilejit/error.h"

namespace tilejit::jit {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool debug_enabled() {
#ifndef NDEBUG
  return true;
#else
  const char* v = std::getenv("TILEJIT_DEBUG");
  return v && std::string(v) == "1";
#endif
}

std::string entry_name_for(const std::string& kernel, const std::string& key) {
  std::string name;
  for (char c : kernel) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "k_" + name;
  return fmt::format("{}_{:016x}", name, fnv1a(key));
}

tl::detail::TraceParam trace_param(const BoundParam& p) {
  using Kind = tl::detail::TraceParam::Kind;
  Kind k = Kind::integer;
  switch (p.kind) {
    case detail::ParamKind::pointer: k = Kind::pointer; break;
    case detail::ParamKind::integer: k = Kind::integer; break;
    case detail::ParamKind::floating: k = Kind::floating; break;
    case detail::ParamKind::constexpr_int: k = Kind::constexpr_int; break;
  }
  return {p.name, k, p.dtype, p.constexpr_value, p.divisibility, p.equals_one};
}

// TILEJIT_DEBUG=1 (exactly; Debug builds' verification does not print) says why each compile ran.
void report_compile(const KernelMetadata& md) {
  const char* v = std::getenv("TILEJIT_DEBUG");
  if (v && std::string(v) == "1") fmt::print(stderr, "tilejit: {}\n", md.compile_reason);
}

struct Override {
  enum Kind { none, cuda, ptx } kind = none;
  std::string path, text;
};

// TILEJIT_OVERRIDE_DIR/<entry>.cuda replaces the generated CUDA C, <entry>.ptx the PTX (NVRTC's or
// the PTX generator's).
Override find_override(const std::string& entry) {
  const char* dir = std::getenv("TILEJIT_OVERRIDE_DIR");
  if (!dir || !*dir) return {};
  for (auto [kind, ext] : {std::pair{Override::cuda, ".cuda"}, std::pair{Override::ptx, ".ptx"}}) {
    std::filesystem::path p = std::filesystem::path(dir) / (entry + ext);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) continue;
    std::ifstream in(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) throw Error(fmt::format("could not read the override file {}", p.string()));
    return {kind, p.string(), std::move(text)};
  }
  return {};
}

std::string field(const EntryFields& f, const char* name) {
  auto it = f.find(name);
  return it == f.end() ? std::string() : it->second;
}

int int_field(const EntryFields& f, const char* name) {
  std::string v = field(f, name);
  int out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && ptr == v.data() + v.size() ? out : -1;
}

// What turns a kernel's generated source into a cubin: NVRTC for CUDA C, ptxas (or nvJitLink)
// for PTX.
struct Toolchain {
  std::string source_stage;  // the stage holding the source: "cuda" or "ptx"
  const char* tool;          // for messages
  const char* name;          // key components: <name>=<version>, <name>_options=<options>
  std::string version;
  std::vector<std::string> options;
};

Toolchain nvrtc_toolchain(const std::string& arch) {
  static const std::string version = rt::nvrtc_version();
  return {"cuda", "NVRTC", "nvrtc", version, rt::nvrtc_options(arch)};
}

Toolchain ptx_toolchain(const std::string& arch) {
  static const std::string name = rt::ptx_assembler_name();
  return {"ptx", name.c_str(), "ptx_assembler", rt::ptx_assembler_version(), rt::ptx_assembler_options(arch)};
}

// Whether a decoded entry is exactly this kernel: same full key, same source, usable binary.
// (The checksum already caught corruption; this catches hash collisions and stale layouts.)
std::string entry_mismatch(const EntryFields& e, const std::string& components, const CompiledKernel::Impl& k,
                           const Toolchain& tc) {
  if (field(e, "components") != components) return "its key differs";
  if (field(e, tc.source_stage.c_str()) != k.stages.at(tc.source_stage)) return "its source differs";
  if (field(e, "entry") != k.metadata.entry_name) return "its entry name differs";
  if (field(e, "ptx").empty()) return "it has no PTX";
  if (rt::is_sm_arch(k.metadata.arch) && field(e, "cubin").empty()) return "it has no cubin";
  for (const char* n : {"registers", "spill_stores", "spill_loads", "stack_frame", "dynamic_shared"})
    if (int_field(e, n) < 0) return fmt::format("its {} field is malformed", n);
  if (int_field(e, "dynamic_shared") != k.metadata.dynamic_shared_bytes) return "its shared memory size differs";
  return {};
}

// The parts of the disk key beyond the specialization: everything else that changes the binary.
void add_toolchain_components(KeyComponents& parts, const std::string& source, const Toolchain& tc,
                              const Override& ov) {
  std::string joined;
  for (const auto& o : tc.options) joined += (joined.empty() ? "" : " ") + o;
  parts.emplace_back("tilejit", TILEJIT_VERSION);
  // How the assembler's report is read: entries from before spills were read off the CUDA 13
  // ptxas program's report (which recorded none) are built again rather than trusted.
  parts.emplace_back("report", "2");
  parts.emplace_back(tc.name, tc.version);
  parts.emplace_back("llvm", llvm_version_name());
  parts.emplace_back(std::string(tc.name) + "_options", joined);
  parts.emplace_back("source", hash128_hex(source));
  parts.emplace_back("override", ov.kind == Override::cuda ? hash128_hex(ov.text) : "none");
  const char* arch_env = std::getenv("TILEJIT_ARCH");
  parts.emplace_back("TILEJIT_ARCH", arch_env ? arch_env : "");
}

// The PTX generator's output, or nullopt with *why naming what it could not express.
std::optional<codegen::ptx::PtxKernelSource> generate_ptx_or_explain(const ir::Function& f, const std::string& entry,
                                                                     const BlockOptions& block, const std::string& arch,
                                                                     std::string& why) {
  try {
    return codegen::ptx::generate_ptx(
        f, {entry, block.num_warps, block.min_blocks_per_sm, block.programs_per_block, arch, true});
  } catch (const codegen::ptx::Unsupported& e) {
    why = e.what();
    return std::nullopt;
  }
}

// Programs share a thread block (CompileOptions::programs_per_block) only where nothing needs the
// block to themselves: clusters and groups count blocks, and stashes fill shared memory through
// the block's copy engine barriers.
void check_packable(const ir::Function& f, const KernelMetadata& md) {
  const char* what = md.cluster_size > 1                                   ? "reduces across clusters (tl::cluster_*)"
                     : md.group_size > 1 || ir::has_split_exchange(f.body) ? "reduces across groups (tl::group_*)"
                     : !f.stashes.empty()                                  ? "keeps blocks in shared memory (tl::stash)"
                                                                           : nullptr;
  if (what)
    throw Error(
        fmt::format("kernel {} {}, which needs a thread block per program; it cannot be compiled with "
                    "programs_per_block = {} (use 1)",
                    md.kernel_name, what, md.programs_per_block));
}

// Thread-block clusters and distributed shared memory arrived with sm_90.
bool supports_clusters(const std::string& arch) { return rt::sm_arch_number(arch) >= 90; }

std::string file_stem(const std::string& kernel, const std::string& hex) {
  std::string name;
  for (char c : kernel.substr(0, 64)) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + "-" + hex;
}

// Disk hit: the toolchain is skipped. Disk miss (or an entry that fails validation): NVRTC or
// the PTX assembler, then the entry is (re)written. Either way metadata says what happened and why.
// Returns false, having compiled nothing, on a disk miss with `disk_only`.
bool compile_gpu_cached(CompiledKernel::Impl& k, const Override& ov, const std::vector<KeyComponents>& previous,
                        const Toolchain& tc, bool disk_only) {
  auto& md = k.metadata;
  const std::string& source = k.stages.at(tc.source_stage);
  add_toolchain_components(k.components, source, tc, ov);
  const std::string components = encode_components(k.components);
  Hasher128 h;
  h.add(components);
  const std::string stem = file_stem(md.kernel_name, h.hex());

  auto cache = DiskCache::from_env();
  std::string disk_note;
  std::string path = cache.enabled() ? cache.path_for(stem) : "";
  if (!cache.enabled()) {
    disk_note = "disk cache off: " + cache.disabled_reason();
  } else if (DiskCache::always_compile()) {
    disk_note = "disk cache not read (TILEJIT_ALWAYS_COMPILE=1)";
  } else {
    auto t0 = std::chrono::steady_clock::now();
    std::string why;
    auto entry = cache.load(path, &why);
    if (entry) why = entry_mismatch(*entry, components, k, tc);
    if (entry && why.empty()) {
      k.stages["ptx"] = field(*entry, "ptx");
      std::string cubin = field(*entry, "cubin");
      k.cubin.assign(cubin.begin(), cubin.end());
      if (!cubin.empty()) k.stages["cubin"] = std::move(cubin);
      md.registers = int_field(*entry, "registers");
      md.spill_store_bytes = int_field(*entry, "spill_stores");
      md.spill_load_bytes = int_field(*entry, "spill_loads");
      md.stack_frame_bytes = int_field(*entry, "stack_frame");
      md.compile_ms = ms_since(t0);
      md.from_disk_cache = true;
      md.disk_cache_path = path;
      md.compile_reason =
          fmt::format("{}; {} skipped: disk cache hit", explain_miss(md.kernel_name, k.components, previous), tc.tool);
      return true;
    }
    disk_note = why == "no entry" ? "disk cache miss (no entry)" : "disk entry ignored and rebuilt (" + why + ")";
  }
  if (disk_only) return false;

  // Nearest entries to explain the miss: this kernel's earlier keys in memory, then on disk.
  std::vector<KeyComponents> candidates = previous;
  if (cache.enabled())
    for (const auto& p : cache.entries_with_prefix(file_stem(md.kernel_name, ""), 16))
      if (p != path)
        if (auto e = cache.load(p, nullptr, false); e) candidates.push_back(decode_components(field(*e, "components")));

  rt::PtxasInfo ptxas;
  if (tc.source_stage == "cuda") {
    auto out = rt::nvrtc_compile(source, md.kernel_name + ".cu", md.arch);
    k.stages["ptx"] = out.ptx;
    k.cubin = out.cubin;
    md.compile_ms = out.compile_ms;
    ptxas = out.ptxas;
  } else {
    auto out = rt::assemble_ptx(source, md.kernel_name + ".ptx", md.arch);
    k.cubin = out.cubin;
    md.compile_ms = out.assemble_ms;
    ptxas = out.ptxas;
  }
  if (!k.cubin.empty()) k.stages["cubin"] = std::string(k.cubin.begin(), k.cubin.end());
  md.registers = ptxas.registers;
  md.spill_store_bytes = ptxas.spill_store_bytes;
  md.spill_load_bytes = ptxas.spill_load_bytes;
  md.stack_frame_bytes = ptxas.stack_frame_bytes;

  if (cache.enabled()) {
    EntryFields e{{"components", components},
                  {"key", md.key},
                  {"kernel", md.kernel_name},
                  {"entry", md.entry_name},
                  {"arch", md.arch},
                  {"ptx", k.stages["ptx"]},
                  {"cubin", k.stages.count("cubin") ? k.stages["cubin"] : std::string()},
                  {"registers", std::to_string(md.registers)},
                  {"spill_stores", std::to_string(md.spill_store_bytes)},
                  {"spill_loads", std::to_string(md.spill_load_bytes)},
                  {"stack_frame", std::to_string(md.stack_frame_bytes)},
                  {"dynamic_shared", std::to_string(md.dynamic_shared_bytes)}};
    if (tc.source_stage == "cuda") e.emplace("cuda", source);
    std::string why;
    if (cache.store(path, e, &why)) md.disk_cache_path = path;
    else disk_note += "; not written: " + why;
  }
  md.compile_reason = explain_miss(md.kernel_name, k.components, candidates) + "; " + disk_note;
  return true;
}

}  // namespace

std::unique_ptr<CompiledKernel::Impl> compile_specialization(const CompileRequest& req) {
  // The options are the user's: refused at their compile or launch call.
  const BlockOptions& block = req.block;
  if (block.num_warps < 1 || block.num_warps > 32 || (block.num_warps & (block.num_warps - 1)) != 0)
    throw UserError(fmt::format("num_warps must be 1, 2, 4, 8, 16 or 32, got {}", block.num_warps), req.call_site);
  if (block.num_stages < 1 || block.num_stages > 8)
    throw UserError(fmt::format("num_stages must be between 1 and 8, got {}", block.num_stages), req.call_site);
  // An SM holds at most 64 warps (2048 threads) and 32 blocks; a block holds every program packed into it.
  const int block_warps = block.num_warps * std::max(1, block.programs_per_block);
  if (block.min_blocks_per_sm < 0 || block.min_blocks_per_sm > 32 || block.min_blocks_per_sm * block_warps > 64)
    throw UserError(fmt::format("min_blocks_per_sm must be between 0 and {} for {} warps a block (an SM holds at most "
                                "64 warps and 32 blocks), got {}",
                                std::min(32, std::max(1, 64 / block_warps)), block_warps, block.min_blocks_per_sm),
                    req.call_site);
  // A block holds at most 1024 threads (32 warps), and each program takes a named barrier of its own (16).
  if (block.programs_per_block < 1 || block.programs_per_block > 16 || block.programs_per_block * block.num_warps > 32)
    throw UserError(fmt::format("programs_per_block must be between 1 and {} for {} warps a program (a block holds at "
                                "most 32 warps, and each program takes one of 16 barriers), got {}",
                                std::min(16, 32 / block.num_warps), block.num_warps, block.programs_per_block),
                    req.call_site);
  if (block.prefetch_in_shared && block.programs_per_block > 1)
    throw UserError(
        fmt::format("prefetch_in_shared keeps blocks in shared memory, which programs sharing a thread block "
                    "cannot (programs_per_block = {}): use one of the two",
                    block.programs_per_block),
        req.call_site);
  auto k = std::make_unique<CompiledKernel::Impl>();
  auto& md = k->metadata;
  md.kernel_name = req.signature->kernel_name;
  md.entry_name = entry_name_for(md.kernel_name, req.key);
  md.key = req.key;
  md.arch = req.arch;
  md.backend = req.backend;
  md.num_warps = block.num_warps;
  md.num_stages = block.num_stages;
  md.min_blocks_per_sm = block.min_blocks_per_sm;
  md.programs_per_block = block.programs_per_block;
  md.prefetch_in_shared = block.prefetch_in_shared;
  k->signature = *req.signature;
  k->params = req.params;
  k->components = spec_components(req.params, block, req.arch, req.backend, req.codegen);

  auto t0 = std::chrono::steady_clock::now();
  std::vector<tl::detail::TraceParam> trace_params;
  for (const auto& p : req.params) trace_params.push_back(trace_param(p));
  ir::Function f = tl::detail::trace_kernel(md.kernel_name, std::move(trace_params), *req.invoke, req.call_site);
  ir::check_block_sizes(f, block.num_warps);
  k->stages["ir"] = ir::print(f);
  passes::canonicalize(f, debug_enabled());
  // Prefetching the next iteration's loads pays on the GPU, where latency is hidden by
  // loads in flight; the CPU's caches and prefetchers do that work there.
  if (req.backend == Backend::cuda && passes::pipeline_loop_loads(f, block.num_warps, block.num_stages,
                                                                  block.prefetch_in_shared ? tl::kMaxStashBytes : 0))
    passes::canonicalize(f, debug_enabled());
  k->stages["ir.lowered"] = ir::print(f);
  md.trace_ms = ms_since(t0);
  md.cluster_size = ir::cluster_size(f);
  md.group_size = ir::group_size(f);
  ir::check_cluster_loops(f, std::max(md.cluster_size, md.group_size));
  if (md.cluster_size > 1 && req.backend == Backend::cuda && !supports_clusters(md.arch))
    throw Error(
        fmt::format("kernel {} reduces across clusters of {} programs (tl::cluster_*), which needs sm_90 or "
                    "newer; the target is {}",
                    md.kernel_name, md.cluster_size, md.arch));
  if (block.programs_per_block > 1) check_packable(f, md);

  if (req.backend == Backend::cpu) {
    // CPU kernels live in the ORC JIT as native code in this process's memory; there is
    // nothing to serialize, so they are cached in memory only.
    compile_cpu(*k, f);
    md.compile_reason = explain_miss(md.kernel_name, k->components, req.previous) + " (CPU: memory cache only)";
    report_compile(md);
    dump_stages_from_env(*k);
    return k;
  }
  t0 = std::chrono::steady_clock::now();
  Override ov = find_override(md.entry_name);
  // The PTX generator when asked for; the CUDA C one when it cannot express the kernel, or
  // when an override supplies CUDA C.
  std::string fallback;
  if (req.codegen == GpuCodegen::ptx) {
    if (ov.kind == Override::cuda) fallback = "CUDA C override " + ov.path;
    else if (auto ptx = generate_ptx_or_explain(f, md.entry_name, block, md.arch, fallback)) {
      k->stages["ptx"] = ptx->ptx;
      md.dynamic_shared_bytes = ptx->dynamic_shared_bytes;
      md.codegen = "ptx";
    }
  }
  if (md.codegen.empty() && req.ptx_generator_only) return nullptr;
  if (md.codegen.empty()) {
    auto cuda = codegen::cuda::generate_cuda(
        f, {md.entry_name, block.num_warps, block.min_blocks_per_sm, block.programs_per_block, true});
    k->stages["cuda"] = cuda.source;
    md.dynamic_shared_bytes = cuda.dynamic_shared_bytes;
    md.codegen = "cuda";
  }
  md.codegen_ms = ms_since(t0);
  std::string fallback_note = fallback.empty() ? "" : "; CUDA C + NVRTC instead of the PTX generator: " + fallback;

  if (ov.kind == Override::ptx) {
    // The driver JIT-compiles the PTX at load; NVRTC, the PTX assembler and the disk cache are not involved.
    md.override_path = ov.path;
    k->stages["ptx"] = ov.text;
    k->load_ptx = true;
    md.compile_reason =
        explain_miss(md.kernel_name, k->components, req.previous) + "; PTX from " + ov.path + fallback_note;
    report_compile(md);
    dump_stages_from_env(*k);
    return k;
  }
  if (ov.kind == Override::cuda) {
    md.override_path = ov.path;
    k->stages["cuda"] = ov.text;
  }
  if (!compile_gpu_cached(*k, ov, req.previous, md.codegen == "ptx" ? ptx_toolchain(md.arch) : nvrtc_toolchain(md.arch),
                          req.disk_only))
    return nullptr;
  md.compile_reason += fallback_note;
  report_compile(md);
  dump_stages_from_env(*k);
  return k;
}

std::string dump_stage(const CompiledKernel::Impl& k, const std::string& stage, const std::string& dir) {
  const std::string* text = k.find_stage(stage);
  if (!text) throw Error(fmt::format("stage '{}' is not available for {}", stage, k.metadata.entry_name));
  std::filesystem::create_directories(dir);
  std::string path =
      std::filesystem::absolute(std::filesystem::path(dir) / (k.metadata.entry_name + "." + stage)).string();
  std::ofstream f(path, std::ios::binary);
  f.write(text->data(), static_cast<std::streamsize>(text->size()));
  if (!f) throw Error(fmt::format("could not write {}", path));
  return path;
}

std::string dump_directory() {
  const char* env = std::getenv("TILEJIT_DUMP_DIR");
  return env && *env ? env : "tilejit-dump";
}

std::vector<std::string> dump_stages_from_env(const CompiledKernel::Impl& k) {
  const char* list = std::getenv("TILEJIT_DUMP");
  if (!list || !*list) return {};
  std::string dir = dump_directory();
  std::vector<std::string> paths;
  std::string names = list;
  std::size_t pos = 0;
  while (pos <= names.size()) {
    std::size_t comma = names.find(',', pos);
    std::string name = names.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? names.size() + 1 : comma + 1;
    if (name == "all") {
      for (const auto& stage : k.stage_names()) paths.push_back(dump_stage(k, stage, dir));
    } else if (k.find_stage(name)) {
      paths.push_back(dump_stage(k, name, dir));
    }
  }
  return paths;
}

}  // namespace tilejit::jit
