// Every DSL op on 1-D and 2-D blocks, run on the backend this binary tests (kernel_test.h) and
// compared with float64 (or exact integer) math done here on the host.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "kernel_test.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

namespace {

enum Unary {
  kExp,
  kExpFast,
  kExp2,
  kExp2Fast,
  kLog,
  kLog2,
  kSqrt,
  kRsqrt,
  kAbs,
  kNeg,
  kSin,
  kCos,
  kTanh,
  kErf,
  kSigmoid,
  kFloor,
  kCeil,
  kNumUnary
};
enum Binary { kAdd, kSub, kMul, kDiv, kMax, kMin, kWhereLess, kNumBinary };

// y[i] = op(x[i]) over a 2-D block [R, C] (R == 1 exercises the 1-D-like path via a row).
void unary_kernel(tl::Ptr y, tl::Ptr x, tl::Int n, tl::Constexpr OP, tl::Constexpr R, tl::Constexpr C) {
  auto rows = tl::program_id(0) * R + tl::arange(0, R);
  auto offs = rows(tl::all, tl::newaxis) * C + tl::arange(0, C)(tl::newaxis, tl::all);
  auto mask = offs < n;
  auto v = tl::load(x + offs, mask, 1.0);
  tl::Tensor r = v;
  switch (OP.value) {
    case kExp: r = tl::exp(v); break;
    case kExpFast: r = tl::exp_fast(v); break;
    case kExp2: r = tl::exp2(v); break;
    case kExp2Fast: r = tl::exp2_fast(v); break;
    case kLog: r = tl::log(v); break;
    case kLog2: r = tl::log2(v); break;
    case kSqrt: r = tl::sqrt(v); break;
    case kRsqrt: r = tl::rsqrt(v); break;
    case kAbs: r = tl::abs(v); break;
    case kNeg: r = -v; break;
    // The trigonometric and sigmoid arguments are moved to [-3.3, 6.7]; tanh and erf to
    // [-1.7, 3.3], where their results are not all 1; floor and ceil see fractions.
    case kSin: r = tl::sin(v * 0.5f - 3.3f); break;
    case kCos: r = tl::cos(v * 0.5f - 3.3f); break;
    case kTanh: r = tl::tanh(v * 0.25f - 1.7f); break;
    case kErf: r = tl::erf(v * 0.25f - 1.7f); break;
    case kSigmoid: r = tl::sigmoid(v * 0.5f - 3.3f); break;
    case kFloor: r = tl::floor(v - 10.f); break;
    case kCeil: r = tl::ceil(v - 10.f); break;
  }
  tl::store(y + offs, r, mask);
}

void binary_kernel(tl::Ptr z, tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr OP, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto a = tl::load(x + offs, mask, 0.0);
  auto b = tl::load(y + offs, mask, 1.0);
  tl::Tensor r = a;
  switch (OP.value) {
    case kAdd: r = a + b; break;
    case kSub: r = a - b; break;
    case kMul: r = a * b; break;
    case kDiv: r = a / b; break;
    case kMax: r = tl::maximum(a, b); break;
    case kMin: r = tl::minimum(a, b); break;
    case kWhereLess: r = tl::where(a < b, a * 2.0f, b - 1); break;
  }
  tl::store(z + offs, r, mask);
}

// Reductions of an [R, C] tile along AXIS, written as R or C results.
void reduce_kernel(tl::Ptr out, tl::Ptr x, tl::Int rows, tl::Int cols, tl::Constexpr KIND, tl::Constexpr AXIS,
                   tl::Constexpr R, tl::Constexpr C) {
  auto r = tl::arange(0, R);
  auto c = tl::arange(0, C);
  auto mask = (r(tl::all, tl::newaxis) < rows) & (c(tl::newaxis, tl::all) < cols);
  double neutral = KIND == 0 ? 0.0 : KIND == 1 ? -tl::inf : tl::inf;
  auto v = tl::load(x + r(tl::all, tl::newaxis) * cols + c(tl::newaxis, tl::all), mask, neutral);
  if (AXIS == 2) {  // every element: a scalar
    tl::store(out, KIND == 0 ? tl::sum(v) : KIND == 1 ? tl::max(v) : tl::min(v));
    return;
  }
  auto red = KIND == 0   ? tl::sum(v, static_cast<int>(AXIS))
             : KIND == 1 ? tl::max(v, static_cast<int>(AXIS))
                         : tl::min(v, static_cast<int>(AXIS));
  if (AXIS == 1) tl::store(out + r, red, r < rows);
  else tl::store(out + c, red, c < cols);
}

// Casts through f16, bf16, i32 and i64 and back to f32.
void cast_kernel(tl::Ptr out, tl::Ptr x, tl::Int n, tl::Constexpr TO, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto v = tl::load(x + offs, mask);
  tl::store(out + offs, v.to(static_cast<DType>(TO.value)).to(DType::f32), mask);
}

// A loop-carried block: sums chunks of a row; the carried accumulator is a 1-D block.
void chunk_sum_kernel(tl::Ptr out, tl::Ptr x, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  tl::Tensor acc = tl::zeros({BLOCK}, DType::f32);
  tl::Tensor count = tl::zeros({BLOCK}, DType::i32);
  tl::for_range(0, n, BLOCK, [&](tl::Int start) {
    auto idx = start + offs;
    acc = acc + tl::load(x + idx, idx < n, 0.0);
    count = count + tl::where(idx < n, 1, 0);
  });
  tl::store(out, tl::sum(acc, 0));
  tl::store(out + 1, tl::sum(count, 0).to(DType::f32));
}

// s * x - shift as the kernels compute it, in f32 (s * x is exact: s is a power of two).
float affine(double x, float s, float shift) { return static_cast<float>(x) * s - shift; }

double rel_diff(double got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : INFINITY;
  double scale = std::max(1e-30, std::fabs(want));
  return std::fabs(got - want) / scale;
}

}  // namespace

