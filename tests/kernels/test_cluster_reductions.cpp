// Reductions across thread-block clusters (tl::cluster_max / cluster_min / cluster_sum) and
// across groups of programs through global memory (tl::group_*) on either backend: rows split
// over the programs of a set (kernels/cluster_rows_kernel.h), with one set or several looping
// over unequal numbers of rows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "kernel_test.h"
#include "kernels/cluster_rows_kernel.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

using tilejit_test::cluster_rows;
using tilejit_test::cluster_stats;
using tilejit_test::group_rows;
using tilejit_test::group_stats;
using tilejit_test::group_stats_split;

namespace {

// Checks one launch's outputs against float64: the row softmax, the max, the min and the count.
void check_rows(const std::vector<float>& x, std::int64_t rows, std::int64_t cols, const Buffer& out,
                const Buffer& stats, const Buffer& counts) {
  auto y = out.download<float>();
  auto s = stats.download<float>();
  auto c = counts.download<std::int32_t>();
  double worst = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * cols;
    double mx = -std::numeric_limits<double>::infinity(), mn = -mx, sum = 0;
    std::int32_t positive = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      mx = std::max(mx, double(row[j]));
      mn = std::min(mn, double(row[j]));
      positive += row[j] > 0;
    }
    for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(double(row[j]) - mx);
    for (std::int64_t j = 0; j < cols; ++j) {
      double want = std::exp(double(row[j]) - mx) / sum;
      worst = std::max(worst, std::abs(y[static_cast<std::size_t>(r * cols + j)] - want) / want);
    }
    CHECK(s[static_cast<std::size_t>(2 * r)] == float(mx));
    CHECK(s[static_cast<std::size_t>(2 * r + 1)] == float(mn));
    CHECK(c[static_cast<std::size_t>(r)] == positive);
  }
  CHECK(worst < 1e-5);
}

// The max of a row and the sum of exp(x - max) over it, in float64.
std::pair<double, double> row_max_and_sum(const float* row, std::int64_t cols) {
  double mx = -std::numeric_limits<double>::infinity(), sum = 0;
  for (std::int64_t j = 0; j < cols; ++j) mx = std::max(mx, double(row[j]));
  for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(double(row[j]) - mx);
  return {mx, sum};
}

}  // namespace

TEST_CASE("cluster reductions combine one value per program across each cluster") {
  if (backend() == Backend::cuda && device_properties().cc_major < 9) {
    MESSAGE("skipped: thread-block clusters need sm_90; this GPU is sm_" << device_properties().cc_major
                                                                         << device_properties().cc_minor);
    return;
  }
  const std::int64_t block = 128, rows = 7;
  for (std::int64_t cluster : {1, 2, 4, 8, 16}) {
    for (std::int64_t n_clusters : {1, 3}) {  // 3: clusters loop over 3 or 2 rows
      CAPTURE(cluster);
      CAPTURE(n_clusters);
      const std::int64_t cols = cluster * block - 37;  // a masked tail in the last program
      auto x = random_floats(static_cast<std::size_t>(rows * cols), -4.0f, 4.0f, static_cast<unsigned>(cluster));
      Buffer in = buffer(DType::f32, x.size()), out = buffer(DType::f32, x.size());
      Buffer stats = buffer(DType::f32, 2 * rows), counts = buffer(DType::i32, rows);
      in.upload(x);
      out.fill_bytes(0xff);
      cluster_rows().launch({static_cast<std::uint64_t>(cluster * n_clusters)},
                            {out, stats, counts, in, rows, cols, block, cluster}, options());
      finish();
      check_rows(x, rows, cols, out, stats, counts);
    }
  }
}

TEST_CASE("a grid that does not divide into clusters is refused with the cluster size named") {
  if (backend() == Backend::cuda && device_properties().cc_major < 9) {
    MESSAGE("skipped: thread-block clusters need sm_90");
    return;
  }
  Buffer in = buffer(DType::f32, 512), out = buffer(DType::f32, 512);
  Buffer stats = buffer(DType::f32, 2), counts = buffer(DType::i32, 1);
  CHECK_THROWS_WITH_AS(cluster_rows().launch({6}, {out, stats, counts, in, 1, 512, 128, 4}, options()),
                       doctest::Contains("grid.x = 6 is not a multiple of the cluster size 4"), UserError);
}

