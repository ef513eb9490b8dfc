// The lazy driver loader: present or not, it answers consistently and explains itself.
#include <doctest/doctest.h>

#include <string>

#include "runtime/driver.h"
#include "tilejit/device.h"
#include "tilejit/error.h"

using namespace tilejit;

TEST_CASE("driver_available, has_gpu and driver() agree") {
  std::string reason = "stale";
  const bool available = rt::driver_available(&reason);
  std::string public_reason = "stale";
  CHECK(has_gpu(&public_reason) == available);
  CHECK(has_gpu() == available);  // reason is optional
  if (available) {
    CHECK(reason.empty());
    CHECK(public_reason.empty());
    const rt::Driver& d = rt::driver();
    CHECK(static_cast<bool>(d.cuLaunchKernel));
    CHECK(d.version >= 12000);
  } else {
    MESSAGE("no GPU here: " << reason);
    CHECK_FALSE(reason.empty());
    CHECK(public_reason == reason);
    CHECK_THROWS_AS(rt::driver(), CudaError);
    try {
      rt::driver();
    } catch (const CudaError& e) {
      CHECK(std::string(e.what()).find(reason) != std::string::npos);
    }
  }
}

TEST_CASE("device work without a GPU fails with the reason") {
  std::string reason;
  if (has_gpu(&reason)) return;  // covered by the GPU suite
  try {
    Buffer b(DType::f32, 16, Memory::device);
    FAIL("device allocation without a GPU must throw");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
  CHECK_THROWS_AS(device_properties(), CudaError);
  // No CUDA work can be pending without a GPU: the CPU backend's launches are synchronous.
  CHECK_NOTHROW(synchronize());
  // Zero-element device buffers allocate nothing, so they work anywhere.
  Buffer empty(DType::f32, 0, Memory::device);
  CHECK(empty.address() == 0);
}

TEST_CASE("check() passes success through") { CHECK_NOTHROW(rt::check(CUDA_SUCCESS, "cuNothing")); }

TEST_CASE("a kernel's fault says the context is lost and how to find the access") {
  try {
    rt::check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuStreamSynchronize");
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK(e.code() == 700);
    CHECK(std::string(e.what()).find("the CUDA context is now unusable") != std::string::npos);
    CHECK(std::string(e.what()).find("TILEJIT_BACKEND=cpu") != std::string::npos);
  }
  CHECK(rt::fault_consequences(CUDA_ERROR_LAUNCH_FAILED).find("compute-sanitizer") != std::string::npos);
  CHECK(rt::fault_consequences(CUDA_ERROR_OUT_OF_MEMORY).empty());
}
