// The C API as C and Python (ctypes) callers use it: return codes, per-thread error messages
// that name the problem, the kernel list, and compiling a library kernel. Without a GPU the
// device entry points must fail cleanly, saying why; with one, bench/softmax_bench.py drives
// them on torch tensors.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tilejit/c_api.h"

namespace {

std::string last_error() { return tilejit_last_error(); }

tilejit_arg pointer(std::uint64_t address, int dtype) { return tilejit_arg{0, dtype, address, 0, 0.0}; }
tilejit_arg integer(std::int64_t v) { return tilejit_arg{1, 0, 0, v, 0.0}; }

}  // namespace

TEST_CASE("C API: the library's kernels by name") {
  const std::string names = tilejit_kernel_names();
  CHECK(names.find("softmax_simple") != std::string::npos);
  CHECK(names.find("softmax_held") != std::string::npos);
  CHECK(names.find("softmax_persistent") != std::string::npos);
  // Each name compiles (the held kernel: out, in, in_stride, out_stride, n_cols, BLOCK_SIZE), on
  // whichever backend this machine has.
  const tilejit_arg held[] = {pointer(0x10000, TILEJIT_BF16),
                              pointer(0x20000, TILEJIT_BF16),
                              integer(16384),
                              integer(16384),
                              integer(16384),
                              integer(16384)};
  tilejit_compiled* k = nullptr;
  const int rc = tilejit_compile("softmax_held", held, 6, 8, 1, &k);
  const std::string why = last_error();
  if (rc != 0 && !tilejit_has_gpu()) {
    CHECK(why.find("not available") != std::string::npos);
    MESSAGE("skipped: neither a GPU nor the CPU backend here (" << why << ")");
    return;
  }
  REQUIRE_MESSAGE(rc == 0, why);
  CHECK(std::string(tilejit_stage(k, "ir")).find("stash_copy") != std::string::npos);
}

TEST_CASE("C API: compiling the seed's persistent kernel gives a handle with its stages") {
  // out, in, in_stride, out_stride, n_rows, n_cols, BLOCK_SIZE, num_stages
  const tilejit_arg args[] = {pointer(0x10000, TILEJIT_F32),
                              pointer(0x20000, TILEJIT_F32),
                              integer(1024),
                              integer(1024),
                              integer(4096),
                              integer(1000),
                              integer(1024),
                              integer(2)};
  tilejit_compiled* k = nullptr;
  const int rc = tilejit_compile("softmax_persistent", args, 8, 4, 2, &k);
  const std::string why = last_error();  // before tilejit_has_gpu, which sets its own
  if (rc != 0 && !tilejit_has_gpu()) {
    // No GPU and a build without LLVM: no backend to compile for, and the message says so.
    CHECK(why.find("not available") != std::string::npos);
    MESSAGE("skipped: neither a GPU nor the CPU backend here (" << why << ")");
    return;
  }
  REQUIRE_MESSAGE(rc == 0, why);
  REQUIRE(k != nullptr);
  const char* ir = tilejit_stage(k, "ir");
  REQUIRE(ir != nullptr);
  CHECK(std::string(ir).find("softmax_persistent") != std::string::npos);
  // A stage that does not exist: null, and the message names it.
  CHECK(tilejit_stage(k, "no-such-stage") == nullptr);
  CHECK(last_error().find("no-such-stage") != std::string::npos);
  uint64_t grid = 0;
  if (tilejit_has_gpu()) {
    REQUIRE_MESSAGE(tilejit_persistent_grid(k, 4096, &grid) == 0, last_error());
    CHECK(grid >= 1);
    CHECK(grid <= 4096);
  }
  CHECK(tilejit_persistent_grid(k, 4096, nullptr) != 0);
  CHECK(last_error().find("null") != std::string::npos);

  // Every option: ptxas asked for three blocks an SM reaches the PTX of a CUDA build (compiling
  // needs no GPU; TILEJIT_BACKEND picks CUDA for this call); a bound no SM can hold is refused,
  // naming the limit.
  const tilejit_compile_options bounded{4, 2, 3, 1};
  tilejit_compiled* b = nullptr;
  ::setenv("TILEJIT_BACKEND", "cuda", 1);
  const int bounded_rc = tilejit_compile_with("softmax_persistent", args, 8, &bounded, &b);
  ::unsetenv("TILEJIT_BACKEND");
  REQUIRE_MESSAGE(bounded_rc == 0, last_error());
  const char* ptx = tilejit_stage(b, "ptx");
  REQUIRE_MESSAGE(ptx != nullptr, last_error());
  CHECK(std::string(ptx).find(".minnctapersm 3") != std::string::npos);
  // Programs sharing a block: the PTX's thread bound counts them (4 warps x 2 programs), and 0
  // means one, as in a struct from before the field.
  tilejit_compiled* packed = nullptr;
  ::setenv("TILEJIT_BACKEND", "cuda", 1);
  const tilejit_compile_options two_a_block{4, 2, 0, 2};
  const int packed_rc = tilejit_compile_with("softmax_persistent", args, 8, &two_a_block, &packed);
  ::unsetenv("TILEJIT_BACKEND");
  REQUIRE_MESSAGE(packed_rc == 0, last_error());
  CHECK(std::string(tilejit_stage(packed, "ptx")).find(".maxntid 256, 1, 1") != std::string::npos);
  const tilejit_compile_options unset{4, 2, 0, 0};
  ::setenv("TILEJIT_BACKEND", "cuda", 1);
  REQUIRE(tilejit_compile_with("softmax_persistent", args, 8, &unset, &packed) == 0);
  ::unsetenv("TILEJIT_BACKEND");
  CHECK(std::string(tilejit_stage(packed, "ptx")).find(".maxntid 128, 1, 1") != std::string::npos);
  const tilejit_compile_options too_many{4, 2, 17, 1};
  CHECK(tilejit_compile_with("softmax_persistent", args, 8, &too_many, &b) != 0);
  CHECK(last_error().find("min_blocks_per_sm must be between 0 and 16") != std::string::npos);
  CHECK(tilejit_compile_with("softmax_persistent", args, 8, nullptr, &b) != 0);
  CHECK(last_error().find("tilejit_compile_with: null options") != std::string::npos);
  CHECK(tilejit_compile_with(nullptr, args, 8, &bounded, &b) != 0);
  CHECK(last_error().find("tilejit_compile_with: null kernel name") != std::string::npos);
}

