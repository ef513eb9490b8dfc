// One element of an elementwise op. f16 and bf16 are computed in f32 and each result rounded
// back (as in the CUDA C generator); integers follow C (division truncates, % takes the
// dividend's sign); float comparisons are ordered except !=, which is true for NaN.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/math.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

// PTX type suffix of arithmetic in a compute type.
const char* arith_type(DType t) {
  switch (t) {
    case DType::i32: return "s32";
    case DType::i64: return "s64";
    case DType::f64: return "f64";
    default: return "f32";  // f16, bf16, f32
  }
}

bool is_float_compute(DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64; }

DType compute_dtype(DType t) { return t == DType::f16 || t == DType::bf16 ? DType::f32 : t; }

std::string f32_bits(float v) { return fmt::format("0f{:08X}", std::bit_cast<std::uint32_t>(v)); }
std::string f64_bits(double v) { return fmt::format("0d{:016X}", std::bit_cast<std::uint64_t>(v)); }

std::string int_immediate(std::int64_t v) {
  // The most negative values as bit patterns (PTX integer literals are parsed unsigned first).
  if (v == INT64_MIN) return "0x8000000000000000";
  if (v == INT32_MIN) return "0x80000000";
  return std::to_string(v);
}

[[noreturn]] void unsupported(ir::OpKind k, DType t) {
  throw Unsupported(fmt::format("PTX generation: '{}' on {}", ir::op_name(k), dtype_name(t)));
}

}  // namespace

std::string Emitter::move(RegClass c, const std::string& src) {
  std::string d = code_.reg(c);
  code_.ins(fmt::format("mov.{} {}, {}", mov_type(c), d, src));
  return d;
}

std::string Emitter::zero(RegClass c) {
  switch (c) {
    case RegClass::pred: return code_.imm(c, "0");
    case RegClass::f32: return code_.imm(c, "0f00000000");
    case RegClass::f64: return code_.imm(c, "0d0000000000000000");
    default: return code_.imm(c, "0");
  }
}

std::string Emitter::to_compute(DType t, const std::string& r) {
  if (t == DType::f16) {
    std::string d = code_.reg(RegClass::f32);
    code_.ins(fmt::format("cvt.f32.f16 {}, {}", d, r));
    return d;
  }
  if (t == DType::bf16) {
    // bf16 is the upper half of an f32: pair it with a zero lower half.
    if (auto half = halves_.find(r); half != halves_.end()) {
      std::string d = code_.reg(RegClass::f32);
      if (half->second.high) code_.ins(fmt::format("and.b32 {}, {}, -65536", d, half->second.word));
      else code_.ins(fmt::format("shl.b32 {}, {}, 16", d, half->second.word));
      return d;
    }
    std::string low = hoisted("zero16", [&] { return code_.imm(RegClass::b16, "0"); });
    std::string d = code_.reg(RegClass::f32);
    code_.ins(fmt::format("mov.b32 {}, {{{}, {}}}", d, low, r));
    return d;
  }
  return r;
}

Regs Emitter::unpack(const std::string& word) {
  Regs halves{code_.reg(RegClass::b16), code_.reg(RegClass::b16)};
  code_.ins(fmt::format("mov.b32 {{{}, {}}}, {}", halves[0], halves[1], word));
  halves_[halves[0]] = {word, false};
  halves_[halves[1]] = {word, true};
  return halves;
}

std::string Emitter::pack(const std::string& lo, const std::string& hi) {
  auto l = halves_.find(lo), h = halves_.find(hi);
  if (l != halves_.end() && h != halves_.end() && !l->second.high && h->second.high && l->second.word == h->second.word)
    return l->second.word;
  std::string word = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.b32 {}, {{{}, {}}}", word, lo, hi));
  return word;
}

std::string Emitter::from_compute(DType t, const std::string& r) {
  if (t != DType::f16 && t != DType::bf16) return r;
  std::string d = code_.reg(RegClass::b16);
  code_.ins(fmt::format("cvt.rn.{}.f32 {}, {}", t == DType::f16 ? "f16" : "bf16", d, r));
  return d;
}

