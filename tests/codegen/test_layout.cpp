// Distributed layouts. Expected bases are worked out by hand from the layout definition
// (layout.h): element(reg, lane, warp) = sum of the bases of the set bits.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "codegen/cuda/layout.h"

using namespace tilejit::codegen::cuda;
using tilejit::ir::Shape;

namespace {

Coord element(const Layout& l, int reg, int lane, int warp) {
  Coord c{0, 0};
  auto add = [&](const std::vector<Coord>& bases, int index) {
    for (std::size_t b = 0; b < bases.size(); ++b)
      if (index & (1 << b)) {
        c[0] += bases[b][0];
        c[1] += bases[b][1];
      }
  };
  add(l.reg, reg);
  add(l.lane, lane);
  add(l.warp, warp);
  return c;
}

// How many (reg, lane, warp) triples hold each element.
std::map<Coord, int> coverage(const Layout& l) {
  std::map<Coord, int> count;
  for (int w = 0; w < (1 << l.warp.size()); ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < l.num_regs(); ++r) ++count[element(l, r, lane, w)];
  return count;
}

std::int64_t numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto e : s) n *= e;
  return n;
}

// Every element of the shape is held exactly `copies` times, and nothing outside it.
void check_covers(const Layout& l, int copies) {
  auto count = coverage(l);
  CHECK(static_cast<std::int64_t>(count.size()) == numel(l.shape));
  for (const auto& [c, n] : count) {
    CAPTURE(c[0]);
    CAPTURE(c[1]);
    CHECK(n == copies);
    CHECK(c[0] < l.shape.at(0));
    if (l.rank() == 2) CHECK(c[1] < l.shape[1]);
    else CHECK(c[1] == 0);
  }
}

using Bases = std::vector<Coord>;

}  // namespace

TEST_CASE("blocked layout of [1024], 4 warps, vec 4") {
  Layout l = blocked_layout({1024}, 4, 4);
  // 8 elements per thread: 4 contiguous, then the rest after lanes and warps.
  CHECK(l.reg == Bases{{1, 0}, {2, 0}, {512, 0}});
  CHECK(l.lane == Bases{{4, 0}, {8, 0}, {16, 0}, {32, 0}, {64, 0}});
  CHECK(l.warp == Bases{{128, 0}, {256, 0}});
  CHECK(l.num_regs() == 8);
  check_covers(l, 1);
  CHECK(replica_mask(l.reg) == 0);
  CHECK(replica_mask(l.lane) == 0);
  CHECK(replica_mask(l.warp) == 0);
}

TEST_CASE("blocked layout vector width is capped by the elements per thread and the row") {
  // 256 elements over 256 threads: one each, so no vector.
  Layout one = blocked_layout({256}, 8, 4);
  CHECK(one.reg.empty());
  CHECK(one.lane.front() == Coord{1, 0});
  check_covers(one, 1);
  // Rows of 2 columns: at most 2 contiguous elements.
  Layout narrow = blocked_layout({512, 2}, 1, 8);
  REQUIRE(!narrow.reg.empty());
  CHECK(narrow.reg[0] == Coord{0, 1});
  CHECK(narrow.reg[1] != Coord{0, 2});
  check_covers(narrow, 1);
}

TEST_CASE("blocked layout of a 2-D block: columns fastest") {
  Layout l = blocked_layout({32, 64}, 4, 4);
  // 2048 elements / 128 threads = 16 per thread; 4 contiguous columns, lanes over the rest of
  // the 64 columns (16 per row) and 2 rows, warps over rows.
  CHECK(l.reg.size() == 4);
  CHECK(l.reg[0] == Coord{0, 1});
  CHECK(l.reg[1] == Coord{0, 2});
  CHECK(l.lane == Bases{{0, 4}, {0, 8}, {0, 16}, {0, 32}, {1, 0}});
  CHECK(l.warp == Bases{{2, 0}, {4, 0}});
  CHECK(l.reg[2] == Coord{8, 0});
  CHECK(l.reg[3] == Coord{16, 0});
  check_covers(l, 1);
  CHECK(axis_mask(l.lane, 1) == 0b01111);
  CHECK(axis_mask(l.lane, 0) == 0b10000);
  CHECK(axis_mask(l.reg, 0) == 0b1100);
}

