// The disk cache: hits across Kernel objects (as in a new process), TILEJIT_ALWAYS_COMPILE,
// damaged entries rebuilt (never a crash or a wrong kernel), unsafe directories refused, LRU
// eviction under a cap, and everything that must change the key. NVRTC only, no GPU.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <set>
#include <thread>

#include "jit/cache_entry.h"
#include "jit_test_util.h"
#include "tilejit/cache.h"

using namespace tilejit;
using namespace jit_test;

TEST_CASE("a second Kernel object finds the first one's compile on disk") {
  ScopedCache cache;
  auto k1 = make_scale();
  const CompiledKernel& a = k1.compile(scale_args(256), sm());
  CHECK_FALSE(a.metadata().from_disk_cache);
  REQUIRE_FALSE(a.metadata().disk_cache_path.empty());
  CHECK(fs::path(a.metadata().disk_cache_path).parent_path() == cache.dir.path());
  CHECK(entries(cache.dir.path()).size() == 1);
  CHECK((fs::status(cache.dir.path()).permissions() & fs::perms::all) == fs::perms::owner_all);

  auto k2 = make_scale();  // an empty memory cache, as in a new process
  const CompiledKernel& b = k2.compile(scale_args(256), sm());
  CHECK(b.metadata().from_disk_cache);
  CHECK(b.metadata().disk_cache_path == a.metadata().disk_cache_path);
  CHECK(b.stage("ptx") == a.stage("ptx"));
  CHECK(b.stage("cubin") == a.stage("cubin"));
  CHECK(b.stage("cuda") == a.stage("cuda"));
  CHECK(b.metadata().registers == a.metadata().registers);
  CHECK(b.metadata().entry_name == a.metadata().entry_name);
  CHECK(b.metadata().compile_reason.find("disk cache hit") != std::string::npos);
  CHECK(k2.compile_count() == 1);

  SUBCASE("TILEJIT_ALWAYS_COMPILE=1 does not read it") {
    ScopedEnv always("TILEJIT_ALWAYS_COMPILE", "1");
    auto k3 = make_scale();
    const CompiledKernel& c = k3.compile(scale_args(256), sm());
    CHECK_FALSE(c.metadata().from_disk_cache);
    CHECK(c.stage("ptx") == a.stage("ptx"));
    CHECK(c.metadata().compile_reason.find("TILEJIT_ALWAYS_COMPILE") != std::string::npos);
  }
}

TEST_CASE("damaged, truncated and foreign entries are rebuilt, never trusted") {
  ScopedCache cache;
  auto k1 = make_scale();
  const CompiledKernel& good = k1.compile(scale_args(128), sm());
  const fs::path path = good.metadata().disk_cache_path;
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() > 1000);
  std::string flipped_cubin = bytes;
  flipped_cubin[bytes.size() - bytes.size() / 3] ^= 0x40;  // somewhere in the binary fields
  std::string foreign = bytes;
  foreign[0] = 'X';
  std::string other_version = bytes;
  other_version[8] = 9;
  const std::vector<std::pair<const char*, std::string>> damage = {
      {"empty", ""},
      {"truncated header", bytes.substr(0, 20)},
      {"truncated payload", bytes.substr(0, bytes.size() / 2)},
      {"one byte short", bytes.substr(0, bytes.size() - 1)},
      {"trailing bytes", bytes + "x"},
      {"flipped byte", flipped_cubin},
      {"foreign magic", foreign},
      {"other format version", other_version},
      {"text file", "hello, world\n"}};
  for (const auto& [what, content] : damage) {
    CAPTURE(what);
    write_file(path, content);
    auto k = make_scale();
    const CompiledKernel& c = k.compile(scale_args(128), sm());
    CHECK_FALSE(c.metadata().from_disk_cache);
    CHECK(c.stage("ptx") == good.stage("ptx"));
    CHECK(c.stage("cubin") == good.stage("cubin"));
    CHECK(c.metadata().compile_reason.find("ignored") != std::string::npos);
    // ...and the entry was rewritten whole.
    CHECK(read_file(path) == bytes);
    auto again = make_scale();
    CHECK(again.compile(scale_args(128), sm()).metadata().from_disk_cache);
  }
}

