#include "runtime/ptx_assembler.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <nvJitLink.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/device.h"
#include "tilejit/error.h"

#if TILEJIT_HAVE_NVPTXCOMPILER
#include <nvPTXCompiler.h>
#endif

extern char** environ;  // the process environment, passed on to ptxas

namespace tilejit::rt {
namespace {

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

std::string join(const std::vector<std::string>& options) {
  std::string joined;
  for (const auto& o : options) joined += (joined.empty() ? "" : " ") + o;
  return joined;
}

// The toolkit's ptxas program: where the toolkit this tree was built against keeps it, else
// $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin; empty when none has it.
std::string find_ptxas() {
  std::vector<std::string> dirs = {TILEJIT_CUDA_BIN_DIR};
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env); v && *v) dirs.push_back(std::string(v) + "/bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const auto& d : dirs)
    if (!d.empty() && ::access((d + "/ptxas").c_str(), X_OK) == 0) return d + "/ptxas";
  return {};
}

const std::string& ptxas_path() {
  static const std::string path = find_ptxas();
  return path;
}

std::vector<std::string> program_options(const std::string& arch) {
  return {ptxas_path(), "-arch=" + arch, "-lineinfo", "-v"};
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// A private scratch directory, removed with everything in it on every path out.
class ScratchDir {
 public:
  ScratchDir() {
    std::string base = (std::filesystem::temp_directory_path() / "tilejit-ptxas-XXXXXX").string();
    if (!::mkdtemp(base.data())) throw Error(fmt::format("could not create a directory like {}", base));
    path_ = base;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// ptxas as a program, in whole-program mode. Its report (-v) and any errors land in one log.
AssemblerOutput run_ptxas(const std::string& ptx, const std::string& file_name, const std::string& arch,
                          std::vector<std::string> options) {
  AssemblerOutput out;
  out.options = options;
  const std::string joined = join(options);
  const auto start = std::chrono::steady_clock::now();
  ScratchDir dir;
  const auto in = dir.path() / "kernel.ptx", cubin = dir.path() / "kernel.cubin", log = dir.path() / "ptxas.log";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(ptx.data(), static_cast<std::streamsize>(ptx.size()));
    if (!f) throw Error(fmt::format("could not write {}", in.string()));
  }
  std::vector<std::string> args = options;
  args.insert(args.end(), {in.string(), "-o", cubin.string()});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw CompileError(fmt::format("could not run {} for {} ({}): {}", argv[0], file_name, arch, std::strerror(rc)), {},
                       ptx, joined);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  out.log = read_file(log);
  while (!out.log.empty() && out.log.back() == '\n') out.log.pop_back();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw CompileError(fmt::format("ptxas could not assemble {} for {} (exit status {})", file_name, arch,
                                   WIFEXITED(status) ? WEXITSTATUS(status) : -1),
                       out.log, ptx, joined);
  std::string bin = read_file(cubin);
  if (bin.empty())
    throw CompileError(fmt::format("ptxas wrote no cubin for {} ({})", file_name, arch), out.log, ptx, joined);
  out.cubin.assign(bin.begin(), bin.end());
  out.assemble_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.ptxas = parse_ptxas_info(out.log);
  return out;
}

#if TILEJIT_HAVE_NVPTXCOMPILER
// ptxas as a library (nvPTXCompiler), in this process and in whole-program mode: the same
// compiler as the program without starting one (which cost ~60 ms on the H200 machine).
std::string nvptxcompiler_version() {
  unsigned major = 0, minor = 0;
  if (nvPTXCompilerGetVersion(&major, &minor) != NVPTXCOMPILE_SUCCESS) return "unknown";
  return fmt::format("{}.{}", major, minor);
}

AssemblerOutput compile_in_process(const std::string& ptx, const std::string& file_name, const std::string& arch,
                                   std::vector<std::string> options) {
  AssemblerOutput out;
  out.options = std::move(options);
  const std::string joined = join(out.options);
  const auto start = std::chrono::steady_clock::now();
  nvPTXCompilerHandle handle = nullptr;
  if (nvPTXCompilerCreate(&handle, ptx.size(), ptx.data()) != NVPTXCOMPILE_SUCCESS)
    throw CompileError(fmt::format("nvPTXCompiler could not start for {} ({})", file_name, arch), {}, ptx, joined);
  struct Destroy {
    nvPTXCompilerHandle h;
    ~Destroy() { nvPTXCompilerDestroy(&h); }
  } destroy{handle};
  auto log = [&](bool errors) {
    std::size_t size = 0;
    if ((errors ? nvPTXCompilerGetErrorLogSize(handle, &size) : nvPTXCompilerGetInfoLogSize(handle, &size)) !=
            NVPTXCOMPILE_SUCCESS ||
        size == 0)
      return std::string();
    std::string text(size, '\0');
    if ((errors ? nvPTXCompilerGetErrorLog(handle, text.data()) : nvPTXCompilerGetInfoLog(handle, text.data())) !=
        NVPTXCOMPILE_SUCCESS)
      return std::string();
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  };
  std::vector<const char*> argv;
  for (const auto& o : out.options) argv.push_back(o.c_str());
  nvPTXCompileResult r = nvPTXCompilerCompile(handle, static_cast<int>(argv.size()), argv.data());
  out.log = log(false);
  if (r != NVPTXCOMPILE_SUCCESS) {
    std::string errors = log(true);
    throw CompileError(
        fmt::format("nvPTXCompiler could not assemble {} for {} (error {})", file_name, arch, static_cast<int>(r)),
        errors + (errors.empty() || out.log.empty() ? "" : "\n") + out.log, ptx, joined);
  }
  std::size_t size = 0;
  if (nvPTXCompilerGetCompiledProgramSize(handle, &size) != NVPTXCOMPILE_SUCCESS || size == 0)
    throw CompileError(fmt::format("nvPTXCompiler gave no cubin for {} ({})", file_name, arch), out.log, ptx, joined);
  out.cubin.resize(size);
  if (nvPTXCompilerGetCompiledProgram(handle, out.cubin.data()) != NVPTXCOMPILE_SUCCESS)
    throw CompileError(fmt::format("nvPTXCompiler gave no cubin for {} ({})", file_name, arch), out.log, ptx, joined);
  out.assemble_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  out.ptxas = parse_ptxas_info(out.log);
  return out;
}
#endif

// Which assembler this process uses: ptxas in process when linked in, else the ptxas program,
// else nvJitLink (relocatable code: more registers).
enum class Assembler { in_process, program, nvjitlink };
Assembler assembler() {
#if TILEJIT_HAVE_NVPTXCOMPILER
  return Assembler::in_process;
#else
  return ptxas_path().empty() ? Assembler::nvjitlink : Assembler::program;
#endif
}

}  // namespace

std::vector<std::string> ptx_assembler_options(const std::string& arch) {
  if (!is_sm_arch(arch))  // a real architecture: nvJitLink makes cubins only
    throw Error(fmt::format("cannot assemble PTX for '{}': expected an architecture like sm_90 or sm_90a", arch));
  // -v / -Xptxas=-v: the register and spill report, as NVRTC's --ptxas-options=-v gives.
  switch (assembler()) {
    case Assembler::in_process: return {"--gpu-name=" + arch, "-lineinfo", "-v"};
    case Assembler::program: return program_options(arch);
    case Assembler::nvjitlink: break;
  }
  return {"-arch=" + arch, "-lineinfo", "-Xptxas=-v"};
}

std::string ptx_assembler_name() {
  switch (assembler()) {
    case Assembler::in_process: return "nvPTXCompiler";
    case Assembler::program: return "ptxas";
    case Assembler::nvjitlink: break;
  }
  return "nvJitLink";
}

std::string ptx_assembler_version() {
  static const std::string version = [] {
#if TILEJIT_HAVE_NVPTXCOMPILER
    return "nvPTXCompiler " + nvptxcompiler_version();
#endif
    if (ptxas_path().empty()) return "nvJitLink " + nvjitlink_version();
    // The program's identity without running it: its size and modification time.
    struct stat st {};
    if (::stat(ptxas_path().c_str(), &st) != 0) return std::string("ptxas unknown");
    return fmt::format("ptxas {} bytes, modified {}", st.st_size, static_cast<long long>(st.st_mtime));
  }();
  return version;
}

AssemblerOutput assemble_ptx(const std::string& ptx, const std::string& file_name, const std::string& arch) {
  std::vector<std::string> options = ptx_assembler_options(arch);
#if TILEJIT_HAVE_NVPTXCOMPILER
  AssemblerOutput in_process = compile_in_process(ptx, file_name, arch, std::move(options));
  // The library has spilled a few bytes on kernels near the register limit where the program
  // did not (softmax_row_op LOG=1, 1-2 warps; bench/results/gpu_ctest_nvptxcompiler.log): there,
  // and only there, the program assembles it too and the cubin that spills less is kept.
  auto spilled = [](const AssemblerOutput& o) { return o.ptxas.spill_store_bytes + o.ptxas.spill_load_bytes; };
  if (spilled(in_process) > 0 && !ptxas_path().empty()) {
    AssemblerOutput program = run_ptxas(ptx, file_name, arch, program_options(arch));
    program.assemble_ms += in_process.assemble_ms;
    if (spilled(program) < spilled(in_process)) return program;
    in_process.assemble_ms = program.assemble_ms;
  }
  return in_process;
#endif
  if (assembler() == Assembler::program) return run_ptxas(ptx, file_name, arch, std::move(options));
  AssemblerOutput out;
  out.options = std::move(options);
  const std::string joined = join(out.options);
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
