#include "ir/verifier.h"

#include <fmt/format.h>

#include <vector>

#include "ir/type_rules.h"
#include "tilejit/error.h"

namespace tilejit::ir {
namespace {

class Verifier {
 public:
  explicit Verifier(const Function& f) : f_(f), defined_(f.value_types.size(), false) {}

  void run() {
    for (const auto& p : f_.params) define(p.value, "parameter");
    region(f_.body, /*in_loop=*/false);
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw InternalError(fmt::format("IR verifier: function '{}': {}", f_.name, what));
  }

  void define(ValueId v, const char* what) {
    if (v < 0 || static_cast<std::size_t>(v) >= defined_.size()) fail(fmt::format("{} %{} out of range", what, v));
    if (defined_[v]) fail(fmt::format("%{} defined twice", v));
    defined_[v] = true;
  }

  void region(const Region& r, bool in_loop) {
    std::vector<ValueId> scope;  // values to forget when the region ends
    for (ValueId a : r.args) {
      define(a, "block argument");
      scope.push_back(a);
    }
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      const Op& op = r.ops[i];
      bool last = i + 1 == r.ops.size();
      if (op.kind == OpKind::yield && !(in_loop && last)) fail("yield outside the end of a loop body");
      if (in_loop && last && op.kind != OpKind::yield) fail("loop body does not end with yield");
      for (ValueId v : op.operands)
        if (v < 0 || static_cast<std::size_t>(v) >= defined_.size() || !defined_[v])
          fail(fmt::format("'{}' uses %{} before its definition", op_name(op.kind), v));
      auto types = infer_result_types(f_, op);
      if (types.size() != op.results.size()) fail(fmt::format("'{}' has a wrong result count", op_name(op.kind)));
      for (std::size_t k = 0; k < types.size(); ++k)
        if (types[k] != f_.type(op.results[k]))
          fail(fmt::format("'{}' result %{} is {}, rules say {}", op_name(op.kind), op.results[k],
                           to_string(f_.type(op.results[k])), to_string(types[k])));
      if (op.kind == OpKind::for_range) loop(op);
      else if (!op.regions.empty()) fail(fmt::format("'{}' must not have regions", op_name(op.kind)));
      for (ValueId v : op.results) {
        define(v, "result");
        scope.push_back(v);
      }
    }
    if (in_loop && r.ops.empty()) fail("empty loop body");
    for (ValueId v : scope) defined_[v] = false;
  }

  void loop(const Op& op) {
    if (op.regions.size() != 1) fail("for_range needs one body");
    const Region& body = op.regions[0];
    std::size_t carried = op.operands.size() - kForFixedOperands;
    if (body.args.size() != carried + 1) fail("for_range body argument count");
    if (f_.type(body.args[0]) != f_.type(op.operands[0])) fail("induction variable type");
    for (std::size_t i = 0; i < carried; ++i)
      if (f_.type(body.args[i + 1]) != f_.type(op.operands[kForFixedOperands + i]))
        fail(fmt::format("carried value {} type differs from its init", i));
    region(body, /*in_loop=*/true);
    const Op& y = body.ops.back();
    if (y.operands.size() != carried) fail("yield count differs from carried values");
    for (std::size_t i = 0; i < carried; ++i)
      if (f_.type(y.operands[i]) != f_.type(body.args[i + 1])) fail(fmt::format("yield {} type differs", i));
  }

  const Function& f_;
  std::vector<bool> defined_;
};

}  // namespace

void verify(const Function& f) { Verifier(f).run(); }

}  // namespace tilejit::ir
