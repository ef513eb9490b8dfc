// bench-seed-sweep: the seed softmax over launch configurations, to choose ops::seed_config from
// measurements. For each dtype and shape (M = 4096 rows of 256 to 16384 columns, and 65536 rows of
// 128), every num_warps (1 to 16, from 2 to 64 elements per thread) and num_stages of the
// persistent kernel, and every num_warps of the one-program-per-row kernel, is timed (CUDA events,
// L2 flushed, median of 50) beside a device-to-device copy of the same bytes and the seed
// launcher's own choice.
//
//   bench-seed-sweep [--out FILE.md]
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
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
  const char* commit = std::getenv("TILEJIT_COMMIT");
  std::string md = fmt::format(
      "Device {}, commit {}, code generator {}. CUDA events, L2 flushed, median of 50; C = a "
      "device-to-device copy of the same bytes.\n\n",
      device_properties().name, commit && *commit ? commit : "unknown", codegen_name(default_codegen()));
  md +=
      "| dtype | M | N | kernel | warps | stages | grid | regs | us | GB/s | fraction of C "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{65536, 128}, {4096, 256},  {4096, 1024}, {4096, 2048},
                                                          {4096, 4096}, {4096, 8192}, {4096, 16384}};
  for (DType t : {DType::f32, DType::bf16}) {
    for (auto [rows, cols] : shapes) {
      const std::size_t n = static_cast<std::size_t>(rows * cols);
      std::vector<float> host(n);
      for (std::size_t i = 0; i < n; ++i) host[i] = 3.0f * std::sin(0.37f * static_cast<float>(i % 10007));
      Buffer in(t, n, Memory::device), out(t, n, Memory::device);
      if (t == DType::f32) in.upload(host);
      else in.upload(to_bf16(host));
      const double bytes = 2.0 * static_cast<double>(in.bytes());
      double copy_ms = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }).median_ms;
      auto row = [&](const std::string& kernel, int warps, int stages, std::uint64_t grid, int regs, double ms) {
        std::string line =
            fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {:.0f} | {:.3f} |\n", dtype_name(t), rows,
                        cols, kernel, warps, stages, grid, regs, ms * 1e3, bytes / ms / 1e6, copy_ms / ms);
        fmt::print("{}", line);
        md += line;
        if (!out_path.empty()) std::ofstream(out_path) << md;  // every row: a cut-short run keeps its rows
      };
      row("copy", 0, 0, 0, 0, copy_ms);
      const std::int64_t block = ops::seed_config(cols).block;
      // From 2 to 64 elements per thread.
      auto warps_fit = [&](int warps) { return block >= 64 * warps && block <= 2048 * warps; };
      for (int warps : {1, 2, 4, 8, 16}) {
        if (!warps_fit(warps)) continue;
        for (int stages : {1, 2, 4}) {
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
      const auto seed = ops::seed_config(cols, dtype_size(t));
      std::vector<Arg> args{out, in, cols, cols, cols, block};
      for (int warps : {1, 2, 4, 8, 16}) {
        if (!warps_fit(warps)) continue;
        CompileOptions options;
        options.num_warps = warps;
        const CompiledKernel& simple = ops::softmax_simple().compile(args, options);
        if (simple.metadata().spill_store_bytes > 0) continue;
        double ms = time_gpu([&] { simple.launch(static_cast<std::uint64_t>(rows), args); }).median_ms;
        row("simple", warps, 1, static_cast<std::uint64_t>(rows), simple.metadata().registers, ms);
      }
      double ms = time_gpu([&] {
                    ops::softmax_seed(Pointer{out.address(), t}, Pointer{in.address(), t}, rows, cols, cols, cols);
                  }).median_ms;
      row(fmt::format("softmax_seed (config {}w)", seed.num_warps), seed.num_warps, seed.num_stages, 0, 0, ms);
    }
  }
  return 0;
}
