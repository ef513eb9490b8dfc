// Atomics on the CPU: an LLVM atomicrmw or cmpxchg per element, acquire-release, in lane order;
// masked-off lanes skip theirs and give 0. f32/f64 max and min go through the integer order of
// their bits, as the GPU code does, so the two backends agree (NaN aside).
#include <fmt/format.h>

#include "codegen/llvm/lowering.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {

llvm::Value* Lowering::atomic_element(const ir::Op& op, llvm::Value* ptr, llvm::Value* value, llvm::Value* expected) {
  using Rmw = llvm::AtomicRMWInst::BinOp;
  constexpr auto order = llvm::AtomicOrdering::AcquireRelease;
  llvm::Type* t = value->getType();
  const bool fp = t->isFloatingPointTy();
  llvm::Type* bits_type = b_.getIntNTy(t->getPrimitiveSizeInBits().getFixedValue());
  auto rmw = [&](Rmw kind, llvm::Value* v) { return b_.CreateAtomicRMW(kind, ptr, v, llvm::MaybeAlign(), order); };
  auto as_bits = [&](llvm::Value* v) { return fp ? b_.CreateBitCast(v, bits_type) : v; };
  auto from_bits = [&](llvm::Value* v) { return fp ? b_.CreateBitCast(v, t) : v; };
  switch (op.attrs.atomic) {
    case ir::AtomicKind::add: return rmw(fp ? Rmw::FAdd : Rmw::Add, value);
    case ir::AtomicKind::max:
    case ir::AtomicKind::min: {
      const bool max = op.attrs.atomic == ir::AtomicKind::max;
      if (!fp) return rmw(max ? Rmw::Max : Rmw::Min, value);
      // Sign bit clear: the floats order as signed integers; set: in reverse as unsigned ones.
      llvm::Value* bits = as_bits(value);
      llvm::Value* zero = llvm::ConstantInt::get(bits_type, 0);
      llvm::Value* positive = b_.CreateICmpSGE(bits, zero);
      llvm::Value* as_signed = only_if(
          positive, [&] { return rmw(max ? Rmw::Max : Rmw::Min, bits); }, zero);
      llvm::Value* not_positive = b_.CreateNot(positive);
      llvm::Value* as_unsigned = only_if(
          not_positive, [&] { return rmw(max ? Rmw::UMin : Rmw::UMax, bits); }, zero);
      return from_bits(b_.CreateSelect(positive, as_signed, as_unsigned));
    }
    case ir::AtomicKind::bit_and: return rmw(Rmw::And, value);
    case ir::AtomicKind::bit_or: return rmw(Rmw::Or, value);
    case ir::AtomicKind::bit_xor: return rmw(Rmw::Xor, value);
    case ir::AtomicKind::xchg: return from_bits(rmw(Rmw::Xchg, as_bits(value)));
    case ir::AtomicKind::cas: {
      llvm::Value* pair = b_.CreateAtomicCmpXchg(ptr, as_bits(expected), as_bits(value), llvm::MaybeAlign(), order,
                                                 llvm::AtomicOrdering::Acquire);
      return from_bits(b_.CreateExtractValue(pair, 0));
    }
  }
  throw InternalError("llvm codegen: unknown atomic");
}

Chunk Lowering::atomic_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords) {
  const ir::AtomicOperands at = ir::atomic_operands(op);
  const ir::Type& pt = type(op.operands[0]);
  const ir::Type& vt = type(op.results[0]);
  auto lanes_of = [&](int operand) {
    const ir::ValueId v = op.operands[static_cast<std::size_t>(operand)];
    return to_vector(eval(v, coords), type(v));
  };
  llvm::Value* ptrs = to_vector(ptr, pt);
  llvm::Value* values = lanes_of(at.value);
  llvm::Value* expected = at.compare >= 0 ? lanes_of(at.compare) : nullptr;
  llvm::Value* mask = lane_mask ? to_vector(*lane_mask, pt.with_elem(DType::i1)) : nullptr;
  llvm::Type* et = elem_type(vt.elem);
  llvm::Value* old = llvm::Constant::getNullValue(llvm::FixedVectorType::get(et, static_cast<unsigned>(width_)));
  for (int lane = 0; lane < width_; ++lane) {
    auto one = [&]() -> llvm::Value* {
      return atomic_element(op, b_.CreateExtractElement(ptrs, lane), b_.CreateExtractElement(values, lane),
                            expected ? b_.CreateExtractElement(expected, lane) : nullptr);
    };
    llvm::Value* v = mask ? only_if(b_.CreateExtractElement(mask, lane), one, llvm::Constant::getNullValue(et)) : one();
    old = b_.CreateInsertElement(old, v, lane);
  }
  return {Chunk::Kind::vector, old};
}

void Lowering::scalar_atomic(const ir::Op& op) {
  const ir::AtomicOperands at = ir::atomic_operands(op);
  llvm::Value* ptr = scalar(op.operands[0]);
  std::optional<Chunk> mask =
      at.mask >= 0 ? std::optional(eval(op.operands[static_cast<std::size_t>(at.mask)], {})) : std::nullopt;
  mask = narrowed_mask(op, {Chunk::Kind::uniform, ptr}, mask);
  auto one = [&]() -> llvm::Value* {
    return atomic_element(op, ptr, scalar(op.operands[static_cast<std::size_t>(at.value)]),
                          at.compare >= 0 ? scalar(op.operands[static_cast<std::size_t>(at.compare)]) : nullptr);
  };
  scalars_[op.results[0]] =
      mask ? only_if(mask->value, one, llvm::Constant::getNullValue(elem_type(type(op.results[0]).elem))) : one();
}

}  // namespace tilejit::codegen::llvm_ir
