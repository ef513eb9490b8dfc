// The library softmax op (tilejit/ops/softmax.h) against float64 on the backend this binary
// runs: every strategy and the boundaries between them, 16-bit and mixed element types, strides,
// unaligned pointers, special values, log_softmax, edge cases and bad arguments.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "half_bits.h"
#include "kernel_test.h"
#include "softmax_reference.h"
#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_kernels.h"

using namespace tilejit;
using namespace tilejit::testing;
using ops::SoftmaxConfig;
using ops::SoftmaxStrategy;

namespace {

struct Case {
  std::int64_t rows = 1, cols = 1;
  std::int64_t in_stride = 0, out_stride = 0;  // 0: cols
  std::int64_t in_offset = 0, out_offset = 0;  // elements past a 64-byte aligned address
  DType in_type = DType::f32, out_type = DType::f32;
  bool log = false;
  std::optional<SoftmaxConfig> config = std::nullopt;  // empty: the op's dispatch
  std::int64_t kept_bytes = -1;                        // SoftmaxOptions::kept_bytes
};

Pointer pointer(const Buffer& b) { return {b.address(), b.dtype(), b.memory(), b.bytes()}; }

// softmax_input's rows (some -inf, large, all -inf) plus a NaN in row 4 and +inf in row 5.
std::vector<float> special_input(std::int64_t rows, std::int64_t cols, unsigned seed) {
  auto x = softmax_input(rows, cols, seed);
  if (rows > 4) x[static_cast<std::size_t>(4 * cols + cols / 2)] = std::nanf("");
  if (rows > 5) x[static_cast<std::size_t>(5 * cols + cols / 3)] = std::numeric_limits<float>::infinity();
  return x;
}

// Runs one case and returns the strategy that ran.
SoftmaxStrategy check(const Case& c) {
  const std::int64_t in_stride = c.in_stride ? c.in_stride : c.cols, out_stride = c.out_stride ? c.out_stride : c.cols;
  CAPTURE(c.rows);
  CAPTURE(c.cols);
  CAPTURE(in_stride);
  CAPTURE(out_stride);
  CAPTURE(c.in_offset);
  CAPTURE(c.out_offset);
  CAPTURE(dtype_name(c.in_type));
  CAPTURE(dtype_name(c.out_type));
  CAPTURE(c.log);
  ops::SoftmaxOptions options;
  options.backend = backend();
  options.config = c.config;
  options.kept_bytes = c.kept_bytes;
  CAPTURE(c.kept_bytes);
  auto plan = ops::plan_softmax(c.rows, c.cols, c.in_type, c.out_type, options);
  std::string config = ops::describe(plan.config);
  CAPTURE(config);

  auto dense = special_input(c.rows, c.cols, static_cast<unsigned>(c.rows * 7919 + c.cols));
  if (c.in_type != DType::f32)  // the reference sees what the kernel reads
    dense = examples::from_half_bits(c.in_type, examples::to_half_bits(c.in_type, dense));
  // Padding between rows is NaN: a kernel that reads it spoils its row.
  std::vector<float> host(static_cast<std::size_t>((c.rows - 1) * in_stride + c.cols + c.in_offset), std::nanf(""));
  for (std::int64_t r = 0; r < c.rows; ++r)
    for (std::int64_t k = 0; k < c.cols; ++k)
      host[static_cast<std::size_t>(c.in_offset + r * in_stride + k)] = dense[static_cast<std::size_t>(r * c.cols + k)];
  Buffer in = buffer(c.in_type, host.size());
  upload_floats(in, host);
  Buffer out = buffer(c.out_type, static_cast<std::size_t>((c.rows - 1) * out_stride + c.cols + c.out_offset));
  out.fill_bytes(0xff);  // NaN in every type: unwritten outputs cannot pass

  Pointer pin{in.address() + dtype_size(c.in_type) * static_cast<std::uint64_t>(c.in_offset), c.in_type, memory()};
  Pointer pout{out.address() + dtype_size(c.out_type) * static_cast<std::uint64_t>(c.out_offset), c.out_type, memory()};
  if (c.log) ops::log_softmax(pout, pin, c.rows, c.cols, in_stride, out_stride, nullptr, options);
  else ops::softmax(pout, pin, c.rows, c.cols, in_stride, out_stride, nullptr, options);
  finish();

  auto all = download_floats(out);
  std::vector<float> got(all.begin() + c.out_offset, all.end());
  auto ref = c.log ? examples::log_softmax_reference(dense, c.rows, c.cols, c.cols)
                   : examples::softmax_reference(dense, c.rows, c.cols, c.cols);
  auto cmp = examples::compare_rows(got, ref, c.rows, c.cols, out_stride);
  CAPTURE(cmp.worst_row);
  CHECK(cmp.nan_mismatches == 0);
  bool wide16 = c.in_type != DType::f32 || c.out_type != DType::f32;
  CHECK(cmp.max_rel_error <= (wide16 ? 1e-2 : 1e-5));
  // Nothing written between rows (the poison is still there).
  std::int64_t touched = 0;
  for (std::int64_t r = 0; r + 1 < c.rows; ++r)
    for (std::int64_t k = c.cols; k < out_stride; ++k)
      touched += !std::isnan(got[static_cast<std::size_t>(r * out_stride + k)]);
  CHECK(touched == 0);
  return plan.config.strategy;
}

// The smallest row count at which the table stops splitting rows of `cols` (found by asking
// the plan, so the test follows the device's parallelism).
std::int64_t split_boundary(std::int64_t cols) {
  ops::SoftmaxOptions options;
  options.backend = backend();
  auto strategy = [&](std::int64_t rows) {
    return ops::plan_softmax(rows, cols, DType::f32, DType::f32, options).config.strategy;
  };
  REQUIRE(strategy(1) == SoftmaxStrategy::split_row);
  std::int64_t lo = 1, hi = 1;
  while (strategy(hi) == SoftmaxStrategy::split_row) hi *= 2;
  while (hi - lo > 1) {
    std::int64_t mid = (lo + hi) / 2;
    (strategy(mid) == SoftmaxStrategy::split_row ? lo : hi) = mid;
  }
  return hi;
}

SoftmaxConfig forced(SoftmaxStrategy s, std::int64_t block, std::int64_t rows_per_program = 1,
                     std::int64_t splits = 1) {
  return {s, block, 4, 1, rows_per_program, splits};
}

}  // namespace

