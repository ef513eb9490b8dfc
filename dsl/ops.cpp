// The DSL's operations: each checks its operands (UserError at the user's line), applies
// promotion and broadcasting, and records IR.
#include <fmt/format.h>

#include <array>
#include <numbers>
#include <optional>

#include "dsl/semantics.h"
#include "dsl/tracer.h"
#include "tilejit/error.h"

namespace tilejit::tl {

using detail::broadcast_pair;
using detail::broadcast_value;
using detail::describe;
using detail::is_pointer;
using detail::mask_operand;
using detail::pointer_operand;
using detail::Tracer;
using ir::OpKind;

namespace {

Tracer& tracer(const Operand& o) { return Tracer::current(o.loc()); }

// Arithmetic on numbers: promote, broadcast, build.
Tensor arithmetic(OpKind kind, const char* symbol, const Operand& a, const Operand& b) {
  Tracer& tr = tracer(a);
  DType t = detail::binary_dtype(tr, a, b);
  int va = detail::value_as(tr, a, t), vb = detail::value_as(tr, b, t);
  bool bitwise = kind == OpKind::bit_and || kind == OpKind::bit_or || kind == OpKind::bit_xor;
  if (bitwise && is_float(t))
    throw UserError(fmt::format("operator {} needs integer or boolean operands, got {} and {}", symbol,
                                describe(tr, va), describe(tr, vb)),
                    a.loc());
  if ((kind == OpKind::shl || kind == OpKind::shr) && (is_float(t) || t == DType::i1))
    throw UserError(
        fmt::format("operator {} needs integer operands, got {} and {}", symbol, describe(tr, va), describe(tr, vb)),
        a.loc());
  auto [x, y] = broadcast_pair(tr, va, vb, a.loc());
  return tr.make(tr.at(a.loc()).binary(kind, x, y));
}

// pointer + integer offsets (offsets negated for subtraction).
Tensor pointer_offset(const Operand& ptr, const Operand& offset, bool subtract, const std::source_location& loc) {
  Tracer& tr = Tracer::current(loc);
  int p = tr.read(ptr.tensor(), ptr.loc());
  if (is_pointer(tr, offset))
    throw UserError(fmt::format("cannot {} two pointers ({} and {})", subtract ? "subtract" : "add", describe(tr, p),
                                describe(tr, detail::value_of(tr, offset))),
                    loc);
  int off = detail::value_of(tr, offset);
  if (!tr.type(off).is_int() && !tr.type(off).is_bool())
    throw UserError(
        fmt::format("cannot {} a {} value ({}) {} a pointer ({}); offsets must be integers",
                    subtract ? "subtract" : "add", tr.type(off).is_float() ? "floating-point" : "non-integer",
                    describe(tr, off), subtract ? "from" : "to", describe(tr, p)),
        loc);
  if (tr.type(off).is_bool()) off = detail::cast_value(tr, off, DType::i32, loc);
  auto& b = tr.at(loc);
  if (subtract) off = b.unary(OpKind::neg, off);
  auto [pp, oo] = broadcast_pair(tr, p, off, loc);
  return tr.make(tr.at(loc).addptr(pp, oo));
}

void no_pointers(Tracer& tr, const Operand& a, const Operand& b, const char* symbol) {
  for (const Operand* o : {&a, &b})
    if (is_pointer(tr, *o))
      throw UserError(fmt::format("operator {} is not defined for pointers ({})", symbol,
                                  describe(tr, tr.read(o->tensor(), o->loc()))),
                      a.loc());
}

Tensor checked_arithmetic(OpKind kind, const char* symbol, const Operand& a, const Operand& b) {
  no_pointers(tracer(a), a, b, symbol);
  return arithmetic(kind, symbol, a, b);
}

Tensor compare(OpKind kind, const char* symbol, const Operand& a, const Operand& b) {
  return checked_arithmetic(kind, symbol, a, b);
}

// The value of x, which must be floating point for `name`.
int float_operand(Tracer& tr, const char* name, const Operand& x) {
  int v = detail::value_of(tr, x);
  if (!tr.type(v).is_float())
    throw UserError(fmt::format("{} needs a floating-point operand, got {}; convert it first with .to(DType::f32)",
                                name, describe(tr, v)),
                    x.loc());
  return v;
}

Tensor float_math(OpKind kind, const char* name, const Operand& x) {
  Tracer& tr = tracer(x);
  int v = float_operand(tr, name, x);
  return tr.make(tr.at(x.loc()).unary(kind, v));
}

// 2^(x * scale), or 2^x without a scale, whose results below 2^-126 may flush to zero (exp_fast,
// exp2_fast). 16-bit inputs are scaled in f32, as tl::exp computes them: rounding x * log2(e) to
// f16 or bf16 would cost |x| * 2^-11 (2^-8) instead of 2^-24. Every step carries the caller's
// line. (Operands point at tensors: each step is a named Tensor that outlives its use.)
Tensor flushing_exp2(const Operand& x, const char* name, std::optional<double> scale) {
  Tracer& tr = tracer(x);
  int v = float_operand(tr, name, x);
  const DType t = tr.type(v).elem;
  const bool narrow = t == DType::f16 || t == DType::bf16;
  const Tensor wide = tr.make(narrow ? detail::cast_value(tr, v, DType::f32, x.loc()) : v);
  const Tensor scaled = scale ? Operand(wide, x.loc()) * Operand(*scale, x.loc()) : wide;
  Tensor e = tr.make(tr.at(x.loc()).exp2_flushing_subnormals(detail::value_of(tr, Operand(scaled, x.loc()))));
  if (!narrow) return e;
  return tr.make(detail::cast_value(tr, detail::value_of(tr, Operand(e, x.loc())), t, x.loc()));
}

Tensor reduction(ir::ReduceKind kind, const char* name, const Operand& x, int axis) {
  Tracer& tr = tracer(x);
  int v = detail::value_of(tr, x);
  const auto& t = tr.type(v);
  if (t.is_ptr) throw UserError(fmt::format("{}: cannot reduce pointers ({})", name, describe(tr, v)), x.loc());
  if (t.is_scalar())
    throw UserError(fmt::format("{}: needs a block, got the scalar {}", name, describe(tr, v)), x.loc());
  if (axis < 0 || axis >= t.rank())
    throw UserError(fmt::format("{}: axis {} is out of range for {} (rank {})", name, axis, describe(tr, v), t.rank()),
                    x.loc());
  if (t.is_bool()) v = detail::cast_value(tr, v, DType::i32, x.loc());
  return tr.make(tr.at(x.loc()).reduce(v, axis, kind));
}

// Every element to a scalar: the last axis first, then the one before, each at the user's line.
Tensor full_reduction(ir::ReduceKind kind, const char* name, const Operand& x) {
  Tracer& tr = tracer(x);
  const int rank = tr.type(detail::value_of(tr, x)).rank();
  Tensor r = reduction(kind, name, x, std::max(rank - 1, 0));
  for (int axis = rank - 2; axis >= 0; --axis) r = reduction(kind, name, Operand(r, x.loc()), axis);
  return r;
}

// The least index along `axis` holding the max (min): that reduction, then the min of the indices
// where it is found. A NaN wins both, as in torch.argmax/argmin: it makes the max and the min NaN,
// and the NaN test x != x finds where it is. Every step is at the user's line.
Tensor arg_reduction(ir::ReduceKind kind, const char* name, const Operand& x, int axis) {
  Tracer& tr = tracer(x);
  const std::source_location loc = x.loc();
  const Tensor best = reduction(kind, name, x, axis);  // checks x and axis
  const ir::Type t = tr.type(detail::value_of(tr, x));
  const std::int64_t extent = t.shape[static_cast<std::size_t>(axis)];
  const Tensor value = tr.make(detail::value_of(tr, x));
  Tensor hit = Operand(value, loc) == Operand(expand_dims(Operand(best, loc), axis), loc);
  if (t.is_float()) hit = Operand(hit, loc) | Operand(Operand(value, loc) != Operand(value, loc), loc);
  Tensor index = arange(0, extent, loc);
  if (t.rank() == 2) index = expand_dims(Operand(index, loc), 1 - axis);
  const Tensor candidates = where(Operand(hit, loc), Operand(index, loc), Operand(extent, loc));
  return reduction(ir::ReduceKind::min, name, Operand(candidates, loc), axis);
}

// The value one program passes to a cluster or group reduction: a scalar number.
int exchanged_value(Tracer& tr, const char* name, const Operand& x) {
  int v = detail::value_of(tr, x);
  const auto& t = tr.type(v);
  if (t.is_ptr || t.is_bool())
    throw UserError(fmt::format("{}: needs a number, got {}", name, describe(tr, v)), x.loc());
  if (!t.is_scalar())
    throw UserError(fmt::format("{}: reduces one scalar per program, got the block {} (reduce it first, e.g. "
                                "tl::max(x, 0))",
                                name, describe(tr, v)),
                    x.loc());
  return v;
}

void check_size(const char* name, const char* what, std::int64_t size, int most, const Operand& at) {
  if (size < 1 || size > most)
    throw UserError(fmt::format("{}: {} size {} is out of range (1 to {} programs)", name, what, size, most), at.loc());
}

int workspace_value(Tracer& tr, const char* name, const Operand& workspace, const Operand& at) {
  int ws = detail::value_of(tr, workspace);
  const auto& wt = tr.type(ws);
  if (!wt.is_ptr || !wt.is_scalar())
    throw UserError(
        fmt::format("{}: the workspace must be a pointer parameter (a tl::Ptr), got {}", name, describe(tr, ws)),
        at.loc());
  return ws;
}

Tensor cluster_reduction(ir::ReduceKind kind, const char* name, const Operand& x, std::int64_t cluster_size) {
  Tracer& tr = tracer(x);
  int v = exchanged_value(tr, name, x);
  check_size(name, "cluster", cluster_size, ir::kMaxClusterSize, x);
  return tr.make(tr.at(x.loc()).cluster_reduce(v, static_cast<int>(cluster_size), kind));
}

Tensor group_reduction(ir::ReduceKind kind, const char* name, const Operand& x, std::int64_t group_size,
                       const Operand& workspace) {
  Tracer& tr = tracer(x);
  int v = exchanged_value(tr, name, x);
  check_size(name, "group", group_size, ir::kMaxGroupSize, x);
  int ws = workspace_value(tr, name, workspace, x);
  return tr.make(tr.at(x.loc()).group_reduce(v, ws, static_cast<int>(group_size), kind));
}

// cluster_softmax_stats / group_softmax_stats (workspace: kNoValue for a cluster).
std::pair<Tensor, Tensor> softmax_stats(const char* name, const Operand& max, const Operand& sum, std::int64_t size,
                                        const Operand* workspace) {
  Tracer& tr = tracer(max);
  int m = detail::cast_value(tr, exchanged_value(tr, name, max), DType::f32, max.loc());
  int s = detail::cast_value(tr, exchanged_value(tr, name, sum), DType::f32, sum.loc());
  check_size(name, workspace ? "group" : "cluster", size, workspace ? ir::kMaxGroupSize : ir::kMaxClusterSize, max);
  int ws = workspace ? workspace_value(tr, name, *workspace, max) : ir::kNoValue;
  auto [row_max, row_sum] = tr.at(max.loc()).softmax_stats(m, s, static_cast<int>(size), ws);
  return {tr.make(row_max), tr.make(row_sum)};
}

}  // namespace

Tensor operator+(const Operand& a, const Operand& b) {
  Tracer& tr = tracer(a);
  if (is_pointer(tr, a)) return pointer_offset(a, b, false, a.loc());
  if (is_pointer(tr, b)) return pointer_offset(b, a, false, a.loc());
  return arithmetic(OpKind::add, "+", a, b);
}

Tensor operator-(const Operand& a, const Operand& b) {
  Tracer& tr = tracer(a);
  if (is_pointer(tr, a)) return pointer_offset(a, b, true, a.loc());
  return checked_arithmetic(OpKind::sub, "-", a, b);
}

Tensor operator*(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::mul, "*", a, b); }
Tensor operator/(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::div, "/", a, b); }
Tensor operator%(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::rem, "%", a, b); }
Tensor operator<(const Operand& a, const Operand& b) { return compare(OpKind::cmp_lt, "<", a, b); }
Tensor operator<=(const Operand& a, const Operand& b) { return compare(OpKind::cmp_le, "<=", a, b); }
Tensor operator>(const Operand& a, const Operand& b) { return compare(OpKind::cmp_gt, ">", a, b); }
Tensor operator>=(const Operand& a, const Operand& b) { return compare(OpKind::cmp_ge, ">=", a, b); }
Tensor operator==(const Operand& a, const Operand& b) { return compare(OpKind::cmp_eq, "==", a, b); }
Tensor operator!=(const Operand& a, const Operand& b) { return compare(OpKind::cmp_ne, "!=", a, b); }
Tensor operator&(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::bit_and, "&", a, b); }
Tensor operator|(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::bit_or, "|", a, b); }
Tensor operator^(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::bit_xor, "^", a, b); }
Tensor operator<<(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::shl, "<<", a, b); }
Tensor operator>>(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::shr, ">>", a, b); }

