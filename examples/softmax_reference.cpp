#include "softmax_reference.h"

#include <cmath>
#include <limits>

namespace tilejit::examples {

std::vector<double> softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                      std::int64_t stride) {
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = in.data() + r * stride;
    double* y = out.data() + r * cols;
    double m = -std::numeric_limits<double>::infinity();
    for (std::int64_t c = 0; c < cols; ++c)
      if (!std::isnan(m) && (std::isnan(x[c]) || x[c] > m)) m = x[c];  // NaN propagates, like torch
    double s = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += y[c] = std::exp(static_cast<double>(x[c]) - m);
    for (std::int64_t c = 0; c < cols; ++c) y[c] /= s;
  }
  return out;
}

Comparison compare_rows(const std::vector<float>& out, const std::vector<double>& ref, std::int64_t rows,
                        std::int64_t cols, std::int64_t stride) {
  Comparison c;
  for (std::int64_t r = 0; r < rows; ++r) {
    double diff = 0, norm = 0;
    for (std::int64_t k = 0; k < cols; ++k) {
      double o = out[static_cast<std::size_t>(r * stride + k)], e = ref[static_cast<std::size_t>(r * cols + k)];
      if (std::isnan(o) != std::isnan(e)) {
        ++c.nan_mismatches;
        continue;
      }
      if (std::isnan(e)) continue;
      diff += (o - e) * (o - e);
      norm += e * e;
    }
    double rel = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
    if (rel > c.max_rel_error || std::isnan(rel)) {
      c.max_rel_error = std::isnan(rel) ? std::numeric_limits<double>::infinity() : rel;
      c.worst_row = r;
    }
  }
  return c;
}

}  // namespace tilejit::examples
