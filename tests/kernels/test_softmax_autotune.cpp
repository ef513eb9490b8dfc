// The softmax autotuner on the backend this binary runs: it picks one of the candidates, writes
// the device's file, softmax reads it back (also in a fresh lookup), and a corrupt file is ignored.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "kernel_test.h"
#include "src/ops/softmax_internal.h"
#include "tilejit/ops/softmax_autotune.h"

using namespace tilejit;
using namespace tilejit::testing;
using ops::SoftmaxConfig;
using ops::SoftmaxStrategy;

namespace {

// Points TILEJIT_CACHE_DIR at a fresh directory for one test and restores it afterwards
// (the GPU binary's kernel disk cache reads the same variable).
class ScopedCacheDir {
 public:
  explicit ScopedCacheDir(const std::string& name) : dir_(std::filesystem::temp_directory_path() / fmt_name(name)) {
    if (const char* old = std::getenv("TILEJIT_CACHE_DIR")) old_ = old, had_ = true;
    std::filesystem::remove_all(dir_);
    setenv("TILEJIT_CACHE_DIR", dir_.c_str(), 1);
    ops::forget_softmax_tuning();
  }
  ~ScopedCacheDir() {
    if (had_) setenv("TILEJIT_CACHE_DIR", old_.c_str(), 1);
    else unsetenv("TILEJIT_CACHE_DIR");
    unsetenv("TILEJIT_AUTOTUNE");
    ops::forget_softmax_tuning();
    // Background builds of the test's kernels write into the directory: let them finish first, and
    // never throw from a destructor.
    wait_for_background_compiles();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  static std::string fmt_name(const std::string& name) { return "tilejit-" + name + "-" + std::to_string(getpid()); }
  std::filesystem::path dir_;
  std::string old_;
  bool had_ = false;
};

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("softmax autotuner: picks a candidate, persists it, softmax reloads it") {
  ScopedCacheDir cache("autotune");
  const std::int64_t rows = 64, cols = 300;
  ops::TuneOptions tune;
  tune.backend = backend();
  tune.reps = 3;
  tune.finalists = 0;  // the sweep's pick, as given (the final rounds have a test of their own)
  tune.candidates = {{SoftmaxStrategy::rows_2d, 512, 4, 1, 2, 1},
                     {SoftmaxStrategy::row_in_registers, 512, 4, 1, 1, 1, ops::SoftmaxGrid::per_row},
                     {SoftmaxStrategy::online, 128, 4, 1, 1, 1},
                     {SoftmaxStrategy::row_in_registers, 256, 4, 1, 1, 1}};  // too narrow: skipped
  auto result = ops::tune_softmax(rows, cols, DType::f32, tune);
  CHECK(result.timings.size() == 3);
  CHECK(std::find(tune.candidates.begin(), tune.candidates.begin() + 3, result.best) != tune.candidates.begin() + 3);
  // Force the per-row candidate into the file too, so the grid word is written and read back.
  tune.candidates = {tune.candidates[1]};
  result = ops::tune_softmax(rows, cols, DType::f32, tune);
  CHECK(result.best_ms > 0);

  std::string path = ops::softmax_tuning_file(backend());
  REQUIRE(std::filesystem::exists(path));
  CHECK(std::filesystem::path(path).filename().string().starts_with("autotune-"));
  CHECK(std::filesystem::path(path).filename().string().find(' ') == std::string::npos);
  CHECK(read_all(path).starts_with("tilejit-softmax-autotune v2\n# device: "));
  // A GPU's file says what shipping it would need: its architecture and SM count.
  if (backend() == Backend::cuda) {
    const DeviceProperties& d = device_properties();
    CHECK(read_all(path).find(fmt::format("\n# device: {}\n# architecture: sm_{}{}, {} SMs\n", d.name, d.cc_major,
                                          d.cc_minor, d.sm_count)) != std::string::npos);
  } else {
    CHECK(read_all(path).find("# architecture:") == std::string::npos);
  }
  CHECK(read_all(path).find("4 6 9 : row_in_registers 512 4 1 1 1 per_row\n") != std::string::npos);

  // A fresh lookup reads the file; any shape of the same band gets the tuned configuration.
  ops::forget_softmax_tuning();
  auto tuned = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(tuned);
  CHECK(*tuned == result.best);
  CHECK(tuned->grid == ops::SoftmaxGrid::per_row);
  ops::SoftmaxOptions o;
  o.backend = backend();
  auto plan = ops::plan_softmax(50, 290, DType::f32, DType::f32, o);
  CHECK(plan.source == ops::ConfigSource::autotune);
  CHECK(plan.config == result.best);
  CHECK(ops::plan_softmax(50, 290, DType::bf16, DType::bf16, o).source == ops::ConfigSource::table);
  CHECK(ops::plan_softmax(50, 2000, DType::f32, DType::f32, o).source == ops::ConfigSource::table);
  // A generator is written as "codegen=G" and read back (f16 here: the band of 2-byte types, so
  // after bf16's below this entry is replaced; checked first).
  SoftmaxConfig built_by_ptx = tune.candidates[0];
  built_by_ptx.codegen = GpuCodegen::ptx;
  tune.candidates = {built_by_ptx};
  CHECK(ops::tune_softmax(rows, cols, DType::f16, tune).best == built_by_ptx);
  CHECK(read_all(path).find("2 6 9 : row_in_registers 512 4 1 1 1 per_row codegen=ptx\n") != std::string::npos);
  ops::forget_softmax_tuning();
  CHECK(ops::tuned_softmax_config(50, 290, DType::f16, backend()) == built_by_ptx);
  // Programs sharing a block are written as "programs=N" and read back (another band: bf16).
  SoftmaxConfig packed{SoftmaxStrategy::rows_2d, 512, 1, 1, 2, 1, ops::SoftmaxGrid::per_row};
  packed.programs_per_block = 4;
  tune.candidates = {packed};
  CHECK(ops::tune_softmax(rows, cols, DType::bf16, tune).best == packed);
  CHECK(read_all(path).find("2 6 9 : rows_2d 512 1 1 2 1 per_row programs=4\n") != std::string::npos);
  ops::forget_softmax_tuning();
  CHECK(ops::tuned_softmax_config(50, 290, DType::bf16, backend()) == packed);

  // The tuned plan computes softmax.
  std::vector<float> x = random_floats(static_cast<std::size_t>(50 * 290), -5.f, 5.f, 4);
  Buffer in = buffer(DType::f32, x.size()), out = buffer(DType::f32, x.size());
  in.upload(x);
  out.fill_bytes(0xff);
  ops::softmax({out.address(), DType::f32, out.memory()}, {in.address(), DType::f32, in.memory()}, 50, 290, 290, 290,
               nullptr, o);
  finish();
  auto y = out.download<float>();
  double sum = 0;
  for (int c = 0; c < 290; ++c) sum += y[static_cast<std::size_t>(49 * 290 + c)];
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));

