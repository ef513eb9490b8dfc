// Probe, not part of the library: can the few wide rows reach the copy ceiling if each program
// holds a whole 128 KiB slice of a row in registers while the next row's slice lands in shared
// memory?
//
// The library's walked groups (and the streamed ring, bench/probes/streamed_ring.cu) run one row
// after another in each group and pay a fixed chain a row: the block reductions, the exchange of
// the row's statistics through global memory (2.2-2.6 us measured), the barriers. With thin slices
// (8-64 KiB a program) that chain is longer than the row's bytes take. Here a program is one SM's
// worth of threads (1024) holding CPT 16-byte chunks each in registers (128 KiB at CPT 8), so a row
// of a group moves 256 KiB an SM and takes about 8 us at copy speed, and the chain can hide under
// the bytes: while row i waits for its exchange and is written from registers, row i+1's slice is
// already in flight into shared memory (cp.async, no registers held). Each thread copies, moves and
// writes only its own chunks, so the data path needs no block barrier.
//
// Orders (the last argument but one):
//   0 post-then-wait: row i's statistics are posted, then its exchange is awaited while row i+1's
//     reads are in flight; then row i is written, row i+1 moved to registers, row i+2's reads issued.
//   1 interleaved: as 0, but the write of row i, the move of row i+1 and the reads of row i+2 go
//     chunk by chunk, so reads and writes reach DRAM together as in a copy.
//   2 one row ahead: row i+1's statistics are computed from shared memory and posted before row i's
//     exchange is awaited, so each exchange has a whole row's time to complete.
//   3 interleaved, chunk-deep: as 1, but every chunk's copy is its own commit group and each chunk
//     waits only for its own (cp.async.wait_group CPT - 1), so loads stay in flight continuously
//     instead of one slice at a time.
//   4 one row ahead, interleaved: 2's posting (row i+1's statistics from shared memory before row
//     i's wait) with 1's chunk-by-chunk write, move and reads.
//   5 alternating, refilled in place: even rows live in registers, odd rows in shared memory, and
//     no slice moves between them. While row i is written from its buffer, each chunk written is
//     refilled at once with row i+2's (a load into the register, or cp.async into the shared
//     slot), so reads and writes stream together as in a copy and nothing waits for the reads
//     just issued. Half way through, row i+1's statistics are taken from the other buffer (its
//     reads were issued a row earlier) and posted, so its exchange has the rest of the row to
//     complete. Orders 0-4 instead wait for row i+1 to land (and be moved) before row i+1 can
//     be written, a pause each row with no writes in flight.
//   6 alternating, op by op: as 5, but all of row i's writes, then all of row i+2's reads, then
//     row i+1's statistics, the order a generator emitting one block operation after another
//     would give.
// Modes (the last argument): 0 exchange through global memory; timing only (wrong output by
// design): 1 no exchange (each program normalizes by its own statistics), 2 no exchange and no
// arithmetic (the slices copied through the same pipeline: its memory path alone).
//
// Build and run (GPU machine): nvcc -O3 -std=c++17 -arch=sm_90 -o slices bench/probes/register_slices.cu
//   ./slices <f32|bf16> <rows> <cols> <groups> <threads>x<chunks a thread> <order> <mode> [reps]
// A group's size is cols / (columns a program holds); groups x size programs must be resident.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "probe_common.cuh"

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kMaxGroup = 256;  // programs a group (the exchange reads kMaxGroup / 32 partials a lane)

struct Params {
  const uint4* in;  // rows x cols elements, as 16-byte chunks
  uint4* out;
  std::int64_t rows, row_chunks;  // 16-byte chunks a row
  int groups, group_size, mode;
  std::int64_t rows_per_group;
  float2* partials;    // [groups][rows_per_group][group_size]
  unsigned* arrivals;  // [groups][rows_per_group], counting up across launches
  unsigned launch;     // launches before this one
};

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ void copy_async(uint4* dst, const uint4* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void wait_copies() { asm volatile("cp.async.wait_all;" ::: "memory"); }
template <int kNewer>  // all but the kNewer latest commit groups have landed
__device__ __forceinline__ void wait_copies_but() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kNewer) : "memory");
}
__device__ __forceinline__ float warp_max(float v) {
  for (int d = 16; d > 0; d >>= 1) v = fmaxf(v, __shfl_xor_sync(~0u, v, d));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(~0u, v, d);
  return v;
}
// exp2 of (x - m) log2 e, 0 where m is -inf (an empty or all -inf part).
__device__ __forceinline__ float scaled(float s, float m, float big_m) {
  return m == -INFINITY ? 0.f : s * ex2((m - big_m) * kLog2e);
}

