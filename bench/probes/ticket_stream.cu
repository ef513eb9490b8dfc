// Probe: few very wide rows as one stream of tickets, with no group exchange.
//
// The input is cut into items of THREADS x CPT 16-byte chunks, each inside one row. Persistent
// programs take tickets k = 0, 1, ... from one counter. Ticket k does the first pass of item k
// (read from DRAM, post its (max, sum) and count it against its row; the row's last item combines
// the row's partials and posts its statistics) and the second pass of item k - lag (read again,
// expected from L2, normalize, write). With lag >= items per row, a second pass waits only when
// the row's last first pass is still running, and every program takes work at its own speed:
// nobody waits for the slowest program of a group at each row, which is where the walks lose time.
//
// Usage: ticket_stream f32|bf16 rows cols THREADSxCPT blocks_per_sm slack hint [reps]
//   lag = items per row + slack x programs;  hint 0: none, 1: evict_last first pass and
//   evict_first second pass and stores, 2: evict_first second pass and stores only.
#include <string>

#include "probe_common.cuh"

struct Stream {
  unsigned* ticket;     // one counter, never reset: each launch starts at its epoch's base
  unsigned* row_count;  // per row: first passes done, never reset
  unsigned* row_ready;  // per row: the epoch + 1 of the launch whose statistics are posted
  float2* row_stats;    // per row: (max, 1 / sum)
  float2* partial;      // per item: (max, sum of exp(x - max))
};

// exp(x) as the library's PTX generator computes it: 2^n * 2^y, n = round(x log2 e), y reduced
// with a split log2 e, 2^y by ex2.approx.
__device__ __forceinline__ float accurate_exp(float x) {
  const float t = fminf(fmaxf(x * 1.44269504f, -126.f), 127.f);
  const float n = rintf(t);
  float y = fmaf(x, 1.44269502f, -n);
  y = fmaf(x, 1.925963033e-8f, y);
  float p;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(p) : "f"(y));
  return p * __int_as_float((static_cast<int>(n) + 127) << 23);
}

// L2 eviction policies for the loads' cache hints.
__device__ __forceinline__ unsigned long long evict_last_policy() {
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}
__device__ __forceinline__ unsigned long long evict_first_policy() {
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}
// A 16-byte load through the non-coherent path, with an L2 policy or without.
__device__ __forceinline__ uint4 load_chunk(const uint4* p, unsigned long long pol) {
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(pol));
  return v;
}
__device__ __forceinline__ uint4 load_chunk(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

// HINT 1: the first read evict_last; HINT 1 and 2: the second read evict_first, stores streaming.
template <int HINT>
struct Access {
  static __device__ __forceinline__ uint4 first(const uint4* p) {
    if constexpr (HINT == 1) return load_chunk(p, evict_last_policy());
    return load_chunk(p);
  }
  static __device__ __forceinline__ uint4 second(const uint4* p) {
    if constexpr (HINT != 0) return load_chunk(p, evict_first_policy());
    return load_chunk(p);
  }
  static __device__ __forceinline__ void store(uint4* p, uint4 v) {
    if constexpr (HINT != 0) {
      asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                   : "memory");
    } else {
      asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
    }
  }
};

// (m, s) pairs combined: the sums rescaled to the larger maximum.
__device__ __forceinline__ float2 combine(float2 a, float2 b) {
  const float m = fmaxf(a.x, b.x);
  if (m == -INFINITY) return make_float2(m, 0.f);
  return make_float2(m, a.y * accurate_exp(a.x - m) + b.y * accurate_exp(b.x - m));
}

__device__ __forceinline__ float2 warp_combine(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    float2 w = make_float2(__shfl_xor_sync(~0u, v.x, o), __shfl_xor_sync(~0u, v.y, o));
    v = combine(v, w);
  }
  return v;
}

