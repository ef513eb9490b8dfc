// Stashes (tl::stash): blocks a program keeps in shared memory until it reads them back.
//
// Laid out as stash_layout.h says, after the reduction and conversion scratch (tj_stash_offset,
// known once the body is out). Every thread reads back exactly the elements it wrote, so no
// barrier is needed, and the thread's contiguous elements move as one vector access (16 bytes for
// the default layout, conflict-free: a warp's accesses cover one contiguous span).
#include <fmt/format.h>

#include <algorithm>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "codegen/cuda/stash_layout.h"
#include "codegen/cuda/word_packing.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

// The C type of `words` words of `word_bytes` each, as one access (uint4 for 16 bytes).
std::string vector_type(int word_bytes, int words) {
  if (word_bytes == 8) return words == 2 ? "ulonglong2" : "unsigned long long";
  if (word_bytes == 2) return "unsigned short";
  return words == 4 ? "uint4" : words == 2 ? "uint2" : "unsigned";
}

// Member `w` of a vector access value `v` of `words` words.
std::string word_of(const std::string& v, int words, int w) {
  static const char* members[] = {"x", "y", "z", "w"};
  return words == 1 ? v : fmt::format("{}.{}", v, members[w]);
}

}  // namespace

Layout Emitter::stash_layout(const ir::Stash& s) const { return plan_.default_layout(s.block.shape); }

std::string Emitter::stash_pointer(const ir::Op& op, const std::string& slot) {
  const auto id = static_cast<std::size_t>(op.attrs.int_value);
  const std::int64_t offset = stash_offset(f_, id);
  const ir::Stash& s = f_.stashes[id];
  return fmt::format("(reinterpret_cast<{}*>(tj_smem + tj_stash_offset + {}) + {} * {})", c_type(s.block.elem), offset,
                     slot, s.block.numel());
}

void Emitter::stash_put_op(const ir::Op& op) {
  const ir::Stash& s = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value));
  const Layout l = stash_layout(s);
  const std::string slot = scalar(op.operands[0]);
  const std::string v = block(op.operands[1], l);
  const int width = stash_vector_width(s, l);
  const Packing pk = packing(static_cast<int>(dtype_size(s.block.elem)), width);
  open(fmt::format("if ((unsigned){} < {}u)", slot, s.slots));
  line(fmt::format("{}* tj_stash = {};", c_type(s.block.elem), stash_pointer(op, slot)));
  if (pk.words == 0) {
    per_register(l.num_regs(), fmt::format("tj_stash[{}] = {}[r];", linear_index(l, "r"), v));
  } else {
    const std::string vt = vector_type(pk.word_bytes, pk.words);
    line("#pragma unroll");
    open(fmt::format("for (int r = 0; r < {}; r += {})", l.num_regs(), width));
    std::vector<std::string> words;
    for (int w = 0; w < pk.words; ++w)
      words.push_back(
          pack_word(s.block.elem, pk, [&](int e) { return fmt::format("{}[r + {}]", v, w * pk.per_word() + e); }));
    std::string value = pk.words == 1 ? words[0] : fmt::format("make_{}({})", vt, fmt::join(words, ", "));
    line(fmt::format("*reinterpret_cast<{}*>(tj_stash + {}) = {};", vt, linear_index(l, "r"), value));
    close();
  }
  close();
}

