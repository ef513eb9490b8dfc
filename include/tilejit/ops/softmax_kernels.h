// The library softmax's strategies, each a DSL kernel (tilejit/ops/softmax.h dispatches among
// them). Every kernel computes in f32 whatever the element types, and takes two flags:
//  - LOG: log_softmax (x - max - log(sum)) instead of softmax (exp(x - max) / sum);
//  - WIDE: row offsets in 64 bits. The launcher sets it only when row * stride can pass 2^31 - 1,
//    so ordinary shapes keep 32-bit address arithmetic.
// Kernels that walk a row for its online max and sum also take STAT_COLS, the columns of a block
// each running statistic covers (detail::OnlineMaxSum): the launcher passes SoftmaxConfig::stat_cols,
// by default 16 bytes of elements on the GPU and the whole block on the CPU.
// Rows are walked grid-stride (program_id, num_programs), so one kernel serves a persistent grid
// on the GPU and one program per row (block) on the CPU. Per-element exponentials are
// tl::exp_fast (arguments x - max <= 0); scalar ones keep tl::exp.
//
// Rows split across programs exchange their partial max and sum three ways: split_row through a
// small global workspace and a second launch (any number of programs per row), cluster through
// the distributed shared memory of a thread-block cluster (tl::cluster_*, at most 16 programs),
// group through global memory within one cooperative launch (tl::group_*, up to 4096 programs).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::ops {

namespace tl = tilejit::tl;

namespace detail {

/// `row * stride`, in i64 when WIDE (the product may not fit i32).
inline tl::Tensor row_offset(const tl::Tensor& row, const tl::Int& stride, std::int64_t wide) {
  return wide ? row.to(DType::i64) * stride : row * stride;
}

/// The finished row from x (f32), its max and its sum of exp(x - max).
inline tl::Tensor normalize(const tl::Tensor& x, const tl::Operand& row_max, const tl::Operand& row_sum,
                            std::int64_t log) {
  if (log) return x - row_max - tl::log(row_sum);
  return tl::exp_fast(x - row_max) / row_sum;
}

}  // namespace detail

/// Many short rows per program: a ROWS x BLOCK_COLS tile, so narrow rows still give every thread
/// several elements. Row blocks are walked grid-stride.
inline void softmax_rows_2d_op_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                      tl::Int n_cols, tl::Constexpr ROWS, tl::Constexpr BLOCK_COLS, tl::Constexpr LOG,
                                      tl::Constexpr WIDE, tl::Constexpr NUM_STAGES) {
  auto n_blocks = tl::cdiv(n_rows, ROWS);
  tl::for_range(tl::program_id(0), n_blocks, tl::num_programs(0), {.num_stages = NUM_STAGES}, [&](tl::Int block) {
    auto rows = block * ROWS + tl::arange(0, ROWS);
    auto cols = tl::arange(0, BLOCK_COLS)(tl::newaxis, tl::all);
    auto mask = (rows(tl::all, tl::newaxis) < n_rows) & (cols < n_cols);
    auto in_rows = detail::row_offset(rows, in_stride, WIDE)(tl::all, tl::newaxis);
    auto x = tl::load(in + in_rows + cols, mask, -tl::inf).to(DType::f32);
    auto row_max = tl::max(x, 1)(tl::all, tl::newaxis);
    auto row_sum = tl::sum(tl::exp_fast(x - row_max), 1)(tl::all, tl::newaxis);
    auto out_rows = detail::row_offset(rows, out_stride, WIDE)(tl::all, tl::newaxis);
    tl::store(out + out_rows + cols, detail::normalize(x, row_max, row_sum, LOG), mask);
  });
}

/// One row per program, held whole in registers (BLOCK >= n_cols): one read, one write.
inline void softmax_row_op_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                  tl::Int n_cols, tl::Constexpr BLOCK, tl::Constexpr LOG, tl::Constexpr WIDE,
                                  tl::Constexpr NUM_STAGES) {
  tl::for_range(tl::program_id(0), n_rows, tl::num_programs(0), {.num_stages = NUM_STAGES}, [&](tl::Int row) {
    auto cols = tl::arange(0, BLOCK);
    auto mask = cols < n_cols;
    auto x = tl::load(in + detail::row_offset(row, in_stride, WIDE) + cols, mask, -tl::inf).to(DType::f32);
    auto row_max = tl::max(x, 0);
    auto row_sum = tl::sum(tl::exp_fast(x - row_max), 0);
    tl::store(out + detail::row_offset(row, out_stride, WIDE) + cols, detail::normalize(x, row_max, row_sum, LOG),
              mask);
  });
}

