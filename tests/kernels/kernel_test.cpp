#include "kernel_test.h"

#include <doctest/doctest.h>

#include <limits>

#include "half_bits.h"
#include "softmax_reference.h"

namespace tilejit::testing {

std::vector<float> softmax_input(std::int64_t rows, std::int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (auto& v : x) v = normal(rng);
  // row 0: values near 1000, whose maximum times log2(e) rounds at 2^-13 in f32: an exponent
  // against a maximum rounded otherwise than its sum's terms would be off by about 4e-5.
  for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(c)] += 1000.f;
  const float inf = std::numeric_limits<float>::infinity();
  auto at = [&](std::int64_t r, std::int64_t c) -> float& { return x[static_cast<std::size_t>(r * cols + c)]; };
  if (rows > 1)
    for (std::int64_t c = 0; c < cols; c += 3) at(1, c) = -inf;  // row 1: some -inf
  if (rows > 2)
    for (std::int64_t c = 0; c < cols; ++c) at(2, c) *= 1e4f;  // row 2: large
  if (rows > 3 && cols > 1)
    for (std::int64_t c = 0; c < cols; ++c) at(3, c) = -inf;  // row 3: all -inf
  return x;
}

std::vector<float> download_floats(const Buffer& b) {
  if (b.dtype() == DType::f32) return b.download<float>();
  return examples::from_half_bits(b.dtype(), b.download<std::uint16_t>());
}

void upload_floats(Buffer& b, const std::vector<float>& v) {
  if (b.dtype() == DType::f32) return b.upload(v);
  b.upload(examples::to_half_bits(b.dtype(), v));
}

void check_f32_rows(const Buffer& out, const std::vector<double>& ref, std::int64_t rows, std::int64_t cols) {
  auto cmp = examples::compare_rows(out.download<float>(), ref, rows, cols, cols);
  CAPTURE(cmp.worst_row);
  CHECK(cmp.nan_mismatches == 0);
  CHECK(cmp.max_rel_error <= 1e-5);
}

}  // namespace tilejit::testing
