// The softmax autotuner and its per-device file of winners (format in softmax_autotune.h).
#include "tilejit/ops/softmax_autotune.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>
#include <tuple>

#include "jit/build_choice.h"
#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/timing.h"

namespace tilejit::ops {

namespace {

constexpr const char* kHeader = "tilejit-softmax-autotune v2";
// v1 files (no grid word: every configuration persistent) still read.
constexpr const char* kHeaderV1 = "tilejit-softmax-autotune v1";

using BandKey = std::tuple<int, int, int>;  // element bytes, rows band, N band
using Table = std::map<BandKey, SoftmaxConfig>;

BandKey band_key(std::int64_t rows, std::int64_t cols, DType dtype) {
  return {static_cast<int>(dtype_size(dtype)), detail::size_band(rows), detail::size_band(cols)};
}

// Runs work(i) for i in [0, n) on up to 16 threads: compiling candidates is most of a tuning run.
template <class Work>
void in_parallel(std::size_t n, Work work) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) work(i);
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// The CUDA kernels of configuration c for this problem, or none where it does not compile.
std::vector<const CompiledKernel*> compile_candidate(const SoftmaxConfig& c, Pointer out, Pointer in, std::int64_t rows,
                                                     std::int64_t cols) {
  SoftmaxOptions forced;
  forced.backend = Backend::cuda;
  forced.config = c;
  try {
    if (detail::config_fits(c, rows, cols)) return compile_softmax(out, in, rows, cols, cols, cols, false, forced);
  } catch (const Error&) {
    // reported (and skipped) by the timing loop
  }
  return {};
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "host";
}

std::string device_name(Backend backend) {
  if (backend == Backend::cuda) return has_gpu() ? device_properties().name : std::string();  // none: no tuning
  static const std::string name = "cpu " + cpu_model();
  return name;
}

// "<name>=N" with N > 0.
template <class T>
bool positive_word(std::string_view w, std::string_view name, T& out) {
  return w.size() > name.size() && w.starts_with(name) && w[name.size()] == '=' &&
         detail::number(w.substr(name.size() + 1), out) && out > 0;
}

// The whole table, or nothing when it does not parse: a half-understood file could pin a band
// to a wrong configuration, and tuning again is always safe. (Parsed by hand, not with
// iostreams: their locale machinery has crashed inside Python processes that load torch.)
Table parse_table(std::string_view text) {
  Table t;
  bool header = true;
  std::size_t words_per_line = 11;
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (header) {
      if (line == kHeaderV1) words_per_line = 10;
      else if (line != kHeader) return {};
      header = false;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    auto w = detail::words(line);
    int bytes, rows_band, n_band;
    SoftmaxConfig c;
    // v2: optional trailing words, "overlap" (SoftmaxConfig::overlap), "interleave"
    // (SoftmaxConfig::interleave), "min_blocks=N" (SoftmaxConfig::min_blocks_per_sm),
    // "stat_cols=N" (SoftmaxConfig::stat_cols), "programs=N" (SoftmaxConfig::programs_per_block) and
    // "codegen=G" (SoftmaxConfig::codegen).
    while (words_per_line == 11 && w.size() > 11) {
      if (w.back() == "overlap") c.overlap = true;
      else if (w.back() == "interleave") c.interleave = true;
      else if (w.back().starts_with("codegen=")) {
        if (!parse_codegen(w.back().substr(8), c.codegen)) return {};
      } else if (!positive_word(w.back(), "min_blocks", c.min_blocks_per_sm) &&
                 !positive_word(w.back(), "stat_cols", c.stat_cols) &&
                 !positive_word(w.back(), "programs", c.programs_per_block))
        return {};
      w.pop_back();
    }
    if (w.size() != words_per_line || !detail::number(w[0], bytes) || !detail::number(w[1], rows_band) ||
        !detail::number(w[2], n_band) || w[3] != ":" || !parse_strategy(w[4], c.strategy) ||
        c.strategy == SoftmaxStrategy::automatic || !detail::number(w[5], c.block) ||
        !detail::number(w[6], c.num_warps) || !detail::number(w[7], c.num_stages) ||
        !detail::number(w[8], c.rows_per_program) || !detail::number(w[9], c.splits) || n_band < 0)
      return {};
    if (words_per_line == 11 && !parse_grid(w[10], c.grid)) return {};
    // Band n holds sizes up to 2^n: the band's widest row must fit the configuration.
    if (!detail::config_fits(c, 1, std::int64_t{1} << std::min(n_band, 30))) return {};
    t[{bytes, rows_band, n_band}] = c;
  }
  return t;
}

Table read_table(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_table(text);
}

void write_table(const std::string& path, const Table& t, const std::string& device) {
  std::filesystem::path p(path);
  std::filesystem::create_directories(p.parent_path());
  // Write then rename, so a reader never sees half a file.
  std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << kHeader << "\n# device: " << device << "\n";
    f << "# <element bytes> <rows band> <N band> : <strategy> <block> <warps> <stages> <rows/program> <splits> "
         "<grid> [overlap] [interleave] [min_blocks=N] [stat_cols=N] [programs=N] [codegen=G]\n";
    for (const auto& [k, c] : t)
      f << fmt::format("{} {} {} : {} {} {} {} {} {} {}{}{}{}{}{}{}\n", std::get<0>(k), std::get<1>(k), std::get<2>(k),
                       strategy_name(c.strategy), c.block, c.num_warps, c.num_stages, c.rows_per_program, c.splits,
                       grid_name(c.grid), c.overlap ? " overlap" : "", c.interleave ? " interleave" : "",
                       c.min_blocks_per_sm ? fmt::format(" min_blocks={}", c.min_blocks_per_sm) : "",
                       c.stat_cols ? fmt::format(" stat_cols={}", c.stat_cols) : "",
                       c.programs_per_block != 1 ? fmt::format(" programs={}", c.programs_per_block) : "",
                       c.codegen != GpuCodegen::automatic ? fmt::format(" codegen={}", codegen_name(c.codegen)) : "");
    if (!f) throw Error(fmt::format("softmax autotune: cannot write {}", tmp));
  }
  std::filesystem::rename(tmp, p);
}

