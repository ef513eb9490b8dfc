// for_range: carried values live in registers set before the loop and reassigned at the end of
// each iteration from the yielded values (through temporaries when a yield permutes them).
// The bounds are scalars, uniform across the program, so the loop never diverges. The loop is
// rotated as NVVM's are: one test before it, then one conditional branch back at the bottom of
// each step. A test at the top with an unconditional branch back made ptxas put a bf16 rows_2d
// kernel's predicated load behind a branch of its own (BSSY/BRA/BSYNC) in every step.
#include <fmt/format.h>

#include <set>

#include "codegen/ptx/emitter.h"

namespace tilejit::codegen::ptx {

void Emitter::loop_op(const ir::Op& op) {
  const ir::Region& body = op.regions[0];
  const std::size_t carried = op.results.size();
  std::vector<Layout> layouts(carried);
  std::vector<Regs> vars(carried);  // the carried registers (one per element for blocks)
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1], init = op.operands[ir::kForFixedOperands + i];
    RegClass c = reg_class(type(arg));
    if (type(arg).is_scalar()) {
      vars[i] = {move(c, scalar(init))};
      scalars_[arg] = vars[i][0];
    } else {
      layouts[i] = plan_.fixed.at(arg);
      for (const auto& r : block(init, layouts[i])) vars[i].push_back(move(c, r));
    }
  }
  ir::ValueId iv = body.args[0];
  const ir::Type& iv_t = type(iv);
  const char* ty = iv_t.elem == DType::i64 ? "s64" : "s32";
  std::string index = move(reg_class(iv_t), scalar(op.operands[0]));
  scalars_[iv] = index;
  const std::string& end = scalar(op.operands[1]);
  const std::string& step = scalar(op.operands[2]);
  std::string head = code_.label(), exit = code_.label(), more = code_.reg(RegClass::pred);
  auto test = [&] { code_.ins(fmt::format("setp.lt.{} {}, {}, {}", ty, more, index, end)); };
  test();
  code_.ins(fmt::format("@!{} bra {}", more, exit));
  code_.place(head);

  scopes_.emplace_back();
  for (std::size_t i = 0; i < carried; ++i)
    if (!type(body.args[i + 1]).is_scalar()) remember(body.args[i + 1], layouts[i], vars[i]);
  region(body);
  const ir::Op& yield = body.ops.back();
  if (options_.line_info) code_.set_loc(yield.loc.file, yield.loc.line);
  std::vector<Regs> next(carried);
  std::set<std::string> carried_regs;
  for (const auto& v : vars) carried_regs.insert(v.begin(), v.end());
  bool reads_carried = false;
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId y = yield.operands[i];
    next[i] = type(y).is_scalar() ? Regs{scalar(y)} : block(y, layouts[i]);
    for (const auto& r : next[i]) reads_carried |= carried_regs.count(r) != 0;
  }
  // A yielded register that is itself carried would be overwritten before it is read.
  if (reads_carried)
    for (std::size_t i = 0; i < carried; ++i)
      for (auto& r : next[i]) r = move(reg_class(type(body.args[i + 1])), r);
  for (std::size_t i = 0; i < carried; ++i) {
    RegClass c = reg_class(type(body.args[i + 1]));
    for (std::size_t e = 0; e < vars[i].size(); ++e)
      if (vars[i][e] != next[i][e]) code_.ins(fmt::format("mov.{} {}, {}", mov_type(c), vars[i][e], next[i][e]));
  }
  scopes_.pop_back();
  code_.ins(fmt::format("add.{} {}, {}, {}", ty, index, index, step));
  test();
  code_.ins(fmt::format("@{} bra {}", more, head));
  code_.place(exit);

  for (std::size_t i = 0; i < carried; ++i) {
    if (type(op.results[i]).is_scalar()) scalars_[op.results[i]] = vars[i][0];
    else remember(op.results[i], layouts[i], vars[i]);
  }
}

}  // namespace tilejit::codegen::ptx
