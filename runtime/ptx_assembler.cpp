#include "runtime/ptx_assembler.h"

#include <fmt/format.h>
#include <nvJitLink.h>

#include <cctype>
#include <chrono>

#include "tilejit/error.h"

namespace tilejit::rt {
namespace {

// sm_XX, sm_XXa, sm_XXXf: a real architecture (nvJitLink makes cubins only).
bool is_real_arch(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return false;
  std::size_t i = 3, digits = 0;
  while (i + digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i + digits]))) ++digits;
  std::size_t rest = i + digits;
  if (rest < arch.size() && (arch[rest] == 'a' || arch[rest] == 'f')) ++rest;
  return digits >= 2 && digits <= 3 && rest == arch.size();
}

const char* result_name(nvJitLinkResult r) {
  switch (r) {
    case NVJITLINK_SUCCESS: return "NVJITLINK_SUCCESS";
    case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "NVJITLINK_ERROR_UNRECOGNIZED_OPTION";
    case NVJITLINK_ERROR_MISSING_ARCH: return "NVJITLINK_ERROR_MISSING_ARCH";
    case NVJITLINK_ERROR_INVALID_INPUT: return "NVJITLINK_ERROR_INVALID_INPUT";
    case NVJITLINK_ERROR_PTX_COMPILE: return "NVJITLINK_ERROR_PTX_COMPILE";
    case NVJITLINK_ERROR_INTERNAL: return "NVJITLINK_ERROR_INTERNAL";
    case NVJITLINK_ERROR_UNRECOGNIZED_ARCH: return "NVJITLINK_ERROR_UNRECOGNIZED_ARCH";
    case NVJITLINK_ERROR_UNSUPPORTED_ARCH: return "NVJITLINK_ERROR_UNSUPPORTED_ARCH";
    default: return "nvJitLink error";
  }
}

// Destroys the handle on every path out of assemble_ptx.
class Handle {
 public:
  explicit Handle(nvJitLinkHandle h) : h_(h) {}
  ~Handle() { nvJitLinkDestroy(&h_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  nvJitLinkHandle get() const { return h_; }

 private:
  nvJitLinkHandle h_;
};

std::string read_log(nvJitLinkHandle h, bool errors) {
  std::size_t size = 0;
  if ((errors ? nvJitLinkGetErrorLogSize(h, &size) : nvJitLinkGetInfoLogSize(h, &size)) != NVJITLINK_SUCCESS ||
      size == 0)
    return {};
  std::string log(size, '\0');
  if ((errors ? nvJitLinkGetErrorLog(h, log.data()) : nvJitLinkGetInfoLog(h, log.data())) != NVJITLINK_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::vector<std::string> ptx_assembler_options(const std::string& arch) {
  if (!is_real_arch(arch))
    throw Error(fmt::format("cannot assemble PTX for '{}': expected an architecture like sm_90 or sm_90a", arch));
  // -Xptxas=-v: the register and spill report, as NVRTC's --ptxas-options=-v gives.
  return {"-arch=" + arch, "-lineinfo", "-Xptxas=-v"};
}

AssemblerOutput assemble_ptx(const std::string& ptx, const std::string& file_name, const std::string& arch) {
  AssemblerOutput out;
  out.options = ptx_assembler_options(arch);
  std::string joined;
  for (const auto& o : out.options) joined += (joined.empty() ? "" : " ") + o;
  const auto start = std::chrono::steady_clock::now();

  std::vector<const char*> argv;
  for (const auto& o : out.options) argv.push_back(o.c_str());
  nvJitLinkHandle raw = nullptr;
  nvJitLinkResult r = nvJitLinkCreate(&raw, static_cast<std::uint32_t>(argv.size()), argv.data());
  if (r != NVJITLINK_SUCCESS)
    throw CompileError(fmt::format("nvJitLink could not start for {} ({}): {}", file_name, arch, result_name(r)), {},
                       ptx, joined);
  Handle handle(raw);
  auto fail = [&](const char* what, nvJitLinkResult code) {
    std::string log = read_log(handle.get(), true);
    std::string info = read_log(handle.get(), false);
    if (!info.empty()) log += (log.empty() ? "" : "\n") + info;
    return CompileError(
        fmt::format("nvJitLink could not assemble {} for {}: {} ({})", file_name, arch, what, result_name(code)),
        std::move(log), ptx, joined);
  };
  r = nvJitLinkAddData(handle.get(), NVJITLINK_INPUT_PTX, ptx.data(), ptx.size(), file_name.c_str());
  if (r != NVJITLINK_SUCCESS) throw fail("the PTX was not accepted", r);
  r = nvJitLinkComplete(handle.get());
  if (r != NVJITLINK_SUCCESS) throw fail("assembly failed", r);
  std::size_t size = 0;
  r = nvJitLinkGetLinkedCubinSize(handle.get(), &size);
  if (r != NVJITLINK_SUCCESS) throw fail("nvJitLinkGetLinkedCubinSize failed", r);
  out.cubin.resize(size);
  r = nvJitLinkGetLinkedCubin(handle.get(), out.cubin.data());
  if (r != NVJITLINK_SUCCESS) throw fail("nvJitLinkGetLinkedCubin failed", r);
  out.log = read_log(handle.get(), false);
  out.assemble_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.ptxas = parse_ptxas_info(out.log);
  return out;
}

std::string nvjitlink_version() {
  unsigned major = 0, minor = 0;
  if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

}  // namespace tilejit::rt
