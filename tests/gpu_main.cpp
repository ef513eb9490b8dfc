// doctest main for GPU suites: without a device, says why and exits with 77, which ctest
// (SKIP_RETURN_CODE 77) reports as skipped rather than passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "tilejit/device.h"

int main(int argc, char** argv) {
  std::string why;
  if (!tilejit::has_gpu(&why)) {
    std::printf("SKIPPED: no CUDA device: %s\n", why.c_str());
    std::fflush(stdout);
    return 77;
  }
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
