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

const SoftmaxPersistent& softmax_persistent() {
  static const SoftmaxPersistent k(
      "softmax_persistent", softmax_persistent_kernel,
      {"out", "in", "in_stride", "out_stride", "n_rows", "n_cols", "BLOCK_SIZE", "num_stages"});
  return k;
}

SeedConfig seed_config(std::int64_t cols, std::size_t elem_bytes) {
  SeedConfig c;
  while (c.block < cols) c.block <<= 1;
  // Measured on the H200 (bench/results/seed_sweep.md and gpu_softmax.md, M = 4096): up to 4096
  // columns 4 warps with the next row's loads in flight win. From 8192 columns 16 warps; f32
  // rows then go one per program, where the hardware's block scheduler balances them better
  // than a fixed grid-stride assignment (16384: 0.96 of copy against 0.92), while 16-bit rows
  // keep the pipelined persistent loop (8192: 0.94 against 0.81 one per program).
  if (c.block >= 8192) {
    c.num_warps = 16;
    c.one_row_per_program = elem_bytes >= 4;
    c.num_stages = c.one_row_per_program ? 1 : 2;
  } else {
    c.num_warps = detail::warps_for(c.block, 4);
  }
  return c;
}

void softmax_seed(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
                  std::int64_t out_row_stride, StreamHandle stream, Backend backend) {
  if (rows < 0 || cols < 0) throw Error(fmt::format("softmax_seed: negative size {} x {}", rows, cols));
  if (rows == 0 || cols == 0) return;
  if (cols > 16384)
    throw Error(fmt::format("softmax_seed: {} columns do not fit the seed kernel's registers (at most 16384)", cols));
  if (!out.address || !in.address) throw Error("softmax_seed: null pointer");
  for (DType t : {out.dtype, in.dtype})
    if (t != DType::f32 && t != DType::f16 && t != DType::bf16)
      throw Error(fmt::format("softmax_seed: unsupported element type {} (f32, f16 or bf16)", dtype_name(t)));
  SeedConfig c = seed_config(cols, dtype_size(in.dtype));
  std::vector<Arg> args{out, in, in_row_stride, out_row_stride, rows, cols, c.block, c.num_stages};
  CompileOptions options;
  options.num_warps = c.num_warps;
  options.backend = backend;
  const CompiledKernel& k = softmax_persistent().compile(args, options);
  const bool per_row = k.metadata().backend == Backend::cpu || (c.one_row_per_program && rows <= 0x7fffffff);
  Grid grid(per_row ? static_cast<std::uint64_t>(rows) : persistent_grid(k, static_cast<std::uint64_t>(rows)));
  k.launch(grid, args, stream);
}

}  // namespace tilejit::ops
