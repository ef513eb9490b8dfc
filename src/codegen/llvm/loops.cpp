// for_range: scalar carried values live in stack slots (promoted to registers by LLVM), block
// carried values in scratch arrays that the loop results then name. A yield first computes every
// value that reads the carried arrays into temporaries, then copies, so permutations are safe.
#include "codegen/llvm/lowering.h"

namespace tilejit::codegen::llvm_ir {

void Lowering::loop(const ir::Op& op) {
  const ir::Region& body = op.regions.at(0);
  std::size_t carried = op.results.size();
  LoopState state{&op, std::vector<llvm::AllocaInst*>(carried, nullptr), std::vector<llvm::Value*>(carried, nullptr)};
  for (std::size_t i = 0; i < carried; ++i) {
    ir::ValueId arg = body.args[i + 1], init = op.operands[ir::kForFixedOperands + i];
    if (type(arg).is_scalar()) {
      state.scalar_slots[i] = entry_alloca(value_type(type(arg)), "carried");
      b_.CreateStore(scalar(init), state.scalar_slots[i]);
    } else {
      state.block_slots[i] = new_array(type(arg));
      materialize(init, state.block_slots[i]);
      arrays_[arg] = state.block_slots[i];
      arrays_[op.results[i]] = state.block_slots[i];
    }
  }
  ir::ValueId iv = body.args[0];
  llvm::AllocaInst* iv_slot = entry_alloca(value_type(type(iv)), "iv");
  b_.CreateStore(scalar(op.operands[0]), iv_slot);
  llvm::Value* end = scalar(op.operands[1]);
  llvm::Value* step = scalar(op.operands[2]);

  auto* head = llvm::BasicBlock::Create(*ctx_, "for_head", fn_);
  auto* loop_body = llvm::BasicBlock::Create(*ctx_, "for_body", fn_);
  auto* exit = llvm::BasicBlock::Create(*ctx_, "for_exit", fn_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::Value* i = b_.CreateLoad(value_type(type(iv)), iv_slot);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), loop_body, exit);
  b_.SetInsertPoint(loop_body);
  scalars_[iv] = i;
  for (std::size_t k = 0; k < carried; ++k)
    if (state.scalar_slots[k])
      scalars_[body.args[k + 1]] = b_.CreateLoad(value_type(type(body.args[k + 1])), state.scalar_slots[k]);
  loops_.push_back(state);
  region(body);
  loops_.pop_back();
  b_.CreateStore(b_.CreateAdd(i, step), iv_slot);
  b_.CreateBr(head);
  b_.SetInsertPoint(exit);
  for (std::size_t k = 0; k < carried; ++k)
    if (state.scalar_slots[k])
      scalars_[op.results[k]] = b_.CreateLoad(value_type(type(op.results[k])), state.scalar_slots[k]);
}

void Lowering::yield(const ir::Op& op) {
  const LoopState& state = loops_.back();
  const ir::Region& body = state.op->regions.at(0);
  std::size_t carried = op.operands.size();
  auto is_slot = [&](llvm::Value* a) {
    return std::find(state.block_slots.begin(), state.block_slots.end(), a) != state.block_slots.end();
  };
  // Blocks: sources that stay put during the copies, computing temporaries where needed.
  std::vector<ir::ValueId> sources(carried, ir::kNoValue);
  std::vector<llvm::Value*> temps(carried, nullptr);
  for (std::size_t k = 0; k < carried; ++k) {
    ir::ValueId y = op.operands[k], arg = body.args[k + 1];
    if (!state.block_slots[k] || y == arg) continue;
    auto it = arrays_.find(y);
    if (it != arrays_.end() && !is_slot(it->second)) {
      sources[k] = y;
    } else {
      temps[k] = new_array(type(y));
      materialize(y, temps[k]);
    }
  }
  std::vector<llvm::Value*> scalars(carried, nullptr);
  for (std::size_t k = 0; k < carried; ++k)
    if (state.scalar_slots[k]) scalars[k] = scalar(op.operands[k]);
  for (std::size_t k = 0; k < carried; ++k) {
    if (state.scalar_slots[k]) {
      b_.CreateStore(scalars[k], state.scalar_slots[k]);
    } else if (sources[k] != ir::kNoValue) {
      materialize(sources[k], state.block_slots[k]);
    } else if (temps[k]) {
      // Copy the temporary: read it through a stand-in value of the same type.
      ir::ValueId y = op.operands[k];
      llvm::Value* saved = arrays_.count(y) ? arrays_[y] : nullptr;
      arrays_[y] = temps[k];
      materialize(y, state.block_slots[k]);
      if (saved) arrays_[y] = saved;
      else arrays_.erase(y);
    }
  }
}

}  // namespace tilejit::codegen::llvm_ir
