// Programs sharing a thread block (CompileOptions::programs_per_block) against float64 references,
// on the backend this binary runs: on the GPU each block runs several programs, each with its own
// warps, shared memory and barrier; the CPU backend ignores the option, and the same answers
// are expected of it.
#include <doctest/doctest.h>

#include <cmath>

#include "example_kernels.h"
#include "kernel_test.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "softmax_reference.h"

using namespace tilejit;
using namespace tilejit::testing;

namespace {

namespace tl = tilejit::tl;

// Each program reduces one row of BLOCK across all its warps (shared memory and a barrier when
// it has several) and one thread stores the row's sum and max: scalar stores, once a program.
void row_stats_kernel(tl::Ptr stats, tl::Ptr x, tl::Int n_cols, tl::Constexpr BLOCK) {
  auto row = tl::program_id(0);
  auto cols = tl::arange(0, BLOCK);
  auto v = tl::load(x + row * n_cols + cols, cols < n_cols, 0.0);
  tl::store(stats + row * 2, tl::sum(v, 0));
  tl::store(stats + row * 2 + 1, tl::max(tl::where(cols < n_cols, v, -tl::inf), 0));
  // num_programs keeps its meaning: the last program also writes how many there are.
  tl::store(stats + tl::num_programs(0) * 2, tl::num_programs(0).to(DType::f32), row == tl::num_programs(0) - 1);
}

const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr>& row_stats() {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr> k("row_stats", row_stats_kernel,
                                                                  {"stats", "x", "n_cols", "BLOCK"});
  return k;
}

CompileOptions packed_options(int num_warps, int num_stages, int programs_per_block) {
  CompileOptions o = compile_options(num_warps, num_stages);
  o.programs_per_block = programs_per_block;
  return o;
}

}  // namespace

TEST_CASE("seed softmax with several programs a block matches float64, past the last full block too") {
  struct Case {
    std::int64_t rows, cols;
    int warps, stages, programs;
  };
  // One-warp programs (shuffles only) and two-warp ones (a shared-memory exchange and a barrier a
  // reduction, each program at its own); rows that leave the last block part empty.
  for (auto c : {Case{1001, 128, 1, 8, 4}, Case{4099, 100, 1, 4, 2}, Case{777, 33, 1, 2, 16}, Case{517, 256, 2, 3, 4},
                 Case{3, 1000, 4, 2, 8}}) {
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(c.warps);
    CAPTURE(c.programs);
    const std::int64_t block = examples::next_power_of_two(c.cols);
    auto host = softmax_input(c.rows, c.cols, static_cast<unsigned>(c.rows + c.cols));
    auto ref = examples::softmax_reference(host, c.rows, c.cols, c.cols);
    Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, host.size());
    in.upload(host);

    out.fill_bytes(0xff);  // NaN: unwritten outputs cannot pass
    std::vector<Arg> args{out, in, c.cols, c.cols, c.rows, c.cols, block, c.stages};
    const auto& k = examples::softmax_persistent().compile(args, packed_options(c.warps, c.stages, c.programs));
    const std::uint64_t grid = persistent_grid(k, static_cast<std::uint64_t>(c.rows));
    if (backend() == Backend::cuda) {
      CHECK(k.metadata().programs_per_block == c.programs);
      // The device holds whole blocks: a persistent grid counts programs, a multiple of the block's
      // (unless the rows are fewer).
      const auto resident = resident_programs(k);
      CHECK(resident % static_cast<std::uint64_t>(c.programs) == 0);
      CHECK(grid == std::min<std::uint64_t>(resident, static_cast<std::uint64_t>(c.rows)));
    }
    k.launch({grid}, args, options(c.warps, c.stages));
    finish();
    check_f32_rows(out, ref, c.rows, c.cols);

    // One program a row: a grid that is not a multiple of the programs a block.
    out.fill_bytes(0xff);
    std::vector<Arg> row_args{out, in, c.cols, c.cols, c.cols, block};
    examples::softmax_simple()
        .compile(row_args, packed_options(c.warps, 1, c.programs))
        .launch({static_cast<std::uint64_t>(c.rows)}, row_args, options(c.warps));
    finish();
    check_f32_rows(out, ref, c.rows, c.cols);
  }
}

TEST_CASE("2-D blocks with several programs a block match float64") {
  const std::int64_t rows = 1003, cols = 40, rows_per_program = 8, block_cols = 64;
  auto host = softmax_input(rows, cols, 5);
  auto ref = examples::softmax_reference(host, rows, cols, cols);
  Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, host.size());
  in.upload(host);
  for (int programs : {2, 3, 8}) {
    CAPTURE(programs);
    out.fill_bytes(0xff);
    std::vector<Arg> args{out, in, cols, cols, rows, cols, rows_per_program, block_cols};
    examples::softmax_rows_2d()
        .compile(args, packed_options(2, 1, programs))
        .launch({static_cast<std::uint64_t>(cdiv(rows, rows_per_program))}, args, options(2));
    finish();
    check_f32_rows(out, ref, rows, cols);
  }
}

TEST_CASE("programs sharing a block store their scalars once each and see the grid's program count") {
  for (int warps : {1, 4}) {
    const std::int64_t rows = 301, cols = 300, block = 512;
    CAPTURE(warps);
    auto x = random_floats(static_cast<std::size_t>(rows * cols), -4.f, 4.f, static_cast<unsigned>(warps));
    Buffer bx = buffer(DType::f32, x.size()), stats = buffer(DType::f32, static_cast<std::size_t>(2 * rows + 1));
    bx.upload(x);
    stats.fill_bytes(0xff);
    std::vector<Arg> args{stats, bx, cols, block};
    row_stats()
        .compile(args, packed_options(warps, 1, 32 / warps / 2))
        .launch({static_cast<std::uint64_t>(rows)}, args, options(warps));
    finish();
    auto got = stats.download<float>();
    std::int64_t bad = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
      double sum = 0, max = -INFINITY;
      for (std::int64_t c = 0; c < cols; ++c) {
        sum += x[static_cast<std::size_t>(r * cols + c)];
        max = std::max(max, static_cast<double>(x[static_cast<std::size_t>(r * cols + c)]));
      }
      const auto s = got[static_cast<std::size_t>(2 * r)], m = got[static_cast<std::size_t>(2 * r + 1)];
      bad += !(std::fabs(s - sum) <= 1e-4 * (1 + std::fabs(sum))) || m != static_cast<float>(max);
    }
    CHECK(bad == 0);
    CHECK(got[static_cast<std::size_t>(2 * rows)] == static_cast<float>(rows));
  }
}