namespace detail {

/// Offsets 0 .. block - 1 as a (block / cols) x cols tile, `cols` a power of two up to `block`: the
/// columns each running statistic of a walk covers (see OnlineMaxSum). With 16 bytes of elements a
/// thread holds whole tile rows (one 16-byte access each), so reducing along axis 1 stays inside
/// the thread.
inline tl::Tensor stat_tile(std::int64_t block, std::int64_t cols) {
  const std::int64_t v = std::clamp<std::int64_t>(cols, 1, block);
  return tl::arange(0, block / v)(tl::all, tl::newaxis) * v + tl::arange(0, v)(tl::newaxis, tl::all);
}

/// The online max and sum of exp of a row's blocks, one block at a time, each block a stat_tile
/// with a running max per tile row. Created outside a loop and added to inside it, its values are
/// carried. Two forms, by the tile's shape:
///  - several tile rows (16 bytes each on the GPU): a sum per tile row too, so a step reduces only
///    inside threads (no barrier) and rescales one sum per tile row; one block reduction of each
///    closes the walk;
///  - one tile row (the whole block, as the CPU backend's vector code reduces best): one block
///    max a step and a sum per element, rescaled by one exp.
struct OnlineMaxSum {
  tl::Tensor lane_max, lane_sum;
  bool sum_per_element;
  explicit OnlineMaxSum(const tl::Tensor& tile)
      : lane_max(tl::full({tile.shape()[0]}, -tl::inf, DType::f32)),
        lane_sum(tl::zeros(tile.shape()[0] == 1 ? tile.shape() : tl::Shape{tile.shape()[0]}, DType::f32)),
        sum_per_element(tile.shape()[0] == 1) {}
  void add(const tl::Tensor& x) {  // an f32 tile, -inf where masked
    auto new_max = tl::maximum(lane_max, tl::max(x, 1));
    // While a lane has seen only -inf, shift by 0: exp(-inf - -inf) would be NaN. NaN and +inf
    // still reach the sum, as torch's softmax lets them reach every output.
    auto shift = tl::where(new_max == -tl::inf, 0.0f, new_max);
    auto e = tl::exp_fast(x - shift(tl::all, tl::newaxis));
    auto added = sum_per_element ? e : tl::sum(e, 1);
    auto scale = tl::exp_fast(lane_max - shift);
    lane_sum = lane_sum * (sum_per_element ? scale(tl::all, tl::newaxis) : scale) + added;
    lane_max = new_max;
  }
  /// Adds the tiles of a row that start at begin, begin + step, ... before end. The loads ask L2
  /// to keep the lines (Eviction::last): the second pass reads them again.
  void add_range(const tl::Tensor& row_in, const tl::Tensor& tile, const tl::Operand& begin, const tl::Operand& end,
                 std::int64_t step) {
    tl::for_range(begin, end, step, [&](tl::Int start) {
      auto cols = start + tile;
      add(tl::load(row_in + cols, cols < end, -tl::inf, Eviction::last).to(DType::f32));
    });
  }
  /// {max, sum}; an all -inf row gives {-inf, 0}.
  std::pair<tl::Tensor, tl::Tensor> result() const {
    auto row_max = tl::max(lane_max, 0);
    auto shift = tl::where(row_max == -tl::inf, 0.0f, row_max);
    auto sums = sum_per_element ? tl::sum(lane_sum, 1) : lane_sum;
    return {row_max, tl::sum(sums * tl::exp_fast(lane_max - shift), 0)};
  }
};

/// The online max and sum of the BLOCK columns of one row at begin, begin + step, ... before end
/// (step BLOCK: the columns [begin, end)), a running statistic per `stat_cols` columns of a block.
inline std::pair<tl::Tensor, tl::Tensor> online_max_sum(const tl::Tensor& row_in, const tl::Operand& begin,
                                                        const tl::Operand& end, std::int64_t block, std::int64_t step,
                                                        std::int64_t stat_cols) {
  auto tile = stat_tile(block, stat_cols);
  OnlineMaxSum stats(tile);
  stats.add_range(row_in, tile, begin, end, step);
  return stats.result();
}

/// Where a walked slice keeps its first blocks between the two passes: block i (the columns from
/// begin + i * step) in slot i of `stash`, as loaded, in the shape of `tile` (the walk's
/// stat_tile); the rest is read twice.
struct KeptBlocks {
  const tl::Stash& stash;
  tl::Tensor begin, end;  // the slice's first column, and the first one not kept
  std::int64_t step;
  tl::Tensor tile;
  KeptBlocks(const tl::Stash& s, const tl::Tensor& slice_begin, const tl::Tensor& slice_end, std::int64_t walk_step,
             const tl::Tensor& block_tile)
      : stash(s),
        begin(slice_begin),
        end(tl::minimum(slice_begin + s.slots() * walk_step, slice_end)),
        step(walk_step),
        tile(block_tile) {}
  /// The slot of the block that starts at column `start`.
  tl::Tensor slot(const tl::Tensor& start) const { return (start - begin) / step; }
};

/// online_max_sum over a slice whose first blocks it also puts into `kept`. Those loads are the
/// last of their lines (Eviction::first); the others ask L2 to keep theirs.
inline std::pair<tl::Tensor, tl::Tensor> online_max_sum_keeping(const tl::Tensor& row_in, const tl::Operand& begin,
                                                                const tl::Operand& end, const KeptBlocks& kept) {
  OnlineMaxSum stats(kept.tile);
  tl::for_range(begin, kept.end, kept.step, [&](tl::Int start) {
    auto cols = start + kept.tile;
    auto x = tl::load(row_in + cols, cols < end, -tl::inf, Eviction::first);
    kept.stash.put(kept.slot(start), x);
    stats.add(x.to(DType::f32));
  });
  stats.add_range(row_in, kept.tile, kept.end, end, kept.step);
  return stats.result();
}

/// The second pass of the two-pass strategies: the BLOCK columns of one row at begin, begin +
/// step, ... before end (step BLOCK: the columns [begin, end)), read for the last time and
/// written normalized (Eviction::first both ways: L2 keeps the rows still to be re-read).
inline void normalize_range(const tl::Tensor& row_out, const tl::Tensor& row_in, const tl::Operand& begin,
                            const tl::Operand& end, std::int64_t block, std::int64_t step, const tl::Tensor& row_max,
                            const tl::Tensor& row_sum, std::int64_t log) {
  auto lanes = tl::arange(0, block);
  tl::for_range(begin, end, step, [&](tl::Int start) {
    auto cols = start + lanes;
    auto mask = cols < end;
    auto x = tl::load(row_in + cols, mask, -tl::inf, Eviction::first).to(DType::f32);
    tl::store(row_out + cols, normalize(x, row_max, row_sum, log), mask, Eviction::first);
  });
}

/// normalize_range over a slice whose first blocks are in `kept`: the blocks read twice first (the
/// first pass read them last, so L2 is likeliest to hold them still), then the kept ones.
inline void normalize_range_keeping(const tl::Tensor& row_out, const tl::Tensor& row_in, const tl::Operand& begin,
                                    const tl::Operand& end, std::int64_t block, const KeptBlocks& kept,
                                    const tl::Tensor& row_max, const tl::Tensor& row_sum, std::int64_t log) {
  normalize_range(row_out, row_in, kept.end, end, block, kept.step, row_max, row_sum, log);
  tl::for_range(begin, kept.end, kept.step, [&](tl::Int start) {
    auto cols = start + kept.tile;
    auto x = kept.stash.get(kept.slot(start)).to(DType::f32);
    tl::store(row_out + cols, normalize(x, row_max, row_sum, log), cols < end, Eviction::first);
  });
}

}  // namespace detail

