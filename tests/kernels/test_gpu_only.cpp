// GPU-only cases: driver errors, device resources, and a differential test that runs random
// shapes on both backends and compares them with each other.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "example_kernels.h"
#include "kernel_test.h"
#include "kernels/softmax_online.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "kernels/vector_add.h"
#include "stash_round_trip_kernel.h"
#include "tilejit/ops/softmax.h"

using namespace tilejit;
using namespace tilejit::testing;

TEST_CASE("the widest seed kernels use no local memory on the device") {
  for (std::int64_t block : {4096, 16384}) {
    const auto& k = examples::softmax_persistent().compile(
        {Pointer{0x100, DType::f32}, Pointer{0x200, DType::f32}, block, block, 4096, block, block, 2},
        compile_options(8, 2));
    auto r = k.resources();
    CAPTURE(block);
    CHECK(r.local_bytes == 0);
    CHECK(r.n_regs > 0);
    CHECK(r.max_active_blocks_per_sm >= 1);
    CHECK(persistent_grid(k, 1u << 20) >= static_cast<std::uint64_t>(device_properties().sm_count));
    CHECK(persistent_grid(k, 3) == 3);
  }
}

// ctest runs this binary with the default (tiered: whichever of the two generators a kernel has
// reached), again with TILEJIT_CODEGEN=ptx (test_kernels_gpu_ptx) and =cuda
// (test_kernels_gpu_cuda): every numeric test above and below runs code from each generator.
TEST_CASE("occupancy counts blocks whose stashes take more than 48 KiB of shared memory") {
  // A stash above 48 KiB must be opted into before the occupancy query too, or the driver counts
  // no block as fitting (and persistent grids shrank to one program an SM).
  const auto& dev = device_properties();
  for (std::int64_t slots : {4, 12}) {  // 64 KiB and 192 KiB of f32 blocks of 4096
    CAPTURE(slots);
    const std::int64_t bytes = slots * 4096 * 4;
    if (bytes > dev.smem_per_block_optin) {
      MESSAGE("skipped: the device offers " << dev.smem_per_block_optin << " bytes a block");
      continue;
    }
    const auto& k = tilejit_test::stash_round_trip().compile(
        {Pointer{0x100, DType::f32}, Pointer{0x200, DType::f32}, Pointer{0x300, DType::f32}, std::int64_t{1} << 20,
         slots, std::int64_t{1}, std::int64_t{4096}, static_cast<std::int64_t>(DType::f32)},
        compile_options(4));
    // Shared memory is what limits these blocks (a 1 KiB reserve a block, at most).
    const auto by_smem = static_cast<int>(dev.smem_per_sm / (bytes + 1024));
    CHECK(k.resources().max_active_blocks_per_sm == by_smem);
    CHECK(persistent_grid(k, 1u << 20) == static_cast<std::uint64_t>(by_smem * dev.sm_count));
  }
}

TEST_CASE("softmax op: a group larger than the device holds at once is refused, naming the configuration") {
  // 4096 programs of 16 warps: at most four fit an SM, so no GPU of fewer than 1024 SMs holds them.
  Buffer a = buffer(DType::f32, 4096);
  Pointer p{a.address(), DType::f32, memory()};
  ops::SoftmaxOptions o;
  o.backend = backend();
  o.config = ops::SoftmaxConfig{ops::SoftmaxStrategy::group, 2048, 16, 1, 1, 4096};
  std::string message = "(no error)";
  try {
    ops::softmax(p, p, 1, 4096, 4096, 4096, nullptr, o);
  } catch (const Error& e) {
    message = e.what();
  }
  CAPTURE(message);
  CHECK(message.find("softmax: group BLOCK=2048 warps=16 group=4096 needs its 4096 programs resident at once") !=
        std::string::npos);
  CHECK(message.find(device_properties().name) != std::string::npos);
  CHECK(message.find("use a smaller group") != std::string::npos);
  // The kernel behind it was built: its resident count is the device's, and below the group.
  const auto kernels = ops::compile_softmax(p, p, 1, 4096, 4096, 4096, false, o);
  REQUIRE(kernels.size() == 1);
  CHECK(resident_programs(*kernels[0]) < 4096u);
  CHECK(resident_programs(*kernels[0]) >= static_cast<std::uint64_t>(device_properties().sm_count));
}

