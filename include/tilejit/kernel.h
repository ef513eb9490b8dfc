// Kernels: compile a DSL function for a specialization, inspect every stage, launch it.
//
//   tilejit::Kernel add("add_kernel", add_kernel, {"x", "y", "out", "n", "BLOCK"});
//   add.launch({tilejit::cdiv(n, 1024)}, {x, y, out, n, 1024}, {.num_warps = 4});
//
// The first launch of a specialization (argument dtypes, constexpr values, num_warps,
// num_stages, arch, backend) traces the function, generates code (CUDA C compiled by NVRTC for
// the GPU, or LLVM IR compiled by LLVM's ORC JIT for the host CPU) and caches the result; later
// launches of the same specialization go straight to the device or the CPU thread pool.
//
// Backends: Backend::cuda runs on the GPU with device Buffers; Backend::cpu runs every program of
// the grid on the host's cores (same program_id/num_programs semantics, launches synchronous)
// with host Buffers. Backend::automatic picks TILEJIT_BACKEND (cuda|cpu) when set, else CUDA
// when a GPU is present, else the CPU; an explicit CUDA `arch` option implies CUDA.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilejit/device.h"
#include "tilejit/dtype.h"
#include "tilejit/tl.h"

namespace tilejit {

/// Launch grid: number of programs along x, y, z.
struct Grid {
  std::uint64_t x = 1, y = 1, z = 1;
  Grid(std::uint64_t x_ = 1, std::uint64_t y_ = 1, std::uint64_t z_ = 1) : x(x_), y(y_), z(z_) {}  // NOLINT
};

/// ceil(a / b) for sizing grids.
constexpr std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// A raw pointer argument (device address, or host address for the CPU backend) with the
/// element type the kernel should see. Buffers convert to this implicitly and record where
/// their memory is, so a launch on the wrong backend is caught, and how many bytes it holds, so
/// the CPU backend can check every load and store through it; raw pointers are not checked.
struct Pointer {
  static constexpr std::uint64_t unknown_bytes = ~std::uint64_t{0};
  std::uint64_t address = 0;
  DType dtype = DType::f32;
  Memory memory = Memory::unknown;
  /// Bytes from `address` the kernel may touch (a Buffer's size); unknown_bytes: not checked.
  std::uint64_t bytes = unknown_bytes;
};

/// How CUDA kernels are generated (the CPU backend ignores this).
enum class GpuCodegen {
  automatic,  ///< TILEJIT_CODEGEN (ptx|cuda|tiered) when set, else kDefaultGpuCodegen
  ptx,        ///< PTX straight from the IR, assembled by ptxas (in process when the toolkit has nvPTXCompiler;
              ///< else its program, else nvJitLink; no NVRTC); kernels it cannot express fall back to cuda,
              ///< saying why in KernelMetadata::compile_reason
  cuda,       ///< CUDA C compiled by NVRTC
  /// NVRTC's kernel when the memory or disk cache has it; else the PTX generator's at once (a
  /// third of NVRTC's compile time) while NVRTC builds its own on a background thread, which
  /// replaces it for later launches and lands in the disk cache. A CompiledKernel& already handed
  /// out stays the one it was. wait_for_background_compiles() waits for those builds.
  tiered,
};
/// What GpuCodegen::automatic means without TILEJIT_CODEGEN: tiered. A first call gets a kernel
/// in the PTX generator's time (a third of NVRTC's) and later calls NVRTC's, which the disk cache
/// then gives every new process at once; the two ran at the same speed on most shapes on the H200
/// (bench/results/generators_cuda.md, generators_ptx.md).
inline constexpr GpuCodegen kDefaultGpuCodegen = GpuCodegen::tiered;
/// "automatic", "ptx", "cuda" or "tiered".
const char* codegen_name(GpuCodegen c);
/// What GpuCodegen::automatic means now. Throws tilejit::Error when TILEJIT_CODEGEN has another
/// value than ptx, cuda or tiered.
GpuCodegen default_codegen();
/// Blocks until the background builds GpuCodegen::tiered has queued so far (in any kernel) are done.
void wait_for_background_compiles();
/// True when this build has the CPU backend (LLVM). When false and `reason` is non-null,
/// *reason says why in a sentence. Never throws.
bool has_cpu_backend(std::string* reason = nullptr);
/// Threads a CPU launch uses unless LaunchOptions::cpu_threads says otherwise:
/// TILEJIT_CPU_THREADS when set, else one per hardware core. Throws tilejit::Error without the
/// CPU backend or for a malformed TILEJIT_CPU_THREADS.
int default_cpu_threads();

/// One launch argument: a pointer, an integer or a floating-point number. Integers bind to
/// tl::Int parameters (as i32 when the value fits, else i64) and to tl::Constexpr ones.
class Arg {
 public:
  enum class Kind { pointer, integer, floating };
  Arg(const Buffer& b) : kind_(Kind::pointer), pointer_{b.address(), b.dtype(), b.memory(), b.bytes()} {}  // NOLINT
  Arg(Pointer p) : kind_(Kind::pointer), pointer_(p) {}                                                    // NOLINT
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  Arg(I v) : kind_(Kind::integer), int_(static_cast<std::int64_t>(v)) {}  // NOLINT
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  Arg(F v) : kind_(Kind::floating), float_(static_cast<double>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  const Pointer& pointer() const { return pointer_; }
  std::int64_t int_value() const { return int_; }
  double float_value() const { return float_; }

 private:
  Kind kind_;
  Pointer pointer_{};
  std::int64_t int_ = 0;
  double float_ = 0.0;
};

/// How a kernel is compiled.
struct CompileOptions {
  int num_warps = 4;   ///< 1, 2, 4, 8, 16 or 32 (32 threads each)
  int num_stages = 1;  ///< default pipelining depth recorded in the key
  /// CUDA target such as "sm_90"; empty: TILEJIT_ARCH, else the device's, else sm_90.
  /// Setting it asks for the CUDA backend when `backend` is automatic.
  std::string arch;
  Backend backend = Backend::automatic;
  GpuCodegen codegen = GpuCodegen::automatic;  ///< CUDA: PTX generator or CUDA C + NVRTC
  /// CUDA: blocks of this kernel each SM should hold at once (__launch_bounds__'s second
  /// argument, PTX .minnctapersm): ptxas keeps registers to 65536 / (threads x this), spilling
  /// if it must. 0: no bound (ptxas picks the registers). Part of the key; the CPU backend ignores it.
  int min_blocks_per_sm = 0;
  /// CUDA: programs that share one thread block (consecutive along grid axis 0), each with its own
  /// warps, shared memory and barriers. An SM holds at most 32 blocks, so one-warp programs alone
  /// fill half of its 64 warp slots; packed, they can fill them all, and a grid of many small
  /// programs needs fewer block launches. 1 to 16, with programs_per_block x num_warps <= 32.
  /// Not with clusters, groups or stashes (those need a block of their own). program_id and
  /// num_programs keep their meaning: the launch grid still counts programs. Part of the key;
  /// the CPU backend ignores it.
  int programs_per_block = 1;
  /// CUDA: in loops pipelined with num_stages >= 2, a load too wide to prefetch in registers
  /// (more than 32 elements a thread, where two copies would spill) is prefetched one iteration
  /// ahead through shared memory instead (a stash of its block filled by cp.async, as Triton's
  /// pipeliner does), rather than not at all. Costs the block's bytes of shared memory per such
  /// load; not with programs_per_block > 1. Off by default until its speed has been measured
  /// against the launches it would replace. Part of the key; the CPU backend ignores it.
  bool prefetch_in_shared = false;
};

/// How a kernel is launched: its compile options plus the stream (CUDA) or the number of
/// threads (CPU).
struct LaunchOptions {
  int num_warps = 4;
  int num_stages = 1;
  std::string arch;
  StreamHandle stream = nullptr;
  Backend backend = Backend::automatic;
  /// CPU backend: at most this many threads (0: TILEJIT_CPU_THREADS when set, else every core).
  int cpu_threads = 0;
  GpuCodegen codegen = GpuCodegen::automatic;
  int min_blocks_per_sm = 0;        ///< see CompileOptions::min_blocks_per_sm
  int programs_per_block = 1;       ///< see CompileOptions::programs_per_block
  bool prefetch_in_shared = false;  ///< see CompileOptions::prefetch_in_shared
};

/// What the compiler knows about a compiled kernel, available without a GPU.
struct KernelMetadata {
  std::string kernel_name;          ///< the DSL function's name
  std::string entry_name;           ///< symbol in the module
  std::string key;                  ///< the specialization, as the cache sees it
  Backend backend = Backend::cuda;  ///< cuda or cpu, never automatic
  std::string arch;                 ///< CUDA: "sm_90"; CPU: the host target and LLVM version
  /// CUDA: the generator that produced the binary, "ptx" (ptxas/nvJitLink) or "cuda" (NVRTC); empty for CPU.
  std::string codegen;
  int num_warps = 4;
  int num_stages = 1;
  int min_blocks_per_sm = 0;        ///< CompileOptions::min_blocks_per_sm
  int programs_per_block = 1;       ///< CompileOptions::programs_per_block
  bool prefetch_in_shared = false;  ///< CompileOptions::prefetch_in_shared
  /// Programs per thread-block cluster (tl::cluster_* reductions; consecutive along axis 0), else 1.
  int cluster_size = 1;
  /// Programs per group (tl::group_* reductions through global memory; consecutive along axis 0),
  /// else 1. Such a kernel launches cooperatively: all its programs resident at once.
  int group_size = 1;
  int dynamic_shared_bytes = 0;        ///< scratch for reductions / layout conversions (the whole block's)
  std::int64_t cpu_scratch_bytes = 0;  ///< CPU: per-thread scratch for materialized blocks
  int registers = 0;                   ///< from ptxas
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  /// compile_ms: NVRTC, the PTX assembler or LLVM, or reading the disk entry.
  double trace_ms = 0, codegen_ms = 0, compile_ms = 0;
  /// Why this specialization was compiled: which key component differs from the nearest one
  /// cached (also printed on stderr with TILEJIT_DEBUG=1), and what the disk cache did.
  std::string compile_reason;
  bool from_disk_cache = false;  ///< the binary was read from the disk cache (NVRTC / PTX assembler skipped)
  std::string disk_cache_path;   ///< the disk-cache entry read or written; empty when none
  std::string override_path;     ///< a TILEJIT_OVERRIDE_DIR file used instead of the CUDA C or PTX
};

/// What the driver reports once the kernel is loaded on the device.
struct DeviceResources {
  int n_regs = 0;
  int local_bytes = 0;  ///< per thread: spills and stack
  int static_shared_bytes = 0;
  int max_threads_per_block = 0;
  int max_active_blocks_per_sm = 0;  ///< at this kernel's block size and shared memory (blocks, not programs)
};

/// One specialization, compiled. Holds every stage of the pipeline.
class CompiledKernel {
 public:
  struct Impl;
  explicit CompiledKernel(std::unique_ptr<Impl> impl);
  ~CompiledKernel();
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  const KernelMetadata& metadata() const;
  /// A stage by its name: "ir" (as traced), "ir.lowered" (after passes), then for CUDA
  /// "cuda" (only when the CUDA C generator built the kernel), "ptx", "cubin" (binary) and for
  /// the CPU "llvm" (LLVM IR after optimization) and "asm" (native assembly, generated on first
  /// request). Throws tilejit::Error for an unknown or unavailable stage.
  const std::string& stage(std::string_view name) const;
  std::vector<std::string> stage_names() const;
  /// Writes a stage to `dir`/<entry_name>.<stage> (directories created) and returns the
  /// file's absolute path.
  std::string write_stage(std::string_view name, const std::string& dir = dump_directory()) const;
  /// TILEJIT_DUMP_DIR, else ./tilejit-dump.
  static std::string dump_directory();

