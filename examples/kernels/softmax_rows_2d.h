// Softmax over many short rows: each program takes a 2-D block of ROWS x BLOCK_COLS, so
// narrow rows still give every thread work. Shows 2-D blocks, `x(tl::all, tl::newaxis)`
// broadcasting and reductions along an axis.
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::examples {

namespace tl = tilejit::tl;

inline void softmax_rows_2d_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                   tl::Int n_cols, tl::Constexpr ROWS, tl::Constexpr BLOCK_COLS) {
  auto rows = tl::program_id(0) * ROWS + tl::arange(0, ROWS);
  auto cols = tl::arange(0, BLOCK_COLS);
  auto mask = (rows(tl::all, tl::newaxis) < n_rows) & (cols(tl::newaxis, tl::all) < n_cols);
  auto x =
      tl::load(in + rows(tl::all, tl::newaxis) * in_stride + cols(tl::newaxis, tl::all), mask, -tl::inf).to(DType::f32);
  auto shifted = x - tl::max(x, 1)(tl::all, tl::newaxis);
  auto numerator = tl::exp(shifted);
  auto result = numerator / tl::sum(numerator, 1)(tl::all, tl::newaxis);
  tl::store(out + rows(tl::all, tl::newaxis) * out_stride + cols(tl::newaxis, tl::all), result, mask);
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>&
softmax_rows_2d() {
  static const Kernel k("softmax_rows_2d", softmax_rows_2d_kernel,
                        {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "ROWS", "BLOCK_COLS"});
  return k;
}

}  // namespace tilejit::examples