TEST_CASE("unary math ops on 2-D blocks") {
  static const Kernel k("unary", unary_kernel, {"y", "x", "n", "OP", "R", "C"});
  const std::int64_t n = 3000;
  auto x = random_floats(n, 0.01f, 20.f, 3);
  Buffer bx = buffer(DType::f32, n), by = buffer(DType::f32, n);
  bx.upload(x);
  std::function<double(double)> ref[] = {[](double v) { return std::exp(v); },
                                         [](double v) { return std::exp(v); },
                                         [](double v) { return std::exp2(v); },
                                         [](double v) { return std::exp2(v); },
                                         [](double v) { return std::log(v); },
                                         [](double v) { return std::log2(v); },
                                         [](double v) { return std::sqrt(v); },
                                         [](double v) { return 1 / std::sqrt(v); },
                                         [](double v) { return std::fabs(v); },
                                         [](double v) { return -v; },
                                         [](double v) { return std::sin(affine(v, 0.5f, 3.3f)); },
                                         [](double v) { return std::cos(affine(v, 0.5f, 3.3f)); },
                                         [](double v) { return std::tanh(affine(v, 0.25f, 1.7f)); },
                                         [](double v) { return std::erf(affine(v, 0.25f, 1.7f)); },
                                         [](double v) { return 1 / (1 + std::exp(-affine(v, 0.5f, 3.3f))); },
                                         [](double v) { return std::floor(affine(v, 1.f, 10.f)); },
                                         [](double v) { return std::ceil(affine(v, 1.f, 10.f)); }};
  for (int op = 0; op < kNumUnary; ++op)
    for (auto [R, C] : {std::pair<int, int>{1, 1024}, {8, 128}, {32, 32}}) {
      CAPTURE(op);
      CAPTURE(R);
      by.fill_bytes(0xff);
      k.launch({static_cast<std::uint64_t>(cdiv(n, R * C))}, {by, bx, n, op, R, C}, options());
      finish();
      auto y = by.download<float>();
      double worst = 0;
      for (std::int64_t i = 0; i < n; ++i) worst = std::max(worst, rel_diff(y[i], ref[op](x[i])));
      // exp_fast rounds x * log2(e) first: about |x| * 2^-24 more, |x| < 20 here.
      CHECK(worst <= (op == kExpFast ? 2e-6 + 20 * 0x1p-23 : 2e-6));
    }
}

// exp_fast and exp2_fast of a 16-bit block: x rounded to DTYPE (written to `rounded`), e^x
// and 2^x back in f32.
void exp_fast_16bit_kernel(tl::Ptr y, tl::Ptr y2, tl::Ptr rounded, tl::Ptr x, tl::Int n, tl::Constexpr DTYPE,
                           tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto narrow = tl::load(x + offs, mask, 0.0).to(static_cast<DType>(DTYPE.value));
  tl::store(rounded + offs, narrow.to(DType::f32), mask);
  tl::store(y + offs, tl::exp_fast(narrow).to(DType::f32), mask);
  tl::store(y2 + offs, tl::exp2_fast(narrow).to(DType::f32), mask);
}

