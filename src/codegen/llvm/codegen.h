// LLVM IR code generation for the CPU backend: one IR function becomes one LLVM function that
// runs one program instance per call.
//
// Entry ABI (runtime/cpu/cpu_kernel.h calls it; keep the two in step):
//   void entry(void** params, void* scratch, i32 pid_x, i32 pid_y, i32 pid_z,
//              i32 nprog_x, i32 nprog_y, i32 nprog_z)
// `params` is the CUDA launch packing: one pointer per IR parameter (every kernel parameter but
// the constexpr ones), pointing at the argument's value; pointer arguments point at a 64-bit
// address. After them, params[n] points at the launch's rt::cpu::AccessChecks (its first member
// is the [begin, end) extents of every parameter's memory; see runtime/cpu/access_checks.h).
// `scratch` is `scratch_bytes` bytes, 64-byte aligned, private to the calling thread: block
// values that must be materialized live there, never on the stack.
//
// Every load and store tests its addresses against the extent of the pointer parameter they
// are computed from; lanes outside it are not accessed, and the first is reported to the
// runtime (tilejit_cpu_access_fault) by the index of its access site.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tilejit::codegen::llvm_ir {

struct LlvmCodegenOptions {
  std::string entry_name;
  /// Elements per vector chunk (a power of two): blocks are computed `lanes` elements at a time
  /// along their last dimension.
  int lanes = 16;
};

/// A load, store or atomic whose addresses the kernel checks, as a fault report names it.
struct MemoryAccessSite {
  bool is_store = false;
  bool is_atomic = false;
  ir::SourceLoc loc;
  int param = 0;       ///< index in Function::params of the pointer it goes through
  int elem_bytes = 0;  ///< bytes of one element in memory
};

struct LlvmKernelSource {
  std::string ir;  ///< the module as LLVM assembly text (no target triple: the runtime sets it)
  std::string entry_name;
  std::int64_t scratch_bytes = 0;
  std::vector<MemoryAccessSite> access_sites;  ///< indexed by the site number a fault reports
};

/// Throws InternalError for IR the backend does not support and CompileError (with the module
/// text) when LLVM's verifier rejects what was generated.
LlvmKernelSource generate_llvm(const ir::Function& f, const LlvmCodegenOptions& options);

}  // namespace tilejit::codegen::llvm_ir
