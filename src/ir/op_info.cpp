#include "ir/ir.h"

namespace tilejit::ir {

const char* op_name(OpKind k) {
  switch (k) {
#define TILEJIT_OP(name, category) \
  case OpKind::name:               \
    return #name;
#include "ir/ops.def"
#undef TILEJIT_OP
  }
  return "?";
}

OpCategory op_category(OpKind k) {
  switch (k) {
#define TILEJIT_OP(name, category) \
  case OpKind::name:               \
    return OpCategory::category;
#include "ir/ops.def"
#undef TILEJIT_OP
  }
  return OpCategory::Special;
}

bool has_side_effects(OpKind k) {
  return k == OpKind::store || k == OpKind::atomic || k == OpKind::stash_put || k == OpKind::stash_copy ||
         k == OpKind::copies_wait || k == OpKind::for_range || k == OpKind::yield;
}

std::int64_t Stash::bytes() const { return block.numel() * static_cast<std::int64_t>(dtype_size(block.elem)) * slots; }

const char* atomic_name(AtomicKind k) {
  switch (k) {
    case AtomicKind::add: return "add";
    case AtomicKind::max: return "max";
    case AtomicKind::min: return "min";
    case AtomicKind::bit_and: return "and";
    case AtomicKind::bit_or: return "or";
    case AtomicKind::bit_xor: return "xor";
    case AtomicKind::xchg: return "xchg";
    case AtomicKind::cas: return "cas";
  }
  return "?";
}

AtomicOperands atomic_operands(const Op& op) {
  if (op.attrs.atomic == AtomicKind::cas) return {2, 1, -1};
  return {1, -1, op.attrs.has_mask ? 2 : -1};
}

const char* reduce_name(ReduceKind k) {
  switch (k) {
    case ReduceKind::sum: return "sum";
    case ReduceKind::max: return "max";
    case ReduceKind::min: return "min";
    case ReduceKind::softmax_stats: return "softmax_stats";
  }
  return "?";
}

const char* phase_name(ExchangePhase p) {
  switch (p) {
    case ExchangePhase::whole: return "whole";
    case ExchangePhase::start: return "start";
    case ExchangePhase::finish: return "finish";
  }
  return "?";
}

}  // namespace tilejit::ir