TEST_CASE("C API: bad calls return non-zero and say what was wrong") {
  tilejit_compiled* k = nullptr;
  const tilejit_arg one = integer(1);
  CHECK(tilejit_compile("nope", &one, 1, 4, 1, &k) != 0);
  CHECK(last_error().find("unknown kernel 'nope'") != std::string::npos);
  CHECK(last_error().find("softmax_persistent") != std::string::npos);  // the known ones, listed
  CHECK(tilejit_compile(nullptr, &one, 1, 4, 1, &k) != 0);
  CHECK(last_error().find("tilejit_compile: null kernel name") != std::string::npos);
  const tilejit_arg bad_dtype = pointer(0x10000, 99);
  CHECK(tilejit_compile("softmax_simple", &bad_dtype, 1, 4, 1, &k) != 0);
  CHECK(last_error().find("bad dtype code 99") != std::string::npos);
  const tilejit_arg bad_kind{7, 0, 0, 0, 0.0};
  CHECK(tilejit_compile("softmax_simple", &bad_kind, 1, 4, 1, &k) != 0);
  CHECK(last_error().find("bad kind 7") != std::string::npos);
  CHECK(tilejit_launch(nullptr, 1, 1, 1, nullptr, 0, nullptr) != 0);
  CHECK(last_error().find("null kernel") != std::string::npos);
  CHECK(tilejit_persistent_grid(nullptr, 1, nullptr) != 0);

  // The softmax entry points check their arguments before touching a device.
  float x = 0;
  CHECK(tilejit_softmax(nullptr, &x, 2, 2, 2, 2, TILEJIT_F32, TILEJIT_F32, nullptr) != 0);
  CHECK(last_error().find("null") != std::string::npos);
  CHECK(tilejit_softmax(&x, &x, -1, 2, 2, 2, TILEJIT_F32, TILEJIT_F32, nullptr) != 0);
  CHECK(last_error().find("negative") != std::string::npos);
  CHECK(tilejit_log_softmax(&x, &x, 2, 2, 2, 2, TILEJIT_I32, TILEJIT_F32, nullptr) != 0);
  CHECK(last_error().find("i32") != std::string::npos);
  CHECK(tilejit_softmax_seed(&x, &x, 2, 20000, 20000, 20000, TILEJIT_F32, nullptr) != 0);
  CHECK(last_error().find("16384") != std::string::npos);
  // Nothing to do is not an error, GPU or not.
  CHECK(tilejit_softmax(&x, &x, 0, 2, 2, 2, TILEJIT_F32, TILEJIT_F32, nullptr) == 0);
  CHECK(tilejit_softmax_seed(&x, &x, 3, 0, 0, 0, TILEJIT_F32, nullptr) == 0);
}

