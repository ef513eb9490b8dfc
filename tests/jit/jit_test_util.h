// Shared by the JIT suites: a small kernel, launch arguments that need no GPU, scoped
// environment variables, private temporary directories and stderr capture.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "scoped_env.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace jit_test {

namespace fs = std::filesystem;
namespace tl = tilejit::tl;

inline void scale_kernel(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  tl::store(out + offs, tl::load(x + offs, mask) * 2, mask);
}

using ScaleKernel = tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr>;

inline ScaleKernel make_scale() { return ScaleKernel("scale", scale_kernel, {"x", "out", "n", "BLOCK"}); }

inline std::vector<tilejit::Arg> scale_args(std::int64_t block, std::int64_t n = 1000) {
  return {tilejit::Pointer{0x100000, tilejit::DType::f32}, tilejit::Pointer{0x200000, tilejit::DType::f32}, n, block};
}

inline tilejit::CompileOptions sm(int warps = 4, std::string arch = "sm_90") {
  return {.num_warps = warps, .num_stages = 1, .arch = std::move(arch), .codegen = tilejit::GpuCodegen::cuda};
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

/// Sets (or unsets, for nullptr) an environment variable for one scope, then restores it (scoped_env.h).
using tilejit_test::ScopedEnv;

/// A fresh directory under the system's temporary directory, removed at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static std::atomic<int> n{0};
    path_ = fs::temp_directory_path() / ("tilejit_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

/// A private disk cache for one test: TILEJIT_CACHE_DIR points at a fresh directory.
struct ScopedCache {
  TempDir dir{"cache"};
  ScopedEnv env{"TILEJIT_CACHE_DIR", dir.str()};
};

/// Cache entry files in `dir`.
inline std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".tjc") out.push_back(it->path());
  return out;
}

/// Everything written to stderr while it lives.
class CaptureStderr {
 public:
  CaptureStderr() {
    std::fflush(stderr);
    saved_ = dup(2);
    file_ = std::tmpfile();
    dup2(fileno(file_), 2);
  }
  ~CaptureStderr() {
    restore();
    if (file_) std::fclose(file_);
  }
  CaptureStderr(const CaptureStderr&) = delete;
  CaptureStderr& operator=(const CaptureStderr&) = delete;
  std::string text() {
    restore();
    std::rewind(file_);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

}  // namespace jit_test
