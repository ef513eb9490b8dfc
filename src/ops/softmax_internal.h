// What the softmax op's parts share: bands, the built-in table, configuration checks and the
// launcher of one configuration.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilejit/ops/softmax.h"

namespace tilejit::ops::detail {

/// At most `most` warps, halved until each thread holds at least 4 of `elements`.
int warps_for(std::int64_t elements, int most);
/// Smallest power of two >= n (n >= 1).
std::int64_t next_pow2(std::int64_t n);
/// ceil(log2(n)) for n >= 1: the band a size falls in (bands are powers of two).
int size_band(std::int64_t n);

/// The words of a line, split at spaces, tabs and carriage returns (tuning files, parse_config).
std::vector<std::string_view> words(std::string_view line);
/// Whether the whole of `w` is a number of T, read into `out` (tuning files, parse_config).
template <class T>
bool number(std::string_view w, T& out) {
  auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
  return ec == std::errc() && ptr == w.data() + w.size();
}

/// Cuda or cpu (never automatic).
Backend resolve_backend(Backend b);
/// How many programs run at once, roughly: SMs on the GPU, threads on the CPU.
int parallelism(Backend b, int cpu_threads);
/// Whether the cluster strategy can run: CUDA on sm_90 or newer (without a device, when compiling
/// for inspection, plan for one that can).
bool has_clusters(Backend b);

/// The built-in configuration for a problem (softmax_table.cpp).
SoftmaxConfig table_config(std::int64_t rows, std::int64_t cols, std::size_t elem_bytes, Backend backend, int parallel);

/// The CUDA kernels of each configuration for a rows x cols problem of out and in, compiled on up to
/// 16 threads; none for a configuration that does not fit or compile (softmax_candidates.cpp).
std::vector<std::vector<const CompiledKernel*>> compile_candidates(const std::vector<SoftmaxConfig>& configs,
                                                                   Pointer out, Pointer in, std::int64_t rows,
                                                                   std::int64_t cols);

/// Records `config` as the tuned winner of the band of rows x cols `dtype` on `backend`: in this
/// process at once and, with `persist`, in the device's tuning file, merged with the bands other
/// processes wrote there (softmax_tuned_tables.cpp). Nothing without a cache directory.
void record_tuned_config(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend,
                         const SoftmaxConfig& config, bool persist);

/// A tuned table shipped with tilejit (the autotuner's file format), and what the device it was
/// tuned on is: other devices of the same compute capability and SM count borrow it.
struct ShippedTable {
  std::string_view device;
  int cc_major, cc_minor, sm_count;
  std::string_view text;
};
/// Every shipped table (softmax_device_tables.cpp, generated from src/ops/tuned/).
std::span<const ShippedTable> shipped_tables();

/// The shipped tables' configuration for this problem on `backend`'s device: the first of
/// shipped_table_devices' tables whose entry for the band fits rows x cols, with that table's
/// device. Empty where none does (and on the CPU backend).
struct ShippedConfig {
  SoftmaxConfig config;
  std::string table_device;
};
std::optional<ShippedConfig> shipped_config(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend);

/// `p` with its bytes set to what `rows` rows `stride` elements apart, of `cols` elements each,
/// reach, so the CPU backend checks every access of the library's kernels against the problem
/// itself. Throws tilejit::Error (naming `what` and the `name`d pointer) when a size the caller
/// gave (a Buffer's) does not hold them.
Pointer with_problem_extent(const char* what, const char* name, Pointer p, std::int64_t rows, std::int64_t cols,
                            std::int64_t stride);

/// Throws tilejit::Error, naming `what`, when rows or cols is negative (calls with an empty
/// problem launch nothing; negative sizes are refused everywhere).
void reject_negative_size(const char* what, std::int64_t rows, std::int64_t cols);
/// reject_negative_size, and also refuses an empty problem: plans, compiles and tuning runs need one.
void require_elements(const char* what, std::int64_t rows, std::int64_t cols);

/// Throws tilejit::Error when `c` cannot run a rows x cols problem (a bad strategy, a block that
/// is not a power of two or too small for the row, bad warps...).
void check_config(const SoftmaxConfig& c, std::int64_t rows, std::int64_t cols);
/// check_config as a predicate.
bool config_fits(const SoftmaxConfig& c, std::int64_t rows, std::int64_t cols);

struct Problem {
  Pointer out, in;
  std::int64_t rows = 0, cols = 0, in_stride = 0, out_stride = 0;
  bool log = false;
};

/// Launches `c` (already checked) on `backend` (softmax_launch.cpp); with `compile_only`, compiles
/// the kernels it would launch and collects them instead.
void launch_config(const SoftmaxConfig& c, const Problem& p, Backend backend, StreamHandle stream,
                   const SoftmaxOptions& options, std::vector<const CompiledKernel*>* compile_only = nullptr);

/// How many of its slice's blocks each program of a walking cluster or group keeps in shared
/// memory between its two passes (softmax_launch.cpp; see SoftmaxOptions::kept_bytes).
std::int64_t kept_blocks(const SoftmaxConfig& c, std::int64_t slice, DType dtype, Backend backend,
                         std::int64_t kept_bytes);

/// The columns of a block each running statistic of a walk covers (the walking kernels' STAT_COLS):
/// SoftmaxConfig::stat_cols when set, else 16 bytes of elements on the GPU, whose threads then
/// reduce a step without a barrier, and the whole block on the CPU, whose vector code reduces a
/// 1-D block and sums per element fastest.
std::int64_t stat_cols(const SoftmaxConfig& c, Backend backend, DType dtype);

/// Whether `c` walks slices of a row twice (a cluster or group whose programs cannot hold the row
/// in registers) rather than holding them.
inline bool walks_slices(const SoftmaxConfig& c, std::int64_t cols) {
  return (c.strategy == SoftmaxStrategy::cluster || c.strategy == SoftmaxStrategy::group) && c.block * c.splits < cols;
}

/// Columns per part of a row split `parts` ways, rounded up to whole loop steps of `block`: the
/// chunks of split_row and the slices that walking clusters and groups give each program.
inline std::int64_t part_columns(std::int64_t cols, std::int64_t parts, std::int64_t block) {
  return cdiv(cdiv(cols, parts), block) * block;
}

/// A group overlapping its exchanges over rows wider than block x group holds each program's
/// slice whole (SoftmaxConfig::overlap): this many blocks of it, at most kMaxHeldParts (each is
/// a traced step of its own, and a thread's share of them stays in registers).
inline constexpr std::int64_t kMaxHeldParts = 16;
inline std::int64_t held_parts(const SoftmaxConfig& c, std::int64_t cols) {
  return part_columns(cols, c.splits, c.block) / c.block;
}

/// The most programs a persistent grid of walked slices (walking clusters and groups) launches:
/// 1024 threads an SM, the occupancy kept_blocks sizes their stash and their L1 re-read for, so
/// a kernel whose registers would let more programs in does not open more rows than L2 and L1
/// hold between the passes. A multiple of `set` (the programs sharing a row), at least one set.
std::uint64_t walk_program_cap(const SoftmaxConfig& c, std::int64_t set, int sm_count);

/// Whether a row offset (row * stride + column) of this problem can pass 2^31 - 1.
bool needs_wide_offsets(const SoftmaxConfig& c, const Problem& p);

/// The directory tuning files are kept in (TILEJIT_CACHE_DIR, else under XDG_CACHE_HOME or HOME),
/// empty when there is none.
std::string cache_dir();

/// A call's plan, cached per shape and backend (softmax_plan_cache.cpp) for calls without a
/// forced configuration.
struct PlanKey {
  std::int64_t rows = 0, cols = 0;
  DType in = DType::f32, out = DType::f32;
  Backend backend = Backend::automatic;  // as asked (its resolution does not change in a process)
  int cpu_threads = 0;
  bool operator==(const PlanKey&) const = default;
};
/// What else a plan is made from, as the environment has it at the call.
struct PlanInputs {
  std::string cache_dir;  // where the tuning file is
  bool autotune = false;  // TILEJIT_AUTOTUNE=1: a band without a tuned entry is tuned first
  int parallel = 0;       // parallelism(): the hand table's sizes (CPU threads may come from the environment)
  bool operator==(const PlanInputs&) const = default;
};
/// The environment's part of a call's plan now.
PlanInputs plan_inputs(const SoftmaxOptions& options);
struct PlanLookup {
  std::optional<SoftmaxPlan> plan;  // empty: none cached, or stale
  std::uint64_t generation = 0;     // the tuned tables' generation, for remember_plan
};
PlanLookup cached_plan(const PlanKey& key, const PlanInputs& inputs);
/// Keeps `plan`, made from the tables of `generation` (from cached_plan before it was made): a
/// plan made while the tables changed is not kept.
void remember_plan(const PlanKey& key, const PlanInputs& inputs, std::uint64_t generation, const SoftmaxPlan& plan);
/// The tuned tables changed (a tuning run, forget_softmax_tuning): every cached plan is stale.
void forget_plans();

}  // namespace tilejit::ops::detail