std::string Emitter::constant(DType t, const ir::OpAttrs& a) {
  switch (t) {
    case DType::i1: return code_.imm(RegClass::pred, a.int_value ? "1" : "0");
    case DType::i32: {
      std::string r = code_.imm(RegClass::b32, int_immediate(static_cast<std::int32_t>(a.int_value)));
      int_constants_[r] = static_cast<std::int32_t>(a.int_value);
      return r;
    }
    case DType::i64: {
      std::string r = code_.imm(RegClass::b64, int_immediate(a.int_value));
      int_constants_[r] = a.int_value;
      return r;
    }
    case DType::f64: return code_.imm(RegClass::f64, f64_bits(a.float_value));
    case DType::f32: return code_.imm(RegClass::f32, f32_bits(static_cast<float>(a.float_value)));
    case DType::f16:
    case DType::bf16:
      // Rounded from f32 like the CUDA C generator's literals.
      return from_compute(t, code_.imm(RegClass::f32, f32_bits(static_cast<float>(a.float_value))));
  }
  return {};
}

std::string Emitter::convert(DType from, DType to, const std::string& r) {
  if (from == to) return r;
  if (to == DType::i1) {
    std::string x = to_compute(from, r), p = code_.reg(RegClass::pred);
    DType c = compute_dtype(from);
    std::string z = c == DType::f64 ? "0d0000000000000000" : c == DType::f32 ? "0f00000000" : "0";
    // C's x != 0: true for NaN.
    code_.ins(fmt::format("setp.{}.{} {}, {}, {}", is_float_compute(c) ? "neu" : "ne", arith_type(c), p, x, z));
    return p;
  }
  DType ct = compute_dtype(to);
  RegClass cc = compute_class(to);
  if (from == DType::i1) {
    std::string one = ct == DType::f32 ? "0f3F800000" : ct == DType::f64 ? "0d3FF0000000000000" : "1";
    std::string zero = ct == DType::f32 ? "0f00000000" : ct == DType::f64 ? "0d0000000000000000" : "0";
    std::string d = code_.reg(cc);
    code_.ins(fmt::format("selp.{} {}, {}, {}, {}", mov_type(cc), d, one, zero, r));
    return from_compute(to, d);
  }
  DType cf = compute_dtype(from);
  std::string x = to_compute(from, r);
  if (cf == ct) return from_compute(to, x);
  std::string d = code_.reg(cc);
  bool fi = is_float_compute(cf), ti = is_float_compute(ct);
  std::string rounding = !fi && ti ? ".rn" : fi && !ti ? ".rzi" : (cf == DType::f64 && ct == DType::f32) ? ".rn" : "";
  if (!fi && !ti) {
    // Widening sign-extends; narrowing keeps the low bits.
    code_.ins(ct == DType::i64 ? fmt::format("cvt.s64.s32 {}, {}", d, x) : fmt::format("cvt.u32.u64 {}, {}", d, x));
  } else {
    code_.ins(fmt::format("cvt{}.{}.{} {}, {}", rounding, arith_type(ct), arith_type(cf), d, x));
  }
  return from_compute(to, d);
}

