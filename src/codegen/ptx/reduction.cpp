// Reductions along one axis: within each thread's registers, then across lanes with butterfly
// shuffles (every lane ends with the result), then across warps through one shared-memory
// round trip when the axis spans warps (one barrier: see Emitter::cross_warp_bytes). The result keeps the parent's
// layout minus the axis, so broadcasting it back is free.
#include <fmt/format.h>

#include <functional>

#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

// Combines values[r] with values[r | b] into values[r] for each register bit b of `axis_bits` not
// in `folded` (bits already combined), lowest first: a pairwise tree whose partials end in the
// registers with no axis bits. A chain of dependent combines would cost one latency per register.
void fold_register_tree(Regs& values, int axis_bits, int folded,
                        const std::function<std::string(const std::string&, const std::string&)>& combine) {
  const auto n = static_cast<int>(values.size());
  for (int bit = 0; (1 << bit) < n; ++bit) {
    if (!(axis_bits & (1 << bit)) || (folded & (1 << bit))) continue;
    folded |= 1 << bit;
    for (int r = 0; r < n; ++r)
      if ((r & folded) == 0)
        values[static_cast<std::size_t>(r)] =
            combine(values[static_cast<std::size_t>(r)], values[static_cast<std::size_t>(r | (1 << bit))]);
  }
}

}  // namespace

ir::OpKind reduce_combine_op(ir::ReduceKind k) {
  switch (k) {
    case ir::ReduceKind::sum: return ir::OpKind::add;
    case ir::ReduceKind::max: return ir::OpKind::maximum;
    case ir::ReduceKind::min: return ir::OpKind::minimum;
    case ir::ReduceKind::softmax_stats: break;  // pairs: cluster_reduce_op
  }
  throw InternalError("PTX generation: softmax_stats is not an elementwise combine");
}

int Emitter::cross_warp_bytes(const ir::Op& reduce) const {
  ir::ValueId src = reduce.operands[0];
  const DType t = type(src).elem;
  const DType acc_t = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  const std::uint32_t warp_axis = cuda::axis_mask(natural_layout(src).warp, reduce.attrs.axis);
  if (!warp_axis) return 0;
  const std::int64_t slots = std::int64_t{1} << __builtin_popcount(warp_axis);
  return static_cast<int>(slots * type(reduce.results[0]).numel() * static_cast<std::int64_t>(dtype_size(acc_t)));
}

