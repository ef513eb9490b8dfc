// More DSL ops on either backend: integer arithmetic (truncating / and %), NaN propagation,
// booleans stored as bytes, gathers and scatters, scalar loads and stores, 3-D grids, and loops
// with scalar, nested and permuted carried values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test.h"
#include "kernels/loop_reductions_kernel.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

namespace {

enum IntOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kRem,
  kMax,
  kMin,
  kAnd,
  kOr,
  kXor,
  kNeg,
  kNot,
  kAbs,
  kLess,
  kNumIntOps,
  kShl,
  kShr
};

void int_kernel(tl::Ptr out, tl::Ptr a, tl::Ptr b, tl::Int n, tl::Constexpr OP, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto x = tl::load(a + offs, mask);
  auto y = tl::load(b + offs, mask, 1);
  tl::Tensor r = x;
  switch (OP.value) {
    case kAdd: r = x + y; break;
    case kSub: r = x - y; break;
    case kMul: r = x * y; break;
    case kDiv: r = x / y; break;
    case kRem: r = x % y; break;
    case kMax: r = tl::maximum(x, y); break;
    case kMin: r = tl::minimum(x, y); break;
    case kAnd: r = x & y; break;
    case kOr: r = x | y; break;
    case kXor: r = x ^ y; break;
    case kNeg: r = -x; break;
    case kNot: r = ~x; break;
    case kAbs: r = tl::abs(x); break;
    case kLess: r = tl::where(x < y, 1, 0); break;
    case kShl: r = x << y; break;
    case kShr: r = x >> y; break;
  }
  tl::store(out + offs, r, mask);
}

std::int64_t int_reference(int op, std::int64_t x, std::int64_t y) {
  switch (op) {
    case kAdd: return x + y;
    case kSub: return x - y;
    case kMul: return x * y;
    case kDiv: return x / y;
    case kRem: return x % y;
    case kMax: return std::max(x, y);
    case kMin: return std::min(x, y);
    case kAnd: return x & y;
    case kOr: return x | y;
    case kXor: return x ^ y;
    case kNeg: return -x;
    case kNot: return ~x;
    case kAbs: return x < 0 ? -x : x;
    case kLess: return x < y;
  }
  return 0;
}

// i32 or i64 values through a Buffer of that type, as int64 on the host.
void upload_ints(Buffer& buf, DType t, const std::vector<std::int64_t>& v) {
  if (t == DType::i64) return buf.upload(v);
  std::vector<std::int32_t> narrow(v.begin(), v.end());
  buf.upload(narrow);
}

std::vector<std::int64_t> download_ints(const Buffer& buf, DType t) {
  if (t == DType::i64) return buf.download<std::int64_t>();
  const auto narrow = buf.download<std::int32_t>();
  return {narrow.begin(), narrow.end()};
}

// x << amount and x >> amount as tl.h defines them for a `bits`-wide type: the amount counts as
// unsigned; from the width on, << gives 0 and >> the sign.
std::int64_t shift_reference(bool left, std::int64_t x, std::int64_t amount, int bits) {
  const std::uint64_t a =
      bits == 32 ? std::uint64_t{static_cast<std::uint32_t>(amount)} : static_cast<std::uint64_t>(amount);
  if (a >= static_cast<std::uint64_t>(bits)) return left ? 0 : (x < 0 ? -1 : 0);
  if (!left) return x >> a;  // arithmetic in C++20
  const std::uint64_t r = static_cast<std::uint64_t>(x) << a;
  return bits == 32 ? std::int64_t{static_cast<std::int32_t>(static_cast<std::uint32_t>(r))}
                    : static_cast<std::int64_t>(r);
}

// NaN-propagating maximum/minimum, elementwise and as reductions along both axes.
void nan_kernel(tl::Ptr out, tl::Ptr x, tl::Ptr y, tl::Constexpr R, tl::Constexpr C) {
  const std::int64_t n = R.value * C.value;
  auto r = tl::arange(0, R)(tl::all, tl::newaxis);
  auto c = tl::arange(0, C)(tl::newaxis, tl::all);
  auto a = tl::load(x + r * C + c);
  auto b = tl::load(y + r * C + c);
  tl::store(out + r * C + c, tl::maximum(a, b));
  tl::store(out + n + r * C + c, tl::minimum(a, b));
  tl::store(out + 2 * n + tl::arange(0, R), tl::max(a, 1));
  tl::store(out + 2 * n + R + tl::arange(0, C), tl::min(a, 0));
}

