// Must not compile: a C++ `if` on a traced value. The dsl_refuses_a_branch_on_a_traced_value test
// compiles this file and expects tilejit's message (tl::Tensor's explicit operator bool).
#include "tilejit/tilejit.h"

namespace tl = tilejit::tl;

void clamp_kernel(tl::Ptr out, tl::Ptr in, tl::Int n, tl::Constexpr BLOCK) {
  auto offsets = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto x = tl::load(in + offsets, offsets < n);
  if (tl::max(x, 0) > 0) tl::store(out + offsets, x, offsets < n);
}
