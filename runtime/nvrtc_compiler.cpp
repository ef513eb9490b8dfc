#include "runtime/nvrtc_compiler.h"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tilejit/error.h"

namespace tilejit::rt {
namespace {

// "sm_90", "sm_90a", "sm_100f", "compute_90", "compute_90a". (No std::regex here: it
// crashes inside processes that load another libstdc++'s locale facets, e.g. Python + torch.)
bool valid_arch(const std::string& arch, bool& real) {
  std::size_t i;
  if (arch.rfind("sm_", 0) == 0) i = 3;
  else if (arch.rfind("compute_", 0) == 0) i = 8;
  else return false;
  std::size_t digits = 0;
  while (i + digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i + digits]))) ++digits;
  if (digits < 2 || digits > 3) return false;
  std::size_t rest = i + digits;
  if (rest < arch.size() && (arch[rest] == 'a' || arch[rest] == 'f')) ++rest;
  if (rest != arch.size()) return false;
  real = i == 3;
  return true;
}

// The integer that ends right before `pos` in `line` (spaces skipped), or -1.
int number_before(const std::string& line, std::size_t pos) {
  while (pos > 0 && line[pos - 1] == ' ') --pos;
  std::size_t end = pos;
  while (pos > 0 && std::isdigit(static_cast<unsigned char>(line[pos - 1]))) --pos;
  return pos == end ? -1 : std::stoi(line.substr(pos, end - pos));
}

// The integer that starts right after `pos`, or -1.
int number_after(const std::string& line, std::size_t pos) {
  std::size_t end = pos;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  return end == pos ? -1 : std::stoi(line.substr(pos, end - pos));
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ' ';
    out += p;
  }
  return out;
}

// Destroys the program on every path out of nvrtc_compile.
class Program {
 public:
  explicit Program(nvrtcProgram p) : p_(p) {}
  ~Program() { nvrtcDestroyProgram(&p_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return p_; }

 private:
  nvrtcProgram p_;
};

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

bool has_cuda_headers(const std::string& dir) {
  std::error_code ec;
  return !dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "cuda_fp16.h", ec);
}

std::string find_cuda_include_dir() {
#ifdef TILEJIT_CUDA_INCLUDE_DIR
  if (has_cuda_headers(TILEJIT_CUDA_INCLUDE_DIR)) return TILEJIT_CUDA_INCLUDE_DIR;
#endif
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root)
      if (std::string dir = std::string(root) + "/include"; has_cuda_headers(dir)) return dir;
  return {};
}

}  // namespace

std::string cuda_include_dir() {
  static const std::string dir = find_cuda_include_dir();
  return dir;
}

PtxasInfo parse_ptxas_info(const std::string& log) {
  // ptxas -v prints, per function:
  //   ptxas info    : Used 78 registers, used 0 barriers, 1024 bytes smem, 380 bytes cmem[0]
  //   ptxas         .     16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
  // The ptxas program of CUDA 13 prints the second line without its prefix:
  //       16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
  PtxasInfo info;
  std::istringstream lines(log);
  std::string line;
  auto take = [](int& field, int value) { field = std::max(field, value); };
  auto unprefixed_properties = [](const std::string& l) {
    const std::size_t first = l.find_first_not_of(" \t");
    return first != std::string::npos && first > 0 && std::isdigit(static_cast<unsigned char>(l[first])) &&
           l.find(" bytes stack frame") != std::string::npos;
  };
  while (std::getline(lines, line)) {
    if (line.find("ptxas") == std::string::npos && !unprefixed_properties(line)) continue;
    if (auto at = line.find("Used "); at != std::string::npos && line.find(" registers", at) != std::string::npos) {
      if (int n = number_after(line, at + 5); n >= 0) {
        info.valid = true;
        take(info.registers, n);
      }
    }
    if (auto at = line.find(" bytes smem"); at != std::string::npos)
      take(info.static_shared_bytes, number_before(line, at));
    if (auto at = line.find(" bytes stack frame"); at != std::string::npos) {
      take(info.stack_frame_bytes, number_before(line, at));
      if (auto st = line.find(" bytes spill stores"); st != std::string::npos)
        take(info.spill_store_bytes, number_before(line, st));
      if (auto ld = line.find(" bytes spill loads"); ld != std::string::npos)
        take(info.spill_load_bytes, number_before(line, ld));
    }
  }
  return info;
}

std::vector<std::string> nvrtc_options(const std::string& arch, const std::vector<std::string>& extra_options) {
  bool real = false;
  if (!valid_arch(arch, real))
    throw Error(
        fmt::format("cannot compile for '{}': expected an architecture like sm_90, sm_90a or compute_90", arch));
  // --no-cache: with a driver present NVRTC 13 reuses cubins from the driver's compute cache and
  // then ptxas does not run, so the -v report (registers, spills) would be missing. tilejit keeps
  // its own cache of compiled kernels, report included, so NVRTC's adds nothing.
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "--std=c++17", "-lineinfo", "--ptxas-options=-v",
                                      "--no-cache"};
  if (const std::string& include = cuda_include_dir(); !include.empty()) options.push_back("--include-path=" + include);
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  return options;
}

NvrtcOutput nvrtc_compile(const std::string& source, const std::string& file_name, const std::string& arch,
                          const std::vector<std::string>& extra_options) {
  bool real = false;
  if (!valid_arch(arch, real))
    throw Error(fmt::format("cannot compile {} for '{}': expected an architecture like sm_90, sm_90a or compute_90",
                            file_name, arch));

  NvrtcOutput out;
  out.options = nvrtc_options(arch, extra_options);
  const std::string joined = join(out.options);
  auto fail = [&](const std::string& what, nvrtcResult r, std::string log) {
    return CompileError(
        fmt::format("NVRTC could not compile {} for {}: {} ({})", file_name, arch, what, nvrtcGetErrorString(r)),
        std::move(log), source, joined);
  };

  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram raw = nullptr;
  nvrtcResult r = nvrtcCreateProgram(&raw, source.c_str(), file_name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) throw fail("nvrtcCreateProgram failed", r, {});
  Program program(raw);

  std::vector<const char*> argv;
  for (const auto& o : out.options) argv.push_back(o.c_str());
  r = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  out.log = program_log(program.get());
  if (r != NVRTC_SUCCESS) throw fail("compilation failed", r, out.log);

  std::size_t size = 0;
  r = nvrtcGetPTXSize(program.get(), &size);
  if (r != NVRTC_SUCCESS) throw fail("nvrtcGetPTXSize failed", r, out.log);
  out.ptx.assign(size, '\0');
  r = nvrtcGetPTX(program.get(), out.ptx.data());
  if (r != NVRTC_SUCCESS) throw fail("nvrtcGetPTX failed", r, out.log);
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();

  if (real) {
    r = nvrtcGetCUBINSize(program.get(), &size);
    if (r != NVRTC_SUCCESS) throw fail("nvrtcGetCUBINSize failed", r, out.log);
    out.cubin.resize(size);
    r = nvrtcGetCUBIN(program.get(), out.cubin.data());
    if (r != NVRTC_SUCCESS) throw fail("nvrtcGetCUBIN failed", r, out.log);
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.ptxas = parse_ptxas_info(out.log);
  return out;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

}  // namespace tilejit::rt
