#include "runtime/driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "tilejit/error.h"

namespace tilejit::rt {
namespace {

// The ABI generation whose entry points we ask for; the prototypes in Driver must match it.
constexpr int kRequestedCudaVersion = 12000;

using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

struct DriverState {
  Driver driver;
  bool available = false;
  // Why it is not available, as a CudaError's parts.
  std::string failed_call;
  int code = 0;
  std::string code_name;
  std::string reason;
};

std::atomic<bool> g_shutting_down{false};

void note_shutdown() { g_shutting_down.store(true); }

std::string result_name(const Driver& d, CUresult r) {
  const char* name = nullptr;
  if (d.cuGetErrorName && d.cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUresult {}", static_cast<int>(r));
}

std::string result_description(const Driver& d, CUresult r) {
  const char* text = nullptr;
  if (d.cuGetErrorString && d.cuGetErrorString(r, &text) == CUDA_SUCCESS && text) return text;
  return "unknown error";
}

void fail(DriverState& s, std::string call, int code, std::string code_name, std::string reason) {
  s.failed_call = std::move(call);
  s.code = code;
  s.code_name = std::move(code_name);
  s.reason = std::move(reason);
}

void load(DriverState& s) {
  // Keep the handle for the life of the process: unloading libcuda under live objects is never safe.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    fail(s, "dlopen(libcuda.so.1)", 0, "no CUDA driver",
         fmt::format("libcuda.so.1 could not be loaded ({}): no NVIDIA driver on this machine",
                     err ? err : "unknown dlopen error"));
    return;
  }

  auto v2 = reinterpret_cast<GetProcAddressV2>(dlsym(lib, "cuGetProcAddress_v2"));
  auto v1 = v2 ? nullptr : reinterpret_cast<GetProcAddressV1>(dlsym(lib, "cuGetProcAddress"));
  if (!v2 && !v1) {
    fail(s, "dlsym(cuGetProcAddress)", 0, "driver too old",
         "libcuda.so.1 has no cuGetProcAddress: the NVIDIA driver is too old (CUDA 12 or newer is needed)");
    return;
  }
  auto lookup = [&](const char* symbol, void** fn) -> CUresult {
    if (v2) {
      CUdriverProcAddressQueryResult found{};
      return v2(symbol, fn, kRequestedCudaVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    }
    return v1(symbol, fn, kRequestedCudaVersion, CU_GET_PROC_ADDRESS_DEFAULT);
  };

  Driver& d = s.driver;
  std::string missing;
#define TILEJIT_DRIVER_LOOKUP(name)                                                                 \
  {                                                                                                 \
    void* fn = nullptr;                                                                             \
    if (lookup(#name, &fn) != CUDA_SUCCESS || !fn) missing += missing.empty() ? #name : ", " #name; \
    else d.name = reinterpret_cast<decltype(d.name)>(fn);                                           \
  }
  TILEJIT_DRIVER_FUNCTIONS(TILEJIT_DRIVER_LOOKUP)
#undef TILEJIT_DRIVER_LOOKUP
  if (!missing.empty()) {
    fail(s, "cuGetProcAddress", 0, "driver too old",
         fmt::format("the NVIDIA driver lacks CUDA 12 entry points: {}", missing));
    return;
  }

  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS) {
    std::string name = result_name(d, r);
    fail(s, "cuInit", r, name, fmt::format("cuInit failed: {} ({})", name, result_description(d, r)));
    return;
  }
  if (d.cuDriverGetVersion(&d.version) != CUDA_SUCCESS) d.version = 0;
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    fail(s, "cuDeviceGetCount", r, r == CUDA_SUCCESS ? "no device" : result_name(d, r), "no CUDA device");
    return;
  }
  s.available = true;
  // Objects destroyed by exit handlers must not call into a driver that may be torn down already.
  std::atexit(note_shutdown);
}

const DriverState& state() {
  static DriverState s;
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      load(s);
    } catch (const std::exception& e) {  // fmt or allocation failure: report, never throw
      fail(s, "libcuda", 0, "driver loading failed", e.what());
      s.available = false;
    }
  });
  return s;
}

}  // namespace

bool driver_available(std::string* reason) {
  const DriverState& s = state();
  if (reason) *reason = s.available ? std::string() : s.reason;
  return s.available;
}

const Driver& driver() {
  const DriverState& s = state();
  if (!s.available) throw CudaError(s.failed_call, s.code, s.code_name, s.reason);
  return s.driver;
}

std::string fault_consequences(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      return "a kernel accessed memory outside its allocations, and the CUDA context is now unusable: every "
             "later CUDA call of this process fails. To find the access, run the same launch on the CPU backend "
             "(TILEJIT_BACKEND=cpu), whose bounds checks name the kernel's source line, or under "
             "compute-sanitizer";
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
      return "a kernel faulted, and the CUDA context is now unusable: every later CUDA call of this process "
             "fails (compute-sanitizer names the faulting access)";
    default: return "";
  }
}

void check(CUresult result, const char* call, const std::string& detail) {
  if (result == CUDA_SUCCESS) return;
  const Driver& d = state().driver;  // result came from the driver, so the pointers are loaded
  std::string message = result_description(d, result);
  if (!detail.empty()) message += "; " + detail;
  if (std::string after = fault_consequences(result); !after.empty()) message += "; " + after;
  throw CudaError(call, static_cast<int>(result), result_name(d, result), message);
}

bool driver_shutting_down() { return g_shutting_down.load(); }

}  // namespace tilejit::rt
