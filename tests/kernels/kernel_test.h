// The numeric kernel tests are one body run on either backend: each test binary defines which
// (cpu_main.cpp / gpu_main.cpp) and the body allocates, launches and synchronizes through these
// helpers, so nothing in it names a backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tilejit/tilejit.h"

namespace tilejit::testing {

/// The backend this test binary runs kernels on.
Backend backend();

/// Memory the backend's kernels read and write.
inline Memory memory() { return memory_of(backend()); }
inline Buffer buffer(DType t, std::size_t n) { return Buffer(t, n, memory()); }

/// Launch options for this backend (num_warps and num_stages only matter on the GPU).
inline LaunchOptions options(int num_warps = 4, int num_stages = 1) {
  LaunchOptions o;
  o.num_warps = num_warps;
  o.num_stages = num_stages;
  o.backend = backend();
  return o;
}
inline CompileOptions compile_options(int num_warps = 4, int num_stages = 1) {
  CompileOptions o;
  o.num_warps = num_warps;
  o.num_stages = num_stages;
  o.backend = backend();
  return o;
}

/// Waits for the backend's work (CPU launches are already synchronous).
inline void finish() {
  if (backend() == Backend::cuda) synchronize();
}

inline std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// Fresh random rows, with special rows mixed in: near 1000, -inf entries, large magnitudes, all -inf.
std::vector<float> softmax_input(std::int64_t rows, std::int64_t cols, unsigned seed);

/// A buffer's f32, f16 or bf16 elements as floats, and floats stored in a buffer's type.
std::vector<float> download_floats(const Buffer& b);
void upload_floats(Buffer& b, const std::vector<float>& v);

/// Checks an f32 output of `rows` dense rows of `cols` against a float64 reference: NaN exactly
/// where the reference has it, and each row's relative error at most 1e-5.
void check_f32_rows(const Buffer& out, const std::vector<double>& ref, std::int64_t rows, std::int64_t cols);

}  // namespace tilejit::testing
