// Rows split across the programs of a thread-block cluster, combined with tl::cluster_max /
// cluster_min / cluster_sum (numerics in test_cluster_reductions.cpp, the generated code in
// tests/codegen/test_cuda_codegen.cpp). Cluster c handles rows c, c + clusters, ...; its
// program of rank r holds columns [r * BLOCK, (r + 1) * BLOCK) of the row. Writes the row's
// softmax over all its columns, and per row: the max and the min (stats[2 row], stats[2 row + 1])
// and the number of positive entries (counts[row], an i32 cluster sum). Four cluster reductions
// per loop step, and clusters may run different numbers of steps.
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit_test {

inline void cluster_rows_kernel(tilejit::tl::Ptr out, tilejit::tl::Ptr stats, tilejit::tl::Ptr counts,
                                tilejit::tl::Ptr in, tilejit::tl::Int n_rows, tilejit::tl::Int n_cols,
                                tilejit::tl::Constexpr BLOCK, tilejit::tl::Constexpr CLUSTER) {
  namespace tl = tilejit::tl;
  auto rank = tl::program_id(0) % CLUSTER;
  auto clusters = tl::num_programs(0) / CLUSTER;
  tl::for_range(tl::program_id(0) / CLUSTER, n_rows, clusters, [&](tl::Int row) {
    auto cols = rank * BLOCK + tl::arange(0, BLOCK);
    auto mask = cols < n_cols;
    auto x = tl::load(in + row * n_cols + cols, mask, -tl::inf);
    auto row_max = tl::cluster_max(tl::max(x, 0), CLUSTER);
    auto row_sum = tl::cluster_sum(tl::sum(tl::exp(x - row_max), 0), CLUSTER);
    tl::store(out + row * n_cols + cols, tl::exp(x - row_max) / row_sum, mask);
    auto row_min = tl::cluster_min(tl::min(tl::where(mask, x, tl::inf), 0), CLUSTER);
    auto positive = tl::cluster_sum(tl::sum(tl::where(mask & (x > 0.0f), 1, 0), 0), CLUSTER);
    auto first = rank == 0;
    tl::store(stats + row * 2, row_max, first);
    tl::store(stats + row * 2 + 1, row_min, first);
    tl::store(counts + row, positive, first);
  });
}

using ClusterRowsKernel =
    tilejit::Kernel<tilejit::tl::Ptr, tilejit::tl::Ptr, tilejit::tl::Ptr, tilejit::tl::Ptr, tilejit::tl::Int,
                    tilejit::tl::Int, tilejit::tl::Constexpr, tilejit::tl::Constexpr>;

inline const ClusterRowsKernel& cluster_rows() {
  static const ClusterRowsKernel k("cluster_rows", cluster_rows_kernel,
                                   {"out", "stats", "counts", "in", "n_rows", "n_cols", "BLOCK", "CLUSTER"});
  return k;
}

}  // namespace tilejit_test
