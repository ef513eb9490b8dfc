// Which of two builds of one specialization to run (GpuCodegen::tiered has NVRTC's and the PTX
// generator's): the one that spills less, then the one more of whose blocks an SM holds at once.
// Both are the same kernel at the same block size and shared memory, so their registers are what
// can differ: one register over an allocation step can cost a resident block, which for the
// memory-bound kernels here costs bandwidth (the bf16 split rows' normalization at 16 x 4M: NVRTC
// 48 registers, 5 blocks of 256 threads an SM; the PTX generator 40, 6).
#pragma once

#include <string_view>

#include "tilejit/kernel.h"

namespace tilejit::jit {

/// Blocks of `threads` threads using `registers` each that one SM of `arch` ("sm_90") holds when
/// registers and threads are the only limits: 64K registers an SM, allocated per warp in units of
/// 256; 2048 threads an SM (1536 on sm_86, sm_87, sm_89 and sm_120); at most 32 blocks.
int resident_blocks_per_sm(int registers, int threads, std::string_view arch);

/// The same for a build, from its registers, block size (warps times programs a block) and arch.
int resident_blocks_per_sm(const KernelMetadata& m);

/// Whether registers, not threads, bound the blocks an SM holds of this build.
bool register_limited(const KernelMetadata& m);

/// Whether build `a` should run instead of build `b` of the same specialization: fewer spilled
/// bytes, or as many and more resident blocks per SM. Ties go to `b`.
bool outranks(const KernelMetadata& a, const KernelMetadata& b);

}  // namespace tilejit::jit
