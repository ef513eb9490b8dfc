#include "ir/verifier.h"
#include "passes/passes.h"

namespace tilejit::passes {

void canonicalize(ir::Function& f, bool verify_each) {
  for (int round = 0; round < 8; ++round) {
    bool changed = remove_invariant_carried_values(f);
    if (verify_each) ir::verify(f);
    changed |= eliminate_common_subexpressions(f);
    if (verify_each) ir::verify(f);
    changed |= eliminate_dead_code(f);
    if (verify_each) ir::verify(f);
    if (!changed) break;
  }
}

}  // namespace tilejit::passes
