#include "jit/hash128.h"

#include <fmt/format.h>

namespace tilejit::jit {
namespace {

// FNV-1a's 128-bit prime, 2^88 + 2^8 + 0x3b.
constexpr unsigned __int128 kPrime = (static_cast<unsigned __int128>(1) << 88) | 0x13bu;

void add_u64(Hasher128& h, std::uint64_t v) {
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (8 * i));
  h.add(std::string_view(bytes, 8));
}

}  // namespace

void Hasher128::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    h_ ^= c;
    h_ *= kPrime;
  }
}

void Hasher128::add_field(std::string_view name, std::string_view value) {
  add_u64(*this, name.size());
  add(name);
  add_u64(*this, value.size());
  add(value);
}

std::string Hasher128::hex() const {
  return fmt::format("{:016x}{:016x}", static_cast<std::uint64_t>(h_ >> 64), static_cast<std::uint64_t>(h_));
}

std::string hash128_hex(std::string_view bytes) {
  Hasher128 h;
  h.add(bytes);
  return h.hex();
}

}  // namespace tilejit::jit
