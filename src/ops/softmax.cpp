// The softmax op's entry points: argument checks, the plan (forced, tuned or table) and the launch.
#include "tilejit/ops/softmax.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/ops/softmax_kernels.h"

namespace tilejit::ops {

const SoftmaxRows2dKernel& softmax_rows_2d_op() {
  static const SoftmaxRows2dKernel k(
      "softmax_rows_2d_op", softmax_rows_2d_op_kernel,
      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "ROWS", "BLOCK_COLS", "LOG", "WIDE", "NUM_STAGES"});
  return k;
}

const SoftmaxRowKernel& softmax_row_op() {
  static const SoftmaxRowKernel k(
      "softmax_row_op", softmax_row_op_kernel,
      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK", "LOG", "WIDE", "NUM_STAGES"});
  return k;
}

const SoftmaxOnlineKernel& softmax_online_op() {
  static const SoftmaxOnlineKernel k(
      "softmax_online_op", softmax_online_op_kernel,
      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK", "LOG", "WIDE", "STAT_COLS"});
  return k;
}

const SoftmaxClusterKernel& softmax_cluster_op() {
  static const SoftmaxClusterKernel k("softmax_cluster_op", softmax_cluster_op_kernel,
                                      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK", "CLUSTER",
                                       "LOG", "WIDE", "NUM_STAGES", "ONE_EXCHANGE"});
  return k;
}

const SoftmaxClusterOnlineKernel& softmax_cluster_online_op() {
  static const SoftmaxClusterOnlineKernel k("softmax_cluster_online_op", softmax_cluster_online_op_kernel,
                                            {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "slice",
                                             "BLOCK", "CLUSTER", "LOG", "WIDE", "KEPT", "STAT_COLS", "INTERLEAVE"});
  return k;
}

const SoftmaxGroupKernel& softmax_group_op() {
  static const SoftmaxGroupKernel k("softmax_group_op", softmax_group_op_kernel,
                                    {"out", "in", "workspace", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK",
                                     "GROUP", "LOG", "WIDE", "NUM_STAGES", "OVERLAP"});
  return k;
}

const SoftmaxGroupOnlineKernel& softmax_group_online_op() {
  static const SoftmaxGroupOnlineKernel k(
      "softmax_group_online_op", softmax_group_online_op_kernel,
      {"out", "in", "workspace", "in_stride", "out_stride", "n_rows", "n_cols", "slice", "BLOCK", "GROUP", "LOG",
       "WIDE", "KEPT", "STAT_COLS", "INTERLEAVE"});
  return k;
}

const SoftmaxGroupHeldKernel& softmax_group_held_op() {
  static const SoftmaxGroupHeldKernel k("softmax_group_held_op", softmax_group_held_op_kernel,
                                        {"out", "in", "workspace", "in_stride", "out_stride", "n_rows", "n_cols",
                                         "BLOCK", "PARTS", "GROUP", "LOG", "WIDE", "INTERLEAVE"});
  return k;
}

const SoftmaxSplitPartialsKernel& softmax_split_partials() {
  static const SoftmaxSplitPartialsKernel k(
      "softmax_split_partials", softmax_split_partials_kernel,
      {"workspace", "in", "in_stride", "n_cols", "chunk", "BLOCK", "WIDE", "STAT_COLS"});
  return k;
}

const SoftmaxSplitNormalizeKernel& softmax_split_normalize() {
  static const SoftmaxSplitNormalizeKernel k(
      "softmax_split_normalize", softmax_split_normalize_kernel,
      {"out", "workspace", "in", "in_stride", "out_stride", "n_cols", "chunk", "SPLITS_P2", "BLOCK", "LOG", "WIDE"});
  return k;
}

const char* strategy_name(SoftmaxStrategy s) {
  switch (s) {
    case SoftmaxStrategy::automatic: return "automatic";
    case SoftmaxStrategy::rows_2d: return "rows_2d";
    case SoftmaxStrategy::row_in_registers: return "row_in_registers";
    case SoftmaxStrategy::online: return "online";
    case SoftmaxStrategy::split_row: return "split_row";
    case SoftmaxStrategy::cluster: return "cluster";
    case SoftmaxStrategy::group: return "group";
  }
  return "?";
}

namespace {

// The value of `all` that `name_of` calls `name`.
template <class E>
bool parse_named(std::string_view name, std::initializer_list<E> all, const char* (*name_of)(E), E& out) {
  for (E e : all)
    if (name == name_of(e)) {
      out = e;
      return true;
    }
  return false;
}

}  // namespace

bool parse_strategy(std::string_view name, SoftmaxStrategy& out) {
  return parse_named(
      name,
      {SoftmaxStrategy::automatic, SoftmaxStrategy::rows_2d, SoftmaxStrategy::row_in_registers, SoftmaxStrategy::online,
       SoftmaxStrategy::split_row, SoftmaxStrategy::cluster, SoftmaxStrategy::group},
      strategy_name, out);
}

const char* grid_name(SoftmaxGrid g) {
  switch (g) {
    case SoftmaxGrid::persistent: return "persistent";
    case SoftmaxGrid::per_row: return "per_row";
  }
  return "?";
}

bool parse_grid(std::string_view name, SoftmaxGrid& out) {
  return parse_named(name, {SoftmaxGrid::persistent, SoftmaxGrid::per_row}, grid_name, out);
}

bool parse_codegen(std::string_view name, GpuCodegen& out) {
  return parse_named(name, {GpuCodegen::ptx, GpuCodegen::cuda, GpuCodegen::tiered}, codegen_name, out);
}

std::string describe(const SoftmaxConfig& c) {
  std::string s = fmt::format("{} BLOCK={} warps={}", strategy_name(c.strategy), c.block, c.num_warps);
  if (c.num_stages != 1) s += fmt::format(" stages={}", c.num_stages);
  if (c.strategy == SoftmaxStrategy::rows_2d) s += fmt::format(" rows/program={}", c.rows_per_program);
  if (c.strategy == SoftmaxStrategy::split_row) s += fmt::format(" splits={}", c.splits);
  if (c.strategy == SoftmaxStrategy::cluster) s += fmt::format(" cluster={}", c.splits);
  if (c.strategy == SoftmaxStrategy::group) s += fmt::format(" group={}", c.splits);
  if (c.grid != SoftmaxGrid::persistent) s += fmt::format(" grid={}", grid_name(c.grid));
  if (c.overlap) s += " overlap";
  if (c.min_blocks_per_sm) s += fmt::format(" min_blocks={}", c.min_blocks_per_sm);
  if (c.stat_cols) s += fmt::format(" stat_cols={}", c.stat_cols);
  if (c.interleave) s += " interleave";
  if (c.programs_per_block != 1) s += fmt::format(" programs/block={}", c.programs_per_block);
  if (c.codegen != GpuCodegen::automatic) s += fmt::format(" codegen={}", codegen_name(c.codegen));
  return s;
}

namespace detail {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  constexpr std::string_view kSpace = " \t\r";
  for (std::size_t i = line.find_first_not_of(kSpace); i != std::string_view::npos;
       i = line.find_first_not_of(kSpace, i)) {
    const std::size_t end = std::min(line.find_first_of(kSpace, i), line.size());
    out.push_back(line.substr(i, end - i));
    i = end;
  }
  return out;
}

}  // namespace detail

