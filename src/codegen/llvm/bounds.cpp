// Bounds checks of loads, stores and atomics: each lane's element must lie inside the memory of the
// pointer parameter it is computed from, [begin, end) as the launch passes it (a Buffer's
// bytes; everything for a raw pointer). Lanes outside are masked off, so a wrong index skips the
// access instead of crashing the process, and they are reported to the runtime, which fails the
// launch naming the access's source line. A chunk whose lanes all lie inside, as nearly all do,
// costs two compares and a branch (a gather, a compare a lane).
#include <llvm/IR/MDBuilder.h>

#include "codegen/llvm/lowering.h"
#include "codegen/llvm/pointer_params.h"

namespace tilejit::codegen::llvm_ir {

int Lowering::checked_param(const ir::Op& op) const {
  auto root = pointer_params_.find(op.operands[0]);
  return root == pointer_params_.end() ? kUnknownParam : root->second;
}

llvm::Value* Lowering::parameter_extent(int param, int end) {
  auto key = std::make_pair(param, end);
  if (auto it = extents_.find(key); it != extents_.end()) return it->second;
  // Loaded once, in the entry block: AccessChecks begins with a pointer to the extents.
  llvm::IRBuilder<> eb(entry_->getTerminator());
  llvm::Value* extents = eb.CreateAlignedLoad(eb.getPtrTy(), access_checks_, llvm::Align(8), "extents");
  llvm::Value* at =
      eb.CreateConstInBoundsGEP1_64(eb.getInt64Ty(), extents, static_cast<std::uint64_t>(2 * param + end));
  llvm::Value* v = eb.CreateAlignedLoad(eb.getInt64Ty(), at, llvm::Align(8), end ? "extent_end" : "extent_begin");
  extents_[key] = v;
  return v;
}

llvm::Value* Lowering::lane_addresses(const ir::Op& op, const Chunk& ptr) {
  llvm::Value* p = ptr.kind == Chunk::Kind::uniform ? ptr.value : to_vector(ptr, type(op.operands[0]));
  return b_.CreatePtrToInt(p, like(p, b_.getInt64Ty()));
}

llvm::Value* Lowering::lanes_inside(int param, std::int64_t bytes, llvm::Value* address) {
  const bool lanes = address->getType()->isVectorTy();
  auto splat = [&](llvm::Value* v) { return lanes ? b_.CreateVectorSplat(static_cast<unsigned>(width_), v) : v; };
  // No real address is within an element of 2^64, so address + bytes does not wrap.
  llvm::Value* past = b_.CreateAdd(address, splat(b_.getInt64(static_cast<std::uint64_t>(bytes))));
  return b_.CreateAnd(b_.CreateICmpUGE(address, splat(parameter_extent(param, 0))),
                      b_.CreateICmpULE(past, splat(parameter_extent(param, 1))));
}

llvm::Value* Lowering::all_inside(const ir::Op& op, const Chunk& ptr) {
  const int param = checked_param(op);
  if (param == kUnknownParam) return nullptr;
  const auto bytes = static_cast<std::int64_t>(dtype_size(type(op.operands[0]).elem));
  if (ptr.kind == Chunk::Kind::vector) return b_.CreateAndReduce(lanes_inside(param, bytes, lane_addresses(op, ptr)));
  // Uniform or affine: the lowest and highest lanes bound the rest.
  llvm::Value* first = b_.CreatePtrToInt(ptr.value, b_.getInt64Ty());
  if (ptr.kind == Chunk::Kind::uniform || ptr.stride == 0) return lanes_inside(param, bytes, first);
  llvm::Value* last = b_.CreateAdd(first, b_.getInt64(static_cast<std::uint64_t>(ptr.stride * (width_ - 1) * bytes)));
  return b_.CreateAnd(lanes_inside(param, bytes, first), lanes_inside(param, bytes, last));
}

std::optional<Chunk> Lowering::narrowed_mask(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& mask) {
  const int param = checked_param(op);
  if (param == kUnknownParam) return mask;
  auto [site, fresh] = access_site_ids_.try_emplace(&op, static_cast<int>(access_sites_.size()));
  const auto bytes = static_cast<std::int64_t>(dtype_size(type(op.operands[0]).elem));
  if (fresh)
    access_sites_.push_back(
        {op.kind == ir::OpKind::store, op.kind == ir::OpKind::atomic, op.loc, param, static_cast<int>(bytes)});

  const bool lanes = ptr.kind != Chunk::Kind::uniform;
  const bool vector_mask = mask && mask->kind != Chunk::Kind::uniform;
  const ir::Type mask_type = type(op.operands[0]).with_elem(DType::i1);
  auto splat = [&](llvm::Value* v) { return b_.CreateVectorSplat(static_cast<unsigned>(width_), v); };
  auto widen = [&](llvm::Value* v, bool is_vector) { return is_vector || !(lanes || vector_mask) ? v : splat(v); };
  llvm::Value* address = lane_addresses(op, ptr);
  llvm::Value* ok = lanes_inside(param, bytes, address);
  ok = widen(ok, lanes);
  llvm::Value* set = mask ? widen(vector_mask ? to_vector(*mask, mask_type) : mask->value, vector_mask) : nullptr;
  llvm::Value* bad = set ? b_.CreateAnd(b_.CreateNot(ok), set) : b_.CreateNot(ok);
  const bool by_lane = bad->getType()->isVectorTy();

  auto* report = llvm::BasicBlock::Create(*ctx_, "out_of_bounds", fn_);
  auto* next = llvm::BasicBlock::Create(*ctx_, "out_of_bounds_reported", fn_);
  b_.CreateCondBr(by_lane ? b_.CreateOrReduce(bad) : bad, report, next);
  b_.SetInsertPoint(report);
  // How many lanes are out, the first of them, and its address (a uniform pointer has one).
  llvm::Value* first = address;
  llvm::Value* count = b_.getInt32(1);
  if (by_lane) {
    llvm::Value* bits = b_.CreateBitCast(bad, b_.getIntNTy(static_cast<unsigned>(width_)));
    if (lanes) {
      llvm::Value* lane = b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getTrue());
      first = b_.CreateExtractElement(address, b_.CreateZExtOrTrunc(lane, b_.getInt32Ty()));
    }
    count = b_.CreateZExtOrTrunc(b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, bits), b_.getInt32Ty());
  }
  llvm::Type* i32 = b_.getInt32Ty();
  auto fault = module_->getOrInsertFunction(
      "tilejit_cpu_access_fault",
      llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i32, b_.getInt64Ty(), i32, i32, i32, i32}, false));
  b_.CreateCall(fault, {access_checks_, b_.getInt32(static_cast<std::uint32_t>(site->second)), first, count,
                        program_id_[0], program_id_[1], program_id_[2]});
  b_.CreateBr(next);
  b_.SetInsertPoint(next);
  llvm::Value* narrowed = set ? b_.CreateAnd(set, ok) : ok;
  return Chunk{narrowed->getType()->isVectorTy() ? Chunk::Kind::vector : Chunk::Kind::uniform, narrowed};
}

