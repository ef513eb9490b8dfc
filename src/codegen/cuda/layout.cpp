#include "codegen/cuda/layout.h"

#include <fmt/format.h>

#include <utility>

#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

int log2_exact(std::int64_t v) {
  int b = 0;
  while ((std::int64_t{1} << b) < v) ++b;
  return b;
}

Coord unit(int dim, int bit) {
  Coord c{0, 0};
  c[static_cast<std::size_t>(dim)] = std::int64_t{1} << bit;
  return c;
}

}  // namespace

Layout blocked_layout(const ir::Shape& shape, int num_warps, int vec) {
  Layout l;
  l.shape = shape;
  // Coordinate bits, fastest dimension first.
  std::vector<std::pair<int, int>> bits;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d)
    for (int b = 0; b < log2_exact(shape[static_cast<std::size_t>(d)]); ++b) bits.emplace_back(d, b);
  std::int64_t numel = 1;
  for (auto e : shape) numel *= e;
  std::int64_t threads = 32LL * num_warps;
  std::int64_t per_thread = numel >= threads ? numel / threads : 1;
  std::int64_t fastest = shape.empty() ? 1 : shape.back();
  int vec_bits = log2_exact(std::min(std::min<std::int64_t>(vec, per_thread), fastest));
  std::size_t next = 0;
  auto take = [&]() -> Coord {
    if (next >= bits.size()) return Coord{0, 0};
    auto [dim, bit] = bits[next++];
    return unit(dim, bit);
  };
  for (int i = 0; i < vec_bits; ++i) l.reg.push_back(take());
  for (int i = 0; i < 5; ++i) l.lane.push_back(take());
  for (int i = 0; i < log2_exact(num_warps); ++i) l.warp.push_back(take());
  while (next < bits.size()) l.reg.push_back(take());
  return l;
}

Layout slice_layout(const Layout& parent, int axis) {
  Layout l;
  l.shape = parent.shape;
  l.shape.erase(l.shape.begin() + axis);
  auto drop = [axis](const std::vector<Coord>& in) {
    std::vector<Coord> out;
    for (const Coord& c : in) out.push_back(axis == 0 ? Coord{c[1], 0} : Coord{c[0], 0});
    return out;
  };
  l.reg = drop(parent.reg);
  l.lane = drop(parent.lane);
  l.warp = drop(parent.warp);
  return l;
}

Layout expand_layout(const Layout& in, int axis) {
  if (in.rank() >= 2) throw InternalError("expand_layout: rank above 2");
  Layout l;
  l.shape = in.shape;
  l.shape.insert(l.shape.begin() + axis, 1);
  auto grow = [axis](const std::vector<Coord>& bases) {
    std::vector<Coord> out;
    for (const Coord& c : bases) out.push_back(axis == 0 ? Coord{0, c[0]} : Coord{c[0], 0});
    return out;
  };
  l.reg = grow(in.reg);
  l.lane = grow(in.lane);
  l.warp = grow(in.warp);
  return l;
}

Layout squeeze_layout(const Layout& in, int axis) {
  if (in.shape.at(static_cast<std::size_t>(axis)) != 1) throw InternalError("squeeze_layout: extent is not 1");
  return slice_layout(in, axis);
}

Layout broadcast_source_layout(const Layout& target, const ir::Shape& source) {
  Layout l = target;
  l.shape = source;
  for (std::size_t d = 0; d < source.size(); ++d) {
    if (source[d] != 1) continue;
    for (auto* bases : {&l.reg, &l.lane, &l.warp})
      for (Coord& c : *bases) c[d] = 0;
  }
  return l;
}

std::uint32_t replica_mask(const std::vector<Coord>& bases) {
  std::uint32_t m = 0;
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (bases[i][0] == 0 && bases[i][1] == 0) m |= 1u << i;
  return m;
}

std::uint32_t axis_mask(const std::vector<Coord>& bases, int axis) {
  std::uint32_t m = 0;
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (bases[i][static_cast<std::size_t>(axis)] != 0) m |= 1u << i;
  return m;
}

std::string coord_expr(const std::vector<Coord>& bases, int dim, const std::string& var) {
  std::vector<std::string> terms;
  for (std::size_t i = 0; i < bases.size(); ++i) {
    std::int64_t b = bases[i][static_cast<std::size_t>(dim)];
    if (b == 0) continue;
    terms.push_back(fmt::format("((({} >> {}) & 1) * {})", var, i, b));
  }
  if (terms.empty()) return "0";
  return fmt::format("({})", fmt::join(terms, " + "));
}

std::string to_string(const Layout& l) {
  auto list = [](const std::vector<Coord>& bases) {
    std::vector<std::string> s;
    for (const Coord& c : bases) s.push_back(fmt::format("({},{})", c[0], c[1]));
    return fmt::format("{}", fmt::join(s, ""));
  };
  return fmt::format("{} regs{} lanes{} warps{}", ir::shape_string(l.shape), list(l.reg), list(l.lane), list(l.warp));
}

}  // namespace tilejit::codegen::cuda
