// tl::atomic_*: the checks and conversions of an atomic read-modify-write, traced into one
// `atomic` op (ir::AtomicKind says which).
#include <fmt/format.h>

#include "dsl/semantics.h"
#include "tilejit/error.h"
#include "tilejit/tl.h"

namespace tilejit::tl {
namespace {

using detail::Tracer;
using ir::AtomicKind;

bool bitwise(AtomicKind k) { return k == AtomicKind::bit_and || k == AtomicKind::bit_or || k == AtomicKind::bit_xor; }

// `expected` is cas's (nullptr otherwise), `mask` optional for the rest.
Tensor atomic(AtomicKind kind, const char* name, const Operand& ptrs, const Operand* expected, const Operand& value,
              const Operand* mask) {
  Tracer& tr = Tracer::current(ptrs.loc());
  const int p = detail::pointer_operand(tr, ptrs, name);
  const DType elem = tr.type(p).elem;
  const bool is_int = elem == DType::i32 || elem == DType::i64;
  const bool is_float = elem == DType::f32 || elem == DType::f64;
  if (bitwise(kind) && !is_int)
    throw UserError(fmt::format("{} needs pointers to i32 or i64, got {}", name, detail::describe(tr, p)), ptrs.loc());
  if (!is_int && !is_float)
    throw UserError(fmt::format("{} needs pointers to i32, i64, f32 or f64, got {} (GPUs have no atomics of {}-byte "
                                "values for every operation; keep the target in a 4- or 8-byte type)",
                                name, detail::describe(tr, p), dtype_size(elem)),
                    ptrs.loc());
  auto operand = [&](const Operand& o, const char* what) {
    const int v = detail::value_of(tr, o);
    if (tr.type(v).is_ptr) throw UserError(fmt::format("{}: the {} cannot be a pointer", name, what), o.loc());
    return detail::fitted_to_pointers(tr, p, detail::cast_value(tr, v, elem, o.loc()), name, what, o.loc());
  };
  const int v = operand(value, "value");
  const int c = expected ? operand(*expected, "expected value") : ir::kNoValue;
  int m = ir::kNoValue;
  if (mask) m = detail::fitted_to_pointers(tr, p, detail::mask_operand(tr, *mask, name), name, "mask", mask->loc());
  return tr.make(tr.at(ptrs.loc()).atomic(kind, p, v, c, m));
}

}  // namespace

Tensor atomic_add(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::add, "atomic_add", ptrs, nullptr, value, nullptr);
}
Tensor atomic_add(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::add, "atomic_add", ptrs, nullptr, value, &mask);
}
Tensor atomic_max(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::max, "atomic_max", ptrs, nullptr, value, nullptr);
}
Tensor atomic_max(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::max, "atomic_max", ptrs, nullptr, value, &mask);
}
Tensor atomic_min(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::min, "atomic_min", ptrs, nullptr, value, nullptr);
}
Tensor atomic_min(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::min, "atomic_min", ptrs, nullptr, value, &mask);
}
Tensor atomic_and(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::bit_and, "atomic_and", ptrs, nullptr, value, nullptr);
}
Tensor atomic_and(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::bit_and, "atomic_and", ptrs, nullptr, value, &mask);
}
Tensor atomic_or(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::bit_or, "atomic_or", ptrs, nullptr, value, nullptr);
}
Tensor atomic_or(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::bit_or, "atomic_or", ptrs, nullptr, value, &mask);
}
Tensor atomic_xor(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::bit_xor, "atomic_xor", ptrs, nullptr, value, nullptr);
}
Tensor atomic_xor(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::bit_xor, "atomic_xor", ptrs, nullptr, value, &mask);
}
Tensor atomic_xchg(const Operand& ptrs, const Operand& value) {
  return atomic(AtomicKind::xchg, "atomic_xchg", ptrs, nullptr, value, nullptr);
}
Tensor atomic_xchg(const Operand& ptrs, const Operand& value, const Operand& mask) {
  return atomic(AtomicKind::xchg, "atomic_xchg", ptrs, nullptr, value, &mask);
}
Tensor atomic_cas(const Operand& ptrs, const Operand& expected, const Operand& value) {
  return atomic(AtomicKind::cas, "atomic_cas", ptrs, &expected, value, nullptr);
}

}  // namespace tilejit::tl
