// tilejit-softmax: the main job. Runs row-wise softmax on a shape — by default the library op
// (tilejit::ops::softmax, which picks a strategy per shape), or one of the seed's kernels — on the
// GPU when there is one (else on the CPU backend), checks it against a float64 reference and
// reports time and bandwidth next to a copy of the same bytes (device-to-device, or memcpy).
// The seed kernels are always compiled for CUDA too, so their PTX is written even without a GPU.
// `tilejit-softmax --help` lists the options (kUsage below).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "cli_args.h"
#include "example_kernels.h"
#include "half_bits.h"
#include "kernels/softmax_seed.h"
#include "softmax_reference.h"
#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

constexpr const char* kUsage =
    R"(usage: tilejit-softmax [--rows M] [--cols N] [--dtype f32|f16|bf16] [--kernel op|seed|simple|held|persistent]
                       [--log] [--backend cuda|cpu] [--reps N] [--dump ptx|cuda|ir] ...

Runs softmax over an M x N input (default 4096 x 4096, f32), on the GPU when there is one, else on
the CPU backend; checks the output against float64 and reports time and bandwidth beside a copy of
the same bytes.

  --rows M, --cols N      the shape
  --dtype T               f32, f16 or bf16 (input and output)
  --kernel K              op: the library op, which picks a strategy per shape (default);
                          seed or persistent: the seed's persistent kernel; simple: the seed's
                          one-row-per-program kernel; held: the simple kernel with its row held
                          in shared memory, read back by each phase
  --log                   log_softmax instead (op only)
  --backend B             cuda or cpu (default: cuda when a GPU is present)
  --threads N             CPU backend threads (0: one per core)
  --reps N                timed launches (median; default 100 on the GPU, 10 on the CPU)
  --samples               print every timed launch's milliseconds too, in launch order (GPU)
  --queue-first           enqueue every timed launch before the GPU starts the first (GPU; see
                          TimingOptions::queue_first)
  --trailing N            untimed launches after the timed ones (GPU; default: as
                          TimingOptions::trailing, so the last timed ones have work behind them)
  --seed N                the random input's seed
  --dump STAGE            write a stage of the kernels and print its path: ir, ir.lowered, ptx, cuda
                          (CUDA C) or cubin of the CUDA kernels (compiled even without a GPU); llvm or
                          asm of the CPU backend's, and ir and ir.lowered of both, when it runs
  --tune                  autotune the shape first and save the result to the tuning file (op only)
  --kept-bytes N          shared memory a walking program keeps its slice's first blocks in
                          (-1: the default budget; 0: none)

A configuration of the op's own, instead of its choice: --config, or --strategy and the rest:
  --config "C"            in the words the op describes its plans with, e.g.
                          "group BLOCK=8192 warps=16 stages=2 group=64 interleave"
  --strategy S            rows_2d, row_in_registers, online, split_row, cluster or group
  --block N               columns a program handles at a time
  --warps N, --stages N   warps per program; loads in flight in loops (also for the seed kernels)
  --prefetch-in-shared    seed kernels: rows too wide to prefetch in registers (more than 32
                          elements a thread) reach the persistent loop's next iteration through
                          shared memory (CompileOptions::prefetch_in_shared)
  --programs-per-block P  programs sharing a thread block (seed kernels: default the seed's;
                          the op: rows_2d and row_in_registers, 1 by default)
  --rows-per-program N    rows_2d: rows a program holds
  --splits N              split_row, cluster, group: programs a row is split over
  --grid G                persistent (sized from occupancy) or per_row
  --overlap               a group overlaps each row's exchange with the next row's reads (rows
                          wider than block x group: each program holds its slice whole)
  --interleave            walking programs take every set-size-th block of the row
  --min-blocks N          blocks each SM should hold, registers capped to fit (0: no bound; also for
                          the seed kernels, whose own is the seed's unless --warps is given)
  --stat-cols N           columns each running max and sum of a walk covers (0: the default)
)";

struct Plan {
  std::string kernel;  // op, simple, held or persistent
  std::int64_t rows, cols, block;
  int num_warps, num_stages;
  DType dtype;
  bool log;
  int min_blocks_per_sm = 0;   // the seed's (ops::seed_config), unless --warps or --min-blocks is given
  int programs_per_block = 1;  // the seed's, unless --warps or --programs-per-block is given
  bool prefetch_in_shared = false;
};

