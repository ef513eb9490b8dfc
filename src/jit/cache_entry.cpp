#include "jit/cache_entry.h"

#include <cstring>

#include "jit/specialization.h"

namespace tilejit::jit {
namespace {

constexpr char kMagic[8] = {'T', 'I', 'L', 'E', 'J', 'I', 'T', '\0'};

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Reads fixed-size integers from a bounded span; every read reports whether it fit.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool read(std::uint64_t& v, int n) {
    if (remaining() < static_cast<std::size_t>(n)) return false;
    v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  bool take(std::uint64_t n, std::string_view& out) {
    if (n > remaining()) return false;
    out = bytes_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  std::size_t remaining() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

std::optional<EntryFields> reject(std::string* why, const char* reason) {
  if (why) *why = reason;
  return std::nullopt;
}

}  // namespace

std::string encode_entry(const EntryFields& fields) {
  std::string payload;
  put(payload, fields.size(), 4);
  for (const auto& [name, value] : fields) {
    put(payload, name.size(), 4);
    payload += name;
    put(payload, value.size(), 8);
    payload += value;
  }
  std::string out(kMagic, sizeof kMagic);
  put(out, kEntryFormatVersion, 4);
  put(out, kEntryHeaderBytes, 4);
  put(out, payload.size(), 8);
  put(out, fnv1a(payload), 8);
  return out + payload;
}

std::optional<EntryFields> decode_entry(std::string_view bytes, std::string* why) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return reject(why, "not a tilejit cache entry (wrong magic)");
  Reader header(bytes.substr(sizeof kMagic));
  std::uint64_t version = 0, header_bytes = 0, payload_bytes = 0, checksum = 0;
  if (!header.read(version, 4) || !header.read(header_bytes, 4) || !header.read(payload_bytes, 8) ||
      !header.read(checksum, 8))
    return reject(why, "truncated header");
  if (version != kEntryFormatVersion) return reject(why, "another format version");
  if (header_bytes != kEntryHeaderBytes) return reject(why, "unexpected header size");
  if (payload_bytes != bytes.size() - kEntryHeaderBytes)
    return reject(why, payload_bytes > bytes.size() - kEntryHeaderBytes ? "truncated payload" : "trailing bytes");
  std::string_view payload = bytes.substr(kEntryHeaderBytes);
  if (fnv1a(payload) != checksum) return reject(why, "checksum mismatch (corrupted)");

  Reader r(payload);
  std::uint64_t count = 0;
  if (!r.read(count, 4)) return reject(why, "truncated field count");
  EntryFields fields;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t name_len = 0, value_len = 0;
    std::string_view name, value;
    if (!r.read(name_len, 4) || !r.take(name_len, name) || !r.read(value_len, 8) || !r.take(value_len, value))
      return reject(why, "truncated field");
    if (!fields.emplace(std::string(name), std::string(value)).second) return reject(why, "duplicate field");
  }
  if (r.remaining() != 0) return reject(why, "trailing bytes in payload");
  return fields;
}

}  // namespace tilejit::jit
