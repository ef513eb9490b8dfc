// CUDA C code generation: one IR function becomes one `extern "C" __global__` kernel.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tilejit::codegen::cuda {

struct CudaCodegenOptions {
  std::string entry_name;  // the kernel's symbol
  int num_warps = 4;
  int min_blocks_per_sm = 0;    // __launch_bounds__'s second argument when set
  int programs_per_block = 1;   // CompileOptions::programs_per_block: programs sharing a thread block
  bool line_directives = true;  // #line pointing at the user's kernel source
};

struct CudaKernelSource {
  std::string source;
  std::string entry_name;
  int num_warps = 4;
  int dynamic_shared_bytes = 0;  // scratch for reductions and layout conversions, then stashes (whole block)
};

/// Throws InternalError when the IR is outside what the backend supports.
CudaKernelSource generate_cuda(const ir::Function& f, const CudaCodegenOptions& options);

}  // namespace tilejit::codegen::cuda