  /// Loads the module on first use and reports the driver's view. Needs a GPU and a CUDA kernel.
  DeviceResources resources() const;
  /// Launches with the same argument list the kernel was compiled for (constexpr values and
  /// dtypes must match this specialization). CUDA launches are asynchronous on `stream`; CPU
  /// launches return when every program has run. Buffers in the other backend's memory are a
  /// UserError.
  void launch(Grid grid, std::span<const Arg> args, StreamHandle stream = nullptr,
              std::source_location loc = std::source_location::current()) const;
  void launch(Grid grid, std::initializer_list<Arg> args, StreamHandle stream = nullptr,
              std::source_location loc = std::source_location::current()) const {
    launch(grid, std::span<const Arg>(args.begin(), args.size()), stream, loc);
  }
  /// The same, taking the stream and the CPU thread cap from `options` (its compile options
  /// are ignored: this kernel is already compiled).
  void launch(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
              std::source_location loc = std::source_location::current()) const;
  void launch(Grid grid, std::initializer_list<Arg> args, const LaunchOptions& options,
              std::source_location loc = std::source_location::current()) const {
    launch(grid, std::span<const Arg>(args.begin(), args.size()), options, loc);
  }

  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Grid size of a persistent launch over `work_items` (rows): as many programs as can be
/// resident at once — SMs × min(registers per SM / registers per program, shared memory per SM
/// / shared memory per program) — but no more than `work_items`. Needs a GPU for CUDA kernels;
/// for CPU kernels it is a few programs per core (capped by `work_items`). For a kernel with
/// clusters of C programs, work items are counted per cluster and the grid is C × the number of
/// clusters resident at once (cuOccupancyMaxActiveClusters), capped by `work_items` clusters.
/// Groups of G programs (tl::group_*) count the same way: G × min(resident / G, work_items).
std::uint64_t persistent_grid(const CompiledKernel& kernel, std::uint64_t work_items);

/// How many programs of a CUDA kernel the device holds at once (the count persistent_grid
/// caps at; for clusters, whole clusters). Needs a GPU.
std::uint64_t resident_programs(const CompiledKernel& kernel);

/// Bytes of one group's part of a tl::group_* workspace: four barriers (one 32-bit word
/// each, on lines of their own) and four sets of `group_size` 8-byte slots, rounded up
/// to 128 bytes (exchange n uses barrier and set n mod 4).
constexpr std::uint64_t group_workspace_stride(std::int64_t group_size) {
  return 512 + (4 * 8 * static_cast<std::uint64_t>(group_size) + 127) / 128 * 128;
}
/// Bytes of zeroed global memory the tl::group_* reductions of a launch of `programs` programs
/// (grid axis 0) in groups of `group_size` need.
constexpr std::uint64_t group_workspace_bytes(std::uint64_t programs, std::int64_t group_size) {
  return programs / static_cast<std::uint64_t>(group_size) * group_workspace_stride(group_size);
}

namespace detail {

enum class ParamKind { pointer, integer, floating, constexpr_int };

template <class P>
constexpr ParamKind param_kind() {
  using T = std::remove_cvref_t<P>;
  if constexpr (std::is_same_v<T, tl::Ptr>) return ParamKind::pointer;
  else if constexpr (std::is_same_v<T, tl::Int>) return ParamKind::integer;
  else if constexpr (std::is_same_v<T, tl::Float>) return ParamKind::floating;
  else if constexpr (std::is_same_v<T, tl::Constexpr>) return ParamKind::constexpr_int;
  else static_assert(sizeof(T) == 0, "kernel parameters must be tl::Ptr, tl::Int, tl::Float or tl::Constexpr");
}

}  // namespace detail

namespace tl::detail {
Tensor param_tensor(int index);
std::int64_t param_constexpr(int index);
}  // namespace tl::detail

/// Per-kernel settings.
struct KernelOptions {
  /// Parameters exempt from argument specialization: no 16-byte alignment, divisible-by-16
  /// or ==1 facts are derived for them (fewer recompiles when such values vary a lot).
  std::vector<std::string> do_not_specialize;
};

/// A DSL function and its cache of compiled specializations. Not copyable; thread-safe.
class KernelBase {
 public:
  struct Impl;
  ~KernelBase();
  KernelBase(const KernelBase&) = delete;
  KernelBase& operator=(const KernelBase&) = delete;

