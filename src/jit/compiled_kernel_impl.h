// What a CompiledKernel holds: the stages, the metadata and, once launched, the module
// (CUDA) or the native code (CPU).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "codegen/llvm/codegen.h"
#include "jit/specialization.h"
#include "runtime/module.h"
#include "tilejit/kernel.h"

namespace tilejit {

namespace rt::cpu {
class CpuKernel;  // runtime/cpu/cpu_jit.h (only in builds with LLVM)
}

struct CompiledKernel::Impl {
  KernelMetadata metadata;
  jit::KernelSignature signature;
  std::vector<jit::BoundParam> params;
  std::map<std::string, std::string, std::less<>> stages;
  std::vector<char> cubin;
  jit::KeyComponents components;  // the full key (specialization + toolchain), for miss reasons
  bool load_ptx = false;          // a PTX override: the driver compiles the PTX (there is no cubin)

  mutable std::once_flag load_once;
  mutable std::unique_ptr<rt::LoadedKernel> loaded;

  // CPU backend: the loaded code (a shared_ptr: its deleter is bound where it is made, so
  // builds without LLVM never need the type), and the "asm" stage, made on first request.
  std::shared_ptr<const rt::cpu::CpuKernel> cpu;
  std::vector<codegen::llvm_ir::MemoryAccessSite> cpu_access_sites;  // what its bounds checks report
  mutable std::mutex asm_mutex;
  mutable std::unique_ptr<std::string> asm_text;

  // CUDA: programs resident on the device at once (a multiple of the cluster size), found on
  // first use: occupancy queries are driver calls, and ops::softmax sizes a grid every launch.
  mutable std::once_flag resident_once;
  mutable std::uint64_t resident = 0;

  const rt::LoadedKernel& module() const;
  std::uint64_t resident_programs() const;
  /// Packs `args` and launches; they must already match this specialization (bind_facts +
  /// check_facts, or a memory-cache lookup by the same facts). Allocates nothing.
  void launch_checked(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
                      const std::source_location& loc) const;
  /// The names of every stage, including those made on request.
  std::vector<std::string> stage_names() const;
  /// A stage's text, or nullptr when this kernel has no such stage.
  const std::string* find_stage(std::string_view name) const;
};

/// Consecutive programs along axis 0 that exchange values (a cluster or a group), else 1: the
/// grid's axis 0 is a multiple of it, and persistent grids count work per such set.
inline int programs_per_exchange(const KernelMetadata& md) { return std::max(md.cluster_size, md.group_size); }

}  // namespace tilejit
