#include "dsl/semantics.h"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <string_view>

#include "tilejit/error.h"

namespace tilejit::tl::detail {
namespace {

bool fits_i32(std::int64_t v) {
  return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

int float_rank(DType t) {
  switch (t) {
    case DType::f16:
    case DType::bf16: return 1;
    case DType::f32: return 2;
    case DType::f64: return 3;
    default: return 0;
  }
}

}  // namespace

std::string describe(Tracer& tr, int v) { return ir::to_string(tr.type(v)); }

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (is_float(a) || is_float(b)) {
    if (!is_float(a)) return b;
    if (!is_float(b)) return a;
    int ra = float_rank(a), rb = float_rank(b);
    if (ra == rb) return DType::f32;  // f16 with bf16: neither holds the other
    return ra > rb ? a : b;
  }
  if (a == DType::i1) return b;
  if (b == DType::i1) return a;
  return DType::i64;  // i32 with i64
}

namespace {

// The type a literal takes next to a tensor of type `other`.
DType literal_dtype(const Operand& lit, DType other) {
  if (lit.kind() == Operand::Kind::float_literal) return is_float(other) ? other : DType::f32;
  if (is_float(other)) return other;
  if (other == DType::i64 || !fits_i32(lit.int_value())) return DType::i64;
  return DType::i32;
}

DType own_literal_dtype(const Operand& lit) {
  if (lit.kind() == Operand::Kind::float_literal) return DType::f32;
  return fits_i32(lit.int_value()) ? DType::i32 : DType::i64;
}

}  // namespace

DType binary_dtype(Tracer& tr, const Operand& a, const Operand& b) {
  bool ta = a.kind() == Operand::Kind::tensor, tb = b.kind() == Operand::Kind::tensor;
  if (ta && tb) return promote(tr.type(tr.read(a.tensor(), a.loc())).elem, tr.type(tr.read(b.tensor(), b.loc())).elem);
  if (ta) return literal_dtype(b, tr.type(tr.read(a.tensor(), a.loc())).elem);
  if (tb) return literal_dtype(a, tr.type(tr.read(b.tensor(), b.loc())).elem);
  return promote(own_literal_dtype(a), own_literal_dtype(b));
}

int value_as(Tracer& tr, const Operand& o, DType dtype) {
  auto& b = tr.at(o.loc());
  switch (o.kind()) {
    case Operand::Kind::tensor: return cast_value(tr, tr.read(o.tensor(), o.loc()), dtype, o.loc());
    case Operand::Kind::int_literal:
      if (dtype == DType::i32 && !fits_i32(o.int_value()))
        throw UserError(fmt::format("the integer {} does not fit in i32", o.int_value()), o.loc());
      if (dtype == DType::i1) return b.constant_int(dtype, o.int_value() != 0);
      return is_float(dtype) ? b.constant_float(dtype, static_cast<double>(o.int_value()))
                             : b.constant_int(dtype, o.int_value());
    case Operand::Kind::float_literal:
      if (!is_float(dtype))
        throw UserError(
            fmt::format("the floating-point number {} cannot be used as {}", o.float_value(), dtype_name(dtype)),
            o.loc());
      return b.constant_float(dtype, o.float_value());
  }
  throw InternalError("bad operand kind");
}

int value_of(Tracer& tr, const Operand& o) {
  if (o.kind() == Operand::Kind::tensor) return tr.read(o.tensor(), o.loc());
  return value_as(tr, o, own_literal_dtype(o));
}

ir::Shape broadcast_shapes(Tracer& tr, int a, int b, const std::source_location& loc) {
  const auto& sa = tr.type(a).shape;
  const auto& sb = tr.type(b).shape;
  std::size_t rank = std::max(sa.size(), sb.size());
  ir::Shape out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t ea = i < rank - sa.size() ? 1 : sa[i - (rank - sa.size())];
    std::int64_t eb = i < rank - sb.size() ? 1 : sb[i - (rank - sb.size())];
    if (ea != eb && ea != 1 && eb != 1)
      throw UserError(
          fmt::format("shape mismatch: {} and {} cannot be broadcast together", describe(tr, a), describe(tr, b)), loc);
    out[i] = std::max(ea, eb);
  }
  return out;
}

