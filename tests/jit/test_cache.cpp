// The in-memory cache of compiled specializations: one compile per key, distinct keys for
// everything that changes the generated code, safe under concurrent compiles, not poisoned by
// failures; plus stage dumps and inspection. NVRTC only, no GPU.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "run_together.h"
#include "scoped_env.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"

using namespace tilejit;
namespace fs = std::filesystem;

namespace {

void scale_kernel(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  tl::store(out + offs, tl::load(x + offs, mask) * 2, mask);
}

using ScaleKernel = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr>;

Pointer ptr(DType t, int i = 0) { return Pointer{0x100000u * static_cast<std::uint64_t>(i + 1), t}; }

std::vector<Arg> args(std::int64_t n, std::int64_t block, DType t = DType::f32) {
  return {ptr(t, 0), ptr(t, 1), n, block};
}

CompileOptions sm90(int warps = 4) {
  return {.num_warps = warps, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda};
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

using tilejit_test::ScopedEnv;

}  // namespace

TEST_CASE("one specialization compiles once") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  CHECK(k.cache_size() == 0);
  CHECK(k.compile_count() == 0);
  const CompiledKernel& first = k.compile(args(1000, 256), sm90());
  for (int i = 0; i < 3; ++i) CHECK(&k.compile(args(1000, 256), sm90()) == &first);
  // Only values of non-constexpr integers change (all fit in i32, none divisible by 16, none 1):
  // same specialization, same compiled kernel.
  for (std::int64_t n : {1001, 999, 77777, 2147483647}) {
    CAPTURE(n);
    CHECK(&k.compile(args(n, 256), sm90()) == &first);
  }
  // Other pointer addresses with the same 16-byte alignment change nothing either.
  CHECK(&k.compile({ptr(DType::f32, 7), ptr(DType::f32, 9), 1000, 256}, sm90()) == &first);
  CHECK(k.compile_count() == 1);
  CHECK(k.cache_size() == 1);
}

TEST_CASE("everything that changes the code gives a distinct cache entry") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  std::set<std::string> entries, keys;
  auto add = [&](const CompiledKernel& c) {
    entries.insert(c.metadata().entry_name);
    keys.insert(c.metadata().key);
    CHECK(k.cache_size() == entries.size());
    CHECK(k.compile_count() == entries.size());
  };
  add(k.compile(args(1000, 256), sm90()));
  SUBCASE("BLOCK_SIZE") {
    const CompiledKernel& c = k.compile(args(1000, 512), sm90());
    add(c);
    CHECK(c.stage("ir").find("arange 0, 512") != std::string::npos);
  }
  SUBCASE("num_warps") {
    const CompiledKernel& c = k.compile(args(1000, 256), sm90(8));
    add(c);
    CHECK(c.metadata().num_warps == 8);
  }
  SUBCASE("min_blocks_per_sm") {
    CompileOptions o = sm90();
    o.min_blocks_per_sm = 3;
    const CompiledKernel& c = k.compile(args(1000, 256), o);
    add(c);
    CHECK(c.metadata().min_blocks_per_sm == 3);
    CHECK(c.metadata().key.find(" min_blocks=3 ") != std::string::npos);
    CHECK(c.stage("cuda").find("__launch_bounds__(128, 3)") != std::string::npos);
    // Asked for again: the same entry, through the launch path's fast lookup too.
    CHECK(&k.compile(args(1000, 256), o) == &c);
  }
  SUBCASE("pointer dtype") {
    const CompiledKernel& c = k.compile(args(1000, 256, DType::f16), sm90());
    add(c);
    CHECK(c.stage("ir").find("ptr<f16>") != std::string::npos);
  }
  SUBCASE("arch") {
    const CompiledKernel& c = k.compile(args(1000, 256), {.num_warps = 4, .num_stages = 1, .arch = "sm_80"});
    add(c);
    CHECK(c.metadata().arch == "sm_80");
    CHECK(c.stage("ptx").find(".target sm_80") != std::string::npos);
  }
  SUBCASE("integer width: a value beyond 2^31 makes n an i64") {
    const CompiledKernel& c = k.compile(args(std::int64_t{1} << 32, 256), sm90());
    add(c);
    CHECK(c.stage("ir").find("%2: i64") != std::string::npos);
    CHECK(c.stage("cuda").find("long long") != std::string::npos);
    // Any value that fits i32 goes back to the i32 specialization.
    CHECK(&k.compile(args(5, 256), sm90()) != &c);
  }
  CHECK(entries.size() == 2);
  CHECK(keys.size() == 2);
}

// One key asked for by eight threads at once: tests/jit/test_concurrency.cpp (with the disk cache).

