// The seed softmax kernels and the other examples on a GPU, against float64 references.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "example_kernels.h"
#include "kernels/softmax_online.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "kernels/vector_add.h"
#include "softmax_reference.h"
#include "tilejit/tilejit.h"

using namespace tilejit;

namespace {

// Fresh random rows, with special rows mixed in: -inf entries, large magnitudes, all -inf.
std::vector<float> make_input(std::int64_t rows, std::int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<float> x(static_cast<std::size_t>(rows * cols));
  for (auto& v : x) v = normal(rng);
  const float inf = std::numeric_limits<float>::infinity();
  if (rows > 1)
    for (std::int64_t c = 0; c < cols; c += 3) x[static_cast<std::size_t>(cols + c)] = -inf;  // row 1: some -inf
  if (rows > 2)
    for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(2 * cols + c)] *= 1e4f;  // row 2: large
  if (rows > 3 && cols > 1)
    for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(3 * cols + c)] = -inf;  // row 3: all -inf
  return x;
}

int seed_warps(std::int64_t block) { return block >= 4096 ? 16 : block >= 2048 ? 8 : 4; }

void check_softmax(const std::string& which, std::int64_t rows, std::int64_t cols) {
  CAPTURE(which);
  CAPTURE(rows);
  CAPTURE(cols);
  std::int64_t block = examples::next_power_of_two(cols);
  auto host = make_input(rows, cols, static_cast<unsigned>(rows * 131 + cols));
  Buffer in(DType::f32, host.size()), out(DType::f32, host.size());
  in.upload(host);
  out.fill_bytes(0xff);
  LaunchOptions opts{seed_warps(block), 2, "", nullptr};
  if (which == "simple") {
    examples::softmax_simple().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, block}, opts);
  } else {
    std::vector<Arg> args{out, in, cols, cols, rows, cols, block, 2};
    const auto& k = examples::softmax_persistent().compile(args, {opts.num_warps, opts.num_stages, ""});
    k.launch({persistent_grid(k, static_cast<std::uint64_t>(rows))}, args);
  }
  synchronize();
  auto result = out.download<float>();
  auto cmp = examples::compare_rows(result, examples::softmax_reference(host, rows, cols, cols), rows, cols, cols);
  CAPTURE(cmp.worst_row);
  CHECK(cmp.nan_mismatches == 0);
  CHECK(cmp.max_rel_error <= 1e-5);
}

}  // namespace

TEST_CASE("seed softmax kernels match float64 for every shape") {
  for (std::int64_t rows : {1, 7, 4096, 4099})
    for (std::int64_t cols : {1, 2, 31, 32, 33, 127, 1000, 1024, 4097, 16384})
      for (const char* which : {"simple", "persistent"}) check_softmax(which, rows, cols);
}

TEST_CASE("the widest seed kernels use no local memory on the device") {
  for (std::int64_t block : {4096, 16384}) {
    const auto& k = examples::softmax_persistent().compile(
        {Pointer{0x100, DType::f32}, Pointer{0x200, DType::f32}, block, block, 4096, block, block, 2}, {8, 2, ""});
    auto r = k.resources();
    CAPTURE(block);
    CHECK(r.local_bytes == 0);
    CHECK(r.n_regs > 0);
    CHECK(r.max_active_blocks_per_sm >= 1);
    CHECK(persistent_grid(k, 1u << 20) >= static_cast<std::uint64_t>(device_properties().sm_count));
    CHECK(persistent_grid(k, 3) == 3);
  }
}

TEST_CASE("vector add") {
  for (std::int64_t n : {1, 1000, (1 << 20) + 3}) {
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> u(-10.f, 10.f);
    std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    for (auto& v : x) v = u(rng);
    for (auto& v : y) v = u(rng);
    Buffer bx(DType::f32, x.size()), by(DType::f32, y.size()), bo(DType::f32, x.size());
    bx.upload(x);
    by.upload(y);
    bo.fill_bytes(0xff);
    examples::vector_add().launch({static_cast<std::uint64_t>(cdiv(n, 256))}, {bx, by, bo, n, 256});
    auto out = bo.download<float>();
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += out[i] != x[i] + y[i];
    CAPTURE(n);
    CHECK(bad == 0);
  }
}

TEST_CASE("2-D many-rows softmax and online softmax match float64") {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 20}, {1000, 64}, {513, 100}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto host = make_input(rows, cols, 99);
    Buffer in(DType::f32, host.size()), out(DType::f32, host.size());
    in.upload(host);
    out.fill_bytes(0xff);
    std::int64_t block = examples::next_power_of_two(cols), per = std::max<std::int64_t>(1, 1024 / block);
    examples::softmax_rows_2d().launch({static_cast<std::uint64_t>(cdiv(rows, per))},
                                       {out, in, cols, cols, rows, cols, per, block}, {4, 1, "", nullptr});
    auto cmp = examples::compare_rows(out.download<float>(), examples::softmax_reference(host, rows, cols, cols), rows,
                                      cols, cols);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= 1e-5);
  }
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {5, 3000}, {64, 65536}, {3, 100003}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto host = make_input(rows, cols, 7);
    Buffer in(DType::f32, host.size()), out(DType::f32, host.size());
    in.upload(host);
    out.fill_bytes(0xff);
    examples::softmax_online().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, 1024},
                                      {8, 1, "", nullptr});
    auto cmp = examples::compare_rows(out.download<float>(), examples::softmax_reference(host, rows, cols, cols), rows,
                                      cols, cols);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= 1e-5);
  }
}

TEST_CASE("a bad launch raises CudaError naming the driver call") {
  Buffer a(DType::f32, 16);
  const auto& k = examples::vector_add().compile({a, a, a, 16, 16});
  try {
    k.launch({1, 65536, 1}, {a, a, a, 16, 16});  // grid.y above the device limit
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK(e.call() == "cuLaunchKernel");
    CHECK(std::string(e.what()).find("65536") != std::string::npos);
  }
  // The error is not sticky: the next launch works.
  k.launch({1}, {a, a, a, 16, 16});
  synchronize();
}