/// Rows too wide for registers: one pass for the max and the sum (loop-carried), a second pass
/// that re-reads the row (from L2 for rows of a few hundred KiB) and writes the result. The
/// second pass reads and writes with Eviction::first, so L2 keeps the rows still to be re-read.
inline void softmax_online_op_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                     tl::Int n_cols, tl::Constexpr BLOCK, tl::Constexpr LOG, tl::Constexpr WIDE,
                                     tl::Constexpr STAT_COLS) {
  tl::for_range(tl::program_id(0), n_rows, tl::num_programs(0), [&](tl::Int row) {
    auto row_in = in + detail::row_offset(row, in_stride, WIDE);
    auto row_out = out + detail::row_offset(row, out_stride, WIDE);
    auto [row_max, row_sum] = detail::online_max_sum(row_in, 0, n_cols, BLOCK, BLOCK, STAT_COLS);
    detail::normalize_range(row_out, row_in, 0, n_cols, BLOCK, BLOCK, row_max, row_sum, LOG);
  });
}

/// Split rows, step 1 of 2: program (chunk, row) writes the online max and sum of its CHUNK
/// columns to workspace[(row * n_chunks + chunk) * 2 + {0, 1}] (f32).
inline void softmax_split_partials_kernel(tl::Ptr workspace, tl::Ptr in, tl::Int in_stride, tl::Int n_cols,
                                          tl::Int chunk, tl::Constexpr BLOCK, tl::Constexpr WIDE,
                                          tl::Constexpr STAT_COLS) {
  auto c = tl::program_id(0);
  auto row = tl::program_id(1);
  auto begin = c * chunk;
  auto end = tl::minimum(begin + chunk, n_cols);
  auto stats =
      detail::online_max_sum(in + detail::row_offset(row, in_stride, WIDE), begin, end, BLOCK, BLOCK, STAT_COLS);
  auto slot = workspace + (row * tl::num_programs(0) + c) * 2;
  tl::store(slot, stats.first);
  tl::store(slot + 1, stats.second);
}