Tensor operator-(const Operand& a) {
  Tracer& tr = tracer(a);
  int v = detail::value_of(tr, a);
  if (tr.type(v).is_ptr || tr.type(v).is_bool())
    throw UserError(fmt::format("unary - is not defined for {}", describe(tr, v)), a.loc());
  return tr.make(tr.at(a.loc()).unary(OpKind::neg, v));
}

Tensor operator~(const Operand& a) {
  Tracer& tr = tracer(a);
  int v = detail::value_of(tr, a);
  if (tr.type(v).is_ptr || tr.type(v).is_float())
    throw UserError(fmt::format("operator ~ needs an integer or boolean operand, got {}", describe(tr, v)), a.loc());
  return tr.make(tr.at(a.loc()).unary(OpKind::bit_not, v));
}

Tensor program_id(int axis, std::source_location loc) {
  Tracer& tr = Tracer::current(loc);
  if (axis < 0 || axis > 2) throw UserError(fmt::format("program_id: axis must be 0, 1 or 2, got {}", axis), loc);
  return tr.make(tr.at(loc).program_id(axis));
}

Tensor num_programs(int axis, std::source_location loc) {
  Tracer& tr = Tracer::current(loc);
  if (axis < 0 || axis > 2) throw UserError(fmt::format("num_programs: axis must be 0, 1 or 2, got {}", axis), loc);
  return tr.make(tr.at(loc).num_programs(axis));
}

