// Which kernel parameter each pointer value is derived from, so a load or store can be checked
// against the memory behind that argument.
#include "codegen/llvm/pointer_params.h"

namespace tilejit::codegen::llvm_ir {
namespace {

constexpr int kUnset = -2;

class PointerParams {
 public:
  explicit PointerParams(const ir::Function& f) : f_(f) {
    for (std::size_t i = 0; i < f.params.size(); ++i)
      if (f.type(f.params[i].value).is_ptr) roots_[f.params[i].value] = static_cast<int>(i);
  }

  std::unordered_map<ir::ValueId, int> run() {
    // A loop-carried pointer takes its init's root, and its yield's too: walk until nothing
    // changes (each value can only go from unset to a parameter to unknown).
    do {
      changed_ = false;
      region(f_.body);
    } while (changed_);
    std::unordered_map<ir::ValueId, int> known;
    for (auto [v, root] : roots_)
      if (root != kUnset) known[v] = root;
    return known;
  }

 private:
  int root(ir::ValueId v) const {
    auto it = roots_.find(v);
    return it == roots_.end() ? kUnset : it->second;
  }

  // Joins `root` into v's: unset takes it, a different parameter makes v unknown.
  void join(ir::ValueId v, int from) {
    if (from == kUnset) return;
    int& r = roots_.try_emplace(v, kUnset).first->second;
    int next = r == kUnset || r == from ? from : kUnknownParam;
    if (next != r) {
      r = next;
      changed_ = true;
    }
  }

  void region(const ir::Region& r) {
    for (const ir::Op& op : r.ops) {
      if (op.kind == ir::OpKind::for_range) {
        loop(op);
        continue;
      }
      if (op.results.empty() || !f_.type(op.results[0]).is_ptr) continue;
      switch (op.kind) {
        case ir::OpKind::addptr:
        case ir::OpKind::splat:
        case ir::OpKind::broadcast:
        case ir::OpKind::expand_dims: join(op.results[0], root(op.operands[0])); break;
        case ir::OpKind::select:
          join(op.results[0], root(op.operands[1]));
          join(op.results[0], root(op.operands[2]));
          break;
        default: join(op.results[0], kUnknownParam); break;
      }
    }
  }

  void loop(const ir::Op& op) {
    const ir::Region& body = op.regions[0];
    const ir::Op& yield = body.ops.back();
    for (std::size_t i = 0; i + ir::kForFixedOperands < op.operands.size(); ++i) {
      ir::ValueId init = op.operands[ir::kForFixedOperands + i];
      if (!f_.type(init).is_ptr) continue;
      join(body.args[i + 1], root(init));
      join(body.args[i + 1], root(yield.operands[i]));
    }
    region(body);
    for (std::size_t i = 0; i < op.results.size(); ++i)
      if (f_.type(op.results[i]).is_ptr) join(op.results[i], root(body.args[i + 1]));
  }

  const ir::Function& f_;
  std::unordered_map<ir::ValueId, int> roots_;
  bool changed_ = false;
};

}  // namespace

std::unordered_map<ir::ValueId, int> pointer_params(const ir::Function& f) { return PointerParams(f).run(); }

}  // namespace tilejit::codegen::llvm_ir
