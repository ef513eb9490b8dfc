// Which op defines each value, and whether a value is used: the code generators look through a
// value to the op behind it.
#include "ir/ir.h"

namespace tilejit::ir {
namespace {

void add_definitions(const Region& r, std::unordered_map<ValueId, const Op*>& def) {
  for (const Op& op : r.ops) {
    for (ValueId v : op.results) def[v] = &op;
    for (const Region& nested : op.regions) add_definitions(nested, def);
  }
}

}  // namespace

bool is_used(const Region& r, ValueId v) {
  for (const Op& op : r.ops) {
    for (ValueId o : op.operands)
      if (o == v) return true;
    for (const Region& nested : op.regions)
      if (is_used(nested, v)) return true;
  }
  return false;
}

bool contains(const Region& r, OpKind k) {
  for (const Op& op : r.ops) {
    if (op.kind == k) return true;
    for (const Region& nested : op.regions)
      if (contains(nested, k)) return true;
  }
  return false;
}

std::unordered_map<ValueId, const Op*> definitions(const Region& r) {
  std::unordered_map<ValueId, const Op*> def;
  add_definitions(r, def);
  return def;
}

}  // namespace tilejit::ir
