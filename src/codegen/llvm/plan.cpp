#include "codegen/llvm/plan.h"

#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {
namespace {

bool is_block(const ir::Function& f, ir::ValueId v) { return !f.type(v).is_scalar(); }

bool is_elementwise(ir::OpKind k) {
  switch (ir::op_category(k)) {
    case ir::OpCategory::Unary:
    case ir::OpCategory::Binary:
    case ir::OpCategory::Compare: return true;
    default: return k == ir::OpKind::cast || k == ir::OpKind::select || k == ir::OpKind::fma || k == ir::OpKind::addptr;
  }
}

class Planner {
 public:
  Planner(const ir::Function& f, Plan& p) : f_(f), p_(p) {}

  void run() {
    index(f_.body);
    mark_free(f_.body);
    plan_region(f_.body);
    mark_stored();
  }

 private:
  void index(const ir::Region& r) {
    for (const ir::Op& op : r.ops) {
      for (ir::ValueId v : op.results) p_.def[v] = &op;
      for (ir::ValueId v : op.operands) uses_[v].push_back(&op);
      for (const auto& nested : op.regions) index(nested);
    }
  }

  // Definitions come before uses, so one pass in program order sees operands first.
  void mark_free(const ir::Region& r) {
    for (const ir::Op& op : r.ops) {
      for (const auto& nested : op.regions) mark_free(nested);
      if (op.results.size() != 1 || !is_block(f_, op.results[0])) continue;
      bool free = false;
      if (op.kind == ir::OpKind::arange || op.kind == ir::OpKind::splat) {
        free = true;
      } else if (op.kind == ir::OpKind::broadcast || op.kind == ir::OpKind::expand_dims || is_elementwise(op.kind)) {
        free = true;
        for (ir::ValueId v : op.operands)
          if (is_block(f_, v) && !p_.is_free(v)) free = false;
      }
      if (free) p_.free.insert(op.results[0]);
    }
  }

  bool is_group_op(const ir::Op& op) const {
    switch (op.kind) {
      case ir::OpKind::store: return is_block(f_, op.operands[0]);
      case ir::OpKind::load:
      case ir::OpKind::atomic: return is_block(f_, op.results[0]);
      case ir::OpKind::stash_put:
      case ir::OpKind::stash_get: return true;
      case ir::OpKind::reduce: return true;
      default: return is_elementwise(op.kind) && is_block(f_, op.results[0]) && !p_.is_free(op.results[0]);
    }
  }

  ir::Shape iteration_shape(const ir::Op& op) const {
    if (op.kind == ir::OpKind::store || op.kind == ir::OpKind::reduce) return f_.type(op.operands[0]).shape;
    if (op.kind == ir::OpKind::stash_put) return f_.type(op.operands[1]).shape;
    return f_.type(op.results[0]).shape;
  }

  // Whether reading `v` from an op of group `g` needs something `g` has not finished: a
  // reduction's result, or a member at another element than the one being computed (`direct`
  // is false once the read went through a view).
  bool conflicts(ir::ValueId v, int g, bool direct) const {
    auto it = p_.group_of.find(v);
    if (it != p_.group_of.end() && it->second == g) {
      if (!is_block(f_, v) || p_.def.at(v)->kind == ir::OpKind::reduce) return true;
      return !direct;
    }
    auto d = p_.def.find(v);
    if (d == p_.def.end()) return false;  // parameter or block argument
    const ir::Op& op = *d->second;
    if (!is_block(f_, v)) return false;  // a scalar of another group or of a scalar op
    if (p_.is_free(v) || p_.is_view(op)) {
      for (ir::ValueId o : op.operands)
        if (conflicts(o, g, false)) return true;
    }
    return false;
  }

  bool can_join(const ir::Op& op, int g) const {
    const Group& group = p_.groups[static_cast<std::size_t>(g)];
    if (group.shape != iteration_shape(op)) return false;
    const bool reads = op.kind == ir::OpKind::load || op.kind == ir::OpKind::atomic || op.kind == ir::OpKind::stash_get;
    if (reads && group.has_store) return false;  // keep memory order
    for (ir::ValueId v : op.operands)
      if (conflicts(v, g, true)) return false;
    return true;
  }

  bool scalar_needs(const ir::Op& op, int g) const {
    if (op.kind == ir::OpKind::load || op.kind == ir::OpKind::store || op.kind == ir::OpKind::atomic)
      return true;  // memory order
    for (ir::ValueId v : op.operands) {
      auto it = p_.group_of.find(v);
      if (it != p_.group_of.end() && it->second == g) return true;
    }
    return false;
  }

  void plan_region(const ir::Region& r) {
    std::vector<PlanItem> items;
    int open = -1;
    auto flush = [&] {
      if (open >= 0) items.push_back({PlanItem::Kind::group, nullptr, open});
      open = -1;
    };
    for (const ir::Op& op : r.ops) {
      if (op.kind == ir::OpKind::for_range) {
        flush();
        plan_region(op.regions.at(0));
        items.push_back({PlanItem::Kind::loop, &op, -1});
      } else if (op.kind == ir::OpKind::yield) {
        flush();
        items.push_back({PlanItem::Kind::yield, &op, -1});
      } else if (is_group_op(op)) {
        if (open >= 0 && !can_join(op, open)) flush();
        if (open < 0) {
          p_.groups.push_back({iteration_shape(op), {}, false});
          open = static_cast<int>(p_.groups.size()) - 1;
        }
        Group& g = p_.groups[static_cast<std::size_t>(open)];
        g.ops.push_back(&op);
        g.has_store |=
            op.kind == ir::OpKind::store || op.kind == ir::OpKind::atomic || op.kind == ir::OpKind::stash_put;
        for (ir::ValueId v : op.results) p_.group_of[v] = open;
      } else if (!op.results.empty() && is_block(f_, op.results[0])) {
        // Free values and views: computed where they are used.
      } else {
        // Scalar ops that do not depend on the open group are pure and run before it.
        if (open >= 0 && scalar_needs(op, open)) flush();
        items.push_back({PlanItem::Kind::scalar_op, &op, -1});
      }
    }
    flush();
    p_.items[&r] = std::move(items);
  }

  void mark_stored() {
    for (std::size_t g = 0; g < p_.groups.size(); ++g) {
      const Group& group = p_.groups[g];
      std::unordered_set<const ir::Op*> members(group.ops.begin(), group.ops.end());
      for (const ir::Op* op : group.ops) {
        if (op->results.empty() || !is_block(f_, op->results[0])) continue;
        ir::ValueId v = op->results[0];
        bool stored = op->kind == ir::OpKind::reduce;
        auto u = uses_.find(v);
        if (u != uses_.end())
          for (const ir::Op* user : u->second) stored |= members.count(user) == 0;
        if (stored) p_.stored.insert(v);
      }
    }
  }

  const ir::Function& f_;
  Plan& p_;
  std::unordered_map<ir::ValueId, std::vector<const ir::Op*>> uses_;
};

}  // namespace

bool Plan::is_view(const ir::Op& op) const {
  return (op.kind == ir::OpKind::broadcast || op.kind == ir::OpKind::expand_dims) && !is_free(op.results.at(0));
}

Plan make_plan(const ir::Function& f) {
  Plan p;
  Planner(f, p).run();
  return p;
}

}  // namespace tilejit::codegen::llvm_ir
