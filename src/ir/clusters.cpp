// What a function's cluster and group reductions ask of it: one cluster (or group) shape, read
// off its cluster_reduce (group_reduce) ops, and loops that every program of a cluster (group)
// runs the same number of times.
#include <fmt/format.h>

#include <unordered_map>

#include "ir/ir.h"
#include "tilejit/error.h"

namespace tilejit::ir {
namespace {

bool is_exchange(OpKind k) { return k == OpKind::cluster_reduce || k == OpKind::group_reduce; }

// "cluster" or "group": how messages name the op's programs.
const char* scope_name(const Op& op) { return op.kind == OpKind::cluster_reduce ? "cluster" : "group"; }

void find_exchanges(const Region& r, OpKind kind, const Op*& first) {
  for (const Op& op : r.ops) {
    for (const Region& inner : op.regions) find_exchanges(inner, kind, first);
    if (op.kind != kind) continue;
    if (!first) {
      first = &op;
    } else if (op.attrs.cluster_size != first->attrs.cluster_size) {
      // One launch has one cluster (group) shape: two sizes cannot both hold.
      const char* scope = scope_name(op);
      throw UserError(
          fmt::format("{}_{} over {}s of {} programs, but the {}_{} at line {} uses {}: all {} reductions "
                      "of one kernel must use one {} size",
                      scope, reduce_name(op.attrs.reduce), scope, op.attrs.cluster_size, scope,
                      reduce_name(first->attrs.reduce), first->loc.line, first->attrs.cluster_size, scope, scope),
          op.loc.file, op.loc.line);
    }
  }
}

const Op* first_exchange(const Region& r) {
  for (const Op& op : r.ops) {
    if (is_exchange(op.kind)) return &op;
    for (const Region& inner : op.regions)
      if (const Op* found = first_exchange(inner)) return found;
  }
  return nullptr;
}

// Which values are the same in every program of a cluster or group (the programs differ only in
// program_id(0) % size). Conservative: what it cannot show uniform is not.
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
      case OpKind::cluster_reduce:
      case OpKind::group_reduce: same = true; break;  // every program gets its result
      case OpKind::div: {
        // program_id(0) / k, k a multiple of the cluster (group) size: the cluster's index.
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
      if (const Op* reduction = first_exchange(body)) {
        const char* scope = scope_name(*reduction);
        throw UserError(fmt::format("{}_{} (line {}) inside a loop whose bounds can differ between the programs of a "
                                    "{} (they depend on program_id(0) other than through program_id(0) / {}): every "
                                    "program of a {} must reach the same {} reductions, or the others wait for it",
                                    scope, reduce_name(reduction->attrs.reduce), reduction->loc.line, scope,
                                    cluster_size_, scope, scope),
                        op.loc.file, op.loc.line);
      }
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
  find_exchanges(f.body, OpKind::cluster_reduce, first);
  return first ? first->attrs.cluster_size : 1;
}

int group_size(const Function& f) {
  const Op* group = nullptr;
  find_exchanges(f.body, OpKind::group_reduce, group);
  if (!group) return 1;
  const Op* cluster = nullptr;
  find_exchanges(f.body, OpKind::cluster_reduce, cluster);
  if (cluster)
    throw UserError(
        fmt::format("group_{} and the cluster_{} at line {} in one kernel: a kernel reduces across "
                    "clusters or across groups, not both",
                    reduce_name(group->attrs.reduce), reduce_name(cluster->attrs.reduce), cluster->loc.line),
        group->loc.file, group->loc.line);
  return group->attrs.cluster_size;
}

bool has_split_exchange(const Region& r) {
  for (const Op& op : r.ops) {
    if (op.kind == OpKind::group_reduce && op.attrs.phase != ExchangePhase::whole) return true;
    for (const Region& inner : op.regions)
      if (has_split_exchange(inner)) return true;
  }
  return false;
}

void check_cluster_loops(const Function& f, int size) {
  if (size > 1) Uniformity(f, size).check(f.body);
}

}  // namespace tilejit::ir
