// tilejit's disk cache of compiled CUDA kernels, as tools see it.
//
// Kernels compiled by NVRTC are kept, with their PTX and ptxas report, in
// $TILEJIT_CACHE_DIR, else $XDG_CACHE_HOME/tilejit, else ~/.cache/tilejit, so a new process skips
// NVRTC. CPU-backend kernels live in the ORC JIT and are cached in memory only. README's
// "Caching" section lists the knobs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilejit {

/// One file in the disk cache.
struct CacheEntryInfo {
  std::string path;
  bool valid = false;       ///< false: unreadable, truncated, corrupted or foreign (it will be rebuilt)
  std::string problem;      ///< why it is not valid
  std::string kernel_name;  ///< the DSL function's name
  std::string entry_name;   ///< symbol in the module
  std::string key;          ///< the specialization (parameters, num_warps, num_stages, arch, backend)
  std::string arch;
  std::uint64_t bytes = 0;    ///< file size
  std::int64_t last_use = 0;  ///< seconds since the epoch (the file's mtime, touched on every hit)
};

/// The directory the disk cache uses now. Empty when it is off (a directory other users can
/// write to, or no home directory), with *why (when non-null) saying so.
std::string cache_directory(std::string* why = nullptr);

/// Every entry in cache_directory(), most recently used first. Empty when the cache is off.
std::vector<CacheEntryInfo> list_cache_entries();

/// One stored field of an entry ("ptx", "cubin", "cuda", "key", "registers", ...); throws
/// tilejit::Error when the entry is invalid or has no such field.
std::string read_cache_entry_field(const std::string& path, const std::string& field);

}  // namespace tilejit