int broadcast_value(Tracer& tr, int v, const ir::Shape& shape, const std::source_location& loc) {
  const ir::Type& t = tr.type(v);
  if (t.shape == shape) return v;
  auto& b = tr.at(loc);
  if (t.is_scalar()) return b.splat(v, shape);
  if (t.shape.size() > shape.size())
    throw UserError(
        fmt::format("cannot broadcast {} to the lower-rank shape {}", describe(tr, v), ir::shape_string(shape)), loc);
  while (tr.type(v).shape.size() < shape.size()) v = b.expand_dims(v, 0);
  const auto& s = tr.type(v).shape;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (s[i] != shape[i] && s[i] != 1)
      throw UserError(
          fmt::format("shape mismatch: {} cannot be broadcast to {}", describe(tr, v), ir::shape_string(shape)), loc);
  return tr.type(v).shape == shape ? v : b.broadcast(v, shape);
}

std::pair<int, int> broadcast_pair(Tracer& tr, int a, int b, const std::source_location& loc) {
  ir::Shape s = broadcast_shapes(tr, a, b, loc);
  return {broadcast_value(tr, a, s, loc), broadcast_value(tr, b, s, loc)};
}

int cast_value(Tracer& tr, int v, DType to, const std::source_location& loc) {
  const ir::Type& t = tr.type(v);
  if (t.is_ptr)
    throw UserError(fmt::format("cannot convert the pointer {} to {}", describe(tr, v), dtype_name(to)), loc);
  if (t.elem == to) return v;
  return tr.at(loc).cast(v, to);
}

std::array<int, 3> loop_bounds(Tracer& tr, const Operand& start, const Operand& end, const Operand& step) {
  std::array<const Operand*, 3> ops{&start, &end, &step};
  const char* names[] = {"start", "end", "step"};
  DType t = DType::i32;
  for (int i = 0; i < 3; ++i) {
    const Operand& o = *ops[i];
    if (o.kind() == Operand::Kind::float_literal)
      throw UserError(fmt::format("for_range: {} must be an integer, got {}", names[i], o.float_value()), o.loc());
    if (o.kind() == Operand::Kind::tensor) {
      int v = tr.read(o.tensor(), o.loc());
      const auto& ty = tr.type(v);
      if (!ty.is_scalar() || !ty.is_int())
        throw UserError(fmt::format("for_range: {} must be an integer scalar, got {}", names[i], describe(tr, v)),
                        o.loc());
      t = promote(t, ty.elem);
    } else if (!fits_i32(o.int_value())) {
      t = DType::i64;
    }
  }
  // i < end with i += step: a step of zero or less would never reach end.
  if (step.kind() == Operand::Kind::int_literal && step.int_value() <= 0)
    throw UserError(fmt::format("for_range: step must be positive, got {} (the loop runs while i < end, so it would "
                                "never finish)",
                                step.int_value()),
                    step.loc());
  return {value_as(tr, start, t), value_as(tr, end, t), value_as(tr, step, t)};
}

bool is_pointer(Tracer& tr, const Operand& o) {
  return o.kind() == Operand::Kind::tensor && tr.type(tr.read(o.tensor(), o.loc())).is_ptr;
}

int pointer_operand(Tracer& tr, const Operand& ptrs, const char* what) {
  if (!is_pointer(tr, ptrs)) {
    std::string got = ptrs.kind() == Operand::Kind::tensor ? describe(tr, value_of(tr, ptrs)) : "a number";
    throw UserError(fmt::format("{}: the first argument must be pointers, got {}", what, got), ptrs.loc());
  }
  return tr.read(ptrs.tensor(), ptrs.loc());
}

int fitted_to_pointers(Tracer& tr, int ptrs, int x, const char* op, const char* what, const std::source_location& loc) {
  const ir::Shape& shape = tr.type(ptrs).shape;
  if (broadcast_shapes(tr, ptrs, x, loc) != shape)
    throw UserError(fmt::format("{0}: the {1} {2} does not fit the pointers {3}: a {0} reaches each address once, "
                                "so the {1} must broadcast to the pointers' shape (give the pointers the {1}'s "
                                "shape, e.g. with x(tl::all, tl::newaxis))",
                                op, what, describe(tr, x), describe(tr, ptrs)),
                    loc);
  return broadcast_value(tr, x, shape, loc);
}

int mask_operand(Tracer& tr, const Operand& mask, const char* what) {
  int m = value_of(tr, mask);
  if (!tr.type(m).is_bool())
    throw UserError(fmt::format("{}: the mask must be boolean (e.g. offsets < n), got {}{}", what, describe(tr, m),
                                std::string_view(what) == "load"
                                    ? "; to give 'other' (the value of masked-off lanes) a mask is required: "
                                      "load(ptrs, mask, other)"
                                    : ""),
                    mask.loc());
  return m;
}

}  // namespace tilejit::tl::detail
