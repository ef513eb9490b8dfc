// The configurations the softmax autotuner tries: the defaults per shape and backend, each CUDA
// configuration as both generators build it, and occupancy variants from each build's registers.
#include <algorithm>
#include <atomic>
#include <thread>

#include "jit/build_choice.h"
#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_autotune.h"

namespace tilejit::ops {

namespace {

// Runs work(i) for i in [0, n) on up to 16 threads: compiling candidates is most of a tuning run.
template <class Work>
void in_parallel(std::size_t n, Work work) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) work(i);
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

// The CUDA kernels of configuration c for this problem, or none where it does not compile.
std::vector<const CompiledKernel*> compile_candidate(const SoftmaxConfig& c, Pointer out, Pointer in, std::int64_t rows,
                                                     std::int64_t cols) {
  SoftmaxOptions forced;
  forced.backend = Backend::cuda;
  forced.config = c;
  try {
    if (detail::config_fits(c, rows, cols)) return compile_softmax(out, in, rows, cols, cols, cols, false, forced);
  } catch (const Error&) {
    // reported (and skipped) by the timing loop
  }
  return {};
}

}  // namespace

std::vector<std::vector<const CompiledKernel*>> detail::compile_candidates(const std::vector<SoftmaxConfig>& configs,
                                                                           Pointer out, Pointer in, std::int64_t rows,
                                                                           std::int64_t cols) {
  std::vector<std::vector<const CompiledKernel*>> kernels(configs.size());
  in_parallel(configs.size(), [&](std::size_t i) { kernels[i] = compile_candidate(configs[i], out, in, rows, cols); });
  return kernels;
}