TEST_CASE("small blocks are replicated, and replica masks name the copies") {
  SUBCASE("[16] with 4 warps") {
    Layout l = blocked_layout({16}, 4, 4);
    CHECK(l.reg.empty());
    CHECK(l.lane == Bases{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}});
    CHECK(l.warp == Bases{{0, 0}, {0, 0}});
    CHECK(replica_mask(l.reg) == 0);
    CHECK(replica_mask(l.lane) == 0b10000);
    CHECK(replica_mask(l.warp) == 0b11);
    check_covers(l, 128 / 16);
  }
  SUBCASE("[64] with 4 warps") {
    Layout l = blocked_layout({64}, 4, 4);
    CHECK(replica_mask(l.lane) == 0);
    CHECK(replica_mask(l.warp) == 0b10);
    check_covers(l, 2);
  }
  SUBCASE("[4, 4] with 1 warp") {
    Layout l = blocked_layout({4, 4}, 1, 4);
    // 16 elements, 4 lane bits walk them, the fifth copies.
    CHECK(replica_mask(l.lane) == 0b10000);
    check_covers(l, 2);
  }
}

TEST_CASE("slice layout: the reduced axis becomes replication") {
  Layout parent = blocked_layout({32, 64}, 4, 4);
  SUBCASE("axis 1 (sum over columns) keeps the rows") {
    Layout s = slice_layout(parent, 1);
    CHECK(s.shape == Shape{32});
    REQUIRE(s.reg.size() == parent.reg.size());
    // Each thread's copy of row i is the row of the parent elements it held.
    for (int w = 0; w < 4; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < parent.num_regs(); ++r) {
          CHECK(element(s, r, lane, w)[0] == element(parent, r, lane, w)[0]);
          CHECK(element(s, r, lane, w)[1] == 0);
        }
    // Bits that walked the columns now select copies.
    CHECK(replica_mask(s.reg) == axis_mask(parent.reg, 1));
    CHECK(replica_mask(s.lane) == axis_mask(parent.lane, 1));
    CHECK(replica_mask(s.warp) == axis_mask(parent.warp, 1));
    check_covers(s, 64);
  }
  SUBCASE("axis 0 keeps the columns") {
    Layout s = slice_layout(parent, 0);
    CHECK(s.shape == Shape{64});
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < parent.num_regs(); ++r) CHECK(element(s, r, lane, 3)[0] == element(parent, r, lane, 3)[1]);
    check_covers(s, 32);
  }
}

TEST_CASE("expand and squeeze are inverses; a unit axis has no bases") {
  Layout row = blocked_layout({64}, 2, 4);
  Layout e0 = expand_layout(row, 0);
  CHECK(e0.shape == Shape{1, 64});
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < row.num_regs(); ++r) {
      Coord c = element(e0, r, lane, 1);
      CHECK(c[0] == 0);
      CHECK(c[1] == element(row, r, lane, 1)[0]);
    }
  Layout e1 = expand_layout(row, 1);
  CHECK(e1.shape == Shape{64, 1});
  CHECK(squeeze_layout(e0, 0) == row);
  CHECK(squeeze_layout(e1, 1) == row);
}

TEST_CASE("a reduction's result, expanded, is the broadcast source layout of its parent") {
  // This is why broadcasting a row max back over the row costs no data movement.
  Layout parent = blocked_layout({32, 64}, 4, 4);
  CHECK(expand_layout(slice_layout(parent, 1), 1) == broadcast_source_layout(parent, {32, 1}));
  CHECK(expand_layout(slice_layout(parent, 0), 0) == broadcast_source_layout(parent, {1, 64}));
}

TEST_CASE("broadcast source layout: every thread holds the source element its target element comes from") {
  Layout target = blocked_layout({16, 128}, 8, 4);
  for (const Shape& source : {Shape{16, 1}, Shape{1, 128}}) {
    Layout src = broadcast_source_layout(target, source);
    CHECK(src.shape == source);
    for (int w = 0; w < 8; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < target.num_regs(); ++r) {
          Coord t = element(target, r, lane, w);
          Coord s = element(src, r, lane, w);
          CHECK(s[0] == (source[0] == 1 ? 0 : t[0]));
          CHECK(s[1] == (source[1] == 1 ? 0 : t[1]));
        }
  }
}
