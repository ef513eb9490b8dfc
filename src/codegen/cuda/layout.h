// Distributed layouts: how the elements of a block value are spread over a program's
// registers, lanes and warps.
//
// A layout lists, for every bit of the register index, of the lane id and of the warp id,
// the element coordinate that bit contributes (one power of two in one dimension, or zero).
// The element held by (register r, lane l, warp w) is the sum of the bases of the set bits.
// A zero basis means replication: the bit selects a copy of the same element. This one
// representation covers blocked layouts, the slices reductions produce and the views
// broadcasting needs, so relating two layouts is a comparison of bases.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tilejit::codegen::cuda {

using Coord = std::array<std::int64_t, 2>;

struct Layout {
  ir::Shape shape;
  std::vector<Coord> reg;   // one per register-index bit
  std::vector<Coord> lane;  // 5 entries
  std::vector<Coord> warp;  // log2(num_warps) entries

  int rank() const { return static_cast<int>(shape.size()); }
  int num_regs() const { return 1 << reg.size(); }
  bool operator==(const Layout&) const = default;
};

/// The default layout of a shape: `vec` contiguous elements of the fastest dimension per
/// register group, then lanes, then warps, then more registers (Triton's blocked layout).
Layout blocked_layout(const ir::Shape& shape, int num_warps, int vec);
/// The layout of a reduction's result: dimension `axis` removed; bases along it become
/// replication.
Layout slice_layout(const Layout& parent, int axis);
/// A unit dimension inserted at `axis` (expand_dims).
Layout expand_layout(const Layout& l, int axis);
/// `axis`, a unit dimension, removed (the inverse of expand_layout).
Layout squeeze_layout(const Layout& l, int axis);
/// The layout a broadcast source of shape `source` must have so that broadcasting it to
/// `target`'s shape is a register copy: `target` with the broadcast dimensions zeroed.
Layout broadcast_source_layout(const Layout& target, const ir::Shape& source);

/// Bit masks of the register / lane / warp bits whose basis is zero (replicas).
std::uint32_t replica_mask(const std::vector<Coord>& bases);
/// Bit mask of the bits whose basis lies along `axis`.
std::uint32_t axis_mask(const std::vector<Coord>& bases, int axis);
/// Whether a reduction whose axis spans `slots` warps combines their partials (after one
/// shared-memory round trip) by a butterfly of shuffles, lane l taking warp l % slots's partial,
/// rather than every thread reading every warp's slot: for one result of 4-byte values over 16
/// warps or more. Every warp reading every slot costs slots x slots shared-memory cycles (32 warps:
/// about 1000 a reduction); the butterfly a chain of log2(slots) shuffles, longer than the loop's
/// latency at a few slots. Measured on the H200 (bench/results/held_slices_2026-12-04.md): 1%
/// faster for 32 warps, level for 16; with 8 warps f32 128 x 1M read 2% slower in one run, so
/// below 16 the loop stays. Both generators decide so, so their kernels sum in the same order.
inline bool butterfly_across_warps(std::int64_t results, int value_bytes, int slots) {
  return results == 1 && value_bytes == 4 && slots >= 16;
}

/// C expression for coordinate `dim` contributed by the bits of `var` under `bases`.
std::string coord_expr(const std::vector<Coord>& bases, int dim, const std::string& var);

/// Compact description for comments: "regs[(0,1),(0,2)] lanes[...] warps[...]".
std::string to_string(const Layout& l);

}  // namespace tilejit::codegen::cuda
