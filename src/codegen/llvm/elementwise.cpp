// Elementwise ops on scalars or vectors (LLVM's instructions take either), with the CUDA
// backend's semantics: C arithmetic on i1 (through int), integer / and % truncating, NaN-
// propagating maximum/minimum, f16/bf16 rounded after every op.
#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/lowering.h"
#include "tilejit/error.h"

namespace tilejit::codegen::llvm_ir {

llvm::Value* Lowering::math(llvm::Intrinsic::ID id, llvm::Value* x) {
  return b_.CreateIntrinsic(id, {x->getType()}, {x});
}

// A C library function of one float argument, called once per element of a vector.
llvm::Value* Lowering::libm_call(const char* f32_name, const char* f64_name, llvm::Value* x) {
  llvm::Type* elem = x->getType()->getScalarType();
  auto callee = module_->getOrInsertFunction(elem->isDoubleTy() ? f64_name : f32_name, elem, elem);
  auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vec) return b_.CreateCall(callee, {x});
  llvm::Value* r = llvm::PoisonValue::get(vec);
  for (unsigned i = 0; i < vec->getNumElements(); ++i)
    r = b_.CreateInsertElement(r, b_.CreateCall(callee, {b_.CreateExtractElement(x, i)}), i);
  return r;
}

// (a != a || a > b) ? a : b, and the same with < for the minimum: NaN in either operand wins.
llvm::Value* Lowering::nan_max(llvm::Value* a, llvm::Value* b, bool is_max) {
  llvm::Value* a_nan = b_.CreateFCmpUNO(a, a);
  llvm::Value* wins = is_max ? b_.CreateFCmpOGT(a, b) : b_.CreateFCmpOLT(a, b);
  return b_.CreateSelect(b_.CreateOr(a_nan, wins), a, b);
}

// Division by zero and INT_MIN / -1 trap on x86 but not on the GPU: divide by 1 instead and
// give -1 (x / 0) or x (x % 0); INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0.
llvm::Value* Lowering::int_binary(ir::OpKind k, llvm::Value* a, llvm::Value* b) {
  llvm::Type* t = a->getType();
  switch (k) {
    case ir::OpKind::add: return b_.CreateAdd(a, b);
    case ir::OpKind::sub: return b_.CreateSub(a, b);
    case ir::OpKind::mul: return b_.CreateMul(a, b);
    case ir::OpKind::div:
    case ir::OpKind::rem: {
      unsigned bits = t->getScalarSizeInBits();
      llvm::Value* zero = llvm::Constant::getNullValue(t);
      llvm::Value* one = llvm::ConstantInt::get(t, 1);
      llvm::Value* minus_one = llvm::Constant::getAllOnesValue(t);
      llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
      llvm::Value* overflow =
          b_.CreateAnd(b_.CreateICmpEQ(a, llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(bits))),
                       b_.CreateICmpEQ(b, minus_one));
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, overflow), one, b);
      if (k == ir::OpKind::div) return b_.CreateSelect(by_zero, minus_one, b_.CreateSDiv(a, safe));
      return b_.CreateSelect(by_zero, a, b_.CreateSRem(a, safe));
    }
    case ir::OpKind::maximum: return b_.CreateSelect(b_.CreateICmpSGT(a, b), a, b);
    case ir::OpKind::minimum: return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
    default: throw InternalError(fmt::format("llvm codegen: '{}' is not integer arithmetic", ir::op_name(k)));
  }
}

llvm::Value* Lowering::float_binary(ir::OpKind k, llvm::Value* a, llvm::Value* b) {
  switch (k) {
    case ir::OpKind::add: return b_.CreateFAdd(a, b);
    case ir::OpKind::sub: return b_.CreateFSub(a, b);
    case ir::OpKind::mul: return b_.CreateFMul(a, b);
    case ir::OpKind::div: return b_.CreateFDiv(a, b);
    case ir::OpKind::rem: return b_.CreateFRem(a, b);
    case ir::OpKind::maximum: return nan_max(a, b, true);
    case ir::OpKind::minimum: return nan_max(a, b, false);
    default: throw InternalError(fmt::format("llvm codegen: '{}' is not float arithmetic", ir::op_name(k)));
  }
}