// The seed kernel's compile options for a plan.
CompileOptions seed_options(const Plan& p, Backend backend) {
  CompileOptions o{p.num_warps, p.num_stages, "", backend};
  o.min_blocks_per_sm = p.min_blocks_per_sm;
  o.programs_per_block = p.programs_per_block;
  o.prefetch_in_shared = p.prefetch_in_shared;
  return o;
}

std::vector<Arg> seed_arguments(const Plan& p, std::uint64_t out, std::uint64_t in) {
  Pointer o{out, p.dtype}, i{in, p.dtype};
  if (p.kernel == "simple" || p.kernel == "held") return {o, i, p.cols, p.cols, p.cols, p.block};
  return {o, i, p.cols, p.cols, p.rows, p.cols, p.block, p.num_stages};
}

// --dump's stages: the CUDA kernels' (compiled even without a GPU) and the CPU backend's.
bool is_cuda_stage(const std::string& s) {
  return s == "ir" || s == "ir.lowered" || s == "cuda" || s == "ptx" || s == "cubin";
}
bool is_cpu_stage(const std::string& s) { return s == "ir" || s == "ir.lowered" || s == "llvm" || s == "asm"; }

// Writes `stage` of each kernel `compile` returns and prints its path. Under the tiered default a
// first compile is the PTX generator's, which has no CUDA C; NVRTC's kernel is building in the
// background, and once it is done the same compile hands it out (unless the PTX generator's
// outranks it).
void dump_stage(const std::string& stage, const std::function<std::vector<const CompiledKernel*>()>& compile) {
  auto kernels = compile();
  auto lacks_stage = [&](const CompiledKernel* k) {
    const auto names = k->stage_names();
    return std::find(names.begin(), names.end(), stage) == names.end();
  };
  if (std::any_of(kernels.begin(), kernels.end(), lacks_stage)) {
    wait_for_background_compiles();
    kernels = compile();
  }
  for (const CompiledKernel* k : kernels) {
    // Tiered keeps the PTX generator's build where it outranks NVRTC's (fewer registers, say).
    if (stage == "cuda" && lacks_stage(k))
      throw Error(
          fmt::format("kernel {} runs the PTX generator's build, which has no CUDA C; with "
                      "TILEJIT_CODEGEN=cuda NVRTC's build runs and --dump cuda writes its CUDA C",
                      k->metadata().kernel_name));
    fmt::print("{}: {}\n", stage, k->write_stage(stage));  // an unavailable stage: the error names the others
  }
}

// Median of `reps` host-clock timings of `run` after `warmup` untimed runs (CPU launches are
// synchronous, so the clock brackets the whole kernel).
double median_ms(int warmup, int reps, const std::function<void()>& run) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> samples;
  for (int i = 0; i < std::max(1, reps); ++i) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

// Random rows, rounded to the element type so the reference sees what the kernel reads.
std::vector<float> random_input(const Plan& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> host(static_cast<std::size_t>(p.rows * p.cols));
  for (auto& v : host) v = normal(rng);
  if (p.dtype != DType::f32) host = examples::from_half_bits(p.dtype, examples::to_half_bits(p.dtype, host));
  return host;
}

void upload(Buffer& b, const std::vector<float>& v) {
  if (b.dtype() == DType::f32) return b.upload(v);
  b.upload(examples::to_half_bits(b.dtype(), v));
}

std::vector<float> download(const Buffer& b) {
  if (b.dtype() == DType::f32) return b.download<float>();
  return examples::from_half_bits(b.dtype(), b.download<std::uint16_t>());
}

bool verify(const Plan& p, const std::vector<float>& host, const std::vector<float>& result) {
  auto ref = p.log ? examples::log_softmax_reference(host, p.rows, p.cols, p.cols)
                   : examples::softmax_reference(host, p.rows, p.cols, p.cols);
  auto cmp = examples::compare_rows(result, ref, p.rows, p.cols, p.cols);
  double tol = p.dtype == DType::f32 ? 1e-5 : 1e-2;
  bool ok = cmp.max_rel_error <= tol && cmp.nan_mismatches == 0;
  fmt::print("check vs float64 reference: max row relative error {:.2e} (limit {:.0e}), NaN mismatches {} -> {}\n",
             cmp.max_rel_error, tol, cmp.nan_mismatches, ok ? "OK" : "FAILED");
  return ok;
}

