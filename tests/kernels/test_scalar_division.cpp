// A block divided by one scalar (x / s with s splat over the block), over the whole float range
// of both operands. The GPU generators turn it into a reciprocal and multiplies; where 1/s is not
// a normal float they divide with div.full on a uniform branch, or, in the PTX generator under a
// register cap, scale s by a power of two first. Both must agree with IEEE division within 2 ulp, zeros, infinities,
// NaNs and subnormal results included; the CPU backend divides exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

namespace {

// Program p divides the whole of x by divisors[p] (a scalar load, so a splat divisor).
void scalar_division_kernel(tl::Ptr out, tl::Ptr x, tl::Ptr divisors, tl::Int n, tl::Constexpr BLOCK) {
  auto p = tl::program_id(0);
  auto s = tl::load(divisors + p);
  auto offs = tl::arange(0, BLOCK);
  auto mask = offs < n;
  tl::store(out + p * n + offs, tl::load(x + offs, mask, 1.0f) / s, mask);
}

// Whether `got` is x / s rounded to float within 2 ulp (within two subnormal steps where the
// quotient is below the normal range), with IEEE's zeros, infinities and NaNs.
bool close_to_quotient(float got, float x, float s) {
  const double want = static_cast<double>(x) / static_cast<double>(s);
  const auto rounded = static_cast<float>(want);
  if (std::isnan(rounded)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(rounded)) return got == rounded || std::fabs(got - want) <= 2.5e-7 * std::fabs(want);
  constexpr double kSmallestNormal = 1.1754943508222875e-38, kSubnormalStep = 1.401298464324817e-45;
  if (rounded == 0) return std::fabs(got) <= 2 * kSubnormalStep && std::signbit(got) == std::signbit(rounded);
  if (std::fabs(want) < kSmallestNormal) return std::fabs(got - want) <= 2 * kSubnormalStep;
  return std::fabs(got - want) <= 2.5e-7 * std::fabs(want);
}

}  // namespace

TEST_CASE("a block divided by a scalar over the whole float range: tiny, huge, zero, infinite and NaN divisors") {
  static const Kernel k("scalar_division", scalar_division_kernel, {"out", "x", "divisors", "n", "BLOCK"});
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float max = std::numeric_limits<float>::max(), normal = std::numeric_limits<float>::min();
  const float step = std::numeric_limits<float>::denorm_min();
  // Divisors around both ends of the range where 1/s is a normal float (2^-126 .. 2^126).
  const std::vector<float> divisors = {1.0f,
                                       -3.0f,
                                       7.5f,
                                       1e-30f,
                                       1e30f,
                                       normal,
                                       -normal,
                                       normal * 0.5f,
                                       1e-40f,
                                       step,
                                       0.0f,
                                       -0.0f,
                                       std::ldexp(1.0f, 126),
                                       std::ldexp(1.5f, 126),
                                       -3e38f,
                                       max,
                                       inf,
                                       -inf,
                                       nan,
                                       std::ldexp(1.0f, 125),
                                       std::ldexp(1.999f, 125),
                                       2.0f * normal};
  std::vector<float> x = {0.0f,  -0.0f, 1.0f,  -1.0f, 3.0f, step, -step, 1e-40f, normal, 1e-30f,   1e-20f,
                          1e20f, 1e30f, 3e38f, max,   -max, inf,  -inf,  nan,    0.75f,  -2.5e-39f};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-45.f, 38.5f);
  while (x.size() < 1000) {
    const float v = std::pow(10.0f, exponent(rng));
    x.push_back(x.size() % 2 ? v : -v);
  }
  const auto n = static_cast<std::int64_t>(x.size());
  Buffer bx = buffer(DType::f32, x.size()), bs = buffer(DType::f32, divisors.size());
  Buffer bo = buffer(DType::f32, x.size() * divisors.size());
  bx.upload(x);
  bs.upload(divisors);
  // Uncapped, the PTX generator branches to div.full; under a register cap it scales instead.
  for (int min_blocks : {0, 2}) {
    CAPTURE(min_blocks);
    LaunchOptions o = options(4);
    o.min_blocks_per_sm = min_blocks;
    bo.fill_bytes(0);
    k.launch({divisors.size()}, {bo, bx, bs, n, 1024}, o);
    finish();
    const auto out = bo.download<float>();
    std::int64_t bad = 0;
    for (std::size_t p = 0; p < divisors.size(); ++p)
      for (std::size_t i = 0; i < x.size(); ++i) {
        const float got = out[p * x.size() + i];
        if (close_to_quotient(got, x[i], divisors[p])) continue;
        if (++bad <= 20) MESSAGE(x[i] << " / " << divisors[p] << ": got " << got);
      }
    CHECK(bad == 0);
  }
}
