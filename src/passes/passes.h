// IR-to-IR passes run between tracing and code generation.
#pragma once

#include "ir/ir.h"

namespace tilejit::passes {

/// Drops loop-carried values that never change inside their loop (tracing carries every
/// outer value the body touches; most are only read).
bool remove_invariant_carried_values(ir::Function& f);

/// Removes ops whose results are unused and that have no side effects.
bool eliminate_dead_code(ir::Function& f);

/// Merges pure ops that compute the same value (same kind, operands, attributes, type).
bool eliminate_common_subexpressions(ir::Function& f);

/// The standard pipeline: the passes above to a fixed point. Verifies after each pass when
/// `verify_each` is set (debug builds and TILEJIT_DEBUG=1).
void canonicalize(ir::Function& f, bool verify_each);

}  // namespace tilejit::passes
