// Launching one softmax configuration: argument lists, grids, the 64-bit-offset decision and the
// split strategy's workspace.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_kernels.h"

namespace tilejit::ops::detail {

namespace {

// What a workspace holds: split_row's partials (rows x splits x {max, sum} in f32), or the
// group strategy's barriers and slots (tl::group_*). The barriers must start zeroed, and are back
// at rest when a launch ends, but only where that launch's group size puts them: a launch with
// another group size finds its counters where slots were, so the buffer is zeroed again first.
enum class WorkspaceUse { split_partials, group_barriers };

// One buffer per use, memory kind and stream, grown on demand: launches on one stream run in
// order, so they may share it; another stream gets its own. The lock is held from taking the
// buffer until the kernels are enqueued, so a concurrent growth cannot free it under them.
// A stream capturing a CUDA graph gets a buffer of its own for each launch instead, allocated,
// zeroed and freed in stream order: the graph replays long after, while launches outside it may
// grow (free) or re-zero the shared one, and no allocation but a stream-ordered one may happen
// during a capture.
class Workspaces {
 public:
  /// `layout`: group_barriers: the group size of the launch about to use it.
  template <class Use>
  void with(WorkspaceUse what, Memory memory, StreamHandle stream, std::size_t floats, std::int64_t layout, Use&& use) {
    if (memory == Memory::device && stream_is_capturing(stream)) {
      Buffer own = Buffer::stream_ordered(DType::f32, floats, stream);
      if (what == WorkspaceUse::group_barriers) own.fill_bytes_async(0, stream);
      use(Pointer{own.address(), DType::f32, memory, own.bytes()});
      return;  // own is freed after the launch, in the stream's order
    }
    std::lock_guard lock(mutex_);
    Entry& e = entries_[{what, memory, stream}];
    if (e.buffer.count() < floats) {
      // The old buffer may still be used by kernels in flight on this stream: wait for them
      // before it is freed. Growth is rare (sizes only go up), so the wait is too.
      if (memory == Memory::device && e.buffer.count() > 0) synchronize();
      e.buffer = Buffer(DType::f32, std::max(floats, 2 * e.buffer.count()), memory);
      e.layout = -1;
    }
    if (what == WorkspaceUse::group_barriers && e.layout != layout) {
      e.buffer.fill_bytes_async(0, stream);  // after the launches before it on this stream
      e.layout = layout;
    }
    use(Pointer{e.buffer.address(), DType::f32, memory, e.buffer.bytes()});
  }

