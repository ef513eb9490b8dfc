// Software f16 <-> f32 conversions, defined in the JIT under the names of the compiler-rt /
// libgcc helpers that LLVM calls for `half` on CPUs without F16C, so kernels using f16 link on
// every host whether or not the process has those helpers (internal).
#pragma once

#include <cstdint>

namespace tilejit::rt::cpu {

float half_bits_to_float(std::uint16_t h);
/// Rounds to nearest even; NaNs stay (quiet) NaNs, overflow gives infinity.
std::uint16_t float_to_half_bits(float f);

}  // namespace tilejit::rt::cpu
