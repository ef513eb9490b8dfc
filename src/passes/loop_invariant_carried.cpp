#include <unordered_map>

#include "passes/passes.h"
#include "passes/rewrite_util.h"

namespace tilejit::passes {
namespace {

// Finds invariant carried values in `r` and nested loops, records the replacements and
// removes them from the loop ops.
bool simplify_region(ir::Region& r, std::unordered_map<ir::ValueId, ir::ValueId>& replace) {
  bool changed = false;
  for (ir::Op& op : r.ops) {
    for (auto& nested : op.regions) changed |= simplify_region(nested, replace);
    if (op.kind != ir::OpKind::for_range) continue;
    ir::Region& body = op.regions[0];
    ir::Op& yield = body.ops.back();
    for (std::size_t i = op.results.size(); i-- > 0;) {
      ir::ValueId arg = body.args[i + 1];
      ir::ValueId init = op.operands[ir::kForFixedOperands + i];
      ir::ValueId next = resolve(replace, yield.operands[i]);
      if (next != arg && next != resolve(replace, init)) continue;
      replace[arg] = init;
      replace[op.results[i]] = init;
      body.args.erase(body.args.begin() + static_cast<long>(i) + 1);
      op.operands.erase(op.operands.begin() + ir::kForFixedOperands + static_cast<long>(i));
      yield.operands.erase(yield.operands.begin() + static_cast<long>(i));
      op.results.erase(op.results.begin() + static_cast<long>(i));
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool remove_invariant_carried_values(ir::Function& f) {
  bool any = false;
  for (;;) {
    std::unordered_map<ir::ValueId, ir::ValueId> replace;
    if (!simplify_region(f.body, replace)) break;
    replace_uses(f.body, replace);
    any = true;
  }
  return any;
}

}  // namespace tilejit::passes
