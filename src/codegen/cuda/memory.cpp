// Loads and stores. Where the axis analysis proves a thread's contiguous elements are
// contiguous and aligned in memory and share one mask value, they move as one vector access
// (up to 16 bytes). Masked accesses are predicated PTX instructions rather than branches, so
// all of a thread's loads are in flight together; masked-off lanes keep `other`.
#include <fmt/format.h>

#include <algorithm>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "codegen/cuda/vector_access.h"
#include "codegen/cuda/word_packing.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

std::string vector_suffix(int words) { return words == 1 ? "" : fmt::format(".v{}", words); }

std::string word_list(int first, int count) {
  std::vector<std::string> w;
  for (int i = 0; i < count; ++i) w.push_back(fmt::format("%{}", first + i));
  return count == 1 ? w[0] : fmt::format("{{{}}}", fmt::join(w, ", "));
}

// How an L2 eviction hint appears in a global load or store: `.cs` (cache streaming, evicted
// first) needs nothing else; evict_last takes a cache policy operand made by createpolicy,
// which exists from sm_80 (older targets get the plain instruction).
struct L2Hint {
  std::string qualifier;  // after ld.global / st.global
  std::string setup;      // PTX before the access, inside the asm block
  std::string operand;    // after the address operand
};

// Emits an access through `emit` once, or for evict_last twice behind an architecture check
// (`directive` writes the preprocessor lines).
template <class Directive, class Emit>
void with_l2_hint(Eviction eviction, Directive&& directive, Emit&& emit) {
  if (eviction == Eviction::normal) return emit(L2Hint{});
  if (eviction == Eviction::first) return emit(L2Hint{".cs", "", ""});
  directive("#if __CUDA_ARCH__ >= 800");
  emit(L2Hint{".L2::cache_hint", ".reg .b64 tj_pol; createpolicy.fractional.L2::evict_last.b64 tj_pol, 1.0; ",
              ", tj_pol"});
  directive("#else");
  emit(L2Hint{});
  directive("#endif");
}

}  // namespace

int Emitter::vector_width(ir::ValueId ptr, ir::ValueId mask, const Layout& l) const {
  return cuda::vector_width(f_, axes_, ptr, mask, l);
}

void Emitter::load_op(const ir::Op& op, const Layout& l, const std::string& name) {
  ir::ValueId res = op.results[0];
  DType t = type(res).elem;
  ir::ValueId mask_v = op.attrs.has_mask ? op.operands[1] : ir::kNoValue;
  std::string ptr = block(op.operands[0], l);
  std::string mask = op.attrs.has_mask ? block(mask_v, l) : "";
  std::string other = op.attrs.has_other ? block(op.operands[2], l) : "";
  int n = l.num_regs();
  int width = vector_width(op.operands[0], mask_v, l);
  Packing pk = packing(static_cast<int>(dtype_size(t)), width);
  line(fmt::format("{} {}[{}];", storage_type(res), name, n));
  if (pk.words == 0) {  // one-byte elements: plain C
    std::string fill = op.attrs.has_other ? other + "[r]" : fmt::format("({})0", storage_type(res));
    per_register(n, op.attrs.has_mask ? fmt::format("{}[r] = {}[r] ? *{}[r] : {};", name, mask, ptr, fill)
                                      : fmt::format("{}[r] = *{}[r];", name, ptr));
    return;
  }
  const int per_word = pk.per_word();
  line("#pragma unroll");
  open(fmt::format("for (int r = 0; r < {}; r += {})", n, width));
  // Words start as `other` (or zero); a predicated load overwrites them.
  for (int w = 0; w < pk.words; ++w) {
    std::string word;
    if (op.attrs.has_other) {
      word = pack_word(t, pk, [&](int e) { return fmt::format("{}[r + {}]", other, w * per_word + e); });
    } else {
      std::vector<std::string> zeros;
      for (int e = 0; e < per_word; ++e)
        zeros.push_back(e == 0 ? fmt::format("({})(0)", pk.word_type)
                               : fmt::format("(({})(0) << {})", pk.word_type, 8 * pk.elem_bytes * e));
      word = fmt::format("{}", fmt::join(zeros, " | "));
    }
    line(fmt::format("{} tj_w{} = {};", pk.word_type, w, word));
  }
  std::vector<std::string> outs;
  for (int w = 0; w < pk.words; ++w) outs.push_back(fmt::format("\"+{}\"(tj_w{})", pk.constraint, w));
  with_l2_hint(
      op.attrs.eviction, [&](const char* d) { out_ += std::string(d) + "\n"; },
      [&](const L2Hint& hint) {
        std::string instr =
            fmt::format("ld.global{}{}.b{}", hint.qualifier, vector_suffix(pk.words), 8 * pk.word_bytes);
        if (op.attrs.has_mask) {
          line(
              fmt::format("asm volatile(\"{{ .reg .pred p; {}setp.ne.b32 p, %{}, 0; @p {} {}, [%{}]{}; }}\" : {} : "
                          "\"r\"((int){}[r]), \"l\"({}[r]));",
                          hint.setup, pk.words, instr, word_list(0, pk.words), pk.words + 1, hint.operand,
                          fmt::join(outs, ", "), mask, ptr));
        } else {
          line(fmt::format("asm volatile(\"{{ {}{} {}, [%{}]{}; }}\" : {} : \"l\"({}[r]));", hint.setup, instr,
                           word_list(0, pk.words), pk.words, hint.operand, fmt::join(outs, ", "), ptr));
        }
      });
  for (int w = 0; w < pk.words; ++w)
    for (int e = 0; e < per_word; ++e)
      line(fmt::format("{}[r + {}] = {};", name, w * per_word + e, unpack_element(t, pk, fmt::format("tj_w{}", w), e)));
  close();
}

