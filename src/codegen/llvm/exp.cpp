// exp and exp2 of f32 (and f16/bf16, computed in f32) as inline LLVM IR that vectorizes: libm's
// expf is a scalar call per lane, and softmax spends most of its time there.
//
// Cody-Waite range reduction x = n*ln2 + r with |r| <= ln2/2, e^r by the Cephes expf polynomial
// (peak relative error about 2e-7: within 2 ulp, like CUDA's expf), and 2^n applied in two exact
// halves so results that overflow, underflow to subnormals or to zero round once. NaN stays NaN.
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/lowering.h"

namespace tilejit::codegen::llvm_ir {

llvm::Value* Lowering::exp_f32(llvm::Value* x, bool base2) {
  llvm::Type* ft = x->getType();
  llvm::Type* it = like(x, b_.getInt32Ty());
  auto f = [&](double v) { return llvm::ConstantFP::get(ft, v); };
  auto i = [&](std::int32_t v) { return llvm::ConstantInt::get(it, static_cast<std::uint64_t>(v), true); };
  auto fma = [&](llvm::Value* a, llvm::Value* b, llvm::Value* c) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {ft}, {a, b, c});
  };
  // Past these the result is inf or 0 anyway; clamping keeps n in range. NaN compares false and
  // is replaced by 0 until the end, so no integer conversion ever sees it.
  llvm::Value* is_nan = b_.CreateFCmpUNO(x, x);
  double hi = base2 ? 128.5 : 89.0, lo = base2 ? -151.0 : -105.0;
  llvm::Value* c = b_.CreateSelect(b_.CreateFCmpOGT(x, f(hi)), f(hi), x);
  c = b_.CreateSelect(b_.CreateFCmpOLT(c, f(lo)), f(lo), c);
  c = b_.CreateSelect(is_nan, f(0.0), c);

  llvm::Value* n =
      b_.CreateIntrinsic(llvm::Intrinsic::roundeven, {ft}, {base2 ? c : b_.CreateFMul(c, f(1.44269504088896341))});
  llvm::Value* r = nullptr;
  if (base2) {
    r = b_.CreateFMul(b_.CreateFSub(c, n), f(0.693147180559945309));  // exact subtraction: |c - n| <= 1/2
  } else {
    r = fma(n, f(-0.693359375), c);  // ln2 split so that n * hi is exact
    r = fma(n, f(2.12194440e-4), r);
  }
  // e^r = 1 + r + r^2 * P(r)
  llvm::Value* p = f(1.9875691500e-4);
  for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1})
    p = fma(p, r, f(k));
  llvm::Value* e = b_.CreateFAdd(fma(p, b_.CreateFMul(r, r), r), f(1.0));

  // 2^n = 2^n1 * 2^n2 with both halves normal floats.
  llvm::Value* ni = b_.CreateFPToSI(n, it);
  llvm::Value* n1 = b_.CreateAShr(ni, i(1));
  llvm::Value* n2 = b_.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* k) { return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, i(127)), i(23)), ft); };
  llvm::Value* result = b_.CreateFMul(b_.CreateFMul(e, pow2(n1)), pow2(n2));
  return b_.CreateSelect(is_nan, x, result);
}

}  // namespace tilejit::codegen::llvm_ir
