// tilejit-softmax: the main job. Compiles the seed softmax kernel for a shape, runs it on
// the GPU when there is one (else on the CPU backend), checks it against a float64 reference and
// reports time and bandwidth next to a copy of the same bytes (device-to-device, or memcpy).
// The CUDA compile always happens, so the PTX for the GPU is written even without one.
//   tilejit-softmax --rows 4096 --cols 4096 [--kernel simple|persistent] [--dump ptx|cuda|ir]
//                   [--backend cuda|cpu] [--threads N] [--reps N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>

#include "cli_args.h"
#include "example_kernels.h"
#include "kernels/softmax_seed.h"
#include "softmax_reference.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

struct Plan {
  std::string kernel;
  std::int64_t rows, cols, block;
  int num_warps, num_stages;
};

// The seed's heuristics: more warps for wider rows.
int default_warps(std::int64_t block) { return block >= 4096 ? 16 : block >= 2048 ? 8 : 4; }

std::vector<Arg> arguments(const Plan& p, const Buffer* out, const Buffer* in) {
  Pointer o{out ? out->address() : 0x10000, DType::f32}, i{in ? in->address() : 0x20000, DType::f32};
  if (p.kernel == "simple") return {o, i, p.cols, p.cols, p.cols, p.block};
  return {o, i, p.cols, p.cols, p.rows, p.cols, p.block, p.num_stages};
}

// Median of `reps` host-clock timings of `run` after `warmup` untimed runs (CPU launches are
// synchronous, so the clock brackets the whole kernel).
template <class Run>
double median_ms(int warmup, int reps, const Run& run) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

std::vector<float> random_input(const Plan& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> host(static_cast<std::size_t>(p.rows * p.cols));
  for (auto& v : host) v = normal(rng);
  return host;
}

bool verify(const Plan& p, const std::vector<float>& host, const std::vector<float>& result) {
  auto cmp =
      examples::compare_rows(result, examples::softmax_reference(host, p.rows, p.cols, p.cols), p.rows, p.cols, p.cols);
  bool ok = cmp.max_rel_error <= 1e-5 && cmp.nan_mismatches == 0;
  fmt::print("check vs float64 reference: max row relative error {:.2e}, NaN mismatches {} -> {}\n", cmp.max_rel_error,
             cmp.nan_mismatches, ok ? "OK" : "FAILED");
  return ok;
}

// The CPU backend: host buffers, synchronous launches timed with the host clock.
int run_cpu(const examples::CliArgs& args, const Plan& p, const KernelBase& kernel) {
  CompileOptions options{p.num_warps, p.num_stages, "", Backend::cpu};
  const CompiledKernel& k = kernel.compile(arguments(p, nullptr, nullptr), options);
  const auto& md = k.metadata();
  int threads = args.given("threads") ? static_cast<int>(args.integer("threads")) : 0;
  fmt::print(
      "CPU backend: {} ({}), compiled in {:.1f} ms (trace {:.2f}, codegen {:.2f}, LLVM {:.1f}), {} bytes of "
      "scratch per thread\n",
      md.arch, md.entry_name, md.trace_ms + md.codegen_ms + md.compile_ms, md.trace_ms, md.codegen_ms, md.compile_ms,
      md.cpu_scratch_bytes);
  if (args.given("dump")) fmt::print("{}: {}\n", args.str("dump"), k.write_stage(args.str("dump")));

  auto host = random_input(p, static_cast<unsigned>(args.integer("seed")));
  Buffer in(DType::f32, host.size(), Memory::host), out(DType::f32, host.size(), Memory::host);
  in.upload(host);
  out.fill_bytes(0xff);  // NaN everywhere: unwritten outputs cannot pass
  auto launch_args = arguments(p, &out, &in);
  Grid grid = p.kernel == "simple" ? Grid(static_cast<std::uint64_t>(p.rows))
                                   : Grid(persistent_grid(k, static_cast<std::uint64_t>(p.rows)));
  LaunchOptions launch;
  launch.cpu_threads = threads;
  k.launch(grid, launch_args, launch);
  bool ok = verify(p, host, out.download<float>());

  int reps = args.given("reps") ? static_cast<int>(args.integer("reps")) : 10;
  double t = median_ms(1, reps, [&] { k.launch(grid, launch_args, launch); });
  double c = median_ms(1, reps, [&] { std::memcpy(out.host_data(), in.host_data(), in.bytes()); });
  double bytes = 2.0 * static_cast<double>(in.bytes());
  fmt::print(
      "CPU ({} threads): grid {}, median {:.3f} ms, {:.1f} GB/s; memcpy of the same bytes {:.3f} ms, {:.1f} GB/s; "
      "fraction of memcpy {:.2f}\n",
      threads > 0 ? threads : default_cpu_threads(), grid.x, t, bytes / t / 1e6, c, bytes / c / 1e6, c / t);
  return ok ? 0 : 1;
}

