// Reductions across a group of programs through global memory (tl::group_*), in the protocol of
// the CUDA C generator (codegen/cuda/group.cpp says why it is safe and needs no memset between
// launches), with the accesses NVVM makes of that code:
//   - thread 0 writes the block's value into slot <rank> of the set (st.relaxed.gpu) and arrives
//     at the set's barrier word (atom.release.gpu.add: rank 0 adds 2^31 - (G - 1), the others 1);
//   - warp 0 spins (ld.acquire.gpu) until the word's top bit differs from what that arrival
//     returned. Every lane of the warp polls (the same word: one request a poll) and acquires for
//     itself, and the lanes leave together at a vote, where NVVM's build has thread 0 alone spin
//     behind a branch and the warp meet it at bar.warp.sync: so built, the walked group kernel of
//     16 x 4M f32 (groups of 132, 8 warps, two stages) spilled 16 bytes;
//   - warp 0 then loads every slot (ld.relaxed.gpu; lane l takes slots l, l + 32, ..., up to 16 a
//     lane at once), folds them in slot order, then a butterfly of shuffles, so every program
//     combines the same values in the same order: the same bits;
//   - thread 0 leaves the result in shared memory (tj_group_result) for the block.
// Exchange n of a program uses barrier and slot set n mod 4 (tj_group_turn counts them at run
// time). A split exchange (start / finish) keeps the barrier word thread 0 saw in tj_group_seen.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/math.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"