void Emitter::stash_get_op(const ir::Op& op, const Layout& l, const std::string& name) {
  const ir::Stash& s = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value));
  if (!(l == stash_layout(s))) throw InternalError("codegen: a stash read outside the stash's layout");
  const std::string slot = scalar(op.operands[0]);
  const std::string t = c_type(s.block.elem);
  const int n = l.num_regs();
  const int width = stash_vector_width(s, l);
  const Packing pk = packing(static_cast<int>(dtype_size(s.block.elem)), width);
  line(fmt::format("{} {}[{}];", t, name, n));
  open(fmt::format("if ((unsigned){} < {}u)", slot, s.slots));
  line(fmt::format("const {}* tj_stash = {};", t, stash_pointer(op, slot)));
  if (pk.words == 0) {
    per_register(n, fmt::format("{}[r] = tj_stash[{}];", name, linear_index(l, "r")));
  } else {
    const std::string vt = vector_type(pk.word_bytes, pk.words);
    line("#pragma unroll");
    open(fmt::format("for (int r = 0; r < {}; r += {})", n, width));
    line(fmt::format("const {} tj_v = *reinterpret_cast<const {}*>(tj_stash + {});", vt, vt, linear_index(l, "r")));
    for (int w = 0; w < pk.words; ++w)
      for (int e = 0; e < pk.per_word(); ++e)
        line(fmt::format("{}[r + {}] = {};", name, w * pk.per_word() + e,
                         unpack_element(s.block.elem, pk, word_of("tj_v", pk.words, w), e)));
    close();
  }
  close("} else {");
  ++indent_;
  scopes_.emplace_back();
  per_register(n, fmt::format("{}[r] = ({})0;", name, t));
  close();
}

// Each thread copies the elements it will read back (the stash's layout), so its own wait is all
// the synchronization a read needs. A copy of 4, 8 or 16 bytes (the widest the pointers' axis
// facts and the layout allow) is one cp.async, zero-filled where the mask is off; 16-byte copies
// bypass L1 (.cg). Narrower elements, and targets before sm_80, copy through registers.
void Emitter::stash_copy_op(const ir::Op& op) {
  const ir::Stash& s = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value));
  const Layout l = stash_layout(s);
  const std::string slot = scalar(op.operands[0]);
  const std::string ptrs = block(op.operands[1], l), mask = block(op.operands[2], l);
  const int elem = static_cast<int>(dtype_size(s.block.elem));
  const int width = std::min(stash_vector_width(s, l), vector_width(op.operands[1], op.operands[2], l));
  const int bytes = width * elem;
  const std::string t = c_type(s.block.elem);
  open(fmt::format("if ((unsigned){} < {}u)", slot, s.slots));
  line(fmt::format("{}* tj_stash = {};", t, stash_pointer(op, slot)));
  auto through_registers = [&] {
    per_register(l.num_regs(),
                 fmt::format("tj_stash[{}] = {}[r] ? *{}[r] : ({})0;", linear_index(l, "r"), mask, ptrs, t));
  };
  if (bytes != 4 && bytes != 8 && bytes != 16) {
    through_registers();
  } else {
    out_ += "#if __CUDA_ARCH__ >= 800\n";
    line("#pragma unroll");
    open(fmt::format("for (int r = 0; r < {}; r += {})", l.num_regs(), width));
    line(
        fmt::format("asm volatile(\"cp.async.{}.shared.global [%0], [%1], {}, %2;\" :: "
                    "\"r\"((unsigned)__cvta_generic_to_shared(tj_stash + {})), \"l\"({}[r]), \"r\"({}[r] ? {} : 0) : "
                    "\"memory\");",
                    bytes == 16 ? "cg" : "ca", bytes, linear_index(l, "r"), ptrs, mask, bytes));
    close();
    out_ += "#else\n";
    through_registers();
    out_ += "#endif\n";
  }
  close();
  // One group per copy, even when the slot is outside the stash, so waits count copies.
  out_ += "#if __CUDA_ARCH__ >= 800\n";
  line("asm volatile(\"cp.async.commit_group;\" ::: \"memory\");");
  out_ += "#endif\n";
}

void Emitter::copies_wait_op(const ir::Op& op) {
  out_ += "#if __CUDA_ARCH__ >= 800\n";
  line(fmt::format("asm volatile(\"cp.async.wait_group {};\" ::: \"memory\");", op.attrs.int_value));
  out_ += "#endif\n";
}

int Emitter::stash_bytes() const { return static_cast<int>(stash_offset(f_, f_.stashes.size())); }

}  // namespace tilejit::codegen::cuda
