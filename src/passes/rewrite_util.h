// Small helpers shared by the passes for rewriting operands.
#pragma once

#include <unordered_map>

#include "ir/ir.h"

namespace tilejit::passes {

/// Follows a chain of replacements to its end.
inline ir::ValueId resolve(const std::unordered_map<ir::ValueId, ir::ValueId>& replace, ir::ValueId v) {
  for (auto it = replace.find(v); it != replace.end(); it = replace.find(v)) v = it->second;
  return v;
}

/// Rewrites every operand in `r` (and nested regions) through `replace`.
inline void replace_uses(ir::Region& r, const std::unordered_map<ir::ValueId, ir::ValueId>& replace) {
  for (ir::Op& op : r.ops) {
    for (auto& v : op.operands) v = resolve(replace, v);
    for (auto& nested : op.regions) replace_uses(nested, replace);
  }
}

}  // namespace tilejit::passes
