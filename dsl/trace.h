// Entry point of the front end: runs a kernel function under a Tracer and returns its IR.
#pragma once

#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "dsl/tracer.h"
#include "ir/ir.h"

namespace tilejit::tl::detail {

/// Traces `invoke` (which calls the user's kernel with parameters made by param_tensor /
/// param_constexpr) and verifies the result. DSL misuse surfaces as UserError. An exception of the
/// user's own code does too, naming the kernel and the latest DSL operation's line (else
/// `call_site`), with the original nested in it (std::rethrow_if_nested).
ir::Function trace_kernel(const std::string& name, std::vector<TraceParam> params, const std::function<void()>& invoke,
                          const std::source_location& call_site = std::source_location::current());

}  // namespace tilejit::tl::detail