// Max and min reductions of a widened 16-bit block along each axis (the PTX generator combines
// the 16-bit values in pairs before widening): rows x cols of R x C, masked, the masked-off
// elements -inf for the maxima and +inf for the minima.
void widened_extremes_kernel(tl::Ptr out, tl::Ptr x, tl::Int rows, tl::Int cols, tl::Constexpr R, tl::Constexpr C) {
  auto r = tl::arange(0, R)(tl::all, tl::newaxis);
  auto c = tl::arange(0, C)(tl::newaxis, tl::all);
  auto mask = (r < rows) & (c < cols);
  auto low = tl::load(x + r * cols + c, mask, -tl::inf).to(DType::f32);
  auto high = tl::load(x + r * cols + c, mask, tl::inf).to(DType::f32);
  auto rr = tl::arange(0, R), cc = tl::arange(0, C);
  tl::store(out + rr, tl::max(low, 1), rr < rows);
  tl::store(out + R + rr, tl::min(high, 1), rr < rows);
  tl::store(out + 2 * R + cc, tl::max(low, 0), cc < cols);
  tl::store(out + 2 * R + C + cc, tl::min(high, 0), cc < cols);
}

// out[i] = x[i] < y[i] stored through an i1 pointer (one byte each).
void bool_kernel(tl::Ptr out, tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  tl::store(out + offs, tl::load(x + offs, mask) < tl::load(y + offs, mask), mask);
}

// out = transpose(in) for an R x C matrix: contiguous loads, strided stores (a scatter), then
// back with strided loads (a gather) into out2.
void transpose_kernel(tl::Ptr out, tl::Ptr out2, tl::Ptr in, tl::Int rows, tl::Int cols, tl::Constexpr R,
                      tl::Constexpr C) {
  auto r = tl::arange(0, R)(tl::all, tl::newaxis);
  auto c = tl::arange(0, C)(tl::newaxis, tl::all);
  auto mask = (r < rows) & (c < cols);
  auto v = tl::load(in + r * cols + c, mask, 0.0);
  tl::store(out + c * rows + r, v, mask);
  auto back = tl::load(out + c * rows + r, mask, 0.0);
  tl::store(out2 + r * cols + c, back * 2, mask);
}

// Scalar loads and stores, masked and not, and every program id / count of a 3-D grid.
void grid_kernel(tl::Ptr out, tl::Ptr x, tl::Int n) {
  auto px = tl::program_id(0), py = tl::program_id(1), pz = tl::program_id(2);
  auto nx = tl::num_programs(0), ny = tl::num_programs(1), nz = tl::num_programs(2);
  auto linear = (pz * ny + py) * nx + px;
  auto v = tl::load(x + linear, linear < n, -1.0f);
  tl::store(out + 2 * linear, v + 0.5f);
  tl::store(out + 2 * linear + 1, (px + 10 * py + 100 * pz + 1000 * (nx + ny + nz)).to(DType::f32), linear >= 0);
}

// Loops: a scalar carried through nested loops, and two blocks swapped every iteration
// (a, b) <- (b, a + b): Fibonacci in every lane.
void loops_kernel(tl::Ptr out, tl::Int n, tl::Int m, tl::Constexpr BLOCK) {
  tl::Tensor total = tl::zeros({}, DType::i64);
  tl::for_range(0, n,
                [&](tl::Int i) { tl::for_range(0, m, [&](tl::Int j) { total = total + (i * j).to(DType::i64); }); });
  tl::store(out, total.to(DType::f32));
  auto lanes = tl::arange(0, BLOCK);
  tl::Tensor a = lanes.to(DType::f32);
  tl::Tensor b = tl::full({BLOCK}, 1.0, DType::f32);
  tl::for_range(0, n, [&](tl::Int) {
    auto next = a + b;
    a = b;
    b = next;
  });
  tl::store(out + 1 + lanes, a);
  tl::store(out + 1 + BLOCK + lanes, b);
}

}  // namespace

