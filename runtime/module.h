// A compiled kernel loaded into the device's context, and its launch (internal).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tilejit/device.h"

struct CUmod_st;   // CUmodule is CUmod_st*
struct CUfunc_st;  // CUfunction is CUfunc_st*

namespace tilejit::rt {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// What the driver reports about a loaded kernel; feeds occupancy-based grid sizing.
struct KernelResources {
  int n_regs = 0;       ///< registers per thread
  int local_bytes = 0;  ///< local memory per thread (stack frame and spills)
  int static_shared_bytes = 0;
  int max_threads_per_block = 0;     ///< limited by registers and __launch_bounds__
  int max_dynamic_shared_bytes = 0;  ///< current opt-in limit for dynamic shared memory
};

/// One entry point of a loaded module. Owns the module; unloads it when destroyed (unless the
/// process is exiting or the context is gone). Launching is thread-safe.
class LoadedKernel {
 public:
  /// Loads a cubin, fatbin or PTX image (PTX need not be NUL-terminated) into the primary
  /// context, made current first, and looks up `entry_name`. Throws CudaError on failure or
  /// when there is no GPU.
  static std::unique_ptr<LoadedKernel> load(const std::vector<char>& cubin_or_ptx, const std::string& entry_name);

  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  const std::string& entry_name() const { return entry_name_; }
  /// The CUfunction, for callers that launch through the driver themselves (benchmarks).
  CUfunc_st* function() const { return function_; }
  KernelResources resources() const;
  /// Blocks of `threads_per_block` threads that fit on one SM at once; 0 when none do.
  int max_active_blocks_per_sm(int threads_per_block, int dynamic_smem_bytes) const;
  /// For a kernel compiled with clusters of `cluster_size` blocks: how many such clusters the
  /// device runs at once (cuOccupancyMaxActiveClusters; 0 when none fit).
  int max_active_clusters(int cluster_size, int threads_per_block, int dynamic_smem_bytes) const;
  /// Lets a kernel compiled for clusters of more than 8 blocks (the portable limit) launch.
  void allow_non_portable_cluster_size() const;

  /// Launches on `stream` (nullptr: legacy default stream); asynchronous. `params` points at one
  /// pointer per kernel parameter, each to the argument's value, as cuLaunchKernel expects.
  /// Throws tilejit::Error for an impossible grid (each dimension >= 1, x <= 2^31-1, y and z <=
  /// 65535), block (1..1024 threads, and no more than the kernel allows) or dynamic shared memory
  /// size, before calling the driver; raises the kernel's dynamic shared memory limit when asked
  /// for more than 48 KiB; turns driver failures into CudaError naming cuLaunchKernel.
  /// `cooperative`: every block resident at once (cuLaunchCooperativeKernel), or the launch fails.
  void launch(Dim3 grid, unsigned threads_per_block, unsigned dynamic_smem_bytes, StreamHandle stream, void** params,
              bool cooperative = false) const;

 private:
  LoadedKernel(CUmod_st* module, CUfunc_st* function, std::string entry_name);
  int function_attribute(int which, const char* what) const;

  CUmod_st* module_;
  CUfunc_st* function_;
  std::string entry_name_;
  int max_threads_per_block_ = 0;
  int static_shared_bytes_ = 0;
  void allow_dynamic_smem(unsigned bytes) const;
  mutable std::mutex smem_mutex_;  // guards dynamic_smem_limit_ and its attribute
  mutable unsigned dynamic_smem_limit_ = 48 * 1024;
};

}  // namespace tilejit::rt
