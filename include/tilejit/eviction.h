// Cache eviction hints for loads and stores (Triton's eviction_policy). A hint changes where
// data stays in the GPU's L2, never a result; the CPU backend ignores it.
#pragma once

namespace tilejit {

enum class Eviction {
  normal,
  first,  ///< likely not reused: evict these lines first (streaming outputs, a row's last read)
  last,   ///< read again soon: keep these lines over others (a row's first of two reads)
};

}  // namespace tilejit
