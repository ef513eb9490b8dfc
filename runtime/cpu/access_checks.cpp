#include "runtime/cpu/access_checks.h"

#include <tuple>

namespace tilejit::rt::cpu {

// Called by a program whose load or store found an element outside its pointer's memory. The
// access itself is masked off in the program, which carries on.
// `count` elements of one access were outside, the first at `address`.
extern "C" void tilejit_cpu_access_fault(void* checks, std::int32_t site, std::uint64_t address, std::int32_t count,
                                         std::int32_t px, std::int32_t py, std::int32_t pz) {
  auto* c = static_cast<AccessChecks*>(checks);
  std::lock_guard lock(c->first_lock);
  // Keep the fault of the lowest program (z, then y, then x), and its first in program order:
  // the same message whichever thread ran which program first.
  const auto& f = c->first;
  const bool lower = std::tie(pz, py, px) < std::tie(f.program[2], f.program[1], f.program[0]);
  if (c->faults.fetch_add(static_cast<std::uint64_t>(count)) == 0 || lower) c->first = {site, address, {px, py, pz}};
}

void* access_fault_helper() { return reinterpret_cast<void*>(&tilejit_cpu_access_fault); }

}  // namespace tilejit::rt::cpu
