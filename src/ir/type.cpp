#include "ir/type.h"

#include <fmt/format.h>

namespace tilejit::ir {

std::int64_t Type::numel() const {
  std::int64_t n = 1;
  for (auto e : shape) n *= e;
  return n;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string shape_string(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ",")); }

std::string to_string(const Type& t) {
  std::string base = t.is_ptr ? fmt::format("ptr<{}>", dtype_name(t.elem)) : std::string(dtype_name(t.elem));
  if (t.shape.empty()) return base;
  return base + shape_string(t.shape);
}

}  // namespace tilejit::ir
