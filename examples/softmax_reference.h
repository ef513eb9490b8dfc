// Float64 softmax reference and the error measure tools and tests compare against.
#pragma once

#include <cstdint>
#include <vector>

namespace tilejit::examples {

/// Row-wise softmax of a rows x cols matrix (row stride `stride`) in float64. Rows whose
/// maximum is -inf (all -inf) give NaN, like torch.softmax.
std::vector<double> softmax_reference(const std::vector<float>& in, std::int64_t rows, std::int64_t cols,
                                      std::int64_t stride);

struct Comparison {
  double max_rel_error = 0;         // max over rows of ||out - ref|| / ||ref||
  std::int64_t nan_mismatches = 0;  // elements where exactly one of out/ref is NaN
  std::int64_t worst_row = -1;
};

/// Compares `out` (rows x cols, row stride `stride`) with a dense reference.
Comparison compare_rows(const std::vector<float>& out, const std::vector<double>& ref, std::int64_t rows,
                        std::int64_t cols, std::int64_t stride);

}  // namespace tilejit::examples
