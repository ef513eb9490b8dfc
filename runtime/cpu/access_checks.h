// Bounds checks of CPU launches (internal). A launch tells its kernel the memory behind each
// pointer argument; every load and store of the kernel tests its addresses against it, skips
// the elements outside, and reports them here by access site (src/codegen/llvm/bounds.cpp).
// The launch then fails, naming the first. Generated code reads `extents` (the first member)
// and calls tilejit_cpu_access_fault by name; the JIT defines it (cpu_jit.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

namespace tilejit::rt::cpu {

struct AccessChecks {
  /// [begin, end) addresses per kernel parameter in launch-packing order, two words each;
  /// everything (0, 2^64 - 1) where the memory is not known.
  const std::uint64_t* extents = nullptr;

  /// Elements skipped because they were out of bounds.
  std::atomic<std::uint64_t> faults{0};
  struct Fault {
    std::int32_t site = -1;  ///< MemoryAccessSite index
    std::uint64_t address = 0;
    std::int32_t program[3] = {0, 0, 0};
  };
  /// The fault of the lowest program id (the first it reported); valid when faults > 0.
  Fault first;
  std::mutex first_lock;
};

inline constexpr std::uint64_t kUnknownExtentEnd = std::numeric_limits<std::uint64_t>::max();

/// The fault helper's name and address, for the JIT to define.
inline constexpr const char* kAccessFaultHelper = "tilejit_cpu_access_fault";
void* access_fault_helper();

}  // namespace tilejit::rt::cpu
