// Stashes (tl::stash) on the backend this binary runs: blocks put into shared memory come back
// unchanged (in the stash's type), slot by slot and in any order; a slot outside the stash is not
// written and reads as zeros. The inputs are small integers, exact in every stash type, so the
// expected values are the inputs themselves.
#include <doctest/doctest.h>

#include "half_bits.h"
#include "kernel_test.h"
#include "stash_round_trip_kernel.h"

using namespace tilejit;
using namespace tilejit::testing;

namespace {

struct Case {
  std::int64_t slots, rows, cols;
  DType dtype;
  int num_warps;
};

}  // namespace

TEST_CASE("stash: blocks come back from their slots; slots outside the stash are skipped and read zeros") {
  const auto& k = tilejit_test::stash_round_trip();
  // The last case keeps 192 KiB a program: more than the 48 KiB a GPU block gets without opting in.
  for (const Case& c : {Case{4, 1, 1024, DType::f32, 4}, Case{3, 1, 512, DType::bf16, 4}, Case{2, 8, 64, DType::i32, 2},
                        Case{2, 4, 256, DType::bf16, 4}, Case{12, 1, 4096, DType::f32, 8}}) {
    CAPTURE(c.slots);
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(dtype_name(c.dtype));
    const std::int64_t programs = 3, block = c.rows * c.cols;
    const std::int64_t n = programs * c.slots * block - 37;  // the last block partly masked
    std::vector<float> x(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i % 251 - 125);
    Buffer in = buffer(DType::f32, x.size()), out = buffer(DType::f32, x.size());
    Buffer outside = buffer(DType::f32, static_cast<std::size_t>(programs * block));
    in.upload(x);
    out.fill_bytes(0xff);
    outside.fill_bytes(0xff);
    k.launch({static_cast<std::uint64_t>(programs)},
             {out, outside, in, n, c.slots, c.rows, c.cols, static_cast<std::int64_t>(c.dtype)}, options(c.num_warps));
    finish();
    auto y = out.download<float>();
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) wrong += y[i] != x[i];
    CHECK(wrong == 0);
    auto z = outside.download<float>();
    std::int64_t nonzero = 0;
    for (float v : z) nonzero += v != 0.0f;
    CHECK(nonzero == 0);
  }
}

TEST_CASE("stash: blocks copied asynchronously land by the wait that covers them") {
  const auto& k = tilejit_test::stash_copy_round_trip();
  // f32 (16-byte copies) and bf16 (8 elements a thread: 16 bytes; 2-D: 4 a thread, 8 bytes).
  for (const Case& c :
       {Case{4, 1, 1024, DType::f32, 4}, Case{3, 1, 2048, DType::bf16, 8}, Case{2, 8, 64, DType::f32, 2},
        Case{3, 4, 256, DType::bf16, 8}, Case{12, 1, 4096, DType::f32, 8}}) {
    CAPTURE(c.slots);
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(dtype_name(c.dtype));
    const std::int64_t programs = 3, block = c.rows * c.cols;
    const std::int64_t n = programs * c.slots * block - 37;
    std::vector<float> x(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i % 251 - 125);
    Buffer in = buffer(c.dtype, x.size()), out = buffer(DType::f32, x.size());
    Buffer outside = buffer(DType::f32, static_cast<std::size_t>(programs * block));
    if (c.dtype == DType::f32) in.upload(x);
    else in.upload(examples::to_half_bits(c.dtype, x));
    out.fill_bytes(0xff);
    outside.fill_bytes(0xff);
    k.launch({static_cast<std::uint64_t>(programs)}, {out, outside, in, n, c.slots, c.rows, c.cols},
             options(c.num_warps));
    finish();
    auto y = out.download<float>();
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < x.size(); ++i) wrong += y[i] != x[i];
    CHECK(wrong == 0);
    std::int64_t nonzero = 0;
    for (float v : outside.download<float>()) nonzero += v != 0.0f;
    CHECK(nonzero == 0);
  }
}
