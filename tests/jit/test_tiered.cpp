// GpuCodegen::tiered: the PTX generator's kernel at once, NVRTC's built in the background and
// swapped in for later lookups, NVRTC's straight away when a cache already has it, one compile
// per generator when threads race. NVRTC and ptxas only, no GPU.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "jit/build_choice.h"
#include "jit_test_util.h"
#include "run_together.h"
#include "tilejit/error.h"

using namespace tilejit;
using namespace jit_test;

namespace {

CompileOptions tiered() { return {.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::tiered}; }

// out = sin(x): the PTX generator leaves sin to NVRTC (CUDA's libdevice).
void sine_kernel(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  tl::store(out + offs, tl::sin(tl::load(x + offs, offs < n)), offs < n);
}

}  // namespace

TEST_CASE("tiered: the PTX generator's kernel first, NVRTC's once its background build is done") {
  ScopedCache cache;
  auto k = make_scale();
  const CompiledKernel& first = k.compile(scale_args(256), tiered());
  CHECK(first.metadata().codegen == "ptx");
  CHECK(k.last_miss_reason().find("NVRTC's build follows in the background") != std::string::npos);
  k.wait_for_background_compiles();
  const CompiledKernel& later = k.compile(scale_args(256), tiered());
  CHECK(later.metadata().codegen == "cuda");
  CHECK(&later != &first);
  CHECK(first.metadata().codegen == "ptx");  // what was handed out stays as it was
  CHECK(k.compile_count() == 2);
  // NVRTC's build is the one an explicit request for CUDA C finds: no third compile.
  CHECK(&k.compile(scale_args(256), sm()) == &later);
  CHECK(k.compile_count() == 2);
  CHECK(entries(cache.dir.path()).size() == 2);  // both builds on disk

  // A new Kernel object (as in a new process) finds NVRTC's build on disk and starts with it.
  auto fresh = make_scale();
  const CompiledKernel& from_disk = fresh.compile(scale_args(256), tiered());
  CHECK(from_disk.metadata().codegen == "cuda");
  CHECK(from_disk.metadata().from_disk_cache);
  CHECK(fresh.compile_count() == 1);
}

TEST_CASE("tiered: a kernel the PTX generator cannot express is NVRTC's, under NVRTC's key, cold cache or warm") {
  // sin is NVRTC's only. The kernel that runs has the entry name a CUDA C request gives (and
  // TILEJIT_DUMP shows with TILEJIT_CODEGEN=cuda), so an override file named after it applies;
  // before, a cold cache compiled it under the PTX generator's key and another name.
  ScopedCache cache;
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr> sine("sine", sine_kernel, {"x", "out", "n", "BLOCK"});
  const std::vector<Arg> args{Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 1000, 256};
  const CompiledKernel& cold = sine.compile(args, tiered());
  CHECK(cold.metadata().codegen == "cuda");
  const CompiledKernel& cuda = sine.compile(args, sm());
  CHECK(&cold == &cuda);  // one NVRTC build, found again
  CHECK(entries(cache.dir.path()).size() == 1);
}

TEST_CASE("tiered: TILEJIT_CODEGEN=tiered selects it; a kernel destroyed with its build queued waits for it") {
  ScopedCache cache;
  ScopedEnv env("TILEJIT_CODEGEN", "tiered");
  CHECK(default_codegen() == GpuCodegen::tiered);
  CHECK(std::string(codegen_name(GpuCodegen::tiered)) == "tiered");
  {
    auto k = make_scale();
    CompileOptions o = tiered();
    o.codegen = GpuCodegen::automatic;
    CHECK(k.compile(scale_args(512), o).metadata().codegen == "ptx");
  }  // ~KernelBase waits for the queued NVRTC build, which uses the kernel's state
  wait_for_background_compiles();
  ScopedEnv bad("TILEJIT_CODEGEN", "fast");
  CHECK_THROWS_WITH_AS(default_codegen(), doctest::Contains("'tiered' (PTX first"), Error);
}

