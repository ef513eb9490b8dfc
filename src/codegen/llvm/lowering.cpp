#include "codegen/llvm/lowering.h"

#include <fmt/format.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/llvm/pointer_params.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {

Lowering::Lowering(const ir::Function& f, const LlvmCodegenOptions& options)
    : f_(f),
      options_(options),
      plan_(make_plan(f)),
      ctx_(std::make_unique<llvm::LLVMContext>()),
      module_(std::make_unique<llvm::Module>(f.name, *ctx_)),
      b_(*ctx_) {
  if (options_.lanes < 1 || (options_.lanes & (options_.lanes - 1)) != 0)
    throw InternalError(fmt::format("llvm codegen: lanes must be a power of two, got {}", options_.lanes));
}

llvm::AllocaInst* Lowering::entry_alloca(llvm::Type* t, const char* name) {
  llvm::IRBuilder<> eb(entry_->getTerminator());
  return eb.CreateAlloca(t, nullptr, name);
}

llvm::Value* Lowering::only_if(llvm::Value* cond, const std::function<llvm::Value*()>& then, llvm::Value* otherwise) {
  llvm::BasicBlock* from = b_.GetInsertBlock();
  auto* then_bb = llvm::BasicBlock::Create(*ctx_, "only_if", fn_);
  auto* done_bb = llvm::BasicBlock::Create(*ctx_, "only_if_done", fn_);
  b_.CreateCondBr(cond, then_bb, done_bb);
  b_.SetInsertPoint(then_bb);
  llvm::Value* v = then();
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
  llvm::PHINode* phi = b_.CreatePHI(v->getType(), 2);
  phi->addIncoming(v, then_end);
  phi->addIncoming(otherwise, from);
  return phi;
}

llvm::Value* Lowering::scalar(ir::ValueId v) const {
  auto it = scalars_.find(v);
  if (it == scalars_.end()) throw InternalError(fmt::format("llvm codegen: scalar %{} used before it was computed", v));
  return it->second;
}

LlvmKernelSource Lowering::run() {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr, i32, i32, i32, i32, i32, i32}, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, options_.entry_name, module_.get());
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  fn_->addParamAttr(0, llvm::Attribute::NoAlias);
  fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
  fn_->addParamAttr(0, llvm::Attribute::NoCapture);
  fn_->addParamAttr(1, llvm::Attribute::NoAlias);
  fn_->addParamAttr(1, llvm::Attribute::NoCapture);
  fn_->addParamAttr(1, llvm::Attribute::getWithAlignment(*ctx_, llvm::Align(64)));
  llvm::Value* params = fn_->getArg(0);
  params->setName("params");
  scratch_ = fn_->getArg(1);
  scratch_->setName("scratch");
  static const char* axes = "xyz";
  for (unsigned a = 0; a < 3; ++a) {
    program_id_[a] = fn_->getArg(2 + a);
    program_id_[a]->setName(fmt::format("pid_{}", axes[a]));
    num_programs_[a] = fn_->getArg(5 + a);
    num_programs_[a]->setName(fmt::format("nprog_{}", axes[a]));
  }

  entry_ = llvm::BasicBlock::Create(*ctx_, "entry", fn_);
  auto* body = llvm::BasicBlock::Create(*ctx_, "body", fn_);
  b_.SetInsertPoint(entry_);
  b_.CreateBr(body);
  b_.SetInsertPoint(entry_->getTerminator());
  for (std::size_t i = 0; i < f_.params.size(); ++i) {
    const auto& p = f_.params[i];
    llvm::Value* slot = b_.CreateAlignedLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, params, i), llvm::Align(8));
    const ir::Type& t = type(p.value);
    llvm::Value* v = b_.CreateAlignedLoad(value_type(t), slot, llvm::Align(t.is_ptr ? 8 : dtype_size(t.elem)));
    v->setName(p.name);
    scalars_[p.value] = from_memory(t, v);
  }
  access_checks_ = b_.CreateAlignedLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, params, f_.params.size()),
                                        llvm::Align(8), "access_checks");
  pointer_params_ = pointer_params(f_);
  b_.SetInsertPoint(body);
  region(f_.body);
  b_.CreateRetVoid();

  std::string text;
  llvm::raw_string_ostream os(text);
  module_->print(os, nullptr);
  os.flush();
  std::string problems;
  llvm::raw_string_ostream es(problems);
  if (llvm::verifyModule(*module_, &es)) {
    es.flush();
    throw CompileError(fmt::format("LLVM rejected the module generated for {}", options_.entry_name), problems, text,
                       "");
  }
  return LlvmKernelSource{std::move(text), options_.entry_name, scratch_bytes_, std::move(access_sites_)};
}

void Lowering::region(const ir::Region& r) {
  for (const PlanItem& item : plan_.region_items(r)) {
    switch (item.kind) {
      case PlanItem::Kind::scalar_op: scalar_op(*item.op); break;
      case PlanItem::Kind::group: group(plan_.groups[static_cast<std::size_t>(item.group)]); break;
      case PlanItem::Kind::loop: loop(*item.op); break;
      case PlanItem::Kind::yield: yield(*item.op); break;
    }
  }
}

