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
#include "probe_common.cuh"

#include <string>

struct Stream {
  unsigned* ticket;     // the next ticket; the last program out resets it for the next launch
  unsigned* exited;     // programs done this launch
  unsigned* row_count;  // per row: first passes done, never reset
  unsigned long long* stats_max;  // per row: the maximum, tagged with the posting launch's epoch + 1
  unsigned long long* stats_inv;  // per row: 1 / sum, tagged likewise
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

// The second pass's stores: streaming (evicted first) where HINT asks for hints.
template <int HINT>
struct Access {
  static __device__ __forceinline__ void store(uint4* p, uint4 v) {
    if constexpr (HINT != 0) {
      asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                   : "memory");
    } else {
      asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                   : "memory");
    }
  }
};

// (m, s) pairs combined: the sums rescaled to the larger maximum.
__device__ __forceinline__ float2 combine2(float2 a, float2 b) {
  const float m = fmaxf(a.x, b.x);
  if (m == -INFINITY) return make_float2(m, 0.f);
  return make_float2(m, a.y * accurate_exp(a.x - m) + b.y * accurate_exp(b.x - m));
}

__device__ __forceinline__ float2 warp_combine(float2 v) {
  for (int o = 16; o > 0; o >>= 1) {
    float2 w = make_float2(__shfl_xor_sync(~0u, v.x, o), __shfl_xor_sync(~0u, v.y, o));
    v = combine2(v, w);
  }
  return v;
}

