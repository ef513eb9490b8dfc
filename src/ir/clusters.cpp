// The cluster shape a function asks for, read off its cluster_reduce ops.
#include <fmt/format.h>

#include "ir/ir.h"
#include "tilejit/error.h"

namespace tilejit::ir {
namespace {

void find_clusters(const Region& r, const Op*& first) {
  for (const Op& op : r.ops) {
    for (const Region& inner : op.regions) find_clusters(inner, first);
    if (op.kind != OpKind::cluster_reduce) continue;
    if (!first) {
      first = &op;
    } else if (op.attrs.cluster_size != first->attrs.cluster_size) {
      // One launch has one cluster shape: two sizes cannot both hold.
      throw UserError(fmt::format("cluster_{} over clusters of {} programs, but the cluster_{} at line {} uses {}: "
                                  "all cluster reductions of one kernel must use one cluster size",
                                  reduce_name(op.attrs.reduce), op.attrs.cluster_size, reduce_name(first->attrs.reduce),
                                  first->loc.line, first->attrs.cluster_size),
                      op.loc.file, op.loc.line);
    }
  }
}

}  // namespace

int cluster_size(const Function& f) {
  const Op* first = nullptr;
  find_clusters(f.body, first);
  return first ? first->attrs.cluster_size : 1;
}

}  // namespace tilejit::ir
