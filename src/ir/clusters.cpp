// What a function's cluster reductions ask of it: one cluster shape (read off its cluster_reduce
// ops), and loops that every program of a cluster runs the same number of times.
#include <fmt/format.h>

#include <unordered_map>

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

const Op* first_cluster_reduce(const Region& r) {
  for (const Op& op : r.ops) {
    if (op.kind == OpKind::cluster_reduce) return &op;
    for (const Region& inner : op.regions)
      if (const Op* found = first_cluster_reduce(inner)) return found;
  }
  return nullptr;
}

// Which values are the same in every program of a cluster (the programs differ only in
// program_id(0) % cluster_size). Conservative: what it cannot show uniform is not.
class Uniformity {
 public:
  Uniformity(const Function& f, int cluster_size) : cluster_size_(cluster_size) {
    for (const Param& p : f.params) uniform_[p.value] = true;
  }

  void check(const Region& r) {
    for (const Op& op : r.ops) {
      if (op.kind == OpKind::for_range) loop(op);
      else define(op);
    }
  }

 private:
  bool uniform(ValueId v) const {
    auto it = uniform_.find(v);
    return it != uniform_.end() && it->second;
  }

  const Op* constant_of(ValueId v) const {
    auto it = def_.find(v);
    return it != def_.end() && it->second->kind == OpKind::constant ? it->second : nullptr;
  }

  void define(const Op& op) {
    bool same = true;
    switch (op.kind) {
      case OpKind::program_id: same = op.attrs.int_value != 0; break;  // clusters run along axis 0
      case OpKind::cluster_reduce: same = true; break;                 // every program gets its result
      case OpKind::div: {
        // program_id(0) / k, k a multiple of the cluster size: the cluster's index.
        const Op* k = constant_of(op.operands[1]);
        auto pid = def_.find(op.operands[0]);
        if (k && k->attrs.int_value % cluster_size_ == 0 && pid != def_.end() &&
            pid->second->kind == OpKind::program_id && pid->second->attrs.int_value == 0) {
          same = true;
          break;
        }
        same = uniform(op.operands[0]) && uniform(op.operands[1]);
        break;
      }
      default:
        for (ValueId v : op.operands) same = same && uniform(v);
        break;
    }
    for (ValueId v : op.results) {
      uniform_[v] = same;
      def_[v] = &op;
    }
  }

  void loop(const Op& op) {
    const Region& body = op.regions.at(0);
    const bool bounds_same = uniform(op.operands[0]) && uniform(op.operands[1]) && uniform(op.operands[2]);
    if (!bounds_same)
      if (const Op* reduction = first_cluster_reduce(body))
        throw UserError(
            fmt::format("cluster_{} (line {}) inside a loop whose bounds can differ between the programs of a "
                        "cluster (they depend on program_id(0) other than through program_id(0) / {}): every "
                        "program of a cluster must reach the same cluster reductions, or the others wait for it",
                        reduce_name(reduction->attrs.reduce), reduction->loc.line, cluster_size_),
            op.loc.file, op.loc.line);
    // Carried values: uniform while their start and every step's yield are (to a fixed point).
    const std::size_t carried = op.operands.size() - kForFixedOperands;
    std::vector<bool> same(carried);
    for (std::size_t i = 0; i < carried; ++i) same[i] = uniform(op.operands[kForFixedOperands + i]);
    for (bool changed = true; changed;) {
      uniform_[body.args[0]] = bounds_same;
      for (std::size_t i = 0; i < carried; ++i) uniform_[body.args[i + 1]] = same[i];
      check(body);
      changed = false;
      const Op& yield = body.ops.back();
      for (std::size_t i = 0; i < carried; ++i)
        if (same[i] && !uniform(yield.operands[i])) same[i] = false, changed = true;
    }
    for (std::size_t i = 0; i < carried; ++i) uniform_[op.results[i]] = same[i] && bounds_same;
  }

  int cluster_size_;
  std::unordered_map<ValueId, bool> uniform_;
  std::unordered_map<ValueId, const Op*> def_;
};

}  // namespace

int cluster_size(const Function& f) {
  const Op* first = nullptr;
  find_clusters(f.body, first);
  return first ? first->attrs.cluster_size : 1;
}

void check_cluster_loops(const Function& f, int cluster_size) {
  if (cluster_size > 1) Uniformity(f, cluster_size).check(f.body);
}

}  // namespace tilejit::ir