template <typename T, int THREADS, int CPT, int HINT>
__global__ void __launch_bounds__(THREADS) ticket_stream(const uint4* in, uint4* out, Stream s, unsigned n_items,
                                                         unsigned items_per_row, unsigned lag, unsigned epoch) {
  using C = Chunk<T>;
  using A = Access<HINT>;
  constexpr int kWarps = THREADS / 32;
  constexpr int kItemChunks = THREADS * CPT;
  __shared__ float2 red[kWarps], red_row[kWarps];
  __shared__ unsigned next_ticket[2], last_row;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned total = n_items + lag;
  const unsigned base = epoch * (total + gridDim.x);  // each program takes one ticket past the end

  if (tid == 0) next_ticket[0] = atomicAdd(s.ticket, 1u) - base;
  __syncthreads();
  unsigned k = next_ticket[0];
  int slot = 1;
  while (k < total) {
    unsigned next = 0;
    if (tid == 0) next = atomicAdd(s.ticket, 1u) - base;  // in flight through this ticket's work
    const bool first = k < n_items, second = k >= lag;
    const unsigned j = k - lag;
    uint4 a[CPT], b[CPT];
    if (first)
#pragma unroll
      for (int c = 0; c < CPT; ++c) a[c] = A::first(in + static_cast<size_t>(k) * kItemChunks + c * THREADS + tid);
    if (second)
#pragma unroll
      for (int c = 0; c < CPT; ++c) b[c] = A::second(in + static_cast<size_t>(j) * kItemChunks + c * THREADS + tid);

    // First pass of item k: this thread's (max, sum), then the block's.
    if (first) {
      float m = -INFINITY, sum = 0.f;
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(a[c], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) m = fmaxf(m, f[e]);
      }
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(a[c], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) sum += accurate_exp(f[e] - m);
      }
      float2 v = warp_combine(make_float2(m, sum));
      if (lane == 0) red[warp] = v;
    }
    if (tid == 0) next_ticket[slot] = next;
    __syncthreads();
    if (first && warp == 0) {
      float2 v = lane < kWarps ? red[lane] : make_float2(-INFINITY, 0.f);
      v = warp_combine(v);
      if (lane == 0) {
        const unsigned row = k / items_per_row;
        s.partial[k] = v;
        __threadfence();
        const unsigned done = atomicAdd(&s.row_count[row], 1u) + 1;
        last_row = done % items_per_row == 0 ? row : ~0u;
      }
    } else if (tid == 0) {
      last_row = ~0u;
    }
    __syncthreads();
    // The row's last first pass combines its partials and posts the statistics.
    if (last_row != ~0u) {
      __threadfence();
      const unsigned row = last_row;
      float2 v = make_float2(-INFINITY, 0.f);
      for (unsigned i = tid; i < items_per_row; i += THREADS)
        v = combine(v, __ldcg(&s.partial[row * items_per_row + i]));
      v = warp_combine(v);
      if (lane == 0) red_row[warp] = v;
      __syncthreads();
      if (tid == 0) {
        float2 r = red_row[0];
        for (int w = 1; w < kWarps; ++w) r = combine(r, red_row[w]);
        s.row_stats[row] = make_float2(r.x, 1.f / r.y);
        __threadfence();
        asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&s.row_ready[row]), "r"(epoch + 1) : "memory");
      }
    }

    // Second pass of item j = k - lag, its row's statistics normally long posted.
    if (second) {
      const unsigned row = j / items_per_row;
      while (load_acquire(&s.row_ready[row]) != epoch + 1) __nanosleep(64);
      const float2 st = __ldcg(&s.row_stats[row]);
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(b[c], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) f[e] = accurate_exp(f[e] - st.x) * st.y;
        A::store(out + static_cast<size_t>(j) * kItemChunks + c * THREADS + tid, C::pack(f));
      }
    }
    k = next_ticket[slot];
    slot ^= 1;
  }
}

