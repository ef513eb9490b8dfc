#include "jit/cpu_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tilejit/error.h"

#if TILEJIT_WITH_LLVM
#include "codegen/llvm/codegen.h"
#include "runtime/cpu/cpu_jit.h"
#endif

namespace tilejit {

#if TILEJIT_WITH_LLVM

bool has_cpu_backend(std::string*) { return true; }
int default_cpu_threads() { return rt::cpu::default_threads(); }

namespace jit {

std::string cpu_target() {
  static const std::string target = fmt::format("{} llvm{}", rt::cpu::host_target(), rt::cpu::llvm_version());
  return target;
}

std::string llvm_version_name() { return rt::cpu::llvm_version(); }

void compile_cpu(CompiledKernel::Impl& k, const ir::Function& f) {
  auto t0 = std::chrono::steady_clock::now();
  auto src = codegen::llvm_ir::generate_llvm(f, {k.metadata.entry_name, 16});
  k.metadata.codegen_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto out = rt::cpu::compile_llvm_ir(src.ir, src.entry_name, src.scratch_bytes);
  k.stages["llvm"] = std::move(out.optimized_ir);
  k.metadata.compile_ms = out.compile_ms;
  k.metadata.cpu_scratch_bytes = src.scratch_bytes;
  k.cpu = std::shared_ptr<const rt::cpu::CpuKernel>(std::move(out.kernel));
}

std::string cpu_assembly(const CompiledKernel::Impl& k) { return rt::cpu::emit_assembly(k.stages.at("llvm")); }

void launch_cpu(const CompiledKernel::Impl& k, const Grid& grid, void** params, int max_threads) {
  // A group's programs meet as a cluster's do: on threads of their own, at a barrier.
  k.cpu->launch(grid.x, grid.y, grid.z, params, max_threads, programs_per_exchange(k.metadata));
}

std::uint64_t cpu_persistent_grid(std::uint64_t work_items) {
  auto programs = static_cast<std::uint64_t>(rt::cpu::default_threads()) * 4;
  return std::max<std::uint64_t>(1, std::min(programs, work_items));
}

}  // namespace jit

#else  // built without LLVM

namespace {
constexpr const char* kUnavailable =
    "the CPU backend is not available: tilejit was built without LLVM (TILEJIT_WITH_LLVM=OFF)";
}

bool has_cpu_backend(std::string* reason) {
  if (reason) *reason = kUnavailable;
  return false;
}
int default_cpu_threads() { throw Error(kUnavailable); }

namespace jit {

std::string cpu_target() { throw Error(kUnavailable); }
std::string llvm_version_name() { return "none"; }
void compile_cpu(CompiledKernel::Impl&, const ir::Function&) { throw Error(kUnavailable); }
std::string cpu_assembly(const CompiledKernel::Impl&) { throw Error(kUnavailable); }
void launch_cpu(const CompiledKernel::Impl&, const Grid&, void**, int) { throw Error(kUnavailable); }
std::uint64_t cpu_persistent_grid(std::uint64_t) { throw Error(kUnavailable); }

}  // namespace jit
#endif

}  // namespace tilejit
