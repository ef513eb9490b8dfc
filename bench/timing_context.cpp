// bench-timing-context: one configuration of the softmax op timed in the contexts the autotuner
// and tilejit-softmax time it in, in turn, so a gap between their readings can be pinned on one
// difference: the batch (warmup and launches), the buffers (the tuner allocates its own), or the
// tuner itself (its timing loop, and in its final rounds other kernels timed between batches).
//
//   bench-timing-context [--rows M] [--cols N] [--config "C"] [--walk "W"] [--rounds R] [--full-sweep 1]
//   (default: f32 1 x 1M, the op's own plan, 3 rounds; W, a walking configuration whose first
//   pass asks L2 to keep its lines, run once before the last two contexts: online BLOCK=4096;
//   --full-sweep 1: then the tuner over all its candidates, and two contexts again after it;
//   run it with TILEJIT_FLUSH_HELD_LINES=0 too to see what the overwrite alone leaves in L2)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cli_args.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

Buffer random_input(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> v(count);
  for (auto& x : v) x = normal(rng);
  Buffer in(DType::f32, count, Memory::device);
  in.upload(v);
  return in;
}

int run(int argc, char** argv) {
  const examples::CliArgs args(argc, argv,
                               {{"rows", "1"},
                                {"cols", std::to_string(1 << 20)},
                                {"config", ""},
                                {"walk", "online BLOCK=4096 warps=8 stages=2"},
                                {"rounds", "3"},
                                {"full-sweep", "0"}});
  const std::int64_t rows = args.integer("rows"), cols = args.integer("cols");
  const int rounds = static_cast<int>(args.integer("rounds"));
  const bool full_sweep = args.str("full-sweep") == "1";
  const std::string& config_text = args.str("config");
  const std::string& walk_text = args.str("walk");
  if (!has_gpu()) {
    fmt::print("bench-timing-context: no GPU, nothing timed\n");
    return 0;
  }
  ops::SoftmaxOptions forced;
  forced.config = config_text.empty() ? ops::plan_softmax(rows, cols, DType::f32, DType::f32).config
                                      : ops::parse_config(config_text);
  const auto count = static_cast<std::size_t>(rows * cols);
  auto timed_on = [&](const Buffer& out, const Buffer& in, int warmup, int reps) {
    Pointer po{out.address(), DType::f32, Memory::device}, pi{in.address(), DType::f32, Memory::device};
    TimingOptions t;
    t.warmup = warmup;
    t.reps = reps;
    return time_gpu([&] { ops::softmax(po, pi, rows, cols, cols, cols, nullptr, forced); }, t).median_ms * 1e3;
  };
  ops::SoftmaxOptions walk;
  walk.config = ops::parse_config(walk_text);
  auto walk_once = [&](const Buffer& out, const Buffer& in) {
    ops::softmax(Pointer{out.address(), DType::f32, Memory::device}, Pointer{in.address(), DType::f32, Memory::device},
                 rows, cols, cols, cols, nullptr, walk);
    synchronize();
  };
  Buffer in = random_input(count, 1), out(DType::f32, count, Memory::device);
  Buffer other_in = random_input(count, 2), other_out(DType::f32, count, Memory::device);
  timed_on(out, in, 1, 1);  // compiles
  walk_once(other_out, other_in);

  ops::TuneOptions tune;
  tune.candidates = {*forced.config};
  tune.persist = false;
  // Each context's medians in microseconds, one a round, printed in the order first recorded.
  std::vector<std::pair<std::string, std::vector<double>>> us;
  auto record = [&](const std::string& context, double value) {
    auto it = std::find_if(us.begin(), us.end(), [&](const auto& entry) { return entry.first == context; });
    if (it == us.end()) it = us.insert(us.end(), {context, {}});
    it->second.push_back(value);
  };
  const std::vector<std::string> names = {
      "tool's batch (warmup 5, 30 launches), the same buffers",
      "tuner's batch (warmup 2, 10 launches), the same buffers",
      "tool's batch, buffers allocated and filled just before",
      "tune_softmax, this configuration alone, no final rounds",
      "tune_softmax's final rounds (5), this configuration alone",
      "tool's batch right after a second of back-to-back batches",
      "tool's batch right after one walking launch on other buffers",
      "tool's batch right after one walking launch on the same buffers",
  };
  for (int r = 0; r < rounds; ++r) {
    record(names[0], timed_on(out, in, 5, 30));
    record(names[1], timed_on(out, in, 2, 10));
    {
      Buffer fresh_in = random_input(count, 1), fresh_out(DType::f32, count, Memory::device);
      record(names[2], timed_on(fresh_out, fresh_in, 5, 30));
    }
    tune.finalists = 0;
    record(names[3], ops::tune_softmax(rows, cols, DType::f32, tune).best_ms * 1e3);
    tune.finalists = 1;
    record(names[4], ops::tune_softmax(rows, cols, DType::f32, tune).best_ms * 1e3);
    // The tuner's sweep keeps the GPU busy for seconds before its final rounds; the contexts above
    // each keep it busy for milliseconds (clocks may not have risen).
    const auto busy_until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < busy_until) timed_on(out, in, 0, 50);
    record(names[5], timed_on(out, in, 5, 30));
    // A walk's first pass loads with Eviction::last. If lines so marked outlive time_gpu's flush,
    // a kernel reading the same input after a walk finds part of it in L2.
    walk_once(other_out, other_in);
    record(names[6], timed_on(out, in, 5, 30));
    walk_once(out, in);
    record(names[7], timed_on(out, in, 5, 30));
  }
  // Last, once: the tuner's full sweep over the shape's own candidates with its final rounds (its
  // pick and the incumbent as it read them), then the configuration timed alone at once, the
  // contexts above over again: a reading that stays low says the sweep leaves a state behind, one
  // back at the others' says the finals' company (other finalists between batches) is the factor.
  if (full_sweep) {
    ops::TuneOptions sweep;
    sweep.persist = false;
    const ops::TuneResult r = ops::tune_softmax(rows, cols, DType::f32, sweep);
    record("the tuner's full sweep and final rounds: its pick (" + ops::describe(r.best) + ")", r.best_ms * 1e3);
    record("the tuner's full sweep and final rounds: the configuration it ran before (this one)", r.incumbent_ms * 1e3);
    record(names[4] + ", right after the full sweep", ops::tune_softmax(rows, cols, DType::f32, tune).best_ms * 1e3);
    record(names[0] + ", right after the full sweep", timed_on(out, in, 5, 30));
  }
  fmt::print("{}: f32 {} x {}, {} (the walk: {}); medians in us, one column a round\n\n", device_properties().name,
             rows, cols, ops::describe(*forced.config), ops::describe(*walk.config));
  for (const auto& [name, values] : us) {
    std::string line = "| " + name + " |";
    for (double v : values) line += fmt::format(" {:.2f} |", v);
    fmt::print("{}\n", line);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench-timing-context: {}\n", e.what());
    return 1;
  }
}