Tensor arange(std::int64_t start, std::int64_t end, std::source_location loc) {
  Tracer& tr = Tracer::current(loc);
  std::int64_t n = end - start;
  if (end <= start) throw UserError(fmt::format("arange({}, {}): end must be greater than start", start, end), loc);
  if (!ir::is_power_of_two(n))
    throw UserError(fmt::format("arange({}, {}): the length {} must be a power of two", start, end, n), loc);
  if (n > (1 << 20))
    throw UserError(fmt::format("arange({}, {}): blocks are limited to 2^20 elements", start, end), loc);
  if (start < INT32_MIN || end > INT32_MAX)
    throw UserError(fmt::format("arange({}, {}): bounds must fit in i32", start, end), loc);
  return tr.make(tr.at(loc).arange(start, end));
}

Tensor full(const Shape& shape, const Operand& value, DType dtype) {
  Tracer& tr = tracer(value);
  if (shape.size() > 2)
    throw UserError(fmt::format("full: rank {} blocks are not supported (at most 2)", shape.size()), value.loc());
  for (auto e : shape)
    if (!ir::is_power_of_two(e))
      throw UserError(fmt::format("full: every extent must be a power of two, got {}", ir::shape_string(shape)),
                      value.loc());
  int v = detail::value_as(tr, value, dtype);
  if (!tr.type(v).is_scalar())
    throw UserError(fmt::format("full: the fill value must be a scalar, got {}", describe(tr, v)), value.loc());
  return tr.make(broadcast_value(tr, v, shape, value.loc()));
}

