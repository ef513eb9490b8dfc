#include "sass.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tilejit/error.h"

namespace tilejit::examples {
namespace fs = std::filesystem;

std::string find_disassembler() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH"))
    for (std::string rest = path; !rest.empty();) {
      auto colon = rest.find(':');
      dirs.push_back(rest.substr(0, colon));
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* root = std::getenv(var); root && *root) dirs.push_back(std::string(root) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const char* tool : {"nvdisasm", "cuobjdump"})
    for (const auto& d : dirs) {
      fs::path p = fs::path(d) / tool;
      if (!d.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return {};
}

std::string disassemble(const std::string& cubin) {
  std::string tool = find_disassembler();
  if (tool.empty())
    throw Error(
        "SASS is unavailable: neither nvdisasm nor cuobjdump was found (on PATH, in $CUDA_HOME/bin or "
        "/usr/local/cuda/bin); install the CUDA toolkit's nvdisasm, or use --emit ptx");
  if (cubin.empty()) throw Error("SASS is unavailable: this kernel has no cubin (a PTX-only target or override)");
  fs::path file = fs::temp_directory_path() / fmt::format("tilejit-inspect-{}.cubin", ::getpid());
  {
    std::ofstream out(file, std::ios::binary);
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  }
  bool nvdisasm = fs::path(tool).filename() == "nvdisasm";
  std::string command = fmt::format("'{}' {} '{}' 2>&1", tool, nvdisasm ? "-c" : "-sass", file.string());
  std::string text;
  int status = -1;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
    status = ::pclose(pipe);
  }
  fs::remove(file);
  if (status != 0) throw Error(fmt::format("{} failed (status {}): {}", tool, status, text));
  return text;
}

}  // namespace tilejit::examples
