// Probe, not part of the library: can a few wide rows stream through shared memory at copy speed?
//
// The library's walked groups read each program's slice of a row, exchange the row's statistics
// through global memory, then write the slice, keeping part of it in shared memory and reading the
// rest again. Here each program keeps its whole slice in one slot of a ring of shared-memory
// slots, filled by one bulk copy (cp.async.bulk, completing on the slot's mbarrier) issued as soon
// as the slot is free, so the next rows' reads are in flight while a row waits at its exchange and
// is written. With `lag` 1 a program computes and posts row i's statistics before it waits for
// row i-1's exchange, so the exchange's wait overlaps a row's work. Where a row's slice is too big
// for more than one slot (f32), `l2_ahead` rows are prefetched into L2 instead
// (cp.async.bulk.prefetch.L2), so the slot's fill reads L2.
//
// Build and run (GPU machine): nvcc -O3 -std=c++17 -arch=sm_90a -o ring bench/probes/streamed_ring.cu
//   ./ring <f32|bf16> <rows> <cols> <groups> <group_size> <threads> <slots> <lag> <l2_ahead> [reps]
// Prints the kernel's median time against a device-to-device copy of the same bytes, each timed
// with CUDA events after overwriting a 256 MiB buffer (L2 flushed), and the largest relative error of
// three rows against a float64 reference, checked before and after the timed launches.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe_common.cuh"

struct Params {
  const void* in;
  void* out;
  std::int64_t rows, cols, slice;  // slice: columns a program holds, a multiple of 16 bytes
  int groups, group_size, slots, lag, l2_ahead;
  int mode;  // 0: fence + atomic arrival; 1: release atomic; timing only (wrong output): 2 no wait, 3 no exchange
  std::int64_t rows_per_group;  // the most rows any group takes
  float2* partials;             // [groups][rows_per_group][group_size]
  unsigned* arrivals;           // [groups][rows_per_group], counting up across launches
  unsigned launch;              // how many launches came before this one
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void bulk_fill(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void prefetch_l2(const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

__device__ __forceinline__ void wait_parity(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// (max, sum of exp(x - max)) pairs, combined; an empty pair is (-inf, 0).
__device__ __forceinline__ float2 combine(float2 a, float2 b) {
  float m = fmaxf(a.x, b.x);
  if (m == -INFINITY) return make_float2(m, 0.f);
  return make_float2(m, a.y * exp2f((a.x - m) * 1.4426950408889634f) + b.y * exp2f((b.x - m) * 1.4426950408889634f));
}

__device__ float2 block_combine(float2 v, float2* scratch) {
  for (int d = 16; d > 0; d >>= 1) {
    float2 o = make_float2(__shfl_xor_sync(~0u, v.x, d), __shfl_xor_sync(~0u, v.y, d));
    v = combine(v, o);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : make_float2(-INFINITY, 0.f);
  for (int d = 16; d > 0; d >>= 1) {
    float2 o = make_float2(__shfl_xor_sync(~0u, v.x, d), __shfl_xor_sync(~0u, v.y, d));
    v = combine(v, o);
  }
  __syncthreads();  // scratch is free again
  return v;
}

template <typename T>
__global__ void __launch_bounds__(1024) ring_softmax(Params p) {
  extern __shared__ __align__(128) unsigned char ring[];
  __shared__ std::uint64_t bars[16];
  __shared__ float2 scratch[32];
  constexpr int V = Chunk<T>::n;
  constexpr float kLog2e = 1.4426950408889634f;
  const int g = blockIdx.x / p.group_size, k = blockIdx.x % p.group_size;
  const std::int64_t col0 = static_cast<std::int64_t>(k) * p.slice;
  const std::int64_t left = p.cols - col0, n = left < 0 ? 0 : left < p.slice ? left : p.slice;
  const unsigned bytes = static_cast<unsigned>(n * sizeof(T));
  const std::int64_t my_rows = g < p.rows ? (p.rows - g + p.groups - 1) / p.groups : 0;
  auto row_of = [&](std::int64_t i) { return g + i * p.groups; };
  auto slot = [&](std::int64_t i) { return reinterpret_cast<uint4*>(ring + (i % p.slots) * p.slice * sizeof(T)); };
  const T* in = static_cast<const T*>(p.in);
  T* out = static_cast<T*>(p.out);
  float2* partials = p.partials + static_cast<std::int64_t>(g) * p.rows_per_group * p.group_size;
  // One counter a row: with lag 1 a program posts row i before others have posted row i - 1.
  unsigned* arrivals = p.arrivals + static_cast<std::int64_t>(g) * p.rows_per_group;
  const unsigned target = (p.launch + 1) * static_cast<unsigned>(p.group_size);

  auto fill = [&](std::int64_t i) {  // thread 0 only
    if (i >= my_rows || n == 0) return;
    bulk_fill(slot(i), in + row_of(i) * p.cols + col0, bytes, &bars[i % p.slots]);
    if (p.l2_ahead > 0 && i + p.l2_ahead < my_rows) prefetch_l2(in + row_of(i + p.l2_ahead) * p.cols + col0, bytes);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < p.slots; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[s])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < p.slots; ++s) fill(s);

  const std::int64_t chunks = n / V;
  float2 own = make_float2(-INFINITY, 0.f);
  for (std::int64_t i = 0; i < my_rows + p.lag; ++i) {
    if (i < my_rows) {  // row i's statistics, posted
      if (n > 0) wait_parity(&bars[i % p.slots], static_cast<unsigned>((i / p.slots) & 1));
      const uint4* s = slot(i);
      float2 st = make_float2(-INFINITY, 0.f);
      for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
        float f[V];
        Chunk<T>::unpack(s[c], f);
        float cm = f[0];
        for (int j = 1; j < V; ++j) cm = fmaxf(cm, f[j]);
        float part = 0.f;
        for (int j = 0; j < V; ++j) part += exp2f((f[j] - cm) * kLog2e);
        st = combine(st, make_float2(cm, part));
      }
      st = block_combine(st, scratch);
      if (threadIdx.x == 0 && p.mode != 3) {
        partials[i * p.group_size + k] = st;
        if (p.mode == 0) {
          __threadfence();
          atomicAdd(&arrivals[i], 1u);
        } else {
          asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&arrivals[i]) : "memory");
        }
      }
      if (p.mode == 3) own = st;
    }
    const std::int64_t j = i - p.lag;
    if (j < 0) continue;
    // Row j: wait for its exchange, combine the group's statistics, write the slice.
    if (threadIdx.x == 0 && p.mode < 2) {
      while (static_cast<int>(load_acquire(&arrivals[j]) - target) < 0) {
      }
    }
    __syncthreads();
    float2 st = make_float2(-INFINITY, 0.f);
    if (p.mode == 3) {
      st = own;  // this program's own statistics (lag 0 only): no exchange at all
    } else {
      for (int q = threadIdx.x; q < p.group_size; q += blockDim.x) {
        float2 o = __ldcg(&partials[j * p.group_size + q]);
        st = combine(st, o);
      }
      st = block_combine(st, scratch);
    }
    const float shift = st.x * kLog2e, inv = 1.f / st.y;
    const uint4* s = slot(j);
    uint4* dst = reinterpret_cast<uint4*>(out + row_of(j) * p.cols + col0);
    for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
      float f[V];
      Chunk<T>::unpack(s[c], f);
      for (int q = 0; q < V; ++q) f[q] = exp2f(f[q] * kLog2e - shift) * inv;
      dst[c] = Chunk<T>::pack(f);
    }
    __syncthreads();  // the slot is read: it may be filled again
    if (threadIdx.x == 0) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      fill(j + p.slots);
    }
  }
}

