// The shapes the stash round trips (stash_round_trip_kernel.h) run at, shared by the suites that run
// them and the PTX generator's tests that build them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilejit/dtype.h"

namespace tilejit_test {

// Slots, block rows and columns, the stash's type and warps.
struct StashCase {
  std::int64_t slots, rows, cols;
  tilejit::DType dtype;
  int num_warps;
};

// "4 slots of 1 x 1024 f32, 4 warps", for a test's messages.
inline std::string describe(const StashCase& c) {
  return std::to_string(c.slots) + " slots of " + std::to_string(c.rows) + " x " + std::to_string(c.cols) + " " +
         std::string(tilejit::dtype_name(c.dtype)) + ", " + std::to_string(c.num_warps) + " warps";
}

// Puts and reads: f32, bf16 and i32 stashes of f32 loads; 1-D and 2-D blocks. The last case keeps
// 192 KiB a program: more than the 48 KiB a GPU block gets without opting in.
inline const std::vector<StashCase>& stash_round_trip_cases() {
  using tilejit::DType;
  static const std::vector<StashCase> cases = {{4, 1, 1024, DType::f32, 4},
                                               {3, 1, 512, DType::bf16, 4},
                                               {2, 8, 64, DType::i32, 2},
                                               {2, 4, 256, DType::bf16, 4},
                                               {12, 1, 4096, DType::f32, 8}};
  return cases;
}

// Asynchronous copies (the stash has the input's type): f32 (16-byte copies) and bf16 (8 elements a
// thread: 16 bytes; 2-D: 4 a thread, 8 bytes).
inline const std::vector<StashCase>& stash_copy_round_trip_cases() {
  using tilejit::DType;
  static const std::vector<StashCase> cases = {{4, 1, 1024, DType::f32, 4},
                                               {3, 1, 2048, DType::bf16, 8},
                                               {2, 8, 64, DType::f32, 2},
                                               {3, 4, 256, DType::bf16, 8},
                                               {12, 1, 4096, DType::f32, 8}};
  return cases;
}

}  // namespace tilejit_test
