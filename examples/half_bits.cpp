#include "half_bits.h"

#include <bit>
#include <cmath>

namespace tilejit::examples {

namespace {

std::uint16_t to_bf16(float v) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if (std::isnan(v)) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // stay a NaN after truncation
  u += 0x7fffu + ((u >> 16) & 1u);  // nearest even; carries into the exponent up to inf
  return static_cast<std::uint16_t>(u >> 16);
}

std::uint16_t to_f16(float v) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  float a = std::fabs(v);
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (a >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (a < 6.103515625e-05f) {  // subnormal range: units of 2^-24, nearest even
    auto m = static_cast<std::uint32_t>(std::nearbyint(a * 16777216.0f));
    return static_cast<std::uint16_t>(sign | m);
  }
  std::uint32_t e = ((u >> 23) & 0xffu) - 127 + 15, m = u & 0x7fffffu;
  std::uint32_t bits = e << 10 | m >> 13;
  std::uint32_t rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (bits & 1u))) ++bits;  // may carry into the exponent: fine
  return static_cast<std::uint16_t>(sign | bits);
}

float from_f16(std::uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0    ? std::ldexp(static_cast<float>(m), -24)
            : e == 31 ? (m ? std::nanf("") : INFINITY)
                      : std::ldexp(1.0f + static_cast<float>(m) / 1024.0f, e - 15);
  return (h & 0x8000) ? -v : v;
}

}  // namespace

std::uint16_t to_half_bits(DType t, float v) { return t == DType::bf16 ? to_bf16(v) : to_f16(v); }

float from_half_bits(DType t, std::uint16_t bits) {
  return t == DType::bf16 ? std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16) : from_f16(bits);
}

std::vector<std::uint16_t> to_half_bits(DType t, const std::vector<float>& v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_half_bits(t, v[i]);
  return out;
}

std::vector<float> from_half_bits(DType t, const std::vector<std::uint16_t>& bits) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = from_half_bits(t, bits[i]);
  return out;
}

}  // namespace tilejit::examples
