// Probe: a row held in shared memory instead of registers. The seed's one-row-a-program kernel
// holds its row in registers (bf16 rows of 16384 over 8 warps: 80 registers, three blocks an SM),
// so at most three rows an SM are in flight. Here the row lands in shared memory by cp.async (no
// registers while in flight) and every phase reads it back from there: the max, then the sum of
// exponentials, then the exponentials again for the stores. Registers then hold only a phase's
// values, and shared memory bounds the rows an SM holds (bf16 16384: 32 KiB a row, up to seven).
// The cost: each element read from shared memory three times and its exponential taken twice.
// The library's softmax_held is the DSL form of the `shared` mode (through the PTX generator, which
// streams stash reads: 40 registers for bf16 rows of 16384 over 8 warps, as here).
//
// Variants, each timed against a device-to-device copy of the same bytes (probe_common.cuh):
//   registers   the row loaded into registers and held, as the seed's kernel does (the baseline);
//               unlike the seed's kernel, its words stay packed and every phase computes its
//               elements again from them, one 16-byte chunk at a time. At bf16 rows of 16384 over
//               8 warps ptxas fits it at four blocks an SM in 64 registers without spills (five:
//               48 and 24 bytes), where the seed's kernel spills 468 bytes at four; run at three,
//               four and five blocks, it asks whether a fourth row an SM pays for the
//               exponentials taken twice
//   shared/B    the row held in shared memory, __launch_bounds__ asking for B blocks an SM
//   persistent  blocks resident at once walk the rows, each row in one of two slots while the
//               next row lands in the other (Triton's pipelined persistent loop, rows held there)
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

enum class Mode {
  registers,  // one row a block, held in registers (the seed's kernel)
  shared,     // one row a block, held in shared memory
  persistent  // a block walks rows, each held in one of two slots while the next lands in the other
};
const char* mode_name(Mode m) {
  return m == Mode::registers ? "registers" : m == Mode::shared ? "held in shared memory" : "persistent, two slots";
}

// Geometry: COLS columns of T over WARPS warps, each thread kChunks chunks of 16 bytes, chunk c
// of thread t at column (c * threads + t) * per_chunk.
template <typename T, int COLS, int WARPS>
struct Row {
  using C = Chunk<T>;
  static constexpr int kThreads = 32 * WARPS, kChunks = COLS / (kThreads * C::n);
  static __device__ int col(int c) { return (c * kThreads + static_cast<int>(threadIdx.x)) * C::n; }
  static __device__ uint4 neg_inf() {
    return make_uint4(C::neg_inf_word, C::neg_inf_word, C::neg_inf_word, C::neg_inf_word);
  }
  // Starts copying row `src` into `slot` (cp.async, zeros past n), as one commit group.
  static __device__ void copy(uint4* slot, const T* src, int n, bool valid) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(slot + c * kThreads + threadIdx.x));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(to), "l"(src + col(c)),
                   "r"(valid && col(c) < n ? 16 : 0)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  // The softmax of one row whose chunk c chunk(c, f) unpacks, written to dst: the max, the sum of
  // exponentials and the stores each ask for the chunks again.
  template <typename ChunkAt>
  static __device__ void softmax(ChunkAt&& chunk, T* dst, int n, float* slots) {
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
};

