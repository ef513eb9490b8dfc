// Entry point of the front end: runs a kernel function under a Tracer and returns its IR.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dsl/tracer.h"
#include "ir/ir.h"

namespace tilejit::tl::detail {

/// Traces `invoke` (which calls the user's kernel with parameters made by param_tensor /
/// param_constexpr) and verifies the result. DSL misuse surfaces as UserError.
ir::Function trace_kernel(const std::string& name, std::vector<TraceParam> params, const std::function<void()>& invoke);

}  // namespace tilejit::tl::detail
