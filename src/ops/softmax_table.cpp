// The softmax op's built-in dispatch table and the checks every configuration passes.
//
// The table's thresholds and configurations are hand-derived starting points, not measurements:
// they follow the seed's measured behaviour on the H200 (docs/perf-notes.md) and the register
// budget of a row held in registers. The autotuner (softmax_autotune.cpp) replaces them per band
// with measured winners; a table regenerated from its files is the intended successor.
#include <fmt/format.h>

#include <algorithm>

#include "softmax_internal.h"
#include "tilejit/device.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_seed.h"

namespace tilejit::ops::detail {

namespace {

// Widest row kept whole in registers: 16384 f32 over 16 warps is 32 values per thread, the most
// the seed held without spilling (elements are f32 in registers whatever the memory type).
constexpr std::int64_t kMaxRegisterRow = 16384;
// rows_2d up to this power-of-two width: below it one row per program leaves lanes idle or gives
// each thread too little to hide latency (65536 x 128 ran at 0.83 of copy with one row each).
constexpr std::int64_t kMaxRows2dBlock = 512;
// Elements per rows_2d tile: 16 f32 per thread at 4 warps.
constexpr std::int64_t kRows2dTile = 2048;
// Programs per SM (or per CPU thread) a split row aims for, so the grid fills the device.
constexpr int kSplitProgramsPerUnit = 4;
// Columns per loop step of online and split_row, and the fewest steps a split chunk gets. The
// autotuner's H200 winners for every wide band: 8192 x 16 warps (online), 4096 x 4 warps
// (split_row), both with the next step's loads in flight (2 stages).
constexpr std::int64_t kOnlineBlock = 8192;
constexpr std::int64_t kSplitBlock = 4096;
constexpr std::int64_t kMinSplitSteps = 2;
// Thread-block clusters (sm_90) hold rows of up to 16 programs' registers. Hypothesis until
// tuned: 8192 columns per program over 16 warps (16 per thread), 16384 past 16 such programs.
constexpr std::int64_t kMaxClusterSize = 16;
constexpr std::int64_t kClusterBlock = 8192;

}  // namespace

bool has_clusters(Backend b) {
  if (b != Backend::cuda) return false;
  return !has_gpu() || device_properties().cc_major >= 9;
}

int warps_for(std::int64_t elements, int most) {
  // At least 4 elements per thread, so no warp only holds copies of another's.
  int w = most;
  while (w > 1 && elements < 128 * w) w /= 2;
  return w;
}

std::int64_t next_pow2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

int size_band(std::int64_t n) {
  int b = 0;
  while ((std::int64_t{1} << b) < n) ++b;
  return b;
}

Backend resolve_backend(Backend b) { return b == Backend::automatic ? default_backend() : b; }

int parallelism(Backend b, int cpu_threads) {
  // Without a device (compiling CUDA kernels for inspection), plan for an H100/H200-sized GPU.
  if (b == Backend::cuda) return has_gpu() ? std::max(1, device_properties().sm_count) : 132;
  return cpu_threads > 0 ? cpu_threads : default_cpu_threads();
}

SoftmaxConfig table_config(std::int64_t rows, std::int64_t cols, std::size_t elem_bytes, Backend backend,
                           int parallel) {
  SoftmaxConfig c;
  std::int64_t width = next_pow2(cols);
  if (width <= kMaxRows2dBlock) {
    c.strategy = SoftmaxStrategy::rows_2d;
    c.block = width;
    // 16-bit elements: twice the rows for the same bytes per program.
    std::int64_t tile = elem_bytes <= 2 ? 2 * kRows2dTile : kRows2dTile;
    c.rows_per_program = std::max<std::int64_t>(1, tile / width);
    // Keep at least two row blocks per unit while rows allow: few rows should not pile into one program.
    while (c.rows_per_program > 1 && cdiv(rows, c.rows_per_program) < 2 * static_cast<std::int64_t>(parallel))
      c.rows_per_program /= 2;
    c.num_warps = warps_for(c.rows_per_program * width, 4);
    return c;
  }
  if (width <= kMaxRegisterRow) {
    c.strategy = SoftmaxStrategy::row_in_registers;
    c.block = width;
    SeedConfig seed = seed_config(width, elem_bytes);  // the seed kernel's measured choice
    c.num_warps = seed.num_warps;
    c.num_stages = seed.num_stages;
    c.min_blocks_per_sm = seed.min_blocks_per_sm;
    c.grid = seed.one_row_per_program ? SoftmaxGrid::per_row : SoftmaxGrid::persistent;
    return c;
  }
  // A row over a cluster when there are rows enough for the clusters to fill the device.
  const std::int64_t cluster_block = cols <= kMaxClusterSize * kClusterBlock ? kClusterBlock : 2 * kClusterBlock;
  const std::int64_t cluster = cdiv(cols, cluster_block);
  if (has_clusters(backend) && cluster <= kMaxClusterSize && rows * cluster >= static_cast<std::int64_t>(parallel)) {
    c.strategy = SoftmaxStrategy::cluster;
    c.block = cluster_block;
    c.splits = std::max<std::int64_t>(2, cluster);
    c.num_warps = 16;
    return c;
  }
  // (No group here. On the H200 groups holding their slices in registers lost to split_row and
  // the walking clusters everywhere (bench/results/group_probes_*.md); walking groups of one
  // program per SM won for f32 128 x 1M and 16 x 4M but lost for bf16 and 1 x 16M
  // (probes_aefcda4.md), so only the H200's tuned table names them, for those two bands.)
  if (rows >= 2 * static_cast<std::int64_t>(parallel) || rows > 65535) {
    c.strategy = SoftmaxStrategy::online;
    c.block = kOnlineBlock;
    c.num_warps = 16;
    c.num_stages = 2;
    return c;
  }
  c.strategy = SoftmaxStrategy::split_row;
  c.block = kSplitBlock;
  c.num_warps = 4;
  c.num_stages = 2;
  std::int64_t want = cdiv(kSplitProgramsPerUnit * static_cast<std::int64_t>(parallel), rows);
  std::int64_t most = std::max<std::int64_t>(1, cols / (kMinSplitSteps * c.block));
  c.splits = std::clamp<std::int64_t>(want, 1, most);
  return c;
}

namespace {

bool pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

void check_config(const SoftmaxConfig& c, std::int64_t rows, std::int64_t cols) {
  auto fail = [&](const std::string& why) {
    throw Error(fmt::format("softmax: configuration '{}' cannot run {} x {}: {}", describe(c), rows, cols, why));
  };
  if (c.num_warps < 1 || c.num_warps > 32 || !pow2(c.num_warps)) fail("num_warps must be 1, 2, 4, 8, 16 or 32");
  if (c.num_stages < 1 || c.num_stages > 8) fail("num_stages must be 1 to 8");
  if (!pow2(c.block) || c.block > (1 << 20)) fail("block must be a power of two up to 2^20");
  if (c.overlap && c.strategy != SoftmaxStrategy::group) fail("only groups overlap their exchanges");
  if (c.interleave && c.strategy != SoftmaxStrategy::group && c.strategy != SoftmaxStrategy::cluster)
    fail("only clusters and groups walking their slices interleave their blocks");
  if (c.programs_per_block < 1 || c.programs_per_block > 16 || c.programs_per_block * c.num_warps > 32)
    fail("programs_per_block must be 1 to 16, with at most 32 warps a block");
  if (c.programs_per_block != 1 && c.strategy != SoftmaxStrategy::rows_2d &&
      c.strategy != SoftmaxStrategy::row_in_registers)
    fail("only rows_2d and row_in_registers share thread blocks between programs");
  if (c.min_blocks_per_sm < 0 || c.min_blocks_per_sm > 32 ||
      c.min_blocks_per_sm * c.num_warps * c.programs_per_block > 64)
    fail("min_blocks_per_sm must be 0 to 32, and an SM holds at most 64 warps");
  if (c.stat_cols != 0 && (!pow2(c.stat_cols) || c.stat_cols > c.block))
    fail("stat_cols must be 0 (the default) or a power of two up to block");
  if (c.stat_cols != 0 && (c.strategy == SoftmaxStrategy::rows_2d || c.strategy == SoftmaxStrategy::row_in_registers))
    fail("stat_cols applies to walks (online, split_row, and clusters and groups walking their slices)");
  switch (c.strategy) {
    case SoftmaxStrategy::automatic: fail("no strategy named"); break;
    case SoftmaxStrategy::rows_2d:
      if (c.block < cols) fail("BLOCK_COLS must hold a whole row");
      if (!pow2(c.rows_per_program) || c.rows_per_program * c.block > (1 << 16))
        fail("rows_per_program must be a power of two and the tile at most 65536 elements");
      break;
    case SoftmaxStrategy::row_in_registers:
      if (c.block < cols) fail("block must hold a whole row");
      if (c.block > 65536) fail("rows wider than 65536 do not fit registers");
      break;
    case SoftmaxStrategy::online: break;
    case SoftmaxStrategy::split_row:
      if (c.grid != SoftmaxGrid::persistent) fail("split_row launches one program per (chunk, row) already");
      if (c.splits < 1 || c.splits > 4096) fail("splits must be 1 to 4096");
      if (rows > 65535) fail("split_row takes at most 65535 rows (the grid's y extent)");
      break;
    case SoftmaxStrategy::cluster:
      if (c.splits < 2 || c.splits > 16) fail("the cluster size (splits) must be 2 to 16");
      if (c.block > 65536) fail("more than 65536 columns per program do not fit registers");
      break;
    case SoftmaxStrategy::group:
      if (c.splits < 2 || c.splits > 4096) fail("the group size (splits) must be 2 to 4096");
      if (c.block > 65536) fail("more than 65536 columns per program do not fit registers");
      if (c.grid != SoftmaxGrid::persistent) fail("a group's programs must all be resident: the grid is persistent");
      if (c.overlap && c.block * c.splits < cols && held_parts(c, cols) > kMaxHeldParts)
        fail(
            fmt::format("a group holding its slices overlapped holds at most {} blocks a program, and this one would "
                        "hold {}: use a larger block or group",
                        kMaxHeldParts, held_parts(c, cols)));
      break;
  }
}

void reject_negative_size(const char* what, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0) throw Error(fmt::format("{}: negative size {} x {}", what, rows, cols));
}

void require_elements(const char* what, std::int64_t rows, std::int64_t cols) {
  reject_negative_size(what, rows, cols);
  if (rows == 0 || cols == 0) throw Error(fmt::format("{}: {} x {} has no elements", what, rows, cols));
}

bool config_fits(const SoftmaxConfig& c, std::int64_t rows, std::int64_t cols) {
  try {
    check_config(c, rows, cols);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace tilejit::ops::detail