TEST_CASE("exp_fast and exp2_fast of f16 and bf16 blocks keep the 16-bit result's own accuracy") {
  static const Kernel k("exp_fast_16bit", exp_fast_16bit_kernel, {"y", "y2", "rounded", "x", "n", "DTYPE", "BLOCK"});
  const std::int64_t n = 2000;
  auto x = random_floats(n, -8.f, 2.f, 11);
  Buffer bx = buffer(DType::f32, n), by = buffer(DType::f32, n), by2 = buffer(DType::f32, n),
         br = buffer(DType::f32, n);
  bx.upload(x);
  // Half an ulp of the 16-bit result (its rounding), plus the f32 computation before it.
  for (auto [t, bound] : {std::pair{DType::f16, 0x1p-11 + 4e-6}, std::pair{DType::bf16, 0x1p-8 + 4e-6}}) {
    CAPTURE(dtype_name(t));
    k.launch({static_cast<std::uint64_t>(cdiv(n, 256))}, {by, by2, br, bx, n, static_cast<std::int64_t>(t), 256},
             options());
    finish();
    auto y = by.download<float>(), y2 = by2.download<float>(), r = br.download<float>();
    double worst = 0, worst2 = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      worst = std::max(worst, rel_diff(y[i], std::exp(double{r[i]})));
      worst2 = std::max(worst2, rel_diff(y2[i], std::exp2(double{r[i]})));
    }
    CHECK(worst <= bound);
    CHECK(worst2 <= bound);
  }
}

TEST_CASE("exp_fast, exp2_fast and exp2 near and below the smallest normal float") {
  // e^x crosses 2^-126 at x = -87.3 (2^x at x = -126). exp_fast and exp2_fast may give zero below
  // it (the GPU's ex2.approx.ftz) and nothing else; exp2 keeps subnormal results (down to 2^-149).
  static const Kernel k("unary", unary_kernel, {"y", "x", "n", "OP", "R", "C"});
  const std::int64_t n = 4096;
  struct Case {
    int op;
    float lo, hi;
    double bound;  // relative error of a normal result (exp_fast: plus |x| * 2^-23 for x * log2(e))
  };
  for (Case c : {Case{kExpFast, -110.f, -70.f, 2e-6 + 110 * 0x1p-23}, Case{kExp2Fast, -160.f, -100.f, 2e-6},
                 Case{kExp2, -148.f, -110.f, 2e-6}}) {
    CAPTURE(c.op);
    auto x = random_floats(n, c.lo, c.hi, 21);
    Buffer bx = buffer(DType::f32, n), by = buffer(DType::f32, n);
    bx.upload(x);
    k.launch({static_cast<std::uint64_t>(cdiv(n, 1024))}, {by, bx, n, c.op, 1, 1024}, options());
    finish();
    auto y = by.download<float>();
    int flushed = 0, subnormal = 0;
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double want = c.op == kExpFast ? std::exp(double{x[i]}) : std::exp2(double{x[i]});
      if (want >= 0x1p-126) {
        worst = std::max(worst, rel_diff(y[i], want));
      } else if (c.op != kExp2 && y[i] == 0.0f) {
        ++flushed;
      } else {
        ++subnormal;
        // Measured against the smallest normal: a subnormal's last place is 2^-149 = 2^-126 * 2^-23.
        worst = std::max(worst, std::fabs(y[i] - want) / 0x1p-126);
      }
    }
    CHECK(worst <= c.bound);
    if (c.op == kExp2) CHECK(subnormal > n / 2);
    MESSAGE("flushed to zero: ", flushed, ", subnormal: ", subnormal);
  }
}