  // A corrupt file is ignored as a whole: the table decides again.
  {
    std::ofstream f(path, std::ios::app);
    f << "4 6 9 : warp_speed 1 2 3\n";
  }
  ops::forget_softmax_tuning();
  CHECK(!ops::tuned_softmax_config(50, 290, DType::f32, backend()));
  CHECK(ops::plan_softmax(50, 290, DType::f32, DType::f32, o).source == ops::ConfigSource::table);
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v0\n4 6 9 : online 128 4 1 1 1\n";  // another version
  }
  ops::forget_softmax_tuning();
  CHECK(!ops::tuned_softmax_config(50, 290, DType::f32, backend()));
  // v1 files (before the grid word) still read, as persistent configurations; a v1 line with a
  // grid word, or a v2 line without one, spoils the file.
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v1\n4 6 9 : online 128 4 1 1 1\n";
  }
  ops::forget_softmax_tuning();
  auto v1 = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(v1);
  CHECK(*v1 == SoftmaxConfig{SoftmaxStrategy::online, 128, 4, 1, 1, 1, ops::SoftmaxGrid::persistent});
  // A v2 line may end in "overlap" (groups holding the row in registers only: 256 x 3 >= 512).
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v2\n4 6 9 : group 256 4 2 1 3 persistent overlap\n";
  }
  ops::forget_softmax_tuning();
  auto overlapped = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(overlapped);
  CHECK(*overlapped ==
        SoftmaxConfig{SoftmaxStrategy::group, 256, 4, 2, 1, 3, ops::SoftmaxGrid::persistent, /*overlap=*/true});
  // ... and in "min_blocks=N" (SoftmaxConfig::min_blocks_per_sm), before or after "overlap".
  for (const char* line : {"4 6 9 : group 256 4 2 1 3 persistent overlap min_blocks=3\n",
                           "4 6 9 : group 256 4 2 1 3 persistent min_blocks=3 overlap\n"}) {
    {
      std::ofstream f(path, std::ios::trunc);
      f << "tilejit-softmax-autotune v2\n" << line;
    }
    ops::forget_softmax_tuning();
    auto bounded = ops::tuned_softmax_config(50, 290, DType::f32, backend());
    REQUIRE_MESSAGE(bounded, line);
    CHECK(*bounded == SoftmaxConfig{SoftmaxStrategy::group, 256, 4, 2, 1, 3, ops::SoftmaxGrid::persistent,
                                    /*overlap=*/true, /*min_blocks_per_sm=*/3});
  }
  // ... and in "stat_cols=N" (SoftmaxConfig::stat_cols), in any order with the others.
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent stat_cols=128 min_blocks=2\n";
  }
  ops::forget_softmax_tuning();
  auto stats = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(stats);
  CHECK(stats->stat_cols == 128);
  CHECK(stats->min_blocks_per_sm == 2);
  // ... and in "interleave" (SoftmaxConfig::interleave; a group walking its slices: 64 x 3 < 512).
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v2\n4 6 9 : group 64 4 2 1 3 persistent interleave stat_cols=16\n";
  }
  ops::forget_softmax_tuning();
  auto interleaved = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(interleaved);
  CHECK(interleaved->interleave);
  CHECK(interleaved->stat_cols == 16);
  // ... and in "programs=N" (SoftmaxConfig::programs_per_block; short-row strategies only).
  {
    std::ofstream f(path, std::ios::trunc);
    f << "tilejit-softmax-autotune v2\n4 6 9 : rows_2d 512 1 4 2 1 persistent programs=4 min_blocks=8\n";
  }
  ops::forget_softmax_tuning();
  auto four_a_block = ops::tuned_softmax_config(50, 290, DType::f32, backend());
  REQUIRE(four_a_block);
  CHECK(four_a_block->programs_per_block == 4);
  CHECK(four_a_block->min_blocks_per_sm == 8);
  for (const char* bad :
       {"tilejit-softmax-autotune v1\n4 6 9 : online 128 4 1 1 1 per_row\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent programs=2\n",
        "tilejit-softmax-autotune v2\n4 6 9 : rows_2d 512 1 1 2 1 persistent programs=0\n",
        // 2 warps x 4 programs a block: at most 8 blocks an SM.
        "tilejit-softmax-autotune v2\n4 6 9 : rows_2d 512 2 1 2 1 persistent programs=4 min_blocks=9\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 sideways\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent overlap\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent interleave\n",
        "tilejit-softmax-autotune v2\n4 6 9 : group 64 4 1 1 3 persistent interleaved\n",
        "tilejit-softmax-autotune v2\n4 6 9 : group 256 4 1 1 3 persistent overlapped\n",
        // A group holding its slices overlapped: at most 16 blocks a program (512 / 2 / 8 = 32).
        "tilejit-softmax-autotune v2\n4 6 9 : group 8 4 1 1 2 persistent overlap\n",
        "tilejit-softmax-autotune v1\n4 6 9 : group 64 4 1 1 3 overlap\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent min_blocks=0\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent min_blocks=x\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent min_blocks=\n",
        // 4 warps a block: at most 16 blocks an SM.
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent min_blocks=17\n",
        "tilejit-softmax-autotune v1\n4 6 9 : online 128 4 1 1 1 min_blocks=2\n",
        // stat_cols: a power of two up to the block.
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent stat_cols=0\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent stat_cols=3\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent stat_cols=256\n",
        "tilejit-softmax-autotune v2\n4 6 9 : online 128 4 1 1 1 persistent stat_colsx=4\n"}) {
    {
      std::ofstream f(path, std::ios::trunc);
      f << bad;
    }
    ops::forget_softmax_tuning();
    CHECK_MESSAGE(!ops::tuned_softmax_config(50, 290, DType::f32, backend()), bad);
  }
}

