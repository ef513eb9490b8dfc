// How IR types and constants are spelled in the generated CUDA C.
//
// f16 and bf16 values are kept as their 16-bit patterns and computed in f32 (each result
// rounded back), so the generated code needs no CUDA headers.
#pragma once

#include <string>

#include "ir/ir.h"
#include "ir/type.h"

namespace tilejit::codegen::cuda {

/// Storage type of one element: "float", "unsigned short" (f16/bf16), "bool"...
std::string c_type(DType t);
/// Type arithmetic is done in: float for f16/bf16, else the storage type.
std::string compute_type(DType t);
/// Converts an expression of storage type to compute type (identity except f16/bf16).
std::string to_compute(DType t, const std::string& expr);
/// Converts an expression of compute type to storage type, rounding to nearest even.
std::string from_compute(DType t, const std::string& expr);
/// Converts an expression of storage type `from` to storage type `to` (C semantics for
/// float→int: truncation; to i1: != 0).
std::string convert(DType from, DType to, const std::string& expr);
/// Literal of storage type.
std::string int_literal(DType t, std::int64_t v);
std::string float_literal(DType t, double v);

/// `a (op) b` for a reduction's combining step, in compute type (max/min propagate NaN).
std::string reduce_combine(ir::ReduceKind k, const std::string& a, const std::string& b);

/// Helper functions every generated kernel starts with.
const char* prelude();

}  // namespace tilejit::codegen::cuda
