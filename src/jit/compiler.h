// The compile pipeline for one specialization: trace, passes, then CUDA C + NVRTC or PTX +
// ptxas (or nvJitLink) for the GPU, or LLVM IR + ORC for the CPU.
#pragma once

#include <functional>
#include <memory>
#include <source_location>

#include "jit/compiled_kernel_impl.h"

namespace tilejit::jit {

struct CompileRequest {
  const KernelSignature* signature;
  std::vector<BoundParam> params;
  const std::function<void()>* invoke;  // calls the user's function with traced parameters
  std::string key;
  BlockOptions block;
  std::string arch;                       // CUDA arch, or the CPU target (cpu_target())
  Backend backend = Backend::cuda;        // cuda or cpu
  GpuCodegen codegen = GpuCodegen::cuda;  // CUDA: ptx or cuda (never automatic); CPU: automatic
  std::vector<KeyComponents> previous;    // keys this kernel compiled before, for the miss reason
  bool disk_only = false;                 // CUDA: a disk-cache hit or nothing (no NVRTC / ptxas run)
  /// codegen ptx: nothing (nullptr) where the PTX generator would hand the kernel to NVRTC, so the
  /// caller can ask for NVRTC's kernel under its own key (GpuCodegen::tiered does).
  bool ptx_generator_only = false;
  /// The user's compile or launch call: where a failure of their own code while tracing is reported
  /// when no DSL operation ran before it.
  std::source_location call_site;
};

/// Traces and generates code; for CUDA then reads the disk cache or runs NVRTC (and writes the
/// entry). Applies TILEJIT_OVERRIDE_DIR and TILEJIT_DUMP; fills metadata.compile_reason. With
/// request.disk_only, returns nullptr where it would have run NVRTC or the PTX assembler; with
/// request.ptx_generator_only, where the PTX generator cannot express the kernel.
std::unique_ptr<CompiledKernel::Impl> compile_specialization(const CompileRequest& request);

/// Writes the stages named in TILEJIT_DUMP (comma list, or "all") to TILEJIT_DUMP_DIR
/// (default: ./tilejit-dump) as <entry>.<stage>; returns the paths written.
std::vector<std::string> dump_stages_from_env(const CompiledKernel::Impl& k);
/// TILEJIT_DUMP_DIR, else ./tilejit-dump.
std::string dump_directory();
/// Writes one stage to `dir`/<entry>.<stage> and returns its absolute path.
std::string dump_stage(const CompiledKernel::Impl& k, const std::string& stage, const std::string& dir);

}  // namespace tilejit::jit