// Per-thread (max, sum) of its CPT chunks, then the block's, in every thread (two barriers). The
// chunks come from chunk(j), read twice (once for the max, once for the sum) rather than unpacked
// into registers all at once, so only the packed slice stays live.
template <typename T, int CPT, int kThreads, typename ChunkAt>
__device__ float2 block_stats(ChunkAt&& chunk, float* smax, float* ssum) {
  constexpr int V = Chunk<T>::n;
  float m = -INFINITY;
#pragma unroll
  for (int j = 0; j < CPT; ++j) {
    float f[V];
    Chunk<T>::unpack(chunk(j), f);
#pragma unroll
    for (int q = 0; q < V; ++q) m = fmaxf(m, f[q]);
  }
  const float shift = m == -INFINITY ? 0.f : m * kLog2e;
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < CPT; ++j) {
    float f[V];
    Chunk<T>::unpack(chunk(j), f);
#pragma unroll
    for (int q = 0; q < V; ++q) s += ex2(fmaf(f[q], kLog2e, -shift));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float wm = warp_max(m);
  if (lane == 0) smax[warp] = wm;
  __syncthreads();
  constexpr int warps = kThreads / 32;
  const float bm = warp_max(lane < warps ? smax[lane] : -INFINITY);
  const float ws = warp_sum(scaled(s, m, bm));
  if (lane == 0) ssum[warp] = ws;
  __syncthreads();
  return make_float2(bm, warp_sum(lane < warps ? ssum[lane] : 0.f));
}