template <typename T, int COLS, int WARPS, int MINB, Mode MODE>
__global__ void __launch_bounds__(32 * WARPS, MINB) softmax_rows(T* out, const T* in, int n, int rows) {
  using R = Row<T, COLS, WARPS>;
  using C = typename R::C;
  extern __shared__ __align__(16) unsigned char smem[];
  float* slots = reinterpret_cast<float*>(smem);  // two reductions' worth: max, then sum
  uint4* row = reinterpret_cast<uint4*>(smem + 2 * 32 * sizeof(float));
  const int t = threadIdx.x;
  auto src = [&](int r) { return in + static_cast<std::int64_t>(r) * n; };
  auto dst = [&](int r) { return out + static_cast<std::int64_t>(r) * n; };
  if constexpr (MODE == Mode::registers) {
    uint4 held[R::kChunks];
#pragma unroll
    for (int c = 0; c < R::kChunks; ++c)
      held[c] = R::col(c) < n ? *reinterpret_cast<const uint4*>(src(blockIdx.x) + R::col(c)) : R::neg_inf();
    R::softmax([&](int c, float* f) { C::unpack(held[c], f); }, dst(blockIdx.x), n, slots);
  } else if constexpr (MODE == Mode::shared) {
    R::copy(row, src(blockIdx.x), n, true);
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    R::softmax([&](int c, float* f) { C::unpack(R::col(c) < n ? row[c * R::kThreads + t] : R::neg_inf(), f); },
               dst(blockIdx.x), n, slots);
  } else {
    // The block's k-th row r in slot k & 1; the next one's copy starts before r is computed.
    // Each thread copies and reads only its own chunks, so no barrier guards the slots.
    constexpr int kSlot = COLS * static_cast<int>(sizeof(T)) / 16;
    const int step = static_cast<int>(gridDim.x);
    R::copy(row, src(blockIdx.x), n, static_cast<int>(blockIdx.x) < rows);
    int k = 0;
    for (int r = blockIdx.x; r < rows; r += step, ++k) {
      uint4* cur = row + (k & 1) * kSlot;
      R::copy(row + ((k + 1) & 1) * kSlot, src(r + step < rows ? r + step : r), n, r + step < rows);
      asm volatile("cp.async.wait_group 1;" ::: "memory");
      R::softmax([&](int c, float* f) { C::unpack(R::col(c) < n ? cur[c * R::kThreads + t] : R::neg_inf(), f); },
                 dst(r), n, slots);
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
}

template <typename T, int COLS, int WARPS, int MINB, Mode MODE>
void run(ProbeData<T>& d, int reps) {
  auto kernel = softmax_rows<T, COLS, WARPS, MINB, MODE>;
  const int row_bytes = COLS * static_cast<int>(sizeof(T));
  const int smem = 2 * 32 * sizeof(float) + (MODE == Mode::registers ? 0
                                             : MODE == Mode::shared  ? row_bytes
                                                                     : 2 * row_bytes);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaFuncAttributes attrs;
  CHECK(cudaFuncGetAttributes(&attrs, kernel));
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * WARPS, smem));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const long grid = MODE == Mode::persistent ? std::min<long>(d.rows, static_cast<long>(per_sm) * sms) : d.rows;
  std::printf("%s %ld x %ld, %d warps, %s: %d registers, %zu bytes spilled, %d blocks an SM, grid %ld\n",
              sizeof(T) == 4 ? "f32" : "bf16", d.rows, d.cols, WARPS, mode_name(MODE), attrs.numRegs,
              attrs.localSizeBytes, per_sm, grid);
  auto launch = [&] {
    kernel<<<static_cast<unsigned>(grid), 32 * WARPS, smem>>>(d.out, d.in, static_cast<int>(d.cols),
                                                              static_cast<int>(d.rows));
    CHECK(cudaGetLastError());
  };
  report_probe(d, launch, reps);
}

// The registers baseline at the seed's choice (three blocks an SM for 16-bit rows of 16384; for
// those also four and five), then one row held in shared memory at every occupancy its bytes
// allow, then the persistent walk.
template <typename T, int COLS>
void sweep(std::int64_t rows, int reps) {
  ProbeData<T> d(rows, COLS);
  for (int round = 0; round < 2; ++round) {
    run<T, COLS, 8, (sizeof(T) == 2 && COLS == 16384) ? 3 : 1, Mode::registers>(d, reps);
    if constexpr (sizeof(T) == 2 && COLS == 16384) {
      run<T, COLS, 8, 4, Mode::registers>(d, reps);
      run<T, COLS, 8, 5, Mode::registers>(d, reps);
    }
    run<T, COLS, 8, 4, Mode::shared>(d, reps);
    run<T, COLS, 8, 5, Mode::shared>(d, reps);
    run<T, COLS, 8, 6, Mode::shared>(d, reps);
    if constexpr (COLS * sizeof(T) <= 32768) run<T, COLS, 8, 7, Mode::shared>(d, reps);
    run<T, COLS, 8, 3, Mode::persistent>(d, reps);
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
