// Layer normalization of rows, y = (x - mean) / sqrt(variance + eps) * weight + bias, one program
// per row with the row (padded to BLOCK) in registers. Beyond the softmax examples it shows a
// float parameter (tl::Float), reductions of a whole block to a scalar, and the padding kept out
// of the statistics: loaded as 0 for the mean, then masked out of the variance.
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::examples {

namespace tl = tilejit::tl;

inline void layernorm_kernel(tl::Ptr out, tl::Ptr in, tl::Ptr weight, tl::Ptr bias, tl::Int in_stride,
                             tl::Int out_stride, tl::Int n_cols, tl::Float eps, tl::Constexpr BLOCK) {
  auto row = tl::program_id(0);
  auto cols = tl::arange(0, BLOCK);
  auto mask = cols < n_cols;
  auto x = tl::load(in + row * in_stride + cols, mask, 0.0f).to(DType::f32);
  auto mean = tl::sum(x) / n_cols;
  auto centered = tl::where(mask, x - mean, 0.0f);
  auto variance = tl::sum(centered * centered) / n_cols;
  auto scale = tl::load(weight + cols, mask).to(DType::f32) * tl::rsqrt(variance + eps);
  tl::store(out + row * out_stride + cols, centered * scale + tl::load(bias + cols, mask).to(DType::f32), mask);
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Float, tl::Constexpr>&
layernorm() {
  static const Kernel k("layernorm", layernorm_kernel,
                        {"out", "in", "weight", "bias", "in_stride", "out_stride", "n_cols", "eps", "BLOCK"});
  return k;
}

}  // namespace tilejit::examples
