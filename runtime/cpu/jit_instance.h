// The process-wide LLJIT and the host target, shared by compilation and kernel unloading.
#pragma once

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include <memory>

#include "runtime/cpu/cpu_jit.h"

namespace tilejit::rt::cpu {

struct JitInstance {
  std::unique_ptr<llvm::orc::LLJIT> lljit;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> host;  // detected host CPU and features, O3 codegen
};

/// Created on first use and never destroyed (kernels may be unloaded from static destructors).
/// Throws CompileError when LLVM cannot set up a JIT for this host.
JitInstance& jit_instance();

struct CpuKernel::Impl {
  Entry entry = nullptr;
  std::int64_t scratch_bytes = 0;
  llvm::orc::JITDylib* dylib = nullptr;  // removed from the session with the kernel
};

/// Converts an llvm::Error into its message (consuming it).
std::string error_message(llvm::Error e);

}  // namespace tilejit::rt::cpu