TEST_CASE("softmax op: the table's strategies around every threshold, fp32") {
  std::set<SoftmaxStrategy> seen;
  // rows_2d | row_in_registers at 512 | 513; row_in_registers | online or split_row at 16384 | 16385.
  for (std::int64_t n : {1, 2, 3, 5, 31, 33, 509, 511, 512, 513, 515, 16381, 16383, 16384, 16385, 16387})
    seen.insert(check({.rows = 9, .cols = n}));
  // split_row | cluster (sm_90) or online in rows, on both sides of the boundary the table draws.
  std::int64_t boundary = split_boundary(16385);
  CAPTURE(boundary);
  for (std::int64_t rows : {boundary - 1, boundary}) seen.insert(check({.rows = rows, .cols = 16389}));
  for (std::int64_t rows : {std::int64_t{1}, std::int64_t{3}}) seen.insert(check({.rows = rows, .cols = 100003}));
  // Where the table uses clusters (CUDA on sm_90) they take the boundary's many-rows side; online
  // then starts past what 16 programs hold.
  const bool clusters = backend() == Backend::cuda && device_properties().cc_major >= 9;
  if (clusters) {
    seen.insert(check({.rows = 300, .cols = 40000}));
    seen.insert(check({.rows = 2 * device_properties().sm_count, .cols = 16 * 16384 + 1}));
  }
  CHECK(seen.count(SoftmaxStrategy::cluster) == (clusters ? 1u : 0u));
  CHECK(seen.count(SoftmaxStrategy::online) == 1u);
  CHECK(seen.size() == (clusters ? 5u : 4u));
}

TEST_CASE("softmax op: forced small blocks cross each strategy's loop boundaries") {
  for (std::int64_t n : {1, 63, 64, 65, 127, 128, 129, 1001}) {
    check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::online, 64)});
    for (std::int64_t splits : {2, 3, 5})
      check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::split_row, 64, 1, splits)});
  }
  for (std::int64_t rows : {1, 3, 4, 5, 9})
    for (std::int64_t n : {7, 16, 29})
      check({.rows = rows, .cols = n, .config = forced(SoftmaxStrategy::rows_2d, 32, 4)});
  for (std::int64_t n : {1, 4, 5, 100})
    check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::row_in_registers, 128)});
}

