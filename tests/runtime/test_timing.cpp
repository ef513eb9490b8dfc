// time_gpu's arguments: counts it cannot honour are refused, named, before any device work, so
// the check holds with or without a GPU (the runs themselves are test_runtime_gpu's).
#include <doctest/doctest.h>

#include <string>

#include "tilejit/error.h"
#include "tilejit/timing.h"

using namespace tilejit;

TEST_CASE("time_gpu refuses negative or empty counts before touching the device") {
  int runs = 0;
  auto run = [&] { ++runs; };
  for (auto set : {+[](TimingOptions& o) { o.reps = 0; }, +[](TimingOptions& o) { o.warmup = -1; },
                   +[](TimingOptions& o) { o.trailing = -1; }}) {
    TimingOptions options;
    set(options);
    try {
      time_gpu(run, options);
      FAIL("time_gpu must refuse these options");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) == "time_gpu: reps must be >= 1, and warmup and trailing >= 0");
    }
  }
  CHECK(runs == 0);
}