void Emitter::reduce_op(const ir::Op& op) {
  ir::ValueId src = op.operands[0], res = op.results[0];
  const DType t = type(src).elem;
  if (t == DType::i1) throw Unsupported("PTX generation: a reduction of i1 values");
  // Accumulate in the compute type (f32 for f16 / bf16), as the CUDA C generator does.
  const DType acc_t = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  const RegClass acc_c = reg_class(acc_t);
  const int bytes = static_cast<int>(dtype_size(acc_t));
  const int axis = op.attrs.axis;
  const ir::OpKind combine = reduce_combine_op(op.attrs.reduce);
  Layout parent = natural_layout(src);
  const int n = parent.num_regs();
  const auto reg_axis = static_cast<int>(cuda::axis_mask(parent.reg, axis));
  const std::uint32_t lane_axis = cuda::axis_mask(parent.lane, axis);
  const std::uint32_t warp_axis = cuda::axis_mask(parent.warp, axis);
  // Registers whose index has no bits along the axis own one partial result each.
  auto owners = [&] {
    std::vector<int> out;
    for (int r = 0; r < n; ++r)
      if ((r & reg_axis) == 0) out.push_back(r);
    return out;
  }();

  // Within the thread, a pairwise tree over the register bits along the axis (the CUDA C
  // generator's order): a chain of dependent combines would cost one latency per register.
  Regs acc = streamed(src) ? streamed_tree(src, parent, axis, combine, acc_t) : Regs(static_cast<std::size_t>(n));
  if (!streamed(src) && !packed_half_tree(src, parent, axis, combine, acc)) {
    Regs in = block(src, parent);
    for (int r = 0; r < n; ++r) acc[static_cast<std::size_t>(r)] = to_compute(t, in[static_cast<std::size_t>(r)]);
    fold_register_tree(acc, reg_axis, 0,
                       [&](const std::string& a, const std::string& b) { return binary(combine, acc_t, a, b); });
  }
  for (int bit = 0; bit < 5; ++bit) {
    if (!(lane_axis & (1u << bit))) continue;
    for (int r : owners) {
      auto i = static_cast<std::size_t>(r);
      acc[i] = binary(combine, acc_t, acc[i], shuffle_xor(acc_t, acc[i], 1 << bit));
    }
  }
  if (warp_axis) {
    Layout result = cuda::slice_layout(parent, axis);
    const int slots = 1 << __builtin_popcount(warp_axis);
    const std::int64_t n_out = type(res).numel();
    const int buffer = reduction_turn_++ % 2 == 0 ? 0 : reduction_buffer_bytes_;
    // Each warp writes its partials to its slot (its warp-id bits along the axis, packed);
    // then every thread combines the slots of the elements it holds.
    std::string lin = thread_linear(result);
    std::string write_base = hoisted(fmt::format("red{}:{}:{}", bytes, warp_axis, cuda::to_string(result)), [&] {
      std::string slot;
      int packed = 0;
      for (std::size_t bit = 0; bit < parent.warp.size(); ++bit) {
        if (!(warp_axis & (1u << bit))) continue;
        std::string b = code_.reg(RegClass::b32), moved = code_.reg(RegClass::b32);
        code_.ins(fmt::format("and.b32 {}, {}, {}", b, warp(), 1u << bit));
        int shift = packed++ - static_cast<int>(bit);
        if (shift >= 0) code_.ins(fmt::format("shl.b32 {}, {}, {}", moved, b, shift));
        else code_.ins(fmt::format("shr.u32 {}, {}, {}", moved, b, -shift));
        if (slot.empty()) {
          slot = moved;
        } else {
          std::string s = code_.reg(RegClass::b32);
          code_.ins(fmt::format("or.b32 {}, {}, {}", s, slot, moved));
          slot = s;
        }
      }
      std::string index = slot;
      if (!lin.empty()) {
        index = code_.reg(RegClass::b32);
        code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", index, slot, n_out, lin));
      } else if (n_out != 1) {
        index = code_.reg(RegClass::b32);
        code_.ins(fmt::format("mul.lo.s32 {}, {}, {}", index, slot, n_out));
      }
      std::string a = code_.reg(RegClass::b32);
      code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", a, index, bytes, shared_base()));
      return a;
    });
    std::string read_base =
        lin.empty() ? shared_base() : hoisted(fmt::format("smem{}:{}", bytes, cuda::to_string(result)), [&] {
          std::string a = code_.reg(RegClass::b32);
          code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", a, lin, bytes, shared_base()));
          return a;
        });
    const char* st = bytes == 8 ? "b64" : "b32";
    for (int r : owners)
      code_.ins(fmt::format("st.shared.{} [{}+{}], {}", st, write_base, buffer + reg_linear(result, r) * bytes,
                            acc[static_cast<std::size_t>(r)]));
    code_.ins(barrier());
    if (cuda::butterfly_across_warps(n_out, bytes, slots)) {  // lane l reads slot l % slots
      const std::string at = hoisted(fmt::format("redlane{}:{}", bytes, slots), [&] {
        std::string i = code_.reg(RegClass::b32), a = code_.reg(RegClass::b32);
        code_.ins(fmt::format("and.b32 {}, {}, {}", i, lane(), slots - 1));
        code_.ins(fmt::format("mad.lo.s32 {}, {}, {}, {}", a, i, bytes, shared_base()));
        return a;
      });
      std::string a = code_.reg(acc_c);
      code_.ins(fmt::format("ld.shared.b32 {}, [{}+{}]", a, at, buffer));
      for (int d = 1; d < slots; d <<= 1) {
        std::string other = code_.reg(acc_c);
        code_.ins(fmt::format("shfl.sync.bfly.b32 {}, {}, {}, 31, -1", other, a, d));
        a = binary(combine, acc_t, a, other);
      }
      for (int r : owners) acc[static_cast<std::size_t>(r)] = a;  // replicas hold the same result
    } else {
      for (int r : owners) {
        std::string a;
        for (int s = 0; s < slots; ++s) {
          std::string v = code_.reg(acc_c);
          code_.ins(fmt::format("ld.shared.{} {}, [{}+{}]", st, v, read_base,
                                buffer + (s * n_out + reg_linear(result, r)) * bytes));
          a = s == 0 ? v : binary(combine, acc_t, a, v);
        }
        acc[static_cast<std::size_t>(r)] = a;
      }
    }
  }
  if (type(res).is_scalar()) {
    scalars_[res] = from_compute(t, acc[0]);
    return;
  }
  Regs out;
  for (int r = 0; r < n; ++r) out.push_back(from_compute(t, acc[static_cast<std::size_t>(r & ~reg_axis)]));
  remember(res, plan_.fixed.at(res), out);
}