std::string Emitter::binary(ir::OpKind k, DType t, const std::string& a0, const std::string& b0) {
  if (t == DType::i1) {
    const char* op = k == ir::OpKind::bit_and   ? "and"
                     : k == ir::OpKind::bit_or  ? "or"
                     : k == ir::OpKind::bit_xor ? "xor"
                                                : nullptr;
    if (!op) unsupported(k, t);
    std::string d = code_.reg(RegClass::pred);
    code_.ins(fmt::format("{}.pred {}, {}, {}", op, d, a0, b0));
    return d;
  }
  DType c = compute_dtype(t);
  bool fp = is_float_compute(c);
  const char* ty = arith_type(c);
  const char* bits = c == DType::i64 ? "b64" : "b32";
  std::string a = to_compute(t, a0), b = to_compute(t, b0);
  if (k == ir::OpKind::div || k == ir::OpKind::rem)
    if (auto it = int_constants_.find(b); !fp && it != int_constants_.end())
      if (std::string q = power_of_two_division(k, c, a, it->second); !q.empty()) return q;
  std::string d = code_.reg(compute_class(t));
  switch (k) {
    case ir::OpKind::add: code_.ins(fmt::format("add.{} {}, {}, {}", ty, d, a, b)); break;
    case ir::OpKind::sub: code_.ins(fmt::format("sub.{} {}, {}, {}", ty, d, a, b)); break;
    case ir::OpKind::mul: code_.ins(fmt::format("mul{}.{} {}, {}, {}", fp ? "" : ".lo", ty, d, a, b)); break;
    case ir::OpKind::div: code_.ins(fmt::format("div{}.{} {}, {}, {}", fp ? ".rn" : "", ty, d, a, b)); break;
    case ir::OpKind::rem:
      if (fp) unsupported(k, t);  // fmod: a long software sequence, left to NVRTC
      code_.ins(fmt::format("rem.{} {}, {}, {}", ty, d, a, b));
      break;
    case ir::OpKind::maximum:
    case ir::OpKind::minimum: {
      bool mx = k == ir::OpKind::maximum;
      if (c == DType::f32) {
        code_.ins(fmt::format("{}.NaN.f32 {}, {}, {}", mx ? "max" : "min", d, a, b));
      } else if (c == DType::f64) {
        // (a != a || a > b) ? a : b, as the CUDA C generator's tj_max / tj_min.
        std::string nan = code_.reg(RegClass::pred), ord = code_.reg(RegClass::pred), pick = code_.reg(RegClass::pred);
        code_.ins(fmt::format("setp.nan.f64 {}, {}, {}", nan, a, a));
        code_.ins(fmt::format("setp.{}.f64 {}, {}, {}", mx ? "gt" : "lt", ord, a, b));
        code_.ins(fmt::format("or.pred {}, {}, {}", pick, nan, ord));
        code_.ins(fmt::format("selp.f64 {}, {}, {}, {}", d, a, b, pick));
      } else {
        code_.ins(fmt::format("{}.{} {}, {}, {}", mx ? "max" : "min", ty, d, a, b));
      }
      break;
    }
    case ir::OpKind::bit_and:
    case ir::OpKind::bit_or:
    case ir::OpKind::bit_xor: {
      if (fp) unsupported(k, t);
      const char* op = k == ir::OpKind::bit_and ? "and" : k == ir::OpKind::bit_or ? "or" : "xor";
      code_.ins(fmt::format("{}.{} {}, {}, {}", op, bits, d, a, b));
      break;
    }
    case ir::OpKind::shl:
    case ir::OpKind::shr: {
      if (fp) unsupported(k, t);
      // PTX takes a u32 amount and clamps it to the width: past it (or negative, as unsigned), 0 or
      // the sign. A 64-bit amount is clamped before it is narrowed.
      std::string amount = b;
      if (c == DType::i64) {
        std::string clamped = code_.reg(RegClass::b64);
        amount = code_.reg(RegClass::b32);
        code_.ins(fmt::format("min.u64 {}, {}, 64", clamped, b));
        code_.ins(fmt::format("cvt.u32.u64 {}, {}", amount, clamped));
      }
      code_.ins(fmt::format("{}.{} {}, {}, {}", k == ir::OpKind::shl ? "shl" : "shr",
                            k == ir::OpKind::shl ? bits : (c == DType::i64 ? "s64" : "s32"), d, a, amount));
      break;
    }
    default: unsupported(k, t);
  }
  return from_compute(t, d);
}

