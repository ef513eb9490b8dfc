// The GPU run of the kernel tests (its main, tests/gpu_main.cpp, skips without a device).
#include "kernel_test.h"

tilejit::Backend tilejit::testing::backend() { return tilejit::Backend::cuda; }
