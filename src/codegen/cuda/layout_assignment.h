// Chooses a layout for every block value a kernel computes.
//
// Values derived only from scalars, aranges and constants ("free" values: index arithmetic,
// masks, pointer blocks) get no fixed layout: the emitter computes them directly in the
// layout each use needs, which is how `offs[:, None]` broadcasting costs nothing. All other
// block values (loads, reductions, loop-carried values and what is computed from them) get
// one layout here, propagated forward from the defaults.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "codegen/cuda/layout.h"
#include "ir/ir.h"

namespace tilejit::codegen::cuda {

struct LayoutPlan {
  std::unordered_set<ir::ValueId> free;           // rematerialized at each use
  std::unordered_map<ir::ValueId, Layout> fixed;  // one layout per other block value
  int num_warps = 4;
  int vec = 4;  // contiguous elements per thread in default layouts

  Layout default_layout(const ir::Shape& shape) const { return blocked_layout(shape, num_warps, vec); }
  bool is_free(ir::ValueId v) const { return free.count(v) != 0; }
};

LayoutPlan assign_layouts(const ir::Function& f, int num_warps);

}  // namespace tilejit::codegen::cuda
