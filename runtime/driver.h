// Lazy CUDA driver loader (internal).
//
// libcuda is never linked: it is dlopen'ed on first use, and every entry point is obtained through
// cuGetProcAddress, so binaries start (and the CPU paths work) on machines without an NVIDIA driver.
// cuda.h is included only for its types and prototypes.
#pragma once

#include <cuda.h>

#include <string>

namespace tilejit::rt {

// Every driver function tilejit calls. Names are the base names cuGetProcAddress expects; cuda.h's
// versioning macros (cuMemAlloc -> cuMemAlloc_v2 ...) rename the members and their uses alike, so
// each member has the prototype of the ABI version that CUDA 12.0 requests.
#define TILEJIT_DRIVER_FUNCTIONS(X)              \
  X(cuInit)                                      \
  X(cuDriverGetVersion)                          \
  X(cuGetErrorName)                              \
  X(cuGetErrorString)                            \
  X(cuDeviceGet)                                 \
  X(cuDeviceGetCount)                            \
  X(cuDeviceGetAttribute)                        \
  X(cuDeviceGetName)                             \
  X(cuDevicePrimaryCtxRetain)                    \
  X(cuDevicePrimaryCtxRelease)                   \
  X(cuCtxSetCurrent)                             \
  X(cuCtxGetCurrent)                             \
  X(cuCtxSynchronize)                            \
  X(cuMemAlloc)                                  \
  X(cuMemFree)                                   \
  X(cuMemcpyHtoD)                                \
  X(cuMemcpyDtoH)                                \
  X(cuMemcpyDtoD)                                \
  X(cuMemsetD8)                                  \
  X(cuMemsetD8Async)                             \
  X(cuMemAllocAsync)                             \
  X(cuMemFreeAsync)                              \
  X(cuMemcpyDtoDAsync)                           \
  X(cuModuleLoadData)                            \
  X(cuModuleUnload)                              \
  X(cuModuleGetFunction)                         \
  X(cuFuncGetAttribute)                          \
  X(cuFuncSetAttribute)                          \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuOccupancyMaxActiveClusters)                \
  X(cuLaunchKernel)                              \
  X(cuLaunchCooperativeKernel)                   \
  X(cuLaunchHostFunc)                            \
  X(cuStreamSynchronize)                         \
  X(cuStreamIsCapturing)                         \
  X(cuEventCreate)                               \
  X(cuEventRecord)                               \
  X(cuEventSynchronize)                          \
  X(cuEventElapsedTime)                          \
  X(cuEventDestroy)

/// Typed pointers to the driver entry points. Obtained through driver(); all non-null there.
struct Driver {
#define TILEJIT_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  TILEJIT_DRIVER_FUNCTIONS(TILEJIT_DRIVER_MEMBER)
#undef TILEJIT_DRIVER_MEMBER
  /// cuDriverGetVersion's answer, e.g. 13000 for CUDA 13.0.
  int version = 0;
};

/// True when libcuda loaded, cuInit succeeded and at least one device exists. Never throws.
/// Otherwise, and when `reason` is non-null, says why, e.g. "cuInit failed: CUDA_ERROR_NO_DEVICE ...".
/// The first call loads the driver (thread-safe); later calls only read the result.
bool driver_available(std::string* reason = nullptr);

/// The loaded driver. Throws CudaError carrying driver_available()'s reason when there is none.
const Driver& driver();

/// Throws CudaError naming `call`, the result's CUDA_ERROR_* name and its description when `result`
/// is not CUDA_SUCCESS. `detail`, when given, is appended to the description (e.g. which kernel),
/// and so is fault_consequences(result).
void check(CUresult result, const char* call, const std::string& detail = {});
/// For the errors a faulting kernel leaves on its context for good (an illegal address...): what
/// that means for the process, and how to find the fault. Empty for other results.
std::string fault_consequences(CUresult result);

/// True once the process has started running exit handlers: destructors of runtime objects skip
/// driver calls then, because the driver (or the context) may already be torn down.
bool driver_shutting_down();

}  // namespace tilejit::rt
