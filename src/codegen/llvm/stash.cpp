// Stashes (tl::stash) on the CPU: each stash is an array in the program's scratch memory, its
// slots one after another, each block in element order. A slot outside [0, slots) is not
// written and reads as zeros (its address is clamped to slot 0 so nothing reads out of bounds).
// There are no asynchronous copies: each stash_copy becomes a masked load (zeros where the mask
// is off) and a stash_put, and copies_wait has nothing to wait for.
#include "codegen/llvm/lowering.h"

namespace tilejit::codegen::llvm_ir {
namespace {

void copies_to_puts(ir::Function& f, ir::Region& r) {
  std::vector<ir::Op> ops;
  for (ir::Op& op : r.ops) {
    for (ir::Region& nested : op.regions) copies_to_puts(f, nested);
    if (op.kind == ir::OpKind::copies_wait) continue;
    if (op.kind != ir::OpKind::stash_copy) {
      ops.push_back(std::move(op));
      continue;
    }
    const ir::Type block = f.stashes.at(static_cast<std::size_t>(op.attrs.int_value)).block;
    const ir::ValueId zero = f.new_value(ir::Type::scalar(block.elem)), zeros = f.new_value(block),
                      loaded = f.new_value(block);
    ir::Op constant{ir::OpKind::constant, {}, {zero}, {}, {}, op.loc};
    constant.attrs.dtype = block.elem;
    ir::Op splat{ir::OpKind::splat, {zero}, {zeros}, {}, {}, op.loc};
    ir::Op load{ir::OpKind::load, {op.operands[1], op.operands[2], zeros}, {loaded}, {}, {}, op.loc};
    load.attrs.has_mask = load.attrs.has_other = true;
    ir::Op put{ir::OpKind::stash_put, {op.operands[0], loaded}, {}, {}, {}, op.loc};
    put.attrs.int_value = op.attrs.int_value;
    for (ir::Op* o : {&constant, &splat, &load, &put}) ops.push_back(std::move(*o));
  }
  r.ops = std::move(ops);
}

}  // namespace

ir::Function synchronous_copies(const ir::Function& f) {
  ir::Function g = f;
  copies_to_puts(g, g.body);
  return g;
}

llvm::Value* Lowering::stash_base(std::size_t id) {
  auto it = stashes_.find(id);
  if (it != stashes_.end()) return it->second;
  const ir::Stash& s = f_.stashes.at(id);
  const ir::Type whole = s.block.with_shape({s.block.numel() * s.slots});
  return stashes_[id] = new_array(whole);
}

// The address of the chunk at `coords` in slot `op.operands[0]` (clamped into range), and
// whether the slot is in range.
std::pair<llvm::Value*, llvm::Value*> Lowering::stash_address(const ir::Op& op, Coords coords) {
  const auto id = static_cast<std::size_t>(op.attrs.int_value);
  const ir::Stash& s = f_.stashes.at(id);
  llvm::Value* slot = b_.CreateSExt(scalar(op.operands[0]), b_.getInt64Ty());
  llvm::Value* in_range = b_.CreateICmpULT(slot, b_.getInt64(static_cast<std::uint64_t>(s.slots)));
  slot = b_.CreateSelect(in_range, slot, b_.getInt64(0));
  llvm::Value* index = b_.CreateAdd(b_.CreateMul(slot, b_.getInt64(static_cast<std::uint64_t>(s.block.numel()))),
                                    linear_index(s.block.shape, coords));
  return {b_.CreateInBoundsGEP(array_type(s.block), stash_base(id), index), in_range};
}

void Lowering::stash_put_chunk(const ir::Op& op, Coords coords) {
  const ir::Type& t = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value)).block;
  auto [at, in_range] = stash_address(op, coords);
  const bool lanes = coords[static_cast<std::size_t>(t.rank() - 1)] == Coord::col;
  Chunk c = eval(op.operands[1], coords);
  llvm::Value* value = to_memory(t, lanes ? to_vector(c, t) : c.value);
  auto* store_bb = llvm::BasicBlock::Create(*ctx_, "stash_put", fn_);
  auto* done_bb = llvm::BasicBlock::Create(*ctx_, "stash_put_done", fn_);
  b_.CreateCondBr(in_range, store_bb, done_bb);
  b_.SetInsertPoint(store_bb);
  b_.CreateAlignedStore(value, at, llvm::Align(memory_bytes(t)));
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
}

Chunk Lowering::stash_get_chunk(const ir::Op& op, Coords coords) {
  const ir::Type& t = f_.stashes.at(static_cast<std::size_t>(op.attrs.int_value)).block;
  auto [at, in_range] = stash_address(op, coords);
  const bool lanes = coords[static_cast<std::size_t>(t.rank() - 1)] == Coord::col;
  llvm::Type* et = array_type(t);
  llvm::Type* loaded_type =
      lanes ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(et, static_cast<unsigned>(width_))) : et;
  llvm::Value* v = from_memory(t, b_.CreateAlignedLoad(loaded_type, at, llvm::Align(memory_bytes(t))));
  v = b_.CreateSelect(in_range, v, llvm::Constant::getNullValue(v->getType()));
  return {lanes ? Chunk::Kind::vector : Chunk::Kind::uniform, v};
}

}  // namespace tilejit::codegen::llvm_ir
