// Stashes (tl::stash) in PTX: blocks a program keeps in shared memory until it reads them back,
// laid out as the CUDA C generator lays them out (codegen/cuda/stash_layout.h), after the
// reduction and conversion scratch. Every thread reads back exactly the elements it wrote, so no
// barrier guards a slot; a thread's contiguous elements move as one vector access (16-bit
// elements in pairs through 32-bit words), and copies from global memory are cp.async, each
// thread's own wait being all the synchronization its reads need.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "codegen/cuda/stash_layout.h"
#include "codegen/cuda/vector_access.h"
#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

// The .b type of one word of an access: 16-bit elements go in pairs where there are two.
const char* word_type(int elem_bytes, int width) {
  if (elem_bytes == 8) return "b64";
  return elem_bytes == 4 || width >= 2 ? "b32" : "b16";
}

const ir::Stash& stash_of(const ir::Function& f, const ir::Op& op) {
  return f.stashes.at(static_cast<std::size_t>(op.attrs.int_value));
}

// Two bytes or more: the DSL refuses stashes of booleans, the only one-byte type.
int element_bytes(const ir::Stash& s) {
  const auto bytes = static_cast<int>(dtype_size(s.block.elem));
  if (bytes < 2) throw InternalError(fmt::format("ptx codegen: a stash of {} blocks", dtype_name(s.block.elem)));
  return bytes;
}

}  // namespace

std::string Emitter::stash_place(std::size_t id) { return fmt::format("TJ_STASH_{}_AT", id); }

Emitter::SlotAccess Emitter::stash_slot(const ir::Op& op, const Layout& l) {
  const ir::Stash& s = stash_of(f_, op);
  const int elem = element_bytes(s);
  const std::string& slot = scalar(op.operands[0]);
  SlotAccess a{code_.reg(RegClass::b32), code_.reg(RegClass::pred)};
  code_.ins(fmt::format("setp.lt.u32 {}, {}, {}", a.in_range, slot, s.slots));
  std::string in_slot = code_.reg(RegClass::b32);
  code_.ins(
      fmt::format("mad.lo.s32 {}, {}, {}, {}", in_slot, slot, s.block.numel() * elem, thread_shared_address(l, elem)));
  code_.ins(
      fmt::format("add.s32 {}, {}, {}", a.address, in_slot, stash_place(static_cast<std::size_t>(op.attrs.int_value))));
  return a;
}

void Emitter::stash_put_op(const ir::Op& op) {
  const ir::Stash& s = stash_of(f_, op);
  const Layout l = stash_layout(s);
  const Regs value = block(op.operands[1], l);
  const SlotAccess slot = stash_slot(op, l);
  const int elem = element_bytes(s), width = cuda::stash_vector_width(s, l);
  for (int r = 0; r < l.num_regs(); r += width) {
    auto first = static_cast<std::size_t>(r);
    std::vector<std::string> words;
    if (elem == 2 && width >= 2) {
      for (std::size_t e = first; e < first + static_cast<std::size_t>(width); e += 2)
        words.push_back(pack(value[e], value[e + 1]));
    } else {
      for (int k = 0; k < width; ++k) words.push_back(value[first + static_cast<std::size_t>(k)]);
    }
    code_.ins(fmt::format("@{} st.shared{}.{} [{}+{}], {}", slot.in_range, vector_suffix(words.size()),
                          word_type(elem, width), slot.address, reg_linear(l, r) * elem, vector_operand(words)));
  }
}

Regs Emitter::stash_piece(const ir::Op& op, const Layout& l, int first) {
  const ir::Stash& s = stash_of(f_, op);
  const ir::ValueId v = op.results[0];
  const Regs* slot = recall(v, "slot");
  if (!slot) {
    const SlotAccess a = stash_slot(op, l);
    remember(v, "slot", {a.address, a.in_range});
    slot = recall(v, "slot");
  }
  const std::string address = (*slot)[0], in_range = (*slot)[1];
  const int elem = element_bytes(s), width = cuda::stash_vector_width(s, l);
  // Zeros where the slot is outside the stash: the load below is predicated off there.
  std::vector<std::string> words;
  const bool pairs = elem == 2 && width >= 2;
  for (int k = 0; k < (pairs ? width / 2 : width); ++k)
    words.push_back(zero(pairs ? RegClass::b32 : reg_class(s.block.elem)));
  code_.ins(fmt::format("@{} ld.shared{}.{} {}, [{}+{}]", in_range, vector_suffix(words.size()), word_type(elem, width),
                        vector_operand(words), address, reg_linear(l, first) * elem));
  if (!pairs) return words;
  Regs piece;
  for (const auto& w : words)
    for (const auto& h : unpack(w)) piece.push_back(h);
  return piece;
}

Regs Emitter::stash_get_op(const ir::Op& op, const Layout& l) {
  const ir::Stash& s = stash_of(f_, op);
  if (!(l == stash_layout(s))) throw InternalError("ptx codegen: a stash read outside the stash's layout");
  const int width = cuda::stash_vector_width(s, l);
  Regs out;
  for (int r = 0; r < l.num_regs(); r += width)
    for (auto& e : stash_piece(op, l, r)) out.push_back(e);
  return out;
}

// Each thread copies the elements it will read back. A copy of 4, 8 or 16 bytes (the widest the
// pointers' axis facts and the stash's layout allow) is one cp.async, zero-filled where the mask
// is off (.cg, bypassing L1, for 16 bytes, as cp.async allows); single 16-bit elements go through
// a register. One commit group a copy, even for a slot outside the stash, so waits count copies.
void Emitter::stash_copy_op(const ir::Op& op) {
  const ir::Stash& s = stash_of(f_, op);
  const Layout l = stash_layout(s);
  const ir::ValueId ptrs = op.operands[1], mask = op.operands[2];
  const SlotAccess slot = stash_slot(op, l);
  // In a loop, addresses and masks are computed again in every step, as load_op does.
  std::optional<Rematerialize> again;
  if (scopes_.size() > 1) again.emplace(*this);
  const int elem = element_bytes(s);
  const int width = std::min(cuda::stash_vector_width(s, l), cuda::vector_width(f_, axes_, ptrs, mask, l));
  const int bytes = width * elem;
  for (int r = 0; r < l.num_regs(); r += width) {
    const std::string src = element(ptrs, l, r), on = element(mask, l, r);
    const std::int64_t at = reg_linear(l, r) * elem;
    if (bytes == 4 || bytes == 8 || bytes == 16) {
      std::string size = code_.reg(RegClass::b32);
      code_.ins(fmt::format("selp.u32 {}, {}, 0, {}", size, bytes, on));
      code_.ins(fmt::format("@{} cp.async.{}.shared.global [{}+{}], [{}], {}, {}", slot.in_range,
                            bytes == 16 ? "cg" : "ca", slot.address, at, src, bytes, size));
    } else {  // one 16-bit element (width 1)
      std::string v = zero(RegClass::b16);
      code_.ins(fmt::format("@{} ld.global.b16 {}, [{}]", on, v, src));
      code_.ins(fmt::format("@{} st.shared.b16 [{}+{}], {}", slot.in_range, slot.address, at, v));
    }
  }
  code_.ins("cp.async.commit_group");
}

}  // namespace tilejit::codegen::ptx
