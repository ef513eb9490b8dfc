// Vector addition: the smallest complete tilejit kernel.
#pragma once

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::examples {

namespace tl = tilejit::tl;

inline void vector_add_kernel(tl::Ptr x, tl::Ptr y, tl::Ptr out, tl::Int n, tl::Constexpr BLOCK_SIZE) {
  auto offsets = tl::program_id(0) * BLOCK_SIZE + tl::arange(0, BLOCK_SIZE);
  auto mask = offsets < n;
  tl::store(out + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
}

inline const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr>& vector_add() {
  static const Kernel k("vector_add", vector_add_kernel, {"x", "y", "out", "n", "BLOCK_SIZE"});
  return k;
}

}  // namespace tilejit::examples