const KernelBase& seed_kernel(const Plan& p) {
  if (p.kernel == "simple") return examples::softmax_simple();
  if (p.kernel == "held") return examples::softmax_held();
  return examples::softmax_persistent();
}

// Kernels compiled without a launch, against 16-byte aligned stand-in addresses (the keys real
// allocations get): the seed kernel for CUDA (what the GPU runs, its PTX worth showing without
// one), and the library op's kernels under `o`.
const CompiledKernel& seed_cuda_kernel(const Plan& p) {
  return seed_kernel(p).compile(seed_arguments(p, 0x10000, 0x20000), seed_options(p, Backend::cuda));
}
std::vector<const CompiledKernel*> op_kernels(const Plan& p, const ops::SoftmaxOptions& o) {
  return ops::compile_softmax(Pointer{0x10000, p.dtype}, Pointer{0x20000, p.dtype}, p.rows, p.cols, p.cols, p.cols,
                              p.log, o);
}

// The library op's options from the command line: a forced configuration when --config or --strategy
// is given.
ops::SoftmaxOptions op_options(const examples::CliArgs& args, Backend backend) {
  ops::SoftmaxOptions o;
  o.backend = backend;
  o.cpu_threads = static_cast<int>(args.integer("threads"));
  o.kept_bytes = args.integer("kept-bytes");
  const bool shaped = args.given("block") || args.given("rows-per-program") || args.given("splits") ||
                      args.given("grid") || args.given("min-blocks") || args.given("stat-cols") ||
                      args.given("programs-per-block") || args.flag("overlap") || args.flag("interleave");
  if (args.given("config")) {
    if (args.given("strategy") || shaped || args.given("warps") || args.given("stages"))
      throw Error("--config is the whole configuration: give it without --strategy, --block, --warps and the rest");
    o.config = ops::parse_config(args.str("config"));
  } else if (args.given("strategy")) {
    ops::SoftmaxConfig c;
    if (!ops::parse_strategy(args.str("strategy"), c.strategy))
      throw Error(
          fmt::format("unknown --strategy '{}' (rows_2d, row_in_registers, online, split_row, cluster or group; "
                      "--splits is the cluster or group size)",
                      args.str("strategy")));
    c.block = args.integer("block");
    c.num_warps = static_cast<int>(args.integer("warps"));
    c.num_stages = static_cast<int>(args.integer("stages"));
    c.rows_per_program = args.integer("rows-per-program");
    c.splits = args.integer("splits");
    if (!ops::parse_grid(args.str("grid"), c.grid))
      throw Error(fmt::format("unknown --grid '{}' (persistent or per_row)", args.str("grid")));
    c.overlap = args.flag("overlap");
    c.interleave = args.flag("interleave");
    c.min_blocks_per_sm = static_cast<int>(args.integer("min-blocks"));
    c.stat_cols = args.integer("stat-cols");
    c.programs_per_block = static_cast<int>(args.integer("programs-per-block"));
    o.config = c;
  } else if (args.integer("min-blocks") != 0 || args.integer("stat-cols") != 0 || args.flag("overlap") ||
             args.flag("interleave") || args.given("programs-per-block")) {
    throw Error(
        "--min-blocks, --stat-cols, --overlap, --interleave and --programs-per-block apply to a forced configuration "
        "of the op: give --strategy too");
  }
  return o;
}