namespace {

// "name=N" split at '=': false where the word has no '=' or N is not a whole number.
bool named_number(std::string_view word, std::string_view& name, std::int64_t& value) {
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos) return false;
  name = word.substr(0, eq);
  return detail::number(word.substr(eq + 1), value);
}

}  // namespace

SoftmaxConfig parse_config(std::string_view text) {
  constexpr std::string_view kNumbered =
      " BLOCK= warps= stages= rows/program= splits= cluster= group= min_blocks= stat_cols= programs/block= ";
  constexpr const char* kWords =
      "the words after the strategy are BLOCK=N, warps=N, stages=N, rows/program=N, splits=N, cluster=N, group=N, "
      "grid=persistent|per_row, overlap, interleave, min_blocks=N, stat_cols=N, programs/block=N and "
      "codegen=ptx|cuda|tiered";
  const std::vector<std::string_view> words = detail::words(text);
  auto fail = [&](const std::string& why) { throw Error(fmt::format("softmax configuration '{}': {}", text, why)); };
  SoftmaxConfig c;
  if (words.empty()) fail("empty (it starts with a strategy, e.g. 'online BLOCK=8192 warps=16')");
  if (!parse_strategy(words[0], c.strategy) || c.strategy == SoftmaxStrategy::automatic)
    fail(fmt::format("unknown strategy '{}' (rows_2d, row_in_registers, online, split_row, cluster or group)",
                     words[0]));
  // describe() names a set by its strategy: splits of a split row, a cluster's or a group's size.
  const char* set_word = c.strategy == SoftmaxStrategy::cluster ? "cluster"
                         : c.strategy == SoftmaxStrategy::group ? "group"
                                                                : "splits";
  const bool has_set = c.strategy == SoftmaxStrategy::split_row || c.strategy == SoftmaxStrategy::cluster ||
                       c.strategy == SoftmaxStrategy::group;
  std::vector<std::string_view> seen;
  bool has_block = false;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    std::string_view name = w;
    std::int64_t v = 0;
    const bool numeric = named_number(w, name, v);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) fail(fmt::format("'{}' is given twice", name));
    seen.push_back(name);
    if (w == "overlap") c.overlap = true;
    else if (w == "interleave") c.interleave = true;
    else if (w.starts_with("grid=")) {
      if (!parse_grid(w.substr(5), c.grid)) fail(fmt::format("unknown grid in '{}' (persistent or per_row)", w));
    } else if (w.starts_with("codegen=")) {
      if (!parse_codegen(w.substr(8), c.codegen))
        fail(fmt::format("unknown generator in '{}' (ptx, cuda or tiered)", w));
    } else if (!numeric) {
      fail(fmt::format("cannot read '{}' ({})", w, kWords));
    } else if (v < 0) {
      fail(fmt::format("'{}' is negative", w));
    } else if (name == "BLOCK") {
      c.block = v, has_block = true;
    } else if (name == "warps") {
      c.num_warps = static_cast<int>(std::min<std::int64_t>(v, 1 << 20));
    } else if (name == "stages") {
      c.num_stages = static_cast<int>(std::min<std::int64_t>(v, 1 << 20));
    } else if (name == "rows/program" && c.strategy == SoftmaxStrategy::rows_2d) {
      c.rows_per_program = v;
    } else if (has_set && name == set_word) {
      c.splits = v;
    } else if (name == "min_blocks") {
      c.min_blocks_per_sm = static_cast<int>(std::min<std::int64_t>(v, 1 << 20));
    } else if (name == "stat_cols") {
      c.stat_cols = v;
    } else if (name == "programs/block") {
      c.programs_per_block = static_cast<int>(std::min<std::int64_t>(v, 1 << 20));
    } else if (has_set && (name == "splits" || name == "cluster" || name == "group")) {
      fail(fmt::format("'{}' does not apply to {}: its programs a row are {}=N", w, strategy_name(c.strategy),
                       set_word));
    } else if (kNumbered.find(fmt::format(" {}=", name)) != std::string_view::npos) {
      fail(fmt::format("'{}' does not apply to {}", w, strategy_name(c.strategy)));
    } else {
      fail(fmt::format("cannot read '{}' ({})", w, kWords));
    }
  }
  if (!has_block) fail("no BLOCK=N");
  return c;
}

