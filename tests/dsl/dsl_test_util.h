// Helpers for front-end tests: trace a lambda as a kernel with hand-made parameters and look
// at the IR it produced.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dsl/trace.h"
#include "ir/ir.h"
#include "ir/printer.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace dsltest {

namespace tl = tilejit::tl;
namespace ir = tilejit::ir;
using tilejit::DType;
using TraceParam = tl::detail::TraceParam;

inline TraceParam ptr_param(const std::string& name, DType pointee) {
  return {name, TraceParam::Kind::pointer, pointee, 0};
}
inline TraceParam int_param(const std::string& name, DType t = DType::i32) {
  return {name, TraceParam::Kind::integer, t, 0};
}
inline TraceParam constexpr_param(const std::string& name, std::int64_t v) {
  return {name, TraceParam::Kind::constexpr_int, DType::i32, v};
}

// Parameters as the Kernel template would make them (index = position in the TraceParam list).
inline tl::Ptr ptr_arg(int i) { return tl::Ptr(tl::detail::param_tensor(i)); }
inline tl::Int int_arg(int i) { return tl::Int(tl::detail::param_tensor(i)); }

/// Traces `body` (which builds its parameters with ptr_arg / int_arg) into verified IR.
inline ir::Function trace(std::vector<TraceParam> params, const std::function<void()>& body) {
  return tl::detail::trace_kernel("test_kernel", std::move(params), body);
}

inline void collect(const ir::Region& r, ir::OpKind k, std::vector<const ir::Op*>& out) {
  for (const ir::Op& op : r.ops) {
    if (op.kind == k) out.push_back(&op);
    for (const auto& nested : op.regions) collect(nested, k, out);
  }
}

/// Every op of kind `k`, in program order (nested regions included).
inline std::vector<const ir::Op*> ops_of(const ir::Function& f, ir::OpKind k) {
  std::vector<const ir::Op*> out;
  collect(f.body, k, out);
  return out;
}

inline const ir::Op* find_def(const ir::Region& r, ir::ValueId v) {
  for (const ir::Op& op : r.ops) {
    for (auto res : op.results)
      if (res == v) return &op;
    for (const auto& nested : op.regions)
      if (const ir::Op* d = find_def(nested, v)) return d;
  }
  return nullptr;
}

/// The op whose result is `v` (null for parameters and block arguments).
inline const ir::Op* def_of(const ir::Function& f, ir::ValueId v) { return find_def(f.body, v); }

inline std::string type_of(const ir::Function& f, ir::ValueId v) { return ir::to_string(f.type(v)); }

}  // namespace dsltest
