// The seed's softmax kernels live in the library (tilejit/ops/softmax_seed.h); the examples
// use them under these names.
#pragma once

#include "tilejit/ops/softmax_seed.h"

namespace tilejit::examples {

using ops::softmax_held;
using ops::softmax_held_kernel;
using ops::softmax_persistent;
using ops::softmax_persistent_kernel;
using ops::softmax_simple;
using ops::softmax_simple_kernel;

}  // namespace tilejit::examples