TEST_CASE("softmax op: rows over thread-block clusters, across slice and cluster boundaries") {
  if (backend() == Backend::cuda && device_properties().cc_major < 9) {
    MESSAGE("skipped: thread-block clusters need sm_90");
    return;
  }
  // Slices of 64 columns: a row ending inside, at and just past a slice; programs whose slice
  // is all padding (n = 1 over 2 programs); the largest cluster, 16. Where 64 x the cluster size
  // does not cover the row, each program walks a longer slice twice (the online form): slices
  // ending inside a step, empty slices (1001 over 16: the last ones start past the row).
  for (std::int64_t n : {1, 63, 64, 65, 127, 128, 129, 1001, 1024, 4097})
    for (std::int64_t cluster : {2, 3, 16})
      check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::cluster, 64, 1, cluster)});
  check({.rows = 7,
         .cols = 300,
         .in_type = DType::bf16,
         .out_type = DType::bf16,
         .config = forced(SoftmaxStrategy::cluster, 128, 1, 4)});
  check({.rows = 7, .cols = 300, .log = true, .config = forced(SoftmaxStrategy::cluster, 128, 1, 4)});
  check({.rows = 6,
         .cols = 300,
         .in_stride = 303,
         .out_stride = 301,
         .in_offset = 1,
         .out_offset = 1,
         .config = forced(SoftmaxStrategy::cluster, 64, 1, 5)});
  check({.rows = 7,
         .cols = 3000,
         .in_type = DType::bf16,
         .out_type = DType::f32,
         .log = true,
         .config = forced(SoftmaxStrategy::cluster, 128, 1, 4)});
  // 64 values a thread or more (8192 columns over 4 warps): the one-exchange form, with a part
  // that is all padding (20000 columns over 3 x 8192) and all -inf rows.
  const SoftmaxConfig one_exchange{SoftmaxStrategy::cluster, 8192, 4, 1, 1, 3, ops::SoftmaxGrid::persistent};
  check({.rows = 6, .cols = 20000, .config = one_exchange});
  check({.rows = 5, .cols = 16385, .log = true, .config = one_exchange});
  check({.rows = 4, .cols = 20000, .in_type = DType::bf16, .out_type = DType::bf16, .config = one_exchange});
  // Walked slices keeping none, one or two of their blocks in shared memory (all of them above).
  for (std::int64_t kept_bytes : {0, 256, 512})
    check({.rows = 6, .cols = 4097, .config = forced(SoftmaxStrategy::cluster, 64, 1, 3), .kept_bytes = kept_bytes});
  // Interleaved walks (program r takes blocks r, r + cluster, ...), keeping none or one block.
  SoftmaxConfig interleaved = forced(SoftmaxStrategy::cluster, 64, 1, 3);
  interleaved.interleave = true;
  for (std::int64_t kept_bytes : {0, 256})
    for (std::int64_t n : {129, 1001, 4097})
      check({.rows = 6, .cols = n, .config = interleaved, .kept_bytes = kept_bytes});
  ops::SoftmaxOptions o;
  o.config = forced(SoftmaxStrategy::cluster, 64, 1, 17);
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("the cluster size (splits) must be 2 to 16"), Error);
}

TEST_CASE("softmax op: programs of 32 warps (1024 threads)") {
  // A row in registers, short rows in 2-D blocks, and a group holding 4 slices of 32768 columns
  // (32 a thread, the form a 4M-column row takes over 128 such programs), with a masked tail.
  auto wide = [](SoftmaxStrategy s, std::int64_t block, std::int64_t rows_per_program, std::int64_t splits) {
    return SoftmaxConfig{s, block, 32, 1, rows_per_program, splits, ops::SoftmaxGrid::persistent};
  };
  check({.rows = 5, .cols = 3001, .config = wide(SoftmaxStrategy::row_in_registers, 4096, 1, 1)});
  check({.rows = 70, .cols = 100, .config = wide(SoftmaxStrategy::rows_2d, 128, 16, 1)});
  check({.rows = 3, .cols = 4 * 32768 - 5, .config = wide(SoftmaxStrategy::group, 32768, 1, 4)});
  check({.rows = 3,
         .cols = 3 * 32768 + 7,
         .in_type = DType::bf16,
         .out_type = DType::bf16,
         .log = true,
         .config = wide(SoftmaxStrategy::group, 32768, 1, 4)});
}

