// The layer-normalization example on either backend, against float64 over rows whose widths are
// and are not the block's, for f32 and 16-bit inputs and outputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "example_kernels.h"
#include "kernel_test.h"
#include "kernels/layernorm.h"

using namespace tilejit;
using namespace tilejit::testing;

TEST_CASE("layernorm example: rows of 1 to 4096 columns, f32, f16 and bf16, against float64") {
  const float eps = 1e-5f;
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (std::int64_t cols : {1, 3, 100, 1000, 1024, 4096}) {
      CAPTURE(dtype_name(t));
      CAPTURE(cols);
      const std::int64_t rows = 5, stride = cols + 3, block = examples::next_power_of_two(cols);
      // Rows of different offsets and spreads, so the mean is not small beside the spread.
      std::vector<float> x = random_floats(static_cast<std::size_t>(rows * stride), -2.f, 2.f, 17);
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < stride; ++c) x[static_cast<std::size_t>(r * stride + c)] += 10.f * r;
      const std::vector<float> w = random_floats(static_cast<std::size_t>(cols), 0.5f, 1.5f, 18);
      const std::vector<float> b = random_floats(static_cast<std::size_t>(cols), -1.f, 1.f, 19);
      Buffer bx = buffer(t, x.size()), bw = buffer(t, w.size()), bb = buffer(t, b.size());
      Buffer bo = buffer(t, static_cast<std::size_t>(rows * stride));
      upload_floats(bx, x);
      upload_floats(bw, w);
      upload_floats(bb, b);
      bo.fill_bytes(0);
      examples::layernorm().launch(Grid(rows), {bo, bx, bw, bb, stride, stride, cols, eps, block}, options(4));
      finish();
      // The reference reads the values as stored (rounded to t).
      const std::vector<float> xs = download_floats(bx), ws = download_floats(bw), bs = download_floats(bb);
      const std::vector<float> out = download_floats(bo);
      const double tolerance = t == DType::f32 ? 1e-5 : t == DType::f16 ? 2e-3 : 1.6e-2;
      double worst = 0;
      for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0, variance = 0;
        for (std::int64_t c = 0; c < cols; ++c) mean += xs[static_cast<std::size_t>(r * stride + c)];
        mean /= static_cast<double>(cols);
        for (std::int64_t c = 0; c < cols; ++c) {
          const double d = xs[static_cast<std::size_t>(r * stride + c)] - mean;
          variance += d * d;
        }
        variance /= static_cast<double>(cols);
        for (std::int64_t c = 0; c < cols; ++c) {
          const auto i = static_cast<std::size_t>(c);
          const double want =
              (xs[static_cast<std::size_t>(r * stride + c)] - mean) / std::sqrt(variance + eps) * ws[i] + bs[i];
          // Relative to the output's scale (|weight| + |bias| <= 2.5): outputs near zero are differences.
          worst =
              std::max(worst, std::fabs(out[static_cast<std::size_t>(r * stride + c)] - want) / (1 + std::fabs(want)));
        }
      }
      CHECK(worst <= tolerance);
    }
}
