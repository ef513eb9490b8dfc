// for_range: carried values live in registers set before the loop and reassigned at the end of
// each iteration from the yielded values (through temporaries when a yield permutes them).
// The bounds are scalars, uniform across the program, so the loop never diverges. The loop is
// rotated as NVVM's are: one test before it, then one conditional branch back at the bottom of
// each step. A test at the top with an unconditional branch back made ptxas put a bf16 rows_2d
// kernel's predicated load behind a branch of its own (BSSY/BRA/BSYNC) in every step.
#include <fmt/format.h>

#include <set>

#include "codegen/cuda/vector_access.h"
#include "codegen/ptx/emitter.h"

namespace tilejit::codegen::ptx {

// A carried block of 16-bit elements that each step loads with vector accesses (the next step's
// load of a pipelined loop) is carried as the loaded 32-bit words, as NVVM carries it, so each
// element becomes an f32 straight from its word (bf16 cluster kernel, BLOCK 8192, 8 warps, 2
// stages: 384 bytes less machine code, the PRMT per element gone; registers stay at 79).
bool Emitter::carried_as_words(ir::ValueId arg, ir::ValueId yielded, const Layout& l) const {
  if (type(arg).is_scalar() || reg_class(type(arg)) != RegClass::b16 || l.num_regs() % 2 != 0) return false;
  auto def = def_.find(yielded);
  if (def == def_.end() || def->second->kind != ir::OpKind::load) return false;
  const ir::Op& load = *def->second;
  return cuda::vector_width(f_, axes_, load.operands[0], load.attrs.has_mask ? load.operands[1] : ir::kNoValue, l) >= 2;
}

void Emitter::loop_op(const ir::Op& op) {
  const ir::Region& body = op.regions[0];
  const ir::Op& yield = body.ops.back();
  const std::size_t carried = op.results.size();
  std::vector<Layout> layouts(carried);
  std::vector<Regs> vars(carried);  // the carried registers (one per element for blocks, or per word)
  std::vector<bool> words(carried, false);
  std::vector<std::uint32_t> replicas(carried, 0);  // register bits that repeat another element
  auto pack_all = [&](const Regs& halves) {
    Regs out;
    for (std::size_t e = 0; e < halves.size(); e += 2) out.push_back(pack(halves[e], halves[e + 1]));
    return out;
  };
  auto unpack_all = [&](const Regs& packed) {
    Regs out;
    for (const auto& w : packed)
      for (const auto& h : unpack(w)) out.push_back(h);
    return out;
  };
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1], init = op.operands[ir::kForFixedOperands + i];
    RegClass c = reg_class(type(arg));
    if (type(arg).is_scalar()) {
      vars[i] = {move(c, scalar(init))};
      scalars_[arg] = vars[i][0];
      continue;
    }
    layouts[i] = plan_.fixed.at(arg);
    Regs from = block(init, layouts[i]);
    words[i] = carried_as_words(arg, yield.operands[i], layouts[i]);
    if (words[i]) {
      from = pack_all(from);
      c = RegClass::b32;
    }
    // Replicated registers (a reduction's result) share the original's carried register.
    if (!words[i]) replicas[i] = cuda::replica_mask(layouts[i].reg);
    for (std::size_t e = 0; e < from.size(); ++e)
      vars[i].push_back(e & replicas[i] ? vars[i][e & ~replicas[i]] : move(c, from[e]));
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
  // One step: the body, then the carried registers take the yielded values.
  auto emit_step = [&] {
    scopes_.emplace_back();
    for (std::size_t i = 0; i < carried; ++i)
      if (!type(body.args[i + 1]).is_scalar())
        remember(body.args[i + 1], layouts[i], words[i] ? unpack_all(vars[i]) : vars[i]);
    const int turn_before = reduction_turn_;
    region(body);
    if (options_.line_info) code_.set_loc(yield.loc.file, yield.loc.line);
    std::vector<Regs> next(carried);
    std::set<std::string> carried_regs;
    for (const auto& v : vars) carried_regs.insert(v.begin(), v.end());
    bool reads_carried = false;
    for (std::size_t i = 0; i < carried; ++i) {
      ir::ValueId y = yield.operands[i];
      next[i] = type(y).is_scalar() ? Regs{scalar(y)} : block(y, layouts[i]);
      if (words[i]) next[i] = pack_all(next[i]);
      for (const auto& r : next[i]) reads_carried |= carried_regs.count(r) != 0;
    }
    auto carried_class = [&](std::size_t i) { return words[i] ? RegClass::b32 : reg_class(type(body.args[i + 1])); };
    // A yielded register that is itself carried would be overwritten before it is read.
    if (reads_carried)
      for (std::size_t i = 0; i < carried; ++i)
        for (auto& r : next[i]) r = move(carried_class(i), r);
    for (std::size_t i = 0; i < carried; ++i) {
      RegClass c = carried_class(i);
      for (std::size_t e = 0; e < vars[i].size(); ++e)  // a replica's register is its original's
        if ((e & replicas[i]) == 0 && vars[i][e] != next[i][e])
          code_.ins(fmt::format("mov.{} {}, {}", mov_type(c), vars[i][e], next[i][e]));
    }
    scopes_.pop_back();
    // Reductions alternate buffers. With an odd number in the body, the next step's first one
    // would write the buffer the last one just read: a barrier separates them, and the turn skips
    // one so the code after the loop (or a zero-trip loop) alternates too.
    if ((reduction_turn_ - turn_before) % 2 != 0) {
      code_.ins(barrier());
      ++reduction_turn_;
    }
  };
  test();
  code_.ins(fmt::format("@!{} bra {}", more, exit));
  code_.place(head);
  // A pipelined loop (passes/pipeline_loads.cpp) shifts its carried loads down one place per
  // step. From three stages the body is emitted num_stages times per trip, so that ptxas can
  // rename registers instead of moving ones that wait for their loads (as the CUDA C generator
  // unrolls: codegen/cuda/loops.cpp).
  const int copies = op.attrs.num_stages > 2 ? op.attrs.num_stages : 1;
  for (int copy = 0; copy < copies; ++copy) {
    emit_step();
    code_.ins(fmt::format("add.{} {}, {}, {}", ty, index, index, step));
    test();
    if (copy + 1 < copies) code_.ins(fmt::format("@!{} bra {}", more, exit));
    else code_.ins(fmt::format("@{} bra {}", more, head));
  }
  code_.place(exit);

  for (std::size_t i = 0; i < carried; ++i) {
    if (type(op.results[i]).is_scalar()) scalars_[op.results[i]] = vars[i][0];
    else remember(op.results[i], layouts[i], words[i] ? unpack_all(vars[i]) : vars[i]);
  }
}

}  // namespace tilejit::codegen::ptx
