// IR-to-IR passes run between tracing and code generation.
#pragma once

#include "ir/ir.h"

namespace tilejit::passes {

/// Drops loop-carried values that never change inside their loop (tracing carries every
/// outer value the body touches; most are only read).
bool remove_invariant_carried_values(ir::Function& f);

/// Removes ops whose results are unused and that have no side effects.
bool eliminate_dead_code(ir::Function& f);

/// Merges pure ops that compute the same value (same kind, operands, attributes, type).
bool eliminate_common_subexpressions(ir::Function& f);

/// Software pipelining (CUDA): in loops with num_stages >= 2 (the loop's own hint, else
/// `default_stages`), keeps the loads of the next num_stages - 1 iterations in flight through
/// loop-carried values. Loads whose block would need more than 32 elements per thread (at
/// `num_warps`), where two copies in registers would spill, are staged one iteration ahead
/// through shared memory instead (a one-slot stash filled by cp.async) while the kernel's stashes
/// stay within `stash_budget` bytes (0: never), else left alone. Beyond one iteration ahead, the
/// register depth stops where the copies in flight would pass 64 elements per thread.
bool pipeline_loop_loads(ir::Function& f, int num_warps, int default_stages, std::int64_t stash_budget);

/// The standard pipeline: the passes above to a fixed point. Verifies after each pass when
/// `verify_each` is set (debug builds and TILEJIT_DEBUG=1).
void canonicalize(ir::Function& f, bool verify_each);

}  // namespace tilejit::passes
