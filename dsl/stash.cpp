// tl::stash: blocks a program keeps in shared memory (ir::Stash), written by put or by
// asynchronous copies and read back by get.
#include <fmt/format.h>

#include "dsl/semantics.h"
#include "tilejit/error.h"

namespace tilejit::tl {

using detail::broadcast_value;
using detail::cast_value;
using detail::describe;
using detail::Tracer;
using detail::value_of;

Stash stash(const Shape& shape, DType dtype, std::int64_t slots, std::source_location loc) {
  Tracer& tr = Tracer::current(loc);
  if (shape.empty() || shape.size() > 2)
    throw UserError(fmt::format("stash: blocks of rank 1 or 2 only, got {}", ir::shape_string(shape)), loc);
  for (auto e : shape)
    if (!ir::is_power_of_two(e))
      throw UserError(fmt::format("stash: every extent must be a power of two, got {}", ir::shape_string(shape)), loc);
  if (dtype == DType::i1) throw UserError("stash: booleans cannot be stashed (stash a number type)", loc);
  if (slots < 1) throw UserError(fmt::format("stash: needs at least one slot, got {}", slots), loc);
  const ir::Stash s{ir::Type{dtype, false, shape}, slots};
  std::int64_t before = 0;
  for (const ir::Stash& other : tr.function().stashes) before += other.bytes();
  if (s.bytes() > kMaxStashBytes - before)
    throw UserError(fmt::format("stash: {} slots of {} take {} bytes; with the kernel's other stashes ({} bytes) "
                                "that passes the {} bytes a program may keep in shared memory",
                                slots, ir::to_string(s.block), s.bytes(), before, kMaxStashBytes),
                    loc);
  return Stash(tr.at(loc).stash(s.block, slots), tr.id(), slots);
}

namespace {

// The slot operand of a stash access as an i32 scalar.
int stash_slot(Tracer& tr, const char* name, const Operand& slot) {
  int v = value_of(tr, slot);
  if (!tr.type(v).is_int() || !tr.type(v).is_scalar())
    throw UserError(fmt::format("{}: the slot must be an integer scalar, got {}", name, describe(tr, v)), slot.loc());
  return cast_value(tr, v, DType::i32, slot.loc());
}

void check_stash_trace(Tracer& tr, std::uint32_t trace_id, const char* name, const std::source_location& loc) {
  if (tr.id() != trace_id)
    throw UserError(fmt::format("{}: this stash belongs to another kernel's trace (create it inside the kernel)", name),
                    loc);
}

}  // namespace

void Stash::put(const Operand& slot, const Operand& value) const {
  Tracer& tr = Tracer::current(slot.loc());
  check_stash_trace(tr, trace_id_, "Stash::put", slot.loc());
  int s = stash_slot(tr, "Stash::put", slot);
  const ir::Type block = tr.function().stashes.at(static_cast<std::size_t>(id_)).block;
  int v = value_of(tr, value);
  if (tr.type(v).is_ptr) throw UserError("Stash::put: pointers cannot be stashed", value.loc());
  v = broadcast_value(tr, cast_value(tr, v, block.elem, value.loc()), block.shape, value.loc());
  tr.at(slot.loc()).stash_put(id_, s, v);
}

void Stash::copy_async(const Operand& slot, const Operand& ptrs, const Operand& mask) const {
  Tracer& tr = Tracer::current(slot.loc());
  check_stash_trace(tr, trace_id_, "Stash::copy_async", slot.loc());
  int s = stash_slot(tr, "Stash::copy_async", slot);
  const ir::Type block = tr.function().stashes.at(static_cast<std::size_t>(id_)).block;
  int p = pointer_operand(tr, ptrs, "Stash::copy_async");
  if (tr.type(p).elem != block.elem)
    throw UserError(fmt::format("Stash::copy_async: copies {} into a stash of {}: an asynchronous copy cannot convert "
                                "(stash the pointee type, or load and put)",
                                describe(tr, p), ir::to_string(block)),
                    ptrs.loc());
  p = broadcast_value(tr, p, block.shape, ptrs.loc());
  int m = broadcast_value(tr, mask_operand(tr, mask, "Stash::copy_async"), block.shape, mask.loc());
  tr.at(slot.loc()).stash_copy(id_, s, p, m);
}

void wait_copies(std::int64_t pending, std::source_location loc) {
  Tracer& tr = Tracer::current(loc);
  if (pending < 0) throw UserError(fmt::format("wait_copies: pending must be 0 or more, got {}", pending), loc);
  tr.at(loc).copies_wait(pending);
}

Tensor Stash::get(const Operand& slot) const {
  Tracer& tr = Tracer::current(slot.loc());
  check_stash_trace(tr, trace_id_, "Stash::get", slot.loc());
  int s = stash_slot(tr, "Stash::get", slot);
  return tr.make(tr.at(slot.loc()).stash_get(id_, s));
}

}  // namespace tilejit::tl