Tensor zeros(const Shape& shape, DType dtype, std::source_location loc) { return full(shape, Operand(0, loc), dtype); }

Tensor cdiv(const Operand& a, const Operand& b) {
  Tracer& tr = tracer(a);
  DType t = detail::binary_dtype(tr, a, b);
  if (!is_int(t)) throw UserError(fmt::format("cdiv needs integer operands, got {}", dtype_name(t)), a.loc());
  return (a + b - Operand(1, a.loc())) / b;
}

Tensor where(const Operand& cond, const Operand& a, const Operand& b) {
  Tracer& tr = tracer(cond);
  int c = detail::value_of(tr, cond);
  if (!tr.type(c).is_bool())
    throw UserError(fmt::format("where: the condition must be boolean (a comparison), got {}", describe(tr, c)),
                    cond.loc());
  DType t;
  if (is_pointer(tr, a) || is_pointer(tr, b)) {
    throw UserError("where: selecting between pointers is not supported; select the offsets instead", cond.loc());
  }
  t = detail::binary_dtype(tr, a, b);
  int va = detail::value_as(tr, a, t), vb = detail::value_as(tr, b, t);
  auto [x, y] = broadcast_pair(tr, va, vb, cond.loc());
  auto [cc, xx] = broadcast_pair(tr, c, x, cond.loc());
  int yy = broadcast_value(tr, y, tr.type(xx).shape, cond.loc());
  return tr.make(tr.at(cond.loc()).select(cc, xx, yy));
}

