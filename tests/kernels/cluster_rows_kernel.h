// Rows split across the programs of a set — a thread-block cluster (tl::cluster_max /
// cluster_min / cluster_sum) or a group exchanging through global memory (tl::group_*) —
// numerics in test_cluster_reductions.cpp, the generated code in tests/codegen. Set s handles
// rows s, s + sets, ...; its program of rank r holds columns [r * BLOCK, (r + 1) * BLOCK) of the
// row. Writes the row's softmax over all its columns, and per row: the max and the min
// (stats[2 row], stats[2 row + 1]) and the number of positive entries (counts[row], an i32 sum
// across the set). Four reductions across the set per loop step, and sets may run different
// numbers of steps.
#pragma once

#include <utility>
#include <vector>

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit_test {

namespace tl = tilejit::tl;

struct ClusterSet {
  std::int64_t size;
  tl::Tensor max(const tl::Tensor& x) const { return tl::cluster_max(x, size); }
  tl::Tensor min(const tl::Tensor& x) const { return tl::cluster_min(x, size); }
  tl::Tensor sum(const tl::Tensor& x) const { return tl::cluster_sum(x, size); }
  std::pair<tl::Tensor, tl::Tensor> stats(const tl::Tensor& m, const tl::Tensor& s) const {
    return tl::cluster_softmax_stats(m, s, size);
  }
};
struct GroupSet {
  std::int64_t size;
  const tl::Ptr& workspace;
  tl::Tensor max(const tl::Tensor& x) const { return tl::group_max(x, size, workspace); }
  tl::Tensor min(const tl::Tensor& x) const { return tl::group_min(x, size, workspace); }
  tl::Tensor sum(const tl::Tensor& x) const { return tl::group_sum(x, size, workspace); }
  std::pair<tl::Tensor, tl::Tensor> stats(const tl::Tensor& m, const tl::Tensor& s) const {
    return tl::group_softmax_stats(m, s, size, workspace);
  }
};

template <class Set>
void rows_over_sets(const tl::Ptr& out, const tl::Ptr& stats, const tl::Ptr& counts, const tl::Ptr& in,
                    const tl::Int& n_rows, const tl::Int& n_cols, std::int64_t block, const Set& set) {
  auto rank = tl::program_id(0) % set.size;
  auto sets = tl::num_programs(0) / set.size;
  tl::for_range(tl::program_id(0) / set.size, n_rows, sets, [&](tl::Int row) {
    auto cols = rank * block + tl::arange(0, block);
    auto mask = cols < n_cols;
    auto x = tl::load(in + row * n_cols + cols, mask, -tl::inf);
    auto row_max = set.max(tl::max(x, 0));
    auto row_sum = set.sum(tl::sum(tl::exp(x - row_max), 0));
    tl::store(out + row * n_cols + cols, tl::exp(x - row_max) / row_sum, mask);
    auto row_min = set.min(tl::min(tl::where(mask, x, tl::inf), 0));
    auto positive = set.sum(tl::sum(tl::where(mask & (x > 0.0f), 1, 0), 0));
    auto first = rank == 0;
    tl::store(stats + row * 2, row_max, first);
    tl::store(stats + row * 2 + 1, row_min, first);
    tl::store(counts + row, positive, first);
  });
}

/// Per row, the set's (max, sum of exp(x - max)) from tl::*_softmax_stats: stats[2 row] and
/// stats[2 row + 1], written by rank 0. Each program passes its part's max and sum of exp(x - its
/// max), shifted by 0 where the part is all -inf.
template <class Set>
void softmax_stats_over_sets(const tl::Ptr& stats, const tl::Ptr& in, const tl::Int& n_rows, const tl::Int& n_cols,
                             std::int64_t block, const Set& set) {
  auto rank = tl::program_id(0) % set.size;
  auto sets = tl::num_programs(0) / set.size;
  tl::for_range(tl::program_id(0) / set.size, n_rows, sets, [&](tl::Int row) {
    auto cols = rank * block + tl::arange(0, block);
    auto x = tl::load(in + row * n_cols + cols, cols < n_cols, -tl::inf);
    auto m = tl::max(x, 0);
    auto shift = tl::where(m == -tl::inf, 0.0f, m);
    auto [row_max, row_sum] = set.stats(m, tl::sum(tl::exp(x - shift), 0));
    tl::store(stats + row * 2, row_max, rank == 0);
    tl::store(stats + row * 2 + 1, row_sum, rank == 0);
  });
}

inline void cluster_stats_kernel(tl::Ptr stats, tl::Ptr in, tl::Int n_rows, tl::Int n_cols, tl::Constexpr BLOCK,
                                 tl::Constexpr CLUSTER) {
  softmax_stats_over_sets(stats, in, n_rows, n_cols, BLOCK, ClusterSet{CLUSTER});
}

inline void group_stats_kernel(tl::Ptr stats, tl::Ptr in, tl::Ptr workspace, tl::Int n_rows, tl::Int n_cols,
                               tl::Constexpr BLOCK, tl::Constexpr GROUP) {
  softmax_stats_over_sets(stats, in, n_rows, n_cols, BLOCK, GroupSet{GROUP, workspace});
}

/// As group_stats, with each exchange split in two (tl::group_softmax_stats_start / _finish): a
/// step starts row r's exchange, then finishes row r - sets's and stores it, so two are open at
/// once. A set past the last row still meets its group once, with nothing loaded or stored.
inline void group_stats_split_kernel(tl::Ptr stats, tl::Ptr in, tl::Ptr workspace, tl::Int n_rows, tl::Int n_cols,
                                     tl::Constexpr BLOCK, tl::Constexpr GROUP) {
  auto rank = tl::program_id(0) % GROUP;
  auto sets = tl::num_programs(0) / GROUP;
  auto first = tl::program_id(0) / GROUP;
  auto cols = rank * BLOCK + tl::arange(0, BLOCK);
  auto start = [&](const tl::Tensor& row) {
    auto x = tl::load(in + row * n_cols + cols, (cols < n_cols) & (row < n_rows), -tl::inf);
    auto m = tl::max(x, 0);
    auto shift = tl::where(m == -tl::inf, 0.0f, m);
    return tl::group_softmax_stats_start(m, tl::sum(tl::exp(x - shift), 0), GROUP, workspace);
  };
  auto finish = [&](const tl::Tensor& row, const tl::GroupTicket& ticket) {
    auto [row_max, row_sum] = tl::group_softmax_stats_finish(ticket, GROUP, workspace);
    auto mine = (rank == 0) & (row < n_rows);
    tl::store(stats + row * 2, row_max, mine);
    tl::store(stats + row * 2 + 1, row_sum, mine);
  };
  tl::GroupTicket ticket = start(first);
  tl::Tensor pending = first;
  tl::for_range(first + sets, n_rows, sets, [&](tl::Int row) {
    tl::GroupTicket next = start(row);
    finish(pending, ticket);
    ticket = next;
    pending = row;
  });
  finish(pending, ticket);
}

using ClusterStatsKernel = tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>;
using GroupStatsKernel = tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>;

inline const ClusterStatsKernel& cluster_stats() {
  static const ClusterStatsKernel k("cluster_stats", cluster_stats_kernel,
                                    {"stats", "in", "n_rows", "n_cols", "BLOCK", "CLUSTER"});
  return k;
}

inline const GroupStatsKernel& group_stats() {
  static const GroupStatsKernel k("group_stats", group_stats_kernel,
                                  {"stats", "in", "workspace", "n_rows", "n_cols", "BLOCK", "GROUP"});
  return k;
}

/// Arguments for group_stats or group_stats_split that only compile (stand-in addresses, never
/// launched): rows, columns, BLOCK and the group size as given.
inline std::vector<tilejit::Arg> group_stats_compile_args(std::int64_t rows, std::int64_t cols, std::int64_t block,
                                                          std::int64_t group) {
  using tilejit::DType;
  using tilejit::Pointer;
  return {Pointer{0x10000, DType::f32},
          Pointer{0x20000, DType::f32},
          Pointer{0x30000, DType::i32},
          rows,
          cols,
          block,
          group};
}

inline const GroupStatsKernel& group_stats_split() {
  static const GroupStatsKernel k("group_stats_split", group_stats_split_kernel,
                                  {"stats", "in", "workspace", "n_rows", "n_cols", "BLOCK", "GROUP"});
  return k;
}

inline void cluster_rows_kernel(tl::Ptr out, tl::Ptr stats, tl::Ptr counts, tl::Ptr in, tl::Int n_rows, tl::Int n_cols,
                                tl::Constexpr BLOCK, tl::Constexpr CLUSTER) {
  rows_over_sets(out, stats, counts, in, n_rows, n_cols, BLOCK, ClusterSet{CLUSTER});
}

inline void group_rows_kernel(tl::Ptr out, tl::Ptr stats, tl::Ptr counts, tl::Ptr in, tl::Ptr workspace, tl::Int n_rows,
                              tl::Int n_cols, tl::Constexpr BLOCK, tl::Constexpr GROUP) {
  rows_over_sets(out, stats, counts, in, n_rows, n_cols, BLOCK, GroupSet{GROUP, workspace});
}

using ClusterRowsKernel =
    tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>;
using GroupRowsKernel =
    tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>;

inline const ClusterRowsKernel& cluster_rows() {
  static const ClusterRowsKernel k("cluster_rows", cluster_rows_kernel,
                                   {"out", "stats", "counts", "in", "n_rows", "n_cols", "BLOCK", "CLUSTER"});
  return k;
}

/// Arguments for group_rows that only compile (stand-in addresses, never launched): 7 rows of 4000
/// columns, BLOCK 128, groups of `group`.
inline std::vector<tilejit::Arg> group_rows_compile_args(std::int64_t group) {
  using tilejit::DType;
  using tilejit::Pointer;
  return {Pointer{0x10000, DType::f32},
          Pointer{0x20000, DType::f32},
          Pointer{0x30000, DType::i32},
          Pointer{0x40000, DType::f32},
          Pointer{0x50000, DType::i32},
          std::int64_t{7},
          std::int64_t{4000},
          std::int64_t{128},
          group};
}

inline const GroupRowsKernel& group_rows() {
  static const GroupRowsKernel k("group_rows", group_rows_kernel,
                                 {"out", "stats", "counts", "in", "workspace", "n_rows", "n_cols", "BLOCK", "GROUP"});
  return k;
}

}  // namespace tilejit_test
