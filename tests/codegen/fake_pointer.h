// Pointers for compiling kernels without a GPU: nothing is launched, so any address does. Each
// index gets its own 64 KiB-aligned address, so every specialization sees 16-byte alignment.
#pragma once

#include <cstdint>

#include "tilejit/kernel.h"

namespace tilejit_test {

inline tilejit::Pointer fake(tilejit::DType t, int i) {
  return tilejit::Pointer{0x10000u * static_cast<std::uint64_t>(i + 1), t};
}

}  // namespace tilejit_test