Tensor maximum(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::maximum, "maximum", a, b); }
Tensor minimum(const Operand& a, const Operand& b) { return checked_arithmetic(OpKind::minimum, "minimum", a, b); }
Tensor exp(const Operand& x) { return float_math(OpKind::exp, "exp", x); }
Tensor exp2(const Operand& x) { return float_math(OpKind::exp2, "exp2", x); }
Tensor exp_fast(const Operand& x) { return flushing_exp2(x, "exp_fast", std::numbers::log2e); }
Tensor exp2_fast(const Operand& x) { return flushing_exp2(x, "exp2_fast", std::nullopt); }
Tensor log(const Operand& x) { return float_math(OpKind::log, "log", x); }
Tensor log2(const Operand& x) { return float_math(OpKind::log2, "log2", x); }
Tensor sqrt(const Operand& x) { return float_math(OpKind::sqrt, "sqrt", x); }
Tensor rsqrt(const Operand& x) { return float_math(OpKind::rsqrt, "rsqrt", x); }
Tensor sin(const Operand& x) { return float_math(OpKind::sin, "sin", x); }
Tensor cos(const Operand& x) { return float_math(OpKind::cos, "cos", x); }
Tensor tanh(const Operand& x) { return float_math(OpKind::tanh, "tanh", x); }
Tensor erf(const Operand& x) { return float_math(OpKind::erf, "erf", x); }
Tensor floor(const Operand& x) { return float_math(OpKind::floor, "floor", x); }
Tensor ceil(const Operand& x) { return float_math(OpKind::ceil, "ceil", x); }

// Each step in f32 (or f64) so a 16-bit x is rounded once, at the end, not after every step.
Tensor sigmoid(const Operand& x) {
  Tracer& tr = tracer(x);
  int v = float_operand(tr, "sigmoid", x);
  const DType t = tr.type(v).elem;
  const bool narrow = t == DType::f16 || t == DType::bf16;
  const Tensor wide = tr.make(narrow ? detail::cast_value(tr, v, DType::f32, x.loc()) : v);
  const Tensor e = exp(Operand(-Operand(wide, x.loc()), x.loc()));
  const Tensor one_plus = Operand(e, x.loc()) + Operand(1.0, x.loc());
  const Tensor s = Operand(1.0, x.loc()) / Operand(one_plus, x.loc());
  return narrow ? tr.make(detail::cast_value(tr, detail::value_of(tr, Operand(s, x.loc())), t, x.loc())) : s;
}

Tensor abs(const Operand& x) {
  Tracer& tr = tracer(x);
  int v = detail::value_of(tr, x);
  if (tr.type(v).is_ptr || tr.type(v).is_bool())
    throw UserError(fmt::format("abs needs a number, got {}", describe(tr, v)), x.loc());
  return tr.make(tr.at(x.loc()).unary(OpKind::abs, v));
}

Tensor fma(const Operand& a, const Operand& b, const Operand& c) {
  Tracer& tr = tracer(a);
  const std::array<const Operand*, 3> operands{&a, &b, &c};
  // The tensors' types promote; literals adapt to them (f32 among literals alone).
  std::optional<DType> t;
  bool float_literal = false;
  for (const Operand* o : operands) {
    if (is_pointer(tr, *o))
      throw UserError(fmt::format("fma is not defined for pointers ({})", describe(tr, detail::value_of(tr, *o))),
                      a.loc());
    if (o->kind() == Operand::Kind::tensor) {
      const DType e = tr.type(tr.read(o->tensor(), o->loc())).elem;
      t = t ? detail::promote(*t, e) : e;
    } else {
      float_literal |= o->kind() == Operand::Kind::float_literal;
    }
  }
  DType dtype = t.value_or(DType::f32);
  if (float_literal && !is_float(dtype)) dtype = DType::f32;
  if (dtype != DType::f32 && dtype != DType::f64)
    throw UserError(fmt::format("fma needs f32 or f64 operands, got {}; convert them first with .to(DType::f32)",
                                dtype_name(dtype)),
                    a.loc());
  int va = detail::value_as(tr, a, dtype), vb = detail::value_as(tr, b, dtype), vc = detail::value_as(tr, c, dtype);
  auto [x, y] = broadcast_pair(tr, va, vb, a.loc());
  auto [xx, z] = broadcast_pair(tr, x, vc, a.loc());
  int yy = broadcast_value(tr, y, tr.type(xx).shape, a.loc());
  return tr.make(tr.at(a.loc()).fma(xx, yy, z));
}

