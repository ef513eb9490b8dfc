// Streamed values: blocks read from a stash (tl::stash) and the elementwise values computed from
// them are not held in registers. Each consumer (a reduction, a store, or any op that needs the
// whole block) reads the stash again and computes them one 16-byte piece at a time, as it takes
// them. A row kept in shared memory then costs registers only for the piece in hand: a
// softmax whose row is read back in each of its three phases (max, sum, stores) keeps bf16 rows
// of 16384 over 8 warps in 40 registers, where holding each phase's values took 117.
//
// A stash read is streamed only where reading it again later gives the same values: no put or
// copy into its stash follows it in its region (a loop body counts whole).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "codegen/cuda/stash_layout.h"
#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

bool writes_stash(const ir::Op& op, std::int64_t id) {
  return (op.kind == ir::OpKind::stash_put || op.kind == ir::OpKind::stash_copy) && op.attrs.int_value == id;
}

bool region_writes_stash(const ir::Region& r, std::int64_t id) {
  for (const ir::Op& op : r.ops) {
    if (writes_stash(op, id)) return true;
    for (const auto& nested : op.regions)
      if (region_writes_stash(nested, id)) return true;
  }
  return false;
}

bool streams_through(ir::OpKind k) {
  switch (k) {
    case ir::OpKind::cast:
    case ir::OpKind::select:
    case ir::OpKind::fma:
    case ir::OpKind::splat:
    case ir::OpKind::broadcast:
    case ir::OpKind::expand_dims: return true;
    default: break;
  }
  const ir::OpCategory c = ir::op_category(k);
  return c == ir::OpCategory::Unary || c == ir::OpCategory::Binary || c == ir::OpCategory::Compare;
}

}  // namespace

void Emitter::find_rereadable_reads(const ir::Region& r, bool in_loop) {
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const ir::Op& op = r.ops[i];
    for (const auto& nested : op.regions) find_rereadable_reads(nested, in_loop || op.kind == ir::OpKind::for_range);
    if (op.kind != ir::OpKind::stash_get) continue;
    const std::int64_t id = op.attrs.int_value;
    bool written_after = in_loop && region_writes_stash(r, id);
    for (std::size_t j = i + 1; j < r.ops.size() && !written_after; ++j) {
      written_after = writes_stash(r.ops[j], id);
      for (const auto& nested : r.ops[j].regions) written_after = written_after || region_writes_stash(nested, id);
    }
    if (!written_after) rereadable_.insert(op.results[0]);
  }
}

bool Emitter::streamed(ir::ValueId v) const {
  if (auto memo = streamed_.find(v); memo != streamed_.end()) return memo->second;
  bool yes = false;
  auto def = def_.find(v);
  if (def != def_.end() && !type(v).is_scalar() && !plan_.is_free(v)) {
    const ir::Op& op = *def->second;
    if (op.kind == ir::OpKind::stash_get) {
      yes = rereadable_.contains(v);
    } else if (streams_through(op.kind)) {
      bool any = false, all = true;
      for (ir::ValueId o : op.operands) {
        if (type(o).is_scalar() || plan_.is_free(o)) continue;
        if (streamed(o)) any = true;
        else all = false;
      }
      yes = any && all;
    }
  }
  streamed_[v] = yes;
  return yes;
}

// The piece holding element r, read once for the consumer that asks (its elements are
// remembered in the consumer's scope).
std::string Emitter::streamed_stash_read(const ir::Op& op, const Layout& l, int r) {
  const ir::Stash& s = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value));
  if (!(l == stash_layout(s))) throw Unsupported("PTX generation: a stash read consumed in another layout");
  const int width = cuda::stash_vector_width(s, l), first = r - r % width;
  const Regs piece = stash_piece(op, l, first);
  for (int k = 0; k < width; ++k)
    remember(op.results[0], fmt::format("{}#{}", layout_name(l), first + k), {piece[static_cast<std::size_t>(k)]});
  return piece[static_cast<std::size_t>(r - first)];
}

const ir::Op* Emitter::streamed_division(ir::ValueId v) const {
  if (!streamed(v)) return nullptr;
  const ir::Op& op = *def_.at(v);
  if (splat_division(op)) return &op;
  for (ir::ValueId o : op.operands)
    if (!type(o).is_scalar())
      if (const ir::Op* found = streamed_division(o)) return found;
  return nullptr;
}

// x / s for a splat s, one element: x * (1/s) where 1/s is a normal float, div.full elsewhere (see
// uniform_float_division). Inside a store's branch on this division's test (division_branch_), the
// side's path alone; else both, the slow one predicated.
std::optional<std::string> Emitter::uniform_float_division_element(const ir::Op& op, const Layout& l, int r) {
  if (!splat_division(op)) return std::nullopt;
  const DType t = type(op.results[0]).elem;
  const Regs plan = division_plan(op);
  const std::string &s = plan[0], &rcp = plan[1], &normal = plan[2];
  std::string x = to_compute(t, element(op.operands[0], l, r)), q = code_.reg(RegClass::f32);
  const bool branched = division_branch_.op == &op;
  if (!branched || !division_branch_.slow) code_.ins(fmt::format("mul.f32 {}, {}, {}", q, x, rcp));
  if (branched && division_branch_.slow) code_.ins(fmt::format("div.full.f32 {}, {}, {}", q, x, s));
  if (!branched) code_.ins(fmt::format("@!{} div.full.f32 {}, {}, {}", normal, q, x, s));
  return from_compute(t, q);
}

}  // namespace tilejit::codegen::ptx
