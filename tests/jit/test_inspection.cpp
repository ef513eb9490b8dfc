// Why a kernel was compiled (the API and TILEJIT_DEBUG=1), TILEJIT_OVERRIDE_DIR, TILEJIT_DUMP
// with the disk cache, and tilejit-inspect --cache. NVRTC only, no GPU.
#include <doctest/doctest.h>

#include <cstdlib>

#include "jit_test_util.h"
#include "tilejit/cache.h"
#include "tilejit/error.h"

using namespace tilejit;
using namespace jit_test;

TEST_CASE("a miss names the key component that differs from the nearest cached one") {
  ScopedCache cache;
  auto k = make_scale();
  CHECK(k.last_miss_reason().empty());
  const CompiledKernel& first = k.compile(scale_args(256), sm(4));
  CHECK(first.metadata().compile_reason.find("first compile of scale") != std::string::npos);
  k.compile(scale_args(256), sm(8));
  CHECK(k.last_miss_reason().find("compiled scale because num_warps differs (8, cached: 4)") != std::string::npos);
  k.compile(scale_args(512), sm(8));
  CHECK(k.last_miss_reason().find("BLOCK differs (512, cached: 256)") != std::string::npos);
  CHECK(k.last_miss_reason().find("num_warps") == std::string::npos);  // nearest: the warps=8 one
  CHECK(k.last_miss_reason().find("source") == std::string::npos);     // follows from BLOCK

  // A new Kernel (as in a new process) compares with what the disk cache holds.
  auto fresh = make_scale();
  fresh.compile(scale_args(256, 1001), sm(2));
  INFO(fresh.last_miss_reason());
  // Nearest: a num_warps=4 or =8 entry with BLOCK=256 (a tie), never the BLOCK=512 one.
  CHECK(fresh.last_miss_reason().find("because num_warps differs (2, cached: ") != std::string::npos);
  CHECK(fresh.last_miss_reason().find("BLOCK") == std::string::npos);

  // TILEJIT_DEBUG=1 prints it.
  ScopedEnv debug("TILEJIT_DEBUG", "1");
  CaptureStderr err;
  k.compile({Pointer{0x100000, DType::f16}, Pointer{0x200000, DType::f32}, 1000, 256}, sm(4));
  std::string text = err.text();
  INFO(text);
  CHECK(text.find("tilejit: compiled scale because x differs (*f16@16, cached: *f32@16)") != std::string::npos);
}

TEST_CASE("TILEJIT_OVERRIDE_DIR substitutes a CUDA C file, then a PTX file") {
  ScopedCache cache;
  TempDir overrides("override");
  fs::create_directories(overrides.path());
  auto k = make_scale();
  const CompiledKernel& plain = k.compile(scale_args(128), sm());
  const std::string entry = plain.metadata().entry_name;
  const std::string cuda = "extern \"C\" __global__ void " + entry +
                           "(float* x, float* out, int n) {\n"
                           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                           "  if (i < n) out[i] = 12345.0f;  // hand-edited: a constant\n"
                           "}\n";
  write_file(overrides.path() / (entry + ".cuda"), cuda);
  ScopedEnv env("TILEJIT_OVERRIDE_DIR", overrides.str());

  auto k2 = make_scale();
  const CompiledKernel& c = k2.compile(scale_args(128), sm());
  CHECK(c.stage("cuda") == cuda);
  INFO(c.stage("ptx"));
  // 12345.0f, as NVRTC writes the store's constant (bits 0x4640E400).
  CHECK((c.stage("ptx").find("1178657792") != std::string::npos ||
         c.stage("ptx").find("0f4640E400") != std::string::npos));
  CHECK(c.metadata().override_path == (overrides.path() / (entry + ".cuda")).string());
  CHECK_FALSE(c.metadata().from_disk_cache);  // the override's content is part of the key
  CHECK(c.metadata().disk_cache_path != plain.metadata().disk_cache_path);
  CHECK(c.stage("ir") == plain.stage("ir"));

  // A PTX file wins over NVRTC altogether; the driver would compile it at load.
  const std::string ptx = c.stage("ptx");
  fs::remove(overrides.path() / (entry + ".cuda"));
  write_file(overrides.path() / (entry + ".ptx"), ptx);
  auto k3 = make_scale();
  const CompiledKernel& p = k3.compile(scale_args(128), sm());
  CHECK(p.stage("ptx") == ptx);
  CHECK(p.metadata().override_path == (overrides.path() / (entry + ".ptx")).string());
  CHECK_THROWS_AS(p.stage("cubin"), Error);
}

TEST_CASE("TILEJIT_DUMP writes every stage of a disk-cache hit too") {
  ScopedCache cache;
  TempDir dump("dump");
  auto k = make_scale();
  k.compile(scale_args(64), sm());
  ScopedEnv what("TILEJIT_DUMP", "all");
  ScopedEnv where("TILEJIT_DUMP_DIR", dump.str());
  auto k2 = make_scale();
  const CompiledKernel& c = k2.compile(scale_args(64), sm());
  REQUIRE(c.metadata().from_disk_cache);
  for (const char* stage : {"ir", "ir.lowered", "cuda", "ptx", "cubin"}) {
    CAPTURE(stage);
    CHECK(read_file(dump.path() / (c.metadata().entry_name + "." + stage)) == c.stage(stage));
  }
}

TEST_CASE("tilejit-inspect --cache lists the entries") {
  ScopedCache cache;
  auto k = make_scale();
  const CompiledKernel& c = k.compile(scale_args(256), sm());
  TempDir out("inspect");
  fs::create_directories(out.path());
  const std::string listing = (out.path() / "listing.txt").string();
  int rc = std::system((std::string("'") + TILEJIT_INSPECT_BIN + "' --cache > '" + listing + "' 2>&1").c_str());
  std::string text = read_file(listing);
  INFO(text);
  CHECK(rc == 0);
  CHECK(text.find(cache.dir.str()) != std::string::npos);
  CHECK(text.find("1 entries") != std::string::npos);
  CHECK(text.find(c.metadata().key) != std::string::npos);
  CHECK(text.find(c.metadata().disk_cache_path) != std::string::npos);

  const std::string ptx_out = (out.path() / "entry.ptx").string();
  rc = std::system((std::string("'") + TILEJIT_INSPECT_BIN + "' --cache-entry '" + c.metadata().disk_cache_path +
                    "' --emit ptx > '" + ptx_out + "'")
                       .c_str());
  CHECK(rc == 0);
  CHECK(read_file(ptx_out) == c.stage("ptx"));
}