TEST_CASE("integer ops truncate and wrap like C on i32 and i64") {
  static const Kernel k("int_ops", int_kernel, {"out", "a", "b", "n", "OP", "BLOCK"});
  const std::int64_t n = 1000;
  std::mt19937 rng(5);
  for (DType t : {DType::i32, DType::i64}) {
    CAPTURE(dtype_name(t));
    std::int64_t hi = t == DType::i32 ? 100000 : std::int64_t{1} << 40;
    std::uniform_int_distribution<std::int64_t> u(-hi, hi);
    std::vector<std::int64_t> a(n), b(n);
    for (std::int64_t i = 0; i < n; ++i) {
      a[static_cast<std::size_t>(i)] = u(rng);
      do b[static_cast<std::size_t>(i)] = u(rng) % 97;
      while (b[static_cast<std::size_t>(i)] == 0);
    }
    Buffer ba = buffer(t, n), bb = buffer(t, n), bo = buffer(t, n);
    upload_ints(ba, t, a);
    upload_ints(bb, t, b);
    for (int op = 0; op < kNumIntOps; ++op) {
      CAPTURE(op);
      bo.fill_bytes(0xee);
      k.launch({static_cast<std::uint64_t>(cdiv(n, 128))}, {bo, ba, bb, n, op, 128}, options());
      finish();
      const std::vector<std::int64_t> got = download_ints(bo, t);
      std::int64_t bad = 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        std::int64_t want = int_reference(op, a[i], b[i]);
        if (t == DType::i32) want = static_cast<std::int32_t>(static_cast<std::uint32_t>(want));
        bad += got[i] != want;
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("shifts of i32 and i64: every amount up to past the width, negative ones, the extreme values") {
  static const Kernel k("int_ops", int_kernel, {"out", "a", "b", "n", "OP", "BLOCK"});
  const std::int64_t n = 1000;
  std::mt19937 rng(11);
  for (DType t : {DType::i32, DType::i64}) {
    CAPTURE(dtype_name(t));
    const int bits = t == DType::i32 ? 32 : 64;
    const std::int64_t lo =
        t == DType::i32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
    const std::int64_t hi =
        t == DType::i32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
    std::uniform_int_distribution<std::int64_t> u(lo, hi);
    const std::int64_t extremes[] = {lo, lo + 1, -1, 0, 1, hi};
    std::vector<std::int64_t> x(n), amount(n);
    for (std::int64_t i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = i < 6 * (bits + 5) ? extremes[i % 6] : u(rng);
      amount[static_cast<std::size_t>(i)] = i / 6 % (bits + 5) - 2;  // -2 .. bits + 2
    }
    Buffer bx = buffer(t, n), ba = buffer(t, n), bo = buffer(t, n);
    upload_ints(bx, t, x);
    upload_ints(ba, t, amount);
    for (int op : {kShl, kShr}) {
      CAPTURE(op == kShl ? "<<" : ">>");
      bo.fill_bytes(0xee);
      k.launch({static_cast<std::uint64_t>(cdiv(n, 128))}, {bo, bx, ba, n, op, 128}, options());
      finish();
      const std::vector<std::int64_t> got = download_ints(bo, t);
      std::int64_t bad = 0;
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const std::int64_t want = shift_reference(op == kShl, x[i], amount[i], bits);
        if (got[i] != want && bad++ < 5)
          MESSAGE(x[i] << (op == kShl ? " << " : " >> ") << amount[i] << ": got " << got[i] << ", want " << want);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("maximum, minimum and max/min reductions propagate NaN") {
  static const Kernel k("nan_ops", nan_kernel, {"out", "x", "y", "R", "C"});
  const int R = 8, C = 32;
  auto x = random_floats(R * C, -5.f, 5.f, 1), y = random_floats(R * C, -5.f, 5.f, 2);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  x[3] = nan;           // row 0, column 3
  y[C + 5] = nan;       // row 1, column 5 (only in y)
  x[5 * C + 31] = nan;  // row 5, column 31
  Buffer bx = buffer(DType::f32, x.size()), by = buffer(DType::f32, y.size());
  Buffer bo = buffer(DType::f32, static_cast<std::size_t>(2 * R * C + R + C));
  bx.upload(x);
  by.upload(y);
  bo.fill_bytes(0);
  k.launch({1}, {bo, bx, by, R, C}, options());
  finish();
  auto out = bo.download<float>();
  for (int i = 0; i < R * C; ++i) {
    bool either = std::isnan(x[static_cast<std::size_t>(i)]) || std::isnan(y[static_cast<std::size_t>(i)]);
    CAPTURE(i);
    CHECK(std::isnan(out[static_cast<std::size_t>(i)]) == either);
    CHECK(std::isnan(out[static_cast<std::size_t>(R * C + i)]) == either);
    if (!either)
      CHECK(out[static_cast<std::size_t>(i)] ==
            std::max(x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)]));
  }
  for (int r = 0; r < R; ++r) CHECK(std::isnan(out[static_cast<std::size_t>(2 * R * C + r)]) == (r == 0 || r == 5));
  for (int c = 0; c < C; ++c)
    CHECK(std::isnan(out[static_cast<std::size_t>(2 * R * C + R + c)]) == (c == 3 || c == 31));
}

TEST_CASE("max and min reductions of widened f16 and bf16 blocks: NaN, infinities, signed zeros, masked edges") {
  static const Kernel k("widened_extremes", widened_extremes_kernel, {"out", "x", "rows", "cols", "R", "C"});
  const int R = 8, C = 64, rows = 7, cols = 61;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto x = random_floats(rows * cols, -100.f, 100.f, 3);
  auto at = [&](int r, int c) -> float& { return x[static_cast<std::size_t>(r * cols + c)]; };
  at(0, 17) = nan;                                                 // row 0 and column 17
  for (int c = 0; c < cols; ++c) at(1, c) = -inf;                  // row 1: all -inf
  at(2, 60) = inf;                                                 // row 2: +inf at the last column
  for (int c = 0; c < cols; ++c) at(3, c) = c % 2 ? 0.0f : -0.0f;  // row 3: signed zeros
  at(4, 0) = nan;                                                  // row 4 and column 0
  at(6, 33) = 65000.f;                                             // row 6: the f16 range's edge
  for (DType t : {DType::bf16, DType::f16}) {
    CAPTURE(dtype_name(t));
    Buffer bx = buffer(t, x.size()), bo = buffer(DType::f32, static_cast<std::size_t>(2 * R + 2 * C));
    upload_floats(bx, x);
    const std::vector<float> held = download_floats(bx);  // x rounded to t
    bo.fill_bytes(0);
    k.launch({1}, {bo, bx, rows, cols, R, C}, options(4));
    finish();
    const auto out = bo.download<float>();
    // Output i against the values it reduces: NaN exactly where one is among them, else their
    // maximum (output `max_at`) and minimum (`min_at`).
    auto check = [&](std::size_t max_at, std::size_t min_at, const std::vector<float>& values) {
      const bool any_nan = std::any_of(values.begin(), values.end(), [](float v) { return std::isnan(v); });
      CHECK(std::isnan(out[max_at]) == any_nan);
      CHECK(std::isnan(out[min_at]) == any_nan);
      if (any_nan) return;
      CHECK(out[max_at] == *std::max_element(values.begin(), values.end()));
      CHECK(out[min_at] == *std::min_element(values.begin(), values.end()));
    };
    for (int r = 0; r < rows; ++r) {
      CAPTURE(r);
      check(static_cast<std::size_t>(r), static_cast<std::size_t>(R + r),
            std::vector<float>(held.begin() + r * cols, held.begin() + (r + 1) * cols));
    }
    for (int c = 0; c < cols; ++c) {
      CAPTURE(c);
      std::vector<float> column;
      for (int r = 0; r < rows; ++r) column.push_back(held[static_cast<std::size_t>(r * cols + c)]);
      check(static_cast<std::size_t>(2 * R + c), static_cast<std::size_t>(2 * R + C + c), column);
    }
  }
}

TEST_CASE("booleans are stored as one byte") {
  static const Kernel k("bools", bool_kernel, {"out", "x", "y", "n", "BLOCK"});
  const std::int64_t n = 333;
  auto x = random_floats(n, -1.f, 1.f, 3), y = random_floats(n, -1.f, 1.f, 4);
  Buffer bx = buffer(DType::f32, n), by = buffer(DType::f32, n), bo = buffer(DType::i1, n + 16);
  bx.upload(x);
  by.upload(y);
  bo.fill_bytes(0x77);
  k.launch({static_cast<std::uint64_t>(cdiv(n, 64))}, {bo, bx, by, n, 64}, options());
  finish();
  auto out = bo.download<std::uint8_t>();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) bad += out[i] != (x[i] < y[i] ? 1 : 0);
  CHECK(bad == 0);
  CHECK(out[static_cast<std::size_t>(n)] == 0x77);  // masked-off lanes leave memory alone
}

TEST_CASE("strided loads and stores (gathers and scatters) on 2-D blocks") {
  static const Kernel k("transpose", transpose_kernel, {"out", "out2", "in", "rows", "cols", "R", "C"});
  for (auto [rows, cols] : {std::pair<int, int>{5, 7}, {32, 64}, {64, 3}, {1, 100}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto x = random_floats(static_cast<std::size_t>(rows * cols), -1.f, 1.f, 9);
    Buffer bi = buffer(DType::f32, x.size()), bo = buffer(DType::f32, x.size()), b2 = buffer(DType::f32, x.size());
    bi.upload(x);
    bo.fill_bytes(0xff);
    b2.fill_bytes(0xff);
    int R = 1, C = 1;
    while (R < rows) R *= 2;
    while (C < cols) C *= 2;
    k.launch({1}, {bo, b2, bi, rows, cols, R, C}, options());
    finish();
    auto t = bo.download<float>(), back = b2.download<float>();
    std::int64_t bad = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        float v = x[static_cast<std::size_t>(r * cols + c)];
        bad += t[static_cast<std::size_t>(c * rows + r)] != v;
        bad += back[static_cast<std::size_t>(r * cols + c)] != 2 * v;
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("scalar loads and stores and a 3-D grid") {
  static const Kernel k("grid", grid_kernel, {"out", "x", "n"});
  const std::uint64_t nx = 5, ny = 3, nz = 2, total = nx * ny * nz;
  const std::int64_t n = 20;  // the last programs read nothing: -1 instead
  auto x = random_floats(n, -1.f, 1.f, 10);
  Buffer bx = buffer(DType::f32, n), bo = buffer(DType::f32, 2 * total);
  bx.upload(x);
  bo.fill_bytes(0xff);
  k.launch({nx, ny, nz}, {bo, bx, n}, options(1));
  finish();
  auto out = bo.download<float>();
  for (std::uint64_t z = 0; z < nz; ++z)
    for (std::uint64_t y = 0; y < ny; ++y)
      for (std::uint64_t xx = 0; xx < nx; ++xx) {
        std::uint64_t linear = (z * ny + y) * nx + xx;
        float v = linear < static_cast<std::uint64_t>(n) ? x[linear] : -1.0f;
        CHECK(out[2 * linear] == v + 0.5f);
        CHECK(out[2 * linear + 1] == static_cast<float>(xx + 10 * y + 100 * z + 1000 * (nx + ny + nz)));
      }
}

TEST_CASE("loops carry scalars through nesting and blocks through permutations") {
  static const Kernel k("loops", loops_kernel, {"out", "n", "m", "BLOCK"});
  for (auto [n, m] : {std::pair<int, int>{0, 3}, {1, 1}, {7, 5}, {20, 9}}) {
    CAPTURE(n);
    const int block = 32;
    Buffer bo = buffer(DType::f32, 1 + 2 * block);
    bo.fill_bytes(0xff);
    k.launch({1}, {bo, n, m, block}, options());
    finish();
    auto out = bo.download<float>();
    double total = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) total += i * j;
    CHECK(out[0] == static_cast<float>(total));
    for (int lane = 0; lane < block; ++lane) {
      double a = lane, b = 1;
      for (int i = 0; i < n; ++i) {
        double next = a + b;
        a = b;
        b = next;
      }
      CHECK(out[static_cast<std::size_t>(1 + lane)] == static_cast<float>(a));
      CHECK(out[static_cast<std::size_t>(1 + block + lane)] == static_cast<float>(b));
    }
  }
}

namespace {

void exp_kernel(tl::Ptr out, tl::Ptr x, tl::Int n, tl::Constexpr BASE2, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto v = tl::load(x + offs, mask);
  tl::store(out + offs, BASE2 ? tl::exp2(v) : tl::exp(v), mask);
}

}  // namespace

TEST_CASE("exp and exp2 over the whole float range: overflow, subnormal results, inf and NaN") {
  static const Kernel k("exp_range", exp_kernel, {"out", "x", "n", "BASE2", "BLOCK"});
  std::vector<float> x = {0.0f,    -0.0f,   1.0f,    -1.0f,    88.72283f, 88.72284f, 89.0f,   1e30f,
                          -87.3f,  -100.0f, -103.2f, -103.98f, -104.0f,   -1e30f,    127.99f, 128.0f,
                          -126.5f, -149.0f, -149.6f, -150.0f,  INFINITY,  -INFINITY, NAN};
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> u(-160.f, 130.f);
  while (x.size() < 5000) x.push_back(u(rng));
  const auto n = static_cast<std::int64_t>(x.size());
  Buffer bx = buffer(DType::f32, x.size()), bo = buffer(DType::f32, x.size());
  bx.upload(x);
  for (int base2 = 0; base2 < 2; ++base2) {
    CAPTURE(base2);
    bo.fill_bytes(0);
    k.launch({static_cast<std::uint64_t>(cdiv(n, 256))}, {bo, bx, n, base2, 256}, options());
    finish();
    auto out = bo.download<float>();
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      double want = base2 ? std::exp2(static_cast<double>(x[i])) : std::exp(static_cast<double>(x[i]));
      auto rounded = static_cast<float>(want);
      float got = out[i];
      bool ok;
      if (std::isnan(rounded)) ok = std::isnan(got);
      else if (std::isinf(rounded) || rounded == 0) ok = got == rounded || std::fabs(got - want) <= 1.5e-45;
      // Subnormal results: the GPU's exp2f is not exact there; allow 2e-6 of the smallest normal.
      else if (std::fabs(rounded) < 1.2e-38f) ok = std::fabs(got - want) <= 2e-6 * 1.18e-38;
      else ok = std::fabs(got - want) <= 2.5e-7 * want;  // about 2 ulp
      if (!ok) {
        MESSAGE("x = " << x[i] << ": got " << got << ", want " << want);
        ++bad;
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("loops with one, two or three cross-warp reductions per iteration") {
  static const tilejit_test::LoopReductionsKernel k("loop_reductions", tilejit_test::loop_reductions_kernel,
                                                    {"out", "x", "rows", "REDUCTIONS", "BLOCK"});
  const int block = 1024, rows = 9;
  // Small integers: every partial sum is exact in f32, so the result does not depend on order.
  std::vector<float> host(static_cast<std::size_t>(rows * block));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(1 + (i * 7919) % 13);
  Buffer bx = buffer(DType::f32, host.size());
  bx.upload(host);
  for (int reductions : {1, 2, 3}) {
    for (int warps : {4, 16, 32}) {  // 16 and 32: the partials across warps combined by a butterfly
      CAPTURE(reductions);
      CAPTURE(warps);
      Buffer bo = buffer(DType::f32, 1 + rows);
      bo.fill_bytes(0xff);
      k.launch({1}, {bo, bx, rows, reductions, block}, options(warps));
      finish();
      auto out = bo.download<float>();
      double total = 0;
      for (int r = 0; r < rows; ++r) {
        double sum = 0, mx = -1e30, mn = 1e30;
        for (int c = 0; c < block; ++c) {
          double v = host[static_cast<std::size_t>(r * block + c)];
          sum += v;
          mx = std::max(mx, v);
          mn = std::min(mn, v);
        }
        double step = sum + (reductions >= 2 ? mx * 1000 : 0) + (reductions >= 3 ? mn * 1000000 : 0);
        CHECK(out[static_cast<std::size_t>(1 + r)] == static_cast<float>(step));
        total += step;
      }
      CHECK(out[0] == static_cast<float>(total));
    }
  }
}