template <typename T, int kThreads, int CPT, int kPerSm, int order, bool kInterleaved>
__global__ void __launch_bounds__(kThreads, kPerSm) slices_softmax(Params p) {
  extern __shared__ uint4 next[];  // row i+1's slice, each thread's own chunks
  __shared__ float smax[32], ssum[32];
  __shared__ float2 result;
  const int g = blockIdx.x / p.group_size, k = blockIdx.x % p.group_size;
  constexpr std::int64_t kSlice = static_cast<std::int64_t>(CPT) * kThreads;  // chunks a program holds
  // A program's chunk j of a row: contiguous slices give program k the chunks k * kSlice + j *
  // kThreads + t; interleaved blocks give it (j * group_size + k) * kThreads + t, so at each j the
  // group reads one contiguous span of the row, as a grid-stride copy does.
  const std::int64_t first = kInterleaved ? k * kThreads : k * kSlice;
  const std::int64_t stride = kInterleaved ? static_cast<std::int64_t>(p.group_size) * kThreads : kThreads;
  const std::int64_t my_rows = g < p.rows ? (p.rows - g + p.groups - 1) / p.groups : 0;
  const int t = threadIdx.x;
  // This thread's chunks are first + t + j * stride: one base a row, offsets a multiple of stride.
  const std::int64_t mine = p.row_chunks - first - t;  // chunk j exists where j * stride < mine
  auto valid = [&](int j) { return j * stride < mine; };
  auto src = [&](std::int64_t i) { return p.in + (g + i * p.groups) * p.row_chunks + first + t; };
  auto dst = [&](std::int64_t i) { return p.out + (g + i * p.groups) * p.row_chunks + first + t; };
  const uint4 empty =
      make_uint4(Chunk<T>::neg_inf_word, Chunk<T>::neg_inf_word, Chunk<T>::neg_inf_word, Chunk<T>::neg_inf_word);
  float2* partials = p.partials + static_cast<std::int64_t>(g) * p.rows_per_group * p.group_size;
  unsigned* arrivals = p.arrivals + static_cast<std::int64_t>(g) * p.rows_per_group;
  const unsigned target = (p.launch + 1) * static_cast<unsigned>(p.group_size);

  auto issue = [&](std::int64_t i) {  // row i's slice into shared memory
    if (i < my_rows) {
      const uint4* from = src(i);
#pragma unroll
      for (int j = 0; j < CPT; ++j)
        if (valid(j)) copy_async(&next[t + j * kThreads], from + j * stride);
    }
    commit();
  };
  auto post = [&](std::int64_t i, float2 st) {
    if (t == 0 && p.mode == 0) {
      partials[i * p.group_size + k] = st;
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&arrivals[i]) : "memory");
    }
  };
  float2 own = make_float2(-INFINITY, 0.f);  // mode 1: this program's statistics of the row in registers
  auto exchange = [&](std::int64_t i) {      // the group's (max, 1/sum) of row i, in every thread
    if (p.mode == 0 && t < 32) {
      if (t == 0)
        while (static_cast<int>(load_acquire(&arrivals[i]) - target) < 0) {
        }
      __syncwarp();
      float m = -INFINITY, s = 0.f;
      float2 mine[kMaxGroup / 32];
#pragma unroll
      for (int a = 0; a < kMaxGroup / 32; ++a) {
        const int q = t + 32 * a;
        mine[a] = q < p.group_size ? __ldcg(&partials[i * p.group_size + q]) : make_float2(-INFINITY, 0.f);
        m = fmaxf(m, mine[a].x);
      }
      m = warp_max(m);
#pragma unroll
      for (int a = 0; a < kMaxGroup / 32; ++a) s += scaled(mine[a].y, mine[a].x, m);
      s = warp_sum(s);
      if (t == 0) result = make_float2(m, 1.f / s);
    } else if (p.mode >= 1 && t == 0) {
      result = make_float2(own.x, 1.f / own.y);
    }
    __syncthreads();
    return result;
  };
  auto normalize = [&](uint4 c, float2 r) {
    if (p.mode == 2) return c;
    float f[Chunk<T>::n];
    Chunk<T>::unpack(c, f);
    const float shift = r.x * kLog2e;
#pragma unroll
    for (int q = 0; q < Chunk<T>::n; ++q) f[q] = ex2(fmaf(f[q], kLog2e, -shift)) * r.y;
    return Chunk<T>::pack(f);
  };

  uint4 held[CPT] = {};  // row i's slice
  auto from_registers = [&](int j) { return held[j]; };
  auto from_shared = [&](int j) { return valid(j) ? next[t + j * kThreads] : empty; };
  auto stats = [&](auto&& chunk) {
    return p.mode == 2 ? make_float2(0.f, 1.f) : block_stats<T, CPT, kThreads>(chunk, smax, ssum);
  };
  if (my_rows == 0) return;
  if constexpr (order >= 5) {
    constexpr bool interleaved = order == 5;
    // Row i's period: its buffer (registers for even rows) written out and refilled with row i+2,
    // row i+1's statistics posted from the other buffer. Returns whether a row follows.
    auto period = [&](auto in_registers_type, std::int64_t i) {
      constexpr bool in_registers = decltype(in_registers_type)::value;
      if (i >= my_rows) return false;
      const bool more = i + 1 < my_rows, refill = i + 2 < my_rows;
      const float2 r = exchange(i);
      uint4* to = dst(i);
      const uint4* from = src(refill ? i + 2 : i);
      float2 ahead = own;
      auto post_ahead = [&] {
        if (!more) return;
        if constexpr (in_registers) {  // row i+1 is in shared memory, its copies the only ones in flight
          wait_copies();
          ahead = stats(from_shared);
        } else {  // row i+1 is in registers: reading them waits for its loads
          ahead = stats(from_registers);
        }
        post(i + 1, ahead);
      };
      auto write = [&](int j) {
        if (!valid(j)) return;
        if constexpr (in_registers) to[j * stride] = normalize(held[j], r);
        else to[j * stride] = normalize(next[t + j * kThreads], r);
      };
      auto read = [&](int j) {  // row i+2's chunk j into the slot just written
        if (!refill) return;
        if constexpr (in_registers) held[j] = valid(j) ? __ldcg(from + j * stride) : empty;
        else if (valid(j)) copy_async(&next[t + j * kThreads], from + j * stride);
      };
      if (interleaved) {
#pragma unroll
        for (int j = 0; j < CPT; ++j) {
          if (j == CPT / 2) post_ahead();
          write(j);
          read(j);
        }
      } else {
#pragma unroll
        for (int j = 0; j < CPT; ++j) write(j);
#pragma unroll
        for (int j = 0; j < CPT; ++j) read(j);
        post_ahead();
      }
      if constexpr (!in_registers) commit();
      own = ahead;
      return more;
    };
    const uint4* first_row = src(0);
#pragma unroll
    for (int j = 0; j < CPT; ++j) held[j] = valid(j) ? __ldcg(first_row + j * stride) : empty;
    issue(1);
    own = stats(from_registers);
    post(0, own);
    for (std::int64_t i = 0;; i += 2)
      if (!period(std::true_type{}, i) || !period(std::false_type{}, i + 1)) return;
  }
  issue(0);
  wait_copies();