namespace tilejit::codegen::ptx {
namespace {

// Warp 0 loads at most this many slots a lane at once: one round trip to L2 (as the CUDA C
// generator does; unrolled further, the loads of every chunk would be live at once).
constexpr int kSlotsPerLaneChunk = 16;

// The value that leaves the other operand of a combine unchanged, as a PTX immediate of `t`.
std::string identity(ir::ReduceKind k, DType t) {
  const bool max = k == ir::ReduceKind::max, sum = k == ir::ReduceKind::sum;
  switch (t) {
    case DType::f32: return sum ? "0f00000000" : max ? "0fFF800000" : "0f7F800000";
    case DType::f64: return sum ? "0d0000000000000000" : max ? "0dFFF0000000000000" : "0d7FF0000000000000";
    case DType::i32: return sum ? "0" : max ? "0x80000000" : "0x7FFFFFFF";
    case DType::i64: return sum ? "0" : max ? "0x8000000000000000" : "0x7FFFFFFFFFFFFFFF";
    default: break;
  }
  throw Unsupported(fmt::format("PTX generation: a group reduction of {}", dtype_name(t)));
}

}  // namespace

std::string Emitter::group_declarations() const {
  if (!group_workspace_) return "";
  return ".shared .align 8 .b8 tj_group_result[8];\n.shared .align 4 .b32 tj_group_seen[4];\n\n";
}

void Emitter::group_prologue() {
  if (!group_workspace_) return;
  if (packed()) throw InternalError("PTX generation: programs sharing a block with group reductions");
  Code::Prologue in_prologue(code_);
  group_turn_ = code_.imm(RegClass::b32, "0");
}

// The block's place in its group and the group's index, the writing thread and warp 0: computed
// again at each exchange from %ctaid.x and %tid.x rather than kept from the prologue (registers
// live through the whole kernel made ptxas spill in the op's walked kernels, whose NVRTC builds
// fit).
std::string Emitter::group_coordinate(const char* op) {
  const std::string block = code_.imm(RegClass::b32, "%ctaid.x"), r = code_.reg(RegClass::b32);
  code_.ins(fmt::format("{}.u32 {}, {}, {}", op, r, block, group_size_));
  return r;
}

std::string Emitter::thread_predicate(const char* compare, int value) {
  const std::string tid = code_.imm(RegClass::b32, "%tid.x"), p = code_.reg(RegClass::pred);
  code_.ins(fmt::format("setp.{}.u32 {}, {}, {}", compare, p, tid, value));
  return p;
}

Emitter::GroupSet Emitter::group_set(ir::ValueId workspace, const std::string& set) {
  const std::string offset = code_.reg(RegClass::b64), group = code_.reg(RegClass::b64);
  code_.ins(
      fmt::format("mul.wide.u32 {}, {}, {}", offset, group_coordinate("div"), group_workspace_stride(group_size_)));
  code_.ins(fmt::format("add.s64 {}, {}, {}", group, scalar(workspace), offset));
  GroupSet s{code_.reg(RegClass::b64), code_.reg(RegClass::b64)};
  code_.ins(fmt::format("mad.wide.u32 {}, {}, 128, {}", s.barrier, set, group));
  const std::string slots = code_.reg(RegClass::b64);
  code_.ins(fmt::format("mad.wide.u32 {}, {}, {}, {}", slots, set, 8 * group_size_, group));
  code_.ins(fmt::format("add.s64 {}, {}, 512", s.slots, slots));
  return s;
}

std::string Emitter::group_publish(const GroupSet& s, const std::string& value, const std::string& type) {
  const std::string rank = group_coordinate("rem"), first = code_.reg(RegClass::pred);
  const std::string slot = code_.reg(RegClass::b64), arrival = code_.reg(RegClass::b32);
  const std::string before = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mad.wide.u32 {}, {}, 8, {}", slot, rank, s.slots));
  code_.ins(fmt::format("st.relaxed.gpu.global.{} [{}], {}", type, slot, value));
  // Rank 0 adds 2^31 - (G - 1), the others 1: the round's arrivals add 2^31.
  code_.ins(fmt::format("setp.eq.u32 {}, {}, 0", first, rank));
  code_.ins(
      fmt::format("selp.b32 {}, {}, 1, {}", arrival, 0x80000000u - static_cast<unsigned>(group_size_ - 1), first));
  code_.ins(fmt::format("atom.release.gpu.global.add.u32 {}, [{}], {}", before, s.barrier, arrival));
  return before;
}

void Emitter::group_wait(const GroupSet& s, const std::string& before) {
  const std::string spin = code_.label(), now = code_.reg(RegClass::b32), flipped = code_.reg(RegClass::b32);
  const std::string arrived = code_.reg(RegClass::pred), all_arrived = code_.reg(RegClass::pred);
  code_.place(spin);
  code_.ins(fmt::format("ld.acquire.gpu.global.u32 {}, [{}]", now, s.barrier));
  code_.ins(fmt::format("xor.b32 {}, {}, {}", flipped, now, before));
  code_.ins(fmt::format("setp.lt.s32 {}, {}, 0", arrived, flipped));  // the top bit has flipped
  code_.ins(fmt::format("vote.sync.all.pred {}, {}, -1", all_arrived, arrived));
  code_.ins(fmt::format("@!{} bra.uni {}", all_arrived, spin));  // the same in every lane
}

std::string Emitter::from_writer(const std::string& value) {
  const std::string all = code_.reg(RegClass::b32);
  code_.ins(fmt::format("shfl.sync.idx.b32 {}, {}, 0, 31, -1", all, value));
  return all;
}

void Emitter::group_slot_chunks(const GroupSet& s, const std::vector<RegClass>& classes,
                                const std::vector<std::string>& identities, const SlotChunkBody& body) {
  const int g = group_size_, per_lane = (g + 31) / 32, chunk = std::min(per_lane, kSlotsPerLaneChunk);
  const std::string type = classes.size() == 1 ? mov_type(classes[0]) : fmt::format("v2.{}", mov_type(classes[0]));
  const std::string lane_slots = code_.reg(RegClass::b64);  // this lane's first slot
  code_.ins(fmt::format("mad.wide.u32 {}, {}, 8, {}", lane_slots, lane(), s.slots));
  // Loads chunk slots from `base` (the lane's slot of the chunk's first row of 32); `first` is the
  // row of 32 it starts at, known here (>= 0) or in register `first_reg`.
  auto load = [&](const std::string& base, int first, const std::string& first_reg) {
    std::vector<Regs> values;
    std::vector<std::string> valid;
    std::string lane_index;  // lane + 32 * first_reg
    if (!first_reg.empty()) {
      lane_index = code_.reg(RegClass::b32);
      code_.ins(fmt::format("mad.lo.u32 {}, {}, 32, {}", lane_index, first_reg, lane()));
    }
    for (int k = 0; k < chunk; ++k) {
      std::string p;  // empty: the slot is in the group for every lane
      if (first_reg.empty() && 32 * (first + k + 1) > g) {
        p = code_.reg(RegClass::pred);
        code_.ins(fmt::format("setp.lt.u32 {}, {}, {}", p, lane(), g - 32 * (first + k)));
      } else if (!first_reg.empty()) {
        p = code_.reg(RegClass::pred);
        code_.ins(fmt::format("setp.lt.s32 {}, {}, {}", p, lane_index, g - 32 * k));
      }
      Regs v;  // the identities where the load may not happen
      for (std::size_t i = 0; i < classes.size(); ++i)
        v.push_back(p.empty() ? code_.reg(classes[i]) : code_.imm(classes[i], identities[i]));
      code_.ins(fmt::format("{}ld.relaxed.gpu.global.{} {}, [{}+{}]", p.empty() ? "" : "@" + p + " ", type,
                            vector_operand(v), base, 32 * 8 * k));
      values.push_back(v);
      valid.push_back(p);
    }
    body(values, valid);
  };
  if (per_lane <= chunk) return load(lane_slots, 0, "");
  // More than 16 slots a lane: a loop over chunks, one chunk's loads in flight at a time.
  const std::string c = code_.imm(RegClass::b32, "0"), top = code_.label(), more = code_.reg(RegClass::pred);
  code_.place(top);
  const std::string base = code_.reg(RegClass::b64);
  code_.ins(fmt::format("mad.wide.u32 {}, {}, {}, {}", base, c, 32 * 8, lane_slots));
  load(base, 0, c);
  code_.ins(fmt::format("add.u32 {}, {}, {}", c, c, chunk));
  code_.ins(fmt::format("setp.lt.u32 {}, {}, {}", more, c, per_lane));
  code_.ins(fmt::format("@{} bra {}", more, top));
}

void Emitter::group_reduce_op(const ir::Op& op) {
  // A split exchange goes through the workspace even in a group of one.
  if (op.attrs.phase == ir::ExchangePhase::whole && exchange_of_one(op, group_size_)) return;
  if (op.attrs.reduce == ir::ReduceKind::softmax_stats) return group_softmax_stats_op(op);
  ir::ValueId src = op.operands[0], res = op.results[0];
  const DType t = type(src).elem;
  const DType acc_t = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  const RegClass acc_c = reg_class(acc_t);
  const std::string none = identity(op.attrs.reduce, acc_t);
  const ir::OpKind combine = reduce_combine_op(op.attrs.reduce);
  const std::string mine = to_compute(t, scalar(src));
  const GroupSet s = group_set(op.operands[1], group_turn_set());
  code_.ins("bar.sync 0");  // this block is done with the last result
  const std::string skip = code_.label();
  code_.ins(fmt::format("@!{} bra {}", thread_predicate("eq", 0), skip));
  const std::string before = group_publish(s, mine, mov_type(acc_c));
  code_.place(skip);
  code_.ins(fmt::format("add.u32 {}, {}, 1", group_turn_, group_turn_));
  const std::string done = code_.label();
  code_.ins(fmt::format("@!{} bra.uni {}", thread_predicate("lt", 32), done));  // uniform in each warp
  group_wait(s, from_writer(before));
  const std::string part = code_.imm(acc_c, none);  // updated in place: chunks may be a loop's steps
  group_slot_chunks(s, {acc_c}, {none}, [&](const std::vector<Regs>& values, const std::vector<std::string>&) {
    std::string folded = part;
    for (const Regs& v : values) folded = binary(combine, acc_t, folded, v[0]);
    code_.ins(fmt::format("mov.{} {}, {}", mov_type(acc_c), part, folded));
  });
  const std::string result_part = warp_butterfly(combine, acc_t, part);
  code_.ins(
      fmt::format("@{} st.shared.{} [tj_group_result], {}", thread_predicate("eq", 0), mov_type(acc_c), result_part));
  code_.place(done);
  code_.ins("bar.sync 0");
  const std::string result = code_.reg(acc_c);
  code_.ins(fmt::format("ld.shared.{} {}, [tj_group_result]", mov_type(acc_c), result));
  scalars_[res] = from_compute(t, result);
}

// softmax_stats: each slot holds a program's (max, sum); the result is (M, S), M the max of the
// maxes and S the sum of sum * exp(max - M) (the accurate exp), in slot order. Whole, or split
// into start (publish and arrive; the result is the set, the ticket) and finish (wait, combine).
void Emitter::group_softmax_stats_op(const ir::Op& op) {
  const ir::ExchangePhase phase = op.attrs.phase;
  std::string set;
  if (phase == ir::ExchangePhase::finish) {
    set = scalar(op.operands[0]);
  } else {
    set = group_turn_set();
    if (phase == ir::ExchangePhase::start) scalars_[op.results[0]] = set;  // the ticket
  }
  const GroupSet s = group_set(op.operands[phase == ir::ExchangePhase::finish ? 1 : 2], set);
  if (phase != ir::ExchangePhase::start) code_.ins("bar.sync 0");  // this block is done with the last result
  std::string before;                                              // thread 0's: the barrier word before its arrival
  if (phase != ir::ExchangePhase::finish) {
    const std::string skip = code_.label();
    code_.ins(fmt::format("@!{} bra {}", thread_predicate("eq", 0), skip));
    before = group_publish(s, fmt::format("{{{}, {}}}", scalar(op.operands[0]), scalar(op.operands[1])), "v2.f32");
    if (phase == ir::ExchangePhase::start) {
      const std::string seen = code_.reg(RegClass::b32);
      code_.ins(fmt::format("mad.lo.u32 {}, {}, 4, {}", seen, set, code_.imm(RegClass::b32, "tj_group_seen")));
      code_.ins(fmt::format("st.shared.u32 [{}], {}", seen, before));
    }
    code_.place(skip);
    code_.ins(fmt::format("add.u32 {}, {}, 1", group_turn_, group_turn_));
  }
  if (phase == ir::ExchangePhase::start) return;

  const std::string done = code_.label();
  code_.ins(fmt::format("@!{} bra.uni {}", thread_predicate("lt", 32), done));  // uniform in each warp
  if (phase == ir::ExchangePhase::finish) {  // every lane reads the word thread 0 kept
    const std::string seen = code_.reg(RegClass::b32);
    before = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mad.lo.u32 {}, {}, 4, {}", seen, set, code_.imm(RegClass::b32, "tj_group_seen")));
    code_.ins(fmt::format("ld.shared.u32 {}, [{}]", before, seen));
  } else {
    before = from_writer(before);
  }
  group_wait(s, before);
  const std::vector<RegClass> pair_classes{RegClass::f32, RegClass::f32};
  const std::vector<std::string> no_pair{identity(ir::ReduceKind::max, DType::f32), "0f00000000"};
  const int per_lane = (group_size_ + 31) / 32;
  std::vector<Regs> kept;  // up to 16 slots a lane are loaded once, for both passes
  std::vector<std::string> kept_valid;
  // The partial max and sum are updated in place: chunks may be a loop's steps.
  const std::string part_max = code_.imm(RegClass::f32, no_pair[0]);
  auto fold_max = [&](const std::vector<Regs>& values, const std::vector<std::string>& valid) {
    std::string folded = part_max;
    for (const Regs& v : values) folded = binary(ir::OpKind::maximum, DType::f32, folded, v[0]);
    code_.ins(fmt::format("mov.f32 {}, {}", part_max, folded));
    if (per_lane <= kSlotsPerLaneChunk) kept = values, kept_valid = valid;
  };
  group_slot_chunks(s, pair_classes, no_pair, fold_max);
  const std::string row_max = warp_butterfly(ir::OpKind::maximum, DType::f32, part_max);
  const std::string part_sum = code_.imm(RegClass::f32, "0f00000000");
  auto fold_sum = [&](const std::vector<Regs>& values, const std::vector<std::string>& valid) {
    std::string folded = part_sum;
    for (std::size_t k = 0; k < values.size(); ++k) {
      std::string term = binary(ir::OpKind::mul, DType::f32, values[k][1],
                                exp_f32(code_, binary(ir::OpKind::sub, DType::f32, values[k][0], row_max)));
      if (!valid[k].empty()) {  // past the group: nothing (an all -inf group would make it NaN)
        const std::string kept_term = code_.reg(RegClass::f32);
        code_.ins(fmt::format("selp.f32 {}, {}, 0f00000000, {}", kept_term, term, valid[k]));
        term = kept_term;
      }
      folded = binary(ir::OpKind::add, DType::f32, folded, term);
    }
    code_.ins(fmt::format("mov.f32 {}, {}", part_sum, folded));
  };
  if (per_lane <= kSlotsPerLaneChunk) fold_sum(kept, kept_valid);
  else group_slot_chunks(s, pair_classes, no_pair, fold_sum);
  const std::string row_sum = warp_butterfly(ir::OpKind::add, DType::f32, part_sum);
  code_.ins(
      fmt::format("@{} st.shared.v2.f32 [tj_group_result], {{{}, {}}}", thread_predicate("eq", 0), row_max, row_sum));
  code_.place(done);
  code_.ins("bar.sync 0");
  const std::string m = code_.reg(RegClass::f32), sum = code_.reg(RegClass::f32);
  code_.ins(fmt::format("ld.shared.v2.f32 {{{}, {}}}, [tj_group_result]", m, sum));
  scalars_[op.results[0]] = m;
  scalars_[op.results[1]] = sum;
}

std::string Emitter::group_turn_set() {
  const std::string set = code_.reg(RegClass::b32);
  code_.ins(fmt::format("and.b32 {}, {}, 3", set, group_turn_));
  return set;
}

}  // namespace tilejit::codegen::ptx