/// Split rows, step 2 of 2: program (chunk, row) combines its row's partials (SPLITS_P2 >= the
/// number of chunks) into the row's max and sum, then normalizes its own chunk. Chunks and rows
/// go in the reverse of step 1's order: blocks start roughly in program-id order, so the first
/// ones re-read what step 1 read last, which is what L2 still holds.
inline void softmax_split_normalize_kernel(tl::Ptr out, tl::Ptr workspace, tl::Ptr in, tl::Int in_stride,
                                           tl::Int out_stride, tl::Int n_cols, tl::Int chunk, tl::Constexpr SPLITS_P2,
                                           tl::Constexpr BLOCK, tl::Constexpr LOG, tl::Constexpr WIDE) {
  auto n_chunks = tl::num_programs(0);
  auto c = n_chunks - 1 - tl::program_id(0);
  auto row = tl::num_programs(1) - 1 - tl::program_id(1);
  auto parts = tl::arange(0, SPLITS_P2);
  auto slots = workspace + (row * n_chunks + parts) * 2;
  auto part_max = tl::load(slots, parts < n_chunks, -tl::inf);
  auto part_sum = tl::load(slots + 1, parts < n_chunks, 0.0f);
  auto row_max = tl::max(part_max, 0);
  // Empty (-inf) chunks add 0 unless the whole row is -inf, where exp(NaN) makes it NaN as torch does.
  auto row_sum = tl::sum(part_sum * tl::exp(part_max - row_max), 0);
  auto row_in = in + detail::row_offset(row, in_stride, WIDE);
  auto row_out = out + detail::row_offset(row, out_stride, WIDE);
  auto begin = c * chunk;
  auto end = tl::minimum(begin + chunk, n_cols);
  detail::normalize_range(row_out, row_in, begin, end, BLOCK, BLOCK, row_max, row_sum, LOG);
}