TEST_CASE("TILEJIT_CODEGEN picks the generator the kernels are built with") {
  const char* env = std::getenv("TILEJIT_CODEGEN");
  const std::string want = env && *env ? env : codegen_name(kDefaultGpuCodegen);
  Buffer a = buffer(DType::f32, 16);
  const auto& k = examples::softmax_persistent().compile({a, a, 16, 16, 1, 16, 16, 2}, compile_options());
  if (want == "tiered") CHECK((k.metadata().codegen == "ptx" || k.metadata().codegen == "cuda"));
  else CHECK(k.metadata().codegen == want);
}

TEST_CASE("a bad launch raises CudaError naming the driver call") {
  Buffer a = buffer(DType::f32, 16);
  const auto& k = examples::vector_add().compile({a, a, a, 16, 16}, compile_options());
  try {
    k.launch({1, 65536, 1}, {a, a, a, 16, 16});  // grid.y above the device limit
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK(e.call() == "cuLaunchKernel");
    CHECK(std::string(e.what()).find("65536") != std::string::npos);
  }
  // The error is not sticky: the next launch works.
  k.launch({1}, {a, a, a, 16, 16});
  synchronize();
}

TEST_CASE("host buffers are refused by CUDA launches") {
  Buffer h(DType::f32, 16, Memory::host);
  CHECK_THROWS_AS(examples::vector_add().launch({1}, {h, h, h, 16, 16}, options()), UserError);
}

namespace {

// Runs `launch` on a backend with fresh buffers of `input` and returns the output.
template <class Launch>
std::vector<float> run_on(Backend b, const std::vector<float>& input, std::size_t out_size, const Launch& launch) {
  Memory m = memory_of(b);
  Buffer in(DType::f32, input.size(), m), out(DType::f32, out_size, m);
  in.upload(input);
  out.fill_bytes(0xff);
  LaunchOptions o;
  o.backend = b;
  launch(in, out, o);
  if (b == Backend::cuda) synchronize();
  return out.download<float>();
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return INFINITY;
      continue;
    }
    // Relative above 1e-3, absolute below (exp of very negative numbers may differ in the last
    // bits of tiny or subnormal results between the two math libraries).
    worst = std::max(worst, std::fabs(a[i] - b[i]) / std::max(1e-3, std::fabs(static_cast<double>(b[i]))));
  }
  return worst;
}

}  // namespace

TEST_CASE("differential: random shapes give the same results on the CPU and the GPU") {
  std::string why;
  if (!has_cpu_backend(&why)) {
    MESSAGE("skipped: " << why);
    return;
  }
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 12; ++trial) {
    std::int64_t rows = std::uniform_int_distribution<std::int64_t>(1, 300)(rng);
    std::int64_t cols = std::uniform_int_distribution<std::int64_t>(1, 5000)(rng);
    std::int64_t block = examples::next_power_of_two(cols);
    CAPTURE(rows);
    CAPTURE(cols);
    auto input = softmax_input(rows, cols, static_cast<unsigned>(trial));
    std::size_t n = input.size();
    auto simple = [&](Buffer& in, Buffer& out, LaunchOptions o) {
      examples::softmax_simple().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, block}, o);
    };
    auto online = [&](Buffer& in, Buffer& out, LaunchOptions o) {
      examples::softmax_online().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, 256}, o);
    };
    auto add = [&](Buffer& in, Buffer& out, LaunchOptions o) {
      examples::vector_add().launch({static_cast<std::uint64_t>(cdiv(static_cast<std::int64_t>(n), 128))},
                                    {in, in, out, static_cast<std::int64_t>(n), 128}, o);
    };
    CHECK(max_difference(run_on(Backend::cpu, input, n, simple), run_on(Backend::cuda, input, n, simple)) <= 1e-5);
    CHECK(max_difference(run_on(Backend::cpu, input, n, online), run_on(Backend::cuda, input, n, online)) <= 1e-5);
    CHECK(max_difference(run_on(Backend::cpu, input, n, add), run_on(Backend::cuda, input, n, add)) == 0);
  }
}