std::mutex g_mutex;
std::map<std::string, Table>& tables() {
  static std::map<std::string, Table> t;
  return t;
}

// The table for `path`, read once (g_mutex held).
Table& table_for(const std::string& path) {
  auto it = tables().find(path);
  if (it == tables().end()) it = tables().emplace(path, read_table(path)).first;
  return it->second;
}

// Random inputs so exp() does real work; the values do not matter for timing.
void fill_input(Buffer& in, std::size_t count) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 2.f);
  if (in.dtype() == DType::f32) {
    std::vector<float> v(count);
    for (auto& x : v) x = normal(rng);
    in.upload(v);
  } else {
    // f16 / bf16 bit patterns of small values: exponent near 1, random mantissa.
    std::vector<std::uint16_t> v(count);
    std::uint16_t one = in.dtype() == DType::f16 ? 0x3c00 : 0x3f80;
    for (auto& x : v) x = static_cast<std::uint16_t>(one + (rng() & 0x7f));
    in.upload(v);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string detail::cache_dir() {
  if (const char* d = std::getenv("TILEJIT_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tilejit";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tilejit";
  return {};
}

std::string softmax_tuning_file(Backend backend) {
  backend = detail::resolve_backend(backend);
  std::string dir = detail::cache_dir();
  if (dir.empty()) return {};
  std::string name = device_name(backend);
  if (name.empty()) return {};
  for (char& ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' || ch == '(' || ch == ')')) ch = '_';
  return dir + "/autotune-" + name + ".txt";
}

void forget_softmax_tuning() {
  std::lock_guard lock(g_mutex);
  tables().clear();
  detail::forget_plans();
}

std::optional<SoftmaxConfig> tuned_softmax_config(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend) {
  std::string path = softmax_tuning_file(backend);
  if (path.empty()) return std::nullopt;
  std::lock_guard lock(g_mutex);
  const Table& t = table_for(path);
  auto it = t.find(band_key(rows, cols, dtype));
  if (it == t.end()) return std::nullopt;
  return it->second;
}

namespace {

// The table shipped for exactly this device name, or null.
const detail::ShippedTable* own_shipped_table(std::string_view device_name) {
  for (const detail::ShippedTable& t : detail::shipped_tables())
    if (t.device == device_name) return &t;
  return nullptr;
}

}  // namespace

std::vector<std::string> shipped_table_devices(const std::string& device_name, int cc_major, int cc_minor,
                                               int sm_count) {
  std::vector<std::string> devices;
  if (own_shipped_table(device_name)) devices.push_back(device_name);
  // Devices of the same architecture and size: the tuned choices (group sizes counted in SMs,
  // register caps for the architecture's register file) carry over. The H200's on an H100 SXM read
  // level with or above the built-in table on every benchmark shape, far above on the wide rows
  // (bench/results/borrowed_table_h100_2026-12-05.md).
  for (const detail::ShippedTable& t : detail::shipped_tables())
    if (t.device != device_name && t.cc_major == cc_major && t.cc_minor == cc_minor && t.sm_count == sm_count)
      devices.emplace_back(t.device);
  return devices;
}

std::vector<std::string> shipped_table_devices(Backend backend) {
  if (detail::resolve_backend(backend) != Backend::cuda || !has_gpu()) return {};
  const DeviceProperties& p = device_properties();
  return shipped_table_devices(p.name, p.cc_major, p.cc_minor, p.sm_count);
}

std::optional<SoftmaxConfig> shipped_softmax_config(std::int64_t rows, std::int64_t cols, DType dtype,
                                                    Backend backend) {
  for (const std::string& device : shipped_table_devices(backend))
    if (auto c = shipped_softmax_config_for(device, rows, cols, dtype)) return c;
  return std::nullopt;
}

std::optional<SoftmaxConfig> shipped_softmax_config_for(const std::string& name, std::int64_t rows, std::int64_t cols,
                                                        DType dtype) {
  static std::mutex mutex;
  static std::map<std::string, Table> parsed;
  std::lock_guard lock(mutex);
  auto it = parsed.find(name);
  if (it == parsed.end()) {
    const detail::ShippedTable* table = own_shipped_table(name);
    it = parsed.emplace(name, parse_table(table ? table->text : std::string_view{})).first;
  }
  auto c = it->second.find(band_key(rows, cols, dtype));
  if (c == it->second.end()) return std::nullopt;
  return c->second;
}

std::vector<SoftmaxConfig> softmax_candidates(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend) {
  (void)dtype;
  backend = detail::resolve_backend(backend);
  const std::int64_t width = detail::next_pow2(cols);
  const std::int64_t parallel = detail::parallelism(backend, 0);
  std::vector<SoftmaxConfig> out;
  auto add = [&](SoftmaxConfig c) {
    if (detail::config_fits(c, rows, cols) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  auto packed = [](SoftmaxConfig c, int programs_per_block) {
    c.programs_per_block = programs_per_block;
    return c;
  };
  // Elements per thread per block between 2 and 64: fewer wastes lanes, more spills.
  auto warps_ok = [](std::int64_t elements, int w) { return elements >= 64 * w && elements <= 2048 * w; };
  // Persistent grids with and without the next row's loads in flight, and one program per row
  // (stages do not matter there: each program runs one step). Short rows on CUDA also try three
  // row blocks in flight (the seed at 65536 x 128: 0.94 of copy against 0.88 with one); the CPU
  // backend does not pipeline, so more stages would only repeat a candidate there.
  constexpr auto persistent = SoftmaxGrid::persistent, per_row = SoftmaxGrid::per_row;
  const std::vector<int> short_row_stages =
      backend == Backend::cuda ? std::vector<int>{1, 2, 4} : std::vector<int>{1, 2};
  // Programs of one or two warps on CUDA also run two and four to a thread block: alone, an SM's
  // 32 blocks would leave half its warp slots or more empty (the seed at f32 65536 x 128: 0.97 of
  // copy four a block against 0.94 alone).
  const std::vector<int> packings = backend == Backend::cuda ? std::vector<int>{1, 2, 4} : std::vector<int>{1};
  if (width <= 4096)
    for (std::int64_t r = 1; r * width <= 16384 && r <= 256; r *= 2)
      for (int w : {1, 2, 4, 8})
        for (int p : packings)
          if (warps_ok(r * width, w) && (p == 1 || w <= 2)) {
            for (int s : short_row_stages)
              if (s < 4 || r * width <= 16 * 32 * w)
                add(packed({SoftmaxStrategy::rows_2d, width, w, s, r, 1, persistent}, p));
            add(packed({SoftmaxStrategy::rows_2d, width, w, 1, r, 1, per_row}, p));
          }
  if (width <= 32768)
    for (int w : {4, 8, 16})
      if (warps_ok(width, w)) {
        for (int s : {1, 2}) add({SoftmaxStrategy::row_in_registers, width, w, s, 1, 1, persistent});
        add({SoftmaxStrategy::row_in_registers, width, w, 1, 1, 1, per_row});
      }
  if (cols > 1024)
    for (std::int64_t b : {1024, 2048, 4096, 8192})
      for (int w : {4, 8, 16})
        for (int s : {1, 2})
          if (b <= 2 * width && warps_ok(b, w)) add({SoftmaxStrategy::online, b, w, s, 1, 1});
  const bool clusters = detail::has_clusters(backend);
  // Clusters holding the row: each program 16 or 32 values per thread of its slice (64 with 16
  // warps: one program per SM, twice the bytes in flight of 32). Also for rows one program holds
  // (from 8192 columns): smaller programs, more of them per SM.
  if (width > 4096 && clusters)
    for (std::int64_t b : {2048, 4096, 8192, 16384, 32768})
      for (int w : {4, 8, 16})
        if (cdiv(cols, b) >= 2 && cdiv(cols, b) <= 16 &&
            (b == 16 * 32 * w || b == 32 * 32 * w || (b == 64 * 32 * w && w == 16)))
          for (auto grid : {persistent, per_row})
            for (int s : {1, 2})
              if (s == 1 || grid == persistent)
                add({SoftmaxStrategy::cluster, b, w, s, 1, std::max<std::int64_t>(2, cdiv(cols, b)), grid});
  // Clusters walking their slices twice (rows past 16 programs' registers): fewer rows open at
  // once than one program per row, so the second pass reads L2. With the next block in flight
  // too (bf16 128 x 1M: 0.66 of copy against 0.59).
  if (width > 65536 && clusters)
    for (std::int64_t cluster : {4, 8, 16})
      for (std::int64_t b : {4096, 8192})
        for (int w : {8, 16})
          for (int s : {1, 2})
            if (b * cluster < cols && warps_ok(b, w)) add({SoftmaxStrategy::cluster, b, w, s, 1, cluster, persistent});
  // Groups exchanging through global memory (any size, one cooperative launch): rows held in the
  // registers of more programs than a cluster has, and rows walked by up to two programs per SM.
  if (width >= 65536 && backend == Backend::cuda) {
    for (std::int64_t b : {8192, 16384, 32768})
      for (int w : {8, 16})
        if (b == 16 * 32 * w || b == 32 * 32 * w || (b == 64 * 32 * w && w == 16))
          if (cdiv(cols, b) >= 2 && cdiv(cols, b) <= 2 * parallel)
            for (bool overlap : {false, true})   // each row's exchange in flight while the next row is read
              if (!overlap || b <= 32 * 32 * w)  // two rows' slices held: at most 32 values a thread each
                add({SoftmaxStrategy::group, b, w, 1, 1, cdiv(cols, b), persistent, overlap});
    // Walked: 2 stages keep the walk's next block in flight (H200, one row of 16M over 264 programs
    // of 16 warps: 0.73 of copy against 0.65 with one; probes_e396dcc.md). Groups spanning the
    // GPU also walk interleaved blocks (f32 1 x 16M over 264 programs: 4% faster; level or slower
    // in smaller groups; probes_interleave_2026-12-01.md).
    for (std::int64_t group : {std::int64_t{32}, std::int64_t{64}, parallel, 2 * parallel})
      for (std::int64_t b : {4096, 8192})
        for (int w : {8, 16})
          for (int s : {1, 2})
            if (b * group < cols && warps_ok(b, w)) {
              SoftmaxConfig c{SoftmaxStrategy::group, b, w, s, 1, group, persistent};
              add(c);
              c.interleave = true;
              if (group >= parallel) add(c);
            }
  }
  if (cols > 4096 && rows <= 65535)
    for (std::int64_t per_unit : {1, 2, 4, 8})
      for (std::int64_t b : {2048, 4096})
        for (int w : {4, 8})
          for (int s : {1, 2}) {
            std::int64_t splits =
                std::clamp<std::int64_t>(cdiv(per_unit * parallel, rows), 1, std::max<std::int64_t>(1, cols / b));
            if (splits > 1 && warps_ok(b, w)) add({SoftmaxStrategy::split_row, b, w, s, 1, splits});
          }
  return out;
}

std::vector<SoftmaxConfig> softmax_occupancy_variants(const std::vector<SoftmaxConfig>& candidates, std::int64_t rows,
                                                      std::int64_t cols, DType dtype) {
  // 16-byte aligned stand-ins: the kernels' keys match those of real allocations.
  const Pointer out{0x20000, dtype}, in{0x10000, dtype};
  std::vector<std::vector<const CompiledKernel*>> kernels(candidates.size());
  in_parallel(candidates.size(),
              [&](std::size_t i) { kernels[i] = compile_candidate(candidates[i], out, in, rows, cols); });
  std::vector<SoftmaxConfig> variants;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].min_blocks_per_sm != 0 || kernels[i].empty()) continue;
    // The fewest blocks an SM any of its kernels holds, where registers are what limit them.
    int blocks = 0;
    for (const CompiledKernel* k : kernels[i]) {
      const KernelMetadata& md = k->metadata();
      if (!jit::register_limited(md)) continue;
      const int resident = jit::resident_blocks_per_sm(md);
      blocks = blocks == 0 ? resident : std::min(blocks, resident);
    }
    if (blocks == 0) continue;
    // Walked slices launch at most 1024 threads an SM (walk_program_cap): a block more than that
    // would only cost registers.
    if (detail::walks_slices(candidates[i], cols) && (blocks + 1) * 32 * candidates[i].num_warps > 1024) continue;
    SoftmaxConfig v = candidates[i];
    v.min_blocks_per_sm = blocks + 1;
    if (detail::config_fits(v, rows, cols)) variants.push_back(v);
  }
  return variants;
}

std::vector<SoftmaxConfig> softmax_tuning_candidates(std::int64_t rows, std::int64_t cols, DType dtype,
                                                     Backend backend) {
  backend = detail::resolve_backend(backend);
  std::vector<SoftmaxConfig> candidates = softmax_candidates(rows, cols, dtype, backend);
  if (backend != Backend::cuda) return candidates;
  // Each as each generator builds it. Left to the default (tiered), a first compile gets the PTX
  // generator's build and queues NVRTC's on one background thread, so the sweep would time the
  // one and every later process run the other, and the two can differ at equal occupancy.
  std::vector<SoftmaxConfig> builds;
  for (SoftmaxConfig c : candidates)
    for (GpuCodegen g : {GpuCodegen::ptx, GpuCodegen::cuda}) {
      c.codegen = g;
      builds.push_back(c);
    }
  // Variants from each build's own registers, which differ between the generators; compiling the
  // builds here also leaves them in the kernel cache for the sweep.
  for (const SoftmaxConfig& v : softmax_occupancy_variants(builds, rows, cols, dtype)) builds.push_back(v);
  return builds;
}

TuneResult tune_softmax(std::int64_t rows, std::int64_t cols, DType dtype, const TuneOptions& options) {
  detail::require_elements("tune_softmax", rows, cols);
  if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16)
    throw Error(fmt::format("tune_softmax: unsupported element type {}", dtype_name(dtype)));
  const Backend backend = detail::resolve_backend(options.backend);
  std::vector<SoftmaxConfig> candidates =
      options.candidates.empty() ? softmax_tuning_candidates(rows, cols, dtype, backend) : options.candidates;
  const Memory memory = memory_of(backend);
  const auto count = static_cast<std::size_t>(rows * cols);
  Buffer in(dtype, count, memory), out(dtype, count, memory);
  fill_input(in, count);

  // Compile every candidate first, on all cores: the kernel cache lets the timing loop below
  // find them ready.
  if (backend == Backend::cuda)
    in_parallel(candidates.size(), [&](std::size_t i) {
      compile_candidate(candidates[i], Pointer{out.address(), dtype, memory}, Pointer{in.address(), dtype, memory},
                        rows, cols);
    });

  Pointer po{out.address(), dtype, memory}, pi{in.address(), dtype, memory};
  // One candidate's median over `reps` runs (CUDA events with L2 flushed, or the host clock).
  auto measure = [&](const SoftmaxConfig& c) {
    SoftmaxOptions forced;
    forced.backend = backend;
    forced.config = c;
    auto run = [&] { softmax(po, pi, rows, cols, cols, cols, nullptr, forced); };
    run();  // compiles (the sweep) or is already compiled (the finals)
    if (backend == Backend::cuda) {
      TimingOptions t;
      t.warmup = options.warmup;
      t.reps = options.reps;
      return time_gpu(run, t).median_ms;
    }
    for (int i = 0; i < options.warmup; ++i) run();
    std::vector<double> samples;
    for (int i = 0; i < std::max(1, options.reps); ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(samples);
  };

  // Orders (configuration, ms) pairs fastest first.
  auto faster = [](const auto& a, const auto& b) { return a.second < b.second; };
  TuneResult result;
  for (const SoftmaxConfig& c : candidates) {
    if (!detail::config_fits(c, rows, cols)) continue;
    try {
      result.timings.emplace_back(c, measure(c));
    } catch (const CompileError&) {
      continue;
    } catch (const CudaError&) {
      throw;                    // the device failed: the candidates after this one would not be timed fairly
    } catch (const Error& e) {  // e.g. a group larger than the programs the device holds at once
      std::fprintf(stderr, "tune_softmax: skipped %s: %s\n", describe(c).c_str(), e.what());
    }
  }
  if (result.timings.empty())
    throw Error(fmt::format("tune_softmax: no candidate configuration ran {} x {}", rows, cols));
  std::vector<std::pair<SoftmaxConfig, double>> ranked = result.timings;
  std::stable_sort(ranked.begin(), ranked.end(), faster);
  result.best = ranked.front().first;
  result.best_ms = ranked.front().second;
  if (options.finalists > 0) {
    std::vector<SoftmaxConfig> finalists;
    for (std::size_t i = 0; i < ranked.size() && i < static_cast<std::size_t>(options.finalists); ++i)
      finalists.push_back(ranked[i].first);
    // The incumbent competes when the tuner chose the candidates; a caller's list is the choice.
    SoftmaxOptions current;
    current.backend = backend;
    result.incumbent = plan_softmax(rows, cols, dtype, dtype, current).config;
    const bool incumbent_runs =
        options.candidates.empty() ||
        std::find(options.candidates.begin(), options.candidates.end(), result.incumbent) != options.candidates.end();
    if (incumbent_runs && std::find(finalists.begin(), finalists.end(), result.incumbent) == finalists.end())
      finalists.push_back(result.incumbent);
    std::vector<std::vector<double>> rounds(finalists.size());
    for (int round = 0; round < std::max(1, options.rounds); ++round)
      for (std::size_t i = 0; i < finalists.size(); ++i) {
        try {
          rounds[i].push_back(measure(finalists[i]));
        } catch (const CudaError&) {
          throw;
        } catch (const Error&) {  // only the incumbent can fail here: the sweep ran every other finalist
        }
      }
    for (std::size_t i = 0; i < finalists.size(); ++i)
      if (!rounds[i].empty()) result.finals.emplace_back(finalists[i], median(rounds[i]));
    std::stable_sort(result.finals.begin(), result.finals.end(), faster);
    if (!result.finals.empty()) {
      result.best = result.finals.front().first;
      result.best_ms = result.finals.front().second;
    }
    for (const auto& [c, ms] : result.finals)
      if (c == result.incumbent) result.incumbent_ms = ms;
  }

  std::string path = softmax_tuning_file(backend);
  if (path.empty()) return result;
  std::lock_guard lock(g_mutex);
  // Merge with what the file holds now (another process may have tuned other bands).
  Table merged = read_table(path);
  Table& mine = table_for(path);
  for (const auto& [k, c] : mine) merged.try_emplace(k, c);
  merged[band_key(rows, cols, dtype)] = result.best;
  mine = merged;
  detail::forget_plans();
  if (options.persist) write_table(path, merged, device_name(backend));
  return result;
}

}  // namespace tilejit::ops