TEST_CASE("softmax op: rows over groups of programs, across slice and group boundaries") {
  // As the cluster cases, through global memory: groups larger than a cluster (40), slices in
  // registers and walked twice (64 x the group below the row), masked tails and empty slices.
  for (std::int64_t n : {1, 63, 64, 65, 129, 1001, 2560, 2561, 9000})
    for (std::int64_t group : {2, 3, 40})
      check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::group, 64, 1, group)});
  check({.rows = 7,
         .cols = 3000,
         .in_type = DType::bf16,
         .out_type = DType::bf16,
         .config = forced(SoftmaxStrategy::group, 128, 1, 24)});
  check({.rows = 6,
         .cols = 3000,
         .in_stride = 3003,
         .out_stride = 3001,
         .in_offset = 1,
         .out_offset = 1,
         .log = true,
         .config = forced(SoftmaxStrategy::group, 64, 1, 33)});
  // Walked (64 x 3 columns per step) with 2 stages: the next block's loads in flight. In registers
  // (512 x 3 cover the row, the third program all padding at 1001 and 777 columns), each row's
  // exchange overlapping the next row's reads. Sets with two rows, one, or (rows < sets) none;
  // log_softmax and bf16 with strided rows.
  SoftmaxConfig walked = forced(SoftmaxStrategy::group, 64, 1, 3),
                in_registers = forced(SoftmaxStrategy::group, 512, 1, 3);
  walked.num_stages = 2;
  in_registers.overlap = true;
  for (const SoftmaxConfig& staged : {walked, in_registers})
    for (std::int64_t rows : {1, 5, 13}) {
      CAPTURE(ops::describe(staged));
      check({.rows = rows, .cols = 1001, .config = staged});
      check({.rows = rows,
             .cols = 777,
             .in_stride = 800,
             .out_stride = 781,
             .in_type = DType::bf16,
             .out_type = DType::bf16,
             .log = rows != 1,
             .config = staged});
    }
  // Walked slices keep their first blocks in shared memory between the passes: none, one block
  // of the slice, three (at 64 f32 columns a block), or as many as the default budget holds (all
  // of them, above). Slices of 1 to 5 blocks, the last one partial.
  for (std::int64_t kept_bytes : {0, 256, 768})
    for (std::int64_t n : {65, 1001, 2561}) {
      check({.rows = 6, .cols = n, .config = forced(SoftmaxStrategy::group, 64, 1, 3), .kept_bytes = kept_bytes});
      check({.rows = 5,
             .cols = n,
             .in_stride = n + 3,
             .in_type = DType::bf16,
             .log = true,
             .config = forced(SoftmaxStrategy::group, 64, 1, 3),
             .kept_bytes = kept_bytes / 2});
    }
  // Interleaved walks: program r of 3 takes blocks r, r + 3, ... of the row, so programs walk
  // different counts of blocks (65 columns: one program one partial block, the others none;
  // 1001: 16 blocks, the last partial, 6/5/5), keeping none, one or all of them; and with 2 stages.
  SoftmaxConfig interleaved = forced(SoftmaxStrategy::group, 64, 1, 3);
  interleaved.interleave = true;
  for (std::int64_t kept_bytes : {0, 256, -1})
    for (std::int64_t n : {65, 193, 1001, 2561}) {
      check({.rows = 6, .cols = n, .config = interleaved, .kept_bytes = kept_bytes});
      check({.rows = 5,
             .cols = n,
             .in_stride = n + 3,
             .out_stride = n + 1,
             .in_offset = 1,
             .in_type = DType::bf16,
             .log = true,
             .config = interleaved,
             .kept_bytes = kept_bytes < 0 ? kept_bytes : kept_bytes / 2});
    }
  interleaved.num_stages = 2;
  check({.rows = 13, .cols = 1001, .config = interleaved});
  ops::SoftmaxOptions o;
  o.config = forced(SoftmaxStrategy::group, 64, 1, 5000);
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("the group size (splits) must be 2 to 4096"), Error);
  o.config = SoftmaxConfig{SoftmaxStrategy::group, 64, 4, 1, 1, 4, ops::SoftmaxGrid::per_row};
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("a group's programs must all be resident"), Error);
  o.config = forced(SoftmaxStrategy::cluster, 64, 1, 4);
  o.config->overlap = true;
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("only groups overlap their exchanges"), Error);
  o.config = forced(SoftmaxStrategy::online, 64, 1, 1);
  o.config->interleave = true;
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("only clusters and groups walking their slices interleave their blocks"),
                       Error);
  o.config = forced(SoftmaxStrategy::group, 16, 1, 2);  // slices of 500 columns held as 32 blocks of 16
  o.config->overlap = true;
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("holds at most 16 blocks a program, and this one would hold 32"), Error);
}

TEST_CASE("softmax op: groups holding their slices whole, the next row's in shared memory") {
  // overlap over rows wider than block x group (detail::row_slices_held): each program of 3 holds
  // its slice as whole blocks of 64 in registers while the next row's lands in shared memory.
  // Slices of 1 block (65 columns: the second and third programs all padding), 2 (193), 6 (1001,
  // the last partial) and 14 (2561); sets with several rows, one, or (rows < sets) none; strided
  // and offset rows, bf16 and log_softmax; blocks contiguous or dealt round the group.
  SoftmaxConfig held = forced(SoftmaxStrategy::group, 64, 1, 3);
  held.overlap = true;
  for (bool interleave : {false, true}) {
    held.interleave = interleave;
    CAPTURE(ops::describe(held));
    for (std::int64_t rows : {1, 5, 13})
      for (std::int64_t n : {65, 193, 1001, 2561}) {
        check({.rows = rows, .cols = n, .config = held});
        check({.rows = rows,
               .cols = n,
               .in_stride = n + 3,
               .out_stride = n + 1,
               .in_offset = 1,
               .in_type = DType::bf16,
               .out_type = DType::bf16,
               .log = rows != 1,
               .config = held});
      }
  }
  // f16 out of f32. (In every case above rows past the fifth hold -inf rows, a NaN and a +inf, which
  // must come out NaN where the float64 reference does.)
  held.interleave = false;
  check({.rows = 7, .cols = 1001, .out_type = DType::f16, .config = held});
}