namespace detail {

/// How the programs sharing a row (a thread-block cluster, or a group exchanging through global
/// memory) combine their values: the row's max and sum of exp in one exchange (stats), or one
/// value at a time (max, sum).
struct ClusterExchange {
  std::int64_t size;
  tl::Tensor max(const tl::Tensor& x) const { return tl::cluster_max(x, size); }
  tl::Tensor sum(const tl::Tensor& x) const { return tl::cluster_sum(x, size); }
  std::pair<tl::Tensor, tl::Tensor> stats(const tl::Tensor& max, const tl::Tensor& sum) const {
    return tl::cluster_softmax_stats(max, sum, size);
  }
};
struct GroupExchange {
  std::int64_t size;
  const tl::Ptr& workspace;
  tl::Tensor max(const tl::Tensor& x) const { return tl::group_max(x, size, workspace); }
  tl::Tensor sum(const tl::Tensor& x) const { return tl::group_sum(x, size, workspace); }
  std::pair<tl::Tensor, tl::Tensor> stats(const tl::Tensor& max, const tl::Tensor& sum) const {
    return tl::group_softmax_stats(max, sum, size, workspace);
  }
};

/// A row over the `set.size` programs of its set: program `rank` holds columns
/// [rank * BLOCK, (rank + 1) * BLOCK) in registers and writes its slice — one read and one write,
/// like row_in_registers. Sets walk the rows grid-stride. The set combines the row's max and sum
/// one of two ways:
///  - one_exchange: each program exponentiates against its own max, one exchange combines the
///    (max, sum) pairs, and each scales its exponentials by exp(own max - row max) / row sum;
///  - else the row's max first, then the sum of exp(x - max): two exchanges, but the loaded row
///    is all that stays live across them, which the compiler may re-read from L1 instead of
///    holding (f32 16384 columns over 16 warps: 44 registers, against 62 holding exponentials).
template <class Exchange>
void row_slices_in_registers(const tl::Ptr& out, const tl::Ptr& in, const tl::Int& in_stride, const tl::Int& out_stride,
                             const tl::Int& n_rows, const tl::Int& n_cols, std::int64_t block, std::int64_t log,
                             std::int64_t wide, std::int64_t num_stages, std::int64_t one_exchange,
                             const Exchange& set) {
  auto rank = tl::program_id(0) % set.size;
  auto sets = tl::num_programs(0) / set.size;
  tl::for_range(tl::program_id(0) / set.size, n_rows, sets, {.num_stages = num_stages}, [&](tl::Int row) {
    auto cols = rank * block + tl::arange(0, block);
    auto mask = cols < n_cols;
    auto x = tl::load(in + row_offset(row, in_stride, wide) + cols, mask, -tl::inf).to(DType::f32);
    auto part_max = tl::max(x, 0);
    auto result = [&]() -> tl::Tensor {
      if (one_exchange) {
        // A part that is all -inf (padding past the row's end) is shifted by 0: exp(-inf - -inf) is NaN.
        auto shift = tl::where(part_max == -tl::inf, 0.0f, part_max);
        auto e = tl::exp_fast(x - shift);
        auto [row_max, row_sum] = set.stats(part_max, tl::sum(e, 0));
        return log ? x - row_max - tl::log(row_sum) : e * (tl::exp(shift - row_max) / row_sum);
      }
      auto row_max = set.max(part_max);
      auto row_sum = set.sum(tl::sum(tl::exp_fast(x - row_max), 0));
      return normalize(x, row_max, row_sum, log);
    }();
    tl::store(out + row_offset(row, out_stride, wide) + cols, result, mask);
  });
}

/// As row_slices_in_registers over a group, one exchange per row, with each row's exchange in
/// flight while the program reads its slice of the set's next row: a step issues row r's loads,
/// finishes the previous row's exchange (its group arrived while those loads were in flight) and
/// writes that row from registers, then starts row r's exchange. Each program holds two rows'
/// slices (the exponentials of one, the loads of the next) and reads the input once.
inline void row_slices_in_registers_overlapped(const tl::Ptr& out, const tl::Ptr& in, const tl::Int& in_stride,
                                               const tl::Int& out_stride, const tl::Int& n_rows, const tl::Int& n_cols,
                                               std::int64_t block, std::int64_t log, std::int64_t wide,
                                               const GroupExchange& set) {
  auto rank = tl::program_id(0) % set.size;
  auto sets = tl::num_programs(0) / set.size;
  auto first = tl::program_id(0) / set.size;
  auto cols = rank * block + tl::arange(0, block);
  auto load_slice = [&](const tl::Tensor& row, const tl::Tensor& mask) {
    return tl::load(in + row_offset(row, in_stride, wide) + cols, mask, -tl::inf).to(DType::f32);
  };
  // A started row: its exchange, and what it keeps until that finishes — its loads (log), or its
  // exponentials against the slice's own max and that shift.
  struct Started {
    tl::GroupTicket ticket;
    tl::Tensor kept, shift;
  };
  auto start_row = [&](const tl::Tensor& x) {
    auto part_max = tl::max(x, 0);
    // A part that is all -inf (padding past the row's end) is shifted by 0: exp(-inf - -inf) is NaN.
    auto shift = tl::where(part_max == -tl::inf, 0.0f, part_max);
    auto e = tl::exp_fast(x - shift);
    return Started{tl::group_softmax_stats_start(part_max, tl::sum(e, 0), set.size, set.workspace), log ? x : e, shift};
  };
  auto finish_row = [&](const tl::Tensor& row, const tl::Tensor& mask, const Started& s) {
    auto [row_max, row_sum] = tl::group_softmax_stats_finish(s.ticket, set.size, set.workspace);
    auto result = log ? s.kept - row_max - tl::log(row_sum) : s.kept * (tl::exp(s.shift - row_max) / row_sum);
    tl::store(out + row_offset(row, out_stride, wide) + cols, result, mask);
  };
  // A set past the last row still meets its group once, with every lane masked off.
  auto first_mask = cols < tl::where(first < n_rows, n_cols, 0);
  Started pending = start_row(load_slice(first, first_mask));
  tl::Tensor pending_row = first;  // the row whose exchange is in flight
  tl::for_range(first + sets, n_rows, sets, [&](tl::Int row) {
    auto mask = cols < n_cols;
    auto x = load_slice(row, mask);  // issued before the wait below, so in flight through it
    finish_row(pending_row, mask, pending);
    pending = start_row(x);  // assigned in the loop: carried to the next step
    pending_row = row;
  });
  finish_row(pending_row, first_mask, pending);
}

/// Rows too wide for a set's registers: program `rank` walks its slice [rank * slice, (rank + 1)
/// * slice) BLOCK at a time for the slice's online max and sum, the set combines them in one
/// exchange, and a second pass over the slice normalizes. `interleave`: the program's blocks are
/// instead blocks rank, rank + set.size, ... of the whole row, so the set reads the row front to
/// back together (SoftmaxConfig::interleave). The first `kept` blocks of the slice
/// stay in shared memory between the passes (a tl::stash of that many blocks), so only the rest
/// is read twice. With one set per row only (sets in flight) rows are open at once, so the
/// second pass finds what it re-reads in L2 where one program per row would have far more rows
/// open than L2 holds.
template <class Exchange>
void row_slices_walked(const tl::Ptr& out, const tl::Ptr& in, const tl::Int& in_stride, const tl::Int& out_stride,
                       const tl::Int& n_rows, const tl::Int& n_cols, const tl::Int& slice, std::int64_t block,
                       std::int64_t log, std::int64_t wide, std::int64_t kept, std::int64_t stat_cols,
                       std::int64_t interleave, const Exchange& set) {
  auto rank = tl::program_id(0) % set.size;
  const std::int64_t step = interleave ? set.size * block : block;
  auto sets = tl::num_programs(0) / set.size;
  auto tile = stat_tile(block, stat_cols);
  std::optional<tl::Stash> stash;
  if (kept > 0) stash.emplace(tl::stash(tile.shape(), in.dtype(), kept));
  // The program's columns are the same on every row.
  auto begin = interleave ? rank * block : rank * slice;
  auto end = interleave ? tl::Tensor(n_cols) : tl::minimum(begin + slice, n_cols);
  tl::for_range(tl::program_id(0) / set.size, n_rows, sets, [&](tl::Int row) {
    auto row_in = in + row_offset(row, in_stride, wide);
    auto row_out = out + row_offset(row, out_stride, wide);
    if (!stash) {
      auto [slice_max, slice_sum] = online_max_sum(row_in, begin, end, block, step, stat_cols);
      // An empty or all -inf slice adds 0, unless the whole row is -inf (NaN, as torch gives).
      auto [row_max, row_sum] = set.stats(slice_max, slice_sum);
      normalize_range(row_out, row_in, begin, end, block, step, row_max, row_sum, log);
      return;
    }
    const KeptBlocks blocks(*stash, begin, end, step, tile);
    auto [slice_max, slice_sum] = online_max_sum_keeping(row_in, begin, end, blocks);
    auto [row_max, row_sum] = set.stats(slice_max, slice_sum);
    normalize_range_keeping(row_out, row_in, begin, end, block, blocks, row_max, row_sum, log);
  });
}

/// Few rows too wide for a group's registers, each program's slice held whole all the same: the
/// slice is `parts` blocks, and a program holds row r's in registers while its slice of the set's
/// next row lands in shared memory (a tl::stash of `parts` slots filled by copy_async), so the input
/// is read once. A step posts the next row's statistics from shared memory, then waits for row
/// r's exchange, posted a step earlier (the group had the whole row to arrive), then goes block by
/// block: writes block j of row r, moves the next row's block j into the registers it leaves and
/// starts the copy of the row after into the slot that frees. Each thread moves only its own
/// elements (the stash's layout), so the data path needs no barrier, and the writes, moves and
/// copies of a step reach memory together, as in a copy. Measured first as a hand-written kernel
/// (bench/probes/register_slices.cu, order 4). `interleave`: part j of program `rank` is block
/// rank + j * set.size of the row instead of block rank * parts + j.
inline void row_slices_held(const tl::Ptr& out, const tl::Ptr& in, const tl::Int& in_stride, const tl::Int& out_stride,
                            const tl::Int& n_rows, const tl::Int& n_cols, std::int64_t block, std::int64_t parts,
                            std::int64_t log, std::int64_t wide, std::int64_t interleave, const GroupExchange& set) {
  auto rank = tl::program_id(0) % set.size;
  auto sets = tl::num_programs(0) / set.size;
  auto first = tl::program_id(0) / set.size;
  auto lanes = tl::arange(0, block);
  std::vector<tl::Tensor> cols;  // part j's columns, the same on every row
  for (std::int64_t j = 0; j < parts; ++j)
    cols.push_back((interleave ? rank + j * set.size : rank * parts + j) * block + lanes);
  // A row past the set's last still meets the group, with every column masked off.
  auto row_end = [&](const tl::Tensor& row) { return tl::where(row < n_rows, n_cols, 0); };
  auto stash = tl::stash({block}, in.dtype(), parts);
  // The program's (max, sum of exp(x - max)) over its parts, posted. part(j) gives part j in f32,
  // -inf where masked; it is asked twice, for the max and for the sum, so that a slice read from
  // shared memory is not held in registers beside the one already there.
  auto start_exchange = [&](auto&& part) {
    auto lane_max = part(0);
    for (std::int64_t j = 1; j < parts; ++j) lane_max = tl::maximum(lane_max, part(j));
    auto part_max = tl::max(lane_max, 0);
    // An all -inf part (padding past the row's end) is shifted by 0: exp(-inf - -inf) is NaN.
    auto shift = tl::where(part_max == -tl::inf, 0.0f, part_max);
    auto e = tl::exp_fast(part(0) - shift);
    for (std::int64_t j = 1; j < parts; ++j) e = e + tl::exp_fast(part(j) - shift);
    return tl::group_softmax_stats_start(part_max, tl::sum(e, 0), set.size, set.workspace);
  };
  auto copy_row = [&](const tl::Tensor& row) {
    auto row_in = in + row_offset(row, in_stride, wide);
    auto end = row_end(row);
    for (std::int64_t j = 0; j < parts; ++j) stash.copy_async(j, row_in + cols[j], cols[j] < end);
  };
  auto first_in = in + row_offset(first, in_stride, wide);
  auto first_end = row_end(first);
  std::vector<tl::Tensor> held;  // as loaded; reassigned in the loop, so carried
  for (std::int64_t j = 0; j < parts; ++j)
    held.push_back(tl::load(first_in + cols[j], cols[j] < first_end, -tl::inf, Eviction::first));
  copy_row(first + sets);
  // The exchange of the row held.
  tl::GroupTicket pending = start_exchange([&](std::int64_t j) { return held[j].to(DType::f32); });
  tl::for_range(first, n_rows, sets, [&](tl::Int row) {
    tl::wait_copies(0);  // the next row's slice has landed
    auto next_end = row_end(row + sets);
    auto started = start_exchange(
        [&](std::int64_t j) { return tl::where(cols[j] < next_end, stash.get(j).to(DType::f32), -tl::inf); });
    auto [row_max, row_sum] = tl::group_softmax_stats_finish(pending, set.size, set.workspace);
    auto row_out = out + row_offset(row, out_stride, wide);
    auto after = row + 2 * sets;
    auto after_in = in + row_offset(after, in_stride, wide);
    auto after_end = row_end(after);
    for (std::int64_t j = 0; j < parts; ++j) {
      tl::store(row_out + cols[j], normalize(held[j].to(DType::f32), row_max, row_sum, log), cols[j] < n_cols,
                Eviction::first);
      held[j] = stash.get(j);  // read again, not kept from above: two rows held would not fit
      stash.copy_async(j, after_in + cols[j], cols[j] < after_end);
    }
    pending = started;
  });
  // The exchange started for the row after the set's last: every program of the group finishes it.
  tl::group_softmax_stats_finish(pending, set.size, set.workspace);
}

}  // namespace detail

