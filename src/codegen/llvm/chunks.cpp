// Evaluating block values one chunk at a time, at the coordinates the current group loop gives.
#include <fmt/format.h>

#include "codegen/llvm/lowering.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {
namespace {

bool is_int_or_ptr(const ir::Type& t) { return t.is_ptr || t.is_int(); }

}  // namespace

Coords Lowering::identity_coords(int rank) const {
  if (rank == 2) return {Coord::row, Coord::col};
  return {Coord::col, Coord::zero};
}

llvm::Value* Lowering::coord_value(Coord c) {
  switch (c) {
    case Coord::zero: return b_.getInt32(0);
    case Coord::row: return row_;
    case Coord::col: return col_;
  }
  return nullptr;
}

llvm::Value* Lowering::linear_index(const ir::Shape& shape, Coords coords) {
  llvm::Value* last = b_.CreateZExt(coord_value(coords[shape.size() - 1]), b_.getInt64Ty());
  if (shape.size() == 1) return last;
  if (coords[0] == Coord::col) throw InternalError("llvm codegen: column coordinate on a leading dimension");
  llvm::Value* first = b_.CreateZExt(coord_value(coords[0]), b_.getInt64Ty());
  return b_.CreateAdd(b_.CreateMul(first, b_.getInt64(shape[1])), last);
}

llvm::Value* Lowering::new_array(const ir::Type& t) {
  std::int64_t bytes = t.numel() * static_cast<std::int64_t>(memory_bytes(t));
  std::int64_t offset = scratch_bytes_;
  scratch_bytes_ += (bytes + 63) / 64 * 64;
  llvm::IRBuilder<> eb(entry_->getTerminator());
  return eb.CreateConstInBoundsGEP1_64(eb.getInt8Ty(), scratch_, static_cast<std::uint64_t>(offset));
}

llvm::Value* Lowering::array_of(ir::ValueId v) {
  auto it = arrays_.find(v);
  if (it != arrays_.end()) return it->second;
  return arrays_[v] = new_array(type(v));
}

Chunk Lowering::read_array(ir::ValueId v, Coords coords) {
  const ir::Type& t = type(v);
  llvm::Type* et = array_type(t);
  llvm::Value* at = b_.CreateInBoundsGEP(et, arrays_.at(v), linear_index(t.shape, coords));
  bool lanes = coords[static_cast<std::size_t>(t.rank() - 1)] == Coord::col;
  std::uint64_t size = memory_bytes(t);
  if (!lanes) return {Chunk::Kind::uniform, from_memory(t, b_.CreateAlignedLoad(et, at, llvm::Align(size)))};
  auto* vt = llvm::FixedVectorType::get(et, static_cast<unsigned>(width_));
  llvm::Align align(std::min<std::uint64_t>(64, size * static_cast<std::uint64_t>(width_)));
  return {Chunk::Kind::vector, from_memory(t, b_.CreateAlignedLoad(vt, at, align))};
}

void Lowering::write_array(ir::ValueId v, const Chunk& c, Coords coords) {
  const ir::Type& t = type(v);
  llvm::Value* at = b_.CreateInBoundsGEP(array_type(t), array_of(v), linear_index(t.shape, coords));
  llvm::Align align(std::min<std::uint64_t>(64, memory_bytes(t) * static_cast<std::uint64_t>(width_)));
  b_.CreateAlignedStore(to_memory(t, to_vector(c, t)), at, align);
}

llvm::Value* Lowering::to_vector(const Chunk& c, const ir::Type& t) {
  if (c.kind == Chunk::Kind::vector) return c.value;
  auto n = static_cast<unsigned>(width_);
  llvm::Value* splat = b_.CreateVectorSplat(n, c.value);
  if (c.kind == Chunk::Kind::uniform || c.stride == 0) return splat;
  std::vector<llvm::Constant*> steps;
  for (unsigned j = 0; j < n; ++j) {
    std::int64_t s = c.stride * static_cast<std::int64_t>(j);
    steps.push_back(t.is_ptr ? b_.getInt64(static_cast<std::uint64_t>(s))
                             : llvm::ConstantInt::get(c.value->getType(), static_cast<std::uint64_t>(s)));
  }
  llvm::Value* step = llvm::ConstantVector::get(steps);
  if (t.is_ptr) return b_.CreateGEP(memory_type(t.elem), c.value, step);
  return b_.CreateAdd(splat, step);
}