TEST_CASE("softmax op: persistent grids with the next row's loads in flight, and one program per row") {
  // Enough rows that a persistent GPU grid walks several per program (a few thousand programs fit).
  const std::int64_t rows = 9001;
  for (auto grid : {ops::SoftmaxGrid::persistent, ops::SoftmaxGrid::per_row})
    for (int stages : {1, 2, 4}) {
      // The CPU backend does not pipeline loads, so num_stages changes nothing there.
      if (stages > 2 && backend() == Backend::cpu) continue;
      CAPTURE(ops::grid_name(grid));
      CAPTURE(stages);
      for (auto [s, block, rows_per_program] :
           {std::tuple{SoftmaxStrategy::rows_2d, 128, 4}, std::tuple{SoftmaxStrategy::row_in_registers, 128, 1},
            std::tuple{SoftmaxStrategy::online, 64, 1}, std::tuple{SoftmaxStrategy::cluster, 64, 1}}) {
        if (s == SoftmaxStrategy::cluster && backend() == Backend::cuda && device_properties().cc_major < 9) continue;
        SoftmaxConfig c{s, block, 4, stages, rows_per_program, s == SoftmaxStrategy::cluster ? 2 : 1, grid};
        check({.rows = rows, .cols = 101, .config = c});
      }
    }
  ops::SoftmaxOptions o;
  o.config = SoftmaxConfig{SoftmaxStrategy::split_row, 64, 4, 1, 1, 2, ops::SoftmaxGrid::per_row};
  CHECK_THROWS_WITH_AS(ops::plan_softmax(4, 1000, DType::f32, DType::f32, o),
                       doctest::Contains("split_row launches one program per (chunk, row) already"), Error);
}

TEST_CASE("softmax op: several programs a thread block, the last block part-empty") {
  // SoftmaxConfig::programs_per_block on rows_2d and row_in_registers, persistent and per row;
  // 9001 rows of 101 leave the last block with fewer programs than it holds (per row: 4501 row
  // pairs over 4 or 3 programs a block), 7 rows fewer programs than one block holds. The CPU
  // backend runs the programs unpacked: the same answers.
  for (auto grid : {ops::SoftmaxGrid::persistent, ops::SoftmaxGrid::per_row})
    for (int programs : {2, 3, 4})
      for (std::int64_t rows : {9001, 7}) {
        CAPTURE(ops::grid_name(grid));
        CAPTURE(programs);
        SoftmaxConfig tile{SoftmaxStrategy::rows_2d, 128, 1, grid == ops::SoftmaxGrid::persistent ? 2 : 1, 2, 1, grid};
        tile.programs_per_block = programs;
        check({.rows = rows, .cols = 101, .config = tile});
        SoftmaxConfig row{SoftmaxStrategy::row_in_registers, 256, 2, 1, 1, 1, grid};
        row.programs_per_block = programs;
        check({.rows = rows, .cols = 200, .config = row});
      }
  SoftmaxConfig strided{SoftmaxStrategy::rows_2d, 512, 1, 4, 2, 1, ops::SoftmaxGrid::persistent};
  strided.programs_per_block = 4;
  check({.rows = 333,
         .cols = 509,
         .in_stride = 515,
         .out_stride = 511,
         .in_offset = 1,
         .in_type = DType::bf16,
         .out_type = DType::bf16,
         .log = true,
         .config = strided});
  strided.num_warps = 2;
  check({.rows = 333, .cols = 509, .in_type = DType::f16, .out_type = DType::f32, .config = strided});
}

