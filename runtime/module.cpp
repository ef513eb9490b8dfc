#include "runtime/module.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "tilejit/error.h"

namespace tilejit::rt {
namespace {

// Kernels may use this much dynamic shared memory without opting in.
constexpr unsigned kDefaultDynamicSmem = 48 * 1024;

bool is_elf(const std::vector<char>& image) {
  return image.size() >= 4 && std::memcmp(image.data(),
                                          "\x7f"
                                          "ELF",
                                          4) == 0;
}

bool is_fatbin(const std::vector<char>& image) {
  static constexpr unsigned char magic[4] = {0x50, 0xed, 0x55, 0xba};  // 0xBA55ED50, little-endian
  return image.size() >= 4 && std::memcmp(image.data(), magic, 4) == 0;
}

}  // namespace

std::unique_ptr<LoadedKernel> LoadedKernel::load(const std::vector<char>& image, const std::string& entry_name) {
  if (image.empty()) throw Error(fmt::format("cannot load kernel {}: the module image is empty", entry_name));
  make_context_current();
  const Driver& d = driver();

  // The driver reads PTX as a C string; binary images carry their own size.
  std::vector<char> ptx;
  const void* data = image.data();
  if (!is_elf(image) && !is_fatbin(image) && image.back() != '\0') {
    ptx.reserve(image.size() + 1);
    ptx.assign(image.begin(), image.end());
    ptx.push_back('\0');
    data = ptx.data();
  }

  CUmodule module = nullptr;
  CUresult r = d.cuModuleLoadData(&module, data);
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_NO_BINARY_FOR_GPU)
    check(r, "cuModuleLoadData",
          fmt::format("loading kernel {} (the driver supports CUDA {}.{}; was the code compiled by a newer NVRTC or "
                      "for another GPU?)",
                      entry_name, d.version / 1000, d.version % 1000 / 10));
  check(r, "cuModuleLoadData", fmt::format("loading kernel {}", entry_name));

  CUfunction function = nullptr;
  r = d.cuModuleGetFunction(&function, module, entry_name.c_str());
  if (r != CUDA_SUCCESS) {
    d.cuModuleUnload(module);
    check(r, "cuModuleGetFunction", fmt::format("no kernel named '{}' in the module", entry_name));
  }
  std::unique_ptr<LoadedKernel> kernel(new LoadedKernel(module, function, entry_name));
  kernel->max_threads_per_block_ =
      kernel->function_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block");
  kernel->static_shared_bytes_ = kernel->function_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "shared bytes");
  return kernel;
}

LoadedKernel::LoadedKernel(CUmod_st* module, CUfunc_st* function, std::string entry_name)
    : module_(module), function_(function), entry_name_(std::move(entry_name)) {}

LoadedKernel::~LoadedKernel() {
  // At exit the driver or the context may be torn down already; leaking the module is harmless.
  if (driver_shutting_down()) return;
  try {
    make_context_current();
    driver().cuModuleUnload(module_);
  } catch (...) {
  }
}

int LoadedKernel::function_attribute(int which, const char* what) const {
  int value = 0;
  check(driver().cuFuncGetAttribute(&value, static_cast<CUfunction_attribute>(which), function_), "cuFuncGetAttribute",
        fmt::format("{} of kernel {}", what, entry_name_));
  return value;
}

KernelResources LoadedKernel::resources() const {
  KernelResources r;
  r.n_regs = function_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "registers");
  r.local_bytes = function_attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local bytes");
  r.static_shared_bytes = function_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "shared bytes");
  r.max_threads_per_block = function_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block");
  r.max_dynamic_shared_bytes =
      function_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "max dynamic shared bytes");
  return r;
}