const char* config_source_name(ConfigSource s) {
  switch (s) {
    case ConfigSource::forced: return "forced";
    case ConfigSource::autotune: return "autotune";
    case ConfigSource::device_table: return "device table";
    case ConfigSource::table: return "table";
  }
  return "?";
}

namespace {

// Columns and rows stay below 2^31 minus a margin: column and row indices are 32-bit in the
// kernels (only offsets row * stride widen), and index + BLOCK must not wrap.
constexpr std::int64_t kMaxExtent = std::numeric_limits<std::int32_t>::max() - (std::int64_t{1} << 21);

bool autotune_on_miss() {
  const char* v = std::getenv("TILEJIT_AUTOTUNE");
  return v && std::string(v) == "1";
}

SoftmaxPlan make_plan(std::int64_t rows, std::int64_t cols, DType in, DType out, const SoftmaxOptions& options,
                      bool may_tune) {
  SoftmaxPlan plan;
  plan.backend = detail::resolve_backend(options.backend);
  if (options.config) {
    detail::check_config(*options.config, rows, cols);
    plan.config = *options.config;
    plan.source = ConfigSource::forced;
    return plan;
  }
  auto tuned = tuned_softmax_config(rows, cols, in, plan.backend);
  if (!tuned && may_tune && autotune_on_miss()) {
    TuneOptions tune;
    tune.backend = plan.backend;
    tune_softmax(rows, cols, in, tune);
    tuned = tuned_softmax_config(rows, cols, in, plan.backend);
  }
  if (tuned && detail::config_fits(*tuned, rows, cols)) {
    plan.config = *tuned;
    plan.source = ConfigSource::autotune;
    return plan;
  }
  if (auto shipped = detail::shipped_config(rows, cols, in, plan.backend)) {
    plan.config = shipped->config;
    plan.source = ConfigSource::device_table;
    plan.table_device = std::move(shipped->table_device);
    return plan;
  }
  (void)out;  // the table keys on the input's element size (what most of the traffic is)
  plan.config = detail::table_config(rows, cols, dtype_size(in), plan.backend,
                                     detail::parallelism(plan.backend, options.cpu_threads));
  plan.source = ConfigSource::table;
  return plan;
}

// make_plan for a call, through the plan cache where no configuration is forced (a repeated
// shape then skips the tables; softmax_plan_cache.cpp).
SoftmaxPlan call_plan(std::int64_t rows, std::int64_t cols, DType in, DType out, const SoftmaxOptions& options) {
  if (options.config) return make_plan(rows, cols, in, out, options, true);
  const detail::PlanKey key{rows, cols, in, out, options.backend, options.cpu_threads};
  const detail::PlanInputs inputs = detail::plan_inputs(options);
  auto [cached, generation] = detail::cached_plan(key, inputs);
  if (cached) return *cached;
  SoftmaxPlan plan = make_plan(rows, cols, in, out, options, true);
  detail::remember_plan(key, inputs, generation, plan);
  return plan;
}

void check_arguments(const char* what, const Pointer& out, const Pointer& in, std::int64_t rows, std::int64_t cols,
                     std::int64_t in_stride, std::int64_t out_stride) {
  if (rows > kMaxExtent || cols > kMaxExtent)
    throw Error(fmt::format("{}: {} x {} is too large (rows and cols at most {} each)", what, rows, cols, kMaxExtent));
  if (!out.address || !in.address)
    throw Error(fmt::format("{}: null {} pointer", what, out.address ? "input" : "output"));
  for (const Pointer* p : {&out, &in}) {
    const char* name = p == &out ? "output" : "input";
    if (p->dtype != DType::f32 && p->dtype != DType::f16 && p->dtype != DType::bf16)
      throw Error(
          fmt::format("{}: unsupported {} element type {} (f32, f16 or bf16)", what, name, dtype_name(p->dtype)));
    if (p->address % dtype_size(p->dtype) != 0)
      throw Error(fmt::format("{}: {} pointer {:#x} is not aligned to its {}-byte elements", what, name, p->address,
                              dtype_size(p->dtype)));
  }
  if (in_stride < 0) throw Error(fmt::format("{}: negative input row stride {}", what, in_stride));
  if (rows > 1 && out_stride < cols)
    throw Error(fmt::format("{}: output row stride {} is less than cols {}: output rows would overlap", what,
                            out_stride, cols));
}

void run(const char* what, bool log, Pointer out, Pointer in, std::int64_t rows, std::int64_t cols,
         std::int64_t in_stride, std::int64_t out_stride, StreamHandle stream, const SoftmaxOptions& options) {
  detail::reject_negative_size(what, rows, cols);
  if (rows == 0 || cols == 0) return;
  check_arguments(what, out, in, rows, cols, in_stride, out_stride);
  if (options.kept_bytes < -1)
    throw Error(
        fmt::format("{}: kept_bytes {} must be -1 (the default budget) or 0 or more", what, options.kept_bytes));
  SoftmaxPlan plan = call_plan(rows, cols, in.dtype, out.dtype, options);
  detail::Problem p{detail::with_problem_extent(what, "output", out, rows, cols, out_stride),
                    detail::with_problem_extent(what, "input", in, rows, cols, in_stride),
                    rows,
                    cols,
                    in_stride,
                    out_stride,
                    log};
  detail::launch_config(plan.config, p, plan.backend, stream, options);
}

}  // namespace