TEST_CASE("persistent_grid gives whole clusters for a cluster kernel") {
  if (backend() == Backend::cuda && device_properties().cc_major < 9) {
    MESSAGE("skipped: thread-block clusters need sm_90");
    return;
  }
  std::vector<Arg> args = {Pointer{0x1000, DType::f32, memory()},
                           Pointer{0x2000, DType::f32, memory()},
                           Pointer{0x3000, DType::i32, memory()},
                           Pointer{0x4000, DType::f32, memory()},
                           std::int64_t{100},
                           std::int64_t{512},
                           std::int64_t{128},
                           std::int64_t{4}};
  const CompiledKernel& k = cluster_rows().compile(args, compile_options());
  CHECK(k.metadata().cluster_size == 4);
  std::uint64_t grid = persistent_grid(k, 100);
  CHECK(grid % 4 == 0);
  CHECK(grid >= 4);
  CHECK(grid <= 400);
  CHECK(persistent_grid(k, 1) == 4);  // one row: one cluster
}

TEST_CASE("group reductions combine one value per program across each group, and leave the barriers zeroed") {
  const std::int64_t block = 64, rows = 5;
  for (std::int64_t group : {1, 2, 3, 16, 40, 600}) {  // 600: slots read in chunks of 16 a lane
    for (std::int64_t n_groups : {1, 2}) {             // 2: groups loop over 3 or 2 rows
      CAPTURE(group);
      CAPTURE(n_groups);
      const std::int64_t cols = group * block - 21;  // a masked tail in the last program
      auto x = random_floats(static_cast<std::size_t>(rows * cols), -4.0f, 4.0f, static_cast<unsigned>(group + 7));
      Buffer in = buffer(DType::f32, x.size()), out = buffer(DType::f32, x.size());
      Buffer stats = buffer(DType::f32, 2 * rows), counts = buffer(DType::i32, rows);
      const auto programs = static_cast<std::uint64_t>(group * n_groups);
      Buffer workspace = buffer(DType::i32, group_workspace_bytes(programs, group) / 4);
      workspace.fill_bytes(0);
      in.upload(x);
      out.fill_bytes(0xff);
      for (int launch = 0; launch < 2; ++launch) {  // the second launch starts from the first one's barriers
        group_rows().launch({programs}, {out, stats, counts, in, workspace, rows, cols, block, group}, options());
        finish();
        check_rows(x, rows, cols, out, stats, counts);
      }
      // Every group's four barrier words (bytes 0, 128, 256 and 384 of its part) are back at rest:
      // the low 31 bits zero (the top bit flips once a round).
      auto ws = workspace.download<std::int32_t>();
      for (std::uint64_t g = 0; g < programs / static_cast<std::uint64_t>(group); ++g)
        for (std::uint64_t barrier = 0; barrier < 4; ++barrier)
          CHECK((ws[(g * group_workspace_stride(group) + barrier * 128) / 4] & 0x7fffffff) == 0);
    }
  }
}

TEST_CASE("a grid that does not divide into groups is refused with the group size named") {
  Buffer in = buffer(DType::f32, 512), out = buffer(DType::f32, 512);
  Buffer stats = buffer(DType::f32, 2), counts = buffer(DType::i32, 1);
  Buffer workspace = buffer(DType::i32, group_workspace_bytes(8, 4) / 4);
  CHECK_THROWS_WITH_AS(group_rows().launch({6}, {out, stats, counts, in, workspace, 1, 512, 128, 4}, options()),
                       doctest::Contains("grid.x = 6 is not a multiple of the group size 4"), UserError);
}

TEST_CASE("persistent_grid gives whole groups for a group kernel") {
  std::vector<Arg> args = {Pointer{0x1000, DType::f32, memory()},
                           Pointer{0x2000, DType::f32, memory()},
                           Pointer{0x3000, DType::i32, memory()},
                           Pointer{0x4000, DType::f32, memory()},
                           Pointer{0x5000, DType::i32, memory()},
                           std::int64_t{100},
                           std::int64_t{512},
                           std::int64_t{128},
                           std::int64_t{3}};
  const CompiledKernel& k = group_rows().compile(args, compile_options());
  CHECK(k.metadata().group_size == 3);
  CHECK(k.metadata().cluster_size == 1);
  std::uint64_t grid = persistent_grid(k, 100);
  CHECK(grid % 3 == 0);
  CHECK(grid >= 3);
  CHECK(grid <= 300);
  CHECK(persistent_grid(k, 1) == 3);  // one row: one group
}

