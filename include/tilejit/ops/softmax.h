// Row-wise softmax and log_softmax for any shape: one entry point that picks a strategy and a
// launch configuration per shape and device, every strategy a DSL kernel
// (tilejit/ops/softmax_kernels.h).
//
//   tilejit::ops::softmax(out, in, rows, cols, in_row_stride, out_row_stride, stream);
//
// Strategies, by row width N (elements):
//  - rows_2d: many short rows per program (a ROWS x BLOCK_COLS tile), for narrow rows;
//  - row_in_registers: one row per program, held whole in registers (one read, one write);
//  - online: rows too wide for registers — running max and sum in one pass, a second pass re-reads
//    the row (it comes back from L2) to normalize;
//  - split_row: few, very wide rows — each row split over many programs: per-chunk partial
//    max/sum into a small workspace, then a second launch combines them and normalizes;
//  - cluster: a row split over the programs of a thread-block cluster (sm_90: up to 16), the
//    row's max and sum combined across the cluster (tl::cluster_*). When block x cluster size
//    covers the row each program holds its slice in registers (one read, one write); else each
//    walks its slice twice (online max and sum, then normalize), the second pass from L2.
//  - group: as cluster, over a group of up to 4096 programs exchanging through global memory
//    (tl::group_*) in one cooperative launch: rows wider than 16 programs' registers kept on
//    chip, or walked by many programs; any CUDA GPU.
// The configuration comes from, in order: SoftmaxOptions::config (forced), the autotuner's file
// for this device (tilejit/ops/softmax_autotune.h), the built-in table (hand-derived starting
// points; see softmax_table.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilejit/kernel.h"

