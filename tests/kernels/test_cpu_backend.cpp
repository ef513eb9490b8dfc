// The CPU backend's own pieces: its stages, LLVM failures as CompileError, launch checks, the
// thread pool and the f16 helpers. Built only with LLVM.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "kernel_test.h"
#include "kernels/softmax_seed.h"
#include "kernels/vector_add.h"
#include "runtime/cpu/cpu_jit.h"
#include "runtime/cpu/half_fallback.h"
#include "runtime/cpu/thread_pool.h"

using namespace tilejit;

namespace {

CompileOptions cpu_options() {
  CompileOptions o;
  o.backend = Backend::cpu;
  return o;
}

const Pointer kX{0x1000, DType::f32}, kY{0x2000, DType::f32}, kOut{0x3000, DType::f32};

}  // namespace

TEST_CASE("a CPU kernel has the stages ir, ir.lowered, llvm and asm") {
  const auto& k = examples::vector_add().compile({kX, kY, kOut, 100, 128}, cpu_options());
  const auto& md = k.metadata();
  CHECK(md.backend == Backend::cpu);
  CHECK(md.key.ends_with("backend=cpu"));
  CHECK(md.arch.find("llvm19") != std::string::npos);
  CHECK(k.stage_names() == std::vector<std::string>{"ir", "ir.lowered", "llvm", "asm"});
  CHECK(k.stage("llvm").find("define void @" + md.entry_name + "(") != std::string::npos);
  CHECK(k.stage("asm").find(md.entry_name + ":") != std::string::npos);
  CHECK_THROWS_WITH_AS(k.stage("ptx"), doctest::Contains("has no stage 'ptx'"), Error);
  CHECK_THROWS_AS(k.resources(), Error);
  // The CUDA compile of the same arguments is another specialization.
  CompileOptions cuda;
  cuda.backend = Backend::cuda;
  CHECK(examples::vector_add().compile({kX, kY, kOut, 100, 128}, cuda).metadata().key != md.key);
}

TEST_CASE("the softmax row is lowered to vector code: masked loads, inline exp, scratch for two rows") {
  const auto& k = examples::softmax_simple().compile({kOut, kX, 1000, 1000, 1000, 1024}, cpu_options());
  const std::string& ir = k.stage("llvm");
  CHECK(ir.find("llvm.masked.load.v16f32") != std::string::npos);   // the masked row, 16 lanes at a time
  CHECK(ir.find("llvm.masked.store.v16f32") != std::string::npos);  // and the masked result
  CHECK(ir.find("@expf") == std::string::npos);                     // exp inline, not a libm call per lane
  CHECK(ir.find("@llvm.masked.gather") == std::string::npos);       // contiguous rows need no gathers
  // The loaded row and the numerator are each read by a later loop nest: 2 x 1024 floats.
  CHECK(k.metadata().cpu_scratch_bytes == 2 * 1024 * 4);
}

TEST_CASE("LLVM failures are CompileErrors with the IR and LLVM's message") {
  try {
    rt::cpu::compile_llvm_ir("define void @f() { ret i32 0 }", "f", 0);
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(std::string(e.what()).find("parse") != std::string::npos);
    CHECK(e.source().find("define void @f") != std::string::npos);
    CHECK_FALSE(e.log().empty());
  }
  const char* not_dominating = R"(
define void @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  br label %b
b:
  %y = add i32 %x, 1
  ret void
})";
  try {
    rt::cpu::compile_llvm_ir(not_dominating, "f", 0);
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.log().find("dominate") != std::string::npos);
  }
  CHECK_THROWS_AS(rt::cpu::compile_llvm_ir("define void @g() { ret void }", "f", 0), CompileError);
  CHECK_THROWS_AS(rt::cpu::emit_assembly("this is not LLVM IR"), CompileError);
  // The JIT still works afterwards.
  auto ok = rt::cpu::compile_llvm_ir(
      "define void @f(ptr %p, ptr %s, i32 %a, i32 %b, i32 %c, i32 %d, i32 %e, i32 %g) {\n"
      "  store i32 7, ptr %p\n  ret void\n}",
      "f", 0);
  std::int32_t v = 0;
  ok.kernel->entry()(reinterpret_cast<void**>(&v), nullptr, 0, 0, 0, 1, 1, 1);
  CHECK(v == 7);
}

