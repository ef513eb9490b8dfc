// The baseline the CPU backend is measured against: row softmax as a plain C++ loop in three
// passes (max, exp + sum, normalize), compiled twice: with -O3, and with -O3 -march=native.
#pragma once

#include <cstdint>

namespace tilejit::bench {

/// Rows [row_begin, row_end) of a rows x cols matrix (row stride = cols).
void hand_softmax_o3(float* out, const float* in, std::int64_t cols, std::int64_t row_begin, std::int64_t row_end);
void hand_softmax_native(float* out, const float* in, std::int64_t cols, std::int64_t row_begin, std::int64_t row_end);

}  // namespace tilejit::bench