#pragma unroll
  for (int j = 0; j < CPT; ++j) held[j] = from_shared(j);
  if (order == 3) {  // one commit group a chunk, as the loop below keeps them
#pragma unroll
    for (int j = 0; j < CPT; ++j) {
      if (my_rows > 1 && valid(j)) copy_async(&next[t + j * kThreads], src(1) + j * stride);
      commit();
    }
  } else {
    issue(1);
  }
  own = stats(from_registers);
  post(0, own);
  for (std::int64_t i = 0; i < my_rows; ++i) {
    const bool more = i + 1 < my_rows;
    float2 ahead = own;
    if ((order == 2 || order == 4) && more) {  // row i+1's statistics from shared memory, posted before row i's wait
      wait_copies();
      ahead = stats(from_shared);
      post(i + 1, ahead);
    }
    const float2 r = exchange(i);
    uint4* to = dst(i);
    if (order == 1 || order == 3 || order == 4) {  // chunk by chunk: write row i, move i+1, read i+2
      // Chunk-deep (order 3): one commit group a chunk. Before chunk j of row i+1 is moved, the
      // groups after it are row i+1's chunks j+1.. and row i+2's chunks ..j-1: always CPT - 1.
      constexpr bool deep = order == 3;
      if (!deep && more) wait_copies();
      const bool refill = i + 2 < my_rows;
      const uint4* from = src(refill ? i + 2 : i);
#pragma unroll
      for (int j = 0; j < CPT; ++j) {
        if (valid(j)) to[j * stride] = normalize(held[j], r);
        if (more) {
          if (deep) wait_copies_but<CPT - 1>();
          held[j] = from_shared(j);
          if (refill && valid(j)) copy_async(&next[t + j * kThreads], from + j * stride);
          if (deep) commit();
        }
      }
      if (!deep) commit();
    } else {
#pragma unroll
      for (int j = 0; j < CPT; ++j)
        if (valid(j)) to[j * stride] = normalize(held[j], r);
      if (more) {
        wait_copies();
#pragma unroll
        for (int j = 0; j < CPT; ++j) held[j] = from_shared(j);
        issue(i + 2);
      }
    }
    if (!more) break;
    if (order == 2 || order == 4) {
      own = ahead;
    } else {
      own = stats(from_registers);
      post(i + 1, own);
    }
  }
}

template <typename T, int kThreads, int CPT, int kPerSm, int order, bool kInterleaved = false>
int run_order(int argc, char** argv) {
  const std::int64_t rows = std::atoll(argv[2]), cols = std::atoll(argv[3]);
  const int groups = std::atoi(argv[4]), mode = std::atoi(argv[7]);
  const int reps = argc > 8 ? std::atoi(argv[8]) : 30;
  constexpr std::int64_t per_chunk = 16 / sizeof(T);
  constexpr std::int64_t slice_cols = per_chunk * CPT * kThreads;
  const char* bad = rows < 1 || cols < 1                               ? "rows and cols must be positive"
                    : cols % per_chunk != 0                            ? "cols must be a multiple of 16 bytes"
                    : mode < 0 || mode > 2                             ? "mode must be 0, 1 or 2"
                    : groups < 1                                       ? "groups must be positive"
                    : (cols + slice_cols - 1) / slice_cols > kMaxGroup ? "a group would need more than 256 programs"
                                                                       : nullptr;
  if (bad) {
    std::fprintf(stderr, "bad configuration: %s\n", bad);
    return 2;
  }
  Params p{};
  p.rows = rows, p.row_chunks = cols / per_chunk, p.groups = groups, p.mode = mode;
  p.group_size = static_cast<int>((cols + slice_cols - 1) / slice_cols);
  p.rows_per_group = (rows + groups - 1) / groups;
  const int grid = groups * p.group_size;
  const std::size_t smem = sizeof(uint4) * CPT * kThreads;
  CHECK(cudaFuncSetAttribute(slices_softmax<T, kThreads, CPT, kPerSm, order, kInterleaved>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, slices_softmax<T, kThreads, CPT, kPerSm, order, kInterleaved>, kThreads, smem));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, slices_softmax<T, kThreads, CPT, kPerSm, order, kInterleaved>));
  std::printf(
      "%s %lld x %lld: %d groups of %d programs x %lld columns (%d threads x %d chunks, %.0f KiB, %s), order %d, "
      "mode %d; %d registers, %zu local bytes, %d an SM resident\n",
      argv[1], static_cast<long long>(rows), static_cast<long long>(cols), groups, p.group_size,
      static_cast<long long>(slice_cols), kThreads, CPT, smem / 1024.0, kInterleaved ? "interleaved" : "contiguous",
      order, mode, attr.numRegs, attr.localSizeBytes, per_sm);
  if (static_cast<std::int64_t>(per_sm) * sms < grid) {
    std::printf("  refused: %d programs do not fit at once (%d an SM x %d SMs)\n", grid, per_sm, sms);
    return 0;
  }
  ProbeData<T> data(rows, cols);
  CHECK(cudaMalloc(&p.partials, sizeof(float2) * groups * p.rows_per_group * p.group_size));
  CHECK(cudaMalloc(&p.arrivals, sizeof(unsigned) * groups * p.rows_per_group));
  CHECK(cudaMemset(p.arrivals, 0, sizeof(unsigned) * groups * p.rows_per_group));
  p.in = reinterpret_cast<const uint4*>(data.in), p.out = reinterpret_cast<uint4*>(data.out);
  auto launch = [&] {
    slices_softmax<T, kThreads, CPT, kPerSm, order, kInterleaved><<<grid, kThreads, smem>>>(p);
    ++p.launch;
  };
  report_probe(data, launch, reps);
  return 0;
}

