// tl::argmax and tl::argmin on either backend: 1-D and 2-D blocks along each axis, masked tails,
// ties, -inf and NaN, floats and integers, against indices found here on the host.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

namespace {

// out[...] = argmax/argmin (MIN = 0/1) of the rows x cols tile of x (row-major, padded with
// -inf/+inf or the integer extremes past the edges) along AXIS.
void arg_kernel(tl::Ptr out, tl::Ptr x, tl::Int rows, tl::Int cols, tl::Constexpr MIN, tl::Constexpr AXIS,
                tl::Constexpr R, tl::Constexpr C) {
  auto r = tl::arange(0, R);
  auto c = tl::arange(0, C);
  auto mask = (r(tl::all, tl::newaxis) < rows) & (c(tl::newaxis, tl::all) < cols);
  auto offs = r(tl::all, tl::newaxis) * cols + c(tl::newaxis, tl::all);
  tl::Tensor pad = tl::load(x + offs, mask);  // masked-off lanes are replaced below
  const bool is_int = pad.dtype() == DType::i32;
  constexpr std::int32_t most = std::numeric_limits<std::int32_t>::max(), least = -most - 1;
  auto edge = is_int ? tl::full({R, C}, MIN == 1 ? most : least, DType::i32)
                     : tl::full({R, C}, MIN == 1 ? tl::inf : -tl::inf, pad.dtype());
  auto v = tl::where(mask, pad, edge);
  auto idx = MIN == 1 ? tl::argmin(v, static_cast<int>(AXIS)) : tl::argmax(v, static_cast<int>(AXIS));
  if (AXIS == 1) tl::store(out + r, idx, r < rows);
  else tl::store(out + c, idx, c < cols);
}

// The first index along the axis holding the extreme, or the first NaN.
std::vector<std::int32_t> reference(const std::vector<double>& x, std::int64_t rows, std::int64_t cols, bool min,
                                    int axis) {
  const std::int64_t outer = axis == 1 ? rows : cols, inner = axis == 1 ? cols : rows;
  std::vector<std::int32_t> out(static_cast<std::size_t>(outer));
  for (std::int64_t o = 0; o < outer; ++o) {
    std::int64_t best = 0;
    auto at = [&](std::int64_t i) { return x[static_cast<std::size_t>(axis == 1 ? o * cols + i : i * cols + o)]; };
    for (std::int64_t i = 1; i < inner; ++i) {
      const double a = at(i), b = at(best);
      if (std::isnan(b)) break;
      if (std::isnan(a) || (min ? a < b : a > b)) best = i;
    }
    out[static_cast<std::size_t>(o)] = static_cast<std::int32_t>(best);
  }
  return out;
}

}  // namespace

TEST_CASE("argmax and argmin along each axis: first of ties, -inf, NaN, masked edges, f32 and i32") {
  static const Kernel k("arg", arg_kernel, {"out", "x", "rows", "cols", "MIN", "AXIS", "R", "C"});
  const std::int64_t rows = 13, cols = 29;
  std::mt19937 rng(3);
  std::vector<double> x(static_cast<std::size_t>(rows * cols));
  for (auto& v : x) v = static_cast<double>(static_cast<int>(rng() % 9) - 4);  // many ties
  x[5] = -std::numeric_limits<double>::infinity();
  for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(2 * cols + c)] = -1;  // a row all equal
  for (DType t : {DType::f32, DType::i32})
    for (bool with_nan : {false, true}) {
      if (with_nan && t == DType::i32) continue;
      std::vector<double> in = x;
      if (with_nan) {
        in[static_cast<std::size_t>(4 * cols + 7)] = std::nan("");
        in[static_cast<std::size_t>(4 * cols + 20)] = std::nan("");
        in[static_cast<std::size_t>(9 * cols + 3)] = std::nan("");
      }
      if (t == DType::i32 && in[5] < -1e9) in[5] = -2147483647.0;
      Buffer bx = buffer(t, in.size()), out = buffer(DType::i32, 64);
      if (t == DType::f32) bx.upload(std::vector<float>(in.begin(), in.end()));
      else bx.upload(std::vector<std::int32_t>(in.begin(), in.end()));
      for (int min : {0, 1})
        for (int axis : {0, 1})
          for (auto [R, C] : {std::pair<int, int>{16, 32}, {32, 32}}) {
            CAPTURE(dtype_name(t));
            CAPTURE(with_nan);
            CAPTURE(min);
            CAPTURE(axis);
            CAPTURE(R);
            out.fill_bytes(0xff);
            k.launch(Grid(1), {out, bx, rows, cols, min, axis, R, C}, options(4));
            finish();
            const auto want = reference(in, rows, cols, min == 1, axis);
            auto got = out.download<std::int32_t>();
            got.resize(want.size());
            CHECK(got == want);
          }
    }
}
