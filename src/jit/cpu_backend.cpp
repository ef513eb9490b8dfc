#include "jit/cpu_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "tilejit/error.h"

#if TILEJIT_WITH_LLVM
#include "codegen/llvm/codegen.h"
#include "runtime/cpu/access_checks.h"
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
  k.cpu_access_sites = std::move(src.access_sites);
  k.cpu = std::shared_ptr<const rt::cpu::CpuKernel>(std::move(out.kernel));
}

std::string cpu_assembly(const CompiledKernel::Impl& k) { return rt::cpu::emit_assembly(k.stages.at("llvm")); }

namespace {

// "load out of bounds in kernel 'copy': program (0, 0, 0) read element 40 of argument 0 ('x'), which
// holds 40 elements of f32 (160 bytes) ...", at the load's source line.
UserError access_fault_error(const CompiledKernel::Impl& k, const rt::cpu::AccessChecks& checks,
                             std::span<const std::size_t> arg_of_param, std::span<const Arg> args) {
  const auto& fault = checks.first;
  const auto& site = k.cpu_access_sites.at(static_cast<std::size_t>(fault.site));
  const std::size_t arg = arg_of_param[static_cast<std::size_t>(site.param)];
  const Pointer& p = args[arg].pointer();
  const auto offset = static_cast<std::int64_t>(fault.address - p.address);
  const std::string where = offset % site.elem_bytes == 0 ? fmt::format("element {}", offset / site.elem_bytes)
                                                          : fmt::format("{} bytes from the start", offset);
  const std::uint64_t more = checks.faults.load() - 1;
  return UserError(
      fmt::format("{} out of bounds in kernel '{}': program ({}, {}, {}) {} {} of argument {} ('{}'), which holds "
                  "{} elements of {} ({} bytes){}; the launch skipped every element outside its arguments' memory, so "
                  "its outputs are incomplete",
                  site.is_atomic  ? "atomic"
                  : site.is_store ? "store"
                                  : "load",
                  k.metadata.kernel_name, fault.program[0], fault.program[1], fault.program[2],
                  site.is_atomic  ? "updated"
                  : site.is_store ? "wrote"
                                  : "read",
                  where, arg, k.params[arg].name, p.bytes / static_cast<std::uint64_t>(site.elem_bytes),
                  dtype_name(p.dtype), p.bytes,
                  more ? fmt::format(", and {} more elements of this launch were out of bounds", more) : ""),
      site.loc.file, site.loc.line);
}

}  // namespace

void launch_cpu(const CompiledKernel::Impl& k, const Grid& grid, std::span<const Arg> args, void** params,
                std::size_t n, int max_threads) {
  // The memory behind each parameter: a Buffer's bytes, everything for a raw pointer.
  std::vector<std::uint64_t> extents(2 * n);
  std::vector<std::size_t> arg_of_param;
  arg_of_param.reserve(n);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (k.params[i].kind == detail::ParamKind::constexpr_int) continue;
    const std::size_t slot = arg_of_param.size();
    arg_of_param.push_back(i);
    extents[2 * slot + 1] = rt::cpu::kUnknownExtentEnd;
    if (k.params[i].kind != detail::ParamKind::pointer) continue;
    const Pointer& p = args[i].pointer();
    if (p.bytes == Pointer::unknown_bytes) continue;
    extents[2 * slot] = p.address;
    extents[2 * slot + 1] = p.address + p.bytes;
  }
  rt::cpu::AccessChecks checks;
  checks.extents = extents.data();
  params[n] = &checks;
  // A group's programs meet as a cluster's do: on threads of their own, at a barrier.
  k.cpu->launch(grid.x, grid.y, grid.z, params, max_threads, programs_per_exchange(k.metadata));
  if (checks.faults.load() > 0) throw access_fault_error(k, checks, arg_of_param, args);
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
void launch_cpu(const CompiledKernel::Impl&, const Grid&, std::span<const Arg>, void**, std::size_t, int) {
  throw Error(kUnavailable);
}
std::uint64_t cpu_persistent_grid(std::uint64_t) { throw Error(kUnavailable); }

}  // namespace jit
#endif

}  // namespace tilejit
