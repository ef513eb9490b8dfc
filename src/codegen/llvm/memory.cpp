// Loads and stores. A chunk of pointers that is affine with stride 1 is one contiguous (masked)
// vector access; a uniform pointer is one scalar access, made only when some lane's mask is
// set; anything else is a masked gather or scatter. Masked-off lanes never touch memory, and
// neither do lanes outside the pointer parameter's memory (bounds.cpp).
#include "codegen/llvm/lowering.h"

namespace tilejit::codegen::llvm_ir {
namespace {

bool contiguous(const Chunk& c) { return c.kind == Chunk::Kind::affine && c.stride == 1; }
bool uniform(const Chunk& c) {
  return c.kind == Chunk::Kind::uniform || (c.kind == Chunk::Kind::affine && c.stride == 0);
}

}  // namespace

Chunk Lowering::load_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords) {
  const ir::Type& rt = type(op.results[0]);
  const ir::Type& pt = type(op.operands[0]);
  bool masked = lane_mask.has_value();
  Chunk mask = lane_mask.value_or(Chunk{});
  const ir::Type mask_type = pt.with_elem(DType::i1);
  llvm::Type* et = array_type(rt);
  llvm::Align align(memory_bytes(rt));
  auto other_scalar = [&]() -> llvm::Value* {
    return op.attrs.has_other ? eval(op.operands[2], coords).value : llvm::Constant::getNullValue(value_type(rt));
  };
  auto other_vector = [&]() -> llvm::Value* {
    if (op.attrs.has_other) return to_vector(eval(op.operands[2], coords), rt);
    return llvm::Constant::getNullValue(llvm::FixedVectorType::get(value_type(rt), static_cast<unsigned>(width_)));
  };
  auto* vt = llvm::FixedVectorType::get(et, static_cast<unsigned>(width_));

  if (uniform(ptr)) {
    if (!masked) return {Chunk::Kind::uniform, from_memory(rt, b_.CreateAlignedLoad(et, ptr.value, align))};
    bool lanes = mask.kind != Chunk::Kind::uniform;
    // Lanes take `other` below, by lane; a uniform mask takes it here.
    llvm::Value* otherwise = lanes ? llvm::Constant::getNullValue(value_type(rt)) : other_scalar();
    llvm::Value* any = lanes ? b_.CreateOrReduce(mask.value) : mask.value;
    llvm::Value* phi = only_if(
        any, [&] { return from_memory(rt, b_.CreateAlignedLoad(et, ptr.value, align)); }, otherwise);
    if (!lanes) return {Chunk::Kind::uniform, phi};
    llvm::Value* splat = b_.CreateVectorSplat(static_cast<unsigned>(width_), phi);
    return {Chunk::Kind::vector, b_.CreateSelect(mask.value, splat, other_vector())};
  }
  llvm::Value* mask_vec = masked ? to_vector(mask, mask_type) : nullptr;
  if (contiguous(ptr)) {
    if (!masked) return {Chunk::Kind::vector, from_memory(rt, b_.CreateAlignedLoad(vt, ptr.value, align))};
    llvm::Value* v = b_.CreateMaskedLoad(vt, ptr.value, align, mask_vec, to_memory(rt, other_vector()));
    return {Chunk::Kind::vector, from_memory(rt, v)};
  }
  llvm::Value* ptrs = to_vector(ptr, pt);
  if (!mask_vec) mask_vec = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), width_));
  llvm::Value* v = b_.CreateMaskedGather(vt, ptrs, align, mask_vec, to_memory(rt, other_vector()));
  return {Chunk::Kind::vector, from_memory(rt, v)};
}

void Lowering::store_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords) {
  const ir::Type& vt_ir = type(op.operands[1]);
  llvm::Value* value = to_memory(vt_ir, to_vector(eval(op.operands[1], coords), vt_ir));
  llvm::Value* mask = lane_mask ? to_vector(*lane_mask, type(op.operands[0]).with_elem(DType::i1)) : nullptr;
  llvm::Align align(memory_bytes(vt_ir));
  if (contiguous(ptr)) {
    if (mask) b_.CreateMaskedStore(value, ptr.value, align, mask);
    else b_.CreateAlignedStore(value, ptr.value, align);
    return;
  }
  // Lanes that share an address are written in lane order (the last one wins).
  if (!mask) mask = llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b_.getInt1Ty(), width_));
  b_.CreateMaskedScatter(value, to_vector(ptr, type(op.operands[0])), align, mask);
}

void Lowering::scalar_load(const ir::Op& op) {
  const ir::Type& rt = type(op.results[0]);
  llvm::Type* et = array_type(rt);
  llvm::Align align(memory_bytes(rt));
  llvm::Value* ptr = scalar(op.operands[0]);
  std::optional<Chunk> mask = op.attrs.has_mask ? std::optional(eval(op.operands[1], {})) : std::nullopt;
  mask = narrowed_mask(op, {Chunk::Kind::uniform, ptr}, mask);
  if (!mask) {
    scalars_[op.results[0]] = from_memory(rt, b_.CreateAlignedLoad(et, ptr, align));
    return;
  }
  llvm::Value* other = op.attrs.has_other ? scalar(op.operands[2]) : llvm::Constant::getNullValue(value_type(rt));
  scalars_[op.results[0]] = only_if(
      mask->value, [&] { return from_memory(rt, b_.CreateAlignedLoad(et, ptr, align)); }, other);
}

void Lowering::scalar_store(const ir::Op& op) {
  const ir::Type& vt = type(op.operands[1]);
  llvm::Value* ptr = scalar(op.operands[0]);
  llvm::Value* value = to_memory(vt, scalar(op.operands[1]));
  llvm::Align align(memory_bytes(vt));
  std::optional<Chunk> mask = op.attrs.has_mask ? std::optional(eval(op.operands[2], {})) : std::nullopt;
  mask = narrowed_mask(op, {Chunk::Kind::uniform, ptr}, mask);
  if (!mask) {
    b_.CreateAlignedStore(value, ptr, align);
    return;
  }
  auto* store_bb = llvm::BasicBlock::Create(*ctx_, "masked_store", fn_);
  auto* done_bb = llvm::BasicBlock::Create(*ctx_, "masked_store_done", fn_);
  b_.CreateCondBr(mask->value, store_bb, done_bb);
  b_.SetInsertPoint(store_bb);
  b_.CreateAlignedStore(value, ptr, align);
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
}

}  // namespace tilejit::codegen::llvm_ir
