// Why a kernel was compiled: the key components that differ from the nearest entry already
// cached (in memory, or on disk for another process's compiles).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jit/specialization.h"

namespace tilejit::jit {

/// "name=value" lines (values never hold newlines), as stored in disk entries.
std::string encode_components(const KeyComponents& parts);
KeyComponents decode_components(std::string_view text);

/// One phrase per differing component, e.g. "num_warps differs (8, cached: 4)"; components
/// only one side has are reported as such.
std::vector<std::string> component_differences(const KeyComponents& now, const KeyComponents& cached);

/// "first compile of scale" when nothing is cached, else "compiled scale because num_warps
/// differs (8, cached: 4)" against the candidate with the fewest differences.
std::string explain_miss(const std::string& kernel, const KeyComponents& now,
                         const std::vector<KeyComponents>& candidates);

}  // namespace tilejit::jit
