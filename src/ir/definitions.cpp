// Which op defines each value: the code generators look through a value to the op behind it.
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

std::unordered_map<ValueId, const Op*> definitions(const Region& r) {
  std::unordered_map<ValueId, const Op*> def;
  add_definitions(r, def);
  return def;
}

}  // namespace tilejit::ir
