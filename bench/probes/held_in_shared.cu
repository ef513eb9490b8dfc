// Probe: a row held in shared memory instead of registers. The seed's one-row-a-program kernel
// holds its row in registers (bf16 rows of 16384 over 8 warps: 80 registers, three blocks an SM),
// so at most three rows an SM are in flight. Here the row lands in shared memory by cp.async (no
// registers while in flight) and every phase reads it back from there: the max, then the sum of
// exponentials, then the exponentials again for the stores. Registers then hold only a phase's
// values, and shared memory bounds the rows an SM holds (bf16 16384: 32 KiB a row, up to seven).
// The cost: each element read from shared memory three times and its exponential taken twice.
//
// Variants, each timed against a device-to-device copy of the same bytes (probe_common.cuh):
//   registers  the row loaded into registers and held, as the seed's kernel does (the baseline)
//   shared/B   the row held in shared memory, __launch_bounds__ asking for B blocks an SM
//
//   held_in_shared <rows> [reps]      (bf16 and f32 rows of 8192 and 16384 columns)
#include "probe_common.cuh"

namespace {

constexpr float kLog2e = 1.44269502f;

__device__ __forceinline__ float ex2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float max_nan(float a, float b) {
  float d;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
}

// The block's reduction of one value a thread through `slots` (a float per warp), max or sum.
template <int WARPS, bool MAX>
__device__ float block_reduce(float v, float* slots) {
  for (int o = 16; o; o >>= 1) {
    float u = __shfl_xor_sync(~0u, v, o);
    v = MAX ? max_nan(v, u) : v + u;
  }
  if ((threadIdx.x & 31) == 0) slots[threadIdx.x >> 5] = v;
  __syncthreads();
  v = slots[0];
  for (int w = 1; w < WARPS; ++w) v = MAX ? max_nan(v, slots[w]) : v + slots[w];
  return v;
}

// One row a block: COLS columns of T over WARPS warps, each thread CHUNKS chunks of 16 bytes,
// chunk c of thread t at column (c * threads + t) * per_chunk.
template <typename T, int COLS, int WARPS, int MINB, bool SHARED>
__global__ void __launch_bounds__(32 * WARPS, MINB) softmax_row(T* out, const T* in, int n) {
  using C = Chunk<T>;
  constexpr int kThreads = 32 * WARPS, kChunks = COLS / (kThreads * C::n);
  extern __shared__ __align__(16) unsigned char smem[];
  float* slots = reinterpret_cast<float*>(smem);  // two reductions' worth: max, then sum
  uint4* row = reinterpret_cast<uint4*>(smem + 2 * 32 * sizeof(float));
  const int t = threadIdx.x;
  const T* src = in + static_cast<std::int64_t>(blockIdx.x) * n;
  T* dst = out + static_cast<std::int64_t>(blockIdx.x) * n;
  auto col = [&](int c) { return (c * kThreads + t) * C::n; };
  const uint4 neg_inf = make_uint4(C::neg_inf_word, C::neg_inf_word, C::neg_inf_word, C::neg_inf_word);
  uint4 held[SHARED ? 1 : kChunks];
  if constexpr (SHARED) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(row + c * kThreads + t));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(to), "l"(src + col(c)),
                   "r"(col(c) < n ? 16 : 0)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
  } else {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) held[c] = col(c) < n ? *reinterpret_cast<const uint4*>(src + col(c)) : neg_inf;
  }
  // Chunk c as floats: from shared memory (masked chunks read -inf) or from the held registers.
  auto chunk = [&](int c, float* f) {
    if constexpr (SHARED) C::unpack(col(c) < n ? row[c * kThreads + t] : neg_inf, f);
    else C::unpack(held[c], f);
  };
  float m = -INFINITY;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    float f[C::n];
    chunk(c, f);
    for (int e = 0; e < C::n; ++e) m = max_nan(m, f[e]);
  }
  m = block_reduce<WARPS, true>(m, slots);
  const float shift = m * kLog2e;
  float s = 0;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    float f[C::n];
    chunk(c, f);
    for (int e = 0; e < C::n; ++e) s += ex2(fmaf(f[e], kLog2e, -shift));
  }
  s = block_reduce<WARPS, false>(s, slots + 32);
  const float r = 1.0f / s;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    float f[C::n];
    chunk(c, f);
    for (int e = 0; e < C::n; ++e) f[e] = ex2(fmaf(f[e], kLog2e, -shift)) * r;
    if (col(c) < n) *reinterpret_cast<uint4*>(dst + col(c)) = C::pack(f);
  }
}

template <typename T, int COLS, int WARPS, int MINB, bool SHARED>
void run(ProbeData<T>& d, int reps) {
  auto kernel = softmax_row<T, COLS, WARPS, MINB, SHARED>;
  const int smem = 2 * 32 * sizeof(float) + (SHARED ? COLS * static_cast<int>(sizeof(T)) : 0);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaFuncAttributes attrs;
  CHECK(cudaFuncGetAttributes(&attrs, kernel));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * WARPS, smem));
  std::printf("%s %ld x %ld, %d warps, %s: %d registers, %zu bytes spilled, %d blocks an SM\n",
              sizeof(T) == 4 ? "f32" : "bf16", d.rows, d.cols, WARPS, SHARED ? "held in shared memory" : "registers",
              attrs.numRegs, attrs.localSizeBytes, per_sm);
  auto launch = [&] {
    kernel<<<static_cast<unsigned>(d.rows), 32 * WARPS, smem>>>(d.out, d.in, static_cast<int>(d.cols));
    CHECK(cudaGetLastError());
  };
  report_probe(d, launch, reps);
}

// The registers baseline at the seed's choice (three blocks an SM for 16-bit rows of 16384), then
// shared memory at every occupancy its bytes allow.
template <typename T, int COLS>
void sweep(std::int64_t rows, int reps) {
  ProbeData<T> d(rows, COLS);
  for (int round = 0; round < 2; ++round) {
    run<T, COLS, 8, (sizeof(T) == 2 && COLS == 16384) ? 3 : 1, false>(d, reps);
    run<T, COLS, 8, 4, true>(d, reps);
    run<T, COLS, 8, 5, true>(d, reps);
    run<T, COLS, 8, 6, true>(d, reps);
    if constexpr (COLS * sizeof(T) <= 32768) run<T, COLS, 8, 7, true>(d, reps);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atol(argv[1]) : 4096;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 100;
  sweep<__nv_bfloat16, 16384>(rows, reps);
  sweep<__nv_bfloat16, 8192>(rows, reps);
  sweep<float, 8192>(rows, reps);
  sweep<float, 16384>(rows, reps);
  return 0;
}