/// Rows wider than one program's registers, split over the CLUSTER programs of a thread-block
/// cluster (sm_90, at most 16), each holding BLOCK columns (detail::row_slices_in_registers).
inline void softmax_cluster_op_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                      tl::Int n_cols, tl::Constexpr BLOCK, tl::Constexpr CLUSTER, tl::Constexpr LOG,
                                      tl::Constexpr WIDE, tl::Constexpr NUM_STAGES, tl::Constexpr ONE_EXCHANGE) {
  detail::row_slices_in_registers(out, in, in_stride, out_stride, n_rows, n_cols, BLOCK, LOG, WIDE, NUM_STAGES,
                                  ONE_EXCHANGE, detail::ClusterExchange{CLUSTER});
}

/// Rows too wide for a cluster's registers: each program of the row's cluster walks its slice
/// (INTERLEAVE: every CLUSTER-th block of the row) twice, keeping its first KEPT blocks in shared
/// memory between the passes (detail::row_slices_walked).
inline void softmax_cluster_online_op_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride,
                                             tl::Int n_rows, tl::Int n_cols, tl::Int slice, tl::Constexpr BLOCK,
                                             tl::Constexpr CLUSTER, tl::Constexpr LOG, tl::Constexpr WIDE,
                                             tl::Constexpr KEPT, tl::Constexpr STAT_COLS, tl::Constexpr INTERLEAVE) {
  detail::row_slices_walked(out, in, in_stride, out_stride, n_rows, n_cols, slice, BLOCK, LOG, WIDE, KEPT, STAT_COLS,
                            INTERLEAVE, detail::ClusterExchange{CLUSTER});
}

