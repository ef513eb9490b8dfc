// The seed's softmax kernels, written in tilejit's DSL (compare with the Triton tutorial),
// and a launcher for the persistent one. Rows are held whole in registers, so
// cols <= 16384; loads are computed in f32 whatever the input type. exp is tl::exp_fast (a
// multiply and ex2.approx, as Triton's tl.exp): with expf's longer sequence, 16-bit rows of
// 8192 and more columns were bound by instructions, not memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tilejit/kernel.h"
#include "tilejit/tl.h"

namespace tilejit::ops {

namespace tl = tilejit::tl;

/// One program per row; the whole row (padded to BLOCK_SIZE) is held in registers.
inline void softmax_simple_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_cols,
                                  tl::Constexpr BLOCK_SIZE) {
  auto row_idx = tl::program_id(0);
  auto col_offsets = tl::arange(0, BLOCK_SIZE);
  auto mask = col_offsets < n_cols;
  auto row = tl::load(in + row_idx * in_stride + col_offsets, mask, -tl::inf).to(DType::f32);
  auto row_minus_max = row - tl::max(row, 0);
  auto numerator = tl::exp_fast(row_minus_max);
  auto denominator = tl::sum(numerator, 0);
  tl::store(out + row_idx * out_stride + col_offsets, numerator / denominator, mask);
}

/// Persistent grid-stride version: a fixed number of programs walks over the rows.
inline void softmax_persistent_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_rows,
                                      tl::Int n_cols, tl::Constexpr BLOCK_SIZE, tl::Constexpr num_stages) {
  auto row_start = tl::program_id(0);
  auto row_step = tl::num_programs(0);
  tl::for_range(row_start, n_rows, row_step, {.num_stages = num_stages}, [&](tl::Int row_idx) {
    auto col_offsets = tl::arange(0, BLOCK_SIZE);
    auto mask = col_offsets < n_cols;
    auto row = tl::load(in + row_idx * in_stride + col_offsets, mask, -tl::inf).to(DType::f32);
    auto row_minus_max = row - tl::max(row, 0);
    auto numerator = tl::exp_fast(row_minus_max);
    auto denominator = tl::sum(numerator, 0);
    tl::store(out + row_idx * out_stride + col_offsets, numerator / denominator, mask);
  });
}

/// The simple kernel with its row kept in shared memory: copied there by cp.async (a one-slot
/// tl::stash) and read back by each phase (the max, the sum, the stores) instead of held in
/// registers. The PTX generator computes a phase a 16-byte piece at a time from the stash, so a
/// program holds registers only for the piece in hand and more rows fit an SM: bf16 rows of 16384
/// over 8 warps take 40 registers and 32 KiB of shared memory (six programs an SM), against 80
/// registers (three) for the simple kernel. The price: each element read from shared memory three
/// times, its exponential taken twice. BLOCK_SIZE elements must fit a stash (tl::kMaxStashBytes).
inline void softmax_held_kernel(tl::Ptr out, tl::Ptr in, tl::Int in_stride, tl::Int out_stride, tl::Int n_cols,
                                tl::Constexpr BLOCK_SIZE) {
  auto row_idx = tl::program_id(0);
  auto col_offsets = tl::arange(0, BLOCK_SIZE);
  auto mask = col_offsets < n_cols;
  auto kept = tl::stash({BLOCK_SIZE.value}, in.dtype(), 1);
  kept.copy_async(0, in + row_idx * in_stride + col_offsets, mask);
  tl::wait_copies(0);
  // The copy leaves zeros past the row's end: -inf there, as the simple kernel's load gives.
  auto row = tl::where(mask, kept.get(0), -tl::inf).to(DType::f32);
  auto row_minus_max = row - tl::max(row, 0);
  auto numerator = tl::exp_fast(row_minus_max);
  auto denominator = tl::sum(numerator, 0);
  tl::store(out + row_idx * out_stride + col_offsets, numerator / denominator, mask);
}

using SoftmaxSimple = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Constexpr>;
using SoftmaxHeld = SoftmaxSimple;
using SoftmaxPersistent = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>;

const SoftmaxSimple& softmax_simple();
const SoftmaxHeld& softmax_held();
const SoftmaxPersistent& softmax_persistent();

/// The launch choices for a row width: BLOCK_SIZE (next power of two), num_warps, num_stages
/// and the kernel: the persistent one on an occupancy-sized grid, or for wider rows the simple
/// one, one program per row.
struct SeedConfig {
  std::int64_t block = 1;
  int num_warps = 4;
  int num_stages = 2;
  int min_blocks_per_sm = 0;   ///< CompileOptions::min_blocks_per_sm
  int programs_per_block = 1;  ///< CompileOptions::programs_per_block
  bool one_row_per_program = false;
};
SeedConfig seed_config(std::int64_t cols, std::size_t elem_bytes = 4);

/// Row-wise softmax of `rows` x `cols` elements with the seed's kernels: the persistent one, its
/// grid sized from occupancy, or the simple one, one program per row, where seed_config says so. Element types come
/// from the pointers (f32, f16, bf16; may differ). rows or cols == 0 launches nothing. Throws tilejit::Error for cols >
/// 16384, negative sizes or strides, null pointers, or a pointer whose `bytes` (a Buffer's size) do not hold its rows.
void softmax_seed(Pointer out, Pointer in, std::int64_t rows, std::int64_t cols, std::int64_t in_row_stride,
                  std::int64_t out_row_stride, StreamHandle stream = nullptr, Backend backend = Backend::automatic);

}  // namespace tilejit::ops
