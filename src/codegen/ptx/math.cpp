#include "codegen/ptx/math.h"

#include <fmt/format.h>

#include <initializer_list>

namespace tilejit::codegen::ptx {
namespace {

std::string op3(Code& c, const char* op, const std::string& a, const std::string& b) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("{} {}, {}, {}", op, d, a, b));
  return d;
}

std::string fma(Code& c, const char* rounding, const std::string& a, const std::string& b, const std::string& add) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("fma.{}.f32 {}, {}, {}, {}", rounding, d, a, b, add));
  return d;
}

// Horner's scheme in f: coeffs[0] * f^(n-1) + ... + coeffs[n-1], one fma per term.
std::string polynomial(Code& c, const std::string& f, std::initializer_list<const char*> coeffs) {
  auto it = coeffs.begin();
  std::string acc = c.imm(RegClass::f32, *it++);
  for (; it != coeffs.end(); ++it) acc = fma(c, "rn", acc, f, *it);
  return acc;
}

// Shared by log and log2: x = m * 2^e with m in [2/3, 4/3) (subnormals scaled by 2^23
// first). Returns f = m - 1 and e (f32), and the scaled x (f32) and its bits for the special
// cases.
struct LogReduction {
  std::string f, e, x, bits;
};

LogReduction reduce_log_argument(Code& c, const std::string& x, const char* split) {
  std::string tiny = c.reg(RegClass::pred);
  c.ins(fmt::format("setp.lt.f32 {}, {}, 0f00800000", tiny, x));  // below 2^-126
  std::string scaled = op3(c, "mul.f32", x, "0f4B000000");        // x * 2^23
  std::string a = c.reg(RegClass::f32), e0 = c.reg(RegClass::f32);
  c.ins(fmt::format("selp.f32 {}, {}, {}, {}", a, scaled, x, tiny));
  c.ins(fmt::format("selp.f32 {}, 0fC1B80000, 0f00000000, {}", e0, tiny));  // -23 or 0
  std::string bits = c.reg(RegClass::b32), t = c.reg(RegClass::b32), ebits = c.reg(RegClass::b32),
              mbits = c.reg(RegClass::b32);
  c.ins(fmt::format("mov.b32 {}, {}", bits, a));
  // Subtracting the bits of the split point and masking the exponent field gives the exponent
  // that leaves the mantissa in [split, 2 * split).
  c.ins(fmt::format("add.s32 {}, {}, {}", t, bits, split));
  c.ins(fmt::format("and.b32 {}, {}, -8388608", ebits, t));
  c.ins(fmt::format("sub.s32 {}, {}, {}", mbits, bits, ebits));
  std::string m = c.reg(RegClass::f32), ef = c.reg(RegClass::f32);
  c.ins(fmt::format("mov.b32 {}, {}", m, mbits));
  c.ins(fmt::format("cvt.rn.f32.s32 {}, {}", ef, ebits));
  std::string e = fma(c, "rn", ef, "0f34000000", e0);  // exponent bits * 2^-23, plus the scaling
  std::string f = op3(c, "add.f32", m, "0fBF800000");
  return {f, e, a, bits};
}

// +inf stays +inf; negative numbers, -inf and NaN give NaN (x * inf + inf); ±0 gives -inf.
std::string log_special_cases(Code& c, const LogReduction& r, const std::string& result) {
  std::string finite = c.reg(RegClass::pred), is_zero = c.reg(RegClass::pred);
  std::string special = fma(c, "rn", r.x, "0f7F800000", "0f7F800000");
  std::string out = c.reg(RegClass::f32), out2 = c.reg(RegClass::f32);
  c.ins(fmt::format("setp.lt.u32 {}, {}, 2139095040", finite, r.bits));  // positive and below +inf
  c.ins(fmt::format("selp.f32 {}, {}, {}, {}", out, result, special, finite));
  c.ins(fmt::format("setp.eq.f32 {}, {}, 0f00000000", is_zero, r.x));
  c.ins(fmt::format("selp.f32 {}, 0fFF800000, {}, {}", out2, out, is_zero));
  return out2;
}

}  // namespace