TEST_CASE("C API: without a GPU, device calls fail and say why") {
  if (tilejit_has_gpu()) {
    MESSAGE("skipped: this machine has a GPU (bench/softmax_bench.py runs the C API there)");
    return;
  }
  CHECK(!last_error().empty());  // tilejit_has_gpu's reason
  float x[4] = {0, 0, 0, 0};
  CHECK(tilejit_softmax(x, x, 2, 2, 2, 2, TILEJIT_F32, TILEJIT_F32, nullptr) != 0);
  CHECK(!last_error().empty());
  tilejit_has_gpu();
  const std::string why = last_error();
  CHECK(tilejit_flush_l2(nullptr) != 0);
  CHECK(last_error().find(why) != std::string::npos);  // the driver's own reason, in context
}

TEST_CASE("C API: tilejit_softmax_with runs on the CPU backend over host rows") {
  // 3 rows of 37 columns, 40 apart in the input, against a float64 reference.
  constexpr int rows = 3, cols = 37, in_stride = 40;
  std::vector<float> in(rows * in_stride, 1e30f), out(rows * cols, -1.f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) in[r * in_stride + c] = static_cast<float>((r * 7 + c * 13) % 29) * 0.25f - 3.f;
  // The op's own choice, then forced configurations of three other strategies.
  for (const char* config : {static_cast<const char*>(nullptr), "split_row BLOCK=16 warps=1 splits=3",
                             "online BLOCK=8 warps=1 stat_cols=4", "rows_2d BLOCK=64 warps=2 rows/program=2"})
    for (int log = 0; log <= 1; ++log) {
      CAPTURE(log);
      CAPTURE(config ? config : "(the op's choice)");
      std::fill(out.begin(), out.end(), -1.f);
      const tilejit_softmax_options options{TILEJIT_BACKEND_CPU, log, 2, config};
      const int rc = tilejit_softmax_with(out.data(), in.data(), rows, cols, in_stride, cols, TILEJIT_F32, TILEJIT_F32,
                                          nullptr, &options);
      if (!TILEJIT_TEST_CPU_BACKEND) {  // a build without LLVM: refused, saying why
        CHECK(rc != 0);
        CHECK(last_error().find("the CPU backend is not available") != std::string::npos);
        MESSAGE("CPU backend cases: only the refusal checked, this build has no LLVM");
        return;
      }
      REQUIRE_MESSAGE(rc == 0, last_error());
      for (int r = 0; r < rows; ++r) {
        double max = -1e300, sum = 0;
        for (int c = 0; c < cols; ++c) max = std::max(max, static_cast<double>(in[r * in_stride + c]));
        for (int c = 0; c < cols; ++c) sum += std::exp(in[r * in_stride + c] - max);
        for (int c = 0; c < cols; ++c) {
          const double x = in[r * in_stride + c];
          const double want = log ? x - max - std::log(sum) : std::exp(x - max) / sum;
          CHECK(std::fabs(out[r * cols + c] - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
        }
      }
    }
}

TEST_CASE("C API: tilejit_softmax_with names a bad backend and a configuration it cannot use") {
  // Each is refused before any device or CPU-backend work, so with or without either.
  float x = 0;
  const tilejit_softmax_options bad{7, 0, 0, nullptr};
  CHECK(tilejit_softmax_with(&x, &x, 1, 1, 1, 1, TILEJIT_F32, TILEJIT_F32, nullptr, &bad) != 0);
  CHECK(last_error().find("bad backend 7") != std::string::npos);
  const std::pair<const char*, const char*> refused[] = {
      {"splitrow BLOCK=16", "unknown strategy 'splitrow'"},
      {"group BLOCK=4096 warps=8 splits=64", "'splits=64' does not apply to group: its programs a row are group=N"},
      {"online warps=4", "no BLOCK=N"},
      {"rows_2d BLOCK=64 warps=3", "num_warps must be 1, 2, 4, 8, 16 or 32"},
      {"rows_2d BLOCK=16 warps=1", "BLOCK_COLS must hold a whole row"},  // 37 columns
  };
  std::vector<float> in(37), out(37);
  for (const auto& [config, why] : refused) {
    CAPTURE(config);
    const tilejit_softmax_options options{TILEJIT_BACKEND_CUDA, 0, 0, config};
    CHECK(tilejit_softmax_with(out.data(), in.data(), 1, 37, 37, 37, TILEJIT_F32, TILEJIT_F32, nullptr, &options) != 0);
    CHECK_MESSAGE(last_error().find(why) != std::string::npos, last_error());
  }
}

TEST_CASE("C API: tilejit_softmax_plan names the configuration and where it came from") {
  int source = -1;
  // Forced: the text comes back in describe()'s order, whatever order it was given in.
  const tilejit_softmax_options forced{TILEJIT_BACKEND_CUDA, 0, 0, "split_row splits=8 stages=2 warps=4 BLOCK=4096"};
  const char* text = tilejit_softmax_plan(4, 1 << 20, TILEJIT_F32, TILEJIT_F32, &forced, &source);
  REQUIRE_MESSAGE(text != nullptr, last_error());
  CHECK(std::string(text) == "split_row BLOCK=4096 warps=4 stages=2 splits=8");
  CHECK(source == TILEJIT_CONFIG_FORCED);
  // The op's choice: without a GPU the built-in table's (no device to have a tuned table for):
  // 16 rows of 128 columns a program (2048 f32) over 4 warps.
  text = tilejit_softmax_plan(65536, 128, TILEJIT_F32, TILEJIT_F32, nullptr, &source);
  REQUIRE_MESSAGE(text != nullptr, last_error());
  const std::string chosen = text;
  if (!tilejit_has_gpu()) {
    CHECK(chosen == "rows_2d BLOCK=128 warps=4 rows/program=16");
    CHECK(source == TILEJIT_CONFIG_TABLE);
  }
  // Whatever it is, it reads back as a forced configuration.
  const tilejit_softmax_options again{TILEJIT_BACKEND_CUDA, 0, 0, chosen.c_str()};
  text = tilejit_softmax_plan(65536, 128, TILEJIT_F32, TILEJIT_F32, &again, nullptr);
  REQUIRE_MESSAGE(text != nullptr, last_error());
  CHECK(std::string(text) == chosen);
  // Whose shipped table: named only for a band a device table held.
  const char* table = tilejit_softmax_plan_table(4, 1 << 20, TILEJIT_F32, TILEJIT_F32, &forced);
  REQUIRE_MESSAGE(table != nullptr, last_error());
  CHECK(std::string(table).empty());
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{65536, 128}, {4096, 4096}, {16, 4 << 20}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    REQUIRE(tilejit_softmax_plan(rows, cols, TILEJIT_F32, TILEJIT_F32, nullptr, &source) != nullptr);
    table = tilejit_softmax_plan_table(rows, cols, TILEJIT_F32, TILEJIT_F32, nullptr);
    REQUIRE_MESSAGE(table != nullptr, last_error());
    CHECK(std::string(table).empty() == (source != TILEJIT_CONFIG_DEVICE_TABLE));
    if (!tilejit_has_gpu()) CHECK(source == TILEJIT_CONFIG_TABLE);  // no device to have a table for
  }
  // Errors: null, and the message names the problem.
  CHECK(tilejit_softmax_plan_table(4, -1, TILEJIT_F32, TILEJIT_F32, nullptr) == nullptr);
  CHECK(last_error().find("negative size 4 x -1") != std::string::npos);
  CHECK(tilejit_softmax_plan(0, 128, TILEJIT_F32, TILEJIT_F32, nullptr, &source) == nullptr);
  CHECK(last_error().find("0 x 128 has no elements") != std::string::npos);
  const tilejit_softmax_options wide{TILEJIT_BACKEND_CUDA, 0, 0, "rows_2d BLOCK=64 warps=2"};
  CHECK(tilejit_softmax_plan(4, 100, TILEJIT_F32, TILEJIT_F32, &wide, &source) == nullptr);
  CHECK(last_error().find("BLOCK_COLS must hold a whole row") != std::string::npos);
}

TEST_CASE("C API: tilejit_softmax_kernels compiles the kernels a softmax would launch, without a GPU") {
  // CUDA kernels compile for sm_90 where there is no GPU: their PTX can be read anywhere.
  const tilejit_softmax_options split{TILEJIT_BACKEND_CUDA, 0, 0, "split_row BLOCK=4096 warps=4 stages=2 splits=8"};
  const auto out = reinterpret_cast<void*>(std::uintptr_t{0x10000});
  const auto in = reinterpret_cast<const void*>(std::uintptr_t{0x20000});
  tilejit_compiled* kernels[2] = {nullptr, nullptr};
  int count = 0;
  REQUIRE_MESSAGE(tilejit_softmax_kernels(out, in, 4, 1 << 20, 1 << 20, 1 << 20, TILEJIT_BF16, TILEJIT_F32, &split,
                                          kernels, 2, &count) == 0,
                  last_error());
  REQUIRE(count == 2);
  const char* names[] = {"softmax_split_partials", "softmax_split_normalize"};
  for (int i = 0; i < 2; ++i) {
    CAPTURE(names[i]);
    REQUIRE(kernels[i] != nullptr);
    const char* ptx = tilejit_stage(kernels[i], "ptx");
    REQUIRE_MESSAGE(ptx != nullptr, last_error());
    CHECK(std::string(ptx).find(std::string(".entry ") + names[i]) != std::string::npos);
  }
  // Room for fewer: the count still says how many there are; only what fits is written.
  tilejit_compiled* first[1] = {nullptr};
  REQUIRE(tilejit_softmax_kernels(out, in, 4, 1 << 20, 1 << 20, 1 << 20, TILEJIT_BF16, TILEJIT_F32, &split, first, 1,
                                  &count) == 0);
  CHECK(count == 2);
  CHECK(first[0] == kernels[0]);  // one handle per kernel, however often it is asked for
  // The op's own choice: one kernel, log_softmax's; without a GPU the built-in table holds the row
  // in registers.
  const tilejit_softmax_options log{TILEJIT_BACKEND_CUDA, 1, 0, nullptr};
  REQUIRE_MESSAGE(
      tilejit_softmax_kernels(out, in, 4096, 1024, 1024, 1024, TILEJIT_F32, TILEJIT_F32, &log, kernels, 2, &count) == 0,
      last_error());
  CHECK(count == 1);
  if (!tilejit_has_gpu())
    CHECK(std::string(tilejit_stage(kernels[0], "ir")).find("softmax_row_op") != std::string::npos);
  CHECK(tilejit_softmax_kernels(out, in, 4, 8, 8, 8, TILEJIT_F32, TILEJIT_F32, nullptr, kernels, 2, nullptr) != 0);
  CHECK(last_error().find("tilejit_softmax_kernels: null count") != std::string::npos);
}

TEST_CASE("C API: a handle stays valid after the thread that compiled it ends") {
  const tilejit_softmax_options cuda{TILEJIT_BACKEND_CUDA, 0, 0, "online BLOCK=4096 warps=4"};
  tilejit_compiled* kernel = nullptr;
  int count = 0, rc = -1;
  std::thread worker([&] {
    rc = tilejit_softmax_kernels(reinterpret_cast<void*>(std::uintptr_t{0x10000}),
                                 reinterpret_cast<const void*>(std::uintptr_t{0x20000}), 2, 100000, 100000, 100000,
                                 TILEJIT_F32, TILEJIT_F32, &cuda, &kernel, 1, &count);
  });
  worker.join();
  REQUIRE(rc == 0);
  REQUIRE(count == 1);
  const char* ir = tilejit_stage(kernel, "ir");  // read after the thread is gone
  REQUIRE(ir != nullptr);
  CHECK(std::string(ir).find("softmax_online_op") != std::string::npos);
}
