// vector-add: the smallest end-to-end use of tilejit — compile, launch, check.
#include "kernels/vector_add.h"

#include <fmt/format.h>

#include <random>

#include "tilejit/tilejit.h"

using namespace tilejit;

int main() {
  try {
    const std::int64_t n = (1 << 20) + 3;  // not a multiple of the block: the mask matters
    const std::int64_t block = 1024;
    std::string why, no_cpu;
    bool gpu = has_gpu(&why);
    if (!gpu) {
      CompileOptions cuda;
      cuda.backend = Backend::cuda;
      const auto& k = examples::vector_add().compile(
          {Pointer{0x100, DType::f32}, Pointer{0x200, DType::f32}, Pointer{0x300, DType::f32}, n, block}, cuda);
      fmt::print("no GPU ({}); compiled vector_add, PTX at {}\n", why, k.write_stage("ptx"));
      if (!has_cpu_backend(&no_cpu)) {
        fmt::print("{}\n", no_cpu);
        return 0;
      }
      fmt::print("running on the CPU backend\n");
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = u(rng);
    for (auto& v : y) v = u(rng);
    // Buffers default to the default backend's memory: the GPU's, or the host's for the CPU backend.
    Buffer bx(DType::f32, n), by(DType::f32, n), bout(DType::f32, n);
    bx.upload(x);
    by.upload(y);
    bout.fill_bytes(0xff);
    examples::vector_add().launch({static_cast<std::uint64_t>(cdiv(n, block))}, {bx, by, bout, n, block});
    auto out = bout.download<float>();
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) bad += out[i] != x[i] + y[i];
    fmt::print("vector_add of {} elements: {} mismatches\n", n, bad);
    return bad == 0 ? 0 : 1;
  } catch (const Error& e) {
    fmt::print(stderr, "vector-add: {}\n", e.what());
    return 1;
  }
}