std::string Emitter::shuffle_xor(DType acc_t, const std::string& value, int distance) {
  const RegClass c = reg_class(acc_t);
  std::string other = code_.reg(c);
  if (dtype_size(acc_t) == 4) {
    code_.ins(fmt::format("shfl.sync.bfly.b32 {}, {}, {}, 31, -1", other, value, distance));
    return other;
  }
  // 64-bit values move as two halves.
  std::string lo = code_.reg(RegClass::b32), hi = code_.reg(RegClass::b32);
  std::string lo2 = code_.reg(RegClass::b32), hi2 = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.b64 {{{}, {}}}, {}", lo, hi, value));
  code_.ins(fmt::format("shfl.sync.bfly.b32 {}, {}, {}, 31, -1", lo2, lo, distance));
  code_.ins(fmt::format("shfl.sync.bfly.b32 {}, {}, {}, 31, -1", hi2, hi, distance));
  code_.ins(fmt::format("mov.b64 {}, {{{}, {}}}", other, lo2, hi2));
  return other;
}

std::string Emitter::warp_butterfly(ir::OpKind combine, DType acc_t, std::string value) {
  for (int d = 16; d > 0; d >>= 1) value = binary(combine, acc_t, value, shuffle_xor(acc_t, value, d));
  return value;
}

// The max or min of a 16-bit block widened to f32 is the widened max or min of the 16-bit
// values: widening is exact and keeps the order, NaNs included. So where the reduced value is
// such a widening, the thread's tree runs on the 16-bit values two at a time (max.NaN.bf16x2 /
// f16x2, pairs along the axis's lowest register bit), and only each owner's last pair is widened
// and combined. Half the combines, and the widened block need not be live across the barrier:
// the seed's bf16 rows of 16384 over 8 warps held 64 f32 values a thread there, and ptxas
// spilled at three blocks an SM.
bool Emitter::packed_half_tree(ir::ValueId src, const Layout& parent, int axis, ir::OpKind combine, Regs& acc) {
  if (combine != ir::OpKind::maximum && combine != ir::OpKind::minimum) return false;
  auto def = def_.find(src);
  if (def == def_.end() || def->second->kind != ir::OpKind::cast || type(src).elem != DType::f32) return false;
  const ir::ValueId narrow = def->second->operands[0];
  const DType h = type(narrow).elem;
  if ((h != DType::f16 && h != DType::bf16) || streamed(narrow)) return false;
  const int n = parent.num_regs();
  const auto reg_axis = static_cast<int>(cuda::axis_mask(parent.reg, axis));
  if (reg_axis == 0) return false;
  const int low = __builtin_ctz(static_cast<unsigned>(reg_axis));
  const Regs in = block(narrow, parent);
  Regs words(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    if ((r & (1 << low)) == 0)
      words[static_cast<std::size_t>(r)] =
          pack(in[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(r | (1 << low))]);
  const std::string op =
      fmt::format("{}.NaN.{}x2", combine == ir::OpKind::maximum ? "max" : "min", h == DType::bf16 ? "bf16" : "f16");
  fold_register_tree(words, reg_axis, 1 << low, [&](const std::string& a, const std::string& b) {
    std::string d = code_.reg(RegClass::b32);
    code_.ins(fmt::format("{} {}, {}, {}", op, d, a, b));
    return d;
  });
  for (int r = 0; r < n; ++r)
    if ((r & reg_axis) == 0) {
      const Regs halves = unpack(words[static_cast<std::size_t>(r)]);
      const std::string low_half = to_compute(h, halves[0]);   // in order: the PTX must not depend on
      const std::string high_half = to_compute(h, halves[1]);  // the compiler's order of arguments
      acc[static_cast<std::size_t>(r)] = binary(combine, DType::f32, low_half, high_half);
    }
  return true;
}

// The same tree emitted depth first, each leaf computed as the tree reaches it (a streamed value):
// the pairs combine in the same order, so the sums are the same, while only one partial a level
// and the piece in hand are live. The elements are computed in a scope of their own, so the next
// consumer computes them again.
Regs Emitter::streamed_tree(ir::ValueId src, const Layout& parent, int axis, ir::OpKind combine, DType acc_t) {
  const int n = parent.num_regs();
  const auto reg_axis = static_cast<int>(cuda::axis_mask(parent.reg, axis));
  std::vector<int> bits;
  for (int bit = 0; (1 << bit) < n; ++bit)
    if (reg_axis & (1 << bit)) bits.push_back(bit);
  const DType t = type(src).elem;
  scopes_.emplace_back();
  std::function<std::string(int, std::size_t)> tree = [&](int r, std::size_t level) {
    if (level == 0) return to_compute(t, element(src, parent, r));
    std::string low = tree(r, level - 1), high = tree(r | (1 << bits[level - 1]), level - 1);
    return binary(combine, acc_t, low, high);
  };
  Regs acc(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    if ((r & reg_axis) == 0) acc[static_cast<std::size_t>(r)] = tree(r, bits.size());
  scopes_.pop_back();
  return acc;
}

}  // namespace tilejit::codegen::ptx
