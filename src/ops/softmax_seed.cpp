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

SeedConfig seed_config(std::int64_t cols) {
  SeedConfig c;
  while (c.block < cols) c.block <<= 1;
  // The seed's choice, with fewer warps for narrow rows.
  c.num_warps = detail::warps_for(c.block, c.block >= 4096 ? 16 : c.block >= 2048 ? 8 : 4);
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
  SeedConfig c = seed_config(cols);
  std::vector<Arg> args{out, in, in_row_stride, out_row_stride, rows, cols, c.block, c.num_stages};
  CompileOptions options;
  options.num_warps = c.num_warps;
  options.backend = backend;
  const CompiledKernel& k = softmax_persistent().compile(args, options);
  Grid grid(k.metadata().backend == Backend::cpu ? static_cast<std::uint64_t>(rows)
                                                 : persistent_grid(k, static_cast<std::uint64_t>(rows)));
  k.launch(grid, args, stream);
}

}  // namespace tilejit::ops
