// Result types of every op, derived from its operands and attributes. The builder uses these
// rules to type new ops; the verifier re-derives them to check a whole function.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tilejit::ir {

/// Returns the result types of `op`, or throws InternalError naming the broken invariant.
/// for_range results are its init types; its body is checked by the verifier.
std::vector<Type> infer_result_types(const Function& f, const Op& op);

}  // namespace tilejit::ir