Tensor cast(const Operand& x, DType to) {
  Tracer& tr = tracer(x);
  return tr.make(detail::cast_value(tr, detail::value_of(tr, x), to, x.loc()));
}

Tensor expand_dims(const Operand& x, int axis) {
  Tracer& tr = tracer(x);
  int v = detail::value_of(tr, x);
  int rank = tr.type(v).rank();
  if (axis < 0 || axis > rank)
    throw UserError(
        fmt::format("expand_dims: axis {} is out of range for {} (valid: 0..{})", axis, describe(tr, v), rank),
        x.loc());
  if (rank >= 2) throw UserError(fmt::format("expand_dims: {} would exceed rank 2", describe(tr, v)), x.loc());
  return tr.make(tr.at(x.loc()).expand_dims(v, axis));
}

Tensor broadcast_to(const Operand& x, const Shape& shape) {
  Tracer& tr = tracer(x);
  for (auto e : shape)
    if (!ir::is_power_of_two(e) || shape.size() > 2)
      throw UserError(fmt::format("broadcast_to: bad target shape {}", ir::shape_string(shape)), x.loc());
  return tr.make(broadcast_value(tr, detail::value_of(tr, x), shape, x.loc()));
}

namespace {

Tensor load_impl(const Operand& ptrs, const Operand* mask, const Operand* other, Eviction eviction = Eviction::normal) {
  Tracer& tr = tracer(ptrs);
  int p = pointer_operand(tr, ptrs, "load");
  int m = ir::kNoValue, o = ir::kNoValue;
  if (mask) {
    m = mask_operand(tr, *mask, "load");
    auto [pp, mm] = broadcast_pair(tr, p, m, ptrs.loc());
    p = pp;
    m = mm;
  }
  if (other) {
    DType elem = tr.type(p).elem;
    o = detail::value_as(tr, *other, elem);
    o = broadcast_value(tr, o, tr.type(p).shape, other->loc());
  }
  return tr.make(tr.at(ptrs.loc()).load(p, m, o, eviction));
}

void store_impl(const Operand& ptrs, const Operand& value, const Operand* mask, Eviction eviction = Eviction::normal) {
  Tracer& tr = tracer(ptrs);
  int p = pointer_operand(tr, ptrs, "store");
  int v = detail::value_of(tr, value);
  if (tr.type(v).is_ptr) throw UserError("store: storing pointers is not supported", value.loc());
  int m = ir::kNoValue;
  if (mask) m = detail::fitted_to_pointers(tr, p, mask_operand(tr, *mask, "store"), "store", "mask", mask->loc());
  v = detail::fitted_to_pointers(tr, p, detail::cast_value(tr, v, tr.type(p).elem, value.loc()), "store", "value",
                                 value.loc());
  tr.at(ptrs.loc()).store(p, v, m, eviction);
}

}  // namespace

Tensor load(const Operand& ptrs) { return load_impl(ptrs, nullptr, nullptr); }
Tensor load(const Operand& ptrs, const Operand& mask) { return load_impl(ptrs, &mask, nullptr); }
Tensor load(const Operand& ptrs, const Operand& mask, const Operand& other) { return load_impl(ptrs, &mask, &other); }
void store(const Operand& ptrs, const Operand& value) { store_impl(ptrs, value, nullptr); }
void store(const Operand& ptrs, const Operand& value, const Operand& mask) { store_impl(ptrs, value, &mask); }
Tensor load(const Operand& ptrs, const Operand& mask, const Operand& other, Eviction eviction) {
  return load_impl(ptrs, &mask, &other, eviction);
}
void store(const Operand& ptrs, const Operand& value, const Operand& mask, Eviction eviction) {
  store_impl(ptrs, value, &mask, eviction);
}

