// Axis analysis: what is known about the integer and pointer values of a kernel along each
// dimension, from its specialization facts (aligned pointers, strides divisible by 16) and
// from how values are built (arange is contiguous, splats are constant). Backends use it to
// prove that a thread's contiguous elements may be moved with one vector access.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>

#include "ir/ir.h"

namespace tilejit::passes {

struct AxisFacts {
  static constexpr std::int64_t kMax = std::int64_t{1} << 30;
  /// Along each dimension: values come in runs of this many consecutive integers (+1 each;
  /// pointers: consecutive elements).
  std::array<std::int64_t, 2> contiguity{1, 1};
  /// The first value of each such run is a multiple of this (pointers: in bytes).
  std::array<std::int64_t, 2> divisibility{1, 1};
  /// Values come in runs of this many equal values.
  std::array<std::int64_t, 2> constancy{1, 1};
  bool operator==(const AxisFacts&) const = default;
};

class AxisInfo {
 public:
  /// Facts about `v`; unknown values get the weakest facts.
  const AxisFacts& of(ir::ValueId v) const;
  void set(ir::ValueId v, const AxisFacts& f) { facts_[v] = f; }

 private:
  std::unordered_map<ir::ValueId, AxisFacts> facts_;
  AxisFacts unknown_;
};

AxisInfo analyze_axes(const ir::Function& f);

}  // namespace tilejit::passes
