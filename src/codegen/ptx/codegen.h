// PTX code generation: one IR function becomes one `.entry` in a PTX module that ptxas (or
// nvJitLink) assembles directly, without NVRTC. It produces the same results as the
// CUDA C generator (src/codegen/cuda), op by op, with the same layouts and vector accesses.
#pragma once

#include <string>

#include "ir/ir.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {

struct PtxCodegenOptions {
  std::string entry_name;  // the kernel's symbol
  int num_warps = 4;
  int min_blocks_per_sm = 0;   // .minnctapersm when set (CompileOptions::min_blocks_per_sm)
  int programs_per_block = 1;  // CompileOptions::programs_per_block: programs sharing a thread block
  std::string arch = "sm_90";  // sm_80 or newer ("sm_XX", optionally with an 'a' or 'f' suffix)
  bool line_info = true;       // .loc directives pointing at the user's kernel source
};

struct PtxKernelSource {
  std::string ptx;
  std::string entry_name;
  int num_warps = 4;
  int dynamic_shared_bytes = 0;  // reduction and conversion scratch, then stashes (the whole block's)
};

/// The kernel uses something this generator does not implement (e.g. f64 exp). The compiler
/// catches it and falls back to the CUDA C generator; what() names the op and the type.
class Unsupported : public Error {
 public:
  using Error::Error;
};

/// Throws Unsupported (see above), or InternalError when the IR breaks an invariant.
PtxKernelSource generate_ptx(const ir::Function& f, const PtxCodegenOptions& options);

}  // namespace tilejit::codegen::ptx