TEST_CASE("softmax autotuner: the sweep's fastest and the configuration run before meet again in final rounds") {
  ScopedCacheDir cache("autotune-finals");
  const std::int64_t rows = 64, cols = 300;
  ops::SoftmaxOptions o;
  o.backend = backend();
  const SoftmaxConfig incumbent = ops::plan_softmax(rows, cols, DType::f32, DType::f32, o).config;
  std::vector<SoftmaxConfig> others;
  for (SoftmaxConfig c : {SoftmaxConfig{SoftmaxStrategy::rows_2d, 512, 4, 1, 2, 1},
                          SoftmaxConfig{SoftmaxStrategy::online, 128, 4, 1, 1, 1},
                          SoftmaxConfig{SoftmaxStrategy::row_in_registers, 512, 4, 1, 1, 1, ops::SoftmaxGrid::per_row},
                          SoftmaxConfig{SoftmaxStrategy::rows_2d, 512, 2, 1, 4, 1}})
    if (c != incumbent && others.size() < 3) others.push_back(c);
  REQUIRE(others.size() == 3);

  ops::TuneOptions tune;
  tune.backend = backend();
  tune.reps = 2;
  tune.finalists = 2;
  tune.rounds = 3;
  tune.candidates = others;
  tune.candidates.push_back(incumbent);
  auto r = ops::tune_softmax(rows, cols, DType::f32, tune);
  REQUIRE(r.timings.size() == 4);
  CHECK(r.incumbent == incumbent);
  // The sweep's two fastest, and the incumbent where it was not one of them. A caller's candidates
  // run as given (on CUDA too: only the tuner's own list is timed as each generator builds it).
  auto ranked = r.timings;
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const bool incumbent_in_top = ranked[0].first == incumbent || ranked[1].first == incumbent;
  REQUIRE(r.finals.size() == (incumbent_in_top ? 2u : 3u));
  for (const SoftmaxConfig& top : {ranked[0].first, ranked[1].first})
    CHECK(std::any_of(r.finals.begin(), r.finals.end(), [&](const auto& f) { return f.first == top; }));
  CHECK(std::is_sorted(r.finals.begin(), r.finals.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; }));
  // The winner is the finals' fastest, not necessarily the sweep's, and is what the file records.
  CHECK(r.best == r.finals.front().first);
  CHECK(r.best_ms == r.finals.front().second);
  CHECK(r.incumbent_ms > 0);
  CHECK(std::any_of(r.finals.begin(), r.finals.end(),
                    [&](const auto& f) { return f.first == incumbent && f.second == r.incumbent_ms; }));
  ops::forget_softmax_tuning();
  CHECK(ops::tuned_softmax_config(rows, cols, DType::f32, backend()) == r.best);

  // A caller's list without the incumbent (bf16's band, not tuned yet): the incumbent does not run.
  const SoftmaxConfig bf16_incumbent = ops::plan_softmax(rows, cols, DType::bf16, DType::bf16, o).config;
  tune.candidates.clear();
  for (const SoftmaxConfig& c : others)
    if (c != bf16_incumbent) tune.candidates.push_back(c);
  auto r16 = ops::tune_softmax(rows, cols, DType::bf16, tune);
  CHECK(r16.incumbent == bf16_incumbent);
  CHECK(r16.incumbent_ms == 0);
  CHECK(r16.finals.size() == 2);

  // No finalists: the sweep's fastest wins and nothing is timed again.
  tune.finalists = 0;
  auto sweep_only = ops::tune_softmax(rows, cols, DType::f32, tune);
  CHECK(sweep_only.finals.empty());
  CHECK(sweep_only.incumbent_ms == 0);
  const auto fastest = *std::min_element(sweep_only.timings.begin(), sweep_only.timings.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
  CHECK(sweep_only.best == fastest.first);
  CHECK(sweep_only.best_ms == fastest.second);
}

