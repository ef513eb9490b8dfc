#include "tilejit/ops/softmax_seed.h"

#include <fmt/format.h>

#include "softmax_internal.h"
#include "tilejit/error.h"

namespace tilejit::ops {

const SoftmaxSimple& softmax_simple() {
  static const SoftmaxSimple k("softmax_simple", softmax_simple_kernel,
                               {"out", "in", "in_stride", "out_stride", "n_cols", "BLOCK_SIZE"});
  return k;
}

const SoftmaxHeld& softmax_held() {
  static const SoftmaxHeld k("softmax_held", softmax_held_kernel,
                             {"out", "in", "in_stride", "out_stride", "n_cols", "BLOCK_SIZE"});
  return k;
}

const SoftmaxPersistent& softmax_persistent() {
  static const SoftmaxPersistent k(
      "softmax_persistent", softmax_persistent_kernel,
      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK_SIZE", "num_stages"});
  return k;
}

SeedConfig seed_config(std::int64_t cols, std::size_t elem_bytes) {
  SeedConfig c;
  while (c.block < cols) c.block <<= 1;
  // Measured on the H200 (bench/results/seed_sweep.md, M = 4096 and 65536 x 128): from 2048
  // columns one row per program (the simple kernel) beats every persistent grid (4096: 0.97 / 1.00
  // of copy against 0.95 / 0.97; 16384 f32: 0.97 against 0.92), the hardware's block scheduler
  // overlapping one row's reductions with the next one's loads; below that the persistent loop with
  // the next row's loads in flight wins (1024 f32: 1.05 against 1.01).
  // Warps: 4 up to 4096 columns, 16 from 8192, but
  //  - 8 for 16-bit rows of 8192 (0.96 against 0.89: 32 elements a thread is one 64-byte load each)
  //    and of 16384 (do_bench, 4096 rows: 0.95-0.96 of copy against 0.92-0.93 with 16;
  //    bench/results/seed_configs_76b0877.md and _9e6df0d.md);
  //  - 1 at 256 columns and fewer: a warp's shuffles reduce the row with no barrier (see below).
  if (c.block >= 8192) c.num_warps = elem_bytes == 2 && c.block <= 16384 ? 8 : 16;
  else if (c.block <= 256) c.num_warps = 1;
  else c.num_warps = detail::warps_for(c.block, 4);
  c.one_row_per_program = c.block >= 2048;
  // 16-bit rows of 16384 over 8 warps: ptxas fits three blocks an SM in 80 registers, where it
  // takes 107 unbounded (two). The op's row kernel of the same shape: 0.96 of copy against 0.94
  // (bench/results/probes_cdcee83.md).
  if (elem_bytes == 2 && c.block == 16384) c.min_blocks_per_sm = 3;
  // Rows of 256 columns or fewer keep three rows' loads in flight, f32 rows of 128 seven (do_bench,
  // 65536 x 128, 5 rounds in one process: 0.98 of copy against 0.94 with three;
  // bench/results/seed_configs_727a629.md).
  const bool seven_ahead = c.block == 128 && elem_bytes == 4;
  c.num_stages = c.one_row_per_program ? 1 : seven_ahead ? 8 : c.block <= 256 ? 4 : 2;
  // One-warp programs alone fill half an SM (it holds at most 32 blocks), so several share a block
  // (CompileOptions::programs_per_block): four, but two for f32 rows of 256 and 16-bit rows of 128
  // (do_bench, 3 processes, bench/results/seed_packed_processes_2026-12-04.md, against the
  // launches before, and torch):
  //  - 128 columns: f32 0.97 of copy against 0.94 (torch 0.94); 16-bit 0.96 against 0.90 (its 32
  //    registers at three rows in flight let 64 warps an SM run; CUDA events agree:
  //    packed_programs_2026-12-04.md);
  //  - 32 columns: f32 0.91 against 0.72 (torch 0.81), bf16 0.69 against 0.55 (torch 0.60);
  //  - 256 columns (4096 rows, 7 us: the spread between processes is 0.05-0.1 there), against 2
  //    warps (f32) and 4 (16-bit) a program alone: f32 0.95 against 0.92, bf16 1.08 against 0.94.
  if (c.block <= 256) {
    const bool two = (c.block == 256 && elem_bytes == 4) || (c.block == 128 && elem_bytes == 2);
    c.programs_per_block = two ? 2 : 4;
  }
  return c;
}

void softmax_seed(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
                  std::int64_t out_row_stride, StreamHandle stream, Backend backend) {
  detail::reject_negative_size("softmax_seed", rows, cols);
  if (rows == 0 || cols == 0) return;
  if (cols > 16384)
    throw Error(fmt::format("softmax_seed: {} columns do not fit the seed kernel's registers (at most 16384)", cols));
  if (!out.address || !in.address) throw Error("softmax_seed: null pointer");
  for (DType t : {out.dtype, in.dtype})
    if (t != DType::f32 && t != DType::f16 && t != DType::bf16)
      throw Error(fmt::format("softmax_seed: unsupported element type {} (f32, f16 or bf16)", dtype_name(t)));
  if (in_row_stride < 0 || out_row_stride < 0)
    throw Error(fmt::format("softmax_seed: negative row stride ({} in, {} out)", in_row_stride, out_row_stride));
  out = detail::with_problem_extent("softmax_seed", "output", out, rows, cols, out_row_stride);
  in = detail::with_problem_extent("softmax_seed", "input", in, rows, cols, in_row_stride);
  SeedConfig c = seed_config(cols, dtype_size(in.dtype));
  std::vector<Arg> args{out, in, in_row_stride, out_row_stride, rows, cols, c.block, c.num_stages};
  CompileOptions options;
  options.num_warps = c.num_warps;
  options.min_blocks_per_sm = c.min_blocks_per_sm;
  options.programs_per_block = c.programs_per_block;
  options.backend = backend;
  if (c.one_row_per_program && rows <= 0x7fffffff) {  // a grid's x extent
    std::vector<Arg> row_args{out, in, in_row_stride, out_row_stride, cols, c.block};
    softmax_simple().compile(row_args, options).launch(Grid(static_cast<std::uint64_t>(rows)), row_args, stream);
    return;
  }
  const CompiledKernel& k = softmax_persistent().compile(args, options);
  const bool per_row = k.metadata().backend == Backend::cpu;
  Grid grid(per_row ? static_cast<std::uint64_t>(rows) : persistent_grid(k, static_cast<std::uint64_t>(rows)));
  k.launch(grid, args, stream);
}

}  // namespace tilejit::ops