// Runs, checks and times one plan on `backend` (cuda or cpu).
int execute(const examples::CliArgs& args, const Plan& p, Backend backend) {
  const bool cpu = backend == Backend::cpu;
  const Memory memory = memory_of(backend);
  // Tiered compiles (the default) gave the PTX generator's kernels; NVRTC's have been building in
  // the background since: time those, the ones every later call gets.
  if (!cpu) wait_for_background_compiles();
  auto host = random_input(p, static_cast<unsigned>(args.integer("seed")));
  Buffer in(p.dtype, host.size(), memory), out(p.dtype, host.size(), memory);
  upload(in, host);
  out.fill_bytes(0xff);  // NaN everywhere: unwritten outputs cannot pass

  std::function<void()> run;
  std::string grid_note;
  if (p.kernel == "op") {
    ops::SoftmaxOptions o = op_options(args, backend);
    if (args.flag("tune")) {
      ops::TuneOptions t;
      t.backend = backend;
      auto r = ops::tune_softmax(p.rows, p.cols, p.dtype, t);
      fmt::print("tuned over {} candidates: {} ({:.4f} ms), saved to {}\n", r.timings.size(), ops::describe(r.best),
                 r.best_ms, ops::softmax_tuning_file(backend));
      if (r.incumbent_ms > 0)
        fmt::print("before tuning: {} ({:.4f} ms in the same final rounds)\n", ops::describe(r.incumbent),
                   r.incumbent_ms);
    }
    if (cpu && is_cpu_stage(args.str("dump"))) dump_stage(args.str("dump"), [&] { return op_kernels(p, o); });
    auto plan = ops::plan_softmax(p.rows, p.cols, p.dtype, p.dtype, o);
    std::string source = ops::config_source_name(plan.source);
    if (!plan.table_device.empty()) source += ": " + plan.table_device;
    fmt::print("tilejit-softmax: library op{}, {} x {} {}, {} ({}), backend {}\n", p.log ? " (log_softmax)" : "",
               p.rows, p.cols, dtype_name(p.dtype), ops::describe(plan.config), source, backend_name(backend));
    Pointer po{out.address(), p.dtype, memory}, pi{in.address(), p.dtype, memory};
    run = [=] {
      if (p.log) ops::log_softmax(po, pi, p.rows, p.cols, p.cols, p.cols, nullptr, o);
      else ops::softmax(po, pi, p.rows, p.cols, p.cols, p.cols, nullptr, o);
    };
  } else {
    const CompiledKernel& k =
        seed_kernel(p).compile(seed_arguments(p, out.address(), in.address()), seed_options(p, backend));
    if (cpu && is_cpu_stage(args.str("dump")))
      dump_stage(args.str("dump"), [&] { return std::vector<const CompiledKernel*>{&k}; });
    Grid grid = p.kernel == "persistent" ? Grid(persistent_grid(k, static_cast<std::uint64_t>(p.rows)))
                                         : Grid(static_cast<std::uint64_t>(p.rows));
    grid_note = fmt::format("grid {}, ", grid.x);
    LaunchOptions launch;
    launch.cpu_threads = static_cast<int>(args.integer("threads"));
    auto launch_args = seed_arguments(p, out.address(), in.address());
    run = [&k, grid, launch, launch_args] { k.launch(grid, launch_args, launch); };
  }
  run();
  if (!cpu) synchronize();
  bool ok = verify(p, host, download(out));

  double bytes = 2.0 * static_cast<double>(in.bytes());
  int reps = static_cast<int>(args.integer("reps"));
  if (cpu) {
    reps = args.given("reps") ? reps : 10;
    double t = median_ms(1, reps, run);
    double c = median_ms(1, reps, [&] { std::memcpy(out.host_data(), in.host_data(), in.bytes()); });
    int threads = static_cast<int>(args.integer("threads"));
    fmt::print(
        "CPU ({} threads): {}median {:.3f} ms, {:.1f} GB/s; memcpy of the same bytes {:.3f} ms, {:.1f} GB/s; "
        "fraction of memcpy {:.2f}\n",
        threads > 0 ? threads : default_cpu_threads(), grid_note, t, bytes / t / 1e6, c, bytes / c / 1e6, c / t);
    return ok ? 0 : 1;
  }
  TimingOptions timing;
  timing.reps = reps;
  timing.queue_first = args.flag("queue-first");
  if (args.given("trailing")) timing.trailing = static_cast<int>(args.integer("trailing"));
  auto t = time_gpu(run, timing);
  auto c = time_gpu([&] { copy_device_to_device(out.address(), in.address(), in.bytes()); }, timing);
  if (args.flag("samples")) {
    std::string samples;
    for (double ms : t.samples_ms) samples += fmt::format(" {:.4f}", ms);
    fmt::print("samples (ms, launch order):{}\n", samples);
  }
  // Once more after the timed launches: a kernel that leaves state behind in its workspace (a
  // group's barriers) must still be right on its hundredth launch.
  out.fill_bytes(0xff);
  run();
  synchronize();
  const bool ok_after = verify(p, host, download(out));
  fmt::print(
      "{}: {}median {:.4f} ms, {:.0f} GB/s; device copy of the same bytes {:.4f} ms, {:.0f} GB/s; "
      "fraction of copy {:.2f}{}\n",
      device_properties().name, grid_note, t.median_ms, bytes / t.median_ms / 1e6, c.median_ms,
      bytes / c.median_ms / 1e6, c.median_ms / t.median_ms,
      ok_after ? "" : " (FAILED the check after the timed launches)");
  return ok && ok_after ? 0 : 1;
}