// Replicated threads and registers hold copies of the same element: true (in a per-register
// loop over `r`) for the first copy only.
std::vector<std::string> Emitter::first_copy_conditions(const Layout& l) const {
  std::vector<std::string> conds;
  if (auto m = replica_mask(l.reg)) conds.push_back(fmt::format("(r & {}) == 0", m));
  if (auto m = replica_mask(l.lane)) conds.push_back(fmt::format("(tj_lane & {}) == 0", m));
  if (auto m = replica_mask(l.warp)) conds.push_back(fmt::format("(tj_warp & {}) == 0", m));
  return conds;
}

// Only the first copy of an element stores it.
void Emitter::store_op(const ir::Op& op) {
  ir::ValueId ptr = op.operands[0], value = op.operands[1];
  if (type(ptr).is_scalar()) {
    std::string cond = op.attrs.has_mask ? fmt::format(" && {}", scalar(op.operands[2])) : "";
    line(fmt::format("if ({}{}) *{} = {};", first_thread(), cond, scalar(ptr), scalar(value)));
    return;
  }
  Layout l = plan_.is_free(value) ? plan_.default_layout(type(value).shape) : plan_.fixed.at(value);
  ir::ValueId mask_v = op.attrs.has_mask ? op.operands[2] : ir::kNoValue;
  std::string v = block(value, l), p = block(ptr, l);
  std::vector<std::string> conds = first_copy_conditions(l);
  if (op.attrs.has_mask) conds.push_back(block(mask_v, l) + "[r]");
  DType t = type(value).elem;
  int width = vector_width(ptr, mask_v, l);
  // Replica register bits inside a vector group would make its elements copies, not
  // neighbours; vector_width only counts distinct contiguous bits, so groups hold no replicas.
  Packing pk = packing(static_cast<int>(dtype_size(t)), width);
  if (pk.words == 0) {
    std::string guard = conds.empty() ? "" : fmt::format("if ({}) ", fmt::join(conds, " && "));
    per_register(l.num_regs(), fmt::format("{{ {}*{}[r] = {}[r]; }}", guard, p, v));
    return;
  }
  const int per_word = pk.per_word();
  line("#pragma unroll");
  open(fmt::format("for (int r = 0; r < {}; r += {})", l.num_regs(), width));
  std::vector<std::string> ins;
  for (int w = 0; w < pk.words; ++w)
    ins.push_back(fmt::format("\"{}\"({})", pk.constraint,
                              pack_word(t, pk, [&](int e) { return fmt::format("{}[r + {}]", v, w * per_word + e); })));
  std::string pred = conds.empty() ? "1" : fmt::format("({})", fmt::join(conds, " && "));
  with_l2_hint(
      op.attrs.eviction, [&](const char* d) { out_ += std::string(d) + "\n"; },
      [&](const L2Hint& hint) {
        std::string instr =
            fmt::format("st.global{}{}.b{}", hint.qualifier, vector_suffix(pk.words), 8 * pk.word_bytes);
        line(
            fmt::format("asm volatile(\"{{ .reg .pred p; {}setp.ne.b32 p, %0, 0; @p {} [%1], {}{}; }}\" :: "
                        "\"r\"((int){}), \"l\"({}[r]), {} : \"memory\");",
                        hint.setup, instr, word_list(2, pk.words), hint.operand, pred, p, fmt::join(ins, ", ")));
      });
  close();
}

}  // namespace tilejit::codegen::cuda
