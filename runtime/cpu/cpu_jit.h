// The CPU backend's runtime (internal): LLVM IR text in, native code for the host CPU out,
// through one process-wide ORC LLJIT; and launches of that code over a thread pool.
// Knows nothing of tilejit's IR: the code generator hands it a module as text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace tilejit::rt::cpu {

/// One compiled kernel, loaded in the JIT. Its code is removed when it is destroyed.
class CpuKernel {
 public:
  /// The entry ABI of src/codegen/llvm/codegen.h.
  using Entry = void (*)(void** params, void* scratch, std::int32_t pid_x, std::int32_t pid_y, std::int32_t pid_z,
                         std::int32_t nprog_x, std::int32_t nprog_y, std::int32_t nprog_z);
  struct Impl;
  explicit CpuKernel(std::unique_ptr<Impl> impl);
  ~CpuKernel();
  CpuKernel(const CpuKernel&) = delete;
  CpuKernel& operator=(const CpuKernel&) = delete;

  Entry entry() const;
  std::int64_t scratch_bytes() const;

  /// Runs every program of the grid (x fastest, as on the GPU), one call each, spread over at
  /// most `max_threads` threads (0: default_threads()), each with its own scratch memory.
  /// Synchronous; thread-safe. Each dimension must be at most 2^31 - 1 (program ids are i32).
  /// With cluster_size > 1 (x a multiple of it), each cluster's programs run at once on their
  /// own threads (cluster.h).
  void launch(std::uint64_t x, std::uint64_t y, std::uint64_t z, void** params, int max_threads = 0,
              int cluster_size = 1) const;

 private:
  std::unique_ptr<Impl> impl_;
};

struct CpuCompileOutput {
  std::unique_ptr<CpuKernel> kernel;
  std::string optimized_ir;  ///< the module after the O3 pipeline: what is compiled to native code
  std::string options;       ///< how it was compiled, e.g. "-O3 -mtriple=x86_64-pc-linux-gnu -mcpu=znver4"
  double compile_ms = 0;
};

/// Parses `ir` (LLVM assembly), verifies it, optimizes it at O3 for the host CPU and compiles
/// it into the JIT; `entry_name` must be defined. Every LLVM failure (parse errors, verifier
/// errors, fatal errors inside LLVM) becomes a CompileError carrying the IR and LLVM's message.
CpuCompileOutput compile_llvm_ir(const std::string& ir, const std::string& entry_name, std::int64_t scratch_bytes);

/// The native assembly of an (optimized) module for the host CPU. Throws CompileError.
std::string emit_assembly(const std::string& ir);

/// The host target as the cache key records it: "<triple> <cpu>".
std::string host_target();
/// The LLVM this build uses, e.g. "19.1.7".
std::string llvm_version();

/// Threads a launch uses unless told otherwise: TILEJIT_CPU_THREADS when set (a positive
/// integer, else tilejit::Error), else one per hardware core.
int default_threads();

}  // namespace tilejit::rt::cpu
