// Online softmax for rows wider than a block: one pass keeps a running max and a running
// sum as loop-carried values, a second pass normalizes. Shows loops with carried blocks.
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::examples {

namespace tl = tilejit::tl;

inline void softmax_online_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_cols,
                                  tl::Constexpr BLOCK_SIZE) {
  auto row = tl::program_id(0);
  auto in_row = in + row * in_stride;
  auto out_row = out + row * out_stride;
  auto offsets = tl::arange(0, BLOCK_SIZE);
  tl::Tensor running_max = tl::full({BLOCK_SIZE}, -tl::inf, DType::f32);
  tl::Tensor running_sum = tl::zeros({BLOCK_SIZE}, DType::f32);
  tl::for_range(0, n_cols, BLOCK_SIZE, [&](tl::Int start) {
    auto cols = start + offsets;
    auto x = tl::load(in_row + cols, cols < n_cols, -tl::inf).to(DType::f32);
    auto new_max = tl::maximum(running_max, x);
    // exp(-inf - -inf) would be NaN for lanes that have seen nothing yet.
    auto scale = tl::where(new_max == -tl::inf, 0.0f, tl::exp(running_max - new_max));
    auto term = tl::where(new_max == -tl::inf, 0.0f, tl::exp(x - new_max));
    running_sum = running_sum * scale + term;
    running_max = new_max;
  });
  auto row_max = tl::max(running_max, 0);
  auto row_sum = tl::sum(running_sum * tl::exp(running_max - row_max), 0);
  tl::for_range(0, n_cols, BLOCK_SIZE, [&](tl::Int start) {
    auto cols = start + offsets;
    auto mask = cols < n_cols;
    auto x = tl::load(in_row + cols, mask, -tl::inf).to(DType::f32);
    tl::store(out_row + cols, tl::exp(x - row_max) / row_sum, mask);
  });
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Constexpr>& softmax_online() {
  static const Kernel k("softmax_online", softmax_online_kernel,
                        {"out", "in", "in_stride", "out_stride", "n_cols", "BLOCK_SIZE"});
  return k;
}

}  // namespace tilejit::examples
