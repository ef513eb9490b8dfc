// The C API: every entry point catches tilejit's exceptions and turns them into a return
// code and a per-thread message.
#include "tilejit/c_api.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_seed.h"
#include "tilejit/tilejit.h"

namespace {

thread_local std::string g_error;

template <class F>
int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    g_error = e.what();
  } catch (...) {
    g_error = "unknown error";
  }
  return 1;
}

tilejit::DType dtype_of(int code) {
  if (code < 0 || code > static_cast<int>(tilejit::DType::f64))
    throw tilejit::Error(fmt::format("bad dtype code {}", code));
  return static_cast<tilejit::DType>(code);
}

std::vector<tilejit::Arg> to_args(const tilejit_arg* args, int n) {
  if (n < 0 || (n > 0 && !args)) throw tilejit::Error("bad argument list");
  std::vector<tilejit::Arg> out;
  for (int i = 0; i < n; ++i) {
    const tilejit_arg& a = args[i];
    switch (a.kind) {
      case 0: out.emplace_back(tilejit::Pointer{a.address, dtype_of(a.dtype)}); break;
      case 1: out.emplace_back(a.value); break;
      case 2: out.emplace_back(a.fvalue); break;
      default: throw tilejit::Error(fmt::format("argument {}: bad kind {}", i, a.kind));
    }
  }
  return out;
}

const tilejit::KernelBase& library_kernel(const std::string& name) {
  if (name == "softmax_simple") return tilejit::ops::softmax_simple();
  if (name == "softmax_persistent") return tilejit::ops::softmax_persistent();
  throw tilejit::Error(fmt::format("unknown kernel '{}' (known: {})", name, tilejit_kernel_names()));
}

// ops::softmax or ops::log_softmax on either backend's pointers, guarded.
int run_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride, int64_t out_row_stride,
                int in_dtype, int out_dtype, void* stream, const tilejit_softmax_options& with) {
  return guarded([&] {
    if (with.backend != TILEJIT_BACKEND_CUDA && with.backend != TILEJIT_BACKEND_CPU)
      throw tilejit::Error(
          fmt::format("tilejit_softmax_with: bad backend {} (TILEJIT_BACKEND_CUDA {} or "
                      "TILEJIT_BACKEND_CPU {})",
                      with.backend, static_cast<int>(TILEJIT_BACKEND_CUDA), static_cast<int>(TILEJIT_BACKEND_CPU)));
    const bool cpu = with.backend == TILEJIT_BACKEND_CPU;
    tilejit::ops::SoftmaxOptions options;
    options.backend = cpu ? tilejit::Backend::cpu : tilejit::Backend::cuda;
    options.cpu_threads = with.cpu_threads;
    if (with.config && *with.config) options.config = tilejit::ops::parse_config(with.config);
    const tilejit::Memory memory = cpu ? tilejit::Memory::host : tilejit::Memory::device;
    const tilejit::Pointer out_ptr{reinterpret_cast<std::uint64_t>(out), dtype_of(out_dtype), memory};
    const tilejit::Pointer in_ptr{reinterpret_cast<std::uint64_t>(in), dtype_of(in_dtype), memory};
    const auto on = cpu ? tilejit::StreamHandle{} : static_cast<tilejit::StreamHandle>(stream);
    (with.log ? tilejit::ops::log_softmax : tilejit::ops::softmax)(out_ptr, in_ptr, rows, cols, in_row_stride,
                                                                   out_row_stride, on, options);
  });
}

}  // namespace

struct tilejit_compiled {
  const tilejit::CompiledKernel* kernel;
};