void Lowering::scalar_op(const ir::Op& op) {
  switch (op.kind) {
    case ir::OpKind::constant:
      scalars_[op.results[0]] = constant(op.attrs.dtype, op.attrs.int_value, op.attrs.float_value);
      return;
    case ir::OpKind::program_id:
      scalars_[op.results[0]] = program_id_.at(static_cast<std::size_t>(op.attrs.int_value));
      return;
    case ir::OpKind::num_programs:
      scalars_[op.results[0]] = num_programs_.at(static_cast<std::size_t>(op.attrs.int_value));
      return;
    case ir::OpKind::load: scalar_load(op); return;
    case ir::OpKind::store: scalar_store(op); return;
    case ir::OpKind::atomic: scalar_atomic(op); return;
    case ir::OpKind::cluster_reduce:
    case ir::OpKind::group_reduce:
      if (op.attrs.phase != ir::ExchangePhase::whole) return split_softmax_stats(op);
      if (op.attrs.reduce == ir::ReduceKind::softmax_stats) return softmax_stats(op);
      scalars_[op.results[0]] = cluster_reduce(op);
      return;
    default: break;
  }
  std::vector<llvm::Value*> args;
  for (ir::ValueId v : op.operands) args.push_back(scalar(v));
  scalars_[op.results.at(0)] = apply(op, args);
}

// The runtime meets the cluster's other programs (running on other threads) at a barrier and
// returns the reduction (runtime/cpu/cluster.h); a cluster of one needs no call. A group is run
// as a cluster on the CPU: its workspace is not needed there.
llvm::Value* Lowering::cluster_reduce(const ir::Op& op) {
  DType t = type(op.operands[0]).elem;
  llvm::Value* v = scalar(op.operands[0]);
  if (op.attrs.cluster_size == 1) return v;
  return from_compute(t, exchange(t, to_compute(t, v), op.attrs.reduce));
}

// The runtime's reduction of compute-type `v` across the running cluster (kind: sum, max or min).
llvm::Value* Lowering::exchange(DType t, llvm::Value* v, ir::ReduceKind k) {
  llvm::Type* acc = compute_type(t);
  const char* suffix = t == DType::f64 ? "f64" : t == DType::i64 ? "i64" : t == DType::i32 ? "i32" : "f32";
  auto callee = module_->getOrInsertFunction(fmt::format("tilejit_cluster_reduce_{}", suffix),
                                             llvm::FunctionType::get(acc, {acc, b_.getInt32Ty()}, false));
  static_assert(static_cast<int>(ir::ReduceKind::sum) == 0 && static_cast<int>(ir::ReduceKind::max) == 1 &&
                static_cast<int>(ir::ReduceKind::min) == 2);  // the helpers' kind codes
  return b_.CreateCall(callee, {v, b_.getInt32(static_cast<std::int32_t>(k))});
}

// A split exchange on the CPU: start meets the group at once (as a whole exchange would) and
// keeps (M, S) in one of four slots, the slot's index being the ticket; finish reads the slot.
// Every program starts and finishes in the same order, so meeting early cannot deadlock.
void Lowering::split_softmax_stats(const ir::Op& op) {
  llvm::Type* f32 = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  auto* pairs_type = llvm::ArrayType::get(f32, 8);  // four (M, S) pairs
  if (!split_exchange_pairs_) {
    split_exchange_pairs_ = entry_alloca(pairs_type, "exchange_pairs");
    split_exchange_turn_ = entry_alloca(i32, "exchange_turn");
    llvm::IRBuilder<> eb(entry_->getTerminator());
    eb.CreateStore(b_.getInt32(0), split_exchange_turn_);
  }
  auto pair_slot = [&](llvm::Value* ticket, int which) {
    llvm::Value* index = b_.CreateAdd(b_.CreateMul(ticket, b_.getInt32(2)), b_.getInt32(which));
    return b_.CreateInBoundsGEP(pairs_type, split_exchange_pairs_, {b_.getInt32(0), index});
  };
  if (op.attrs.phase == ir::ExchangePhase::start) {
    auto [row_max, row_sum] = combined_stats(op);
    llvm::Value* turn = b_.CreateLoad(i32, split_exchange_turn_);
    llvm::Value* ticket = b_.CreateAnd(turn, b_.getInt32(3));
    b_.CreateStore(row_max, pair_slot(ticket, 0));
    b_.CreateStore(row_sum, pair_slot(ticket, 1));
    b_.CreateStore(b_.CreateAdd(turn, b_.getInt32(1)), split_exchange_turn_);
    scalars_[op.results[0]] = ticket;
    return;
  }
  llvm::Value* ticket = scalar(op.operands[0]);
  scalars_[op.results[0]] = b_.CreateLoad(f32, pair_slot(ticket, 0));
  scalars_[op.results[1]] = b_.CreateLoad(f32, pair_slot(ticket, 1));
}

// (M, S) from each program's (m, s) (operands 0 and 1): on the CPU two meetings, M = max of m,
// then the sum of s * exp(m - M). A set of one gives (m, s * exp(m - m)): NaN for an all -inf
// row, as elsewhere.
std::pair<llvm::Value*, llvm::Value*> Lowering::combined_stats(const ir::Op& op) {
  llvm::Value* m = scalar(op.operands[0]);
  llvm::Value* s = scalar(op.operands[1]);
  const bool one = op.attrs.cluster_size == 1;
  llvm::Value* row_max = one ? m : exchange(DType::f32, m, ir::ReduceKind::max);
  llvm::Value* part = b_.CreateFMul(s, exp_f32(b_.CreateFSub(m, row_max), false));
  return {row_max, one ? part : exchange(DType::f32, part, ir::ReduceKind::sum)};
}

void Lowering::softmax_stats(const ir::Op& op) {
  auto [row_max, row_sum] = combined_stats(op);
  scalars_[op.results[0]] = row_max;
  scalars_[op.results[1]] = row_sum;
}

LlvmKernelSource generate_llvm(const ir::Function& f, const LlvmCodegenOptions& options) {
  if (f.stashes.empty()) return Lowering(f, options).run();
  const ir::Function synchronous = synchronous_copies(f);
  return Lowering(synchronous, options).run();
}

}  // namespace tilejit::codegen::llvm_ir
