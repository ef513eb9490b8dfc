// How many of a thread's elements one global-memory access may move, shared by the CUDA C and
// PTX generators so both make the same choice.
#pragma once

#include "codegen/cuda/layout.h"
#include "ir/ir.h"
#include "passes/axis_info.h"

namespace tilejit::codegen::cuda {

/// Elements per thread one access of `ptr` (masked by `mask`, or ir::kNoValue) in layout `l`
/// may move: contiguous in the layout, proven contiguous and aligned by the axis analysis, one
/// mask value for all, at most 16 bytes; a power of two. One-byte elements: 1 or a multiple of 4.
int vector_width(const ir::Function& f, const passes::AxisInfo& axes, ir::ValueId ptr, ir::ValueId mask,
                 const Layout& l);

}  // namespace tilejit::codegen::cuda