/// As softmax_cluster_op, over GROUP programs of any number (up to 4096) and on any GPU: they
/// exchange through `workspace` in global memory (tl::group_*; a cooperative, persistent launch),
/// once per row (a barrier through global memory costs microseconds). OVERLAP: each row's
/// exchange runs while the next row is read (detail::row_slices_in_registers_overlapped).
inline void softmax_group_op_kernel(tl::Ptr out, tl::Ptr in, tl::Ptr workspace, tl::Int in_stride, tl::Int out_stride,
                                    tl::Int n_rows, tl::Int n_cols, tl::Constexpr BLOCK, tl::Constexpr GROUP,
                                    tl::Constexpr LOG, tl::Constexpr WIDE, tl::Constexpr NUM_STAGES,
                                    tl::Constexpr OVERLAP) {
  const detail::GroupExchange group{GROUP, workspace};
  if (OVERLAP)
    detail::row_slices_in_registers_overlapped(out, in, in_stride, out_stride, n_rows, n_cols, BLOCK, LOG, WIDE, group);
  else
    detail::row_slices_in_registers(out, in, in_stride, out_stride, n_rows, n_cols, BLOCK, LOG, WIDE, NUM_STAGES, 1,
                                    group);
}

/// As softmax_cluster_online_op, over a group (see softmax_group_op_kernel).
inline void softmax_group_online_op_kernel(tl::Ptr out, tl::Ptr in, tl::Ptr workspace, tl::Int in_stride,
                                           tl::Int out_stride, tl::Int n_rows, tl::Int n_cols, tl::Int slice,
                                           tl::Constexpr BLOCK, tl::Constexpr GROUP, tl::Constexpr LOG,
                                           tl::Constexpr WIDE, tl::Constexpr KEPT, tl::Constexpr STAT_COLS,
                                           tl::Constexpr INTERLEAVE) {
  detail::row_slices_walked(out, in, in_stride, out_stride, n_rows, n_cols, slice, BLOCK, LOG, WIDE, KEPT, STAT_COLS,
                            INTERLEAVE, detail::GroupExchange{GROUP, workspace});
}

