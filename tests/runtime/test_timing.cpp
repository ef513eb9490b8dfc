// time_gpu's arguments: counts it cannot honour are refused, named, before any device work, so
// the check holds with or without a GPU (the runs themselves are test_runtime_gpu's); and its L2
// flush kernel assembles.
#include <doctest/doctest.h>

#include <string>

#include "runtime/l2_flush.h"
#include "runtime/ptx_assembler.h"
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

TEST_CASE("the L2 flush kernel assembles for sm_80 and sm_90, its loads kept") {
  for (const char* arch : {"sm_80", "sm_90"}) {
    CAPTURE(arch);
    const rt::AssemblerOutput out = rt::assemble_ptx(rt::l2_flush_ptx(), "l2_flush.ptx", arch);
    CHECK_FALSE(out.cubin.empty());
    CHECK(out.ptxas.spill_store_bytes == 0);
  }
  // What the flush relies on, in the PTX the driver gets: reads with the evict_last policy, lines
  // dropped whole.
  const std::string& ptx = rt::l2_flush_ptx();
  CHECK(ptx.find("createpolicy.fractional.L2::evict_last.b64") != std::string::npos);
  CHECK(ptx.find("ld.global.L2::cache_hint.v4.u32") != std::string::npos);
  CHECK(ptx.find("discard.global.L2 [%rd8], 128;") != std::string::npos);
}