TEST_CASE("softmax autotuner: TILEJIT_AUTOTUNE=1 tunes a band on its first miss") {
  ScopedCacheDir cache("autotune-env");
  setenv("TILEJIT_AUTOTUNE", "1", 1);
  const std::int64_t rows = 8, cols = 40;
  ops::SoftmaxOptions o;
  o.backend = backend();
  CHECK(!ops::tuned_softmax_config(rows, cols, DType::bf16, backend()));
  const SoftmaxConfig before = ops::plan_softmax(rows, cols, DType::bf16, DType::bf16, o).config;
  Buffer in = buffer(DType::bf16, rows * cols), out = buffer(DType::bf16, rows * cols);
  in.fill_bytes(0);
  ops::softmax({out.address(), DType::bf16, out.memory()}, {in.address(), DType::bf16, in.memory()}, rows, cols, cols,
               cols, nullptr, o);
  finish();
  auto tuned = ops::tuned_softmax_config(rows, cols, DType::bf16, backend());
  REQUIRE(tuned);
  // The configuration run before (a finalist too), or one of the tuner's own candidates (on CUDA
  // naming the generator whose build was timed).
  auto candidates = ops::softmax_tuning_candidates(rows, cols, DType::bf16, backend());
  candidates.push_back(before);
  CHECK(std::find(candidates.begin(), candidates.end(), *tuned) != candidates.end());
  CHECK(read_all(ops::softmax_tuning_file(backend())).find(" : ") != std::string::npos);
}

