// A loop with REDUCTIONS (1 to 3) reductions per iteration, each across all warps of a BLOCK-wide
// row: the case the alternating reduction scratch buffers must get right (numerics in
// test_dsl_ops_more.cpp, the barriers they cost in tests/codegen/test_cuda_codegen.cpp).
// Writes each row's step (sum + 1000 * max + 1e6 * min, as many terms as REDUCTIONS) to out[1 + row]
// and their total to out[0].
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit_test {

inline void loop_reductions_kernel(tilejit::tl::Ptr out, tilejit::tl::Ptr x, tilejit::tl::Int rows,
                                   tilejit::tl::Constexpr REDUCTIONS, tilejit::tl::Constexpr BLOCK) {
  namespace tl = tilejit::tl;
  auto offs = tl::arange(0, BLOCK);
  tl::Tensor total = tl::zeros({}, tilejit::DType::f32);
  tl::for_range(0, rows, [&](tl::Int row) {
    auto v = tl::load(x + row * BLOCK + offs);
    tl::Tensor step = tl::sum(v, 0);
    if (REDUCTIONS >= 2) step = step + tl::max(v, 0) * 1000;
    if (REDUCTIONS >= 3) step = step + tl::min(v, 0) * 1000000;
    total = total + step;
    tl::store(out + 1 + row, step);
  });
  tl::store(out, total);
}

using LoopReductionsKernel = tilejit::Kernel<tilejit::tl::Ptr, tilejit::tl::Ptr, tilejit::tl::Int,
                                             tilejit::tl::Constexpr, tilejit::tl::Constexpr>;

}  // namespace tilejit_test