TEST_CASE("softmax op: 16-bit and mixed element types, log_softmax") {
  const std::pair<DType, DType> types[] = {
      {DType::f16, DType::f16}, {DType::bf16, DType::bf16}, {DType::f32, DType::bf16}, {DType::f16, DType::f32}};
  for (auto [in_t, out_t] : types)
    for (std::int64_t n : {3, 513, 16385}) check({.rows = 7, .cols = n, .in_type = in_t, .out_type = out_t});
  for (auto [in_t, out_t] :
       {std::pair<DType, DType>{DType::f32, DType::f32}, {DType::bf16, DType::bf16}, {DType::f16, DType::f32}})
    for (std::int64_t n : {1, 29, 1000, 16385})
      for (std::int64_t rows : {1, 7})
        check({.rows = rows, .cols = n, .in_type = in_t, .out_type = out_t, .log = true});
  check({.rows = 7, .cols = 200, .log = true, .config = forced(SoftmaxStrategy::split_row, 32, 1, 3)});
  check({.rows = 7, .cols = 200, .log = true, .config = forced(SoftmaxStrategy::online, 32)});
}

TEST_CASE("softmax op: a row with one finite element gives exactly 1 (softmax) and 0 (log_softmax) there") {
  // As torch gives: exp(x - max) is exp(0) = 1 for that element and 0 for every -inf, so the sum
  // is exactly 1. A form whose sum carries a rounding of the max (2^(x log2 e - round(max
  // log2 e)) and a correction) gives 1 +- 1 ulp, and log_softmax a nonzero where 0 is exact.
  auto run = [](std::int64_t rows, std::int64_t cols, bool log, std::optional<SoftmaxConfig> config) {
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(log);
    std::vector<float> x(static_cast<std::size_t>(rows * cols), -std::numeric_limits<float>::infinity());
    std::vector<std::int64_t> at(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) {
      at[static_cast<std::size_t>(r)] = (r * 7919) % cols;
      x[static_cast<std::size_t>(r * cols + at[static_cast<std::size_t>(r)])] = 1000.f * static_cast<float>(r) - 3.3f;
    }
    Buffer in = buffer(DType::f32, x.size()), out = buffer(DType::f32, x.size());
    in.upload(x);
    out.fill_bytes(0xff);
    ops::SoftmaxOptions options;
    options.backend = backend();
    options.config = config;
    if (log) ops::log_softmax(pointer(out), pointer(in), rows, cols, cols, cols, nullptr, options);
    else ops::softmax(pointer(out), pointer(in), rows, cols, cols, cols, nullptr, options);
    finish();
    auto y = out.download<float>();
    int wrong = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t k = 0; k < cols; ++k) {
        const float got = y[static_cast<std::size_t>(r * cols + k)];
        const bool hot = k == at[static_cast<std::size_t>(r)];
        const float want = hot ? (log ? 0.f : 1.f) : (log ? -std::numeric_limits<float>::infinity() : 0.f);
        wrong += got != want;
      }
    CHECK(wrong == 0);
  };
  for (bool log : {false, true}) {
    run(37, 1, log, std::nullopt);
    run(5, 1000, log, std::nullopt);
    for (auto strategy : {SoftmaxStrategy::online, SoftmaxStrategy::split_row, SoftmaxStrategy::group})
      run(5, 1000, log, forced(strategy, 64, 1, 3));
  }
}

TEST_CASE("softmax op: strided rows and pointers off alignment by one element") {
  for (std::int64_t n : {5, 300, 4097, 16385}) {
    check({.rows = 6, .cols = n, .in_stride = n + 3, .out_stride = n + 1, .in_offset = 1, .out_offset = 1});
    check({.rows = 6,
           .cols = n,
           .in_stride = n + 16,
           .out_stride = n + 5,
           .in_offset = 1,
           .out_offset = 3,
           .in_type = DType::bf16,
           .out_type = DType::bf16});
  }
  check({.rows = 6,
         .cols = 700,
         .in_stride = 701,
         .out_stride = 703,
         .in_offset = 1,
         .out_offset = 2,
         .config = forced(SoftmaxStrategy::split_row, 64, 1, 4)});
  // Input rows may share memory (stride 0 broadcasts one row).
  check({.rows = 4, .cols = 33, .in_stride = 0});
}

