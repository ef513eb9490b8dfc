#include "codegen/cuda/stash_layout.h"

namespace tilejit::codegen::cuda {

int stash_vector_width(const ir::Stash& s, const Layout& l) {
  const int fast = l.rank() - 1;
  const auto elem = static_cast<int>(dtype_size(s.block.elem));
  int width = 1;
  for (std::size_t i = 0; i < l.reg.size() && width * elem < 16; ++i) {
    Coord want{0, 0};
    want[static_cast<std::size_t>(fast)] = std::int64_t{1} << i;
    if (l.reg[i] != want) break;
    width <<= 1;
  }
  return elem == 1 && width < 4 ? 1 : width;
}

std::int64_t stash_offset(const ir::Function& f, std::size_t id) {
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < id; ++i) offset += (f.stashes[i].bytes() + 15) / 16 * 16;
  return offset;
}

}  // namespace tilejit::codegen::cuda
