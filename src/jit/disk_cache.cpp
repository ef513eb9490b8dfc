#include "jit/disk_cache.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>

#include "tilejit/cache.h"
#include "tilejit/error.h"

namespace tilejit::jit {
namespace fs = std::filesystem;
namespace {

constexpr std::uint64_t kDefaultMaxBytes = std::uint64_t{1} << 30;
// No entry is anywhere near this; a larger file is not ours (and is not read into memory).
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{1} << 30;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string default_directory() {
  if (std::string dir = env("TILEJIT_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg[0] == '/') return xdg + "/tilejit";
  std::string home = env("HOME");
  if (home.empty())
    if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_dir) home = pw->pw_dir;
  return home.empty() ? "" : home + "/.cache/tilejit";
}

void warn_once(const std::string& dir, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard lock(mutex);
  if (warned.insert(dir).second) fmt::print(stderr, "tilejit: warning: {}\n", message);
}

// Creates `dir` (0700; parents with the usual mode) and checks that only this user can write it.
std::string check_directory(const std::string& dir) {
  std::error_code ec;
  fs::path p(dir);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fmt::format("cannot create the cache directory {}: {}", dir, std::strerror(errno));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return fmt::format("cannot stat {}: {}", dir, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return fmt::format("the cache path {} is not a directory", dir);
  // Another user who can write here could plant a kernel this process would load and run.
  if (st.st_uid != geteuid()) return fmt::format("the cache directory {} belongs to another user", dir);
  if (st.st_mode & 022)
    return fmt::format("the cache directory {} is writable by other users (mode {:o}); chmod 700 it to use it", dir,
                       st.st_mode & 0777);
  return {};
}

struct FileInfo {
  std::string path;
  std::uint64_t bytes;
  std::int64_t mtime_ns;
};

std::vector<FileInfo> scan(const std::string& dir, const std::string& prefix, bool temp_files = false) {
  std::vector<FileInfo> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool temp = name.size() > 0 && name[0] == '.' && name.find(".tmp.") != std::string::npos;
    if (temp != temp_files) continue;
    if (!temp && (name.size() < 4 || name.compare(name.size() - 4, 4, DiskCache::kExtension) != 0)) continue;
    if (!temp && name.compare(0, prefix.size(), prefix) != 0) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({it->path().string(), static_cast<std::uint64_t>(st.st_size),
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
  }
  std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.mtime_ns > b.mtime_ns; });
  return out;
}

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> read_all(const std::string& path, std::string* why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (why) *why = errno == ENOENT ? "no entry" : fmt::format("cannot open: {}", std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > kMaxEntryBytes) {
    if (why) *why = "not a regular file of a plausible size";
  } else {
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);  // a file that shrank under us reads as truncated, and decoding rejects it
    out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

}  // namespace

DiskCache DiskCache::from_env() {
  DiskCache c;
  std::string dir = default_directory();
  if (dir.empty()) {
    c.reason_ = "no cache directory: neither TILEJIT_CACHE_DIR, XDG_CACHE_HOME nor HOME is set";
    return c;
  }
  if (std::string problem = check_directory(dir); !problem.empty()) {
    warn_once(dir, problem + "; kernels are cached in memory only");
    c.reason_ = problem;
    return c;
  }
  c.dir_ = dir;
  return c;
}

std::string DiskCache::path_for(const std::string& stem) const { return dir_ + "/" + stem + kExtension; }

std::optional<EntryFields> DiskCache::load(const std::string& path, std::string* why, bool mark_used) const {
  auto bytes = read_all(path, why);
  if (!bytes) return std::nullopt;
  std::string problem;
  auto fields = decode_entry(*bytes, &problem);
  if (!fields) {
    if (why) *why = "invalid entry: " + problem;
    return std::nullopt;
  }
  if (mark_used) {
    const timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    ::utimensat(AT_FDCWD, path.c_str(), times, 0);  // least-recently-used order; failure is harmless
  }
  return fields;
}

bool DiskCache::store(const std::string& path, const EntryFields& fields, std::string* why) const {
  static std::atomic<std::uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string name = fs::path(path).filename().string();
  std::string temp = fmt::format("{}/.{}.tmp.{}.{}.{:x}", dir_, name, ::getpid(), counter.fetch_add(1),
                                 static_cast<std::uint64_t>(rng()));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (why) *why = fmt::format("cannot create {}: {}", temp, std::strerror(errno));
    return false;
  }
  bool ok = write_all(fd, encode_entry(fields));
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    if (why) *why = fmt::format("cannot write {}: {}", path, std::strerror(errno));
    ::unlink(temp.c_str());
    return false;
  }
  evict(max_bytes(), path);
  return true;
}

std::vector<std::string> DiskCache::entries_with_prefix(const std::string& prefix, std::size_t limit) const {
  std::vector<std::string> out;
  if (!enabled()) return out;
  for (auto& f : scan(dir_, prefix)) {
    if (out.size() >= limit) break;
    out.push_back(std::move(f.path));
  }
  return out;
}

void DiskCache::evict(std::uint64_t cap, const std::string& keep) const {
  auto files = scan(dir_, "");
  std::uint64_t total = 0;
  for (const auto& f : files) total += f.bytes;
  for (auto it = files.rbegin(); it != files.rend() && total > cap; ++it) {
    if (it->path == keep) continue;
    if (::unlink(it->path.c_str()) == 0 || errno == ENOENT) total -= it->bytes;
  }
  // Temporary files left by a process that died mid-write.
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch());
  for (const auto& f : scan(dir_, "", true))
    if (now.count() - f.mtime_ns > std::int64_t{3600} * 1000000000) ::unlink(f.path.c_str());
}

