#include "softmax_reference.h"

#include <cmath>
#include <limits>

namespace tilejit::examples {

namespace {

std::vector<double> reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols, std::int64_t stride,
                              bool log) {
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = in.data() + r * stride;
    double* y = out.data() + r * cols;
    double m = -std::numeric_limits<double>::infinity();
    for (std::int64_t c = 0; c < cols; ++c)
      if (!std::isnan(m) && (std::isnan(x[c]) || x[c] > m)) m = x[c];  // NaN propagates, like torch
    double s = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += y[c] = std::exp(static_cast<double>(x[c]) - m);
    for (std::int64_t c = 0; c < cols; ++c) y[c] = log ? static_cast<double>(x[c]) - m - std::log(s) : y[c] / s;
  }
  return out;
}

}  // namespace

std::vector<double> softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                      std::int64_t stride) {
  return reference(in, rows, cols, stride, false);
}

std::vector<double> log_softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                          std::int64_t stride) {
  return reference(in, rows, cols, stride, true);
}

Comparison compare_rows(const std::vector<float>& out, const std::vector<double>& ref, std::int64_t rows,
                        std::int64_t cols, std::int64_t stride) {
  Comparison c;
  for (std::int64_t r = 0; r < rows; ++r) {
    double diff = 0, norm = 0;
    for (std::int64_t k = 0; k < cols; ++k) {
      double o = out[static_cast<std::size_t>(r * stride + k)], e = ref[static_cast<std::size_t>(r * cols + k)];
      if (!std::isfinite(e) || !std::isfinite(o)) {
        // Non-finite values must match exactly (and count in no norm: -inf in log_softmax rows).
        if (!(o == e || (std::isnan(o) && std::isnan(e)))) ++c.nan_mismatches;
        continue;
      }
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
