// What the hand-written softmax probes share: a checked CUDA call, random input on the device, a
// float64 check of three rows, and the timing of a launch against a device-to-device copy of the
// same bytes (CUDA events, each run after overwriting a 256 MiB buffer so L2 holds none of it).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// A 16-byte chunk of T as floats, and back.
template <typename T>
struct Chunk;
template <>
struct Chunk<float> {
  static constexpr int n = 4;
  static constexpr unsigned neg_inf_word = 0xff800000u;
  static __device__ void unpack(uint4 u, float* f) {
    f[0] = __uint_as_float(u.x), f[1] = __uint_as_float(u.y), f[2] = __uint_as_float(u.z), f[3] = __uint_as_float(u.w);
  }
  static __device__ uint4 pack(const float* f) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};
template <>
struct Chunk<__nv_bfloat16> {
  static constexpr int n = 8;
  static constexpr unsigned neg_inf_word = 0xff80ff80u;
  static __device__ void unpack(uint4 u, float* f) {
    // Opaque to the compiler, so a slice unpacked twice (max, then sum) is not kept unpacked
    // between the two: that would double the registers a bf16 slice takes.
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
    for (int i = 0; i < 4; ++i) {
      unsigned lo, hi;
      asm volatile("shl.b32 %0, %1, 16;" : "=r"(lo) : "r"(w[i]));
      asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(hi) : "r"(w[i]));
      f[2 * i] = __uint_as_float(lo), f[2 * i + 1] = __uint_as_float(hi);
    }
  }
  static __device__ uint4 pack(const float* f) {
    unsigned w[4];
    for (int i = 0; i < 4; ++i)  // the upper half takes the odd element
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w[i]) : "f"(f[2 * i + 1]), "f"(f[2 * i]));
    return make_uint4(w[0], w[1], w[2], w[3]);
  }
};

// A global-memory word read with acquire semantics (the probes' exchanges poll their counters so).
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Normal(0, 3) values from a hash of the index, so every run sees the same input.
__global__ void probe_fill_input(float* f32, __nv_bfloat16* b16, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 27;
    float u1 = ((h >> 40) + 1) * (1.f / 16777217.f), u2 = ((h >> 16) & 0xffffff) * (1.f / 16777216.f);
    float x = 3.f * sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
    if (f32) f32[i] = x;
    if (b16) b16[i] = __float2bfloat16_rn(x);
  }
}

inline float probe_to_float(float v) { return v; }
inline float probe_to_float(__nv_bfloat16 v) {
  unsigned short b;
  std::memcpy(&b, &v, 2);
  unsigned u = static_cast<unsigned>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The largest relative error of the first, middle and last rows against float64 softmax.
template <typename T>
double probe_check_rows(const T* d_in, const T* d_out, std::int64_t rows, std::int64_t cols) {
  double worst = 0;
  std::vector<T> x(cols), y(cols);
  for (std::int64_t r : {std::int64_t{0}, rows / 2, rows - 1}) {
    CHECK(cudaMemcpy(x.data(), d_in + r * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y.data(), d_out + r * cols, cols * sizeof(T), cudaMemcpyDeviceToHost));
    double m = -INFINITY, s = 0;
    for (auto v : x) m = std::max(m, static_cast<double>(probe_to_float(v)));
    for (auto v : x) s += std::exp(probe_to_float(v) - m);
    for (std::int64_t c = 0; c < cols; ++c) {
      double ref = std::exp(probe_to_float(x[c]) - m) / s;
      worst = std::max(worst, std::fabs(probe_to_float(y[c]) - ref) / ref);
    }
  }
  return worst;
}

// Input (filled) and output of rows x cols elements on the device, and the buffer that flushes L2.
template <typename T>
struct ProbeData {
  std::int64_t rows, cols;
  T *in = nullptr, *out = nullptr;
  void* flush = nullptr;
  static constexpr std::size_t flush_bytes = std::size_t{256} << 20;
  ProbeData(std::int64_t r, std::int64_t c) : rows(r), cols(c) {
    CHECK(cudaMalloc(&in, bytes()));
    CHECK(cudaMalloc(&out, bytes()));
    CHECK(cudaMalloc(&flush, flush_bytes));
    constexpr bool is_f32 = sizeof(T) == 4;
    probe_fill_input<<<1024, 256>>>(is_f32 ? reinterpret_cast<float*>(in) : nullptr,
                                    is_f32 ? nullptr : reinterpret_cast<__nv_bfloat16*>(in), rows * cols);
    CHECK(cudaGetLastError());
  }
  std::size_t bytes() const { return static_cast<std::size_t>(rows * cols) * sizeof(T); }
};

// Median over reps of body()'s time in microseconds, each run after an L2 flush.
template <typename T, typename Body>
float probe_median_us(ProbeData<T>& d, int reps, Body&& body) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaMemsetAsync(d.flush, r & 0xff, d.flush_bytes));
    CHECK(cudaEventRecord(a));
    body();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.f);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Checks the first launch, times launches against the copy (before and after; the faster copy
// counts), then clears the output to NaN, launches once more and checks again, so an error that
// only a repeated launch makes (a counter, a workspace) shows. Prints one line.
template <typename T, typename Launch>
void report_probe(ProbeData<T>& d, Launch&& launch, int reps) {
  launch();
  CHECK(cudaDeviceSynchronize());
  const double err_first = probe_check_rows(d.in, d.out, d.rows, d.cols);
  auto copy = [&] { CHECK(cudaMemcpyAsync(d.out, d.in, d.bytes(), cudaMemcpyDeviceToDevice)); };
  const float copy_us = probe_median_us(d, reps, copy);
  const float kernel_us = probe_median_us(d, reps, launch);
  const float copy2_us = probe_median_us(d, reps, copy);
  CHECK(cudaMemset(d.out, 0xff, d.bytes()));
  launch();
  CHECK(cudaDeviceSynchronize());
  const double err_last = probe_check_rows(d.in, d.out, d.rows, d.cols);
  const double gbytes = 2.0 * d.bytes() / 1e9;
  const float best_copy = std::min(copy_us, copy2_us);
  std::printf("  kernel %.1f us (%.0f GB/s), copy %.1f / %.1f us: %.3f of copy; max relative error %.2e / %.2e\n",
              kernel_us, gbytes / kernel_us * 1e6, copy_us, copy2_us, best_copy / kernel_us, err_first, err_last);
}
