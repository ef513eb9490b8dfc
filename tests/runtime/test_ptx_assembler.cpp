// PTX -> cubin without a GPU: the toolkit's ptxas program when present (whole-program mode),
// else nvJitLink; errors carry the assembler's log, the PTX and the options.
#include <doctest/doctest.h>

#include <string>

#include "runtime/ptx_assembler.h"
#include "tilejit/error.h"

using namespace tilejit;

namespace {

// out[tid] = in[tid] * 2: a complete module, written by hand.
const char* kScalePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<3>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, %f1;
  add.s64 %rd5, %rd1, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}
)";

}  // namespace

TEST_CASE("assemble_ptx: a valid module gives a cubin and the register report") {
  auto out = rt::assemble_ptx(kScalePtx, "scale.ptx", "sm_90");
  CHECK(out.cubin.size() > 100);
  CHECK(out.ptxas.valid);
  CHECK(out.ptxas.registers > 0);
  CHECK(out.ptxas.spill_store_bytes == 0);
  CHECK(out.options == rt::ptx_assembler_options("sm_90"));
  if (rt::ptx_assembler_name() == "ptxas") {
    REQUIRE(!out.options.empty());
    CHECK(out.options[0].size() >= 5);
    CHECK(out.options[0].substr(out.options[0].size() - 5) == "ptxas");
  }
  CHECK(!rt::ptx_assembler_version().empty());
}

TEST_CASE("assemble_ptx: bad PTX is a CompileError with the assembler's log, the PTX and the options") {
  std::string bad = kScalePtx;
  bad.replace(bad.find("add.f32"), 7, "add.q99");
  try {
    rt::assemble_ptx(bad, "broken.ptx", "sm_90");
    FAIL("bad PTX was accepted");
  } catch (const CompileError& e) {
    CHECK(std::string(e.what()).find("broken.ptx") != std::string::npos);
    CHECK(std::string(e.what()).find("sm_90") != std::string::npos);
    CHECK(!e.log().empty());
    CHECK(e.source() == bad);
    CHECK(e.options().find("sm_90") != std::string::npos);
  }
}

TEST_CASE("assemble_ptx: a target that is not sm_XX is refused before assembling") {
  CHECK_THROWS_AS(rt::assemble_ptx(kScalePtx, "scale.ptx", "compute_90"), Error);
  CHECK_THROWS_AS(rt::assemble_ptx(kScalePtx, "scale.ptx", "sm9"), Error);
}
