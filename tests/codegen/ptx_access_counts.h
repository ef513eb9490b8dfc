// Counting in generated code. Global loads and stores in PTX text, counted as vector (.v2/.v4) or
// scalar accesses: how the codegen tests check that specialization reached the memory
// instructions; and the occurrences of any text.
#pragma once

#include <cstddef>
#include <regex>
#include <string>

namespace tilejit_test {

/// How many times `what` starts in `text` (occurrences may overlap).
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

struct AccessCounts {
  int vector_loads = 0, scalar_loads = 0, vector_stores = 0, scalar_stores = 0;
};

inline AccessCounts count_accesses(const std::string& ptx) {
  AccessCounts c;
  static const std::regex load(R"(ld\.global(\.v[24])?\.(b|f|u|s)\d+)"), store(R"(st\.global(\.v[24])?\.(b|f|u|s)\d+)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), load); it != std::sregex_iterator(); ++it)
    ((*it)[1].matched ? c.vector_loads : c.scalar_loads)++;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), store); it != std::sregex_iterator(); ++it)
    ((*it)[1].matched ? c.vector_stores : c.scalar_stores)++;
  return c;
}

}  // namespace tilejit_test