template <typename T>
static int run(int argc, char** argv) {
  const std::int64_t rows = std::atoll(argv[2]), cols = std::atoll(argv[3]);
  Params p{};
  p.rows = rows, p.cols = cols;
  p.groups = std::atoi(argv[4]), p.group_size = std::atoi(argv[5]);
  const int threads = std::atoi(argv[6]);
  p.slots = std::atoi(argv[7]), p.lag = std::atoi(argv[8]), p.l2_ahead = std::atoi(argv[9]);
  const int reps = argc > 10 ? std::atoi(argv[10]) : 30;
  p.mode = argc > 11 ? std::atoi(argv[11]) : 0;
  constexpr std::int64_t per16 = 16 / sizeof(T);
  p.slice = ((cols + p.group_size - 1) / p.group_size + per16 - 1) / per16 * per16;
  p.rows_per_group = (rows + p.groups - 1) / p.groups;
  if (cols % per16 != 0 || p.slots < 1 || p.slots > 16 || p.lag < 0 || p.lag >= p.slots || p.mode < 0 || p.mode > 3 ||
      (p.mode == 3 && p.lag != 0) || threads % 32 != 0 || threads > 1024) {
    std::fprintf(stderr, "bad configuration\n");
    return 2;
  }
  const std::size_t smem = static_cast<std::size_t>(p.slots) * p.slice * sizeof(T);
  CHECK(cudaFuncSetAttribute(ring_softmax<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ring_softmax<T>, threads, smem));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = p.groups * p.group_size;
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, ring_softmax<T>));
  std::printf(
      "%s %lld x %lld: %d groups of %d, %d threads, %d slots of %lld columns (%.1f KiB), lag %d, L2 ahead %d, mode %d; "
      "%d registers, %d an SM resident\n",
      argv[1], static_cast<long long>(rows), static_cast<long long>(cols), p.groups, p.group_size, threads, p.slots,
      static_cast<long long>(p.slice), p.slice * sizeof(T) / 1024.0, p.lag, p.l2_ahead, p.mode, attr.numRegs, per_sm);
  if (static_cast<std::int64_t>(per_sm) * sms < grid) {
    std::printf("  refused: %d programs do not fit at once (%d an SM x %d SMs)\n", grid, per_sm, sms);
    return 0;
  }
  ProbeData<T> data(rows, cols);
  CHECK(cudaMalloc(&p.partials, sizeof(float2) * p.groups * p.rows_per_group * p.group_size));
  CHECK(cudaMalloc(&p.arrivals, sizeof(unsigned) * p.groups * p.rows_per_group));
  CHECK(cudaMemset(p.arrivals, 0, sizeof(unsigned) * p.groups * p.rows_per_group));
  p.in = data.in, p.out = data.out;
  auto launch = [&] {
    ring_softmax<T><<<grid, threads, smem>>>(p);
    ++p.launch;
  };
  report_probe(data, launch, reps);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 10) {
    std::fprintf(
        stderr,
        "usage: %s <f32|bf16> <rows> <cols> <groups> <group_size> <threads> <slots> <lag> <l2_ahead> [reps [mode]]\n",
        argv[0]);
    return 2;
  }
  return std::string(argv[1]) == "f32" ? run<float>(argc, argv) : run<__nv_bfloat16>(argc, argv);
}