template <typename T, int kThreads, int CPT, int kPerSm = 1>
int run(int argc, char** argv, bool interleaved) {
  if (interleaved) {  // built for the two orders that lead
    switch (std::atoi(argv[6])) {
      case 4: return run_order<T, kThreads, CPT, kPerSm, 4, true>(argc, argv);
      case 5: return run_order<T, kThreads, CPT, kPerSm, 5, true>(argc, argv);
    }
    std::fprintf(stderr, "interleaved blocks (a trailing i) are built for orders 4 and 5 only\n");
    return 2;
  }
  switch (std::atoi(argv[6])) {
    case 0: return run_order<T, kThreads, CPT, kPerSm, 0>(argc, argv);
    case 1: return run_order<T, kThreads, CPT, kPerSm, 1>(argc, argv);
    case 2: return run_order<T, kThreads, CPT, kPerSm, 2>(argc, argv);
    case 3: return run_order<T, kThreads, CPT, kPerSm, 3>(argc, argv);
    case 4: return run_order<T, kThreads, CPT, kPerSm, 4>(argc, argv);
    case 5: return run_order<T, kThreads, CPT, kPerSm, 5>(argc, argv);
    case 6: return run_order<T, kThreads, CPT, kPerSm, 6>(argc, argv);
  }
  std::fprintf(stderr, "order must be 0 to 6\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(
        stderr,
        "usage: %s <f32|bf16> <rows> <cols> <groups> <threads x chunks: 1024x8|1024x4|512x16|512x8|512x8@2|512x4@2>[i] "
        "<order 0-6> <mode 0-2> [reps]\n",
        argv[0]);
    return 2;
  }
  // Threads x chunks a thread: 1024 x 4 or 8, 512 x 8 or 16 (64 KiB or 128 KiB a program), one
  // program an SM; @2: two an SM.
  const bool f32 = std::string(argv[1]) == "f32";
  std::string shape = argv[5];
  const bool interleaved = !shape.empty() && shape.back() == 'i';  // e.g. 1024x8i: blocks dealt round the group
  if (interleaved) shape.pop_back();
  if (shape == "1024x8")
    return f32 ? run<float, 1024, 8>(argc, argv, interleaved) : run<__nv_bfloat16, 1024, 8>(argc, argv, interleaved);
  if (shape == "1024x4")
    return f32 ? run<float, 1024, 4>(argc, argv, interleaved) : run<__nv_bfloat16, 1024, 4>(argc, argv, interleaved);
  if (shape == "512x16")
    return f32 ? run<float, 512, 16>(argc, argv, interleaved) : run<__nv_bfloat16, 512, 16>(argc, argv, interleaved);
  if (shape == "512x8")
    return f32 ? run<float, 512, 8>(argc, argv, interleaved) : run<__nv_bfloat16, 512, 8>(argc, argv, interleaved);
  // Two programs an SM (registers capped at 64 a thread), so one's loads can run while the other waits.
  if (shape == "512x8@2")
    return f32 ? run<float, 512, 8, 2>(argc, argv, interleaved)
               : run<__nv_bfloat16, 512, 8, 2>(argc, argv, interleaved);
  if (shape == "512x4@2")
    return f32 ? run<float, 512, 4, 2>(argc, argv, interleaved)
               : run<__nv_bfloat16, 512, 4, 2>(argc, argv, interleaved);
  std::fprintf(stderr, "threads x chunks must be 1024x8, 1024x4, 512x16, 512x8, 512x8@2 or 512x4@2\n");
  return 2;
}