 private:
  struct Entry {
    Buffer buffer;
    std::int64_t layout = -1;  // group_barriers: the group size its zeroed counters are laid out for
  };
  std::mutex mutex_;
  std::map<std::tuple<WorkspaceUse, Memory, StreamHandle>, Entry> entries_;
};

Workspaces& workspaces() {
  static Workspaces* w = new Workspaces;  // never destroyed: kernels may use it during exit
  return *w;
}

LaunchOptions launch_options(StreamHandle stream, int cpu_threads) {
  LaunchOptions launch;
  launch.stream = stream;
  launch.cpu_threads = cpu_threads;
  return launch;
}

// Launches a grid-stride kernel over `work` items: on CUDA a persistent grid (sized from
// occupancy, at most `max_programs` when > 0) or, for SoftmaxGrid::per_row, one program per
// item; always one program per item on the CPU. A kernel with clusters takes a cluster per item.
void launch_over(const CompiledKernel& k, SoftmaxGrid kind, std::int64_t work, const std::vector<Arg>& args,
                 StreamHandle stream, int cpu_threads, std::uint64_t max_programs = 0) {
  auto n = static_cast<std::uint64_t>(work);
  bool persistent = k.metadata().backend == Backend::cuda && kind == SoftmaxGrid::persistent;
  std::uint64_t programs =
      persistent ? persistent_grid(k, n) : n * static_cast<std::uint64_t>(k.metadata().cluster_size);
  if (max_programs > 0 && persistent) programs = std::min(programs, max_programs);
  k.launch(Grid(programs), args, launch_options(stream, cpu_threads));
}

// Cluster slices in registers: one exchange (max and sum together) when each thread holds 64
// values or more — one block per SM, which sits idle through every barrier — else two, which
// leave the compiler room to re-read the row from L1 instead of holding it. Measured on the
// H200 (2026-11-30): f32 4096 x 262144 over 8 x 32768 columns 0.83-0.86 of copy with one against
// 0.75-0.77 with two; 4096 x 65536 over 4 x 16384, 0.69 with one against 0.90 with two
// (bench/results/gpu_softmax_wide_*.md).
std::int64_t one_exchange(const SoftmaxConfig& c) { return c.block / (32 * c.num_warps) >= 64 ? 1 : 0; }

CompileOptions compile_options(const SoftmaxConfig& c, Backend backend) {
  CompileOptions o;
  o.num_warps = c.num_warps;
  o.num_stages = c.num_stages;
  o.min_blocks_per_sm = c.min_blocks_per_sm;
  o.programs_per_block = c.programs_per_block;
  o.codegen = c.codegen;
  o.backend = backend;
  return o;
}

// split_row: per-chunk partials into a workspace, then a second launch combines and normalizes.
// (Rows in L2-sized groups, one launch pair each, ran slower on the H200: 16 x 4M f32 0.46 of
// copy against 0.60 in one pair.)
void launch_split_rows(const SoftmaxConfig& c, const Problem& p, Backend backend, StreamHandle stream, int cpu_threads,
                       std::vector<const CompiledKernel*>* compile_only) {
  const std::int64_t log = p.log ? 1 : 0;
  const std::int64_t wide = needs_wide_offsets(c, p) ? 1 : 0;
  const CompileOptions options = compile_options(c, backend);
  // Chunks are whole loop steps; recount the splits so none is empty.
  const std::int64_t chunk = part_columns(p.cols, c.splits, c.block);
  const std::int64_t splits = cdiv(p.cols, chunk);
  Memory memory = memory_of(backend);
  auto args_for = [&](Pointer ws) {  // step 1's and step 2's
    return std::pair{
        std::vector<Arg>{ws, p.in, p.in_stride, p.cols, chunk, c.block, wide, stat_cols(c, backend, p.in.dtype)},
        std::vector<Arg>{p.out, ws, p.in, p.in_stride, p.out_stride, p.cols, chunk, next_pow2(splits), c.block, log,
                         wide}};
  };
  if (compile_only) {  // a stand-in workspace address: compiling needs only its type and alignment
    auto [partial_args, args] = args_for(Pointer{0x10000, DType::f32, memory});
    compile_only->push_back(&softmax_split_partials().compile(partial_args, options));
    compile_only->push_back(&softmax_split_normalize().compile(args, options));
    return;
  }
  const LaunchOptions launch = launch_options(stream, cpu_threads);
  workspaces().with(WorkspaceUse::split_partials, memory, stream, static_cast<std::size_t>(p.rows * splits * 2), 0,
                    [&](Pointer ws) {
                      auto [partial_args, args] = args_for(ws);
                      Grid grid(static_cast<std::uint64_t>(splits), static_cast<std::uint64_t>(p.rows));
                      softmax_split_partials().compile(partial_args, options).launch(grid, partial_args, launch);
                      softmax_split_normalize().compile(args, options).launch(grid, args, launch);
                    });
}

}  // namespace

// A walk at 1024 threads an SM keeps its loads in flight (the occupancy the H200 table's walks
// run at: four programs of 256 threads, two of 512), so each program takes that share of the SM's
// shared memory. Where those programs' slices fit in 128 KiB, L1 (the rest of the SM's 256 KiB)
// holds them between the passes without a stash, and faster: f32 128 x 1M walked by groups of
// 132 programs of 8192 columns ran at 0.81 of copy without one against 0.68 keeping it all, where
// 16 x 4M (slices of 128 KiB, two programs an SM) went from 0.67 to 0.72 (H200, 2026-11-30).
// Without a device (compiling for inspection) and on the CPU backend, an H200's figures stand in,
// so both backends run the kernel an H200 would.
std::int64_t kept_blocks(const SoftmaxConfig& c, std::int64_t slice, DType dtype, Backend backend,
                         std::int64_t kept_bytes) {
  const auto block_bytes = c.block * static_cast<std::int64_t>(dtype_size(dtype));
  std::int64_t budget = kept_bytes;
  if (budget < 0) {
    const std::int64_t programs = std::max<std::int64_t>(1, 1024 / (32 * c.num_warps));
    if (slice / c.block * block_bytes * programs <= 128 * 1024) return 0;
    std::int64_t per_sm = 228 * 1024, per_block = tl::kMaxStashBytes;  // an H200's
    if (backend == Backend::cuda && has_gpu()) {
      per_sm = device_properties().smem_per_sm;
      per_block = device_properties().smem_per_block_optin;
    }
    budget = std::min(per_sm / programs, per_block) - 2048;  // the reductions' scratch, the block's reserve
  }
  budget = std::min(budget, tl::kMaxStashBytes);
  return std::clamp<std::int64_t>(budget / block_bytes, 0, slice / c.block);
}

std::int64_t stat_cols(const SoftmaxConfig& c, Backend backend, DType dtype) {
  if (c.stat_cols) return c.stat_cols;
  if (backend == Backend::cpu) return c.block;
  return std::min<std::int64_t>(c.block, 16 / static_cast<std::int64_t>(dtype_size(dtype)));
}

// Why the cap, measured (H200, 2026-12-01): the hypothesis that it would bring f32 128 x 1M in
// groups of 132 x 4096 columns back to 0.81 of copy (its kernel had fallen to 32 registers, eight
// programs an SM) was refuted: 0.61 with the cap against 0.73 without (probes_wide_rows_d84ae4a.md,
// probes_lane_stats_33210b5.md). It stays because the H200 table's walks were re-tuned with it in
// place (tune_h200_wide_2026-12-01.md: groups of 64 x 8192 columns, 0.84 under do_bench).
std::uint64_t walk_program_cap(const SoftmaxConfig& c, std::int64_t set, int sm_count) {
  const auto per_sm = static_cast<std::uint64_t>(std::max(1, 1024 / (32 * c.num_warps)));
  const auto programs = per_sm * static_cast<std::uint64_t>(std::max(1, sm_count));
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(1, set));
  return std::max<std::uint64_t>(1, programs / n) * n;
}