TEST_CASE("the entry decoder rejects every truncation and every flipped byte") {
  jit::EntryFields fields{{"a", "alpha"}, {"cubin", std::string(300, '\x7f')}, {"ptx", "// ptx\n.version 8.0\n"}};
  const std::string bytes = jit::encode_entry(fields);
  auto decoded = jit::decode_entry(bytes);
  REQUIRE(decoded.has_value());
  CHECK(*decoded == fields);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CAPTURE(n);
    CHECK_FALSE(jit::decode_entry(std::string_view(bytes).substr(0, n)).has_value());
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char bit : {0x01, 0x80}) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ bit);
      CAPTURE(i);
      CHECK_FALSE(jit::decode_entry(b).has_value());
    }
  }
  std::string why;
  CHECK_FALSE(jit::decode_entry("TILEJIT", &why).has_value());
  CHECK(why.find("magic") != std::string::npos);
}

TEST_CASE("a cache directory other users can write to is refused: memory cache only, with a warning") {
  TempDir dir("unsafe");
  fs::create_directories(dir.path());
  fs::permissions(dir.path(), fs::perms::all);  // 0777
  ScopedEnv env("TILEJIT_CACHE_DIR", dir.str());
  auto k = make_scale();
  CaptureStderr err;
  const CompiledKernel& c = k.compile(scale_args(64), sm());
  std::string text = err.text();
  INFO(text);
  CHECK(text.find("warning") != std::string::npos);
  CHECK(text.find(dir.str()) != std::string::npos);
  CHECK(c.metadata().disk_cache_path.empty());
  CHECK(c.metadata().compile_reason.find("disk cache off") != std::string::npos);
  CHECK(entries(dir.path()).empty());
  CHECK_FALSE(c.stage("ptx").empty());  // the kernel itself is fine
  std::string why;
  CHECK(cache_directory(&why).empty());
  CHECK(why.find("writable by other users") != std::string::npos);
}

TEST_CASE("least recently used entries go first when the cache is over TILEJIT_CACHE_MAX_BYTES") {
  ScopedCache cache;
  auto k = make_scale();
  auto path_of = [&](std::int64_t block) {
    return fs::path(k.compile(scale_args(block), sm()).metadata().disk_cache_path);
  };
  fs::path a = path_of(64);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::path b = path_of(128);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::path c = path_of(256);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(entries(cache.dir.path()).size() == 3);
  // A hit makes `a` the most recently used.
  auto other = make_scale();
  CHECK(other.compile(scale_args(64), sm()).metadata().from_disk_cache);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto cap = static_cast<std::uint64_t>(fs::file_size(a) * 5 / 2);
  ScopedEnv max("TILEJIT_CACHE_MAX_BYTES", std::to_string(cap));
  fs::path d = path_of(512);
  CHECK(fs::exists(a));
  CHECK(fs::exists(d));
  CHECK_FALSE(fs::exists(b));
  CHECK_FALSE(fs::exists(c));
  std::uint64_t total = 0;
  for (const auto& p : entries(cache.dir.path())) total += fs::file_size(p);
  CHECK(total <= cap);
}

TEST_CASE("the disk key covers arch, NVRTC options, source, toolchain and the env knobs") {
  ScopedCache cache;
  auto k = make_scale();
  std::set<std::string> paths;
  auto add = [&](const CompiledKernel& c) {
    CHECK_FALSE(c.metadata().from_disk_cache);
    paths.insert(c.metadata().disk_cache_path);
    return c.metadata().disk_cache_path;
  };
  std::string base = add(k.compile(scale_args(256), sm()));
  add(k.compile(scale_args(256), sm(4, "sm_80")));  // arch, hence also the NVRTC options
  add(k.compile(scale_args(512), sm()));            // source
  {
    // An env knob, even when it selects the same arch (a new Kernel: in memory the key is the same).
    ScopedEnv arch("TILEJIT_ARCH", "sm_90");
    auto k2 = make_scale();
    add(k2.compile(
        scale_args(256),
        {.num_warps = 4, .num_stages = 1, .arch = "", .backend = Backend::cuda, .codegen = GpuCodegen::cuda}));
  }
  CHECK(paths.size() == 4);
  std::string components = read_cache_entry_field(base, "components");
  for (const char* part :
       {"tilejit=", "nvrtc=", "llvm=", "nvrtc_options=--gpu-architecture=sm_90", "source=", "override=none",
        "TILEJIT_ARCH=", "num_warps=4", "BLOCK=256", "arch=sm_90", "backend=cuda"}) {
    CAPTURE(part);
    CHECK(components.find(part) != std::string::npos);
  }
  auto listed = list_cache_entries();
  CHECK(listed.size() == 4);
  for (const auto& e : listed) {
    CHECK(e.valid);
    CHECK(e.kernel_name == "scale");
  }
}