llvm::Value* Lowering::apply(const ir::Op& op, const std::vector<llvm::Value*>& args) {
  DType t = type(op.results.at(0)).elem;
  DType in = type(op.operands.at(0)).elem;
  auto c = [&](std::size_t i) { return to_compute(in, args.at(i)); };
  switch (op.kind) {
    case ir::OpKind::add:
    case ir::OpKind::sub:
    case ir::OpKind::mul:
    case ir::OpKind::div:
    case ir::OpKind::rem:
    case ir::OpKind::maximum:
    case ir::OpKind::minimum: {
      if (in == DType::i1) {  // C promotes bools to int and converts the result back with != 0
        llvm::Type* i32 = like(args[0], b_.getInt32Ty());
        llvm::Value* r = int_binary(op.kind, b_.CreateZExt(args[0], i32), b_.CreateZExt(args[1], i32));
        return b_.CreateICmpNE(r, llvm::Constant::getNullValue(i32));
      }
      if (is_float(in)) return from_compute(in, float_binary(op.kind, c(0), c(1)));
      return int_binary(op.kind, args[0], args[1]);
    }
    case ir::OpKind::bit_and: return b_.CreateAnd(args[0], args[1]);
    case ir::OpKind::bit_or: return b_.CreateOr(args[0], args[1]);
    case ir::OpKind::bit_xor: return b_.CreateXor(args[0], args[1]);
    case ir::OpKind::shl:
    case ir::OpKind::shr: {
      // Amounts past the width (negative ones too, as unsigned) give 0 or the sign, as on the GPU;
      // LLVM's own shifts would give poison.
      llvm::Type* t = args[0]->getType();
      const unsigned bits = t->getScalarSizeInBits();
      llvm::Value* last = llvm::ConstantInt::get(t, bits - 1);
      llvm::Value* past = b_.CreateICmpUGT(args[1], last);
      llvm::Value* amount = b_.CreateSelect(past, last, args[1]);
      if (op.kind == ir::OpKind::shr) return b_.CreateAShr(args[0], amount);
      return b_.CreateSelect(past, llvm::Constant::getNullValue(t), b_.CreateShl(args[0], amount));
    }
    case ir::OpKind::cmp_lt:
    case ir::OpKind::cmp_le:
    case ir::OpKind::cmp_gt:
    case ir::OpKind::cmp_ge:
    case ir::OpKind::cmp_eq:
    case ir::OpKind::cmp_ne: {
      using P = llvm::CmpInst::Predicate;
      static const P fp[] = {P::FCMP_OLT, P::FCMP_OLE, P::FCMP_OGT, P::FCMP_OGE, P::FCMP_OEQ, P::FCMP_UNE};
      static const P sp[] = {P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT, P::ICMP_SGE, P::ICMP_EQ, P::ICMP_NE};
      static const P up[] = {P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE, P::ICMP_EQ, P::ICMP_NE};
      auto i = static_cast<std::size_t>(op.kind) - static_cast<std::size_t>(ir::OpKind::cmp_lt);
      if (is_float(in)) return b_.CreateFCmp(fp[i], c(0), c(1));
      return b_.CreateICmp(in == DType::i1 ? up[i] : sp[i], args[0], args[1]);
    }
    case ir::OpKind::neg:
      if (is_float(in)) return from_compute(in, b_.CreateFNeg(c(0)));
      return b_.CreateNeg(args[0]);
    case ir::OpKind::bit_not: return b_.CreateNot(args[0]);
    case ir::OpKind::exp:
      if (in == DType::f64) return math(llvm::Intrinsic::exp, c(0));
      return from_compute(in, exp_f32(c(0), false));
    case ir::OpKind::exp2:
      if (in == DType::f64) return math(llvm::Intrinsic::exp2, c(0));
      return from_compute(in, exp_f32(c(0), true));
    case ir::OpKind::log: return from_compute(in, math(llvm::Intrinsic::log, c(0)));
    case ir::OpKind::log2: return from_compute(in, math(llvm::Intrinsic::log2, c(0)));
    case ir::OpKind::sqrt: return from_compute(in, math(llvm::Intrinsic::sqrt, c(0)));
    case ir::OpKind::rsqrt: {
      llvm::Value* x = c(0);
      return from_compute(in, b_.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), math(llvm::Intrinsic::sqrt, x)));
    }
    case ir::OpKind::sin: return from_compute(in, math(llvm::Intrinsic::sin, c(0)));
    case ir::OpKind::cos: return from_compute(in, math(llvm::Intrinsic::cos, c(0)));
    case ir::OpKind::floor: return from_compute(in, math(llvm::Intrinsic::floor, c(0)));
    case ir::OpKind::ceil: return from_compute(in, math(llvm::Intrinsic::ceil, c(0)));
    // No LLVM 19 target lowers llvm.tanh or has an erf intrinsic: the C library's, per element.
    case ir::OpKind::tanh: return from_compute(in, libm_call("tanhf", "tanh", c(0)));
    case ir::OpKind::erf: return from_compute(in, libm_call("erff", "erf", c(0)));
    case ir::OpKind::abs: {
      if (is_float(in)) return from_compute(in, math(llvm::Intrinsic::fabs, c(0)));
      llvm::Value* x = args[0];
      return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::Constant::getNullValue(x->getType())), b_.CreateNeg(x), x);
    }
    case ir::OpKind::cast: return convert(in, t, args[0]);
    case ir::OpKind::select: return b_.CreateSelect(args[0], args[1], args[2]);
    case ir::OpKind::fma:
      return b_.CreateIntrinsic(llvm::Intrinsic::fma, {args[0]->getType()}, {args[0], args[1], args[2]});
    case ir::OpKind::addptr: {
      llvm::Value* offset = b_.CreateSExt(args[1], like(args[1], b_.getInt64Ty()));
      return b_.CreateGEP(memory_type(in), args[0], offset);
    }
    default: throw InternalError(fmt::format("llvm codegen: '{}' is not elementwise", ir::op_name(op.kind)));
  }
}