TEST_CASE("softmax op: a call's cached plan follows tuning and the cache directory") {
  ScopedCacheDir cache("plan-cache");
  const std::int64_t rows = 64, cols = 300;
  ops::SoftmaxOptions o;
  o.backend = backend();
  Buffer in = buffer(DType::f32, rows * cols), out = buffer(DType::f32, rows * cols);
  in.fill_bytes(0);
  auto call = [&] {
    ops::softmax({out.address(), DType::f32, out.memory()}, {in.address(), DType::f32, in.memory()}, rows, cols, cols,
                 cols, nullptr, o);
    finish();
  };
  // What the op's calls look the plan up under (as softmax.cpp's call_plan does).
  const ops::detail::PlanKey key{rows, cols, DType::f32, DType::f32, o.backend, 0};
  auto cached = [&] { return ops::detail::cached_plan(key, ops::detail::plan_inputs(o)).plan; };
  CHECK(!cached());
  call();
  REQUIRE(cached());
  CHECK(cached()->source == ops::ConfigSource::table);
  CHECK(cached()->config == ops::plan_softmax(rows, cols, DType::f32, DType::f32, o).config);

  // A tuning run makes it stale; the next call plans again and finds the tuned entry.
  ops::TuneOptions tune;
  tune.backend = backend();
  tune.reps = 1;
  tune.finalists = 0;
  tune.candidates = {{SoftmaxStrategy::online, 128, 4, 1, 1, 1}};
  ops::tune_softmax(rows, cols, DType::f32, tune);
  CHECK(!cached());
  call();
  REQUIRE(cached());
  CHECK(cached()->source == ops::ConfigSource::autotune);
  CHECK(cached()->config == tune.candidates[0]);

  // Another cache directory (no tuning file there): that plan does not apply.
  const std::string tuned_dir = ops::detail::cache_dir();
  setenv("TILEJIT_CACHE_DIR", (tuned_dir + "-elsewhere").c_str(), 1);
  CHECK(!cached());
  call();
  REQUIRE(cached());
  CHECK(cached()->source == ops::ConfigSource::table);
  // Back: a shape keeps one plan, the last one made, so this call plans again.
  setenv("TILEJIT_CACHE_DIR", tuned_dir.c_str(), 1);
  CHECK(!cached());
  call();
  REQUIRE(cached());
  CHECK(cached()->source == ops::ConfigSource::autotune);
  wait_for_background_compiles();
  std::error_code ec;
  std::filesystem::remove_all(tuned_dir + "-elsewhere", ec);
}
