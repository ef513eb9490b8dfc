// Concurrency: threads asking for one key compile it once; processes sharing a cache directory
// all get a working kernel and leave exactly one valid entry. NVRTC only, no GPU.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "jit_test_util.h"
#include "run_together.h"
#include "tilejit/cache.h"

using namespace tilejit;
using namespace jit_test;

TEST_CASE("eight threads asking for one key: one compile, one disk entry, one kernel") {
  ScopedCache cache;
  auto k = make_scale();
  constexpr int kThreads = 8;
  std::vector<const CompiledKernel*> got(kThreads, nullptr);
  tilejit::testing::run_together(kThreads, [&](int t) { got[t] = &k.compile(scale_args(1024, 1000 + t), sm()); });
  CHECK(k.compile_count() == 1);
  for (int t = 0; t < kThreads; ++t) CHECK(got[t] == got[0]);
  CHECK(entries(cache.dir.path()).size() == 1);
}

TEST_CASE("launch-path lookups from many threads agree with compile()") {
  ScopedCache cache;
  auto k = make_scale();
  constexpr int kThreads = 8;
  std::vector<const CompiledKernel*> got(kThreads * 100, nullptr);
  tilejit::testing::run_together(kThreads, [&](int t) {
    for (int i = 0; i < 100; ++i) got[t * 100 + i] = &k.compile(scale_args(i % 2 ? 64 : 128), sm());
  });
  CHECK(k.compile_count() == 2);
  for (int i = 0; i < kThreads * 100; ++i) CHECK(got[i] == got[i % 2]);
}

TEST_CASE("four processes compiling one kernel into one cache directory leave one valid entry") {
  ScopedCache cache;
  TempDir results("children");
  fs::create_directories(results.path());
  constexpr int kChildren = 4;
  int go[2];
  REQUIRE(pipe(go) == 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(go[1]);
      char c;
      (void)!read(go[0], &c, 1);  // all start together, when the parent closes the pipe
      int status = 1;
      try {
        auto k = make_scale();
        const CompiledKernel& c = k.compile(scale_args(2048), sm());
        write_file(results.path() / (std::to_string(i) + ".ptx"), c.stage("ptx"));
        status = 0;
      } catch (...) {
      }
      _exit(status);  // no doctest teardown in the child
    }
    pids.push_back(pid);
  }
  close(go[0]);
  close(go[1]);
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  auto files = entries(cache.dir.path());
  CHECK(files.size() == 1);
  std::size_t others = 0;
  for (const auto& e : fs::directory_iterator(cache.dir.path())) others += e.path().extension() != ".tjc";
  CHECK(others == 0);  // no temporary files left behind
  auto listed = list_cache_entries();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].valid);
  std::string ptx = read_file(results.path() / "0.ptx");
  CHECK_FALSE(ptx.empty());
  for (int i = 1; i < kChildren; ++i) CHECK(read_file(results.path() / (std::to_string(i) + ".ptx")) == ptx);
  // And this process reads it.
  auto k = make_scale();
  const CompiledKernel& c = k.compile(scale_args(2048), sm());
  CHECK(c.metadata().from_disk_cache);
  CHECK(c.stage("ptx") == ptx);
}
