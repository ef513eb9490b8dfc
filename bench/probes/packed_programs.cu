// Probe: several one-warp programs a thread block. The seed's persistent kernel at 128 columns
// runs one warp a program, and an SM holds at most 32 blocks, so such programs fill half of the
// SM's 64 warp slots. Here the generated kernel, edited by hand (packed_programs_kernels.cuh, which
// packed_programs.sh writes with pack_programs.py), runs P programs a block of 32 x P threads on a grid sized as
// tilejit sizes persistent grids (blocks resident at once x SMs, in programs), and, for comparison, one row a program
// (grid = rows).
//
//   packed_programs <rows> [reps]     (rows of 128 columns, f32 and bf16, 8 and 4 stages)
#include "packed_programs_kernels.cuh"
#include "probe_common.cuh"

template <typename T, int P, typename K>
void run(ProbeData<T>& d, K kernel, bool per_row, int reps) {
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * P, 0));
  const long resident = static_cast<long>(per_sm) * sms * P;
  const int programs = static_cast<int>(per_row ? d.rows : std::min<long>(resident, d.rows));
  const int blocks = (programs + P - 1) / P;
  std::printf("%s %ld x %ld, %d program(s) a block, %s: %d programs (%d blocks, %d a SM)\n",
              sizeof(T) == 4 ? "f32" : "bf16", d.rows, d.cols, P, per_row ? "one row a program" : "persistent",
              programs, blocks, per_sm);
  using E = std::conditional_t<sizeof(T) == 4, float, unsigned short>;
  auto launch = [&] {
    kernel<<<blocks, 32 * P>>>(reinterpret_cast<E*>(d.out), reinterpret_cast<E*>(d.in), static_cast<int>(d.cols),
                               static_cast<int>(d.cols), static_cast<int>(d.rows), static_cast<int>(d.cols), programs);
    CHECK(cudaGetLastError());
  };
  report_probe(d, launch, reps);
}

#define SWEEP(T, K)                         \
  for (int round = 0; round < 2; ++round) { \
    run<T, 1>(d, K<1>, false, r);           \
    run<T, 2>(d, K<2>, false, r);           \
    run<T, 4>(d, K<4>, false, r);           \
    run<T, 8>(d, K<8>, false, r);           \
  }

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 65536;
  const int r = argc > 2 ? std::atoi(argv[2]) : 200;
  {
    ProbeData<float> d(rows, 128);
    std::printf("-- f32, 8 stages\n");
    SWEEP(float, seed_f32_s8)
    std::printf("-- f32, 4 stages\n");
    SWEEP(float, seed_f32_s4)
    std::printf("-- f32, 8 stages, one row a program\n");
    run<float, 1>(d, seed_f32_s8<1>, true, r);
    run<float, 4>(d, seed_f32_s8<4>, true, r);
  }
  {
    ProbeData<__nv_bfloat16> d(rows, 128);
    std::printf("-- bf16, 8 stages\n");
    SWEEP(__nv_bfloat16, seed_bf16_s8)
    std::printf("-- bf16, 4 stages\n");
    SWEEP(__nv_bfloat16, seed_bf16_s4)
    std::printf("-- bf16, 8 stages, one row a program\n");
    run<__nv_bfloat16, 1>(d, seed_bf16_s8<1>, true, r);
    run<__nv_bfloat16, 4>(d, seed_bf16_s8<4>, true, r);
  }
  return 0;
}
