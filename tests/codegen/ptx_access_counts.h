// Global loads and stores in PTX text, counted as vector (.v2/.v4) or scalar accesses: how the
// codegen tests check that specialization reached the memory instructions.
#pragma once

#include <regex>
#include <string>

namespace tilejit_test {

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
