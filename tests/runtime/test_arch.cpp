// target_arch(): TILEJIT_ARCH, else the device, else sm_90.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "runtime/device.h"
#include "tilejit/device.h"
#include "tilejit/error.h"

using namespace tilejit;

namespace {

// Restores TILEJIT_ARCH however the test ends.
struct ArchEnv {
  std::string saved;
  bool had;
  ArchEnv() {
    const char* v = std::getenv("TILEJIT_ARCH");
    had = v != nullptr;
    if (had) saved = v;
  }
  ~ArchEnv() {
    if (had) setenv("TILEJIT_ARCH", saved.c_str(), 1);
    else unsetenv("TILEJIT_ARCH");
  }
};

}  // namespace

TEST_CASE("target_arch honours TILEJIT_ARCH") {
  ArchEnv guard;
  for (const char* arch : {"sm_80", "sm_90a", "sm_100", "sm_100f"}) {
    setenv("TILEJIT_ARCH", arch, 1);
    CHECK(rt::target_arch() == arch);
  }
  for (const char* bad : {"hopper", "sm90", "sm_9", "compute_90", "sm_90 ", "sm_90b", "sm_1000"}) {
    CAPTURE(bad);
    setenv("TILEJIT_ARCH", bad, 1);
    CHECK_THROWS_AS(rt::target_arch(), Error);
  }
  setenv("TILEJIT_ARCH", "garbage", 1);
  try {
    rt::target_arch();
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("TILEJIT_ARCH='garbage'") != std::string::npos);
  }
}

TEST_CASE("target_arch without TILEJIT_ARCH follows the device or defaults to sm_90") {
  ArchEnv guard;
  unsetenv("TILEJIT_ARCH");
  const std::string arch = rt::target_arch();
  CHECK(rt::is_sm_arch(arch));
  if (has_gpu()) {
    const DeviceProperties& p = device_properties();
    CHECK(arch == "sm_" + std::to_string(p.cc_major) + std::to_string(p.cc_minor));
  } else {
    CHECK(arch == "sm_90");
  }
  setenv("TILEJIT_ARCH", "", 1);  // empty counts as unset
  CHECK(rt::target_arch() == arch);
}

TEST_CASE("sm_arch_number reads the number of an sm architecture, 0 for anything else") {
  CHECK(rt::sm_arch_number("sm_90") == 90);
  CHECK(rt::sm_arch_number("sm_90a") == 90);
  CHECK(rt::sm_arch_number("sm_100f") == 100);
  CHECK(rt::sm_arch_number("sm_80") == 80);
  CHECK(rt::sm_arch_number("compute_90") == 0);
  CHECK(rt::sm_arch_number("sm_9") == 0);
  CHECK(rt::sm_arch_number("x86_64-pc-linux-gnu") == 0);
}
