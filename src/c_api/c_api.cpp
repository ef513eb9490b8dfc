// The C API: every entry point catches tilejit's exceptions and turns them into a return
// code and a per-thread message.
#include "tilejit/c_api.h"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_seed.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

struct tilejit_compiled {
  const tilejit::CompiledKernel* kernel;
};

// The C enums name tilejit's values.
static_assert(TILEJIT_CONFIG_FORCED == static_cast<int>(tilejit::ops::ConfigSource::forced) &&
              TILEJIT_CONFIG_AUTOTUNE == static_cast<int>(tilejit::ops::ConfigSource::autotune) &&
              TILEJIT_CONFIG_DEVICE_TABLE == static_cast<int>(tilejit::ops::ConfigSource::device_table) &&
              TILEJIT_CONFIG_TABLE == static_cast<int>(tilejit::ops::ConfigSource::table));

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
  if (name == "softmax_held") return tilejit::ops::softmax_held();
  if (name == "softmax_persistent") return tilejit::ops::softmax_persistent();
  throw tilejit::Error(fmt::format("unknown kernel '{}' (known: {})", name, tilejit_kernel_names()));
}

// The op's options from the C struct (its backend checked) and the memory its pointers are in.
tilejit::ops::SoftmaxOptions softmax_options(const char* api, const tilejit_softmax_options& with,
                                             tilejit::Memory& memory) {
  if (with.backend != TILEJIT_BACKEND_CUDA && with.backend != TILEJIT_BACKEND_CPU)
    throw tilejit::Error(fmt::format("{}: bad backend {} (TILEJIT_BACKEND_CUDA {} or TILEJIT_BACKEND_CPU {})", api,
                                     with.backend, static_cast<int>(TILEJIT_BACKEND_CUDA),
                                     static_cast<int>(TILEJIT_BACKEND_CPU)));
  const bool cpu = with.backend == TILEJIT_BACKEND_CPU;
  tilejit::ops::SoftmaxOptions options;
  options.backend = cpu ? tilejit::Backend::cpu : tilejit::Backend::cuda;
  options.cpu_threads = with.cpu_threads;
  if (with.config && *with.config) options.config = tilejit::ops::parse_config(with.config);
  memory = tilejit::memory_of(options.backend);
  return options;
}

tilejit::Pointer pointer_to(const void* p, int dtype, tilejit::Memory memory) {
  return {reinterpret_cast<std::uint64_t>(p), dtype_of(dtype), memory};
}

// The handle of a cached kernel: one per kernel, kept for the process as the kernel is, and valid on
// every thread (a caller may compile on one and launch on another).
tilejit_compiled* handle_for(const tilejit::CompiledKernel& k) {
  static std::mutex mutex;
  static auto* handles =  // never destroyed: handles may be used while the process exits
      new std::unordered_map<const tilejit::CompiledKernel*, std::unique_ptr<tilejit_compiled>>;
  std::lock_guard lock(mutex);
  std::unique_ptr<tilejit_compiled>& handle = (*handles)[&k];
  if (!handle) handle = std::make_unique<tilejit_compiled>(tilejit_compiled{&k});
  return handle.get();
}

// ops::softmax or ops::log_softmax on either backend's pointers, guarded.
int run_softmax(void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride, int64_t out_row_stride,
                int in_dtype, int out_dtype, void* stream, const tilejit_softmax_options& with) {
  return guarded([&] {
    tilejit::Memory memory{};
    const tilejit::ops::SoftmaxOptions options = softmax_options("tilejit_softmax_with", with, memory);
    const auto on =
        memory == tilejit::Memory::host ? tilejit::StreamHandle{} : static_cast<tilejit::StreamHandle>(stream);
    (with.log ? tilejit::ops::log_softmax : tilejit::ops::softmax)(pointer_to(out, out_dtype, memory),
                                                                   pointer_to(in, in_dtype, memory), rows, cols,
                                                                   in_row_stride, out_row_stride, on, options);
  });
}

