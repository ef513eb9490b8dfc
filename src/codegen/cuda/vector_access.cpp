#include "codegen/cuda/vector_access.h"

#include <algorithm>

namespace tilejit::codegen::cuda {

int vector_width(const ir::Function& f, const passes::AxisInfo& axes, ir::ValueId ptr, ir::ValueId mask,
                 const Layout& l) {
  const int fast = l.rank() - 1;
  const auto elem = static_cast<std::int64_t>(dtype_size(f.type(ptr).elem));
  // Leading register bits that step 1, 2, 4... along the fastest dimension.
  std::int64_t width = 1;
  for (std::size_t i = 0; i < l.reg.size(); ++i) {
    Coord want{0, 0};
    want[static_cast<std::size_t>(fast)] = std::int64_t{1} << i;
    if (l.reg[i] != want) break;
    width <<= 1;
  }
  const auto& p = axes.of(ptr);
  width = std::min<std::int64_t>({width, p.contiguity[fast], p.divisibility[fast] / elem, 16 / elem});
  if (mask != ir::kNoValue) width = std::min(width, axes.of(mask).constancy[fast]);
  int w = 1;
  while (w * 2 <= width) w *= 2;
  // One-byte elements travel in whole 32-bit words or one at a time.
  return elem == 1 && w < 4 ? 1 : w;
}

}  // namespace tilejit::codegen::cuda
