// bench-tune-softmax: runs the softmax autotuner on this GPU over the shapes the benchmarks
// report, so its per-device file can be read, compared with the built-in table, and shipped.
// For each dtype (f32; bf16, whose 2-byte bands f16 shares) and shape it prints the winner and
// the configuration softmax ran before (its source: the shipped device table, the hand table or
// an earlier tuned file), both timed in the tuner's final rounds, and a device copy of the same
// bytes (all CUDA events, L2 flushed, median).
//
//   TILEJIT_CACHE_DIR=DIR bench-tune-softmax [--out FILE.md] [--min-cols N] [--max-cols N]
//   (the tuned file lands in DIR; --min-cols / --max-cols keep only shapes of that width)
#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

int main(int argc, char** argv) {
  std::string out_path;
  std::int64_t min_cols = 0, max_cols = INT64_MAX;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--out") out_path = argv[i + 1];
    if (std::string(argv[i]) == "--min-cols") min_cols = std::stoll(argv[i + 1]);
    if (std::string(argv[i]) == "--max-cols") max_cols = std::stoll(argv[i + 1]);
  }
  if (!has_gpu()) {
    fmt::print("bench-tune-softmax: no GPU, nothing tuned\n");
    return 0;
  }
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {4096, 256},    {4096, 1024},  {4096, 2048},   {4096, 4096},  {4096, 8192},
      {4096, 16384},  {4096, 65536}, {4096, 262144}, {1, 16 << 20}, {16, 4 << 20},
      {128, 1 << 20}, {1, 1 << 20},  {65536, 32},    {65536, 128},  {32768, 512}};
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