// exp(x) = 2^n * 2^y with n = round(x * log2 e) and y = x * log2 e - n, |y| <= 1/2.
// n comes from a saturated, scaled copy of x rounded with a magic-number add (which also
// clamps it so 2^n stays a normal float); x * log2 e - n is computed with two fmas, log2 e
// split into a high and a low part, so y keeps full precision. 2^y is ex2.approx (2 ulp on
// [-1/2, 1/2]); 2^n is built by shifting n into the exponent field; one multiply joins them,
// which also gives the right overflow to inf and underflow to 0.
std::string exp_f32(Code& c, const std::string& x) {
  std::string t = fma(c, "rn", x, "0f3BBB989D", "0f3F000000");  // x * log2(e) / 252 + 1/2
  std::string sat = c.reg(RegClass::f32);
  c.ins(fmt::format("cvt.sat.f32.f32 {}, {}", sat, t));
  std::string j = fma(c, "rm", sat, "0f437C0000", "0f4B400001");  // biased exponent of 2^n in the low bits
  std::string n = op3(c, "add.f32", j, "0fCB40007F");             // n as a float
  std::string minus_n = c.reg(RegClass::f32);
  c.ins(fmt::format("neg.f32 {}, {}", minus_n, n));
  std::string y = fma(c, "rn", x, "0f3FB8AA3B", minus_n);  // x * log2(e) (high part) - n
  y = fma(c, "rn", x, "0f32A57060", y);                    // + x * log2(e) (low part)
  std::string bits = c.reg(RegClass::b32), shifted = c.reg(RegClass::b32), scale = c.reg(RegClass::f32);
  c.ins(fmt::format("mov.b32 {}, {}", bits, j));
  c.ins(fmt::format("shl.b32 {}, {}, 23", shifted, bits));
  c.ins(fmt::format("mov.b32 {}, {}", scale, shifted));  // 2^n
  std::string e = c.reg(RegClass::f32);
  c.ins(fmt::format("ex2.approx.ftz.f32 {}, {}", e, y));
  return op3(c, "mul.f32", e, scale);
}

// ex2.approx without .ftz is exp2f: 2 ulp over the whole range, subnormal results included.
std::string exp2_f32(Code& c, const std::string& x) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("ex2.approx.f32 {}, {}", d, x));
  return d;
}

// ex2.approx.ftz: one MUFU.EX2, against three more instructions that keep subnormal results.
std::string exp2_ftz_f32(Code& c, const std::string& x) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("ex2.approx.ftz.f32 {}, {}", d, x));
  return d;
}

// log(x) = e * ln 2 + log(1 + f), x = (1 + f) * 2^e with 1 + f in [2/3, 4/3): log1p(f) is
// f - f^2/2 + f^3 * p(f), a minimax polynomial evaluated with fmas.
std::string log_f32(Code& c, const std::string& x) {
  LogReduction r = reduce_log_argument(c, x, "-1059760811");  // bits of 2/3, negated
  std::string q = polynomial(c, r.f,
                             {"0fBE055027", "0f3E1039F6", "0fBDF8CDCC", "0f3E0F2955", "0fBE2AD8B9", "0f3E4CED0B",
                              "0fBE7FFF22", "0f3EAAAA78", "0fBF000000"});
  std::string u = op3(c, "mul.f32", r.f, q);
  std::string log1p = fma(c, "rn", u, r.f, r.f);
  return log_special_cases(c, r, fma(c, "rn", r.e, "0f3F317218", log1p));  // + e * ln 2
}

// log2(x) = e + log2(1 + f), 1 + f in [0.707, 1.414): log2(1 + f) is f * log2(e) + f^2 * p(f).
std::string log2_f32(Code& c, const std::string& x) {
  LogReduction r = reduce_log_argument(c, x, "-1060439283");  // bits of 1/sqrt(2), negated
  std::string q = polynomial(c, r.f,
                             {"0f3DC6B27F", "0fBE2C7F30", "0f3E2FCF2A", "0fBE374E43", "0f3E520BF4", "0fBE763C8B",
                              "0f3E93BF99", "0fBEB8AA49", "0f3EF6384A", "0fBF38AA3B"});
  std::string u = op3(c, "mul.f32", r.f, q);
  std::string v = op3(c, "mul.f32", r.f, u);
  std::string log2_1p = fma(c, "rn", r.f, "0f3FB8AA3B", v);
  return log_special_cases(c, r, op3(c, "add.f32", r.e, log2_1p));
}

// IEEE square root, as sqrtf without -use_fast_math.
std::string sqrt_f32(Code& c, const std::string& x) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("sqrt.rn.f32 {}, {}", d, x));
  return d;
}

// rsqrtf is the hardware approximation (2 ulp), subnormals kept.
std::string rsqrt_f32(Code& c, const std::string& x) {
  std::string d = c.reg(RegClass::f32);
  c.ins(fmt::format("rsqrt.approx.f32 {}, {}", d, x));
  return d;
}

}  // namespace tilejit::codegen::ptx