/// Few rows too wide for a group's registers, each program's slice held whole: PARTS blocks in
/// registers while the next row's slice lands in shared memory (detail::row_slices_held).
inline void softmax_group_held_op_kernel(tl::Ptr out, tl::Ptr in, tl::Ptr workspace, tl::Int in_stride,
                                         tl::Int out_stride, tl::Int n_rows, tl::Int n_cols, tl::Constexpr BLOCK,
                                         tl::Constexpr PARTS, tl::Constexpr GROUP, tl::Constexpr LOG,
                                         tl::Constexpr WIDE, tl::Constexpr INTERLEAVE) {
  detail::row_slices_held(out, in, in_stride, out_stride, n_rows, n_cols, BLOCK, PARTS, LOG, WIDE, INTERLEAVE,
                          detail::GroupExchange{GROUP, workspace});
}

using SoftmaxRows2dKernel = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr,
                                   tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxRowKernel = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr,
                                tl::Constexpr, tl::Constexpr>;
using SoftmaxOnlineKernel = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr,
                                   tl::Constexpr, tl::Constexpr>;
using SoftmaxClusterKernel = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr,
                                    tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxClusterOnlineKernel =
    Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr, tl::Constexpr,
           tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxGroupKernel = Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr,
                                  tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxGroupOnlineKernel =
    Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr,
           tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxGroupHeldKernel = Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr,
                                      tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxSplitPartialsKernel =
    Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr, tl::Constexpr>;
using SoftmaxSplitNormalizeKernel = Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr,
                                           tl::Constexpr, tl::Constexpr, tl::Constexpr>;

/// The kernel objects (one per process, holding their compiled specializations).
const SoftmaxRows2dKernel& softmax_rows_2d_op();
const SoftmaxRowKernel& softmax_row_op();
const SoftmaxOnlineKernel& softmax_online_op();
const SoftmaxClusterKernel& softmax_cluster_op();
const SoftmaxClusterOnlineKernel& softmax_cluster_online_op();
const SoftmaxGroupKernel& softmax_group_op();
const SoftmaxGroupOnlineKernel& softmax_group_online_op();
const SoftmaxGroupHeldKernel& softmax_group_held_op();
const SoftmaxSplitPartialsKernel& softmax_split_partials();
const SoftmaxSplitNormalizeKernel& softmax_split_normalize();

}  // namespace tilejit::ops