  const std::string& name() const;

  /// Compiles (or finds in the cache) the specialization these arguments select.
  const CompiledKernel& compile(std::span<const Arg> args, const CompileOptions& options = {},
                                std::source_location loc = std::source_location::current()) const;
  const CompiledKernel& compile(std::initializer_list<Arg> args, const CompileOptions& options = {},
                                std::source_location loc = std::source_location::current()) const {
    return compile(std::span<const Arg>(args.begin(), args.size()), options, loc);
  }
  /// compile() then launch on `grid`.
  void launch(Grid grid, std::span<const Arg> args, const LaunchOptions& options = {},
              std::source_location loc = std::source_location::current()) const;
  void launch(Grid grid, std::initializer_list<Arg> args, const LaunchOptions& options = {},
              std::source_location loc = std::source_location::current()) const {
    launch(grid, std::span<const Arg>(args.begin(), args.size()), options, loc);
  }

  /// Specializations in this kernel's memory cache, and how many compiles it took to fill it
  /// (a specialization read from the disk cache counts as a compile: it was not in memory).
  std::size_t cache_size() const;
  std::size_t compile_count() const;
  /// The compile_reason of this kernel's latest compile; empty before the first.
  std::string last_miss_reason() const;
  /// Blocks until this kernel's background builds (GpuCodegen::tiered) are done.
  void wait_for_background_compiles() const;