TEST_CASE("softmax op: empty shapes launch nothing, bad arguments are refused") {
  Buffer a = buffer(DType::f32, 64);
  Pointer p{a.address(), DType::f32, memory()};
  ops::SoftmaxOptions o;
  o.backend = backend();
  CHECK_NOTHROW(ops::softmax(p, p, 0, 16, 16, 16, nullptr, o));
  CHECK_NOTHROW(ops::softmax(p, p, 4, 0, 16, 16, nullptr, o));
  CHECK_NOTHROW(ops::log_softmax(Pointer{0, DType::f32, memory()}, p, 0, 0, 0, 0, nullptr, o));
  auto message = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  CHECK(message([&] { ops::softmax(p, p, -1, 16, 16, 16, nullptr, o); }).find("negative size") != std::string::npos);
  CHECK(message([&] {
          ops::softmax(Pointer{0, DType::f32, memory()}, p, 1, 16, 16, 16, nullptr, o);
        }).find("null output pointer") != std::string::npos);
  CHECK(message([&] {
          ops::softmax(p, Pointer{a.address(), DType::i32, memory()}, 1, 16, 16, 16, nullptr, o);
        }).find("unsupported input element type i32") != std::string::npos);
  CHECK(message([&] {
          ops::softmax(Pointer{a.address() + 2, DType::f32, memory()}, p, 1, 16, 16, 16, nullptr, o);
        }).find("not aligned") != std::string::npos);
  CHECK(message([&] { ops::softmax(p, p, 2, 16, 16, 8, nullptr, o); }).find("overlap") != std::string::npos);
  // A Buffer's size is checked against the rows it is given (64 floats: 4 rows of 16, not 5).
  CHECK_NOTHROW(ops::softmax(pointer(a), pointer(a), 4, 16, 16, 16, nullptr, o));
  CHECK(message([&] { ops::softmax(pointer(a), p, 5, 16, 16, 16, nullptr, o); })
            .find("softmax: the output holds 256 bytes, but 5 rows 16 elements apart, of 16 f32 elements each, "
                  "reach 320 bytes") != std::string::npos);
  CHECK(message([&] {
          ops::softmax(p, pointer(a), 2, 16, 60, 16, nullptr, o);
        }).find("the input holds 256 bytes, but 2 rows 60 elements apart") != std::string::npos);
  CHECK(message([&] { ops::softmax(p, p, 1, std::int64_t{1} << 31, 0, 0, nullptr, o); }).find("too large") !=
        std::string::npos);
  ops::SoftmaxOptions bad = o;
  bad.config = forced(SoftmaxStrategy::row_in_registers, 8);
  CHECK(message([&] { ops::softmax(p, p, 1, 16, 16, 16, nullptr, bad); }).find("whole row") != std::string::npos);
  for (std::int64_t stat_cols : {3, 32}) {  // not a power of two; wider than the block
    auto c = forced(SoftmaxStrategy::online, 16);
    c.stat_cols = stat_cols;
    bad.config = c;
    CHECK(message([&] { ops::softmax(p, p, 1, 64, 64, 64, nullptr, bad); }).find("stat_cols must be") !=
          std::string::npos);
  }
  bad.config = forced(SoftmaxStrategy::row_in_registers, 16);  // no walk: nothing to cover
  bad.config->stat_cols = 4;
  CHECK(message([&] { ops::softmax(p, p, 1, 16, 16, 16, nullptr, bad); }).find("stat_cols applies to walks") !=
        std::string::npos);
  ops::SoftmaxOptions bad_budget = o;
  bad_budget.kept_bytes = -2;
  CHECK(message([&] { ops::softmax(p, p, 1, 16, 16, 16, nullptr, bad_budget); }).find("kept_bytes -2") !=
        std::string::npos);
}

