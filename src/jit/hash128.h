// A 128-bit FNV-1a hash for disk-cache keys. 128 bits make an accidental collision between two
// cached kernels negligible; entries also store their full key text, which is compared on
// every hit, so even a collision could not load the wrong kernel.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilejit::jit {

class Hasher128 {
 public:
  /// Adds raw bytes.
  void add(std::string_view bytes);
  /// Adds a named field, length-prefixed so that ("ab","c") and ("a","bc") differ.
  void add_field(std::string_view name, std::string_view value);
  /// 32 lowercase hex digits.
  std::string hex() const;

 private:
  unsigned __int128 h_ = (static_cast<unsigned __int128>(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
};

/// hex() of one string's hash.
std::string hash128_hex(std::string_view bytes);

}  // namespace tilejit::jit
