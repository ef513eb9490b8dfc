#include "runtime/device.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

#include "runtime/driver.h"
#include "tilejit/error.h"

namespace tilejit::rt {
namespace {

int attribute(const Driver& d, CUdevice dev, CUdevice_attribute which, const char* what) {
  int value = 0;
  check(d.cuDeviceGetAttribute(&value, which, dev), "cuDeviceGetAttribute", what);
  return value;
}

CUdevice device_handle() {
  CUdevice dev = 0;
  check(driver().cuDeviceGet(&dev, 0), "cuDeviceGet");
  return dev;
}

// Attribute queries need no context, so target_arch() does not create one.
DeviceInfo query_device() {
  const Driver& d = driver();
  CUdevice dev = device_handle();
  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  DeviceInfo i;
  i.ordinal = 0;
  i.name = name;
  i.cc_major = attribute(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability");
  i.cc_minor = attribute(d, dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability");
  i.sm_count = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count");
  i.regs_per_sm = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "registers per SM");
  i.smem_per_sm = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "shared memory per SM");
  i.smem_per_block = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory per block");
  i.smem_per_block_optin =
      attribute(d, dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "opt-in shared memory per block");
  i.max_threads_per_sm = attribute(d, dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "threads per SM");
  i.l2_bytes = attribute(d, dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2 size");
  return i;
}

// A throwing initializer leaves a function-local static uninitialized, so a later call retries.
const DeviceInfo& device_info() {
  static const DeviceInfo info = query_device();
  return info;
}

CUcontext retain_primary_context() {
  CUcontext ctx = nullptr;
  check(driver().cuDevicePrimaryCtxRetain(&ctx, device_handle()), "cuDevicePrimaryCtxRetain");
  return ctx;
}

// The primary context is shared with the CUDA runtime (and so with PyTorch & co.). It stays
// retained for the life of the process: releasing it at exit races other libraries' teardown.
CUcontext primary_context() {
  static const CUcontext ctx = retain_primary_context();
  return ctx;
}

}  // namespace

void make_context_current() {
  CUcontext ctx = primary_context();
  const Driver& d = driver();
  CUcontext current = nullptr;
  check(d.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != ctx) check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

const DeviceInfo& current_device() {
  make_context_current();
  return device_info();
}

bool is_sm_arch(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return false;
  std::size_t i = 3, digits = 0;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) ++i, ++digits;
  if (digits < 2 || digits > 3) return false;
  if (i < arch.size() && (arch[i] == 'a' || arch[i] == 'f')) ++i;
  return i == arch.size();
}

int sm_arch_number(const std::string& arch) {
  if (!is_sm_arch(arch)) return 0;
  int n = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return n;
}

std::string target_arch() {
  if (const char* env = std::getenv("TILEJIT_ARCH"); env && *env) {
    std::string arch = env;
    if (!is_sm_arch(arch))
      throw Error(
          fmt::format("TILEJIT_ARCH='{}' is not a GPU architecture: expected the form sm_NN or sm_NNa, "
                      "e.g. TILEJIT_ARCH=sm_90 or TILEJIT_ARCH=sm_90a",
                      arch));
    return arch;
  }
  if (!driver_available()) return "sm_90";  // no device: still produce PTX/cubin for inspection
  // Formatted once: every Kernel::launch without an explicit arch asks.
  static const std::string device_arch = fmt::format("sm_{}{}", device_info().cc_major, device_info().cc_minor);
  return device_arch;
}

}  // namespace tilejit::rt

namespace tilejit {

bool has_gpu(std::string* reason) { return rt::driver_available(reason); }

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::automatic: return "automatic";
    case Backend::cuda: return "cuda";
    case Backend::cpu: return "cpu";
  }
  return "?";
}

Backend default_backend() {
  if (const char* env = std::getenv("TILEJIT_BACKEND"); env && *env) {
    std::string v = env;
    if (v == "cuda") return Backend::cuda;
    if (v == "cpu") return Backend::cpu;
    throw Error(fmt::format("TILEJIT_BACKEND must be 'cuda' or 'cpu', got '{}'", v));
  }
  return has_gpu() ? Backend::cuda : Backend::cpu;
}

Memory memory_of(Backend backend) {
  if (backend == Backend::automatic) backend = default_backend();
  return backend == Backend::cpu ? Memory::host : Memory::device;
}

const DeviceProperties& device_properties() { return rt::current_device(); }

bool stream_is_capturing(StreamHandle stream) {
  rt::make_context_current();
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  rt::check(rt::driver().cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
  return status != CU_STREAM_CAPTURE_STATUS_NONE;  // active, or invalidated by an error
}

void synchronize() {
  if (!has_gpu()) return;  // no CUDA work can have been submitted
  rt::make_context_current();
  rt::check(rt::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

}  // namespace tilejit
