// Element types, constants and conversions, written to match the CUDA backend's cuda_types.cpp:
// f16/bf16 are 16-bit patterns computed in f32 and rounded to nearest even after each op,
// float -> int truncates (saturating, NaN -> 0, like PTX cvt.rzi), i1 is a byte in memory.
#include <llvm/ADT/APFloat.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <cstring>

#include "codegen/llvm/lowering.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {
namespace {

// The bit pattern CUDA's tj_f32_to_bf16 produces.
std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

std::uint16_t f16_bits(float f) {
  llvm::APFloat a(f);
  bool lost = false;
  a.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<std::uint16_t>(a.bitcastToAPInt().getZExtValue());
}

}  // namespace

llvm::Type* Lowering::elem_type(DType t) {
  switch (t) {
    case DType::i1: return b_.getInt1Ty();
    case DType::i32: return b_.getInt32Ty();
    case DType::i64: return b_.getInt64Ty();
    case DType::f16:
    case DType::bf16: return b_.getInt16Ty();
    case DType::f32: return b_.getFloatTy();
    case DType::f64: return b_.getDoubleTy();
  }
  throw InternalError("llvm codegen: unknown element type");
}

llvm::Type* Lowering::memory_type(DType t) { return t == DType::i1 ? b_.getInt8Ty() : elem_type(t); }

llvm::Type* Lowering::compute_type(DType t) {
  return t == DType::f16 || t == DType::bf16 ? b_.getFloatTy() : elem_type(t);
}

llvm::Type* Lowering::value_type(const ir::Type& t) { return t.is_ptr ? b_.getPtrTy() : elem_type(t.elem); }

llvm::Type* Lowering::array_type(const ir::Type& t) { return t.is_ptr ? b_.getPtrTy() : memory_type(t.elem); }

std::uint64_t Lowering::memory_bytes(const ir::Type& t) const { return t.is_ptr ? 8 : dtype_size(t.elem); }

llvm::Type* Lowering::like(llvm::Value* shape_of, llvm::Type* elem) {
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(shape_of->getType()))
    return llvm::VectorType::get(elem, vt->getElementCount());
  return elem;
}

llvm::Value* Lowering::to_compute(DType t, llvm::Value* v) {
  if (t == DType::f16) return b_.CreateFPExt(b_.CreateBitCast(v, like(v, b_.getHalfTy())), like(v, b_.getFloatTy()));
  if (t == DType::bf16) {
    llvm::Value* wide = b_.CreateShl(b_.CreateZExt(v, like(v, b_.getInt32Ty())), 16);
    return b_.CreateBitCast(wide, like(v, b_.getFloatTy()));
  }
  return v;
}

llvm::Value* Lowering::from_compute(DType t, llvm::Value* v) {
  if (t == DType::f16) return b_.CreateBitCast(b_.CreateFPTrunc(v, like(v, b_.getHalfTy())), like(v, b_.getInt16Ty()));
  if (t == DType::bf16) {
    llvm::Type* i32 = like(v, b_.getInt32Ty());
    llvm::Value* u = b_.CreateBitCast(v, i32);
    auto k = [&](std::uint32_t c) { return llvm::ConstantInt::get(i32, c); };
    llvm::Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(u, k(0x7fffffffu)), k(0x7f800000u));
    llvm::Value* quiet = b_.CreateOr(b_.CreateLShr(u, 16), k(0x40u));
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(u, 16), k(1u));
    llvm::Value* rounded = b_.CreateLShr(b_.CreateAdd(u, b_.CreateAdd(k(0x7fffu), lsb)), 16);
    return b_.CreateTrunc(b_.CreateSelect(is_nan, quiet, rounded), like(v, b_.getInt16Ty()));
  }
  return v;
}

llvm::Value* Lowering::convert(DType from, DType to, llvm::Value* v) {
  if (from == to) return v;
  if (to == DType::i1) {
    llvm::Value* c = to_compute(from, v);
    if (is_float(from)) return b_.CreateFCmpUNE(c, llvm::Constant::getNullValue(c->getType()));
    return b_.CreateICmpNE(c, llvm::Constant::getNullValue(c->getType()));
  }
  llvm::Type* target = like(v, compute_type(to));
  llvm::Value* out = nullptr;
  if (from == DType::i1) {
    out = is_float(to) ? b_.CreateUIToFP(v, target) : b_.CreateZExt(v, target);
  } else {
    llvm::Value* c = to_compute(from, v);
    bool ff = is_float(from), ft = is_float(to);
    if (ff && ft) {
      unsigned fb = c->getType()->getScalarSizeInBits(), tb = target->getScalarSizeInBits();
      out = fb == tb ? c : fb < tb ? b_.CreateFPExt(c, target) : b_.CreateFPTrunc(c, target);
    } else if (ff) {
      out = b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {target, c->getType()}, {c});
    } else if (ft) {
      out = b_.CreateSIToFP(c, target);
    } else {
      out = b_.CreateSExtOrTrunc(c, target);
    }
  }
  return from_compute(to, out);
}

llvm::Value* Lowering::to_memory(const ir::Type& t, llvm::Value* v) {
  if (!t.is_ptr && t.elem == DType::i1) return b_.CreateZExt(v, like(v, b_.getInt8Ty()));
  return v;
}

llvm::Value* Lowering::from_memory(const ir::Type& t, llvm::Value* v) {
  if (!t.is_ptr && t.elem == DType::i1) return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  return v;
}

llvm::Constant* Lowering::constant(DType t, std::int64_t int_value, double float_value) {
  switch (t) {
    case DType::i1: return b_.getInt1(int_value != 0);
    case DType::i32: return b_.getInt32(static_cast<std::uint32_t>(int_value));
    case DType::i64: return b_.getInt64(static_cast<std::uint64_t>(int_value));
    case DType::f16: return b_.getInt16(f16_bits(static_cast<float>(float_value)));
    case DType::bf16: return b_.getInt16(bf16_bits(static_cast<float>(float_value)));
    case DType::f32:
      return llvm::ConstantFP::get(b_.getFloatTy(), static_cast<double>(static_cast<float>(float_value)));
    case DType::f64: return llvm::ConstantFP::get(b_.getDoubleTy(), float_value);
  }
  throw InternalError("llvm codegen: unknown constant type");
}

}  // namespace tilejit::codegen::llvm_ir