TEST_CASE("binary ops and where on 1-D blocks, f32 and f16") {
  static const Kernel k("binary", binary_kernel, {"z", "x", "y", "n", "OP", "BLOCK"});
  const std::int64_t n = 5000;
  auto xs = random_floats(n, -4.f, 4.f, 5), ys = random_floats(n, 0.5f, 4.f, 6);
  std::function<double(double, double)> ref[] = {[](double a, double b) { return a + b; },
                                                 [](double a, double b) { return a - b; },
                                                 [](double a, double b) { return a * b; },
                                                 [](double a, double b) { return a / b; },
                                                 [](double a, double b) { return std::max(a, b); },
                                                 [](double a, double b) { return std::min(a, b); },
                                                 [](double a, double b) { return a < b ? a * 2 : b - 1; }};
  Buffer bx = buffer(DType::f32, n), by = buffer(DType::f32, n), bz = buffer(DType::f32, n);
  bx.upload(xs);
  by.upload(ys);
  for (int op = 0; op < kNumBinary; ++op) {
    CAPTURE(op);
    bz.fill_bytes(0xff);
    k.launch({static_cast<std::uint64_t>(cdiv(n, 512))}, {bz, bx, by, n, op, 512}, options());
    finish();
    auto z = bz.download<float>();
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) worst = std::max(worst, rel_diff(z[i], ref[op](xs[i], ys[i])));
    CHECK(worst <= 1e-6);
  }
}

namespace {

// out = fma(a, b, c), elementwise, in the element type of the buffers.
void fma_kernel(tl::Ptr out, tl::Ptr a, tl::Ptr b, tl::Ptr c, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  tl::store(out + offs, tl::fma(tl::load(a + offs, mask), tl::load(b + offs, mask), tl::load(c + offs, mask)), mask);
}

// out[r, j] = fma(x[r, j], 0.75, row[r]): a literal and a per-row column broadcast to the block.
void fma_broadcast_kernel(tl::Ptr out, tl::Ptr x, tl::Ptr row, tl::Constexpr R, tl::Constexpr C) {
  auto rows = tl::arange(0, R)(tl::all, tl::newaxis);
  auto offs = rows * C + tl::arange(0, C)(tl::newaxis, tl::all);
  tl::store(out + offs, tl::fma(tl::load(x + offs), 0.75, tl::load(row + rows)));
}

// a * b + c for values whose product is not representable, so one rounding and two differ;
// `want` is the host's correctly rounded std::fma in T, `unfused` the twice-rounded form.
template <class T>
void check_fma_rounds_once(DType t) {
  static const Kernel k("fma", fma_kernel, {"out", "a", "b", "c", "n", "BLOCK"});
  const T one = 1, u = std::numeric_limits<T>::epsilon();  // 2^-23 (f32), 2^-52 (f64)
  // (1 + 2^k u)^2 = 1 + 2^(k+1) u + 2^2k u^2: the last term is lost when the product is rounded.
  std::vector<T> a, b, c;
  for (int k = 4; k <= 10; ++k) {
    const T x = one + std::ldexp(u, k);
    a.push_back(x);
    b.push_back(x);
    c.push_back(-(one + std::ldexp(u, k + 1)));
    a.push_back(-x);
    b.push_back(x + u);
    c.push_back(one);
  }
  const auto n = static_cast<std::int64_t>(a.size());
  Buffer ba = buffer(t, a.size()), bb = buffer(t, a.size()), bc = buffer(t, a.size()), bo = buffer(t, a.size());
  ba.upload(a);
  bb.upload(b);
  bc.upload(c);
  k.launch({1}, {bo, ba, bb, bc, n, 64}, options());
  finish();
  auto out = bo.template download<T>();
  for (std::int64_t i = 0; i < n; ++i) {
    CAPTURE(i);
    const T want = std::fma(a[i], b[i], c[i]);
    volatile T product = a[i] * b[i];  // rounded here, as an unfused multiply would be
    CHECK(want != product + c[i]);     // the inputs tell the two forms apart
    CHECK(out[i] == want);
  }
}

}  // namespace

TEST_CASE("fma rounds once, in f32 and f64") {
  SUBCASE("f32") { check_fma_rounds_once<float>(DType::f32); }
  SUBCASE("f64") { check_fma_rounds_once<double>(DType::f64); }
}

TEST_CASE("fma broadcasts a literal and a column over a 2-D block") {
  static const Kernel k("fma_broadcast", fma_broadcast_kernel, {"out", "x", "row", "R", "C"});
  const int R = 16, C = 64;
  auto x = random_floats(R * C, -4.f, 4.f, 31), row = random_floats(R, -2.f, 2.f, 32);
  Buffer bx = buffer(DType::f32, x.size()), br = buffer(DType::f32, row.size()), bo = buffer(DType::f32, x.size());
  bx.upload(x);
  br.upload(row);
  k.launch({1}, {bo, bx, br, R, C}, options());
  finish();
  auto out = bo.download<float>();
  double worst = 0;
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < C; ++j)
      worst = std::max(worst, std::fabs(out[r * C + j] - (double{x[r * C + j]} * 0.75 + row[r])));
  CHECK(worst <= 0x1p-21);  // half an ulp of results below 8
}

