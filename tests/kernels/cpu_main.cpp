// doctest main for the CPU run of the kernel tests: every kernel on the CPU backend. Without
// LLVM (TILEJIT_WITH_LLVM=OFF) there is no CPU backend: says so and exits with 77 (skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "kernel_test.h"

tilejit::Backend tilejit::testing::backend() { return Backend::cpu; }

int main(int argc, char** argv) {
  std::string why;
  if (!tilejit::has_cpu_backend(&why)) {
    std::printf("SKIPPED: %s\n", why.c_str());
    std::fflush(stdout);
    return 77;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