TEST_CASE("tiered: threads racing for one specialization compile each generator once") {
  ScopedCache cache;
  auto k = make_scale();
  std::vector<const CompiledKernel*> got(8);
  tilejit::testing::run_together(
      8, [&](int t) { got[static_cast<std::size_t>(t)] = &k.compile(scale_args(128), tiered()); });
  for (const CompiledKernel* g : got) CHECK(g == got[0]);
  CHECK(got[0]->metadata().codegen == "ptx");
  k.wait_for_background_compiles();
  CHECK(k.compile(scale_args(128), tiered()).metadata().codegen == "cuda");
  CHECK(k.compile_count() == 2);
}

TEST_CASE("tiered: a process may exit while NVRTC's background build runs") {
  // NVRTC registers its static destructors during its first compile, here on the worker thread:
  // without the main thread's exit guard they ran before the build ended, which aborted.
  // Exit begins at different points of the build; without the guard 20-40 ms aborted or hung.
  // "thread": exit() from another thread during the process's second build. "pool": the build
  // submitted from another thread only, main returning during it.
  for (std::string mode : {"", "thread", "pool"})
    for (int delay_ms = 0; delay_ms <= 100; delay_ms += 5) {
      ScopedCache cache;
      CAPTURE(mode);
      CAPTURE(delay_ms);
      std::string command = std::string("timeout 60 '") + TILEJIT_TIERED_EXIT_CHILD + "' '" +
                            cache.dir.path().string() + "' " + std::to_string(delay_ms) + " " + mode;
      int status = std::system(command.c_str());
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    }
}

TEST_CASE("build choice: resident blocks per SM from registers, and which of two builds runs") {
  using jit::resident_blocks_per_sm;
  // 64K registers an SM, allocated per warp in units of 256 (8 registers a thread).
  CHECK(resident_blocks_per_sm(58, 256, "sm_90") == 4);  // 64 a thread after rounding
  CHECK(resident_blocks_per_sm(64, 256, "sm_90") == 4);
  CHECK(resident_blocks_per_sm(65, 256, "sm_90") == 3);  // 72
  CHECK(resident_blocks_per_sm(70, 256, "sm_90") == 3);
  CHECK(resident_blocks_per_sm(75, 512, "sm_90") == 1);
  CHECK(resident_blocks_per_sm(64, 512, "sm_90") == 2);
  CHECK(resident_blocks_per_sm(65, 1024, "sm_90") == 0);  // does not fit at all
  // Threads bound it first: 2048 an SM on sm_90, 1536 on sm_89; never more than 32 blocks.
  CHECK(resident_blocks_per_sm(16, 256, "sm_90") == 8);
  CHECK(resident_blocks_per_sm(16, 256, "sm_89") == 6);
  CHECK(resident_blocks_per_sm(16, 32, "sm_90") == 32);

  KernelMetadata nvrtc, ptx;
  nvrtc.arch = ptx.arch = "sm_90";
  nvrtc.num_warps = ptx.num_warps = 8;
  nvrtc.registers = 70;
  ptx.registers = 58;
  CHECK(jit::register_limited(nvrtc));
  CHECK(jit::outranks(ptx, nvrtc));  // 4 blocks against 3
  CHECK(!jit::outranks(nvrtc, ptx));
  ptx.registers = 66;  // 3 blocks each: a tie goes to the second
  CHECK(!jit::outranks(ptx, nvrtc));
  CHECK(!jit::outranks(nvrtc, ptx));
  ptx.spill_store_bytes = 8;  // spilling outweighs occupancy
  ptx.registers = 32;
  CHECK(!jit::outranks(ptx, nvrtc));
  CHECK(jit::outranks(nvrtc, ptx));
  nvrtc.registers = 16;  // 8 blocks of 256 threads: threads, not registers, bound it
  CHECK(!jit::register_limited(nvrtc));
}