// cp.async of one 16-byte chunk into shared memory, with an L2 policy for the first (evict_last)
// or second (evict_first) read where HINT asks for one.
template <int HINT, bool kFirst>
__device__ __forceinline__ void copy_chunk(uint4* dst, const uint4* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (HINT == 1 && kFirst) {
    asm volatile(
        "{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0;\n"
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, pol; }" ::"r"(s),
        "l"(src)
        : "memory");
  } else if constexpr (HINT != 0 && !kFirst) {
    asm volatile(
        "{ .reg .b64 pol; createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n"
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, pol; }" ::"r"(s),
        "l"(src)
        : "memory");
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src) : "memory");
  }
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// A row's statistic and the launch it belongs to in one 64-bit word, so a reader needs no flag:
// a word tagged with this launch's epoch + 1 is valid.
__device__ __forceinline__ unsigned long long tagged(float v, unsigned tag) {
  return (static_cast<unsigned long long>(tag) << 32) | __float_as_uint(v);
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned add_acq_rel(unsigned* p, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

// Each ticket's loads are in flight through the ticket before it: item k + 1's first read (DRAM)
// and item k + 1 - lag's second read (L2) land in shared memory by cp.async while item k is
// reduced and item k - lag written. A thread copies, reads and overwrites only its own chunks, so
// no barrier guards the buffers. One barrier a ticket shares the block's (max, sum) and the next
// ticket; the row count's atomic is read one ticket later, and a row's statistics travel tagged,
// so nothing waits on a round trip to L2 but the loads themselves.
template <typename T, int THREADS, int CPT, int HINT>
__global__ void __launch_bounds__(THREADS) ticket_stream(const uint4* in, uint4* out, Stream s, unsigned n_items,
                                                          unsigned items_per_row, unsigned lag, unsigned epoch) {
  using C = Chunk<T>;
  constexpr int kWarps = THREADS / 32;
  constexpr int kItemChunks = THREADS * CPT;
  extern __shared__ uint4 buffers[];  // first reads, two tickets; second reads, one
  auto first_buf = [&](int i) { return buffers + i * kItemChunks; };
  uint4* const second_buf = buffers + 2 * kItemChunks;
  __shared__ float2 red[2][kWarps], red_row[kWarps];
  __shared__ unsigned next_ticket[2], combine_row[2];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned total = n_items + lag, tag = epoch + 1;

  auto issue_first = [&](unsigned t, uint4* buf) {
    if (t < n_items)
#pragma unroll
      for (int c = 0; c < CPT; ++c)
        copy_chunk<HINT, true>(buf + c * THREADS + tid, in + static_cast<size_t>(t) * kItemChunks + c * THREADS + tid);
    commit_copies();
  };
  auto issue_second = [&](unsigned t) {
    if (t >= lag && t < total)
#pragma unroll
      for (int c = 0; c < CPT; ++c)
        copy_chunk<HINT, false>(second_buf + c * THREADS + tid,
                                in + static_cast<size_t>(t - lag) * kItemChunks + c * THREADS + tid);
    commit_copies();
  };
  // Combines a finished row's partials and posts its statistics (the whole block).
  auto combine = [&](unsigned row) {
    float2 v = make_float2(-INFINITY, 0.f);
    for (unsigned i = tid; i < items_per_row; i += THREADS) v = combine2(v, __ldcg(&s.partial[row * items_per_row + i]));
    v = warp_combine(v);
    if (lane == 0) red_row[warp] = v;
    __syncthreads();
    if (tid == 0) {
      float2 r = red_row[0];
      for (int w = 1; w < kWarps; ++w) r = combine2(r, red_row[w]);
      store_relaxed(&s.stats_max[row], tagged(r.x, tag));
      store_relaxed(&s.stats_inv[row], tagged(1.f / r.y, tag));
    }
  };

  if (tid == 0) next_ticket[0] = atomicAdd(s.ticket, 1u), next_ticket[1] = atomicAdd(s.ticket, 1u);
  __syncthreads();
  unsigned k = next_ticket[0], k1 = next_ticket[1];
  issue_first(k, first_buf(0));
  issue_second(k);
  unsigned long long st_max = 0, st_inv = 0;
  if (k >= lag && k < total) {
    st_max = load_relaxed(&s.stats_max[(k - lag) / items_per_row]);
    st_inv = load_relaxed(&s.stats_inv[(k - lag) / items_per_row]);
  }
  unsigned pending_row = ~0u;  // lane 0 of warp 0: the row this program's last count completed
  int cur = 0;
  while (k < total) {
    issue_first(k1, first_buf(cur ^ 1));
    unsigned k2 = 0;
    if (tid == 0 && k1 < total) k2 = atomicAdd(s.ticket, 1u);
    wait_copies<1>();  // item k's first read and item k - lag's second read
    if (k < n_items) {
      const uint4* a = first_buf(cur);
      float m = -INFINITY, sum = 0.f;
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(a[c * THREADS + tid], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) m = fmaxf(m, f[e]);
      }
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(a[c * THREADS + tid], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) sum += accurate_exp(f[e] - m);
      }
      float2 v = warp_combine(make_float2(m, sum));
      if (lane == 0) red[cur][warp] = v;
    }
    if (tid == 0) next_ticket[cur] = k1 < total ? k2 : total, combine_row[cur] = pending_row, pending_row = ~0u;
    __syncthreads();
    if (combine_row[cur] != ~0u) combine(combine_row[cur]);
    if (k < n_items && warp == 0) {
      float2 v = lane < kWarps ? red[cur][lane] : make_float2(-INFINITY, 0.f);
      v = warp_combine(v);
      if (lane == 0) {
        const unsigned row = k / items_per_row;
        s.partial[k] = v;
        const unsigned done = add_acq_rel(&s.row_count[row], 1u) + 1;
        pending_row = done % items_per_row == 0 ? row : ~0u;
      }
    }
    if (k >= lag) {
      const unsigned j = k - lag, row = j / items_per_row;
      while (static_cast<unsigned>(st_max >> 32) != tag || static_cast<unsigned>(st_inv >> 32) != tag) {
        __nanosleep(64);
        st_max = load_relaxed(&s.stats_max[row]);
        st_inv = load_relaxed(&s.stats_inv[row]);
      }
      const float mx = __uint_as_float(static_cast<unsigned>(st_max)), inv = __uint_as_float(static_cast<unsigned>(st_inv));
#pragma unroll
      for (int c = 0; c < CPT; ++c) {
        float f[C::n];
        C::unpack(second_buf[c * THREADS + tid], f);
#pragma unroll
        for (int e = 0; e < C::n; ++e) f[e] = accurate_exp(f[e] - mx) * inv;
        Access<HINT>::store(out + static_cast<size_t>(j) * kItemChunks + c * THREADS + tid, C::pack(f));
      }
    }
    issue_second(k1);
    if (k1 >= lag && k1 < total) {
      st_max = load_relaxed(&s.stats_max[(k1 - lag) / items_per_row]);
      st_inv = load_relaxed(&s.stats_inv[(k1 - lag) / items_per_row]);
    }
    k = k1;
    k1 = next_ticket[cur];
    cur ^= 1;
  }
  wait_copies<0>();
  // A row this program completed with its last ticket.
  if (tid == 0) combine_row[0] = pending_row;
  __syncthreads();
  if (combine_row[0] != ~0u) combine(combine_row[0]);
  if (tid == 0) {
    __threadfence();
    if (atomicAdd(s.exited, 1u) == gridDim.x - 1) *s.ticket = 0, *s.exited = 0;
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
  const int smem = 3 * THREADS * CPT * 16;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, THREADS, smem));
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
  CHECK(cudaMalloc(&s.exited, sizeof(unsigned)));
  CHECK(cudaMemset(s.exited, 0, sizeof(unsigned)));
  CHECK(cudaMalloc(&s.row_count, rows * sizeof(unsigned)));
  CHECK(cudaMalloc(&s.stats_max, rows * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&s.stats_inv, rows * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&s.partial, n_items * sizeof(float2)));
  CHECK(cudaMemset(s.ticket, 0, sizeof(unsigned)));
  CHECK(cudaMemset(s.row_count, 0, rows * sizeof(unsigned)));
  CHECK(cudaMemset(s.stats_max, 0, rows * sizeof(unsigned long long)));
  CHECK(cudaMemset(s.stats_inv, 0, rows * sizeof(unsigned long long)));
  unsigned epoch = 0;
  auto launch = [&] {
    kernel<<<programs, THREADS, smem>>>(reinterpret_cast<const uint4*>(d.in), reinterpret_cast<uint4*>(d.out), s, n_items,
                                  items_per_row, lag, epoch++);
    CHECK(cudaGetLastError());
  };
  std::printf("%s %lld x %lld, %dx%d (item %d KiB), %u programs (%d an SM, %d registers), lag %u items (%.1f MiB), hint %d\n",
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