namespace {

// The grid cap of a walking cluster or group launched on `backend`: walk_program_cap on CUDA,
// none (0) on the CPU, which runs one program per row.
std::uint64_t walked_grid_cap(const SoftmaxConfig& c, Backend backend) {
  return backend == Backend::cuda ? walk_program_cap(c, c.splits, device_properties().sm_count) : 0;
}

// The walking kernels' arguments (clusters and groups): their pointers, then the row geometry,
// each program's slice of whole steps, and how much of it stays in shared memory.
std::vector<Arg> walked_slice_args(std::vector<Arg> pointers, const SoftmaxConfig& c, const Problem& p, Backend backend,
                                   std::int64_t kept_bytes, std::int64_t log, std::int64_t wide) {
  const std::int64_t slice = part_columns(p.cols, c.splits, c.block);
  const std::int64_t kept = kept_blocks(c, slice, p.in.dtype, backend, kept_bytes);
  const std::int64_t stats = stat_cols(c, backend, p.in.dtype);
  const std::int64_t interleave = c.interleave ? 1 : 0;
  pointers.insert(pointers.end(), {p.in_stride, p.out_stride, p.rows, p.cols, slice, c.block, c.splits, log, wide, kept,
                                   stats, interleave});
  return pointers;
}

// group: a persistent, cooperative grid of whole groups, and their barriers in a zeroed
// workspace. The kernel holds each program's slice in registers when block x group covers the
// row, else walks slices of whole steps twice, or with SoftmaxConfig::overlap holds them whole
// (registers and shared memory). Slices in registers may overlap each row's exchange with the
// next row's reads (SoftmaxConfig::overlap too).
void launch_groups(const SoftmaxConfig& c, const Problem& p, Backend backend, StreamHandle stream,
                   const SoftmaxOptions& so, std::vector<const CompiledKernel*>* compile_only) {
  const int cpu_threads = so.cpu_threads;
  const std::int64_t log = p.log ? 1 : 0;
  const std::int64_t wide = needs_wide_offsets(c, p) ? 1 : 0;
  const bool in_registers = !walks_slices(c, p.cols);
  const bool held = !in_registers && c.overlap;
  const std::int64_t overlap = c.overlap ? 1 : 0;
  const CompileOptions options = compile_options(c, backend);
  const Memory memory = memory_of(backend);
  if (held) {
    const std::int64_t bytes = held_parts(c, p.cols) * c.block * static_cast<std::int64_t>(dtype_size(p.in.dtype));
    if (bytes > tl::kMaxStashBytes)
      throw Error(
          fmt::format("softmax: {} holds the next row's slice of {} x {} in {} bytes of shared memory a "
                      "program, more than the {} a block may have; use a larger group",
                      describe(c), p.rows, p.cols, bytes, tl::kMaxStashBytes));
  }
  // Compiled against a stand-in workspace (args[2]): the kernel depends only on its type and
  // alignment, which every workspace buffer shares, so the same kernel launches with the real one.
  const Pointer stand_in{0x10000, DType::f32, memory};
  std::vector<Arg> args;
  if (in_registers)
    args = {p.out,   p.in,     stand_in, p.in_stride, p.out_stride,       p.rows, p.cols,
            c.block, c.splits, log,      wide,        options.num_stages, overlap};
  else if (held)
    args = {p.out,    p.in, stand_in, p.in_stride,         p.out_stride, p.rows, p.cols, c.block, held_parts(c, p.cols),
            c.splits, log,  wide,     c.interleave ? 1 : 0};
  else args = walked_slice_args({p.out, p.in, stand_in}, c, p, backend, so.kept_bytes, log, wide);
  const CompiledKernel& k = in_registers ? softmax_group_op().compile(args, options)
                            : held       ? softmax_group_held_op().compile(args, options)
                                         : softmax_group_online_op().compile(args, options);
  if (compile_only) {
    compile_only->push_back(&k);
    return;
  }
  // Checked here, where the configuration is known: the launch's own check could only name the kernel.
  const std::uint64_t resident = backend == Backend::cuda ? resident_programs(k) : 0;
  if (backend == Backend::cuda && resident < static_cast<std::uint64_t>(c.splits))
    throw Error(fmt::format(
        "softmax: {} needs its {} programs resident at once, but the {} holds {} of this kernel ({} threads, "
        "{} registers a thread); use a smaller group, fewer warps or min_blocks",
        describe(c), c.splits, device_properties().name, resident, 32 * k.metadata().num_warps,
        k.metadata().registers));
  std::uint64_t programs = persistent_grid(k, static_cast<std::uint64_t>(p.rows));
  if (const std::uint64_t cap = in_registers || held ? 0 : walked_grid_cap(c, backend); cap > 0)
    programs = std::min(programs, cap);
  const std::uint64_t bytes = group_workspace_bytes(programs, c.splits);
  workspaces().with(WorkspaceUse::group_barriers, memory, stream, static_cast<std::size_t>(cdiv(bytes, 4)), c.splits,
                    [&](Pointer ws) {
                      args[2] = ws;
                      k.launch(Grid(programs), args, launch_options(stream, cpu_threads));
                    });
}

}  // namespace