 protected:
  KernelBase(std::string name, std::vector<detail::ParamKind> kinds, std::vector<std::string> names,
             const KernelOptions& options, const void* identity, std::function<void()> invoke,
             std::source_location loc);

 private:
  std::unique_ptr<Impl> impl_;
};

/// A kernel made from a DSL function. `param_names` (optional) name the parameters in
/// error messages and IR.
template <class... Params>
class Kernel : public KernelBase {
 public:
  using Function = void (*)(Params...);
  /// Names that do not match the parameters are a UserError at this line.
  Kernel(std::string name, Function fn, std::vector<std::string> param_names = {}, const KernelOptions& options = {},
         std::source_location loc = std::source_location::current())
      : KernelBase(
            std::move(name), {detail::param_kind<Params>()...}, std::move(param_names), options,
            reinterpret_cast<const void*>(fn), [fn] { call(fn, std::index_sequence_for<Params...>{}); }, loc) {}

 private:
  template <std::size_t... I>
  static void call(Function fn, std::index_sequence<I...>) {
    fn(make<Params>(static_cast<int>(I))...);
  }
  template <class P>
  static std::remove_cvref_t<P> make(int index) {
    using T = std::remove_cvref_t<P>;
    if constexpr (std::is_same_v<T, tl::Constexpr>) return tl::Constexpr{tl::detail::param_constexpr(index)};
    else return T(tl::detail::param_tensor(index));
  }
};

}  // namespace tilejit
