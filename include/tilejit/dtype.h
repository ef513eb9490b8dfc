// Element types shared by the DSL, the compiler and the launch API.
#pragma once

#include <cstddef>
#include <string_view>

namespace tilejit {

/// Element type of a block value, a scalar or a pointer's pointee.
enum class DType { i1, i32, i64, f16, bf16, f32, f64 };

/// Short name used in IR text and cache keys: "i1", "i32", "f32", ...
std::string_view dtype_name(DType t);
/// Size in bytes of one element in memory (i1 is stored as one byte).
std::size_t dtype_size(DType t);
bool is_float(DType t);
bool is_int(DType t);  // i1 excluded
/// Parses a name produced by dtype_name (also accepts "fp32", "fp16", "bf16", "float32"...).
/// Returns false when the name is unknown.
bool parse_dtype(std::string_view name, DType& out);

}  // namespace tilejit
