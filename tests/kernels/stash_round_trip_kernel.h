// A kernel that round-trips blocks through a stash (tl::stash): numerics in test_stash.cpp, the
// generated code in tests/codegen.
#pragma once

#include <utility>

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit_test {

namespace tl = tilejit::tl;

// The offsets of an [R, C] block in row-major order, and its shape (1-D blocks of C when R is 1).
inline std::pair<tl::Tensor, tl::Shape> block_offsets(std::int64_t R, std::int64_t C) {
  auto cols = tl::arange(0, C);
  if (R == 1) return {cols, {C}};
  return {tl::arange(0, R)(tl::all, tl::newaxis) * C + cols(tl::newaxis, tl::all), {R, C}};
}

// Program p stashes SLOTS blocks of its part of `in` ([R, C] blocks; 1-D blocks of C when R is
// 1), then writes them to `out` last slot first. `outside` gets, per program, what slots -1 and
// SLOTS read after a put into slot SLOTS.
inline void stash_round_trip_kernel(tl::Ptr out, tl::Ptr outside, tl::Ptr in, tl::Int n, tl::Constexpr SLOTS,
                                    tl::Constexpr R, tl::Constexpr C, tl::Constexpr DTYPE) {
  auto [offs, shape] = block_offsets(R, C);
  const std::int64_t block = R.value * C.value, slots = SLOTS;
  auto kept = tl::stash(shape, static_cast<tilejit::DType>(DTYPE.value), slots);
  auto base = tl::program_id(0) * (slots * block);
  tl::for_range(0, SLOTS, [&](tl::Int s) {
    auto at = base + s * block + offs;
    kept.put(s, tl::load(in + at, at < n, 0.0));
  });
  kept.put(slots, 7.0);  // outside the stash: not written
  tl::for_range(0, SLOTS, [&](tl::Int i) {
    auto s = (slots - 1) - i;
    auto at = base + s * block + offs;
    tl::store(out + at, kept.get(s), at < n);
  });
  tl::store(outside + tl::program_id(0) * block + offs, kept.get(-1) + kept.get(slots));
}

// As stash_round_trip_kernel, with the blocks copied into the stash asynchronously (the stash
// has the input's type): block s + 1 is copied while block s is read back, first slot first, and
// a copy into slot SLOTS (outside the stash) is skipped.
inline void stash_copy_round_trip_kernel(tl::Ptr out, tl::Ptr outside, tl::Ptr in, tl::Int n, tl::Constexpr SLOTS,
                                         tl::Constexpr R, tl::Constexpr C) {
  auto [offs, shape] = block_offsets(R, C);
  const std::int64_t block = R.value * C.value, slots = SLOTS;
  auto kept = tl::stash(shape, in.dtype(), slots);
  auto base = tl::program_id(0) * (slots * block);
  kept.copy_async(0, in + base + offs, base + offs < n);
  tl::for_range(0, SLOTS, [&](tl::Int s) {
    auto next = base + (s + 1) * block + offs;
    kept.copy_async(s + 1, in + next, next < n);
    tl::wait_copies(1);  // all but the copy just started: block s has landed
    auto at = base + s * block + offs;
    tl::store(out + at, kept.get(s), at < n);
  });
  tl::wait_copies(0);
  tl::store(outside + tl::program_id(0) * block + offs, kept.get(-1) + kept.get(slots));
}

using StashCopyRoundTripKernel =
    tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr, tl::Constexpr, tl::Constexpr>;

inline const StashCopyRoundTripKernel& stash_copy_round_trip() {
  static const StashCopyRoundTripKernel k("stash_copy_round_trip", stash_copy_round_trip_kernel,
                                          {"out", "outside", "in", "n", "SLOTS", "R", "C"});
  return k;
}

using StashRoundTripKernel =
    tilejit::Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr, tl::Constexpr, tl::Constexpr, tl::Constexpr>;

inline const StashRoundTripKernel& stash_round_trip() {
  static const StashRoundTripKernel k("stash_round_trip", stash_round_trip_kernel,
                                      {"out", "outside", "in", "n", "SLOTS", "R", "C", "DTYPE"});
  return k;
}

}  // namespace tilejit_test