llvm::Value* Lowering::combine(ir::ReduceKind k, bool is_float, llvm::Value* acc, llvm::Value* v) {
  switch (k) {
    case ir::ReduceKind::sum: return is_float ? b_.CreateFAdd(acc, v) : b_.CreateAdd(acc, v);
    case ir::ReduceKind::max:
      return is_float ? nan_max(acc, v, true) : b_.CreateSelect(b_.CreateICmpSGT(acc, v), acc, v);
    case ir::ReduceKind::min:
      return is_float ? nan_max(acc, v, false) : b_.CreateSelect(b_.CreateICmpSLT(acc, v), acc, v);
    case ir::ReduceKind::softmax_stats: break;  // pairs, across programs only (lowering.cpp)
  }
  throw InternalError("llvm codegen: unknown reduction");
}

// -0 is the identity of float sums (-0 + -0 is -0); -inf/+inf of NaN-propagating max/min.
llvm::Constant* Lowering::reduce_identity(ir::ReduceKind k, DType t, llvm::Type* acc_type) {
  bool f = is_float(t);
  llvm::Type* scalar = acc_type->getScalarType();
  unsigned bits = scalar->getScalarSizeInBits();
  llvm::Constant* c = nullptr;
  switch (k) {
    case ir::ReduceKind::sum:
      c = f ? llvm::ConstantFP::getNegativeZero(scalar) : llvm::ConstantInt::get(scalar, 0);
      break;
    case ir::ReduceKind::max:
      c = f ? llvm::ConstantFP::getInfinity(scalar, true)
            : llvm::ConstantInt::get(scalar, llvm::APInt::getSignedMinValue(bits));
      break;
    case ir::ReduceKind::min:
      c = f ? llvm::ConstantFP::getInfinity(scalar, false)
            : llvm::ConstantInt::get(scalar, llvm::APInt::getSignedMaxValue(bits));
      break;
    case ir::ReduceKind::softmax_stats: throw InternalError("llvm codegen: softmax_stats has no identity");
  }
  if (auto* vt = llvm::dyn_cast<llvm::VectorType>(acc_type))
    return llvm::ConstantVector::getSplat(vt->getElementCount(), c);
  return c;
}

// Halves the vector until one lane is left: a fixed tree, like the GPU's shuffles.
llvm::Value* Lowering::horizontal(ir::ReduceKind k, bool is_float, llvm::Value* vec) {
  auto* vt = llvm::cast<llvm::FixedVectorType>(vec->getType());
  int n = static_cast<int>(vt->getNumElements());
  while (n > 1) {
    int h = n / 2;
    std::vector<int> lo(static_cast<std::size_t>(h)), hi(static_cast<std::size_t>(h));
    for (int i = 0; i < h; ++i) {
      lo[static_cast<std::size_t>(i)] = i;
      hi[static_cast<std::size_t>(i)] = i + h;
    }
    vec = combine(k, is_float, b_.CreateShuffleVector(vec, lo), b_.CreateShuffleVector(vec, hi));
    n = h;
  }
  return b_.CreateExtractElement(vec, std::uint64_t{0});
}

}  // namespace tilejit::codegen::llvm_ir
