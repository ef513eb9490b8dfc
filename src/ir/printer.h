// Text form of the IR, e.g. `%3 = add %1, %2 : f32[128]`. Golden tests compare this text,
// so values are renumbered in definition order and the format changes only on purpose.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace tilejit::ir {

struct PrintOptions {
  bool locations = false;  // append `// file:line` (file base name) to each op
};

std::string print(const Function& f, PrintOptions options = {});

/// The number each value gets in the printed text (%N), so other stages can use the same
/// names.
std::unordered_map<ValueId, int> value_numbers(const Function& f);

}  // namespace tilejit::ir
