// The autotuner's per-device files of winners and the tables shipped with tilejit (format in
// softmax_autotune.h): parsing, writing and the lookups the op's plans make.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <tuple>

#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_autotune.h"

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

// The comment lines naming the device a file was tuned on. A GPU's also give its architecture and
// SM count: a file committed to src/ops/tuned/ ships as it is, and CMake reads them from there to
// say which other devices may borrow it (softmax_device_tables.cpp.in).
std::string device_lines(Backend backend) {
  std::string lines = fmt::format("# device: {}\n", device_name(backend));
  if (backend == Backend::cuda) {
    const DeviceProperties& p = device_properties();
    lines += fmt::format("# architecture: sm_{}{}, {} SMs\n", p.cc_major, p.cc_minor, p.sm_count);
  }
  return lines;
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

void write_table(const std::string& path, const Table& t, Backend backend) {
  std::filesystem::path p(path);
  std::filesystem::create_directories(p.parent_path());
  // Write then rename, so a reader never sees half a file.
  std::string tmp = fmt::format("{}.tmp{}", path, ::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << kHeader << "\n" << device_lines(backend);
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

void detail::record_tuned_config(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend,
                                 const SoftmaxConfig& config, bool persist) {
  std::string path = softmax_tuning_file(backend);
  if (path.empty()) return;
  std::lock_guard lock(g_mutex);
  // Merge with what the file holds now (another process may have tuned other bands).
  Table merged = read_table(path);
  Table& mine = table_for(path);
  for (const auto& [k, c] : mine) merged.try_emplace(k, c);
  merged[band_key(rows, cols, dtype)] = config;
  mine = merged;
  forget_plans();
  if (persist) write_table(path, merged, backend);
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

std::optional<detail::ShippedConfig> detail::shipped_config(std::int64_t rows, std::int64_t cols, DType dtype,
                                                            Backend backend) {
  for (std::string& device : shipped_table_devices(backend))
    if (auto c = shipped_softmax_config_for(device, rows, cols, dtype); c && config_fits(*c, rows, cols))
      return ShippedConfig{*c, std::move(device)};
  return std::nullopt;
}

std::optional<SoftmaxConfig> shipped_softmax_config(std::int64_t rows, std::int64_t cols, DType dtype,
                                                    Backend backend) {
  if (auto shipped = detail::shipped_config(rows, cols, dtype, backend)) return shipped->config;
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

}  // namespace tilejit::ops
