// IR types: an element kind (or a pointer to one) and a static shape of rank 0-2 whose extents
// are powers of two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilejit/dtype.h"

namespace tilejit::ir {

using Shape = std::vector<std::int64_t>;

struct Type {
  DType elem = DType::i32;  // element kind, or the pointee when is_ptr
  bool is_ptr = false;
  Shape shape;  // empty: a scalar

  static Type scalar(DType t) { return Type{t, false, {}}; }
  static Type pointer(DType pointee) { return Type{pointee, true, {}}; }
  Type with_shape(Shape s) const { return Type{elem, is_ptr, std::move(s)}; }
  Type with_elem(DType t) const { return Type{t, false, shape}; }
  Type scalar_type() const { return Type{elem, is_ptr, {}}; }

  int rank() const { return static_cast<int>(shape.size()); }
  bool is_scalar() const { return shape.empty(); }
  std::int64_t numel() const;
  bool is_float() const { return !is_ptr && tilejit::is_float(elem); }
  bool is_int() const { return !is_ptr && tilejit::is_int(elem); }
  bool is_bool() const { return !is_ptr && elem == DType::i1; }

  bool operator==(const Type&) const = default;
};

/// "f32[128,64]", "ptr<f16>", "i32".
std::string to_string(const Type& t);
std::string shape_string(const Shape& s);
bool is_power_of_two(std::int64_t v);

}  // namespace tilejit::ir
