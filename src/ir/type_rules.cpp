#include "ir/type_rules.h"

#include <fmt/format.h>

#include "tilejit/error.h"

namespace tilejit::ir {
namespace {

[[noreturn]] void fail(const Op& op, const std::string& what) {
  throw InternalError(fmt::format("IR invariant broken by '{}': {}", op_name(op.kind), what));
}

void expect_operands(const Op& op, std::size_t n) {
  if (op.operands.size() != n) fail(op, fmt::format("expected {} operands, got {}", n, op.operands.size()));
}

void check_shape(const Op& op, const Shape& s) {
  if (s.size() > 2) fail(op, "rank above 2");
  for (auto e : s)
    if (!is_power_of_two(e)) fail(op, fmt::format("extent {} is not a power of two", e));
}

Type nullary_type(const Op& op) {
  switch (op.kind) {
    case OpKind::constant:
      if (op.attrs.dtype == DType::i1 && op.attrs.int_value != 0 && op.attrs.int_value != 1)
        fail(op, "i1 constant out of range");
      return Type::scalar(op.attrs.dtype);
    case OpKind::program_id:
    case OpKind::num_programs:
      if (op.attrs.int_value < 0 || op.attrs.int_value > 2) fail(op, "axis must be 0, 1 or 2");
      return Type::scalar(DType::i32);
    case OpKind::arange: {
      auto n = op.attrs.end - op.attrs.start;
      if (!is_power_of_two(n)) fail(op, "arange length must be a power of two");
      return Type::scalar(DType::i32).with_shape({n});
    }
    default: fail(op, "not a nullary op");
  }
}

// group_reduce split in two (ExchangePhase): start (max, sum, workspace) gives an i32 ticket;
// finish (ticket, workspace) gives the f32 max and sum (twice: infer_result_types).
Type split_exchange_type(const Function& f, const Op& op) {
  auto t = [&](std::size_t i) -> const Type& { return f.type(op.operands.at(i)); };
  if (op.kind != OpKind::group_reduce || op.attrs.reduce != ReduceKind::softmax_stats)
    fail(op, "only group softmax_stats exchanges split into start and finish");
  if (op.attrs.cluster_size < 1 || op.attrs.cluster_size > kMaxGroupSize) fail(op, "bad group size");
  const bool start = op.attrs.phase == ExchangePhase::start;
  expect_operands(op, start ? 3 : 2);
  const std::size_t workspace = start ? 2 : 1;
  if (!t(workspace).is_scalar() || !t(workspace).is_ptr) fail(op, "needs a scalar workspace pointer");
  if (start) {
    if (t(0) != Type::scalar(DType::f32) || t(1) != Type::scalar(DType::f32))
      fail(op, "softmax_stats needs an f32 max and sum");
    return Type::scalar(DType::i32);
  }
  if (t(0) != Type::scalar(DType::i32)) fail(op, "finish takes the i32 ticket of a start");
  return Type::scalar(DType::f32);
}

Type special_type(const Function& f, const Op& op) {
  auto t = [&](std::size_t i) -> const Type& { return f.type(op.operands.at(i)); };
  switch (op.kind) {
    case OpKind::splat: {
      expect_operands(op, 1);
      if (!t(0).is_scalar()) fail(op, "operand must be a scalar");
      if (op.results.empty()) fail(op, "splat needs a declared result shape");
      const Shape& s = f.type(op.results[0]).shape;
      check_shape(op, s);
      return t(0).with_shape(s);
    }
    case OpKind::broadcast: {
      expect_operands(op, 1);
      if (op.results.empty()) fail(op, "broadcast needs a declared result shape");
      const Shape& from = t(0).shape;
      const Shape& to = f.type(op.results[0]).shape;
      if (from.size() != to.size() || from.empty()) fail(op, "broadcast keeps the rank (splat scalars)");
      for (std::size_t i = 0; i < from.size(); ++i)
        if (from[i] != to[i] && from[i] != 1) fail(op, "only extents of 1 broadcast");
      return t(0).with_shape(to);
    }
    case OpKind::expand_dims: {
      expect_operands(op, 1);
      Shape s = t(0).shape;
      if (op.attrs.axis < 0 || op.attrs.axis > static_cast<int>(s.size())) fail(op, "bad axis");
      s.insert(s.begin() + op.attrs.axis, 1);
      check_shape(op, s);
      return t(0).with_shape(s);
    }
    case OpKind::cast:
      expect_operands(op, 1);
      if (t(0).is_ptr) fail(op, "cannot cast a pointer");
      return t(0).with_elem(op.attrs.dtype);
    case OpKind::select:
      expect_operands(op, 3);
      if (!t(0).is_bool()) fail(op, "condition must be i1");
      if (t(1) != t(2)) fail(op, "both branches must have one type");
      if (t(0).shape != t(1).shape) fail(op, "condition shape differs");
      return t(1);
    case OpKind::fma:
      expect_operands(op, 3);
      if (t(0) != t(1) || t(0) != t(2)) fail(op, "operands must have one type");
      if (t(0).is_ptr || (t(0).elem != DType::f32 && t(0).elem != DType::f64)) fail(op, "needs f32 or f64 operands");
      return t(0);
    case OpKind::addptr:
      expect_operands(op, 2);
      if (!t(0).is_ptr) fail(op, "first operand must be a pointer");
      if (!t(1).is_int()) fail(op, "offset must be an integer");
      if (t(0).shape != t(1).shape) fail(op, "pointer and offset shapes differ");
      return t(0);
    case OpKind::load: {
      std::size_t n = 1 + op.attrs.has_mask + op.attrs.has_other;
      expect_operands(op, n);
      if (!t(0).is_ptr) fail(op, "load needs pointers");
      if (op.attrs.has_other && !op.attrs.has_mask) fail(op, "other without mask");
      if (op.attrs.has_mask && (!t(1).is_bool() || t(1).shape != t(0).shape)) fail(op, "bad mask");
      Type r = t(0);
      r.is_ptr = false;
      if (op.attrs.has_other && t(2) != r) fail(op, "other must match the loaded type");
      return r;
    }
    case OpKind::reduce: {
      expect_operands(op, 1);
      if (op.attrs.reduce == ReduceKind::softmax_stats) fail(op, "softmax_stats reduces across programs only");
      Shape s = t(0).shape;
      if (s.empty() || t(0).is_ptr) fail(op, "reduce needs a block of numbers");
      if (op.attrs.axis < 0 || op.attrs.axis >= static_cast<int>(s.size())) fail(op, "bad axis");
      s.erase(s.begin() + op.attrs.axis);
      return t(0).with_shape(s);
    }
    case OpKind::cluster_reduce:
    case OpKind::group_reduce: {
      if (op.attrs.phase != ExchangePhase::whole) return split_exchange_type(f, op);
      // Operands: the value (softmax_stats: the max and the sum), then a group's workspace.
      const bool stats = op.attrs.reduce == ReduceKind::softmax_stats;
      const std::size_t values = stats ? 2 : 1;
      const bool group = op.kind == OpKind::group_reduce;
      expect_operands(op, values + (group ? 1 : 0));
      if (!t(0).is_scalar() || t(0).is_ptr || t(0).is_bool()) fail(op, "needs a scalar number");
      if (stats && (t(0) != Type::scalar(DType::f32) || t(1) != Type::scalar(DType::f32)))
        fail(op, "softmax_stats needs an f32 max and sum");
      if (group && (!t(values).is_scalar() || !t(values).is_ptr)) fail(op, "needs a scalar workspace pointer");
      const int most = group ? kMaxGroupSize : kMaxClusterSize;
      if (op.attrs.cluster_size < 1 || op.attrs.cluster_size > most) fail(op, "bad cluster or group size");
      // (Type::scalar, not a copy of t(0): g++ 13 warns of a bogus out-of-bounds read.)
      return Type::scalar(t(0).elem);  // softmax_stats: twice (infer_result_types)
    }
    default: fail(op, "not handled");
  }
}

}  // namespace

std::vector<Type> infer_result_types(const Function& f, const Op& op) {
  auto t = [&](std::size_t i) -> const Type& { return f.type(op.operands.at(i)); };
  switch (op_category(op.kind)) {
    case OpCategory::Nullary:
      if (!op.operands.empty()) fail(op, "takes no operands");
      return {nullary_type(op)};
    case OpCategory::Unary: {
      expect_operands(op, 1);
      bool math = op.kind != OpKind::neg && op.kind != OpKind::bit_not && op.kind != OpKind::abs;
      if (t(0).is_ptr) fail(op, "pointer operand");
      if (math && !t(0).is_float()) fail(op, "needs a float operand");
      if (op.kind == OpKind::bit_not && t(0).is_float()) fail(op, "needs an integer or i1 operand");
      return {t(0)};
    }
    case OpCategory::Binary:
    case OpCategory::Compare: {
      expect_operands(op, 2);
      if (t(0) != t(1)) fail(op, fmt::format("operand types differ: {} vs {}", to_string(t(0)), to_string(t(1))));
      if (t(0).is_ptr) fail(op, "pointer operands");
      bool bitwise = op.kind == OpKind::bit_and || op.kind == OpKind::bit_or || op.kind == OpKind::bit_xor;
      bool shift = op.kind == OpKind::shl || op.kind == OpKind::shr;
      if ((bitwise || shift) && t(0).is_float()) fail(op, "bitwise op on floats");
      if (shift && t(0).is_bool()) fail(op, "shift of booleans");
      if (op_category(op.kind) == OpCategory::Compare) return {t(0).with_elem(DType::i1)};
      return {t(0)};
    }
    case OpCategory::Special: break;
  }
  if (op.kind == OpKind::store) {
    std::size_t n = 2 + op.attrs.has_mask;
    expect_operands(op, n);
    Type value = t(0);
    value.is_ptr = false;
    if (!t(0).is_ptr) fail(op, "store needs pointers");
    if (t(1) != value) fail(op, fmt::format("stored value {} does not match {}", to_string(t(1)), to_string(t(0))));
    if (op.attrs.has_mask && (!t(2).is_bool() || t(2).shape != t(0).shape)) fail(op, "bad mask");
    return {};
  }
  if (op.kind == OpKind::atomic) {
    const bool cas = op.attrs.atomic == AtomicKind::cas;
    if (cas && op.attrs.has_mask) fail(op, "compare-and-swap takes no mask");
    expect_operands(op, 2 + (cas || op.attrs.has_mask));
    if (!t(0).is_ptr) fail(op, "an atomic needs pointers");
    Type value = t(0);
    value.is_ptr = false;
    const AtomicOperands at = atomic_operands(op);
    for (int i : {at.value, at.compare})
      if (i >= 0 && t(static_cast<std::size_t>(i)) != value)
        fail(op,
             fmt::format("operand {} does not match {}", to_string(t(static_cast<std::size_t>(i))), to_string(t(0))));
    if (at.mask >= 0 && (!t(2).is_bool() || t(2).shape != t(0).shape)) fail(op, "bad mask");
    const DType e = value.elem;
    const bool wide_int = e == DType::i32 || e == DType::i64, wide_float = e == DType::f32 || e == DType::f64;
    const bool bitwise = op.attrs.atomic == AtomicKind::bit_and || op.attrs.atomic == AtomicKind::bit_or ||
                         op.attrs.atomic == AtomicKind::bit_xor;
    if (!(wide_int || (wide_float && !bitwise)))
      fail(op, fmt::format("atomic {} of {}", atomic_name(op.attrs.atomic), dtype_name(e)));
    return {value};
  }
  if (op.kind == OpKind::yield) return {};
  if (op.kind == OpKind::copies_wait) {
    expect_operands(op, 0);
    if (op.attrs.int_value < 0) fail(op, "a negative number of copies");
    return {};
  }
  if (op.kind == OpKind::stash_copy) {
    expect_operands(op, 3);
    if (op.attrs.int_value < 0 || op.attrs.int_value >= static_cast<std::int64_t>(f.stashes.size()))
      fail(op, "no such stash");
    const Stash& s = f.stashes[static_cast<std::size_t>(op.attrs.int_value)];
    if (!t(0).is_int() || !t(0).is_scalar()) fail(op, "the slot must be an integer scalar");
    if (t(1) != Type{s.block.elem, true, s.block.shape})
      fail(op, fmt::format("copied pointers {} do not match the stash's {}", to_string(t(1)), to_string(s.block)));
    if (!t(2).is_bool() || t(2).shape != s.block.shape) fail(op, "bad mask");
    return {};
  }
  if (op.kind == OpKind::stash_put || op.kind == OpKind::stash_get) {
    const bool put = op.kind == OpKind::stash_put;
    expect_operands(op, put ? 2 : 1);
    if (op.attrs.int_value < 0 || op.attrs.int_value >= static_cast<std::int64_t>(f.stashes.size()))
      fail(op, "no such stash");
    const Stash& s = f.stashes[static_cast<std::size_t>(op.attrs.int_value)];
    if (!t(0).is_int() || !t(0).is_scalar()) fail(op, "the slot must be an integer scalar");
    if (put && t(1) != s.block)
      fail(op, fmt::format("stashed value {} does not match the stash's {}", to_string(t(1)), to_string(s.block)));
    if (put) return {};
    return {s.block};
  }
  if (op.kind == OpKind::for_range) {
    if (op.operands.size() < kForFixedOperands) fail(op, "missing bounds");
    const Type& iv = t(0);
    for (int i = 0; i < kForFixedOperands; ++i)
      if (t(i) != iv || !iv.is_int() || !iv.is_scalar()) fail(op, "bounds must be integer scalars of one type");
    std::vector<Type> results;
    for (std::size_t i = kForFixedOperands; i < op.operands.size(); ++i) results.push_back(t(i));
    return results;
  }
  const bool stats = (op.kind == OpKind::cluster_reduce || op.kind == OpKind::group_reduce) &&
                     op.attrs.reduce == ReduceKind::softmax_stats && op.attrs.phase != ExchangePhase::start;
  if (stats) {  // the max and the sum
    const Type t = special_type(f, op);
    return {t, t};
  }
  return {special_type(f, op)};
}

}  // namespace tilejit::ir
