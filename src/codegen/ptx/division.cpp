// Division of a block by a scalar (x / s with s splat over the block): one reciprocal a program
// and multiplies, instead of a division an element.
#include <fmt/format.h>

#include "codegen/ptx/emitter.h"

namespace tilejit::codegen::ptx {

// x * (1/s) is within 2 ulp of x / s, as div.full: rcp.approx is 1 ulp for normal s (rcp.rn
// adds a slow-path subroutine, an eighth of ptxas's time on the seed softmax). Where 1/s is not
// a normal float (s tiny, zero, infinite or NaN) the kernel divides exactly on a uniform branch,
// which never diverges, or scales s by a power of two first (uniform_float_division).
bool Emitter::splat_division(const ir::Op& op) const {
  if (op.kind != ir::OpKind::div) return false;
  const DType t = type(op.results[0]).elem;
  if (t != DType::f32 && t != DType::f16 && t != DType::bf16) return false;
  auto def = def_.find(op.operands[1]);
  return def != def_.end() && def->second->kind == ir::OpKind::splat;
}

const Regs& Emitter::division_plan(const ir::Op& div) {
  const ir::ValueId res = div.results[0];
  if (const Regs* plan = recall(res, "division")) return *plan;
  std::string s = to_compute(type(res).elem, scalar(def_.at(div.operands[1])->operands[0]));
  std::string rcp = code_.reg(RegClass::f32), mag = code_.reg(RegClass::f32);
  std::string below = code_.reg(RegClass::pred), above = code_.reg(RegClass::pred), normal = code_.reg(RegClass::pred);
  code_.ins(fmt::format("rcp.approx.ftz.f32 {}, {}", rcp, s));
  code_.ins(fmt::format("abs.f32 {}, {}", mag, s));
  code_.ins(fmt::format("setp.le.f32 {}, {}, 0f7E800000", below, mag));  // 2^126
  code_.ins(fmt::format("setp.ge.f32 {}, {}, 0f00800000", above, mag));  // 2^-126
  code_.ins(fmt::format("and.pred {}, {}, {}", normal, below, above));
  remember(res, "division", {s, rcp, normal});
  return *recall(res, "division");
}

// Two forms, by whether ptxas works under a register cap (.minnctapersm):
//  - uncapped: a uniform branch between x * (1/s) and div.full per element. Both paths write the
//    same f32 registers, and 16-bit results are rounded once, after the join, as NVVM does.
//  - capped: x * (1/(s k)) * k, no branch (scaled_division_plan). The branch's join holds the whole
//    block live, and under a cap ptxas spilled across it: the seed's bf16 rows of 16384 over 8
//    warps at three blocks an SM, 12 bytes, none branch-free. Uncapped, ptxas gave the branch-free
//    form more registers instead (f32 rows of 2048 over 4 warps: 40 against 32, twelve blocks an
//    SM instead of sixteen), so there the branch stays.
bool Emitter::uniform_float_division(const ir::Op& op, const Layout& l, Regs& out) {
  if (!splat_division(op)) return false;
  const DType t = type(op.results[0]).elem;
  Regs x = block(op.operands[0], l);
  std::vector<std::string> xs;
  for (const auto& e : x) xs.push_back(to_compute(t, e));
  Regs q;
  if (options_.min_blocks_per_sm > 0) {
    const Regs& plan = scaled_division_plan(op);
    const std::string &rcp = plan[0], &k = plan[1];
    for (const auto& e : xs) {
      std::string unscaled = code_.reg(RegClass::f32), scaled = code_.reg(RegClass::f32);
      code_.ins(fmt::format("mul.f32 {}, {}, {}", unscaled, e, rcp));
      code_.ins(fmt::format("mul.f32 {}, {}, {}", scaled, unscaled, k));
      q.push_back(scaled);
    }
  } else {
    const Regs plan = division_plan(op);
    const std::string &s = plan[0], &rcp = plan[1], &normal = plan[2];
    std::string slow = code_.label(), done = code_.label();
    for (std::size_t r = 0; r < x.size(); ++r) q.push_back(code_.reg(RegClass::f32));
    code_.ins(fmt::format("@!{} bra {}", normal, slow));
    for (std::size_t r = 0; r < x.size(); ++r) code_.ins(fmt::format("mul.f32 {}, {}, {}", q[r], xs[r], rcp));
    code_.ins(fmt::format("bra.uni {}", done));
    code_.place(slow);
    // One division per element, unrolled as the CUDA C path's is. A single division site in a
    // loop rotating the elements through it made a smaller cubin but cost registers: ptxas kept
    // the rotated copies beside the fast path's results (bf16 BLOCK 8192, 16 warps: 42 against 32).
    // div.full (within 2 ulp, as Triton divides) rather than div.rn: the fast path is not
    // correctly rounded either, and ptxas expands each div.rn into a subroutine (eight of them
    // were a quarter of the seed softmax's assembly time).
    for (std::size_t r = 0; r < x.size(); ++r) code_.ins(fmt::format("div.full.f32 {}, {}, {}", q[r], xs[r], s));
    code_.place(done);
  }
  for (const auto& e : q) out.push_back(from_compute(t, e));
  return true;
}

// k is a power of two per program: 1 where 1/s is a normal float (then x * (1/s) exactly, as the
// branch's fast path), 2^-64 where |s| is 2^126 or more, infinite or NaN, and 2^64 where s is
// subnormal or zero. Then s k is normal (or zero, infinite or NaN) and the product is x / s within
// the same few ulp, with IEEE division's zeros, infinities and NaNs. k comes from s's exponent by
// integer clamps, not by selecting constants on predicates: from a selp ptxas kept the predicates
// live and spilled again.
const Regs& Emitter::scaled_division_plan(const ir::Op& div) {
  const ir::ValueId res = div.results[0];
  if (const Regs* plan = recall(res, "scaled division")) return *plan;
  const std::string s = to_compute(type(res).elem, scalar(def_.at(div.operands[1])->operands[0]));
  auto b32 = [&] { return code_.reg(RegClass::b32); };
  std::string bits = b32(), e = b32(), up = b32(), up_wide = b32(), up_low = b32(), up_clamped = b32();
  std::string down = b32(), down_wide = b32(), down_high = b32(), down_clamped = b32(), shift = b32(), biased = b32();
  std::string k_bits = b32(), k = code_.reg(RegClass::f32), scaled = code_.reg(RegClass::f32);
  std::string rcp = code_.reg(RegClass::f32);
  code_.ins(fmt::format("mov.b32 {}, {}", bits, s));
  code_.ins(fmt::format("bfe.u32 {}, {}, 23, 8", e, bits));  // the biased exponent E
  // +64 for E = 0 (subnormal or zero): clamp((1 - E) * 64, 0, 64).
  code_.ins(fmt::format("sub.s32 {}, 1, {}", up, e));
  code_.ins(fmt::format("shl.b32 {}, {}, 6", up_wide, up));
  code_.ins(fmt::format("max.s32 {}, {}, 0", up_low, up_wide));
  code_.ins(fmt::format("min.s32 {}, {}, 64", up_clamped, up_low));
  // -64 for E >= 253 (|s| >= 2^126, infinite or NaN): clamp((252 - E) * 64, -64, 0).
  code_.ins(fmt::format("sub.s32 {}, 252, {}", down, e));
  code_.ins(fmt::format("shl.b32 {}, {}, 6", down_wide, down));
  code_.ins(fmt::format("min.s32 {}, {}, 0", down_high, down_wide));
  code_.ins(fmt::format("max.s32 {}, {}, -64", down_clamped, down_high));
  code_.ins(fmt::format("add.s32 {}, {}, {}", shift, up_clamped, down_clamped));
  code_.ins(fmt::format("add.s32 {}, {}, 127", biased, shift));
  code_.ins(fmt::format("shl.b32 {}, {}, 23", k_bits, biased));
  code_.ins(fmt::format("mov.b32 {}, {}", k, k_bits));
  code_.ins(fmt::format("mul.f32 {}, {}, {}", scaled, s, k));
  code_.ins(fmt::format("rcp.approx.ftz.f32 {}, {}", rcp, scaled));
  remember(res, "scaled division", {rcp, k});
  return *recall(res, "scaled division");
}

}  // namespace tilejit::codegen::ptx
