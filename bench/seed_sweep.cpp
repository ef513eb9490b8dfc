// bench-seed-sweep: the persistent seed softmax over launch configurations, to choose
// ops::seed_config from measurements. For each dtype and N (M = 4096 rows), every num_warps
// and num_stages is timed (CUDA events, L2 flushed, median of 50) beside a device-to-device copy
// of the same bytes, and the one-program-per-row kernel at the seed's configuration.
//
//   bench-seed-sweep [--out FILE.md]
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tilejit/ops/softmax_seed.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

std::vector<std::uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t u;
    std::memcpy(&u, &v[i], 4);
    out[i] = static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--out") out_path = argv[i + 1];
  if (!has_gpu()) {
    fmt::print("bench-seed-sweep: no GPU, nothing measured\n");
    return 0;
  }
  const std::int64_t rows = 4096;
  const char* commit = std::getenv("TILEJIT_COMMIT");
  std::string md = fmt::format(
      "Device {}, commit {}, code generator {}. M = {}; CUDA events, L2 flushed, median of 50; C = a "
      "device-to-device copy of the same bytes.\n\n",
      device_properties().name, commit && *commit ? commit : "unknown", codegen_name(default_codegen()), rows);
  md +=
      "| dtype | N | kernel | warps | stages | grid | regs | us | GB/s | fraction of C "
      "|\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (DType t : {DType::f32, DType::bf16}) {
    for (std::int64_t cols : {1024, 2048, 4096, 8192, 16384}) {
      const std::size_t n = static_cast<std::size_t>(rows * cols);
      std::vector<float> host(n);
      for (std::size_t i = 0; i < n; ++i) host[i] = 3.0f * std::sin(0.37f * static_cast<float>(i % 10007));
      Buffer in(t, n), out(t, n);
      if (t == DType::f32) in.upload(host);
      else in.upload(to_bf16(host));
      const double bytes = 2.0 * static_cast<double>(in.bytes());
      double copy_ms = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }).median_ms;
      auto row = [&](const std::string& kernel, int warps, int stages, std::uint64_t grid, int regs, double ms) {
        std::string line =
            fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.0f} | {:.3f} |\n", dtype_name(t), cols,
                        kernel, warps, stages, grid, regs, ms * 1e3, bytes / ms / 1e6, copy_ms / ms);
        fmt::print("{}", line);
        md += line;
        if (!out_path.empty()) std::ofstream(out_path) << md;  // every row: a cut-short run keeps its rows
      };
      row("copy", 0, 0, 0, 0, copy_ms);
      const std::int64_t block = ops::seed_config(cols).block;
      for (int warps : {4, 8, 16}) {
        for (int stages : {1, 2, 3}) {
          std::vector<Arg> args{out, in, cols, cols, rows, cols, block, stages};
          const CompiledKernel* k = nullptr;
          try {
            CompileOptions options;
            options.num_warps = warps;
            options.num_stages = stages;
            k = &ops::softmax_persistent().compile(args, options);
          } catch (const Error& e) {
            fmt::print("{} N={} warps={} stages={}: {}\n", dtype_name(t), cols, warps, stages, e.what());
            continue;
          }
          if (k->metadata().spill_store_bytes > 0) continue;  // not a candidate
          std::uint64_t grid = persistent_grid(*k, rows);
          double ms = time_gpu([&] { k->launch(grid, args); }).median_ms;
          row("persistent", warps, stages, grid, k->metadata().registers, ms);
        }
      }
      const auto seed = ops::seed_config(cols);
      std::vector<Arg> args{out, in, cols, cols, cols, block};
      CompileOptions options;
      options.num_warps = seed.num_warps;
      const CompiledKernel& simple = ops::softmax_simple().compile(args, options);
      double ms = time_gpu([&] { simple.launch(static_cast<std::uint64_t>(rows), args); }).median_ms;
      row("simple", seed.num_warps, 1, static_cast<std::uint64_t>(rows), simple.metadata().registers, ms);
      ms = time_gpu([&] {
             ops::softmax_seed(Pointer{out.address(), t}, Pointer{in.address(), t}, rows, cols, cols, cols);
           }).median_ms;
      row(fmt::format("softmax_seed (config {}w)", seed.num_warps), seed.num_warps, seed.num_stages, 0, 0, ms);
    }
  }
  return 0;
}