// ptxas divides by a constant in a register like by any other (float reciprocal and correction,
// ~20 instructions: a cdiv by ROWS in the op kernels' prologues); NVVM's shifts instead. Negative
// x is biased by 2^k - 1 first, so that the shift truncates toward zero as C does.
std::string Emitter::power_of_two_division(ir::OpKind k, DType c, const std::string& x, std::int64_t divisor) {
  if (divisor < 2 || (divisor & (divisor - 1)) != 0) return "";
  const int shift = std::countr_zero(static_cast<std::uint64_t>(divisor));
  const int bits = c == DType::i64 ? 64 : 32;
  const RegClass rc = c == DType::i64 ? RegClass::b64 : RegClass::b32;
  std::string sign = code_.reg(rc), bias = code_.reg(rc), biased = code_.reg(rc), q = code_.reg(rc);
  code_.ins(fmt::format("shr.s{} {}, {}, {}", bits, sign, x, bits - 1));
  code_.ins(fmt::format("shr.u{} {}, {}, {}", bits, bias, sign, bits - shift));
  code_.ins(fmt::format("add.s{} {}, {}, {}", bits, biased, x, bias));
  code_.ins(fmt::format("shr.s{} {}, {}, {}", bits, q, biased, shift));
  if (k == ir::OpKind::div) return q;
  std::string multiple = code_.reg(rc), r = code_.reg(rc);
  code_.ins(fmt::format("shl.b{} {}, {}, {}", bits, multiple, q, shift));
  code_.ins(fmt::format("sub.s{} {}, {}, {}", bits, r, x, multiple));
  return r;
}

std::string Emitter::compare(ir::OpKind k, DType t, const std::string& a0, const std::string& b0) {
  std::string a = a0, b = b0;
  DType c = compute_dtype(t);
  if (t == DType::i1) {  // compared as the integers 0 and 1
    a = convert(DType::i1, DType::i32, a0);
    b = convert(DType::i1, DType::i32, b0);
    c = DType::i32;
  } else {
    a = to_compute(t, a0);
    b = to_compute(t, b0);
  }
  bool fp = is_float_compute(c);
  const char* cmp = "";
  switch (k) {
    case ir::OpKind::cmp_lt: cmp = "lt"; break;
    case ir::OpKind::cmp_le: cmp = "le"; break;
    case ir::OpKind::cmp_gt: cmp = "gt"; break;
    case ir::OpKind::cmp_ge: cmp = "ge"; break;
    case ir::OpKind::cmp_eq: cmp = "eq"; break;
    case ir::OpKind::cmp_ne: cmp = fp ? "neu" : "ne"; break;
    default: unsupported(k, t);
  }
  std::string p = code_.reg(RegClass::pred);
  code_.ins(fmt::format("setp.{}.{} {}, {}, {}", cmp, arith_type(c), p, a, b));
  return p;
}

std::string Emitter::unary(ir::OpKind k, DType t, const std::string& a0) {
  if (t == DType::i1) {
    if (k != ir::OpKind::bit_not) unsupported(k, t);
    std::string d = code_.reg(RegClass::pred);
    code_.ins(fmt::format("not.pred {}, {}", d, a0));
    return d;
  }
  DType c = compute_dtype(t);
  bool fp = is_float_compute(c);
  std::string a = to_compute(t, a0);
  auto simple = [&](const std::string& op) {
    std::string d = code_.reg(compute_class(t));
    code_.ins(fmt::format("{} {}, {}", op, d, a));
    return from_compute(t, d);
  };
  switch (k) {
    case ir::OpKind::neg: return simple(fmt::format("neg.{}", arith_type(c)));
    case ir::OpKind::abs: return simple(fmt::format("abs.{}", arith_type(c)));
    case ir::OpKind::bit_not:
      if (fp) unsupported(k, t);
      return simple(c == DType::i64 ? "not.b64" : "not.b32");
    case ir::OpKind::sqrt:
      if (c == DType::f64) return simple("sqrt.rn.f64");
      break;
    // Rounding to an integral value is exact, in f32 and f64 alike (sin, cos, tanh and erf are
    // left to NVRTC's libdevice).
    case ir::OpKind::floor:
      if (fp) return simple(fmt::format("cvt.rmi.{0}.{0}", arith_type(c)));
      break;
    case ir::OpKind::ceil:
      if (fp) return simple(fmt::format("cvt.rpi.{0}.{0}", arith_type(c)));
      break;
    default: break;
  }
  if (c != DType::f32) unsupported(k, t);  // f64 exp, log, rsqrt... (and math on integers)
  switch (k) {
    case ir::OpKind::exp: return from_compute(t, exp_f32(code_, a));
    case ir::OpKind::exp2: return from_compute(t, exp2_f32(code_, a));
    case ir::OpKind::log: return from_compute(t, log_f32(code_, a));
    case ir::OpKind::log2: return from_compute(t, log2_f32(code_, a));
    case ir::OpKind::sqrt: return from_compute(t, sqrt_f32(code_, a));
    case ir::OpKind::rsqrt: return from_compute(t, rsqrt_f32(code_, a));
    default: unsupported(k, t);
  }
}

