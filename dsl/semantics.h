// The front end's semantic layer: Triton-style type promotion, numpy broadcasting and the
// conversion of C++ numbers into IR constants. Everything the backends rely on (operands of
// one type and shape, explicit broadcasts) is made explicit here.
#pragma once

#include <array>
#include <source_location>
#include <utility>

#include "dsl/tracer.h"

namespace tilejit::tl::detail {

/// The element type two operands are computed in.
DType promote(DType a, DType b);

/// The type a pair of operands is promoted to (literals adapt to the other side).
DType binary_dtype(Tracer& tr, const Operand& a, const Operand& b);

/// Value of `o` converted to `dtype` (literals become constants; tensors are cast).
int value_as(Tracer& tr, const Operand& o, DType dtype);
/// Value of `o` with its own type (literals: i32/i64 or f32).
int value_of(Tracer& tr, const Operand& o);

/// Numpy broadcasting of two shapes; UserError naming both types when incompatible.
ir::Shape broadcast_shapes(Tracer& tr, int a, int b, const std::source_location& loc);
/// Broadcasts value `v` to `shape` (splat for scalars, leading unit dims, then broadcast).
int broadcast_value(Tracer& tr, int v, const ir::Shape& shape, const std::source_location& loc);
/// Both operands broadcast to their common shape.
std::pair<int, int> broadcast_pair(Tracer& tr, int a, int b, const std::source_location& loc);

/// Casts `v` to element type `to` (no-op when equal); pointers cannot be cast.
int cast_value(Tracer& tr, int v, DType to, const std::source_location& loc);

/// Loop bounds converted to one integer scalar type.
std::array<int, 3> loop_bounds(Tracer& tr, const Operand& start, const Operand& end, const Operand& step);

/// A short description of a value's type for error messages: "f32[128]", "ptr<f16>".
std::string describe(Tracer& tr, int v);

/// Whether `o` is a traced pointer (scalar or block).
bool is_pointer(Tracer& tr, const Operand& o);
/// The value of `ptrs` (pointers) and of `mask` (booleans) for op `what`; UserError otherwise.
int pointer_operand(Tracer& tr, const Operand& ptrs, const char* what);
int mask_operand(Tracer& tr, const Operand& mask, const char* what);
/// `x` (the `what` of op `op`: its value or mask) broadcast to the pointers' shape. Never the
/// other way: widened pointers would reach one address from several lanes, in an unspecified
/// order. UserError otherwise.
int fitted_to_pointers(Tracer& tr, int ptrs, int x, const char* op, const char* what, const std::source_location& loc);

}  // namespace tilejit::tl::detail
