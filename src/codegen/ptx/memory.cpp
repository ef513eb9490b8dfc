// Global loads and stores. Where the axis analysis proves a thread's contiguous elements are
// contiguous and aligned in memory and share one mask value, they move as one vector access
// of up to 16 bytes (cuda::vector_width decides, as for the CUDA C generator). Masked
// accesses are predicated instructions: a masked-off load leaves `other` in its registers.
#include <fmt/format.h>

#include <optional>

#include "codegen/cuda/vector_access.h"
#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

const char* access_type(int elem_bytes) { return elem_bytes == 8 ? "b64" : elem_bytes == 4 ? "b32" : "b16"; }

std::string guard(const std::string& pred) { return pred.empty() ? "" : "@" + pred + " "; }

// An L2 eviction hint on a global access: `.cs` (cache streaming, evicted first), or for
// evict_last a cache-policy operand made by createpolicy (sm_80+, which this generator needs).
struct L2Hint {
  std::string qualifier;  // after ld.global / st.global
  std::string operand;    // after the address
};

L2Hint l2_hint(Code& code, Eviction eviction) {
  if (eviction == Eviction::first) return {".cs", ""};
  if (eviction != Eviction::last) return {};
  std::string policy = code.reg(RegClass::b64);
  code.ins(fmt::format("createpolicy.fractional.L2::evict_last.b64 {}, 1.0", policy));
  return {".L2::cache_hint", ", " + policy};
}

}  // namespace

std::string Emitter::scalar_load(const ir::Op& op) {
  ir::ValueId res = op.results[0];
  const ir::Type& t = type(res);
  const std::string& ptr = scalar(op.operands[0]);
  std::string pred = op.attrs.has_mask ? scalar(op.operands[1]) : "";
  if (t.is_bool()) {
    std::string byte =
        op.attrs.has_other ? convert(DType::i1, DType::i32, scalar(op.operands[2])) : zero(RegClass::b32);
    byte = move(RegClass::b32, byte);
    code_.ins(fmt::format("{}ld.global.u8 {}, [{}]", guard(pred), byte, ptr));
    return convert(DType::i32, DType::i1, byte);
  }
  RegClass c = reg_class(t);
  std::string d = op.attrs.has_mask ? move(c, op.attrs.has_other ? scalar(op.operands[2]) : zero(c)) : code_.reg(c);
  code_.ins(
      fmt::format("{}ld.global.{} {}, [{}]", guard(pred), access_type(static_cast<int>(dtype_size(t.elem))), d, ptr));
  return d;
}

Regs Emitter::load_op(const ir::Op& op, const Layout& l) {
  ir::ValueId res = op.results[0];
  const ir::Type& t = type(res);
  ir::ValueId mask_v = op.attrs.has_mask ? op.operands[1] : ir::kNoValue;
  // In a loop, addresses and masks are computed again in every step instead of kept live across
  // it from the prologue (see store_op); only those of each vector's first element.
  std::optional<Rematerialize> again;
  if (scopes_.size() > 1) again.emplace(*this);
  auto address = [&](std::size_t e) { return element(op.operands[0], l, static_cast<int>(e)); };
  auto mask = [&](std::size_t e) { return mask_v == ir::kNoValue ? "" : element(mask_v, l, static_cast<int>(e)); };
  Regs other = op.attrs.has_other ? block(op.operands[2], l) : Regs();
  const int n = l.num_regs();
  const int elem = static_cast<int>(dtype_size(t.elem));
  RegClass c = reg_class(t);
  Regs out(static_cast<std::size_t>(n));
  if (t.is_bool()) {  // bytes, one at a time
    for (int r = 0; r < n; ++r) {
      auto i = static_cast<std::size_t>(r);
      std::string byte =
          move(RegClass::b32, op.attrs.has_other ? convert(DType::i1, DType::i32, other[i]) : zero(RegClass::b32));
      code_.ins(fmt::format("{}ld.global.u8 {}, [{}]", guard(mask(i)), byte, address(i)));
      out[i] = convert(DType::i32, DType::i1, byte);
    }
    return out;
  }
  const int width = cuda::vector_width(f_, axes_, op.operands[0], mask_v, l);
  for (int r = 0; r < n; r += width) {
    auto first = static_cast<std::size_t>(r);
    std::string pred = mask(first), ptr = address(first);
    std::vector<std::string> words;
    if (elem == 2 && width >= 2) {
      // Two 16-bit elements per 32-bit word, the lower address in the low half.
      for (int w = 0; w < width / 2; ++w) {
        auto e = first + static_cast<std::size_t>(2 * w);
        std::string word = code_.reg(RegClass::b32);
        if (!other.empty()) code_.ins(fmt::format("mov.b32 {}, {{{}, {}}}", word, other[e], other[e + 1]));
        else if (!pred.empty()) code_.ins(fmt::format("mov.b32 {}, 0", word));
        words.push_back(word);
      }
      L2Hint hint = l2_hint(code_, op.attrs.eviction);
      code_.ins(fmt::format("{}ld.global{}{}.b32 {}, [{}]{}", guard(pred), hint.qualifier, vector_suffix(words.size()),
                            vector_operand(words), ptr, hint.operand));
      for (int w = 0; w < width / 2; ++w) {
        auto e = first + static_cast<std::size_t>(2 * w);
        Regs halves = unpack(words[static_cast<std::size_t>(w)]);
        out[e] = halves[0];
        out[e + 1] = halves[1];
      }
      continue;
    }
    // One register per element: the load writes the result registers directly.
    for (int k = 0; k < width; ++k) {
      auto e = first + static_cast<std::size_t>(k);
      if (!other.empty()) out[e] = move(c, other[e]);
      else if (!pred.empty()) out[e] = zero(c);
      else out[e] = code_.reg(c);
      words.push_back(out[e]);
    }
    L2Hint hint = l2_hint(code_, op.attrs.eviction);
    code_.ins(fmt::format("{}ld.global{}{}.{} {}, [{}]{}", guard(pred), hint.qualifier, vector_suffix(words.size()),
                          access_type(elem), vector_operand(words), ptr, hint.operand));
  }
  return out;
}

