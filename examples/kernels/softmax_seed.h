// The seed's softmax kernels, written in tilejit's DSL (compare with the Triton tutorial).
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::examples {

namespace tl = tilejit::tl;

/// One program per row; the whole row (padded to BLOCK_SIZE) is held in registers.
inline void softmax_simple_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_cols,
                                  tl::Constexpr BLOCK_SIZE) {
  auto row_idx = tl::program_id(0);
  auto col_offsets = tl::arange(0, BLOCK_SIZE);
  auto mask = col_offsets < n_cols;
  auto row = tl::load(in + row_idx * in_stride + col_offsets, mask, -tl::inf);
  auto row_minus_max = row - tl::max(row, 0);
  auto numerator = tl::exp(row_minus_max);
  auto denominator = tl::sum(numerator, 0);
  tl::store(out + row_idx * out_stride + col_offsets, numerator / denominator, mask);
}

/// Persistent grid-stride version: a fixed number of programs walks over the rows.
inline void softmax_persistent_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                      tl::Int n_cols, tl::Constexpr BLOCK_SIZE, tl::Constexpr num_stages) {
  auto row_start = tl::program_id(0);
  auto row_step = tl::num_programs(0);
  tl::for_range(row_start, n_rows, row_step, {.num_stages = num_stages}, [&](tl::Int row_idx) {
    auto col_offsets = tl::arange(0, BLOCK_SIZE);
    auto mask = col_offsets < n_cols;
    auto row = tl::load(in + row_idx * in_stride + col_offsets, mask, -tl::inf);
    auto row_minus_max = row - tl::max(row, 0);
    auto numerator = tl::exp(row_minus_max);
    auto denominator = tl::sum(numerator, 0);
    tl::store(out + row_idx * out_stride + col_offsets, numerator / denominator, mask);
  });
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Constexpr>& softmax_simple() {
  static const Kernel k("softmax_simple", softmax_simple_kernel,
                        {"out", "in", "in_stride", "out_stride", "n_cols", "BLOCK_SIZE"});
  return k;
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>&
softmax_persistent() {
  static const Kernel k("softmax_persistent", softmax_persistent_kernel,
                        {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK_SIZE", "num_stages"});
  return k;
}

}  // namespace tilejit::examples
