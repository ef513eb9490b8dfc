#include <vector>

#include "passes/passes.h"

namespace tilejit::passes {
namespace {

void count_uses(const ir::Region& r, std::vector<int>& uses) {
  for (const ir::Op& op : r.ops) {
    for (auto v : op.operands) ++uses[v];
    for (const auto& nested : op.regions) count_uses(nested, uses);
  }
}

// Stores or atomics to memory, or stores to a stash (which later stash reads observe).
bool has_store(const ir::Region& r) {
  for (const ir::Op& op : r.ops) {
    if (op.kind == ir::OpKind::store || op.kind == ir::OpKind::atomic || op.kind == ir::OpKind::stash_put ||
        op.kind == ir::OpKind::stash_copy)
      return true;
    for (const auto& nested : op.regions)
      if (has_store(nested)) return true;
  }
  return false;
}

void release(const ir::Op& op, std::vector<int>& uses) {
  for (auto v : op.operands) --uses[v];
  for (const auto& nested : op.regions)
    for (const auto& inner : nested.ops) release(inner, uses);
}

// Walks backwards so that removing a user can free its operands' definitions in one sweep.
bool sweep(ir::Region& r, std::vector<int>& uses) {
  bool changed = false;
  for (std::size_t i = r.ops.size(); i-- > 0;) {
    ir::Op& op = r.ops[i];
    for (auto& nested : op.regions) changed |= sweep(nested, uses);
    bool used = false;
    for (auto v : op.results) used |= uses[v] > 0;
    bool removable = op.kind == ir::OpKind::for_range ? !has_store(op.regions[0]) : !ir::has_side_effects(op.kind);
    if (used || !removable) continue;
    release(op, uses);
    r.ops.erase(r.ops.begin() + static_cast<long>(i));
    changed = true;
  }
  return changed;
}

}  // namespace

bool eliminate_dead_code(ir::Function& f) {
  std::vector<int> uses(f.value_types.size(), 0);
  count_uses(f.body, uses);
  return sweep(f.body, uses);
}

}  // namespace tilejit::passes