std::vector<SoftmaxConfig> softmax_candidates(std::int64_t rows, std::int64_t cols, DType dtype, Backend backend) {
  (void)dtype;
  backend = detail::resolve_backend(backend);
  const std::int64_t width = detail::next_pow2(cols);
  const std::int64_t parallel = detail::parallelism(backend, 0);
  std::vector<SoftmaxConfig> out;
  auto add = [&](SoftmaxConfig c) {
    if (detail::config_fits(c, rows, cols) && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  auto packed = [](SoftmaxConfig c, int programs_per_block) {
    c.programs_per_block = programs_per_block;
    return c;
  };
  // Elements per thread per block between 2 and 64: fewer wastes lanes, more spills.
  auto warps_ok = [](std::int64_t elements, int w) { return elements >= 64 * w && elements <= 2048 * w; };
  // Persistent grids with and without the next row's loads in flight, and one program per row
  // (stages do not matter there: each program runs one step). Short rows on CUDA also try three
  // row blocks in flight (the seed at 65536 x 128: 0.94 of copy against 0.88 with one); the CPU
  // backend does not pipeline, so more stages would only repeat a candidate there.
  constexpr auto persistent = SoftmaxGrid::persistent, per_row = SoftmaxGrid::per_row;
  const std::vector<int> short_row_stages =
      backend == Backend::cuda ? std::vector<int>{1, 2, 4} : std::vector<int>{1, 2};
  // Programs of one or two warps on CUDA also run two and four to a thread block: alone, an SM's
  // 32 blocks would leave half its warp slots or more empty (the seed at f32 65536 x 128: 0.97 of
  // copy four a block against 0.94 alone).
  const std::vector<int> packings = backend == Backend::cuda ? std::vector<int>{1, 2, 4} : std::vector<int>{1};
  if (width <= 4096)
    for (std::int64_t r = 1; r * width <= 16384 && r <= 256; r *= 2)
      for (int w : {1, 2, 4, 8})
        for (int p : packings)
          if (warps_ok(r * width, w) && (p == 1 || w <= 2)) {
            for (int s : short_row_stages)
              if (s < 4 || r * width <= 16 * 32 * w)
                add(packed({SoftmaxStrategy::rows_2d, width, w, s, r, 1, persistent}, p));
            add(packed({SoftmaxStrategy::rows_2d, width, w, 1, r, 1, per_row}, p));
          }
  if (width <= 32768)
    for (int w : {4, 8, 16})
      if (warps_ok(width, w)) {
        for (int s : {1, 2}) add({SoftmaxStrategy::row_in_registers, width, w, s, 1, 1, persistent});
        add({SoftmaxStrategy::row_in_registers, width, w, 1, 1, 1, per_row});
      }
  if (cols > 1024)
    for (std::int64_t b : {1024, 2048, 4096, 8192})
      for (int w : {4, 8, 16})
        for (int s : {1, 2})
          if (b <= 2 * width && warps_ok(b, w)) add({SoftmaxStrategy::online, b, w, s, 1, 1});
  const bool clusters = detail::has_clusters(backend);
  // Clusters holding the row: each program 16 or 32 values per thread of its slice (64 with 16
  // warps: one program per SM, twice the bytes in flight of 32). Also for rows one program holds
  // (from 8192 columns): smaller programs, more of them per SM.
  if (width > 4096 && clusters)
    for (std::int64_t b : {2048, 4096, 8192, 16384, 32768})
      for (int w : {4, 8, 16})
        if (cdiv(cols, b) >= 2 && cdiv(cols, b) <= 16 &&
            (b == 16 * 32 * w || b == 32 * 32 * w || (b == 64 * 32 * w && w == 16)))
          for (auto grid : {persistent, per_row})
            for (int s : {1, 2})
              if (s == 1 || grid == persistent)
                add({SoftmaxStrategy::cluster, b, w, s, 1, std::max<std::int64_t>(2, cdiv(cols, b)), grid});
  // Clusters walking their slices twice (rows past 16 programs' registers): fewer rows open at
  // once than one program per row, so the second pass reads L2. With the next block in flight
  // too (bf16 128 x 1M: 0.66 of copy against 0.59).
  if (width > 65536 && clusters)
    for (std::int64_t cluster : {4, 8, 16})
      for (std::int64_t b : {4096, 8192})
        for (int w : {8, 16})
          for (int s : {1, 2})
            if (b * cluster < cols && warps_ok(b, w)) add({SoftmaxStrategy::cluster, b, w, s, 1, cluster, persistent});
  // Groups exchanging through global memory (any size, one cooperative launch): rows held in the
  // registers of more programs than a cluster has, and rows walked by up to two programs per SM.
  if (width >= 65536 && backend == Backend::cuda) {
    for (std::int64_t b : {8192, 16384, 32768})
      for (int w : {8, 16})
        if (b == 16 * 32 * w || b == 32 * 32 * w || (b == 64 * 32 * w && w == 16))
          if (cdiv(cols, b) >= 2 && cdiv(cols, b) <= 2 * parallel)
            for (bool overlap : {false, true})   // each row's exchange in flight while the next row is read
              if (!overlap || b <= 32 * 32 * w)  // two rows' slices held: at most 32 values a thread each
                add({SoftmaxStrategy::group, b, w, 1, 1, cdiv(cols, b), persistent, overlap});
    // Walked: 2 stages keep the walk's next block in flight (H200, one row of 16M over 264 programs
    // of 16 warps: 0.73 of copy against 0.65 with one; probes_e396dcc.md). Groups spanning the
    // GPU also walk interleaved blocks (f32 1 x 16M over 264 programs: 4% faster; level or slower
    // in smaller groups; probes_interleave_2026-12-01.md).
    for (std::int64_t group : {std::int64_t{32}, std::int64_t{64}, parallel, 2 * parallel})
      for (std::int64_t b : {4096, 8192})
        for (int w : {8, 16})
          for (int s : {1, 2})
            if (b * group < cols && warps_ok(b, w)) {
              SoftmaxConfig c{SoftmaxStrategy::group, b, w, s, 1, group, persistent};
              add(c);
              c.interleave = true;
              if (group >= parallel) add(c);
            }
  }
  if (cols > 4096 && rows <= 65535)
    for (std::int64_t per_unit : {1, 2, 4, 8})
      for (std::int64_t b : {2048, 4096})
        for (int w : {4, 8})
          for (int s : {1, 2}) {
            std::int64_t splits =
                std::clamp<std::int64_t>(cdiv(per_unit * parallel, rows), 1, std::max<std::int64_t>(1, cols / b));
            if (splits > 1 && warps_ok(b, w)) add({SoftmaxStrategy::split_row, b, w, s, 1, splits});
          }
  return out;
}

std::vector<SoftmaxConfig> softmax_occupancy_variants(const std::vector<SoftmaxConfig>& candidates, std::int64_t rows,
                                                      std::int64_t cols, DType dtype) {
  // 16-byte aligned stand-ins: the kernels' keys match those of real allocations.
  const Pointer out{0x20000, dtype}, in{0x10000, dtype};
  const std::vector<std::vector<const CompiledKernel*>> kernels =
      detail::compile_candidates(candidates, out, in, rows, cols);
  std::vector<SoftmaxConfig> variants;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].min_blocks_per_sm != 0 || kernels[i].empty()) continue;
    // The fewest blocks an SM any of its kernels holds, where registers are what limit them.
    int blocks = 0;
    for (const CompiledKernel* k : kernels[i]) {
      const KernelMetadata& md = k->metadata();
      if (!jit::register_limited(md)) continue;
      const int resident = jit::resident_blocks_per_sm(md);
      blocks = blocks == 0 ? resident : std::min(blocks, resident);
    }
    if (blocks == 0) continue;
    // Walked slices launch at most 1024 threads an SM (walk_program_cap): a block more than that
    // would only cost registers.
    if (detail::walks_slices(candidates[i], cols) && (blocks + 1) * 32 * candidates[i].num_warps > 1024) continue;
    SoftmaxConfig v = candidates[i];
    v.min_blocks_per_sm = blocks + 1;
    if (detail::config_fits(v, rows, cols)) variants.push_back(v);
  }
  return variants;
}

std::vector<SoftmaxConfig> softmax_tuning_candidates(std::int64_t rows, std::int64_t cols, DType dtype,
                                                     Backend backend) {
  backend = detail::resolve_backend(backend);
  std::vector<SoftmaxConfig> candidates = softmax_candidates(rows, cols, dtype, backend);
  if (backend != Backend::cuda) return candidates;
  // Each as each generator builds it. Left to the default (tiered), a first compile gets the PTX
  // generator's build and queues NVRTC's on one background thread, so the sweep would time the
  // one and every later process run the other, and the two can differ at equal occupancy.
  std::vector<SoftmaxConfig> builds;
  for (SoftmaxConfig c : candidates)
    for (GpuCodegen g : {GpuCodegen::ptx, GpuCodegen::cuda}) {
      c.codegen = g;
      builds.push_back(c);
    }
  // Variants from each build's own registers, which differ between the generators; compiling the
  // builds here also leaves them in the kernel cache for the sweep.
  for (const SoftmaxConfig& v : softmax_occupancy_variants(builds, rows, cols, dtype)) builds.push_back(v);
  return builds;
}

}  // namespace tilejit::ops
