// Reductions along one axis: within each thread's registers, then across lanes with warp
// shuffles, then across warps through shared memory (one round trip) when the axis spans
// warps. The result keeps the parent's layout minus the axis, so broadcasting it back is free.
#include <fmt/format.h>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

int bytes_of(const std::string& compute) {
  if (compute == "double" || compute == "long long") return 8;
  return 4;
}

}  // namespace

void Emitter::reduce_op(const ir::Op& op) {
  ir::ValueId src = op.operands[0], res = op.results[0];
  DType t = type(src).elem;
  int axis = op.attrs.axis;
  ir::ReduceKind kind = op.attrs.reduce;
  Layout parent = natural_layout(src);
  std::string in = block(src, parent);
  std::string acc_t = compute_type(t);
  int n = parent.num_regs();
  std::uint32_t reg_axis = axis_mask(parent.reg, axis);
  std::uint32_t lane_axis = axis_mask(parent.lane, axis);
  std::uint32_t warp_axis = axis_mask(parent.warp, axis);
  std::string acc = fresh(value_name(res) + "_acc");
  // Registers whose index has no bits along the axis own one partial result each.
  std::string owner = fmt::format("if ((r & {}) == 0)", reg_axis);

  // Within the thread, a pairwise tree (one step per register bit along the axis): a chain of
  // dependent adds or maxes over 32 registers would cost 32 latencies before the shuffles.
  line(fmt::format("{} {}[{}];", acc_t, acc, n));
  per_register(n, fmt::format("{}[r] = {};", acc, to_compute(t, in + "[r]")));
  std::uint32_t folded = 0;
  for (int bit = 0; (1 << bit) < n; ++bit) {
    if (!(reg_axis & (1u << bit))) continue;
    folded |= 1u << bit;
    per_register(n, fmt::format("if ((r & {}) == 0) {}[r] = {};", folded, acc,
                                reduce_combine(kind, acc + "[r]", fmt::format("{}[r | {}]", acc, 1 << bit))));
  }
  for (int bit = 0; bit < 5; ++bit)
    if (lane_axis & (1u << bit))
      per_register(n,
                   fmt::format("{} {}[r] = {};", owner, acc,
                               reduce_combine(kind, acc + "[r]",
                                              fmt::format("__shfl_xor_sync(0xffffffffu, {}[r], {})", acc, 1 << bit))));
  if (warp_axis) {
    Layout result = slice_layout(parent, axis);
    int slots = 1 << __builtin_popcount(warp_axis);
    std::int64_t n_out = type(res).numel();
    // Two scratch buffers used in turn: the next reduction writes the other one, so no barrier is
    // needed after the reads (see reduction_scratch).
    std::string scratch = reduction_scratch(static_cast<int>(slots * n_out * bytes_of(acc_t)));
    // The warp's slot: its warp-id bits along the axis, packed.
    std::vector<std::string> slot_terms;
    int packed = 0;
    for (std::size_t bit = 0; bit < parent.warp.size(); ++bit)
      if (warp_axis & (1u << bit)) slot_terms.push_back(fmt::format("(((tj_warp >> {}) & 1) << {})", bit, packed++));
    std::string index = result.rank() == 0 ? "0" : linear_index(result, "r");
    open("");
    line(fmt::format("{}* tj_red = reinterpret_cast<{}*>({});", acc_t, acc_t, scratch));
    line(fmt::format("const int tj_slot = {};", fmt::join(slot_terms, " | ")));
    per_register(n, fmt::format("{} tj_red[tj_slot * {} + {}] = {}[r];", owner, n_out, index, acc));
    line(barrier());
    line("#pragma unroll");
    open(fmt::format("for (int r = 0; r < {}; ++r) {}", n, owner));
    if (butterfly_across_warps(n_out, bytes_of(acc_t), slots)) {
      // Lane l reads warp l % slots's partial, then a butterfly over `slots` lanes (see
      // butterfly_across_warps). Each lane adds the same pairs, so all hold the same value.
      line(fmt::format("{}[r] = tj_red[tj_lane & {}];", acc, slots - 1));
      for (int d = 1; d < slots; d <<= 1)
        line(fmt::format(
            "{}[r] = {};", acc,
            reduce_combine(kind, acc + "[r]", fmt::format("__shfl_xor_sync(0xffffffffu, {}[r], {})", acc, d))));
    } else {
      line(fmt::format("{}[r] = tj_red[{}];", acc, index));
      line("#pragma unroll");
      line(fmt::format("for (int s = 1; s < {}; ++s) {}[r] = {};", slots, acc,
                       reduce_combine(kind, acc + "[r]", fmt::format("tj_red[s * {} + {}]", n_out, index))));
    }
    close();
    close();
  }
  std::string out_t = storage_type(res);
  if (type(res).is_scalar()) {
    line(fmt::format("{} const {} = {};", out_t, scalar(res), from_compute(t, acc + "[0]")));
    return;
  }
  const Layout& l = plan_.fixed.at(res);
  std::string name = value_name(res);
  line(fmt::format("{} {}[{}];", out_t, name, n));
  per_register(n, fmt::format("{}[r] = {};", name, from_compute(t, fmt::format("{}[r & ~{}]", acc, reg_axis))));
  remember(res, l, name);
}

}  // namespace tilejit::codegen::cuda