TEST_CASE("reductions along each axis of 2-D blocks, and over all of it") {
  static const Kernel k("reduce", reduce_kernel, {"out", "x", "rows", "cols", "KIND", "AXIS", "R", "C"});
  for (auto [rows, cols, R, C] : {std::tuple<int, int, int, int>{30, 100, 32, 128},
                                  {64, 8, 64, 8},
                                  {1, 1, 2, 2},
                                  {200, 3, 256, 4},
                                  {5, 1000, 8, 1024}})
    for (int kind = 0; kind < 3; ++kind)
      for (int axis = 0; axis < 3; ++axis) {  // 2: every element
        CAPTURE(rows);
        CAPTURE(cols);
        CAPTURE(kind);
        CAPTURE(axis);
        auto x = random_floats(static_cast<std::size_t>(rows * cols), -5.f, 5.f, rows + cols);
        Buffer bx = buffer(DType::f32, x.size()),
               bo = buffer(DType::f32, static_cast<std::size_t>(std::max(rows, cols)));
        bx.upload(x);
        bo.fill_bytes(0xff);
        k.launch({1}, {bo, bx, rows, cols, kind, axis, R, C}, options());
        finish();
        auto out = bo.download<float>();
        int n_out = axis == 2 ? 1 : axis == 1 ? rows : cols, n_in = axis == 2 ? rows * cols : axis == 1 ? cols : rows;
        double worst = 0;
        for (int o = 0; o < n_out; ++o) {
          double acc = kind == 0 ? 0 : kind == 1 ? -INFINITY : INFINITY;
          for (int i = 0; i < n_in; ++i) {
            double v = axis == 2   ? x[static_cast<std::size_t>(i)]
                       : axis == 1 ? x[static_cast<std::size_t>(o * cols + i)]
                                   : x[static_cast<std::size_t>(i * cols + o)];
            acc = kind == 0 ? acc + v : kind == 1 ? std::max(acc, v) : std::min(acc, v);
          }
          worst = std::max(worst, kind == 0 ? std::fabs(out[o] - acc) / (1 + std::fabs(acc)) : rel_diff(out[o], acc));
        }
        CHECK(worst <= 1e-5);
      }
}

TEST_CASE("casts round like the target type") {
  static const Kernel k("cast", cast_kernel, {"out", "x", "n", "TO", "BLOCK"});
  const std::int64_t n = 4099;
  auto x = random_floats(n, -3000.f, 3000.f, 11);
  Buffer bx = buffer(DType::f32, n), bo = buffer(DType::f32, n);
  bx.upload(x);
  for (DType to : {DType::f16, DType::bf16, DType::i32, DType::i64, DType::f64}) {
    CAPTURE(dtype_name(to));
    bo.fill_bytes(0xff);
    k.launch({static_cast<std::uint64_t>(cdiv(n, 256))}, {bo, bx, n, static_cast<int>(to), 256}, options());
    finish();
    auto out = bo.download<float>();
    double worst = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double want = x[i];
      double tol = 0;
      if (to == DType::f16) tol = std::ldexp(1.0, -11);  // half an f16 ulp, relative
      if (to == DType::bf16) tol = std::ldexp(1.0, -8);
      if (to == DType::i32 || to == DType::i64) want = std::trunc(want);
      worst = std::max(worst, rel_diff(out[i], want) - tol);
    }
    CHECK(worst <= 1e-7);
  }
}

TEST_CASE("loop-carried block values accumulate across iterations") {
  static const Kernel k("chunk_sum", chunk_sum_kernel, {"out", "x", "n", "BLOCK"});
  for (std::int64_t n : {0, 1, 255, 256, 100000}) {
    CAPTURE(n);
    auto x = random_floats(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)), 0.f, 1.f, 13);
    Buffer bx = buffer(DType::f32, x.size()), bo = buffer(DType::f32, 2);
    bx.upload(x);
    bo.fill_bytes(0xff);
    k.launch({1}, {bo, bx, n, 256}, options());
    finish();
    auto out = bo.download<float>();
    double want = 0;
    for (std::int64_t i = 0; i < n; ++i) want += x[static_cast<std::size_t>(i)];
    CHECK(std::fabs(out[0] - want) <= 1e-5 * (1 + want));
    CHECK(out[1] == static_cast<float>(n));
  }
}
