// Float64 softmax reference and the error measure tools and tests compare against.
#pragma once

#include <cstdint>
#include <vector>

namespace tilejit::examples {

/// Row-wise softmax of a rows x cols matrix (row stride `stride`) in float64. Rows whose
/// maximum is -inf (all -inf) give NaN, like torch.softmax.
std::vector<double> softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                      std::int64_t stride);

/// Row-wise log_softmax (x - max - log(sum of exp(x - max))) in float64, NaN where softmax
/// gives NaN; -inf inputs give -inf.
std::vector<double> log_softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                          std::int64_t stride);

struct Comparison {
  double max_rel_error = 0;  // max over rows of ||out - ref|| / ||ref||, over finite reference values
  // Elements where the reference is NaN or infinite and `out` is not the same (NaN, or the
  // same infinity), or where the reference is finite and `out` is not.
  std::int64_t nan_mismatches = 0;
  std::int64_t worst_row = -1;
};

/// Compares `out` (rows x cols, row stride `stride`) with a dense reference.
Comparison compare_rows(const std::vector<float>& out, const std::vector<double>& ref, std::int64_t rows,
                        std::int64_t cols, std::int64_t stride);

}  // namespace tilejit::examples