int run(const examples::CliArgs& args) {
  Plan p{args.str("kernel"), args.integer("rows"), args.integer("cols"), 0, 0, 2, DType::f32, args.flag("log")};
  if (p.kernel == "seed") p.kernel = "persistent";
  if (p.kernel != "op" && p.kernel != "simple" && p.kernel != "held" && p.kernel != "persistent")
    throw Error(fmt::format("unknown --kernel '{}' (op, seed, simple, held or persistent)", p.kernel));
  if (!parse_dtype(args.str("dtype"), p.dtype) ||
      (p.dtype != DType::f32 && p.dtype != DType::f16 && p.dtype != DType::bf16))
    throw Error(fmt::format("unknown --dtype '{}' (f32, f16 or bf16)", args.str("dtype")));
  if (p.rows < 1 || p.cols < 1) throw Error("--rows and --cols must be positive");
  if (p.kernel != "op" && (p.log || args.flag("tune") || args.given("strategy") || args.given("config")))
    throw Error("--log, --tune, --strategy and --config need --kernel op");
  if (p.kernel == "op" && args.flag("prefetch-in-shared"))
    throw Error("--prefetch-in-shared applies to the seed kernels: give --kernel persistent");
  const std::string& backend = args.str("backend");
  if (!backend.empty() && backend != "cuda" && backend != "cpu")
    throw Error(fmt::format("unknown --backend '{}' (cuda or cpu)", backend));
  std::string why;
  bool use_cpu = backend == "cpu" || (backend.empty() && !has_gpu(&why));
  const std::string& dump = args.str("dump");
  if (!dump.empty() && !is_cuda_stage(dump) && !is_cpu_stage(dump))
    throw Error(fmt::format(
        "unknown --dump stage '{}' (ir, ir.lowered, ptx, cuda, cubin; llvm or asm on the CPU backend)", dump));
  if (is_cpu_stage(dump) && !is_cuda_stage(dump) && !use_cpu)
    throw Error(fmt::format("--dump {} is a stage of the CPU backend's kernels: add --backend cpu", dump));
  // Refused before any compile, and whether or not this build has the CPU backend.
  if (use_cpu && (args.flag("samples") || args.flag("queue-first") || args.given("trailing")))
    throw Error("--samples, --queue-first and --trailing apply to GPU timing (CUDA events): not with the CPU backend");

  if (p.kernel != "op") {
    p.block = examples::next_power_of_two(p.cols);
    if (p.block > 16384) throw Error(fmt::format("--cols {} is wider than the seed kernel holds (16384)", p.cols));
    const ops::SeedConfig seed = ops::seed_config(p.cols, dtype_size(p.dtype));
    p.num_warps = args.given("warps") ? static_cast<int>(args.integer("warps")) : seed.num_warps;
    // The seed's bound is for rows held in registers; the held kernel's registers leave ptxas free.
    p.min_blocks_per_sm = args.given("min-blocks")                    ? static_cast<int>(args.integer("min-blocks"))
                          : args.given("warps") || p.kernel == "held" ? 0
                                                                      : seed.min_blocks_per_sm;
    p.programs_per_block = args.given("programs-per-block") ? static_cast<int>(args.integer("programs-per-block"))
                           : args.given("warps")            ? 1
                                                            : seed.programs_per_block;
    // The library's stages, but at least the next row in flight: where it launches one program per
    // row (1 stage, no loop), this runs the persistent loop all the same.
    p.num_stages = args.given("stages") ? static_cast<int>(args.integer("stages")) : std::max(seed.num_stages, 2);
    p.prefetch_in_shared = args.flag("prefetch-in-shared");
    const CompiledKernel& k = seed_cuda_kernel(p);
    const auto& md = k.metadata();
    const std::string packed =
        p.programs_per_block > 1 ? fmt::format(", {} programs a block", p.programs_per_block) : "";
    fmt::print("tilejit-softmax: {} kernel, {} x {} {}, BLOCK_SIZE {}, {} warps, {} stages{}, arch {}\n", p.kernel,
               p.rows, p.cols, dtype_name(p.dtype), p.block, p.num_warps, p.num_stages, packed, md.arch);
    fmt::print(
        "compiled in {:.1f} ms (trace {:.2f}, codegen {:.2f}, {} {:.1f}; {} generator): {} registers, {} bytes "
        "spilled\n",
        md.trace_ms + md.codegen_ms + md.compile_ms, md.trace_ms, md.codegen_ms,
        md.from_disk_cache ? "disk cache" : (md.codegen == "cuda" ? "nvrtc" : "ptx assembler"), md.compile_ms,
        md.codegen, md.registers, md.spill_store_bytes);
    fmt::print("PTX: {}\n", k.write_stage("ptx"));
    if (is_cuda_stage(args.str("dump")))
      dump_stage(args.str("dump"), [&] { return std::vector<const CompiledKernel*>{&seed_cuda_kernel(p)}; });
  }

  if (p.kernel == "op") {
    // The GPU's kernels are compiled even without a GPU, so their PTX can be shown.
    // A forced --strategy is shown too: the PTX printed is the kernel that runs.
    ops::SoftmaxOptions cuda_options = op_options(args, Backend::cuda);
    auto kernels = op_kernels(p, cuda_options);
    for (const CompiledKernel* k : kernels)
      fmt::print("PTX ({}, {} registers, {} bytes spilled): {}\n", k->metadata().kernel_name, k->metadata().registers,
                 k->metadata().spill_store_bytes, k->write_stage("ptx"));
    if (is_cuda_stage(args.str("dump"))) dump_stage(args.str("dump"), [&] { return op_kernels(p, cuda_options); });
  }

  if (use_cpu) {
    std::string no_cpu;
    bool cpu = has_cpu_backend(&no_cpu);
    if (!why.empty()) fmt::print("no GPU ({}){}\n", why, cpu ? ": running on the CPU backend" : "");
    if (!cpu) {
      fmt::print("{}\nRunning needs a GPU or the CPU backend.\n", no_cpu);
      return backend == "cpu" || p.kernel == "op" ? 1 : 0;
    }
    return execute(args, p, Backend::cpu);
  }
  return execute(args, p, Backend::cuda);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      fmt::print("{}", kUsage);
      return 0;
    }
  }
  // Options the parser does not know point at --help; errors past it name what they are about.
  const std::map<std::string, std::string> defaults = {
      {"rows", "4096"},   {"cols", "4096"},       {"kernel", "op"},
      {"dtype", "f32"},   {"dump", ""},           {"warps", "4"},
      {"stages", "1"},    {"block", "0"},         {"rows-per-program", "1"},
      {"splits", "1"},    {"grid", "persistent"}, {"strategy", ""},
      {"reps", "100"},    {"seed", "1"},          {"backend", ""},
      {"threads", "0"},   {"kept-bytes", "-1"},   {"min-blocks", "0"},
      {"stat-cols", "0"}, {"config", ""},         {"programs-per-block", "1"},
      {"trailing", ""}};
  std::optional<examples::CliArgs> args;
  try {
    args.emplace(argc, argv, defaults,
                 std::initializer_list<std::string>{"log", "tune", "overlap", "interleave", "prefetch-in-shared",
                                                    "samples", "queue-first"});
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-softmax: {} (tilejit-softmax --help lists the options)\n", e.what());
    return 1;
  }
  try {
    return run(*args);
  } catch (const Error& e) {
    fmt::print(stderr, "tilejit-softmax: {}\n", e.what());
    return 1;
  }
}
