// What both CUDA generators emit for an atomic: the PTX `atom` operation and type, and which of
// them need the sign-bit split of f32/f64 max and min.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tilejit::codegen::cuda {

/// Whether `k` on `t` is two integer atoms chosen by the value's sign bit: f32/f64 max and min.
/// Floats whose sign bit is clear order as signed integers, those with it set in reverse as
/// unsigned ones, so -0 < +0.
bool atom_splits_on_sign(ir::AtomicKind k, DType t);
/// The `atom` instruction's operation and type after `atom.acq_rel.gpu.`: "add.f32", "exch.b64",
/// "max.s32"... For a split one, that of the values whose sign bit is `sign_set`.
std::string atom_operation(ir::AtomicKind k, DType t, bool sign_set = false);

}  // namespace tilejit::codegen::cuda