TEST_CASE("softmax op: 64-bit row offsets only where row * stride can pass 2^31") {
  // The IR: WIDE multiplies the row index by the stride in i64; ordinary shapes stay in i32.
  Pointer p{0x10000, DType::f32, Memory::unknown}, q{0x20000, DType::f32, Memory::unknown};
  auto lowered = [&](std::int64_t wide) {
    return ops::softmax_row_op()
        .compile({p, q, 4096, 4096, 4096, 4096, 4096, 0, wide, 1}, compile_options())
        .stage("ir.lowered");
  };
  auto has_i64_mul = [](const std::string& ir) {
    std::size_t at = 0;
    while ((at = ir.find("= mul ", at)) != std::string::npos) {
      std::size_t end = ir.find('\n', at);
      if (ir.substr(at, end - at).ends_with(": i64")) return true;
      at = end;
    }
    return false;
  };
  CHECK(has_i64_mul(lowered(1)));
  CHECK(!has_i64_mul(lowered(0)));
  CHECK(lowered(0).find("i64") == std::string::npos);

  // Numbers: row 8 of the input starts 2^31 + 128 elements in (4 GiB of bf16). Only the rows are
  // written, so the host pages behind the gaps are never touched.
  const std::int64_t rows = 9, cols = 40, stride = (std::int64_t{1} << 28) + 16;
  for (bool wide_in : {true, false}) {
    CAPTURE(wide_in);
    auto dense = special_input(rows, cols, 3);
    dense = examples::from_half_bits(DType::bf16, examples::to_half_bits(DType::bf16, dense));
    auto bits = examples::to_half_bits(DType::bf16, dense);
    std::int64_t in_stride = wide_in ? stride : cols, out_stride = wide_in ? cols : stride;
    Buffer in = buffer(DType::bf16, static_cast<std::size_t>((rows - 1) * in_stride + cols));
    Buffer out = buffer(DType::bf16, static_cast<std::size_t>((rows - 1) * out_stride + cols));
    for (std::int64_t r = 0; r < rows; ++r)
      in.upload(bits.data() + r * cols, 2 * cols, static_cast<std::size_t>(2 * r * in_stride));
    for (auto strategy : {SoftmaxStrategy::rows_2d, SoftmaxStrategy::row_in_registers, SoftmaxStrategy::online,
                          SoftmaxStrategy::split_row}) {
      CAPTURE(ops::strategy_name(strategy));
      ops::SoftmaxOptions o;
      o.backend = backend();
      o.config =
          forced(strategy,
                 strategy == SoftmaxStrategy::rows_2d || strategy == SoftmaxStrategy::row_in_registers ? 64 : 16, 4, 2);
      std::vector<std::uint16_t> poison(static_cast<std::size_t>(cols), 0xffff),
          got_bits(static_cast<std::size_t>(rows * cols));
      for (std::int64_t r = 0; r < rows; ++r)
        out.upload(poison.data(), 2 * cols, static_cast<std::size_t>(2 * r * out_stride));
      ops::softmax(pointer(out), pointer(in), rows, cols, in_stride, out_stride, nullptr, o);
      finish();
      for (std::int64_t r = 0; r < rows; ++r)
        out.download(got_bits.data() + r * cols, 2 * cols, static_cast<std::size_t>(2 * r * out_stride));
      auto cmp = examples::compare_rows(examples::from_half_bits(DType::bf16, got_bits),
                                        examples::softmax_reference(dense, rows, cols, cols), rows, cols, cols);
      CHECK(cmp.nan_mismatches == 0);
      CHECK(cmp.max_rel_error <= 1e-2);
    }
  }
}

TEST_CASE("softmax op: a walk's running statistics per tile row, per element or per block agree") {
  // The GPU launcher keeps one running max and sum per 16 bytes of a block (STAT_COLS 4 for f32,
  // 8 for 16-bit), the CPU launcher one per block: each width here, on this backend, against
  // float64, over rows with -inf, NaN and +inf and a last block cut short.
  const std::int64_t rows = 8, cols = 3001, block = 256;
  for (DType t : {DType::f32, DType::bf16})
    for (std::int64_t stat_cols : {std::int64_t{1}, std::int64_t{4}, std::int64_t{8}, std::int64_t{64}, block}) {
      CAPTURE(dtype_name(t));
      CAPTURE(stat_cols);
      auto x = special_input(rows, cols, 31);
      if (t != DType::f32) x = examples::from_half_bits(t, examples::to_half_bits(t, x));
      Buffer in = buffer(t, x.size()), out = buffer(t, x.size());
      upload_floats(in, x);
      out.fill_bytes(0xff);
      std::vector<Arg> args{pointer(out), pointer(in), cols, cols, rows, cols, block, 0, 0, stat_cols};
      ops::softmax_online_op().compile(args, compile_options()).launch(Grid(rows), args, options());
      finish();
      auto cmp = examples::compare_rows(download_floats(out), examples::softmax_reference(x, rows, cols, cols), rows,
                                        cols, cols);
      CAPTURE(cmp.worst_row);
      CHECK(cmp.nan_mismatches == 0);
      CHECK(cmp.max_rel_error <= (t == DType::f32 ? 1e-5 : 1e-2));
    }
  // Through the op: a configuration names its width (SoftmaxConfig::stat_cols) for every walk.
  for (auto strategy : {SoftmaxStrategy::online, SoftmaxStrategy::split_row, SoftmaxStrategy::group})
    for (std::int64_t stat_cols : {1, 8, 64}) {
      auto c = forced(strategy, 64, 1, 3);
      c.stat_cols = stat_cols;
      check({.rows = 6, .cols = 1001, .in_type = DType::bf16, .out_type = DType::f32, .config = c});
    }
  // ... and a different width is a different kernel.
  auto kernel_for = [](std::int64_t stat_cols) {
    ops::SoftmaxOptions o;
    o.backend = backend();
    o.config = forced(SoftmaxStrategy::online, 64);
    o.config->stat_cols = stat_cols;
    return ops::compile_softmax(Pointer{0x10000, DType::f32, memory()}, Pointer{0x20000, DType::f32, memory()}, 4, 1000,
                                1000, 1000, false, o)
        .at(0);
  };
  CHECK(kernel_for(8) != kernel_for(64));
  CHECK(kernel_for(8) == kernel_for(8));
}
