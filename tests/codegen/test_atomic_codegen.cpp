// Atomics in the generated code, without a GPU: the IR names each op's kind and operands; the
// CUDA C path emits one acquire-release `atom` per element through a helper per operation and
// type, which NVRTC assembles for sm_80 and sm_90; the PTX generator emits the same atoms,
// predicated; in both, copies of a replicated element get their old value through shared memory
// only when it is used; the tiered default takes the PTX generator's.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <regex>
#include <string>
#include <vector>

#include "codegen/fake_pointer.h"
#include "jit/jit_test_util.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

using namespace tilejit;
namespace tl = tilejit::tl;

namespace {

CompileOptions cuda_options(const std::string& arch, int num_warps, GpuCodegen codegen = GpuCodegen::cuda) {
  CompileOptions o;
  o.num_warps = num_warps;
  o.arch = arch;
  o.backend = Backend::cuda;
  o.codegen = codegen;
  return o;
}

using tilejit_test::fake;

// Every operation on one block; the old values of add and cas are stored, the rest dropped.
void all_atomics(tl::Ptr data, tl::Ptr old, tl::Constexpr BLOCK) {
  auto i = tl::arange(0, BLOCK);
  auto p = data + i;
  tl::store(old + i, tl::atomic_add(p, 1, i < 5));
  auto v = tl::load(old + i);  // not a constant: float max and min keep both of their paths
  tl::atomic_max(p, v);
  tl::atomic_min(p, v);
  tl::atomic_xchg(p, 4);
  tl::store(old + i, tl::atomic_cas(p, 5, 6));
}

void integer_bitwise(tl::Ptr data, tl::Constexpr BLOCK) {
  auto p = data + tl::arange(0, BLOCK);
  tl::atomic_and(p, 1);
  tl::atomic_or(p, 2);
  tl::atomic_xor(p, 3);
}

// A 32-element block over 4 warps: each element has copies in four warps.
void replicated(tl::Ptr counter, tl::Ptr out, tl::Constexpr USE) {
  auto ticket = tl::atomic_add(counter + tl::arange(0, 32) * 0, 1);
  if (USE == 1) tl::store(out + tl::arange(0, 32), ticket);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("atomics in the IR: kind, pointers, expected value, value and mask") {
  static const Kernel k("all_atomics", all_atomics, {"data", "old", "BLOCK"});
  const auto& c = k.compile({fake(DType::f32, 0), fake(DType::f32, 1), 128}, cuda_options("sm_90", 4));
  const std::string& ir = c.stage("ir");
  CHECK(std::regex_search(ir, std::regex(R"(= atomic\.add %\d+, %\d+, mask=%\d+ : f32\[128\])")));
  CHECK(std::regex_search(ir, std::regex(R"(= atomic\.cas %\d+, cmp=%\d+, %\d+ : f32\[128\])")));
  for (std::string kind : {"atomic.max", "atomic.min", "atomic.xchg"}) {
    CAPTURE(kind);
    CHECK(ir.find(kind) != std::string::npos);  // kept with their results unused
  }
}

TEST_CASE("CUDA C atomics: one acquire-release atom per element, for every type, assembled for sm_80 and sm_90") {
  static const Kernel k("all_atomics", all_atomics, {"data", "old", "BLOCK"});
  static const Kernel b("integer_bitwise", integer_bitwise, {"data", "BLOCK"});
  for (std::string arch : {"sm_80", "sm_90"})
    for (DType t : {DType::i32, DType::i64, DType::f32, DType::f64}) {
      CAPTURE(arch);
      CAPTURE(dtype_name(t));
      const auto& c = k.compile({fake(t, 0), fake(t, 1), 256}, cuda_options(arch, 4));
      CHECK(c.metadata().spill_store_bytes == 0);
      const std::string& ptx = c.stage("ptx");
      const bool fp = is_float(t);
      const std::string bits = dtype_size(t) == 8 ? "64" : "32";
      CHECK(ptx.find("atom.acq_rel.gpu.add." + std::string(fp ? "f" : "u") + bits) != std::string::npos);
      CHECK(ptx.find("atom.acq_rel.gpu.exch.b" + bits) != std::string::npos);
      CHECK(ptx.find("atom.acq_rel.gpu.cas.b" + bits) != std::string::npos);
      // Float max and min: a signed and an unsigned integer atom each, chosen by the sign bit.
      for (std::string m : {"max", "min"}) {
        CAPTURE(m);
        CHECK(ptx.find(fmt::format("atom.acq_rel.gpu.{}.s{}", m, bits)) != std::string::npos);
        if (fp) CHECK(ptx.find(fmt::format("atom.acq_rel.gpu.{}.u{}", m, bits)) != std::string::npos);
      }
      // 256 elements over 128 threads: two atomics of each kind a thread, no copies to feed.
      CHECK(count(c.stage("cuda"), "__syncthreads") == 0);
      if (fp) continue;
      const auto& bw = b.compile({fake(t, 0), 256}, cuda_options(arch, 4));
      for (std::string op : {"and", "or", "xor"}) {
        CAPTURE(op);
        CHECK(bw.stage("ptx").find(fmt::format("atom.acq_rel.gpu.{}.b{}", op, bits)) != std::string::npos);
      }
    }
}

TEST_CASE("copies of a replicated element receive the old value through shared memory, only when it is used") {
  static const Kernel k("replicated", replicated, {"counter", "out", "USE"});
  const auto& used = k.compile({fake(DType::i32, 0), fake(DType::i32, 1), 1}, cuda_options("sm_90", 4));
  const auto& dropped = k.compile({fake(DType::i32, 0), fake(DType::i32, 1), 0}, cuda_options("sm_90", 4));
  // One atom per element: only warp 0 (the first copy) performs it.
  CHECK(used.stage("cuda").find("(tj_warp & 3) == 0") != std::string::npos);
  CHECK(count(used.stage("cuda"), "__syncthreads") == 1);
  CHECK(count(dropped.stage("cuda"), "__syncthreads") == 0);
  CHECK(used.metadata().dynamic_shared_bytes >= 32 * 4);
}

TEST_CASE("a scalar atomic: the program's first thread performs it and shares the old value") {
  static void (*fn)(tl::Ptr, tl::Ptr) = [](tl::Ptr counter, tl::Ptr out) {
    tl::store(out + tl::program_id(0), tl::atomic_add(counter, 1));
  };
  static const Kernel k("scalar_ticket", fn, {"counter", "out"});
  const auto& c = k.compile({fake(DType::i32, 0), fake(DType::i32, 1)}, cuda_options("sm_90", 2));
  CHECK(c.stage("cuda").find("if (threadIdx.x == 0) v") != std::string::npos);
  CHECK(count(c.stage("ptx"), "atom.acq_rel.gpu.add.u32") == 1);
}

TEST_CASE("the PTX generator's atomics: the same atoms, predicated, and the same sharing of old values") {
  static const Kernel k("all_atomics", all_atomics, {"data", "old", "BLOCK"});
  for (std::string arch : {"sm_80", "sm_90"})
    for (DType t : {DType::i32, DType::i64, DType::f32, DType::f64}) {
      CAPTURE(arch);
      CAPTURE(dtype_name(t));
      const auto& c = k.compile({fake(t, 0), fake(t, 1), 256}, cuda_options(arch, 4, GpuCodegen::ptx));
      REQUIRE_MESSAGE(c.metadata().codegen == "ptx", c.metadata().compile_reason);
      CHECK(c.metadata().spill_store_bytes == 0);
      const std::string& ptx = c.stage("ptx");
      const std::string bits = dtype_size(t) == 8 ? "64" : "32";
      // Two elements a thread: two atoms of each kind, four for float max and min (both signs).
      CHECK(count(ptx, "atom.acq_rel.gpu.global.add.") == 2);
      CHECK(count(ptx, "atom.acq_rel.gpu.global.exch.b" + bits) == 2);
      CHECK(count(ptx, "atom.acq_rel.gpu.global.cas.b" + bits) == 2);
      CHECK(count(ptx, "atom.acq_rel.gpu.global.max.s" + bits) == 2);
      CHECK(count(ptx, "atom.acq_rel.gpu.global.min.u" + bits) == (is_float(t) ? 2 : 0));
      CHECK(count(ptx, "bar.sync") == 0);
    }
  static const Kernel r("replicated", replicated, {"counter", "out", "USE"});
  const auto& used =
      r.compile({fake(DType::i32, 0), fake(DType::i32, 1), 1}, cuda_options("sm_90", 4, GpuCodegen::ptx));
  const auto& dropped =
      r.compile({fake(DType::i32, 0), fake(DType::i32, 1), 0}, cuda_options("sm_90", 4, GpuCodegen::ptx));
  REQUIRE(used.metadata().codegen == "ptx");
  CHECK(count(used.stage("ptx"), "atom.acq_rel.gpu.global.add.u32") == 1);
  CHECK(count(used.stage("ptx"), "bar.sync") == 1);
  CHECK(count(used.stage("ptx"), "st.shared.b32") == 1);
  CHECK(count(dropped.stage("ptx"), "bar.sync") == 0);
}

TEST_CASE("the tiered default takes the PTX generator's atomics first") {
  // They passed the GPU suites (test_kernels_gpu_ptx, H100, 2026-12-05). A private disk cache and
  // a specialization no other case compiles (2 warps), so no NVRTC build of it is there instead.
  jit_test::ScopedCache cache;
  static const Kernel r("replicated", replicated, {"counter", "out", "USE"});
  const auto& c =
      r.compile({fake(DType::i32, 0), fake(DType::i32, 2), 1}, cuda_options("sm_90", 2, GpuCodegen::tiered));
  CHECK(c.metadata().codegen == "ptx");
  wait_for_background_compiles();  // NVRTC's build, into the private cache before it goes
}

TEST_CASE("a loop holding an atomic is not software-pipelined: its loads stay after the atomics before them") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) = [](tl::Ptr data, tl::Ptr sums, tl::Int n,
                                                                   tl::Constexpr ATOMIC) {
    auto offs = tl::arange(0, 128);
    tl::for_range(0, n, 128, {.num_stages = 3}, [&](tl::Int start) {
      auto x = tl::load(data + start + offs);
      if (ATOMIC == 1) tl::atomic_add(sums + offs, x);
      else tl::store(sums + offs, x);
    });
  };
  static const Kernel k("loop_atomic", fn, {"data", "sums", "n", "ATOMIC"});
  const auto& plain = k.compile({fake(DType::f32, 0), fake(DType::f32, 1), 4096, 0}, cuda_options("sm_90", 4));
  const auto& atomic = k.compile({fake(DType::f32, 0), fake(DType::f32, 1), 4096, 1}, cuda_options("sm_90", 4));
  CHECK(plain.stage("ir.lowered").find("num_stages=") != std::string::npos);
  CHECK(atomic.stage("ir.lowered").find("num_stages=") == std::string::npos);
}
