#include "runtime/cpu/half_fallback.h"

#include <bit>
#include <cmath>

namespace tilejit::rt::cpu {

float half_bits_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::uint16_t float_to_half_bits(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (ax < 0x38800000u) {  // below 2^-14: an f16 subnormal, round(|f| * 2^24) (exact scaling)
    float scaled = std::bit_cast<float>(ax) * 16777216.0f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  std::uint32_t e = ax - 0x38000000u;  // rebias the exponent from 127 to 15
  return static_cast<std::uint16_t>(sign | ((e + 0x0fffu + ((e >> 13) & 1u)) >> 13));
}

}  // namespace tilejit::rt::cpu

#if defined(__x86_64__)
// The helpers' ABI on x86-64: _Float16 travels in an SSE register.
extern "C" float tilejit_extendhfsf2(_Float16 h) {
  return tilejit::rt::cpu::half_bits_to_float(std::bit_cast<std::uint16_t>(h));
}
extern "C" _Float16 tilejit_truncsfhf2(float f) {
  return std::bit_cast<_Float16>(tilejit::rt::cpu::float_to_half_bits(f));
}
#endif
