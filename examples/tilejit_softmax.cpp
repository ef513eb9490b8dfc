// tilejit-softmax: the main job. Compiles the seed softmax kernel for a shape, runs it on
// the GPU when there is one, checks it against a float64 reference and reports time and
// bandwidth next to a device-to-device copy of the same bytes.
//   tilejit-softmax --rows 4096 --cols 4096 [--kernel simple|persistent] [--dump ptx|cuda|ir]
#include <fmt/format.h>

#include <cstdlib>
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
  const CompiledKernel& k = kernel.compile(arguments(p, nullptr, nullptr), {p.num_warps, p.num_stages, ""});
  const auto& md = k.metadata();
  fmt::print("tilejit-softmax: {} kernel, {} x {} fp32, BLOCK_SIZE {}, {} warps, arch {}\n", p.kernel, p.rows, p.cols,
             p.block, p.num_warps, md.arch);
  fmt::print("compiled in {:.1f} ms (trace {:.2f}, codegen {:.2f}, nvrtc {:.1f}): {} registers, {} bytes spilled\n",
             md.trace_ms + md.codegen_ms + md.compile_ms, md.trace_ms, md.codegen_ms, md.compile_ms, md.registers,
             md.spill_store_bytes);
  fmt::print("PTX: {}\n", k.write_stage("ptx"));
  if (args.given("dump")) fmt::print("{}: {}\n", args.str("dump"), k.write_stage(args.str("dump")));

  std::string why;
  if (!has_gpu(&why)) {
    fmt::print("no GPU: {}\nThe kernel was compiled and its PTX written; running it needs a GPU (the CPU backend is "
               "not built yet).\n",
               why);
    return 0;
  }

  std::mt19937 rng(static_cast<unsigned>(args.integer("seed")));
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> host(static_cast<std::size_t>(p.rows * p.cols));
  for (auto& v : host) v = normal(rng);
  Buffer in(DType::f32, host.size()), out(DType::f32, host.size());
  in.upload(host);
  out.fill_bytes(0xff);  // NaN everywhere: unwritten outputs cannot pass
  auto launch_args = arguments(p, &out, &in);
  Grid grid = p.kernel == "simple" ? Grid(static_cast<std::uint64_t>(p.rows))
                                   : Grid(persistent_grid(k, static_cast<std::uint64_t>(p.rows)));
  k.launch(grid, launch_args);
  synchronize();
  auto result = out.download<float>();
  auto cmp = examples::compare_rows(result, examples::softmax_reference(host, p.rows, p.cols, p.cols), p.rows,
                                    p.cols, p.cols);
  bool ok = cmp.max_rel_error <= 1e-5 && cmp.nan_mismatches == 0;
  fmt::print("check vs float64 reference: max row relative error {:.2e}, NaN mismatches {} -> {}\n",
             cmp.max_rel_error, cmp.nan_mismatches, ok ? "OK" : "FAILED");

  TimingOptions timing;
  timing.reps = static_cast<int>(args.integer("reps"));
  auto t = time_gpu([&] { k.launch(grid, launch_args); }, timing);
  auto c = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }, timing);
  double bytes = 2.0 * static_cast<double>(in.bytes());
  const auto& dev = device_properties();
  fmt::print("{}: grid {}, median {:.4f} ms, {:.0f} GB/s; device copy of the same bytes {:.4f} ms, {:.0f} GB/s; "
             "fraction of copy {:.2f}\n",
             dev.name, grid.x, t.median_ms, bytes / t.median_ms / 1e6, c.median_ms, bytes / c.median_ms / 1e6,
             c.median_ms / t.median_ms);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    examples::CliArgs args(argc, argv,
                           {{"rows", "4096"}, {"cols", "4096"}, {"kernel", "persistent"}, {"dump", ""},
                            {"warps", "4"}, {"reps", "100"}, {"seed", "1"}});
    return run(args);
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-softmax: {}\n", e.what());
    return 1;
  }
}