namespace tilejit::ops {

enum class SoftmaxStrategy { automatic, rows_2d, row_in_registers, online, split_row, cluster, group };

/// "automatic", "rows_2d", "row_in_registers", "online", "split_row", "cluster" or "group".
const char* strategy_name(SoftmaxStrategy s);
/// The inverse of strategy_name; false for an unknown name.
bool parse_strategy(std::string_view name, SoftmaxStrategy& out);

/// How many programs a grid-stride strategy (rows_2d, row_in_registers, online, cluster) launches.
enum class SoftmaxGrid {
  /// Sized from occupancy (online: also capped by L2); each program walks many rows, and
  /// num_stages > 1 issues the next row's loads before the current one is finished.
  persistent,
  /// One program per row (rows_2d: per row block): the hardware's block scheduler overlaps
  /// one program's tail with the next one's loads instead.
  per_row,
};

/// "persistent" or "per_row".
const char* grid_name(SoftmaxGrid g);
/// The inverse of grid_name; false for an unknown name.
bool parse_grid(std::string_view name, SoftmaxGrid& out);
/// A configuration's generator by codegen_name ("ptx", "cuda" or "tiered"); false for any other.
bool parse_codegen(std::string_view name, GpuCodegen& out);

/// One launch configuration of one strategy.
struct SoftmaxConfig {
  SoftmaxStrategy strategy = SoftmaxStrategy::automatic;
  /// Columns per block, a power of two. rows_2d: BLOCK_COLS (>= cols); row_in_registers: the
  /// whole row (>= cols); online and split_row: columns per loop step; cluster and group: columns
  /// per program when block * splits >= cols, else per loop step over the program's slice.
  std::int64_t block = 0;
  int num_warps = 4;
  /// Loads in flight (tl::LoopOptions::num_stages).
  int num_stages = 1;
  std::int64_t rows_per_program = 1;  ///< rows_2d: ROWS, a power of two
  std::int64_t splits = 1;            ///< split_row: programs per row; cluster, group: the cluster (group) size
  /// split_row: always one program per (chunk, row); cluster: per_row is one cluster per row;
  /// group: always persistent (its programs must all be resident).
  SoftmaxGrid grid = SoftmaxGrid::persistent;
  /// group: each row's exchange runs while other rows move. Holding the row in registers (block *
  /// splits >= cols), the program reads its part of the set's next row meanwhile, so it holds two
  /// rows' parts. Wider rows: each program holds its whole slice (slice / block blocks, at most 16)
  /// in registers while its slice of the next row lands in shared memory, instead of walking it
  /// twice, and posts the next row's statistics before it waits for the held row's.
  bool overlap = false;
  /// CUDA: blocks each SM should hold at once; ptxas caps registers to fit them, spilling if it
  /// must (CompileOptions::min_blocks_per_sm). 0: no bound.
  int min_blocks_per_sm = 0;
  /// Walks (online, split_row's partials, walking clusters and groups): the columns of a block
  /// each running max and sum covers, a power of two up to block. Fewer columns mean no block
  /// reduction a step but more statistics to rescale; the whole block means one block max a step
  /// and a sum per element. 0: the backend's default (detail::stat_cols). Refused for rows_2d and
  /// row_in_registers; clusters and groups holding their slices ignore it.
  std::int64_t stat_cols = 0;
  /// Walking clusters and groups: program r of a set walks blocks r, r + set size, ... of the whole
  /// row instead of a slice of contiguous blocks, so the set's reads move along the row together.
  /// Refused for other strategies; clusters and groups holding their slices ignore it.
  bool interleave = false;
  /// rows_2d and row_in_registers on CUDA: programs sharing one thread block
  /// (CompileOptions::programs_per_block), so programs of one or two warps are not capped by the
  /// SM's 32 blocks. 1: a block each. The CPU backend runs the same programs unpacked.
  int programs_per_block = 1;
  /// CUDA: which generator builds the kernels (CompileOptions::codegen). automatic: the
  /// default's (TILEJIT_CODEGEN, else tiered: NVRTC's build once it is done, unless the PTX
  /// generator's spills less or fits more blocks an SM). A table names ptx where that build ran
  /// faster at equal occupancy (H100, f32 16 x 4M in groups of 264: 0.210 ms against NVRTC's 0.222;
  /// bench/results/probes_generators_few_wide_h100_2026-12-05.md). The CPU backend ignores it.
  GpuCodegen codegen = GpuCodegen::automatic;
  bool operator==(const SoftmaxConfig&) const = default;
};

/// "online BLOCK=4096 warps=8" ("... grid=per_row" when not persistent), for logs and tools.
std::string describe(const SoftmaxConfig& c);
/// The configuration describe() wrote: the strategy, then words in any order (BLOCK=N, warps=N,
/// stages=N, rows/program=N, splits=N | cluster=N | group=N as the strategy names its set,
/// grid=G, overlap, interleave, min_blocks=N, stat_cols=N, programs/block=N); what is left out keeps SoftmaxConfig's
/// default, BLOCK excepted. Throws tilejit::Error naming the word it cannot use. Whether the
/// configuration can run a shape is checked where it runs.
SoftmaxConfig parse_config(std::string_view text);

struct SoftmaxOptions {
  Backend backend = Backend::automatic;
  /// Forces a strategy and configuration (tests, benchmarks); checked against the shape.
  std::optional<SoftmaxConfig> config;
  /// CPU backend: at most this many threads (0: the default, see default_cpu_threads).
  int cpu_threads = 0;
  /// Walking clusters and groups (cluster or group with block * splits < cols): the most shared
  /// memory each program keeps the first blocks of its slice in between its two passes, so those
  /// are read from memory once (tl::stash). -1: the program's share of an SM at 1024 threads an
  /// SM (a quarter of it for 256 threads), less 2 KiB, or none where those programs' slices fit
  /// in 128 KiB (L1 holds them); 0: none, every block is read twice.
  std::int64_t kept_bytes = -1;
};

/// Where a plan's configuration came from.
/// forced: SoftmaxOptions::config; autotune: the user's tuning file; device_table: the tuned table
/// shipped for this device, or for a device of the same compute capability and SM count; table:
/// the built-in hand-derived table.
enum class ConfigSource { forced, autotune, device_table, table };
const char* config_source_name(ConfigSource s);

struct SoftmaxPlan {
  SoftmaxConfig config;
  ConfigSource source = ConfigSource::table;
  Backend backend = Backend::cuda;  ///< resolved: cuda or cpu
  /// device_table: the device whose table holds the band (this one's, or one it borrows; see
  /// shipped_table_devices).
  std::string table_device;
};

/// The configuration softmax would use for this problem (no launch, no tuning).
SoftmaxPlan plan_softmax(std::int64_t rows, std::int64_t cols, DType in, DType out, const SoftmaxOptions& options = {});

/// out[r][c] = exp(in[r][c] - max_r) / sum_r over `rows` rows of `cols` elements, rows
/// `in_row_stride` / `out_row_stride` elements apart. Element types come from the pointers (f32,
/// f16 or bf16, in and out may differ); arithmetic is f32. Rows that are all -inf, or hold +inf or
/// NaN, give NaN as torch.softmax does. rows or cols == 0 launches nothing. On CUDA the launch
/// is asynchronous on `stream`. Throws tilejit::Error for negative or too large sizes, null or
/// misaligned pointers, other element types, an output row stride < cols (rows would overlap),
/// a pointer whose `bytes` (a Buffer's size) do not hold the rows it is given, or a forced
/// configuration that does not fit the shape. On the CPU backend every access of the kernels is
/// checked against the rows (tilejit::Pointer::bytes).
void softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
             std::int64_t out_row_stride, StreamHandle stream = nullptr, const SoftmaxOptions& options = {});

/// out[r][c] = in[r][c] - max_r - log(sum_r); otherwise as softmax.
void log_softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
                 std::int64_t out_row_stride, StreamHandle stream = nullptr, const SoftmaxOptions& options = {});

/// The kernels softmax (or log_softmax) would launch for this problem, compiled but not launched
/// (for inspection: their stages, PTX, registers). Needs no GPU for the CUDA backend.
std::vector<const CompiledKernel*> compile_softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols,
                                                   std::int64_t in_row_stride, std::int64_t out_row_stride,
                                                   bool log = false, const SoftmaxOptions& options = {});

}  // namespace tilejit::ops
