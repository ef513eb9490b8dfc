// Built twice (see CMakeLists.txt): HAND_SOFTMAX_NAME names this copy.
#include "hand_softmax.h"

#include <cmath>

namespace tilejit::bench {

void HAND_SOFTMAX_NAME(float* out, const float* in, std::int64_t cols, std::int64_t row_begin, std::int64_t row_end) {
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const float* x = in + r * cols;
    float* y = out + r * cols;
    float m = -INFINITY;
    for (std::int64_t c = 0; c < cols; ++c) m = x[c] > m ? x[c] : m;
    float s = 0;
    for (std::int64_t c = 0; c < cols; ++c) {
      y[c] = std::exp(x[c] - m);
      s += y[c];
    }
    for (std::int64_t c = 0; c < cols; ++c) y[c] /= s;
  }
}

}  // namespace tilejit::bench