std::string Emitter::elementwise(const ir::Op& op, const std::vector<std::string>& args) {
  ir::ValueId res = op.results.at(0);
  const ir::Type& rt = type(res);
  DType in = op.operands.empty() ? rt.elem : type(op.operands[0]).elem;
  switch (ir::op_category(op.kind)) {
    case ir::OpCategory::Binary:
      if (type(op.operands[0]).is_ptr) unsupported(op.kind, in);
      return binary(op.kind, in, args.at(0), args.at(1));
    case ir::OpCategory::Compare:
      if (type(op.operands[0]).is_ptr) unsupported(op.kind, in);
      return compare(op.kind, in, args.at(0), args.at(1));
    case ir::OpCategory::Unary:
      if (op.kind == ir::OpKind::exp2 && op.attrs.flush_subnormals && compute_dtype(in) == DType::f32)
        return from_compute(in, exp2_ftz_f32(code_, to_compute(in, args.at(0))));
      return unary(op.kind, in, args.at(0));
    default: break;
  }
  switch (op.kind) {
    case ir::OpKind::cast: return convert(in, rt.elem, args.at(0));
    case ir::OpKind::select: {
      RegClass c = reg_class(rt);
      std::string d = code_.reg(c);
      if (c == RegClass::pred) {
        code_.ins(fmt::format("@{} mov.pred {}, {}", args.at(0), d, args.at(1)));
        code_.ins(fmt::format("@!{} mov.pred {}, {}", args.at(0), d, args.at(2)));
      } else {
        code_.ins(fmt::format("selp.{} {}, {}, {}, {}", mov_type(c), d, args.at(1), args.at(2), args.at(0)));
      }
      return d;
    }
    case ir::OpKind::fma: {
      std::string d = code_.reg(reg_class(rt));
      code_.ins(fmt::format("fma.rn.{} {}, {}, {}, {}", arith_type(rt.elem), d, args.at(0), args.at(1), args.at(2)));
      return d;
    }
    case ir::OpKind::addptr: {
      // C pointer arithmetic: the offset (sign-extended) times the element size, in 64 bits.
      auto size = static_cast<std::int64_t>(dtype_size(type(op.operands[0]).elem));
      std::string bytes = code_.reg(RegClass::b64), d = code_.reg(RegClass::b64);
      if (type(op.operands[1]).elem == DType::i64)
        code_.ins(fmt::format("mul.lo.s64 {}, {}, {}", bytes, args.at(1), size));
      else code_.ins(fmt::format("mul.wide.s32 {}, {}, {}", bytes, args.at(1), size));
      code_.ins(fmt::format("add.s64 {}, {}, {}", d, args.at(0), bytes));
      return d;
    }
    default: throw InternalError(fmt::format("ptx codegen: '{}' is not elementwise", ir::op_name(op.kind)));
  }
}

}  // namespace tilejit::codegen::ptx