std::string Emitter::first_thread() {
  return hoisted("thread0", [&] {
    std::string p = code_.reg(RegClass::pred);
    code_.ins(fmt::format("setp.eq.u32 {}, {}, 0", p, thread_id()));
    return p;
  });
}

std::string Emitter::both(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::string p = code_.reg(RegClass::pred);
  code_.ins(fmt::format("and.pred {}, {}, {}", p, a, b));
  return p;
}

// Replicated threads and registers hold copies of the same element; only the first copy
// stores it.
void Emitter::store_op(const ir::Op& op) {
  ir::ValueId ptr_v = op.operands[0], value_v = op.operands[1];
  const ir::Type& t = type(value_v);
  const int elem = t.is_ptr ? 8 : static_cast<int>(dtype_size(t.elem));
  auto store_bytes = [&](const std::string& pred, const std::string& address, const std::string& value) {
    std::string byte = convert(DType::i1, DType::i32, value);
    code_.ins(fmt::format("{}st.global.u8 [{}], {}", guard(pred), address, byte));
  };
  if (type(ptr_v).is_scalar()) {
    const std::string pred = op.attrs.has_mask ? both(first_thread(), scalar(op.operands[2])) : first_thread();
    if (t.is_bool()) return store_bytes(pred, scalar(ptr_v), scalar(value_v));
    code_.ins(fmt::format("@{} st.global.{} [{}], {}", pred, access_type(elem), scalar(ptr_v), scalar(value_v)));
    return;
  }
  Layout l = plan_.is_free(value_v) ? plan_.default_layout(t.shape) : plan_.fixed.at(value_v);
  ir::ValueId mask_v = op.attrs.has_mask ? op.operands[2] : ir::kNoValue;
  // A streamed value is computed a vector at a time below, as each store takes it. With a division
  // by a splat in it, the store is emitted twice behind a branch on the divisor (uniform across
  // the program), as uniform_float_division does, instead of predicating the slow path per element.
  const bool streamed_value = streamed(value_v);
  if (streamed_value && !division_branch_.op)
    if (const ir::Op* div = streamed_division(value_v)) {
      const std::string normal = division_plan(*div)[2];
      const std::string slow = code_.label(), done = code_.label();
      code_.ins(fmt::format("@!{} bra {}", normal, slow));
      division_branch_ = {div, false};
      store_op(op);
      code_.ins(fmt::format("bra.uni {}", done));
      code_.place(slow);
      division_branch_ = {div, true};
      store_op(op);
      code_.place(done);
      division_branch_ = {};
      return;
    }
  Regs value = streamed_value ? Regs(static_cast<std::size_t>(l.num_regs())) : block(value_v, l);
  // Addresses and masks are computed again here from the thread index rather than taken from the
  // loads' registers: keeping those live to the store cost registers (bf16 BLOCK 8192, 16 warps:
  // 42 against 32; predicates beyond SASS's seven live in general registers).
  // Only each vector's first element needs its address and mask.
  Rematerialize again(*this);
  auto address = [&](std::size_t e) { return element(ptr_v, l, static_cast<int>(e)); };
  std::string owner = owner_predicate(l);
  const std::uint32_t replica_regs = cuda::replica_mask(l.reg);
  auto predicate = [&](std::size_t e) {
    return mask_v == ir::kNoValue ? owner : both(owner, element(mask_v, l, static_cast<int>(e)));
  };
  if (t.is_bool()) {
    for (int r = 0; r < l.num_regs(); ++r)
      if ((static_cast<std::uint32_t>(r) & replica_regs) == 0) {
        auto e = static_cast<std::size_t>(r);
        store_bytes(predicate(e), address(e), streamed_value ? element(value_v, l, r) : value[e]);
      }
    return;
  }
  // Replica register bits inside a vector group would make its elements copies, not
  // neighbours; vector_width only counts distinct contiguous bits, so groups hold no replicas.
  const int width = cuda::vector_width(f_, axes_, ptr_v, mask_v, l);
  for (int r = 0; r < l.num_regs(); r += width) {
    if ((static_cast<std::uint32_t>(r) & replica_regs) != 0) continue;
    auto first = static_cast<std::size_t>(r);
    if (streamed_value)
      for (int k = 0; k < width; ++k) value[first + static_cast<std::size_t>(k)] = element(value_v, l, r + k);
    std::vector<std::string> words;
    if (elem == 2 && width >= 2) {
      for (int w = 0; w < width / 2; ++w) {
        auto e = first + static_cast<std::size_t>(2 * w);
        words.push_back(pack(value[e], value[e + 1]));
      }
    } else {
      for (int k = 0; k < width; ++k) words.push_back(value[first + static_cast<std::size_t>(k)]);
    }
    const char* ty = elem == 2 && width >= 2 ? "b32" : access_type(elem);
    L2Hint hint = l2_hint(code_, op.attrs.eviction);
    std::string pred = predicate(first), ptr = address(first);
    code_.ins(fmt::format("{}st.global{}{}.{} [{}], {}{}", guard(pred), hint.qualifier, vector_suffix(words.size()), ty,
                          ptr, vector_operand(words), hint.operand));
  }
}

}  // namespace tilejit::codegen::ptx
