// Checks a whole Function: every operand is defined before use in an enclosing region, every
// op's result types follow the type rules, loops are well formed.
#pragma once

#include "ir/ir.h"

namespace tilejit::ir {

/// Throws InternalError describing the first problem found.
void verify(const Function& f);

}  // namespace tilejit::ir
