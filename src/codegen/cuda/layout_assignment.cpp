#include "codegen/cuda/layout_assignment.h"

#include <algorithm>
#include <unordered_set>

#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

bool can_be_free(ir::OpKind k) {
  switch (k) {
    case ir::OpKind::load:
    case ir::OpKind::stash_get:
    case ir::OpKind::reduce:
    case ir::OpKind::cluster_reduce:
    case ir::OpKind::group_reduce:
    case ir::OpKind::store:
    case ir::OpKind::atomic:
    case ir::OpKind::for_range:
    case ir::OpKind::yield: return false;
    default: return true;
  }
}

class Assigner {
 public:
  Assigner(const ir::Function& f, LayoutPlan& plan) : f_(f), plan_(plan) {}

  void run() {
    find_free(f_.body);
    assign(f_.body);
  }

 private:
  bool is_block(ir::ValueId v) const { return !f_.type(v).is_scalar(); }

  void find_free(const ir::Region& r) {
    for (const ir::Op& op : r.ops) {
      for (const auto& nested : op.regions) find_free(nested);
      if (!can_be_free(op.kind) || op.results.size() != 1 || !is_block(op.results[0])) continue;
      bool ok = std::all_of(op.operands.begin(), op.operands.end(),
                            [&](ir::ValueId v) { return !is_block(v) || plan_.is_free(v); });
      if (ok) plan_.free.insert(op.results[0]);
    }
  }

  // Layout an operand has or will be materialized in when its user does not dictate one.
  const Layout* fixed_layout(ir::ValueId v) const {
    auto it = plan_.fixed.find(v);
    return it == plan_.fixed.end() ? nullptr : &it->second;
  }

  Layout layout_or_default(ir::ValueId v) const {
    if (const Layout* l = fixed_layout(v)) return *l;
    return plan_.default_layout(f_.type(v).shape);
  }

  void assign(const ir::Region& r) {
    for (const ir::Op& op : r.ops) assign_op(op);
  }

  void assign_op(const ir::Op& op) {
    if (op.kind == ir::OpKind::for_range) return assign_loop(op);
    if (op.results.size() != 1) return;
    ir::ValueId res = op.results[0];
    if (!is_block(res) || plan_.is_free(res)) return;
    const ir::Shape& shape = f_.type(res).shape;
    switch (op.kind) {
      case ir::OpKind::load:
      case ir::OpKind::atomic:
      case ir::OpKind::stash_get: plan_.fixed[res] = plan_.default_layout(shape); return;
      case ir::OpKind::reduce:
        plan_.fixed[res] = slice_layout(layout_or_default(op.operands[0]), op.attrs.axis);
        return;
      case ir::OpKind::expand_dims:
        plan_.fixed[res] = expand_layout(layout_or_default(op.operands[0]), op.attrs.axis);
        return;
      case ir::OpKind::broadcast: plan_.fixed[res] = plan_.default_layout(shape); return;
      default: break;
    }
    // Elementwise: follow the first operand whose layout an op computed; a loop-carried value's
    // layout is only the previous round's guess while its loop settles, so it comes second.
    // (A running sum rescaled by a factor derived from the carried max would otherwise keep
    // the default layout the first round gave it, and convert to the reduction's every step.)
    const Layout* follow = nullptr;
    for (ir::ValueId v : op.operands)
      if (const Layout* l = fixed_layout(v)) {
        if (!carried_.contains(v)) {
          follow = l;
          break;
        }
        if (!follow) follow = l;
      }
    plan_.fixed[res] = follow ? *follow : plan_.default_layout(shape);
  }

  // Carried values take their init's layout, then the layout their yielded value ends up
  // with, until the two agree. An init with no layout of its own (a constant, computed in any
  // layout for free) fixes none: the first round leaves the carried value open, so what the body
  // combines it with decides (a running max taken against a reduction keeps the reduction's
  // layout, with no conversion a step).
  void assign_loop(const ir::Op& op) {
    const ir::Region& body = op.regions[0];
    std::size_t carried = op.results.size();
    for (std::size_t i = 0; i < carried; ++i) carried_.insert(body.args[i + 1]);
    for (std::size_t i = 0; i < carried; ++i) {
      ir::ValueId arg = body.args[i + 1];
      ir::ValueId init = op.operands[ir::kForFixedOperands + i];
      if (is_block(arg) && !plan_.is_free(init)) plan_.fixed[arg] = layout_or_default(init);
    }
    for (int round = 0; round < 4; ++round) {
      assign(body);
      bool changed = false;
      const ir::Op& yield = body.ops.back();
      for (std::size_t i = 0; i < carried; ++i) {
        ir::ValueId arg = body.args[i + 1];
        if (!is_block(arg)) continue;
        const Layout* y = fixed_layout(yield.operands[i]);
        Layout want = y ? *y : layout_or_default(arg);
        if (const Layout* have = fixed_layout(arg); have && *have == want) continue;
        plan_.fixed[arg] = want;
        changed = true;
      }
      if (!changed) break;
    }
    for (std::size_t i = 0; i < carried; ++i)
      if (is_block(op.results[i])) plan_.fixed[op.results[i]] = plan_.fixed[body.args[i + 1]];
  }

  const ir::Function& f_;
  LayoutPlan& plan_;
  std::unordered_set<ir::ValueId> carried_;  // loop-carried values (body arguments)
};

// Vector width: 16 bytes of the widest element any block load or store touches. Scalar accesses
// have no layout and move one element whatever the width, so they do not narrow it (a bf16 row
// walk storing its f32 statistics keeps 16-byte loads of 8 elements).
int choose_vec(const ir::Region& r, const ir::Function& f, int current) {
  for (const ir::Op& op : r.ops) {
    for (const auto& nested : op.regions) current = choose_vec(nested, f, current);
    if (op.kind != ir::OpKind::load && op.kind != ir::OpKind::store) continue;
    if (f.type(op.operands[0]).is_scalar()) continue;
    int bytes = static_cast<int>(dtype_size(f.type(op.operands[0]).elem));
    current = std::min(current, std::max(1, 16 / bytes));
  }
  return current;
}

}  // namespace

LayoutPlan assign_layouts(const ir::Function& f, int num_warps) {
  if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)) != 0)
    throw InternalError("num_warps must be a power of two between 1 and 32");
  LayoutPlan plan;
  plan.num_warps = num_warps;
  plan.vec = choose_vec(f.body, f, 8);
  Assigner(f, plan).run();
  return plan;
}

}  // namespace tilejit::codegen::cuda
