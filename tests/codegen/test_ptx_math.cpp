// Math functions in the two CUDA generators, without a GPU: floor and ceil are one exact
// rounding instruction in the PTX generator; sin, cos, tanh and erf are CUDA's libdevice
// functions (2 ulp or better), so a kernel using them is built by NVRTC, which says why.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

using namespace tilejit;
namespace tl = tilejit::tl;

namespace {

CompileOptions options_for(GpuCodegen codegen) {
  CompileOptions o;
  o.arch = "sm_90";
  o.backend = Backend::cuda;
  o.codegen = codegen;
  return o;
}

std::vector<Arg> f_args(DType t) { return {Pointer{0x10000, t}, Pointer{0x20000, t}, Pointer{0x30000, t}, 256}; }

void rounding_kernel(tl::Ptr down, tl::Ptr up, tl::Ptr in, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  auto x = tl::load(in + offs);
  tl::store(down + offs, tl::floor(x));
  tl::store(up + offs, tl::ceil(x));
}

void transcendental_kernel(tl::Ptr a, tl::Ptr b, tl::Ptr in, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  auto x = tl::load(in + offs);
  tl::store(a + offs, tl::sin(x) + tl::cos(x));
  tl::store(b + offs, tl::tanh(x) * tl::erf(x) + tl::sigmoid(x));
}

const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr>& rounding() {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr> k("rounding", rounding_kernel,
                                                                  {"down", "up", "in", "BLOCK"});
  return k;
}

}  // namespace

TEST_CASE("floor and ceil are cvt.rmi and cvt.rpi in the PTX generator, floorf and ceilf in CUDA C") {
  for (DType t : {DType::f32, DType::f64, DType::bf16}) {
    CAPTURE(dtype_name(t));
    const std::string width = t == DType::f64 ? "f64" : "f32";  // 16-bit values round in f32
    const auto& p = rounding().compile(f_args(t), options_for(GpuCodegen::ptx));
    REQUIRE(p.metadata().codegen == "ptx");
    CHECK(p.stage("ptx").find("cvt.rmi." + width + "." + width) != std::string::npos);
    CHECK(p.stage("ptx").find("cvt.rpi." + width + "." + width) != std::string::npos);
    const auto& c = rounding().compile(f_args(t), options_for(GpuCodegen::cuda));
    const std::string suffix = t == DType::f64 ? "(" : "f(";
    CHECK(c.stage("cuda").find("floor" + suffix) != std::string::npos);
    CHECK(c.stage("cuda").find("ceil" + suffix) != std::string::npos);
  }
}

TEST_CASE("sin, cos, tanh and erf are libdevice's: the PTX path hands the kernel to NVRTC and says why") {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr> k("transcendental", transcendental_kernel,
                                                                  {"a", "b", "in", "BLOCK"});
  const auto& c = k.compile(f_args(DType::f32), options_for(GpuCodegen::ptx));
  CHECK(c.metadata().codegen == "cuda");
  CAPTURE(c.metadata().compile_reason);
  CHECK(c.metadata().compile_reason.find("instead of the PTX generator: PTX generation: '") != std::string::npos);
  for (const char* call : {"sinf(", "cosf(", "tanhf(", "erff(", "expf("}) {
    CAPTURE(call);
    CHECK(c.stage("cuda").find(call) != std::string::npos);
  }
  CHECK_FALSE(c.stage("cubin").empty());
  CHECK(c.metadata().spill_store_bytes == 0);
}

TEST_CASE("math functions need floating-point operands") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr out, tl::Ptr in, tl::Constexpr BLOCK) {
    auto offs = tl::arange(0, BLOCK);
    tl::store(out + offs, tl::floor(tl::load(in + offs)));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Constexpr> k("floor_int", fn, {"out", "in", "BLOCK"});
  try {
    k.compile({Pointer{0x10000, DType::i32}, Pointer{0x20000, DType::i32}, 256}, options_for(GpuCodegen::cuda));
    FAIL("an integer operand of floor compiled");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("floor needs a floating-point operand") != std::string::npos);
    CHECK(std::string(e.what()).find("test_ptx_math.cpp") != std::string::npos);
  }
}

TEST_CASE("argmax and argmin are two reductions each, which the PTX generator builds itself") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr hi, tl::Ptr lo, tl::Ptr in,
                                                                   tl::Constexpr BLOCK) {
    auto r = tl::arange(0, 8);
    auto x = tl::load(in + r(tl::all, tl::newaxis) * BLOCK + tl::arange(0, BLOCK)(tl::newaxis, tl::all));
    tl::store(hi + r, tl::argmax(x, 1));
    tl::store(lo + tl::arange(0, BLOCK), tl::argmin(x, 0));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr> k("arg_reductions", fn, {"hi", "lo", "in", "BLOCK"});
  const std::vector<Arg> args{Pointer{0x10000, DType::i32}, Pointer{0x20000, DType::i32}, Pointer{0x30000, DType::f32},
                              128};
  const auto& p = k.compile(args, options_for(GpuCodegen::ptx));
  CHECK(p.metadata().codegen == "ptx");
  CHECK(p.metadata().spill_store_bytes == 0);
  const std::string& ir = p.stage("ir");
  for (std::string r : {"reduce.max", "reduce.min"}) {
    CAPTURE(r);
    CHECK(ir.find(r) != std::string::npos);
  }
  CHECK(ir.find(" : i32[8]") != std::string::npos);
}
