// A group's loop nest: rows (rank 2), then chunks of `width` columns. Members are computed in
// program order for each chunk; reductions accumulate lane-wise and fold their lanes with a
// fixed tree at the end of a row (axis = last) or of the nest (rank 1); reductions over rows
// (axis 0 of a rank-2 block) accumulate into an array of columns.
#include <fmt/format.h>

#include "codegen/llvm/lowering.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {

void Lowering::counted_loop(std::int64_t count, std::int64_t step, const std::function<void(llvm::Value*)>& body) {
  if (count <= 0) return;
  if (count == 1) {
    body(b_.getInt32(0));
    return;
  }
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* head = llvm::BasicBlock::Create(*ctx_, "chunk_loop", fn_);
  auto* exit = llvm::BasicBlock::Create(*ctx_, "chunk_loop_done", fn_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt32Ty(), 2, "i");
  i->addIncoming(b_.getInt32(0), pre);
  body(i);
  llvm::Value* next = b_.CreateAdd(i, b_.getInt32(static_cast<std::uint32_t>(step)), "", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateCondBr(b_.CreateICmpSLT(next, b_.getInt32(static_cast<std::uint32_t>(count * step))), head, exit);
  b_.SetInsertPoint(exit);
}

namespace {

struct Reduction {
  const ir::Op* op;
  DType in;
  bool is_float;
  llvm::Type* acc_type;               // <width x compute type>
  llvm::AllocaInst* lanes = nullptr;  // lane-wise accumulator (rank 1, or rank 2 along axis 1)
  llvm::Value* columns = nullptr;     // per-column accumulator array (rank 2 along axis 0)
};

}  // namespace

void Lowering::group(const Group& g) {
  int rank = static_cast<int>(g.shape.size());
  std::int64_t rows = rank == 2 ? g.shape[0] : 1, cols = g.shape.back();
  int width = static_cast<int>(std::min<std::int64_t>(cols, options_.lanes));
  width_ = width;
  current_group_ = static_cast<int>(&g - plan_.groups.data());

  std::vector<Reduction> reductions;
  for (const ir::Op* op : g.ops) {
    if (op->kind != ir::OpKind::reduce) continue;
    DType in = type(op->operands[0]).elem;
    Reduction r{op, in, is_float(in), llvm::FixedVectorType::get(compute_type(in), static_cast<unsigned>(width))};
    if (rank == 2 && op->attrs.axis == 0) {
      ir::Type acc = ir::Type::scalar(in == DType::f16 || in == DType::bf16 ? DType::f32 : in).with_shape({cols});
      r.columns = new_array(acc);
      llvm::Value* identity = reduce_identity(op->attrs.reduce, in, r.acc_type);
      counted_loop(cols / width, width, [&](llvm::Value* c) {
        b_.CreateAlignedStore(identity, b_.CreateInBoundsGEP(compute_type(in), r.columns, c),
                              llvm::Align(std::min<std::uint64_t>(64, dtype_size(acc.elem) * width)));
      });
    } else {
      r.lanes = entry_alloca(r.acc_type, "acc");
      if (rank == 1) b_.CreateStore(reduce_identity(op->attrs.reduce, in, r.acc_type), r.lanes);
    }
    reductions.push_back(r);
  }

  Coords id = identity_coords(rank);
  auto chunk = [&](llvm::Value* col) {
    col_ = col;
    memo_.clear();
    for (const ir::Op* op : g.ops) {
      switch (op->kind) {
        case ir::OpKind::store: checked_access(*op, id); break;
        case ir::OpKind::stash_put: stash_put_chunk(*op, id); break;
        case ir::OpKind::reduce: {
          Reduction& r =
              *std::find_if(reductions.begin(), reductions.end(), [&](const Reduction& x) { return x.op == op; });
          llvm::Value* v = to_compute(r.in, to_vector(eval(op->operands[0], id), type(op->operands[0])));
          llvm::Align align(std::min<std::uint64_t>(64, r.acc_type->getScalarSizeInBits() / 8 * width));
          if (r.columns) {
            llvm::Value* at = b_.CreateInBoundsGEP(compute_type(r.in), r.columns, col);
            b_.CreateAlignedStore(combine(op->attrs.reduce, r.is_float, b_.CreateAlignedLoad(r.acc_type, at, align), v),
                                  at, align);
          } else {
            b_.CreateStore(combine(op->attrs.reduce, r.is_float, b_.CreateLoad(r.acc_type, r.lanes), v), r.lanes);
          }
          break;
        }
        default: {
          ir::ValueId res = op->results[0];
          Coords at = normalized(type(res), id);
          Chunk c;
          if (op->kind == ir::OpKind::load || op->kind == ir::OpKind::atomic) {
            c = checked_access(*op, id);
          } else if (op->kind == ir::OpKind::stash_get) {
            c = stash_get_chunk(*op, id);
          } else {
            std::vector<Chunk> args;
            for (ir::ValueId o : op->operands) args.push_back(eval(o, id));
            c = apply_chunk(*op, args);
          }
          memo_[{res, at}] = c;
          if (plan_.stored.count(res)) write_array(res, c, at);
        }
      }
    }
  };
  auto row_body = [&](llvm::Value* row) {
    row_ = row;
    for (Reduction& r : reductions)
      if (r.lanes && rank == 2) b_.CreateStore(reduce_identity(r.op->attrs.reduce, r.in, r.acc_type), r.lanes);
    counted_loop(cols / width, width, chunk);
    if (rank != 2) return;
    for (Reduction& r : reductions) {
      if (!r.lanes) continue;
      llvm::Value* folded = horizontal(r.op->attrs.reduce, r.is_float, b_.CreateLoad(r.acc_type, r.lanes));
      ir::ValueId res = r.op->results[0];
      const ir::Type& t = type(res);
      llvm::Value* at = b_.CreateInBoundsGEP(array_type(t), array_of(res), b_.CreateZExt(row, b_.getInt64Ty()));
      b_.CreateAlignedStore(to_memory(t, from_compute(r.in, folded)), at, llvm::Align(memory_bytes(t)));
    }
  };
  counted_loop(rows, 1, row_body);
  memo_.clear();

  for (Reduction& r : reductions) {
    ir::ValueId res = r.op->results[0];
    if (rank == 1) {
      scalars_[res] =
          from_compute(r.in, horizontal(r.op->attrs.reduce, r.is_float, b_.CreateLoad(r.acc_type, r.lanes)));
    } else if (r.columns) {
      const ir::Type& t = type(res);
      llvm::Value* out = array_of(res);
      counted_loop(cols / width, width, [&](llvm::Value* c) {
        llvm::Align acc_align(std::min<std::uint64_t>(64, r.acc_type->getScalarSizeInBits() / 8 * width));
        llvm::Value* v =
            b_.CreateAlignedLoad(r.acc_type, b_.CreateInBoundsGEP(compute_type(r.in), r.columns, c), acc_align);
        llvm::Value* at = b_.CreateInBoundsGEP(array_type(t), out, c);
        b_.CreateAlignedStore(to_memory(t, from_compute(r.in, v)), at,
                              llvm::Align(std::min<std::uint64_t>(64, memory_bytes(t) * width)));
      });
    }
  }
  current_group_ = -1;
}

void Lowering::materialize(ir::ValueId v, llvm::Value* dst) {
  const ir::Type& t = type(v);
  int rank = t.rank();
  std::int64_t rows = rank == 2 ? t.shape[0] : 1, cols = t.shape.back();
  int width = static_cast<int>(std::min<std::int64_t>(cols, options_.lanes));
  width_ = width;
  Coords id = identity_coords(rank);
  counted_loop(rows, 1, [&](llvm::Value* row) {
    row_ = row;
    counted_loop(cols / width, width, [&](llvm::Value* col) {
      col_ = col;
      memo_.clear();
      Chunk c = eval(v, id);
      llvm::Value* index = linear_index(t.shape, normalized(t, id));
      llvm::Value* at = b_.CreateInBoundsGEP(array_type(t), dst, index);
      b_.CreateAlignedStore(to_memory(t, to_vector(c, t)), at,
                            llvm::Align(std::min<std::uint64_t>(64, memory_bytes(t) * width)));
    });
  });
  memo_.clear();
}

}  // namespace tilejit::codegen::llvm_ir
