#include "jit/compiler.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/cuda/codegen.h"
#include "dsl/trace.h"
#include "ir/printer.h"
#include "jit/cpu_backend.h"
#include "passes/passes.h"
#include "runtime/nvrtc_compiler.h"
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

}  // namespace

std::unique_ptr<CompiledKernel::Impl> compile_specialization(const CompileRequest& req) {
  if (req.num_warps < 1 || req.num_warps > 16 || (req.num_warps & (req.num_warps - 1)) != 0)
    throw Error(fmt::format("num_warps must be 1, 2, 4, 8 or 16, got {}", req.num_warps));
  if (req.num_stages < 1 || req.num_stages > 8)
    throw Error(fmt::format("num_stages must be between 1 and 8, got {}", req.num_stages));
  auto k = std::make_unique<CompiledKernel::Impl>();
  auto& md = k->metadata;
  md.kernel_name = req.signature->kernel_name;
  md.entry_name = entry_name_for(md.kernel_name, req.key);
  md.key = req.key;
  md.arch = req.arch;
  md.backend = req.backend;
  md.num_warps = req.num_warps;
  md.num_stages = req.num_stages;
  k->signature = *req.signature;
  k->params = req.params;

  auto t0 = std::chrono::steady_clock::now();
  std::vector<tl::detail::TraceParam> trace_params;
  for (const auto& p : req.params) trace_params.push_back(trace_param(p));
  ir::Function f = tl::detail::trace_kernel(md.kernel_name, std::move(trace_params), *req.invoke);
  k->stages["ir"] = ir::print(f);
  passes::canonicalize(f, debug_enabled());
  // Prefetching the next iteration's loads pays on the GPU, where latency is hidden by
  // loads in flight; the CPU's caches and prefetchers do that work there.
  if (req.backend == Backend::cuda && passes::pipeline_loop_loads(f, req.num_warps, req.num_stages))
    passes::canonicalize(f, debug_enabled());
  k->stages["ir.lowered"] = ir::print(f);
  md.trace_ms = ms_since(t0);

  if (req.backend == Backend::cpu) {
    compile_cpu(*k, f);
    dump_stages_from_env(*k);
    return k;
  }
  t0 = std::chrono::steady_clock::now();
  auto cuda = codegen::cuda::generate_cuda(f, {md.entry_name, req.num_warps, true});
  k->stages["cuda"] = cuda.source;
  md.dynamic_shared_bytes = cuda.dynamic_shared_bytes;
  md.codegen_ms = ms_since(t0);

  auto out = rt::nvrtc_compile(cuda.source, md.kernel_name + ".cu", req.arch);
  k->stages["ptx"] = out.ptx;
  k->cubin = out.cubin;
  if (!out.cubin.empty()) k->stages["cubin"] = std::string(out.cubin.begin(), out.cubin.end());
  md.compile_ms = out.compile_ms;
  md.registers = out.ptxas.registers;
  md.spill_store_bytes = out.ptxas.spill_store_bytes;
  md.spill_load_bytes = out.ptxas.spill_load_bytes;
  md.stack_frame_bytes = out.ptxas.stack_frame_bytes;
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