TEST_CASE("CPU launches refuse device buffers and take a thread cap") {
  const auto& k = examples::vector_add().compile({kX, kY, kOut, 100, 128}, cpu_options());
  Pointer device{0x5000, DType::f32, Memory::device};
  CHECK_THROWS_WITH_AS(k.launch({1}, {device, kY, kOut, 100, 128}),
                       doctest::Contains("argument 0 ('x') is a device Buffer"), UserError);
  const std::int64_t n = 10000;
  auto x = testing::random_floats(n, -1.f, 1.f, 1);
  Buffer bx(DType::f32, n, Memory::host), bo(DType::f32, n, Memory::host);
  bx.upload(x);
  for (int threads : {1, 2, 3}) {
    LaunchOptions o;
    o.cpu_threads = threads;
    bo.fill_bytes(0);
    k.launch({static_cast<std::uint64_t>(cdiv(n, 128))}, {bx, bx, bo, n, 128}, o);
    auto out = bo.download<float>();
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += out[i] != x[i] + x[i];
    CHECK(bad == 0);
  }
  const char* saved = std::getenv("TILEJIT_CPU_THREADS");
  setenv("TILEJIT_CPU_THREADS", "zero", 1);
  CHECK_THROWS_WITH_AS(k.launch({1}, {bx, bx, bo, n, 128}), doctest::Contains("TILEJIT_CPU_THREADS"), Error);
  setenv("TILEJIT_CPU_THREADS", "1", 1);
  CHECK(rt::cpu::default_threads() == 1);
  if (saved) setenv("TILEJIT_CPU_THREADS", saved, 1);
  else unsetenv("TILEJIT_CPU_THREADS");
  CHECK(persistent_grid(k, 3) == 3);
  CHECK(persistent_grid(k, 1u << 20) >= 1);
}

TEST_CASE("kernels compile and launch from several threads at once") {
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const std::int64_t cols = 100 + t, block = 128;
      std::vector<float> x(static_cast<std::size_t>(3 * cols), 1.0f);
      Buffer in(DType::f32, x.size(), Memory::host), out(DType::f32, x.size(), Memory::host);
      in.upload(x);
      LaunchOptions o;
      o.backend = Backend::cpu;
      examples::softmax_simple().launch({3}, {out, in, cols, cols, cols, block}, o);
      for (float v : out.download<float>()) bad += std::fabs(v - 1.0f / static_cast<float>(cols)) > 1e-6f;
    });
  for (auto& t : threads) t.join();
  CHECK(bad == 0);
}

TEST_CASE("the thread pool covers every index once and passes exceptions on") {
  auto& pool = rt::cpu::ThreadPool::instance();
  CHECK(pool.size() >= 1);
  for (std::uint64_t n : {0u, 1u, 7u, 1000u, 100003u})
    for (int threads : {0, 1, 2, 5}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(n, threads, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) ++hits[i];
      });
      std::uint64_t wrong = 0;
      for (auto& h : hits) wrong += h != 1;
      CHECK(wrong == 0);
    }
  CHECK_THROWS_WITH(pool.parallel_for(1000, 0,
                                      [](std::uint64_t b, std::uint64_t) {
                                        if (b > 500) throw Error("boom");
                                      }),
                    "boom");
}

TEST_CASE("the f16 helpers round like the hardware conversion") {
  std::uint64_t bad = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = rt::cpu::half_bits_to_float(static_cast<std::uint16_t>(h));
    float want = static_cast<float>(std::bit_cast<_Float16>(static_cast<std::uint16_t>(h)));
    bad += std::isnan(want) ? !std::isnan(f) : std::bit_cast<std::uint32_t>(f) != std::bit_cast<std::uint32_t>(want);
  }
  CHECK(bad == 0);
  std::mt19937 rng(3);
  for (int i = 0; i < 1000000; ++i) {
    float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    std::uint16_t got = rt::cpu::float_to_half_bits(f);
    auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
    bad += std::isnan(f) ? (got & 0x7c00) != 0x7c00 || (got & 0x3ff) == 0 : got != want;
  }
  CHECK(bad == 0);
}