// The plan tilejit_softmax_with would run (`who` names the C function in errors).
tilejit::ops::SoftmaxPlan plan_of(const char* who, int64_t rows, int64_t cols, int in_dtype, int out_dtype,
                                  const tilejit_softmax_options* options) {
  tilejit::Memory memory{};
  return tilejit::ops::plan_softmax(rows, cols, dtype_of(in_dtype), dtype_of(out_dtype),
                                    softmax_options(who, options ? *options : tilejit_softmax_options{}, memory));
}

}  // namespace

extern "C" {

const char* tilejit_last_error(void) { return g_error.c_str(); }

int tilejit_has_gpu(void) {
  std::string why;
  if (tilejit::has_gpu(&why)) return 1;
  g_error = why;
  return 0;
}

int tilejit_flush_l2(void* stream) {
  return guarded([&] { tilejit::flush_l2(static_cast<tilejit::StreamHandle>(stream)); });
}

void tilejit_wait_for_background_compiles(void) { tilejit::wait_for_background_compiles(); }

const char* tilejit_kernel_names(void) { return "softmax_simple\nsoftmax_held\nsoftmax_persistent"; }

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
    options.programs_per_block = with->programs_per_block > 0 ? with->programs_per_block : 1;
    const tilejit::KernelBase& library = library_kernel(kernel);
    const std::vector<tilejit::Arg> list = to_args(args, n_args);
    *out = handle_for(library.compile(list, options));
  });
}

}  // namespace

int tilejit_compile(const char* kernel, const tilejit_arg* args, int n_args, int num_warps, int num_stages,
                    tilejit_compiled** out) {
  const tilejit_compile_options options{num_warps, num_stages, 0, 1};
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

const char* tilejit_softmax_plan(int64_t rows, int64_t cols, int in_dtype, int out_dtype,
                                 const tilejit_softmax_options* options, int* source) {
  static thread_local std::string text;
  const char* result = nullptr;
  guarded([&] {
    const auto plan = plan_of("tilejit_softmax_plan", rows, cols, in_dtype, out_dtype, options);
    text = tilejit::ops::describe(plan.config);
    if (source) *source = static_cast<int>(plan.source);
    result = text.c_str();
  });
  return result;
}

const char* tilejit_softmax_plan_table(int64_t rows, int64_t cols, int in_dtype, int out_dtype,
                                       const tilejit_softmax_options* options) {
  static thread_local std::string device;
  const char* result = nullptr;
  guarded([&] {
    device = plan_of("tilejit_softmax_plan_table", rows, cols, in_dtype, out_dtype, options).table_device;
    result = device.c_str();
  });
  return result;
}

int tilejit_softmax_kernels(const void* out, const void* in, int64_t rows, int64_t cols, int64_t in_row_stride,
                            int64_t out_row_stride, int in_dtype, int out_dtype, const tilejit_softmax_options* options,
                            tilejit_compiled** kernels, int capacity, int* count) {
  return guarded([&] {
    if (!count || (capacity > 0 && !kernels) || capacity < 0)
      throw tilejit::Error("tilejit_softmax_kernels: null count, or no room for the kernels");
    const tilejit_softmax_options with = options ? *options : tilejit_softmax_options{};
    tilejit::Memory memory{};
    const auto op = softmax_options("tilejit_softmax_kernels", with, memory);
    const auto compiled =
        tilejit::ops::compile_softmax(pointer_to(out, out_dtype, memory), pointer_to(in, in_dtype, memory), rows, cols,
                                      in_row_stride, out_row_stride, with.log != 0, op);
    *count = static_cast<int>(compiled.size());
    for (std::size_t i = 0; i < compiled.size() && static_cast<int>(i) < capacity; ++i)
      kernels[i] = handle_for(*compiled[i]);
  });
}

}  // extern "C"
