// The disk cache's file format: a fixed header, then named fields (length-prefixed bytes).
//
//   "TILEJIT\0"  u32 format version  u32 header bytes  u64 payload bytes  u64 FNV-1a of the payload
//   payload: u32 field count, then per field u32 name length, name, u64 value length, value
//
// All integers little-endian. Decoding trusts nothing in the file: every size is bounds-checked,
// and a file that is truncated, corrupted (checksum), foreign (magic, version) or has trailing
// bytes is rejected with a reason, never read past its end.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tilejit::jit {

/// An entry's fields, by name.
using EntryFields = std::map<std::string, std::string, std::less<>>;

inline constexpr std::uint32_t kEntryFormatVersion = 1;
inline constexpr std::size_t kEntryHeaderBytes = 32;

/// The bytes of an entry holding `fields`.
std::string encode_entry(const EntryFields& fields);

/// The fields of a complete, intact entry of this format; nullopt otherwise, with *why (when
/// non-null) saying what was wrong.
std::optional<EntryFields> decode_entry(std::string_view bytes, std::string* why = nullptr);

}  // namespace tilejit::jit
