#include "jit/build_choice.h"

#include <algorithm>

namespace tilejit::jit {

namespace {

int max_threads_per_sm(std::string_view arch) {
  for (std::string_view smaller : {"sm_86", "sm_87", "sm_89", "sm_120"})
    if (arch.starts_with(smaller)) return 1536;
  return 2048;
}

int thread_limited_blocks(int threads, std::string_view arch) {
  return std::min(32, max_threads_per_sm(arch) / std::max(threads, 1));
}

int block_threads(const KernelMetadata& m) { return 32 * m.num_warps * m.programs_per_block; }

}  // namespace

int resident_blocks_per_sm(int registers, int threads, std::string_view arch) {
  constexpr int registers_per_sm = 65536, allocation_unit = 256;
  const int per_warp = (std::max(registers, 1) * 32 + allocation_unit - 1) / allocation_unit * allocation_unit;
  const int warps = (std::max(threads, 1) + 31) / 32;
  return std::min(thread_limited_blocks(threads, arch), registers_per_sm / per_warp / warps);
}

int resident_blocks_per_sm(const KernelMetadata& m) {
  return resident_blocks_per_sm(m.registers, block_threads(m), m.arch);
}

bool register_limited(const KernelMetadata& m) {
  const int threads = block_threads(m);
  return resident_blocks_per_sm(m.registers, threads, m.arch) < thread_limited_blocks(threads, m.arch);
}

bool outranks(const KernelMetadata& a, const KernelMetadata& b) {
  if (a.spill_store_bytes != b.spill_store_bytes) return a.spill_store_bytes < b.spill_store_bytes;
  return resident_blocks_per_sm(a) > resident_blocks_per_sm(b);
}

}  // namespace tilejit::jit
