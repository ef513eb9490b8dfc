// Stashes (tl::stash) on the backend this binary runs: blocks put into shared memory come back
// unchanged (in the stash's type), slot by slot and in any order; a slot outside the stash is not
// written and reads as zeros. The inputs are small integers, exact in every stash type, so the
// expected values are the inputs themselves.
#include <doctest/doctest.h>

#include "half_bits.h"
#include "kernel_test.h"
#include "stash_cases.h"
#include "stash_round_trip_kernel.h"

using namespace tilejit;
using namespace tilejit::testing;

namespace {

using Case = tilejit_test::StashCase;

constexpr std::int64_t kPrograms = 3;

// Small integers (exact in every stash type) in `dtype`, a last block partly masked (37 short).
struct RoundTrip {
  std::vector<float> x;
  Buffer in, out, outside;
  RoundTrip(const Case& c, DType dtype)
      : x(static_cast<std::size_t>(kPrograms * c.slots * c.rows * c.cols - 37)),
        in(buffer(dtype, x.size())),
        out(buffer(DType::f32, x.size())),
        outside(buffer(DType::f32, static_cast<std::size_t>(kPrograms * c.rows * c.cols))) {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 251) - 125);
    if (dtype == DType::f32) in.upload(x);
    else in.upload(examples::to_half_bits(dtype, x));
    out.fill_bytes(0xff);
    outside.fill_bytes(0xff);
  }
  std::int64_t n() const { return static_cast<std::int64_t>(x.size()); }
  // Every element came back, and what the slots outside the stash read is zero.
  void check() {
    finish();
    auto y = out.download<float>();
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) wrong += y[i] != x[i];
    CHECK(wrong == 0);
    std::int64_t nonzero = 0;
    for (float v : outside.download<float>()) nonzero += v != 0.0f;
    CHECK(nonzero == 0);
  }
};

}  // namespace

TEST_CASE("stash: blocks come back from their slots; slots outside the stash are skipped and read zeros") {
  const auto& k = tilejit_test::stash_round_trip();
  for (const Case& c : tilejit_test::stash_round_trip_cases()) {
    INFO(tilejit_test::describe(c));
    RoundTrip t(c, DType::f32);
    k.launch({kPrograms}, {t.out, t.outside, t.in, t.n(), c.slots, c.rows, c.cols, static_cast<std::int64_t>(c.dtype)},
             options(c.num_warps));
    t.check();
  }
}

TEST_CASE("stash: blocks copied asynchronously land by the wait that covers them") {
  const auto& k = tilejit_test::stash_copy_round_trip();
  for (const Case& c : tilejit_test::stash_copy_round_trip_cases()) {
    INFO(tilejit_test::describe(c));
    RoundTrip t(c, c.dtype);
    k.launch({kPrograms}, {t.out, t.outside, t.in, t.n(), c.slots, c.rows, c.cols}, options(c.num_warps));
    t.check();
  }
}
