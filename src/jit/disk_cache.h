// The disk cache: one file per compiled CUDA kernel in a private directory, written atomically,
// read back only when intact, trimmed to a size cap by least-recent use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/cache_entry.h"

namespace tilejit::jit {

class DiskCache {
 public:
  /// The cache the environment selects now: TILEJIT_CACHE_DIR, else $XDG_CACHE_HOME/tilejit,
  /// else ~/.cache/tilejit. The directory is created with mode 0700; one that other users can
  /// write to, or that another user owns, is refused (with a warning on stderr, once per
  /// directory) and the cache is off.
  static DiskCache from_env();

  bool enabled() const { return !dir_.empty(); }
  const std::string& directory() const { return dir_; }
  /// Why the cache is off.
  const std::string& disabled_reason() const { return reason_; }

  /// The path of the entry named `stem` (file name without the extension).
  std::string path_for(const std::string& stem) const;
  /// An intact entry's fields, or nullopt with *why ("no entry", or what was wrong). With
  /// `mark_used`, a valid entry's mtime becomes now (the order eviction goes by).
  std::optional<EntryFields> load(const std::string& path, std::string* why = nullptr, bool mark_used = true) const;
  /// Writes through a temporary file in the same directory and a rename, so readers see the
  /// old entry or the new one, never a partial one; then evicts entries over max_bytes().
  /// False with *why when the write failed (the kernel is still usable: the cache is an aid).
  bool store(const std::string& path, const EntryFields& fields, std::string* why = nullptr) const;
  /// Paths of entries whose file names start with `prefix`, most recently used first.
  std::vector<std::string> entries_with_prefix(const std::string& prefix, std::size_t limit) const;
  /// Every entry path, most recently used first.
  std::vector<std::string> entries() const { return entries_with_prefix("", static_cast<std::size_t>(-1)); }
  /// Deletes least recently used entries until the total is at most `cap` bytes; `keep` (the
  /// entry just written) is never deleted.
  void evict(std::uint64_t cap, const std::string& keep) const;

  /// TILEJIT_CACHE_MAX_BYTES, else 1 GiB.
  static std::uint64_t max_bytes();
  /// TILEJIT_ALWAYS_COMPILE=1: never read the disk cache (entries are still written).
  static bool always_compile();

  static constexpr const char* kExtension = ".tjc";

 private:
  std::string dir_, reason_;
};

}  // namespace tilejit::jit
