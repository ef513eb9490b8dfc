// The GPU as tilejit's users see it: is there one, what is it, which backend runs kernels, and
// memory for them (on the GPU, or on the host for the CPU backend).
//
// The CUDA driver is loaded lazily on first use, so every function here works, or fails with a
// plain explanation, on machines without an NVIDIA driver or device. Nothing here includes cuda.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tilejit/dtype.h"

struct CUstream_st;  // the driver's opaque stream type (CUstream is CUstream_st*)

namespace tilejit {

/// A CUDA stream (a CUstream). nullptr is the legacy default stream.
using StreamHandle = ::CUstream_st*;

/// True when the CUDA driver loads, initializes and reports at least one device. Never throws.
/// When false and `reason` is non-null, *reason says why in a sentence, e.g.
/// "libcuda.so.1 could not be loaded (...): no NVIDIA driver on this machine".
bool has_gpu(std::string* reason = nullptr);

/// Facts about the device tilejit runs on (device 0 of those CUDA_VISIBLE_DEVICES exposes).
struct DeviceProperties {
  int ordinal = 0;
  std::string name;  ///< e.g. "NVIDIA H200"
  int cc_major = 0;  ///< compute capability, e.g. 9 and 0 for sm_90
  int cc_minor = 0;
  int sm_count = 0;              ///< streaming multiprocessors
  int regs_per_sm = 0;           ///< 32-bit registers per SM
  int smem_per_sm = 0;           ///< shared memory bytes per SM
  int smem_per_block = 0;        ///< shared memory bytes a block gets without opting in
  int smem_per_block_optin = 0;  ///< most shared memory bytes a block may opt into
  int max_threads_per_sm = 0;
  int l2_bytes = 0;  ///< L2 cache size
};

/// The current device's properties, queried once. Also makes tilejit's context (the device's
/// primary context, shared with the CUDA runtime) current on the calling thread.
/// Throws CudaError when there is no GPU.
const DeviceProperties& device_properties();

/// Waits until all work submitted to the device has finished. Throws CudaError on failure
/// (including an earlier kernel's asynchronous error). Without a GPU there is nothing to wait
/// for (CPU launches return when they are done), and it returns at once.
void synchronize();

/// True while `stream` is capturing a CUDA graph: work queued on it is recorded as the graph's
/// nodes instead of running (cuStreamIsCapturing). Throws CudaError when there is no GPU.
bool stream_is_capturing(StreamHandle stream);

/// Where kernels run.
enum class Backend {
  automatic,  ///< TILEJIT_BACKEND (cuda|cpu) when set, else cuda when has_gpu(), else cpu
  cuda,       ///< NVRTC + the CUDA driver
  cpu,        ///< LLVM ORC JIT for the host CPU, programs spread over a thread pool
};

/// "automatic", "cuda" or "cpu".
const char* backend_name(Backend b);

/// What Backend::automatic means now (without an explicit arch). Throws tilejit::Error when
/// TILEJIT_BACKEND has another value than cuda or cpu.
Backend default_backend();

/// Where a Buffer's bytes live.
enum class Memory {
  device,   ///< global memory of the current GPU (CUDA launches)
  host,     ///< ordinary, 64-byte aligned host memory (CPU launches, and tests)
  unknown,  ///< a raw address made by hand (tilejit::Pointer): not checked at launch; no Buffer has it
};

/// The memory `backend`'s kernels read and write: Memory::host for the CPU, Memory::device for
/// CUDA; Backend::automatic means default_backend()'s. So a program that leaves both to their
/// defaults runs unchanged on a machine with a GPU and on one without.
Memory memory_of(Backend backend = Backend::automatic);

/// A typed, owned allocation of `count` elements. Move-only; frees its memory when destroyed.
/// Zero-element buffers are allowed and allocate nothing (address() is 0).
/// Transfers are synchronous: they return once the bytes have arrived, and device transfers are
/// ordered after work already submitted to the legacy default stream.
class Buffer {
 public:
  /// An empty buffer (count 0, device memory), e.g. the state a moved-from buffer is left in.
  Buffer() noexcept = default;
  /// Allocates `count` elements of `dtype` (uninitialized), by default in the memory the default
  /// backend launches on (memory_of()): device memory where there is a GPU, host memory where
  /// the CPU backend runs the kernels. Device allocation throws CudaError when there is no GPU
  /// (the message says why) or the device is out of memory; Memory::unknown throws tilejit::Error.
  Buffer(DType dtype, std::size_t count, Memory where = memory_of());
  /// Device memory allocated in `stream`'s order and freed in it when the buffer is destroyed
  /// (cuMemAllocAsync, cuMemFreeAsync): for the work queued on `stream` in between. While the
  /// stream captures a CUDA graph, the allocation and the free become nodes of the graph, so
  /// each replay has its own memory where a Buffer(...) could not even be allocated.
  static Buffer stream_ordered(DType dtype, std::size_t count, StreamHandle stream);
  ~Buffer();

  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  DType dtype() const { return dtype_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * dtype_size(dtype_); }
  Memory memory() const { return memory_; }
  /// The first byte's address: a CUdeviceptr for device memory, the host pointer for host memory.
  std::uint64_t address() const { return address_; }

  /// The host pointer of a host buffer. Throws tilejit::Error for device memory.
  void* host_data();
  const void* host_data() const;

  /// Copies `bytes` bytes from `src` into the buffer, starting `offset_bytes` into it.
  /// Throws tilejit::Error when the range does not fit in the buffer.
  void upload(const void* src, std::size_t bytes, std::size_t offset_bytes = 0);
  /// Copies `bytes` bytes starting `offset_bytes` into the buffer to `dst`.
  /// Throws tilejit::Error when the range does not fit in the buffer.
  void download(void* dst, std::size_t bytes, std::size_t offset_bytes = 0) const;

  /// Uploads the whole buffer from `values`; throws tilejit::Error unless `values` has exactly
  /// count() elements of dtype_size(dtype()) bytes each.
  template <class T>
  void upload(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>, "Buffer::upload needs trivially copyable elements");
    check_elements(sizeof(T), values.size(), "upload");
    upload(values.data(), bytes());
  }
  /// Downloads the whole buffer as count() elements of T; throws tilejit::Error unless
  /// sizeof(T) == dtype_size(dtype()).
  template <class T>
  std::vector<T> download() const {
    static_assert(std::is_trivially_copyable_v<T>, "Buffer::download needs trivially copyable elements");
    check_elements(sizeof(T), count_, "download");
    std::vector<T> values(count_);
    download(values.data(), bytes());
    return values;
  }

  /// Sets every byte to `byte`, e.g. to poison an output before a kernel writes it.
  void fill_bytes(std::uint8_t byte);
  /// The same, ordered on `stream` after the work already queued there (asynchronous for device
  /// memory; host memory is set at once).
  void fill_bytes_async(std::uint8_t byte, StreamHandle stream);

 private:
  void check_elements(std::size_t element_size, std::size_t n, const char* what) const;
  void check_range(std::size_t bytes, std::size_t offset_bytes, const char* what) const;
  void release() noexcept;

  DType dtype_ = DType::f32;
  std::size_t count_ = 0;
  Memory memory_ = Memory::device;
  std::uint64_t address_ = 0;
  bool stream_ordered_ = false;  // freed with cuMemFreeAsync on stream_
  StreamHandle stream_ = nullptr;
};

}  // namespace tilejit
