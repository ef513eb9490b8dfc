// f16 and bf16 values as bit patterns, for tools and tests that fill or read 16-bit buffers on
// the host (which has no such types): round-to-nearest-even encodings and exact decodings.
#pragma once

#include <cstdint>
#include <vector>

#include "tilejit/dtype.h"

namespace tilejit::examples {

/// `v` rounded to `t` (f16 or bf16, nearest even; overflow gives inf, NaN stays NaN).
std::uint16_t to_half_bits(DType t, float v);
/// The value of a `t` (f16 or bf16) bit pattern.
float from_half_bits(DType t, std::uint16_t bits);

/// Element-wise versions.
std::vector<std::uint16_t> to_half_bits(DType t, const std::vector<float>& v);
std::vector<float> from_half_bits(DType t, const std::vector<std::uint16_t>& bits);

}  // namespace tilejit::examples
