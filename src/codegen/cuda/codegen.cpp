#include "codegen/cuda/codegen.h"

#include "codegen/cuda/emitter.h"

namespace tilejit::codegen::cuda {

CudaKernelSource generate_cuda(const ir::Function& f, const CudaCodegenOptions& options) {
  return Emitter(f, options).run();
}

}  // namespace tilejit::codegen::cuda
