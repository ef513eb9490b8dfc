// Common-subexpression elimination for pure ops. Tracing records every use of a DSL
// expression separately (offs[:, None] written three times is three expand_dims); merging
// them keeps the IR readable and the generated code smaller.
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "passes/passes.h"
#include "passes/rewrite_util.h"

namespace tilejit::passes {
namespace {

bool is_pure(const ir::Op& op) {
  // A split exchange's start publishes and arrives: two equal ones are two exchanges.
  if (op.kind == ir::OpKind::group_reduce && op.attrs.phase != ir::ExchangePhase::whole) return false;
  // Loads may observe stores, and stash reads stash writes.
  return !ir::has_side_effects(op.kind) && op.kind != ir::OpKind::load && op.kind != ir::OpKind::stash_get;
}

// Everything that makes two ops compute the same value.
using OpKey = std::tuple<int, std::vector<ir::ValueId>, std::int64_t, double, std::int64_t, std::int64_t, int, int, int,
                         bool, std::string>;

OpKey key_of(const ir::Function& f, const ir::Op& op) {
  const auto& a = op.attrs;
  return {static_cast<int>(op.kind),
          op.operands,
          a.int_value,
          a.float_value,
          a.start,
          a.end,
          a.axis,
          static_cast<int>(a.reduce),
          static_cast<int>(a.dtype),
          a.flush_subnormals,
          ir::to_string(f.type(op.results[0]))};
}

void visit(const ir::Function& f, ir::Region& r, std::vector<std::map<OpKey, ir::ValueId>>& scopes,
           std::unordered_map<ir::ValueId, ir::ValueId>& replace, bool& changed) {
  scopes.emplace_back();
  std::vector<ir::Op> kept;
  for (ir::Op& op : r.ops) {
    for (auto& v : op.operands) v = resolve(replace, v);
    for (auto& nested : op.regions) visit(f, nested, scopes, replace, changed);
    if (!is_pure(op) || op.results.size() != 1) {
      kept.push_back(std::move(op));
      continue;
    }
    OpKey key = key_of(f, op);
    ir::ValueId found = ir::kNoValue;
    for (auto it = scopes.rbegin(); it != scopes.rend() && found == ir::kNoValue; ++it)
      if (auto hit = it->find(key); hit != it->end()) found = hit->second;
    if (found != ir::kNoValue) {
      replace[op.results[0]] = found;
      changed = true;
      continue;
    }
    scopes.back().emplace(std::move(key), op.results[0]);
    kept.push_back(std::move(op));
  }
  r.ops = std::move(kept);
  scopes.pop_back();
}

}  // namespace

bool eliminate_common_subexpressions(ir::Function& f) {
  std::vector<std::map<OpKey, ir::ValueId>> scopes;
  std::unordered_map<ir::ValueId, ir::ValueId> replace;
  bool changed = false;
  visit(f, f.body, scopes, replace, changed);
  if (changed) replace_uses(f.body, replace);
  return changed;
}

}  // namespace tilejit::passes