extern "C" {

const char* tilejit_last_error(void) { return g_error.c_str(); }

int tilejit_has_gpu(void) {
  std::string why;
  if (tilejit::has_gpu(&why)) return 1;
  g_error = why;
  return 0;
}

void tilejit_wait_for_background_compiles(void) { tilejit::wait_for_background_compiles(); }

const char* tilejit_kernel_names(void) { return "softmax_simple\nsoftmax_persistent"; }

namespace {

// tilejit_compile and tilejit_compile_with, their errors under the name the caller used.
int compile_named(const char* api, const char* kernel, const tilejit_arg* args, int n_args,
                  const tilejit_compile_options* with, tilejit_compiled** out) {
  return guarded([&] {
    if (!kernel || !out) throw tilejit::Error(fmt::format("{}: null kernel name or output", api));
    if (!with) throw tilejit::Error(fmt::format("{}: null options", api));
    tilejit::CompileOptions options;
    options.num_warps = with->num_warps;
    options.num_stages = with->num_stages;
    options.min_blocks_per_sm = with->min_blocks_per_sm;
    const tilejit::KernelBase& library = library_kernel(kernel);
    const std::vector<tilejit::Arg> list = to_args(args, n_args);
    const tilejit::CompiledKernel& k = library.compile(list, options);
    // Handles live as long as the cached kernel they point at: for the process.
    static thread_local std::vector<std::unique_ptr<tilejit_compiled>> handles;
    handles.push_back(std::make_unique<tilejit_compiled>(tilejit_compiled{&k}));
    *out = handles.back().get();
  });
}

}  // namespace

int tilejit_compile(const char* kernel, const tilejit_arg* args, int n_args, int num_warps, int num_stages,
                    tilejit_compiled** out) {
  const tilejit_compile_options options{num_warps, num_stages, 0};
  return compile_named("tilejit_compile", kernel, args, n_args, &options, out);
}

int tilejit_compile_with(const char* kernel, const tilejit_arg* args, int n_args, const tilejit_compile_options* with,
                         tilejit_compiled** out) {
  return compile_named("tilejit_compile_with", kernel, args, n_args, with, out);
}

int tilejit_launch(const tilejit_compiled* kernel, uint64_t grid_x, uint64_t grid_y, uint64_t grid_z,
                   const tilejit_arg* args, int n_args, void* stream) {
  return guarded([&] {
    if (!kernel) throw tilejit::Error("tilejit_launch: null kernel");
    auto list = to_args(args, n_args);
    kernel->kernel->launch(tilejit::Grid(grid_x, grid_y, grid_z), list, static_cast<tilejit::StreamHandle>(stream));
  });
}

int tilejit_persistent_grid(const tilejit_compiled* kernel, uint64_t work_items, uint64_t* grid) {
  return guarded([&] {
    if (!kernel || !grid) throw tilejit::Error("tilejit_persistent_grid: null kernel or output");
    *grid = tilejit::persistent_grid(*kernel->kernel, work_items);
  });
}

const char* tilejit_stage(const tilejit_compiled* kernel, const char* stage) {
  const char* text = nullptr;
  guarded([&] {
    if (!kernel || !stage) throw tilejit::Error("tilejit_stage: null argument");
    text = kernel->kernel->stage(stage).c_str();
  });
  return text;
}

int tilejit_softmax_seed(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                         int64_t out_row_stride, int dtype, void* stream) {
  return guarded([&] {
    tilejit::DType t = dtype_of(dtype);
    tilejit::ops::softmax_seed({reinterpret_cast<std::uint64_t>(out), t, tilejit::Memory::device},
                               {reinterpret_cast<std::uint64_t>(in), t, tilejit::Memory::device}, rows, cols,
                               in_row_stride, out_row_stride, static_cast<tilejit::StreamHandle>(stream),
                               tilejit::Backend::cuda);
  });
}

int tilejit_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                    int64_t out_row_stride, int in_dtype, int out_dtype, void* stream) {
  return run_softmax(out, in, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream, {});
}

int tilejit_log_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                        int64_t out_row_stride, int in_dtype, int out_dtype, void* stream) {
  tilejit_softmax_options log{};
  log.log = 1;
  return run_softmax(out, in, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream, log);
}

int tilejit_softmax_with(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                         int64_t out_row_stride, int in_dtype, int out_dtype, void* stream,
                         const tilejit_softmax_options* options) {
  return run_softmax(out, in, rows, cols, in_row_stride, out_row_stride, in_dtype, out_dtype, stream,
                     options ? *options : tilejit_softmax_options{});
}

}  // extern "C"
