// bench-tune-softmax: runs the softmax autotuner on this GPU over the shapes the benchmarks
// report, so its per-device file can be read, compared with the built-in table, and shipped.
// For each dtype (f32; bf16, whose 2-byte bands f16 shares) and shape it prints the winner and
// the configuration softmax ran before (its source: the shipped device table, the hand table or
// an earlier tuned file), both timed in the tuner's final rounds, and a device copy of the same
// bytes (all CUDA events, L2 flushed, median).
//
//   TILEJIT_CACHE_DIR=DIR bench-tune-softmax [--out FILE.md] [--min-cols N] [--max-cols N]
//                                            [--shapes MxN,MxN,...]
//   (the tuned file lands in DIR; --min-cols / --max-cols keep only the benchmark shapes of that
//   width; --shapes tunes the shapes it lists instead)
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_args.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

using Shape = std::pair<std::int64_t, std::int64_t>;

// "MxN,MxN,...": the shapes to tune, each checked as it is read.
std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> shapes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const std::size_t x = item.find('x');
    std::int64_t rows = 0, cols = 0;
    if (x == std::string::npos || !examples::parse_integer(item.substr(0, x), rows) ||
        !examples::parse_integer(item.substr(x + 1), cols) || rows <= 0 || cols <= 0)
      throw Error(fmt::format("--shapes: '{}' is not MxN with M, N > 0", item));
    shapes.emplace_back(rows, cols);
    start = end + 1;
  }
  return shapes;
}

int run(int argc, char** argv) {
  const examples::CliArgs args(
      argc, argv, {{"out", ""}, {"min-cols", "0"}, {"max-cols", std::to_string(INT64_MAX)}, {"shapes", ""}});
  const std::string& out_path = args.str("out");
  const std::int64_t min_cols = args.integer("min-cols"), max_cols = args.integer("max-cols");
  std::vector<Shape> shapes = {{4096, 256},    {4096, 1024},  {4096, 2048},   {4096, 4096},  {4096, 8192},
                               {4096, 16384},  {4096, 65536}, {4096, 262144}, {1, 16 << 20}, {16, 4 << 20},
                               {128, 1 << 20}, {1, 1 << 20},  {65536, 32},    {65536, 128},  {32768, 512}};
  if (args.given("shapes")) shapes = parse_shapes(args.str("shapes"));
  if (!has_gpu()) {
    fmt::print("bench-tune-softmax: no GPU, nothing tuned\n");
    return 0;
  }
  std::string md = fmt::format("Device: {}. Tuned file: {}\n\n", device_properties().name, ops::softmax_tuning_file());
  md += "| dtype | M | N | candidates | tuned | us | fraction of C | before (source) | us | fraction of C |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  std::string finals;
  for (DType t : {DType::f32, DType::bf16}) {
    for (auto [rows, cols] : shapes) {
      if (cols < min_cols || cols > max_cols) continue;
      const auto n = static_cast<std::size_t>(rows * cols);
      Buffer in(t, n, Memory::device), out(t, n, Memory::device);
      in.fill_bytes(0x3c);  // finite values; timing does not depend on them
      double copy_ms = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }).median_ms;
      // What softmax ran before this shape was tuned (the incumbent) is a finalist of the tuner's
      // final rounds, so both figures below come from the same rounds.
      const ops::ConfigSource source = ops::plan_softmax(rows, cols, t, t).source;
      ops::TuneOptions tune;
      tune.reps = 20;
      ops::TuneResult r = ops::tune_softmax(rows, cols, t, tune);
      std::string line = fmt::format(
          "| {} | {} | {} | {} | {} | {:.1f} | {:.3f} | {} ({}) | {:.1f} | {:.3f} |\n", dtype_name(t), rows, cols,
          r.timings.size(), ops::describe(r.best), r.best_ms * 1e3, copy_ms / r.best_ms, ops::describe(r.incumbent),
          ops::config_source_name(source), r.incumbent_ms * 1e3, r.incumbent_ms > 0 ? copy_ms / r.incumbent_ms : 0.0);
      fmt::print("{}", line);
      md += line;
      finals += fmt::format("- {} {} x {}:", dtype_name(t), rows, cols);
      for (const auto& [c, ms] : r.finals) finals += fmt::format(" {} {:.1f} us;", ops::describe(c), ms * 1e3);
      finals += "\n";
    }
  }
  md += fmt::format("\nThe final rounds ({} rounds, each finalist in turn; median over rounds), fastest first:\n\n{}",
                    ops::TuneOptions{}.rounds, finals);
  if (!out_path.empty()) std::ofstream(out_path) << md;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench-tune-softmax: {}\n", e.what());
    return 1;
  }
}
