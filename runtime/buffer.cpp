// tilejit::Buffer: owned device or host memory.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "tilejit/device.h"
#include "tilejit/error.h"

namespace tilejit {
namespace {

// Cache-line alignment, which also satisfies every vector width the CPU backend may use.
constexpr std::size_t kHostAlignment = 64;

const char* memory_name(Memory m) { return m == Memory::device ? "device" : "host"; }

std::size_t checked_bytes(DType dtype, std::size_t count) {
  const std::size_t element = dtype_size(dtype);
  if (count > std::numeric_limits<std::size_t>::max() / element)
    throw Error(fmt::format("Buffer of {} {} elements: size overflows", count, dtype_name(dtype)));
  return count * element;
}

}  // namespace

Buffer::Buffer(DType dtype, std::size_t count, Memory where) : dtype_(dtype), count_(0), memory_(where) {
  if (where != Memory::device && where != Memory::host)
    throw Error("a Buffer lives in Memory::device or Memory::host (Memory::unknown is for raw Pointers)");
  const std::size_t size = checked_bytes(dtype, count);
  if (size > 0) {
    if (where == Memory::device) {
      rt::make_context_current();  // throws CudaError with the reason when there is no GPU
      CUdeviceptr ptr = 0;
      rt::check(rt::driver().cuMemAlloc(&ptr, size), "cuMemAlloc",
                fmt::format("allocating {} bytes for {} {} elements", size, count, dtype_name(dtype)));
      address_ = static_cast<std::uint64_t>(ptr);
    } else {
      const std::size_t rounded = (size + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
      void* ptr = std::aligned_alloc(kHostAlignment, rounded);
      if (!ptr) throw Error(fmt::format("out of host memory allocating a Buffer of {} bytes", size));
      address_ = reinterpret_cast<std::uintptr_t>(ptr);
    }
  }
  count_ = count;
}

Buffer Buffer::stream_ordered(DType dtype, std::size_t count, StreamHandle stream) {
  Buffer b;
  b.dtype_ = dtype;
  b.stream_ordered_ = true;
  b.stream_ = stream;
  const std::size_t size = checked_bytes(dtype, count);
  if (size > 0) {
    rt::make_context_current();
    CUdeviceptr ptr = 0;
    rt::check(rt::driver().cuMemAllocAsync(&ptr, size, stream), "cuMemAllocAsync",
              fmt::format("allocating {} bytes for {} {} elements in stream order", size, count, dtype_name(dtype)));
    b.address_ = static_cast<std::uint64_t>(ptr);
  }
  b.count_ = count;
  return b;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : dtype_(other.dtype_),
      count_(other.count_),
      memory_(other.memory_),
      address_(other.address_),
      stream_ordered_(other.stream_ordered_),
      stream_(other.stream_) {
  other.count_ = 0;
  other.address_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    dtype_ = other.dtype_;
    count_ = other.count_;
    memory_ = other.memory_;
    address_ = other.address_;
    stream_ordered_ = other.stream_ordered_;
    stream_ = other.stream_;
    other.count_ = 0;
    other.address_ = 0;
  }
  return *this;
}

void Buffer::release() noexcept {
  if (address_ != 0) {
    if (memory_ == Memory::host) {
      std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address_)));
    } else if (!rt::driver_shutting_down()) {
      // Never throw from here: a failure to free (e.g. the context is gone) only leaks.
      try {
        rt::make_context_current();
        const auto ptr = static_cast<CUdeviceptr>(address_);
        stream_ordered_ ? rt::driver().cuMemFreeAsync(ptr, stream_) : rt::driver().cuMemFree(ptr);
      } catch (...) {
      }
    }
  }
  address_ = 0;
  count_ = 0;
}

void* Buffer::host_data() { return const_cast<void*>(std::as_const(*this).host_data()); }

const void* Buffer::host_data() const {
  if (memory_ != Memory::host)
    throw Error(
        "Buffer::host_data() is only for host buffers; this one is in device memory "
        "(use download() to read it)");
  return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address_));
}

void Buffer::check_range(std::size_t n, std::size_t offset, const char* what) const {
  const std::size_t size = bytes();
  if (offset > size || n > size - offset)
    throw Error(fmt::format("Buffer::{} of {} bytes at offset {} is out of bounds of a {}-byte {} buffer", what, n,
                            offset, size, memory_name(memory_)));
}

void Buffer::check_elements(std::size_t element_size, std::size_t n, const char* what) const {
  if (element_size != dtype_size(dtype_))
    throw Error(fmt::format("Buffer::{}: elements of {} bytes do not match the buffer's dtype {} ({} bytes)", what,
                            element_size, dtype_name(dtype_), dtype_size(dtype_)));
  if (n != count_)
    throw Error(fmt::format("Buffer::{}: {} elements given for a buffer of {} elements", what, n, count_));
}

void Buffer::upload(const void* src, std::size_t n, std::size_t offset) {
  check_range(n, offset, "upload");
  if (n == 0) return;
  if (!src) throw Error("Buffer::upload: source pointer is null");
  if (memory_ == Memory::host) {
    std::memcpy(static_cast<char*>(host_data()) + offset, src, n);
    return;
  }
  rt::make_context_current();
  rt::check(rt::driver().cuMemcpyHtoD(static_cast<CUdeviceptr>(address_ + offset), src, n), "cuMemcpyHtoD");
}

void Buffer::download(void* dst, std::size_t n, std::size_t offset) const {
  check_range(n, offset, "download");
  if (n == 0) return;
  if (!dst) throw Error("Buffer::download: destination pointer is null");
  if (memory_ == Memory::host) {
    std::memcpy(dst, static_cast<const char*>(host_data()) + offset, n);
    return;
  }
  rt::make_context_current();
  rt::check(rt::driver().cuMemcpyDtoH(dst, static_cast<CUdeviceptr>(address_ + offset), n), "cuMemcpyDtoH");
}

void Buffer::fill_bytes(std::uint8_t byte) {
  const std::size_t size = bytes();
  if (size == 0) return;
  if (memory_ == Memory::host) {
    std::memset(host_data(), byte, size);
    return;
  }
  rt::make_context_current();
  rt::check(rt::driver().cuMemsetD8(static_cast<CUdeviceptr>(address_), byte, size), "cuMemsetD8");
}

void Buffer::fill_bytes_async(std::uint8_t byte, StreamHandle stream) {
  if (memory_ == Memory::host || bytes() == 0) return fill_bytes(byte);
  rt::make_context_current();
  rt::check(rt::driver().cuMemsetD8Async(static_cast<CUdeviceptr>(address_), byte, bytes(), stream), "cuMemsetD8Async");
}

}  // namespace tilejit