Chunk Lowering::checked_access(const ir::Op& op, Coords coords) {
  const bool is_store = op.kind == ir::OpKind::store, is_atomic = op.kind == ir::OpKind::atomic;
  // Everything both paths read is evaluated here, before the branch, so that its memoized
  // chunks dominate both.
  for (ir::ValueId v : op.operands) eval(v, coords);
  Chunk ptr = eval(op.operands[0], coords);
  const int mask_operand = is_store ? 2 : is_atomic ? ir::atomic_operands(op).mask : 1;
  std::optional<Chunk> mask;
  if (op.attrs.has_mask) mask = eval(op.operands[static_cast<std::size_t>(mask_operand)], coords);
  auto access = [&](const std::optional<Chunk>& m) {
    if (is_store) {
      store_chunk(op, ptr, m, coords);
      return Chunk{};
    }
    if (is_atomic) return atomic_chunk(op, ptr, m, coords);
    return load_chunk(op, ptr, m, coords);
  };
  llvm::Value* inside = all_inside(op, ptr);
  if (!inside) return access(mask);

  auto* fast = llvm::BasicBlock::Create(*ctx_, "inside", fn_);
  auto* slow = llvm::BasicBlock::Create(*ctx_, "partly_outside", fn_);
  auto* done = llvm::BasicBlock::Create(*ctx_, "access_done", fn_);
  b_.CreateCondBr(inside, fast, slow, llvm::MDBuilder(*ctx_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(fast);
  Chunk a = access(mask);
  llvm::BasicBlock* fast_end = b_.GetInsertBlock();
  b_.SetInsertPoint(slow);
  Chunk c = access(narrowed_mask(op, ptr, mask));
  llvm::BasicBlock* slow_end = b_.GetInsertBlock();
  if (!is_store && a.kind != c.kind) {
    // A uniform load and one made by lanes meet as lanes.
    const ir::Type& rt = type(op.results[0]);
    c = {Chunk::Kind::vector, to_vector(c, rt)};
    b_.SetInsertPoint(fast_end);
    a = {Chunk::Kind::vector, to_vector(a, rt)};
  }
  b_.SetInsertPoint(fast_end);
  b_.CreateBr(done);
  b_.SetInsertPoint(slow_end);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  if (is_store) return a;
  llvm::PHINode* phi = b_.CreatePHI(a.value->getType(), 2);
  phi->addIncoming(a.value, fast_end);
  phi->addIncoming(c.value, slow_end);
  return {a.kind, phi};
}

}  // namespace tilejit::codegen::llvm_ir