Tensor max(const Operand& x, int axis) { return reduction(ir::ReduceKind::max, "max", x, axis); }
Tensor min(const Operand& x, int axis) { return reduction(ir::ReduceKind::min, "min", x, axis); }
Tensor sum(const Operand& x, int axis) { return reduction(ir::ReduceKind::sum, "sum", x, axis); }
Tensor argmax(const Operand& x, int axis) { return arg_reduction(ir::ReduceKind::max, "argmax", x, axis); }
Tensor argmin(const Operand& x, int axis) { return arg_reduction(ir::ReduceKind::min, "argmin", x, axis); }
Tensor max(const Operand& x) { return full_reduction(ir::ReduceKind::max, "max", x); }
Tensor min(const Operand& x) { return full_reduction(ir::ReduceKind::min, "min", x); }
Tensor sum(const Operand& x) { return full_reduction(ir::ReduceKind::sum, "sum", x); }
Tensor cluster_max(const Operand& x, std::int64_t cluster_size) {
  return cluster_reduction(ir::ReduceKind::max, "cluster_max", x, cluster_size);
}
Tensor cluster_min(const Operand& x, std::int64_t cluster_size) {
  return cluster_reduction(ir::ReduceKind::min, "cluster_min", x, cluster_size);
}
Tensor cluster_sum(const Operand& x, std::int64_t cluster_size) {
  return cluster_reduction(ir::ReduceKind::sum, "cluster_sum", x, cluster_size);
}
std::pair<Tensor, Tensor> cluster_softmax_stats(const Operand& max, const Operand& sum, std::int64_t cluster_size) {
  return softmax_stats("cluster_softmax_stats", max, sum, cluster_size, nullptr);
}
std::pair<Tensor, Tensor> group_softmax_stats(const Operand& max, const Operand& sum, std::int64_t group_size,
                                              const Operand& workspace) {
  return softmax_stats("group_softmax_stats", max, sum, group_size, &workspace);
}
GroupTicket group_softmax_stats_start(const Operand& max, const Operand& sum, std::int64_t group_size,
                                      const Operand& workspace) {
  const char* name = "group_softmax_stats_start";
  Tracer& tr = tracer(max);
  int m = detail::cast_value(tr, exchanged_value(tr, name, max), DType::f32, max.loc());
  int s = detail::cast_value(tr, exchanged_value(tr, name, sum), DType::f32, sum.loc());
  check_size(name, "group", group_size, ir::kMaxGroupSize, max);
  int ws = workspace_value(tr, name, workspace, max);
  return {tr.make(tr.at(max.loc()).group_softmax_stats_start(m, s, static_cast<int>(group_size), ws))};
}
std::pair<Tensor, Tensor> group_softmax_stats_finish(const GroupTicket& ticket, std::int64_t group_size,
                                                     const Operand& workspace) {
  const char* name = "group_softmax_stats_finish";
  const Operand at(ticket.value, workspace.loc());  // the call's line (a ticket has none of its own)
  Tracer& tr = tracer(at);
  int t = detail::value_of(tr, at);
  check_size(name, "group", group_size, ir::kMaxGroupSize, at);
  int ws = workspace_value(tr, name, workspace, at);
  auto [row_max, row_sum] = tr.at(at.loc()).group_softmax_stats_finish(t, static_cast<int>(group_size), ws);
  return {tr.make(row_max), tr.make(row_sum)};
}
Tensor group_max(const Operand& x, std::int64_t group_size, const Operand& workspace) {
  return group_reduction(ir::ReduceKind::max, "group_max", x, group_size, workspace);
}
Tensor group_min(const Operand& x, std::int64_t group_size, const Operand& workspace) {
  return group_reduction(ir::ReduceKind::min, "group_min", x, group_size, workspace);
}
Tensor group_sum(const Operand& x, std::int64_t group_size, const Operand& workspace) {
  return group_reduction(ir::ReduceKind::sum, "group_sum", x, group_size, workspace);
}

namespace detail {
void trace_for_range(const Operand& start, const Operand& end, const Operand& step, const LoopOptions& options,
                     const std::function<void(const Int&)>& body) {
  Tracer::current(start.loc()).trace_loop(start, end, step, options, body);
}
}  // namespace detail

}  // namespace tilejit::tl