TEST_CASE("threads compiling two keys get two compiles") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  constexpr int kThreads = 8;
  std::vector<const CompiledKernel*> got(kThreads, nullptr);
  tilejit::testing::run_together(kThreads, [&](int t) { got[t] = &k.compile(args(1000, t % 2 ? 128 : 256), sm90()); });
  CHECK(k.compile_count() == 2);
  for (int t = 2; t < kThreads; ++t) CHECK(got[t] == got[t % 2]);
  CHECK(got[0] != got[1]);
}

TEST_CASE("a failing compile does not poison the cache") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  // BLOCK = 12: arange(0, 12) is a DSL error.
  CHECK_THROWS_AS(k.compile(args(1000, 12), sm90()), UserError);
  CHECK(k.compile_count() == 0);
  CHECK(k.cache_size() == 0);
  // The failure is reported again, not cached as a success...
  CHECK_THROWS_AS(k.compile(args(1000, 12), sm90()), UserError);
  // ...and good arguments still work.
  const CompiledKernel& ok = k.compile(args(1000, 16), sm90());
  CHECK(ok.stage("ptx").find(".entry " + ok.metadata().entry_name) != std::string::npos);
  CHECK(k.compile_count() == 1);
  CHECK(k.cache_size() == 1);
  // No tracer is left active by the failed trace.
  CHECK_THROWS_AS(tl::arange(0, 16), UserError);
}

TEST_CASE("a failing compile raced by several threads fails for all and leaves nothing behind") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  tilejit::testing::run_together(kThreads, [&](int t) {
    try {
      k.compile(args(1000, 12), sm90());
    } catch (const UserError&) {
      failures[t] = 1;
    }
  });
  for (int t = 0; t < kThreads; ++t) CHECK(failures[t] == 1);
  CHECK(k.cache_size() == 0);
  CHECK_NOTHROW(k.compile(args(1000, 16), sm90()));
}

TEST_CASE("TILEJIT_DUMP=ptx,cuda writes those stages to TILEJIT_DUMP_DIR") {
  fs::path dir = fs::temp_directory_path() / ("tilejit_dump_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  std::string entry;
  {
    ScopedEnv dump("TILEJIT_DUMP", "ptx,cuda");
    ScopedEnv where("TILEJIT_DUMP_DIR", dir.string());
    const CompiledKernel& c = k.compile(args(1000, 128), sm90());
    entry = c.metadata().entry_name;
    REQUIRE(fs::exists(dir / (entry + ".ptx")));
    REQUIRE(fs::exists(dir / (entry + ".cuda")));
    CHECK(read_file(dir / (entry + ".ptx")) == c.stage("ptx"));
    CHECK(read_file(dir / (entry + ".cuda")) == c.stage("cuda"));
    // Only the stages asked for.
    CHECK_FALSE(fs::exists(dir / (entry + ".ir")));
    CHECK_FALSE(fs::exists(dir / (entry + ".cubin")));
  }
  // Without the knob nothing more is written.
  const CompiledKernel& other = k.compile(args(1000, 64), sm90());
  CHECK_FALSE(fs::exists(dir / (other.metadata().entry_name + ".ptx")));
  fs::remove_all(dir);
}

TEST_CASE("stages: the known ones are there, an unknown one names the available ones") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  const CompiledKernel& c = k.compile(args(1000, 256), sm90());
  for (const char* s : {"ir", "ir.lowered", "cuda", "ptx", "cubin"}) {
    CAPTURE(s);
    CHECK_FALSE(c.stage(s).empty());
  }
  bool thrown = false;
  try {
    c.stage("nope");
  } catch (const Error& e) {
    thrown = true;
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("'nope'") != std::string::npos);
    for (const char* s : {"ir", "ir.lowered", "cuda", "ptx", "cubin"}) CHECK(what.find(s) != std::string::npos);
  }
  CHECK(thrown);
}

TEST_CASE("min_blocks_per_sm beyond what an SM holds is refused, naming the limit") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  for (auto [warps, blocks] : {std::pair{4, 17}, std::pair{32, 3}, std::pair{1, 33}, std::pair{4, -1}}) {
    CAPTURE(warps);
    CAPTURE(blocks);
    CompileOptions o = sm90(warps);
    o.min_blocks_per_sm = blocks;
    CHECK_THROWS_WITH_AS(k.compile(args(1000, 256), o), doctest::Contains("min_blocks_per_sm must be between 0 and"),
                         Error);
  }
  CHECK(k.cache_size() == 0);
}

TEST_CASE("metadata from ptxas for sm_90") {
  ScaleKernel k("scale", scale_kernel, {"x", "out", "n", "BLOCK"});
  const CompiledKernel& c = k.compile(args(1000, 1024), sm90());
  const KernelMetadata& md = c.metadata();
  CHECK(md.registers > 0);
  CHECK(md.kernel_name == "scale");
  CHECK(md.arch == "sm_90");
  CHECK(md.num_warps == 4);
  CHECK(md.spill_store_bytes == 0);
  CHECK(md.entry_name.rfind("scale_", 0) == 0);
  CHECK(md.compile_ms > 0);
}