const KernelBase& kernel_for(const Plan& p) {
  if (p.kernel == "simple") return examples::softmax_simple();
  if (p.kernel == "persistent") return examples::softmax_persistent();
  throw Error(fmt::format("unknown --kernel '{}' (simple or persistent)", p.kernel));
}

int run(const examples::CliArgs& args) {
  Plan p{args.str("kernel"), args.integer("rows"), args.integer("cols"), 0, 0, 2};
  if (p.rows < 1 || p.cols < 1) throw Error("--rows and --cols must be positive");
  p.block = examples::next_power_of_two(p.cols);
  if (p.block > 16384) throw Error(fmt::format("--cols {} is wider than the seed kernel holds (16384)", p.cols));
  p.num_warps = args.given("warps") ? static_cast<int>(args.integer("warps")) : default_warps(p.block);

  const KernelBase& kernel = kernel_for(p);
  // Always the CUDA compile: it is what the GPU runs, and its PTX is worth showing without one.
  const CompiledKernel& k =
      kernel.compile(arguments(p, nullptr, nullptr), {p.num_warps, p.num_stages, "", Backend::cuda});
  const auto& md = k.metadata();
  fmt::print("tilejit-softmax: {} kernel, {} x {} fp32, BLOCK_SIZE {}, {} warps, arch {}\n", p.kernel, p.rows, p.cols,
             p.block, p.num_warps, md.arch);
  fmt::print("compiled in {:.1f} ms (trace {:.2f}, codegen {:.2f}, nvrtc {:.1f}): {} registers, {} bytes spilled\n",
             md.trace_ms + md.codegen_ms + md.compile_ms, md.trace_ms, md.codegen_ms, md.compile_ms, md.registers,
             md.spill_store_bytes);
  fmt::print("PTX: {}\n", k.write_stage("ptx"));
  const std::string& backend = args.str("backend");
  if (!backend.empty() && backend != "cuda" && backend != "cpu")
    throw Error(fmt::format("unknown --backend '{}' (cuda or cpu)", backend));
  bool cpu_dump = backend == "cpu" || (backend.empty() && !has_gpu());
  if (args.given("dump") && !cpu_dump) fmt::print("{}: {}\n", args.str("dump"), k.write_stage(args.str("dump")));

  std::string why;
  if (backend == "cpu" || (backend.empty() && !has_gpu(&why))) {
    std::string no_cpu;
    bool cpu = has_cpu_backend(&no_cpu);
    if (!why.empty()) fmt::print("no GPU ({}){}\n", why, cpu ? ": running on the CPU backend" : "");
    if (!cpu) {
      fmt::print("{}\nThe kernel was compiled and its PTX written; running it needs a GPU or the CPU backend.\n",
                 no_cpu);
      return backend == "cpu" ? 1 : 0;
    }
    return run_cpu(args, p, kernel);
  }

  auto host = random_input(p, static_cast<unsigned>(args.integer("seed")));
  Buffer in(DType::f32, host.size()), out(DType::f32, host.size());
  in.upload(host);
  out.fill_bytes(0xff);  // NaN everywhere: unwritten outputs cannot pass
  auto launch_args = arguments(p, &out, &in);
  Grid grid = p.kernel == "simple" ? Grid(static_cast<std::uint64_t>(p.rows))
                                   : Grid(persistent_grid(k, static_cast<std::uint64_t>(p.rows)));
  k.launch(grid, launch_args);
  synchronize();
  bool ok = verify(p, host, out.download<float>());

  TimingOptions timing;
  timing.reps = static_cast<int>(args.integer("reps"));
  auto t = time_gpu([&] { k.launch(grid, launch_args); }, timing);
  auto c = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }, timing);
  double bytes = 2.0 * static_cast<double>(in.bytes());
  const auto& dev = device_properties();
  fmt::print(
      "{}: grid {}, median {:.4f} ms, {:.0f} GB/s; device copy of the same bytes {:.4f} ms, {:.0f} GB/s; "
      "fraction of copy {:.2f}\n",
      dev.name, grid.x, t.median_ms, bytes / t.median_ms / 1e6, c.median_ms, bytes / c.median_ms / 1e6,
      c.median_ms / t.median_ms);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    examples::CliArgs args(argc, argv,
                           {{"rows", "4096"},
                            {"cols", "4096"},
                            {"kernel", "persistent"},
                            {"dump", ""},
                            {"warps", "4"},
                            {"reps", "100"},
                            {"seed", "1"},
                            {"backend", ""},
                            {"threads", "0"}});
    return run(args);
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-softmax: {}\n", e.what());
    return 1;
  }
}