std::uint64_t DiskCache::max_bytes() {
  std::string v = env("TILEJIT_CACHE_MAX_BYTES");
  if (v.empty()) return kDefaultMaxBytes;
  char* end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (errno != 0 || end == v.c_str() || *end != '\0' || v[0] == '-') {
    warn_once("TILEJIT_CACHE_MAX_BYTES=" + v,
              fmt::format("TILEJIT_CACHE_MAX_BYTES='{}' is not a byte count; using {}", v, kDefaultMaxBytes));
    return kDefaultMaxBytes;
  }
  return n;
}

bool DiskCache::always_compile() { return env("TILEJIT_ALWAYS_COMPILE") == "1"; }

}  // namespace tilejit::jit

namespace tilejit {

std::string cache_directory(std::string* why) {
  auto c = jit::DiskCache::from_env();
  if (why) *why = c.disabled_reason();
  return c.directory();
}

std::vector<CacheEntryInfo> list_cache_entries() {
  auto c = jit::DiskCache::from_env();
  std::vector<CacheEntryInfo> out;
  for (const auto& f : jit::scan(c.directory(), "")) {
    CacheEntryInfo e;
    e.path = f.path;
    e.bytes = f.bytes;
    e.last_use = f.mtime_ns / 1000000000;
    auto bytes = jit::read_all(f.path, &e.problem);
    std::optional<jit::EntryFields> fields;
    if (bytes) fields = jit::decode_entry(*bytes, &e.problem);
    if (fields) {
      e.valid = true;
      auto get = [&](const char* name) {
        auto it = fields->find(name);
        return it == fields->end() ? std::string() : it->second;
      };
      e.kernel_name = get("kernel");
      e.entry_name = get("entry");
      e.key = get("key");
      e.arch = get("arch");
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string read_cache_entry_field(const std::string& path, const std::string& field) {
  std::string why;
  auto bytes = jit::read_all(path, &why);
  std::optional<jit::EntryFields> fields;
  if (bytes) fields = jit::decode_entry(*bytes, &why);
  if (!fields) throw Error(fmt::format("cache entry {}: {}", path, why));
  auto it = fields->find(field);
  if (it == fields->end()) throw Error(fmt::format("cache entry {} has no field '{}'", path, field));
  return it->second;
}

}  // namespace tilejit