template <typename T, int THREADS, int CPT, int HINT>
int run(std::int64_t rows, std::int64_t cols, int blocks_per_sm, double slack, int reps) {
  constexpr int kItemElems = THREADS * CPT * Chunk<T>::n;
  if (cols % kItemElems != 0) {
    std::fprintf(stderr, "cols must be a multiple of the item, %d elements\n", kItemElems);
    return 2;
  }
  auto kernel = ticket_stream<T, THREADS, CPT, HINT>;
  int sms = 0, fit = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, THREADS, 0));
  if (fit < blocks_per_sm) {
    std::fprintf(stderr, "only %d blocks an SM fit\n", fit);
    return 2;
  }
  cudaFuncAttributes attrs{};
  CHECK(cudaFuncGetAttributes(&attrs, kernel));
  const unsigned programs = static_cast<unsigned>(sms * blocks_per_sm);
  const unsigned items_per_row = static_cast<unsigned>(cols / kItemElems);
  const unsigned n_items = static_cast<unsigned>(rows) * items_per_row;
  const unsigned lag = items_per_row + static_cast<unsigned>(slack * programs);
  ProbeData<T> d(rows, cols);
  Stream s{};
  CHECK(cudaMalloc(&s.ticket, sizeof(unsigned)));
  CHECK(cudaMalloc(&s.row_count, rows * sizeof(unsigned)));
  CHECK(cudaMalloc(&s.row_ready, rows * sizeof(unsigned)));
  CHECK(cudaMalloc(&s.row_stats, rows * sizeof(float2)));
  CHECK(cudaMalloc(&s.partial, n_items * sizeof(float2)));
  CHECK(cudaMemset(s.ticket, 0, sizeof(unsigned)));
  CHECK(cudaMemset(s.row_count, 0, rows * sizeof(unsigned)));
  CHECK(cudaMemset(s.row_ready, 0, rows * sizeof(unsigned)));
  unsigned epoch = 0;
  auto launch = [&] {
    kernel<<<programs, THREADS>>>(reinterpret_cast<const uint4*>(d.in), reinterpret_cast<uint4*>(d.out), s, n_items,
                                  items_per_row, lag, epoch++);
    CHECK(cudaGetLastError());
  };
  std::printf(
      "%s %lld x %lld, %dx%d (item %d KiB), %u programs (%d an SM, %d registers), lag %u items (%.1f MiB), hint %d\n",
      sizeof(T) == 4 ? "f32" : "bf16", static_cast<long long>(rows), static_cast<long long>(cols), THREADS, CPT,
      kItemElems * static_cast<int>(sizeof(T)) / 1024, programs, blocks_per_sm, attrs.numRegs, lag,
      lag * static_cast<double>(kItemElems * sizeof(T)) / (1 << 20), HINT);
  report_probe(d, launch, reps);
  return 0;
}

template <typename T, int THREADS, int CPT>
int run_hint(int hint, std::int64_t rows, std::int64_t cols, int bps, double slack, int reps) {
  switch (hint) {
    case 0: return run<T, THREADS, CPT, 0>(rows, cols, bps, slack, reps);
    case 1: return run<T, THREADS, CPT, 1>(rows, cols, bps, slack, reps);
    default: return run<T, THREADS, CPT, 2>(rows, cols, bps, slack, reps);
  }
}

template <typename T>
int run_shape(const std::string& shape, int hint, std::int64_t rows, std::int64_t cols, int bps, double slack,
              int reps) {
  if (shape == "256x4") return run_hint<T, 256, 4>(hint, rows, cols, bps, slack, reps);
  if (shape == "256x8") return run_hint<T, 256, 8>(hint, rows, cols, bps, slack, reps);
  if (shape == "512x4") return run_hint<T, 512, 4>(hint, rows, cols, bps, slack, reps);
  if (shape == "512x8") return run_hint<T, 512, 8>(hint, rows, cols, bps, slack, reps);
  if (shape == "1024x4") return run_hint<T, 1024, 4>(hint, rows, cols, bps, slack, reps);
  std::fprintf(stderr, "unknown THREADSxCPT %s\n", shape.c_str());
  return 2;
}

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: %s f32|bf16 rows cols THREADSxCPT blocks_per_sm slack hint [reps]\n", argv[0]);
    return 2;
  }
  const bool f32 = std::string(argv[1]) == "f32";
  const std::int64_t rows = std::atoll(argv[2]), cols = std::atoll(argv[3]);
  const int bps = std::atoi(argv[5]), hint = std::atoi(argv[7]);
  const double slack = std::atof(argv[6]);
  const int reps = argc > 8 ? std::atoi(argv[8]) : 30;
  return f32 ? run_shape<float>(argv[4], hint, rows, cols, bps, slack, reps)
             : run_shape<__nv_bfloat16>(argv[4], hint, rows, cols, bps, slack, reps);
}