// Above 48 KiB a kernel's dynamic shared memory must be opted into, before a launch and before
// an occupancy query (which otherwise counts no block as fitting).
void LoadedKernel::allow_dynamic_smem(unsigned dynamic_smem) const {
  if (dynamic_smem <= kDefaultDynamicSmem) return;
  std::lock_guard<std::mutex> lock(smem_mutex_);
  if (dynamic_smem <= dynamic_smem_limit_) return;
  const int optin = current_device().smem_per_block_optin;
  if (static_cast<long long>(dynamic_smem) + static_shared_bytes_ > optin)
    throw Error(
        fmt::format("kernel {} needs {} bytes of dynamic shared memory: with its {} static bytes that "
                    "exceeds the device's {} bytes per block",
                    entry_name_, dynamic_smem, static_shared_bytes_, optin));
  check(driver().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(dynamic_smem)),
        "cuFuncSetAttribute",
        fmt::format("raising kernel {}'s dynamic shared memory to {} bytes", entry_name_, dynamic_smem));
  dynamic_smem_limit_ = dynamic_smem;
}

int LoadedKernel::max_active_blocks_per_sm(int threads_per_block, int dynamic_smem_bytes) const {
  if (threads_per_block <= 0 || dynamic_smem_bytes < 0)
    throw Error(fmt::format("max_active_blocks_per_sm({}, {}) for kernel {}: sizes must be positive", threads_per_block,
                            dynamic_smem_bytes, entry_name_));
  make_context_current();
  allow_dynamic_smem(static_cast<unsigned>(dynamic_smem_bytes));
  int blocks = 0;
  check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function_, threads_per_block,
                                                             static_cast<std::size_t>(dynamic_smem_bytes)),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", fmt::format("kernel {}", entry_name_));
  return blocks;
}

int LoadedKernel::max_active_clusters(int cluster_size, int threads_per_block, int dynamic_smem_bytes) const {
  make_context_current();
  allow_dynamic_smem(static_cast<unsigned>(dynamic_smem_bytes));
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(cluster_size);  // any multiple of the cluster size
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = static_cast<unsigned>(threads_per_block);
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = static_cast<unsigned>(dynamic_smem_bytes);
  int clusters = 0;
  check(driver().cuOccupancyMaxActiveClusters(&clusters, function_, &config), "cuOccupancyMaxActiveClusters",
        fmt::format("kernel {}, clusters of {}", entry_name_, cluster_size));
  return clusters;
}

void LoadedKernel::allow_non_portable_cluster_size() const {
  make_context_current();
  check(driver().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
        "cuFuncSetAttribute", fmt::format("kernel {}: non-portable cluster size", entry_name_));
}

void LoadedKernel::launch(Dim3 grid, unsigned threads, unsigned dynamic_smem, StreamHandle stream, void** params,
                          bool cooperative) const {
  // Grid limits are the driver's to check: its error (a CudaError naming cuLaunchKernel and
  // the grid) is what a bad launch reports.
  if (threads < 1 || threads > 1024)
    throw Error(
        fmt::format("cannot launch kernel {} with {} threads per block: must be 1..1024", entry_name_, threads));
  if (threads > static_cast<unsigned>(max_threads_per_block_))
    throw Error(
        fmt::format("cannot launch kernel {} with {} threads per block: its registers or "
                    "__launch_bounds__ allow at most {}",
                    entry_name_, threads, max_threads_per_block_));
  make_context_current();
  const Driver& d = driver();
  allow_dynamic_smem(dynamic_smem);

  CUresult r =
      cooperative
          ? d.cuLaunchCooperativeKernel(function_, grid.x, grid.y, grid.z, threads, 1, 1, dynamic_smem, stream, params)
          : d.cuLaunchKernel(function_, grid.x, grid.y, grid.z, threads, 1, 1, dynamic_smem, stream, params, nullptr);
  // The detail is formatted only on failure: this is every launch's path.
  if (r != CUDA_SUCCESS)
    check(r, cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel",
          fmt::format("kernel {}, grid ({}, {}, {}), {} threads, {} bytes dynamic shared memory", entry_name_, grid.x,
                      grid.y, grid.z, threads, dynamic_smem));
}

}  // namespace tilejit::rt
