// Launching CPU kernels: the grid's programs spread over the thread pool, one call each, with
// per-thread scratch memory.
#include <fmt/format.h>

#include <cstdlib>
#include <limits>

#include "runtime/cpu/cluster.h"
#include "runtime/cpu/cpu_jit.h"
#include "runtime/cpu/jit_instance.h"
#include "runtime/cpu/thread_pool.h"
#include "tilejit/error.h"

namespace tilejit::rt::cpu {

namespace {

// Grows as kernels ask for more; freed when the thread ends.
void* thread_scratch(std::int64_t bytes) {
  struct Scratch {
    void* data = nullptr;
    std::size_t size = 0;
    ~Scratch() { std::free(data); }
  };
  thread_local Scratch s;
  auto need = static_cast<std::size_t>(bytes + 63) / 64 * 64;
  if (need > s.size) {
    std::free(s.data);
    s.data = std::aligned_alloc(64, need);
    s.size = s.data ? need : 0;
    if (!s.data) throw Error(fmt::format("out of memory allocating {} bytes of CPU kernel scratch", need));
  }
  return s.data;
}

}  // namespace

CpuKernel::CpuKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CpuKernel::~CpuKernel() {
  if (impl_ && impl_->dylib)
    llvm::consumeError(jit_instance().lljit->getExecutionSession().removeJITDylib(*impl_->dylib));
}

CpuKernel::Entry CpuKernel::entry() const { return impl_->entry; }
std::int64_t CpuKernel::scratch_bytes() const { return impl_->scratch_bytes; }

void CpuKernel::launch(std::uint64_t x, std::uint64_t y, std::uint64_t z, void** params, int max_threads,
                       int cluster_size) const {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int32_t>::max();
  if (x > kMax || y > kMax || z > kMax)
    throw Error(fmt::format("grid ({}, {}, {}): each dimension must be at most {}", x, y, z, kMax));
  if (x == 0 || y == 0 || z == 0) return;
  unsigned __int128 total128 = static_cast<unsigned __int128>(x) * y * z;
  if (total128 > std::numeric_limits<std::uint64_t>::max())
    throw Error(fmt::format("grid ({}, {}, {}) has too many programs", x, y, z));
  auto total = static_cast<std::uint64_t>(total128);
  Entry entry = impl_->entry;
  std::int64_t scratch_bytes = impl_->scratch_bytes;
  auto nx = static_cast<std::int32_t>(x), ny = static_cast<std::int32_t>(y), nz = static_cast<std::int32_t>(z);
  if (cluster_size > 1) {
    if (x % static_cast<std::uint64_t>(cluster_size) != 0)
      throw Error(fmt::format("grid.x = {} is not a multiple of the kernel's cluster size {}", x, cluster_size));
    run_clusters(x, y, z, cluster_size, max_threads > 0 ? max_threads : default_threads(),
                 [&](std::int32_t px, std::int32_t py, std::int32_t pz) {
                   entry(params, thread_scratch(scratch_bytes), px, py, pz, nx, ny, nz);
                 });
    return;
  }
  ThreadPool::instance().parallel_for(
      total, max_threads > 0 ? max_threads : default_threads(), [&](std::uint64_t begin, std::uint64_t end) {
        void* scratch = thread_scratch(scratch_bytes);
        for (std::uint64_t p = begin; p < end; ++p) {
          std::uint64_t rest = p / x;
          entry(params, scratch, static_cast<std::int32_t>(p % x), static_cast<std::int32_t>(rest % y),
                static_cast<std::int32_t>(rest / y), nx, ny, nz);
        }
      });
}

int default_threads() {
  const char* env = std::getenv("TILEJIT_CPU_THREADS");
  if (env && *env) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 1 || v > 1 << 16)
      throw Error(fmt::format("TILEJIT_CPU_THREADS must be a positive integer, got '{}'", env));
    return static_cast<int>(v);
  }
  return ThreadPool::instance().size();
}

}  // namespace tilejit::rt::cpu
