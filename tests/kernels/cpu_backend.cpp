// Kernel tests that build on kernel_test.h in a suite that always runs on the CPU.
#include "kernel_test.h"

tilejit::Backend tilejit::testing::backend() { return tilejit::Backend::cpu; }