TEST_CASE("softmax stats across clusters and groups: the row's max and sum of exp in one exchange") {
  const bool clusters = !(backend() == Backend::cuda && device_properties().cc_major < 9);
  if (!clusters) MESSAGE("cluster cases skipped: thread-block clusters need sm_90");
  const std::int64_t block = 64, rows = 6;
  if (backend() != Backend::cuda) MESSAGE("groups of 600 skipped: they test the GPU's chunked slot loads only");
  enum class Exchange { cluster, group, group_split };
  // 600: warp 0 combines the slots in chunks (codegen/cuda/group.cpp); the CPU backend has no
  // such path and would run 1200 threads, so that size runs on the GPU only.
  for (std::int64_t size : {1, 2, 3, 16, 40, 600}) {
    for (Exchange how : {Exchange::cluster, Exchange::group, Exchange::group_split}) {
      const bool group = how != Exchange::cluster;
      if ((!group && (size > 16 || !clusters))) continue;
      if (size == 600 && backend() != Backend::cuda) continue;
      CAPTURE(size);
      CAPTURE(static_cast<int>(how));
      const std::int64_t cols = size * block - 45;  // the last program's part: a tail, or all padding
      auto x = random_floats(static_cast<std::size_t>(rows * cols), -30.0f, 30.0f, static_cast<unsigned>(size));
      // Row 1 is all -inf (its sum is NaN, as torch's softmax gives); row 2 holds one +inf (NaN too);
      // row 3 is -inf but for one value (only one program has a finite max).
      const float inf = std::numeric_limits<float>::infinity();
      for (std::int64_t j = 0; j < cols; ++j) x[static_cast<std::size_t>(cols + j)] = -inf;
      x[static_cast<std::size_t>(2 * cols + cols / 2)] = inf;
      for (std::int64_t j = 0; j < cols; ++j) x[static_cast<std::size_t>(3 * cols + j)] = j == cols - 1 ? 5.0f : -inf;
      Buffer in = buffer(DType::f32, x.size()), stats = buffer(DType::f32, 2 * rows);
      in.upload(x);
      stats.fill_bytes(0xff);
      // Two sets (3 and 3 rows), but one of 600: two would not all be resident on every GPU.
      const auto programs = static_cast<std::uint64_t>(size * (size == 600 ? 1 : 2));
      Buffer workspace = buffer(DType::i32, group_workspace_bytes(programs, size) / 4);
      workspace.fill_bytes(0);
      if (how == Exchange::group)
        group_stats().launch({programs}, {stats, in, workspace, rows, cols, block, size}, options());
      else if (how == Exchange::group_split)
        group_stats_split().launch({programs}, {stats, in, workspace, rows, cols, block, size}, options());
      else cluster_stats().launch({programs}, {stats, in, rows, cols, block, size}, options());
      finish();
      auto s = stats.download<float>();
      for (std::int64_t r = 0; r < rows; ++r) {
        CAPTURE(r);
        auto [mx, sum] = row_max_and_sum(x.data() + r * cols, cols);
        const float got_max = s[static_cast<std::size_t>(2 * r)], got_sum = s[static_cast<std::size_t>(2 * r + 1)];
        if (r == 1 || r == 2) {
          CHECK(std::isnan(got_sum));
          continue;
        }
        CHECK(got_max == float(mx));
        CHECK(std::abs(got_sum - sum) / sum < 1e-5);
      }
    }
  }
}

TEST_CASE("split group exchanges: sets with 2, 1 and no rows, two launches, every barrier back at rest") {
  const std::int64_t block = 64, size = 3, rows = 5, cols = size * block - 7;
  auto x = random_floats(static_cast<std::size_t>(rows * cols), -20.0f, 20.0f, 11);
  Buffer in = buffer(DType::f32, x.size()), stats = buffer(DType::f32, 2 * rows);
  in.upload(x);
  for (std::uint64_t sets : {1, 3, 7}) {  // 5 rows each; 2 or 1 rows per set; two sets with none
    CAPTURE(sets);
    const std::uint64_t programs = sets * size;
    Buffer workspace = buffer(DType::i32, group_workspace_bytes(programs, size) / 4);
    workspace.fill_bytes(0);
    for (int launch = 0; launch < 2; ++launch) {  // the second launch starts from the first one's barriers
      stats.fill_bytes(0xff);
      group_stats_split().launch({programs}, {stats, in, workspace, rows, cols, block, size}, options());
      finish();
      auto s = stats.download<float>();
      for (std::int64_t r = 0; r < rows; ++r) {
        CAPTURE(r);
        auto [mx, sum] = row_max_and_sum(x.data() + r * cols, cols);
        CHECK(s[static_cast<std::size_t>(2 * r)] == float(mx));
        CHECK(std::abs(s[static_cast<std::size_t>(2 * r + 1)] - sum) / sum < 1e-5);
      }
    }
    // The four barrier words of every group (bytes 0, 128, 256, 384 of its part) are at rest again.
    auto ws = workspace.download<std::int32_t>();
    for (std::uint64_t g = 0; g < sets; ++g)
      for (std::uint64_t barrier = 0; barrier < 4; ++barrier)
        CHECK((ws[(g * group_workspace_stride(size) + barrier * 128) / 4] & 0x7fffffff) == 0);
  }
}