bool needs_wide_offsets(const SoftmaxConfig& c, const Problem& p) {
  // Masked-off lanes still compute their offsets, so count the padding rows of the last row
  // block and the padding columns of the last column block as well.
  std::int64_t padded_rows = p.rows + (c.strategy == SoftmaxStrategy::rows_2d ? c.rows_per_program : 0);
  std::int64_t stride = std::max(p.in_stride, p.out_stride);
  const bool sets = c.strategy == SoftmaxStrategy::cluster || c.strategy == SoftmaxStrategy::group;
  std::int64_t padded_cols = p.cols + c.block * (sets ? c.splits : 1);
  constexpr std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  if (stride == 0) return padded_cols > limit;
  return padded_rows > (limit - padded_cols) / stride;
}

void launch_config(const SoftmaxConfig& c, const Problem& p, Backend backend, StreamHandle stream,
                   const SoftmaxOptions& options, std::vector<const CompiledKernel*>* compile_only) {
  const int cpu_threads = options.cpu_threads;
  // With `compile_only`, every kernel the launch would use is compiled and collected instead.
  auto over = [&](const CompiledKernel& k, std::int64_t work, const std::vector<Arg>& args, std::uint64_t cap = 0) {
    if (compile_only) compile_only->push_back(&k);
    else launch_over(k, c.grid, work, args, stream, cpu_threads, cap);
  };
  const std::int64_t log = p.log ? 1 : 0;
  const std::int64_t wide = needs_wide_offsets(c, p) ? 1 : 0;
  const CompileOptions compile = compile_options(c, backend);
  switch (c.strategy) {
    case SoftmaxStrategy::rows_2d: {
      std::vector<Arg> args{p.out,   p.in, p.in_stride, p.out_stride, p.rows, p.cols, c.rows_per_program,
                            c.block, log,  wide,        c.num_stages};
      over(softmax_rows_2d_op().compile(args, compile), cdiv(p.rows, c.rows_per_program), args);
      return;
    }
    case SoftmaxStrategy::row_in_registers: {
      std::vector<Arg> args{p.out, p.in, p.in_stride, p.out_stride, p.rows, p.cols, c.block, log, wide, c.num_stages};
      over(softmax_row_op().compile(args, compile), p.rows, args);
      return;
    }
    case SoftmaxStrategy::online: {
      std::vector<Arg> args{p.out,  p.in,    p.in_stride, p.out_stride, p.rows,
                            p.cols, c.block, log,         wide,         stat_cols(c, backend, p.in.dtype)};
      // The second pass re-reads each row; it comes from L2 only while the rows in flight fit
      // there. Hypothesis (unmeasured): cap the programs so they use about half of L2, but keep
      // at least one per SM.
      std::uint64_t cap = 0;
      if (backend == Backend::cuda && !compile_only) {
        const auto& dev = device_properties();
        auto row_bytes = static_cast<std::uint64_t>(p.cols) * dtype_size(p.in.dtype);
        cap = std::max<std::uint64_t>(static_cast<std::uint64_t>(dev.sm_count),
                                      static_cast<std::uint64_t>(dev.l2_bytes) / 2 / row_bytes);
      }
      over(softmax_online_op().compile(args, compile), p.rows, args, cap);
      return;
    }
    case SoftmaxStrategy::cluster: {
      if (!walks_slices(c, p.cols)) {  // each program's slice in registers
        std::vector<Arg> args{p.out,   p.in,     p.in_stride, p.out_stride, p.rows,       p.cols,
                              c.block, c.splits, log,         wide,         c.num_stages, one_exchange(c)};
        over(softmax_cluster_op().compile(args, compile), p.rows, args);
        return;
      }
      // Slices of whole steps, walked twice.
      const std::vector<Arg> args = walked_slice_args({p.out, p.in}, c, p, backend, options.kept_bytes, log, wide);
      over(softmax_cluster_online_op().compile(args, compile), p.rows, args,
           compile_only ? 0 : walked_grid_cap(c, backend));
      return;
    }
    case SoftmaxStrategy::split_row: launch_split_rows(c, p, backend, stream, cpu_threads, compile_only); return;
    case SoftmaxStrategy::group: launch_groups(c, p, backend, stream, options, compile_only); return;
    case SoftmaxStrategy::automatic: break;
  }
  throw InternalError("softmax: launch_config without a strategy");
}

}  // namespace tilejit::ops::detail