detail::PlanInputs detail::plan_inputs(const SoftmaxOptions& options) {
  return {cache_dir(), autotune_on_miss(), parallelism(resolve_backend(options.backend), options.cpu_threads)};
}

Pointer detail::with_problem_extent(const char* what, const char* name, Pointer p, std::int64_t rows, std::int64_t cols,
                                    std::int64_t stride) {
  using Wide = unsigned __int128;
  const Wide reach = (static_cast<Wide>(rows - 1) * static_cast<Wide>(stride) + static_cast<Wide>(cols)) *
                     static_cast<Wide>(dtype_size(p.dtype));
  if (p.bytes != Pointer::unknown_bytes && reach > p.bytes)
    throw Error(
        fmt::format("{}: the {} holds {} bytes, but {} rows {} elements apart, of {} {} elements each, reach "
                    "{} bytes",
                    what, name, p.bytes, rows, stride, cols, dtype_name(p.dtype), static_cast<std::uint64_t>(reach)));
  if (reach < Pointer::unknown_bytes) p.bytes = static_cast<std::uint64_t>(reach);
  return p;
}

SoftmaxPlan plan_softmax(std::int64_t rows, std::int64_t cols, DType in, DType out, const SoftmaxOptions& options) {
  detail::require_elements("plan_softmax", rows, cols);
  return make_plan(rows, cols, in, out, options, false);
}

void softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
             std::int64_t out_row_stride, StreamHandle stream, const SoftmaxOptions& options) {
  run("softmax", false, out, in, rows, cols, in_row_stride, out_row_stride, stream, options);
}

void log_softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
                 std::int64_t out_row_stride, StreamHandle stream, const SoftmaxOptions& options) {
  run("log_softmax", true, out, in, rows, cols, in_row_stride, out_row_stride, stream, options);
}

std::vector<const CompiledKernel*> compile_softmax(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols,
                                                   std::int64_t in_row_stride, std::int64_t out_row_stride, bool log,
                                                   const SoftmaxOptions& options) {
  detail::require_elements("compile_softmax", rows, cols);
  check_arguments("compile_softmax", out, in, rows, cols, in_row_stride, out_row_stride);
  SoftmaxPlan plan = make_plan(rows, cols, in.dtype, out.dtype, options, false);
  detail::Problem p{out, in, rows, cols, in_row_stride, out_row_stride, log};
  std::vector<const CompiledKernel*> kernels;
  detail::launch_config(plan.config, p, plan.backend, nullptr, options, &kernels);
  return kernels;
}

}  // namespace tilejit::ops
