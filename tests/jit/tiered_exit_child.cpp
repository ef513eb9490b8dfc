// A process that ends while NVRTC's background build is running. Compiles one kernel tiered into
// the cache directory argv[1] (empty, so the PTX generator's kernel comes first and NVRTC's build,
// the process's first NVRTC compile, is queued), sleeps argv[2] milliseconds (exit then begins at
// some point of that build) and returns from main. With argv[3] = "thread", it first lets one
// build finish, queues a second and calls exit() from another thread after the delay. With
// argv[3] = "pool", the compile (and so the NVRTC build's submission) happens on another thread
// only, as an application's worker pool would do it, and main returns after the delay. The kernel
// is a static, as library kernels are, so nothing waits for the builds before exit begins. Run by
// test_tiered, which expects exit status 0.
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "jit_test_util.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) return 2;
  ::setenv("TILEJIT_CACHE_DIR", argv[1], 1);
  const auto delay = std::chrono::milliseconds(std::stoi(argv[2]));
  static auto kernel = jit_test::make_scale();
  tilejit::CompileOptions o{.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = tilejit::GpuCodegen::tiered};
  const std::string mode = argc == 4 ? argv[3] : "";
  bool ptx_first = false;
  auto compile = [&] { ptx_first = kernel.compile(jit_test::scale_args(256), o).metadata().codegen == "ptx"; };
  if (mode == "pool") std::thread(compile).join();
  else compile();
  if (mode == "thread") {
    kernel.wait_for_background_compiles();
    kernel.compile(jit_test::scale_args(512), o);  // a second specialization: another NVRTC build
    std::thread([delay] {
      std::this_thread::sleep_for(delay);
      std::exit(0);
    }).join();
  }
  std::this_thread::sleep_for(delay);
  return ptx_first ? 0 : 3;
}
