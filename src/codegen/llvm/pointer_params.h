// Which kernel parameter each pointer value is derived from (internal to the CPU backend).
#pragma once

#include <unordered_map>

#include "ir/ir.h"

namespace tilejit::codegen::llvm_ir {

/// A pointer derived from more than one parameter (a select between two, a loop that swaps them).
constexpr int kUnknownParam = -1;

/// For every pointer value of `f`: the index in f.params of the pointer parameter it was
/// computed from (through addptr, splat, broadcast, expand_dims, select and loop-carried
/// values), or kUnknownParam.
std::unordered_map<ir::ValueId, int> pointer_params(const ir::Function& f);

}  // namespace tilejit::codegen::llvm_ir