// Integer and pointer arithmetic keeps the affine form where it can, so that `base + arange`
// stays recognizably contiguous. Everything else works on whole vectors (or on scalars when
// every operand is uniform, which LLVM then hoists out of the loops).
Chunk Lowering::apply_chunk(const ir::Op& op, const std::vector<Chunk>& args) {
  bool all_uniform = true;
  for (const Chunk& a : args) all_uniform &= a.kind == Chunk::Kind::uniform;
  std::vector<llvm::Value*> values;
  if (all_uniform) {
    for (const Chunk& a : args) values.push_back(a.value);
    return {Chunk::Kind::uniform, apply(op, values)};
  }
  const ir::Type& rt = type(op.results[0]);
  bool affine_ok = is_int_or_ptr(rt);
  for (std::size_t i = 0; i < args.size(); ++i)
    affine_ok &= args[i].kind != Chunk::Kind::vector && is_int_or_ptr(type(op.operands[i]));
  if (affine_ok) {
    auto stride = [&](std::size_t i) { return args[i].kind == Chunk::Kind::affine ? args[i].stride : 0; };
    auto scalar_args = [&] {
      for (const Chunk& a : args) values.push_back(a.value);
      return values;
    };
    switch (op.kind) {
      case ir::OpKind::add: return {Chunk::Kind::affine, apply(op, scalar_args()), stride(0) + stride(1)};
      case ir::OpKind::sub: return {Chunk::Kind::affine, apply(op, scalar_args()), stride(0) - stride(1)};
      case ir::OpKind::neg: return {Chunk::Kind::affine, apply(op, scalar_args()), -stride(0)};
      case ir::OpKind::addptr: return {Chunk::Kind::affine, apply(op, scalar_args()), stride(0) + stride(1)};
      case ir::OpKind::cast:
        if (type(op.operands[0]).is_int() && rt.is_int())
          return {Chunk::Kind::affine, apply(op, scalar_args()), stride(0)};
        break;
      case ir::OpKind::mul:
        for (std::size_t i = 0; i < 2; ++i) {
          auto* k = llvm::dyn_cast<llvm::ConstantInt>(args[i].value);
          if (args[i].kind == Chunk::Kind::uniform && k)
            return {Chunk::Kind::affine, apply(op, scalar_args()), stride(1 - i) * k->getSExtValue()};
        }
        break;
      default: break;
    }
    values.clear();
  }
  for (std::size_t i = 0; i < args.size(); ++i) values.push_back(to_vector(args[i], type(op.operands[i])));
  return {Chunk::Kind::vector, apply(op, values)};
}

Chunk Lowering::eval(ir::ValueId v, Coords coords) {
  const ir::Type& t = type(v);
  if (t.is_scalar()) return {Chunk::Kind::uniform, scalar(v)};
  coords = normalized(t, coords);
  auto key = std::make_pair(v, coords);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  Chunk c;
  if (arrays_.count(v)) {
    c = read_array(v, coords);
  } else {
    auto d = plan_.def.find(v);
    if (d == plan_.def.end()) throw InternalError(fmt::format("llvm codegen: %{} has no value here", v));
    c = eval_op(*d->second, v, coords);
  }
  memo_[key] = c;
  return c;
}

Chunk Lowering::eval_op(const ir::Op& op, ir::ValueId v, Coords coords) {
  const ir::Type& t = type(v);
  switch (op.kind) {
    case ir::OpKind::arange: {
      llvm::Value* start = b_.getInt32(static_cast<std::uint32_t>(op.attrs.start));
      if (coords[0] == Coord::col) return {Chunk::Kind::affine, b_.CreateAdd(start, col_), 1};
      return {Chunk::Kind::uniform, b_.CreateAdd(start, coord_value(coords[0]))};
    }
    case ir::OpKind::splat: return {Chunk::Kind::uniform, scalar(op.operands[0])};
    case ir::OpKind::broadcast: return eval(op.operands[0], coords);  // eval zeroes the unit dimensions
    case ir::OpKind::expand_dims: {
      Coords inner{Coord::zero, Coord::zero};
      for (int d = 0, j = 0; d < t.rank(); ++d)
        if (d != op.attrs.axis) inner[static_cast<std::size_t>(j++)] = coords[static_cast<std::size_t>(d)];
      return eval(op.operands[0], inner);
    }
    default: break;
  }
  if (!plan_.is_free(v)) {
    // A member of the group being computed is in the memo; anything else is a planning bug.
    throw InternalError(fmt::format("llvm codegen: %{} ('{}') read before it was computed", v, ir::op_name(op.kind)));
  }
  std::vector<Chunk> args;
  for (ir::ValueId o : op.operands) args.push_back(eval(o, coords));
  return apply_chunk(op, args);
}

}  // namespace tilejit::codegen::llvm_ir
