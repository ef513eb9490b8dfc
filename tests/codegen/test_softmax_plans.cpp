// ops::compile_softmax: the CUDA kernels each softmax band would launch compile for sm_90
// without a GPU, with no spills, and the split strategy brings its two kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "jit/build_choice.h"
#include "scoped_env.h"
#include "src/ops/softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax.h"
#include "tilejit/ops/softmax_autotune.h"
#include "tilejit/tilejit.h"

using namespace tilejit;

TEST_CASE("compile_softmax: every band's CUDA kernels compile without spilling") {
  ops::SoftmaxOptions cuda;
  cuda.backend = Backend::cuda;
  // Few wide rows: split_row's two kernels where the table (the hand table without a GPU, the
  // device's own table on one) splits them, one kernel elsewhere.
  for (auto [rows, cols] :
       {std::pair<std::int64_t, std::int64_t>{65536, 128}, {4096, 4096}, {4096, 65536}, {1, 1 << 20}, {16, 4 << 20}})
    for (DType t : {DType::f32, DType::bf16}) {
      CAPTURE(rows);
      CAPTURE(cols);
      CAPTURE(dtype_name(t));
      const bool split = ops::plan_softmax(rows, cols, t, t, cuda).config.strategy == ops::SoftmaxStrategy::split_row;
      if (!has_gpu()) CHECK(split == (rows * cols >= (1 << 20) && rows <= 16));  // the hand table's choice
      auto kernels =
          ops::compile_softmax(Pointer{0x10000, t}, Pointer{0x20000, t}, rows, cols, cols, cols, false, cuda);
      REQUIRE(kernels.size() == (split ? 2u : 1u));
      for (const CompiledKernel* k : kernels) {
        CHECK(k->metadata().backend == Backend::cuda);
        CHECK(k->stage("ptx").find(".entry " + k->metadata().entry_name) != std::string::npos);
        CHECK(k->metadata().spill_store_bytes == 0);
        CHECK(k->metadata().stack_frame_bytes == 0);
      }
    }
}

TEST_CASE("the tuned table shipped for the H200 parses and every configuration compiles") {
  using ops::SoftmaxStrategy;
  // Entries of src/ops/tuned/NVIDIA_H200.txt, read back through the lookup softmax uses.
  // One row of 16M: one group of 264 programs walking their slices, two stages; f32 in
  // interleaved blocks, bf16 in contiguous slices.
  auto wide = ops::shipped_softmax_config_for("NVIDIA H200", 1, 16 << 20, DType::f32);
  REQUIRE(wide);
  CHECK(wide->strategy == SoftmaxStrategy::group);
  CHECK(wide->splits == 264);
  CHECK(wide->num_stages == 2);
  CHECK(wide->interleave);
  auto wide_bf16 = ops::shipped_softmax_config_for("NVIDIA H200", 1, 16 << 20, DType::bf16);
  REQUIRE(wide_bf16);
  CHECK(wide_bf16->splits == 264);
  CHECK(!wide_bf16->interleave);
  auto mid = ops::shipped_softmax_config_for("NVIDIA H200", 4096, 4096, DType::f32);
  REQUIRE(mid);
  CHECK(mid->strategy == SoftmaxStrategy::row_in_registers);
  CHECK(mid->block == 4096);
  // One band serves every size in it; other devices and bands fall through to the hand table.
  CHECK(ops::shipped_softmax_config_for("NVIDIA H200", 3000, 3000, DType::f32) == mid);
  CHECK(!ops::shipped_softmax_config_for("NVIDIA H200", 100, 4096, DType::f32));
  CHECK(!ops::shipped_softmax_config_for("Some Other GPU", 4096, 4096, DType::f32));
  // Few wide rows: programs walking their slices of a row, several rows open at once.
  auto few_wide = [](std::int64_t rows, std::int64_t cols, DType t) {
    auto c = ops::shipped_softmax_config_for("NVIDIA H200", rows, cols, t);
    REQUIRE(c);
    CHECK(c->block * c->splits < cols);
    return ops::describe(*c);
  };
  CHECK(few_wide(128, 1 << 20, DType::f32) == "group BLOCK=8192 warps=8 group=64");
  CHECK(few_wide(16, 4 << 20, DType::f32) == "group BLOCK=8192 warps=8 group=264 min_blocks=4 interleave codegen=ptx");
  CHECK(few_wide(16, 4 << 20, DType::bf16) == "group BLOCK=8192 warps=8 group=132 codegen=ptx");
  CHECK(few_wide(128, 1 << 20, DType::bf16) == "cluster BLOCK=8192 warps=8 stages=2 cluster=16 codegen=ptx");

  // bf16 rows of 16384 over clusters of 2, with ptxas asked to fit five blocks an SM.
  auto bounded = ops::shipped_softmax_config_for("NVIDIA H200", 4096, 16384, DType::bf16);
  REQUIRE(bounded);
  CHECK(bounded->strategy == SoftmaxStrategy::cluster);
  CHECK(bounded->splits == 2);
  CHECK(bounded->min_blocks_per_sm == 5);
  CHECK(ops::shipped_softmax_config_for("NVIDIA H200", 4096, 16384, DType::f32)->min_blocks_per_sm == 0);

  // bf16 rows of 262144 over clusters of 16 holding them, the next row in flight, ptxas asked to
  // fit two blocks an SM.
  auto held = ops::shipped_softmax_config_for("NVIDIA H200", 4096, 262144, DType::bf16);
  REQUIRE(held);
  CHECK(held->strategy == SoftmaxStrategy::cluster);
  CHECK(held->block * held->splits == 262144);
  CHECK(held->num_stages == 2);
  CHECK(held->min_blocks_per_sm == 2);

  ops::SoftmaxOptions cuda;
  cuda.backend = Backend::cuda;
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{4096, 256},
                            {4096, 1024},
                            {4096, 2048},
                            {4096, 4096},
                            {4096, 8192},
                            {4096, 16384},
                            {4096, 65536},
                            {4096, 262144},
                            {16, 4 << 20},
                            {1, 16 << 20},
                            {128, 1 << 20},
                            {1, 1 << 20},
                            {65536, 32},
                            {65536, 128},
                            {32768, 512}})
    for (DType t : {DType::f32, DType::bf16}) {
      CAPTURE(rows);
      CAPTURE(cols);
      CAPTURE(dtype_name(t));
      auto c = ops::shipped_softmax_config_for("NVIDIA H200", rows, cols, t);
      REQUIRE(c);
      cuda.config = *c;
      CAPTURE(ops::describe(*c));
      // The builds the default (tiered) generator settles on spill nothing. Each generator alone
      // spills a few bytes on two entries under their blocks-an-SM bounds (ptxas 13.0): the PTX
      // generator's at bf16 4096 x 2048 (12) and 4096 x 262144 (4), NVRTC's at bf16 4096 x 65536
      // (4) and f32 65536 x 128 (12); tiered builds the other and keeps it.
      auto kernels = [&] {
        return ops::compile_softmax(Pointer{0x10000, t}, Pointer{0x20000, t}, rows, cols, cols, cols, false, cuda);
      };
      kernels();
      wait_for_background_compiles();
      for (const CompiledKernel* k : kernels()) CHECK(k->metadata().spill_store_bytes == 0);
    }
}

TEST_CASE("a device's own table comes first, then those of devices of the same compute capability and SM count") {
  using Devices = std::vector<std::string>;
  // The H200 and the H100 SXM (sm_90, 132 SMs) each ask their own table, then the other's; other
  // parts have none, and the built-in table decides.
  CHECK(ops::shipped_table_devices("NVIDIA H200", 9, 0, 132) == Devices{"NVIDIA H200", "NVIDIA H100 80GB HBM3"});
  CHECK(ops::shipped_table_devices("NVIDIA H100 80GB HBM3", 9, 0, 132) ==
        Devices{"NVIDIA H100 80GB HBM3", "NVIDIA H200"});
  CHECK(ops::shipped_table_devices("NVIDIA H100 PCIe", 9, 0, 114).empty());
  CHECK(ops::shipped_table_devices("NVIDIA A100-SXM4-80GB", 8, 0, 108).empty());
  CHECK(ops::shipped_table_devices("A future part", 10, 0, 132).empty());
  // A part of another name but the same properties borrows both, in the order shipped (file names).
  CHECK(ops::shipped_table_devices("NVIDIA H100 NVL-like", 9, 0, 132) ==
        Devices{"NVIDIA H100 80GB HBM3", "NVIDIA H200"});
  // A shipped name gets its own table whatever the properties say (a cut-down part of the name).
  CHECK(ops::shipped_table_devices("NVIDIA H200", 9, 0, 114) == Devices{"NVIDIA H200"});
  // The H100's table holds only the bands measured faster there; the rest come from the H200's.
  CHECK(ops::describe(*ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 16, 4 << 20, DType::f32)) ==
        "group BLOCK=8192 warps=8 group=264 min_blocks=4 codegen=ptx");
  CHECK(ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 1, 16 << 20, DType::bf16)->codegen == GpuCodegen::ptx);
  CHECK(!ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 4096, 4096, DType::f32));
  // Two bf16 bands are held at the H200's earlier entries, the ones measured on the H100.
  CHECK(ops::describe(*ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 16, 4 << 20, DType::bf16)) ==
        "group BLOCK=8192 warps=16 group=64");
  CHECK(ops::describe(*ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 128, 1 << 20, DType::bf16)) ==
        "group BLOCK=8192 warps=8 group=32 codegen=ptx");
  CHECK(!ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", 128, 1 << 20, DType::f32));
  // Its entries compile without spilling, through the generator they name where they name one.
  for (auto [rows, cols, dtype] : {std::tuple<std::int64_t, std::int64_t, DType>{16, 4 << 20, DType::f32},
                                   {1, 16 << 20, DType::bf16},
                                   {16, 4 << 20, DType::bf16},
                                   {128, 1 << 20, DType::bf16}}) {
    ops::SoftmaxOptions o;
    o.backend = Backend::cuda;
    o.config = ops::shipped_softmax_config_for("NVIDIA H100 80GB HBM3", rows, cols, dtype);
    REQUIRE(o.config);
    for (const CompiledKernel* k :
         ops::compile_softmax(Pointer{0x10000, dtype}, Pointer{0x20000, dtype}, rows, cols, cols, cols, false, o)) {
      if (o.config->codegen != GpuCodegen::automatic) CHECK(k->metadata().codegen == codegen_name(o.config->codegen));
      CHECK(k->metadata().spill_store_bytes == 0);
    }
  }
  // Without a GPU nothing is shipped for the CPU backend, so plans come from the built-in table.
  CHECK(ops::shipped_table_devices(Backend::cpu).empty());
  ops::SoftmaxOptions cuda;
  cuda.backend = Backend::cuda;
  for (auto [rows, cols, dtype] : {std::tuple<std::int64_t, std::int64_t, DType>{16, 4 << 20, DType::f32},
                                   {16, 4 << 20, DType::bf16},
                                   {4096, 4096, DType::f32}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    const ops::SoftmaxPlan plan = ops::plan_softmax(rows, cols, dtype, dtype, cuda);
    const Devices devices = ops::shipped_table_devices(Backend::cuda);
    if (!has_gpu()) {
      CHECK(devices.empty());
      CHECK(plan.source == ops::ConfigSource::table);
      CHECK(plan.table_device.empty());
    } else if (plan.source == ops::ConfigSource::device_table) {
      // On a GPU with tables and no tuning file entry: the first table holding the band, named.
      const auto holder = std::find_if(devices.begin(), devices.end(), [&](const std::string& d) {
        return ops::shipped_softmax_config_for(d, rows, cols, dtype).has_value();
      });
      REQUIRE(holder != devices.end());
      CHECK(plan.table_device == *holder);
      CHECK(plan.config == *ops::shipped_softmax_config_for(*holder, rows, cols, dtype));
      CHECK(plan.config == *ops::shipped_softmax_config(rows, cols, dtype, Backend::cuda));
    } else if (plan.source == ops::ConfigSource::table) {
      CHECK(plan.table_device.empty());
      CHECK(!ops::shipped_softmax_config(rows, cols, dtype, Backend::cuda));
    }
  }
}

TEST_CASE("wide-row softmax passes carry L2 eviction hints down to the PTX") {
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  // (A cluster or group of 4 x 2048 columns does not cover the row: its programs walk their slices twice.)
  for (auto strategy : {ops::SoftmaxStrategy::online, ops::SoftmaxStrategy::split_row, ops::SoftmaxStrategy::cluster,
                        ops::SoftmaxStrategy::group}) {
    ops::SoftmaxConfig c;
    c.strategy = strategy;
    c.block = 2048;
    c.num_warps = 4;
    c.splits = 4;
    o.config = c;
    const std::int64_t rows = 8, cols = 1 << 16;
    auto kernels = ops::compile_softmax(Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, rows, cols, cols,
                                        cols, false, o);
    std::string ir, ptx;
    for (const CompiledKernel* k : kernels) {
      ir += k->stage("ir");
      ptx += k->stage("ptx");
    }
    CAPTURE(ops::describe(c));
    // First pass: keep the row in L2 for the second; second pass: stream in and out.
    CHECK(ir.find("evict_last") != std::string::npos);
    CHECK(ir.find("evict_first") != std::string::npos);
    CHECK(ptx.find("createpolicy.fractional.L2::evict_last.b64") != std::string::npos);
    CHECK(ptx.find("ld.global.L2::cache_hint.v4.b32") != std::string::npos);
    CHECK(ptx.find("ld.global.cs.v4.b32") != std::string::npos);
    CHECK(ptx.find("st.global.cs.v4.b32") != std::string::npos);
  }
}

TEST_CASE("the autotuner tries thread-block clusters on CUDA (sm_90) only, in both forms") {
  auto clusters_in = [](std::int64_t rows, std::int64_t cols, Backend b) {
    std::vector<ops::SoftmaxConfig> out;
    for (const auto& c : ops::softmax_candidates(rows, cols, DType::f32, b))
      if (c.strategy == ops::SoftmaxStrategy::cluster) out.push_back(c);
    return out;
  };
  // Rows one program holds: clusters of 2 to 8 smaller programs, each holding its slice.
  auto mid = clusters_in(4096, 16384, Backend::cuda);
  REQUIRE(!mid.empty());
  for (const auto& c : mid) {
    CAPTURE(ops::describe(c));
    CHECK(c.block * c.splits >= 16384);
    CHECK(c.splits >= 2);
    CHECK(c.splits <= 8);
  }
  // Past what 16 programs hold: slices walked twice, with and without the next block in flight.
  auto wide = clusters_in(128, 1 << 20, Backend::cuda);
  REQUIRE(!wide.empty());
  std::set<int> wide_stages;
  for (const auto& c : wide) {
    CHECK(c.block * c.splits < (1 << 20));
    wide_stages.insert(c.num_stages);
  }
  CHECK(wide_stages == std::set<int>{1, 2});
  CHECK(clusters_in(4096, 4096, Backend::cuda).empty());
  if (has_cpu_backend()) CHECK(clusters_in(4096, 16384, Backend::cpu).empty());
}

TEST_CASE("the autotuner tries short rows with three row blocks in flight on CUDA only") {
  auto stages_in = [](Backend b) {
    std::set<int> out;
    for (const auto& c : ops::softmax_candidates(65536, 128, DType::f32, b))
      if (c.strategy == ops::SoftmaxStrategy::rows_2d && c.grid == ops::SoftmaxGrid::persistent)
        out.insert(c.num_stages);
    return out;
  };
  CHECK(stages_in(Backend::cuda) == std::set<int>{1, 2, 4});
  if (has_cpu_backend()) CHECK(stages_in(Backend::cpu) == std::set<int>{1, 2});
}

TEST_CASE("the autotuner packs one- and two-warp short-row programs into shared blocks on CUDA only") {
  auto packings_in = [](Backend b) {
    std::set<std::pair<int, int>> out;  // (warps, programs a block)
    for (const auto& c : ops::softmax_candidates(65536, 128, DType::bf16, b)) {
      CAPTURE(ops::describe(c));
      CHECK((c.programs_per_block == 1 || c.strategy == ops::SoftmaxStrategy::rows_2d));
      out.insert({c.num_warps, c.programs_per_block});
    }
    return out;
  };
  const auto cuda = packings_in(Backend::cuda);
  CHECK(cuda.count({1, 4}) == 1);
  CHECK(cuda.count({2, 2}) == 1);
  CHECK(cuda.count({1, 1}) == 1);
  for (auto [warps, programs] : cuda) CHECK((programs == 1 || warps <= 2));
  if (has_cpu_backend())
    for (auto [warps, programs] : packings_in(Backend::cpu)) CHECK(programs == 1);
}

TEST_CASE("a packed short-row configuration compiles to blocks of several programs under both generators") {
  // bf16 32768 x 512 as one-warp programs of two rows each, four programs a block of 128 threads.
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  o.config = ops::parse_config("rows_2d BLOCK=512 warps=1 rows/program=2 grid=per_row programs/block=4");
  for (const char* codegen : {"cuda", "ptx"}) {
    CAPTURE(codegen);
    setenv("TILEJIT_CODEGEN", codegen, 1);
    auto kernels = ops::compile_softmax(Pointer{0x10000, DType::bf16}, Pointer{0x20000, DType::bf16}, 32768, 512, 512,
                                        512, false, o);
    unsetenv("TILEJIT_CODEGEN");
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0]->metadata().programs_per_block == 4);
    CHECK(kernels[0]->metadata().key.find(" programs=4") != std::string::npos);
    CHECK(kernels[0]->stage("ptx").find(".maxntid 128, 1, 1") != std::string::npos);
  }
  // Where packing does not apply, or would not fit, the configuration is refused by name.
  const std::pair<const char*, const char*> refused[] = {
      {"online BLOCK=1024 warps=4 programs/block=2", "only rows_2d and row_in_registers share thread blocks"},
      {"rows_2d BLOCK=512 warps=16 rows/program=2 programs/block=4", "at most 32 warps a block"},
      {"rows_2d BLOCK=512 warps=1 rows/program=2 programs/block=17", "programs_per_block must be 1 to 16"},
      {"rows_2d BLOCK=512 warps=2 rows/program=2 programs/block=4 min_blocks=9", "at most 64 warps"},
  };
  for (const auto& [text, why] : refused) {
    CAPTURE(text);
    o.config = ops::parse_config(text);
    CHECK_THROWS_WITH_AS(ops::plan_softmax(32768, 512, DType::bf16, DType::bf16, o), doctest::Contains(why), Error);
  }
}

TEST_CASE("the autotuner tries groups on CUDA for rows past a cluster, holding or walking their slices") {
  auto groups_in = [](std::int64_t rows, std::int64_t cols, Backend b) {
    std::vector<ops::SoftmaxConfig> out;
    for (const auto& c : ops::softmax_candidates(rows, cols, DType::f32, b))
      if (c.strategy == ops::SoftmaxStrategy::group) out.push_back(c);
    return out;
  };
  auto wide = groups_in(128, 1 << 20, Backend::cuda);
  bool holds = false;
  std::set<int> walk_stages;
  for (const auto& c : wide) {
    CAPTURE(ops::describe(c));
    CHECK(c.grid == ops::SoftmaxGrid::persistent);
    CHECK(c.splits >= 2);
    holds = holds || c.block * c.splits >= (1 << 20);
    if (c.block * c.splits < (1 << 20)) walk_stages.insert(c.num_stages);
  }
  CHECK(holds);
  CHECK(walk_stages == std::set<int>{1, 2});  // walks with and without the next block in flight
  CHECK(groups_in(4096, 16384, Backend::cuda).empty());
  if (has_cpu_backend()) CHECK(groups_in(128, 1 << 20, Backend::cpu).empty());
}

namespace {

/// One kernel of a softmax launch (kernel `which` of `count`) as each GPU code generator builds it:
/// NVRTC's, the PTX generator's, and the one tiered runs once its background build is done.
struct Builds {
  const CompiledKernel *nvrtc, *ptx, *tiered;
};

Builds builds_of(const ops::SoftmaxConfig& config, DType t, std::int64_t rows, std::int64_t cols, std::size_t count,
                 std::size_t which) {
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  o.config = config;
  auto compile_with = [&](const char* codegen) {
    setenv("TILEJIT_CODEGEN", codegen, 1);
    auto kernels = ops::compile_softmax(Pointer{0x10000, t}, Pointer{0x20000, t}, rows, cols, cols, cols, false, o);
    unsetenv("TILEJIT_CODEGEN");
    REQUIRE(kernels.size() == count);
    return kernels[which];
  };
  Builds b{compile_with("cuda"), compile_with("ptx"), nullptr};
  compile_with("tiered");
  wait_for_background_compiles();
  b.tiered = compile_with("tiered");
  return b;
}

}  // namespace

TEST_CASE("tiered runs the build more of whose blocks an SM holds") {
  // bf16 split rows, the second of two kernels (4096 columns a step over 8 warps, 2 stages, as
  // the H200 table ran 16 x 4M before its walked groups): NVRTC 13.0 builds it at 48 registers (5 blocks an SM), the
  // PTX generator at 40 (6). Whichever way a toolchain goes, tiered must end on the build with more blocks, or on
  // NVRTC's where they tie.
  const Builds b =
      builds_of(ops::SoftmaxConfig{ops::SoftmaxStrategy::split_row, 4096, 8, 2, 1, 33, ops::SoftmaxGrid::persistent},
                DType::bf16, 16, 4 << 20, 2, 1);
  auto blocks = [](const CompiledKernel* k) {
    return jit::resident_blocks_per_sm(k->metadata().registers, 32 * k->metadata().num_warps, "sm_90");
  };
  CAPTURE(b.nvrtc->metadata().registers);
  CAPTURE(b.ptx->metadata().registers);
  CHECK(b.tiered->metadata().codegen == (blocks(b.ptx) > blocks(b.nvrtc) ? "ptx" : "cuda"));
}

TEST_CASE("a bf16 row walk that stores f32 scalars still loads 16 bytes at a time") {
  // Split rows' first kernel: bf16 blocks in, two f32 statistics out as scalars. The vector width
  // follows block accesses only, so the loads move 8 elements each.
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  o.config = ops::SoftmaxConfig{ops::SoftmaxStrategy::split_row, 4096, 8, 2, 1, 528, ops::SoftmaxGrid::persistent};
  for (const char* codegen : {"cuda", "ptx"}) {
    CAPTURE(codegen);
    setenv("TILEJIT_CODEGEN", codegen, 1);
    auto kernels = ops::compile_softmax(Pointer{0x10000, DType::bf16}, Pointer{0x20000, DType::bf16}, 1, 16 << 20,
                                        16 << 20, 16 << 20, false, o);
    unsetenv("TILEJIT_CODEGEN");
    REQUIRE(kernels.size() == 2);
    const std::string& ptx = kernels[0]->stage("ptx");
    CHECK(ptx.find("ld.global.L2::cache_hint.v4.b32") != std::string::npos);
    CHECK(ptx.find("ld.global.L2::cache_hint.v2.b32") == std::string::npos);
  }
}

TEST_CASE("tiered keeps the PTX generator's kernel where NVRTC's spills and it does not") {
  // The cluster kernel holding 32768 f32 columns over 16 warps in one exchange (4096 x 262144):
  // 64 exponentials a thread live across the cluster barrier. NVRTC 13.0 spills there.
  const Builds b =
      builds_of(ops::SoftmaxConfig{ops::SoftmaxStrategy::cluster, 32768, 16, 1, 1, 8, ops::SoftmaxGrid::per_row},
                DType::f32, 4096, 262144, 1, 0);
  CHECK(b.ptx->metadata().spill_store_bytes == 0);
  CAPTURE(b.nvrtc->metadata().spill_store_bytes);
  const bool nvrtc_spills_more = b.nvrtc->metadata().spill_store_bytes > b.ptx->metadata().spill_store_bytes;
  CHECK(b.tiered->metadata().codegen == (nvrtc_spills_more ? "ptx" : "cuda"));
  CHECK(b.tiered->metadata().spill_store_bytes == 0);
}

TEST_CASE("walked slices keep what an SM's share of shared memory holds, unless L1 holds them") {
  if (has_gpu()) {
    MESSAGE("skipped: the budget follows the device's shared memory; this checks the H200 figures used without one");
    return;
  }
  using ops::SoftmaxStrategy;
  auto kept = [](SoftmaxStrategy s, std::int64_t block, int warps, std::int64_t slice, DType t,
                 std::int64_t kept_bytes = -1) {
    const ops::SoftmaxConfig c{s, block, warps, 1, 1, 2};
    return ops::detail::kept_blocks(c, slice, t, Backend::cuda, kept_bytes);
  };
  // Four programs of 256 threads an SM at 32 KiB slices: 128 KiB, which L1 holds. Nothing kept.
  CHECK(kept(SoftmaxStrategy::group, 4096, 8, 8192, DType::f32) == 0);
  // Two programs of 512 threads at 128 KiB slices: (228 KiB / 2 - 2 KiB) / 32 KiB blocks = 3 of 4.
  CHECK(kept(SoftmaxStrategy::group, 8192, 16, 32768, DType::f32) == 3);
  // A row of 16M over 264 programs: 112 KiB of each 256 KiB slice, in 16 KiB blocks.
  CHECK(kept(SoftmaxStrategy::group, 4096, 16, 65536, DType::f32) == 7);
  CHECK(kept(SoftmaxStrategy::group, 8192, 16, 65536, DType::bf16) == 7);
  // Never more than the slice, nothing with a budget of 0, and what an explicit budget holds.
  CHECK(kept(SoftmaxStrategy::cluster, 8192, 16, 8192 * 2, DType::bf16, 1 << 20) == 2);
  CHECK(kept(SoftmaxStrategy::group, 8192, 16, 32768, DType::f32, 0) == 0);
  CHECK(kept(SoftmaxStrategy::group, 4096, 8, 8192, DType::f32, 40000) == 2);
  CHECK(kept(SoftmaxStrategy::group, 4096, 8, 8192, DType::f32, 20000) == 1);
}

TEST_CASE("SoftmaxConfig::min_blocks_per_sm reaches both generators and caps the registers") {
  // bf16 rows of 16384 held over 8 warps (64 values a thread): ptxas takes more than 85 registers
  // unbounded (two blocks an SM), at most 80 when asked for three (65536 / (256 x 3) = 85, in steps of 8).
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  ops::SoftmaxConfig c{ops::SoftmaxStrategy::row_in_registers, 16384, 8, 1, 1, 1, ops::SoftmaxGrid::per_row};
  auto registers = [&](int min_blocks) {
    c.min_blocks_per_sm = min_blocks;
    o.config = c;
    auto kernels = ops::compile_softmax(Pointer{0x10000, DType::bf16}, Pointer{0x20000, DType::bf16}, 4096, 16384,
                                        16384, 16384, false, o);
    REQUIRE(kernels.size() == 1u);
    const KernelMetadata& md = kernels[0]->metadata();
    CHECK(md.min_blocks_per_sm == min_blocks);
    const bool bounded = min_blocks > 0;
    if (md.codegen == "cuda")
      CHECK((kernels[0]->stage("cuda").find("__launch_bounds__(256, 3)") != std::string::npos) == bounded);
    // NVRTC writes the CUDA C bound into its PTX the same way.
    CHECK((kernels[0]->stage("ptx").find(".minnctapersm 3") != std::string::npos) == bounded);
    return md.registers;
  };
  for (std::string generator : {"cuda", "ptx"}) {
    CAPTURE(generator);
    tilejit_test::ScopedEnv env("TILEJIT_CODEGEN", generator);
    CHECK(registers(0) > 85);
    CHECK(registers(3) <= 80);
  }
}

TEST_CASE("the autotuner also tries one block more an SM where registers limit a candidate") {
  using ops::SoftmaxStrategy;
  constexpr auto per_row = ops::SoftmaxGrid::per_row;
  // bf16 rows of 16384 over 8 warps: more than 85 registers, two blocks an SM where threads allow 8.
  const ops::SoftmaxConfig held{SoftmaxStrategy::row_in_registers, 16384, 8, 1, 1, 1, per_row};
  ops::SoftmaxConfig bounded = held;
  bounded.min_blocks_per_sm = 2;
  auto variants = ops::softmax_occupancy_variants({held, bounded}, 4096, 16384, DType::bf16);
  REQUIRE(variants.size() == 1u);  // none for a candidate that sets its own bound
  ops::SoftmaxConfig expected = held;
  expected.min_blocks_per_sm = 3;
  CHECK(variants[0] == expected);
  // One warp a program, at most 64 registers: the 32 blocks an SM holds are not limited by registers.
  const ops::SoftmaxConfig short_rows{SoftmaxStrategy::rows_2d, 512, 1, 1, 2, 1, per_row};
  CHECK(ops::softmax_occupancy_variants({short_rows}, 32768, 512, DType::bf16).empty());
  // A candidate that does not fit the shape compiles nothing and adds nothing.
  const ops::SoftmaxConfig too_narrow{SoftmaxStrategy::row_in_registers, 4096, 4, 1, 1, 1, per_row};
  CHECK(ops::softmax_occupancy_variants({too_narrow}, 4096, 16384, DType::bf16).empty());
}

TEST_CASE("the autotuner's own CUDA candidates are each configuration as both builds, then each build's variant") {
  using ops::SoftmaxStrategy;
  const std::int64_t rows = 4096, cols = 16384;
  const auto base = ops::softmax_candidates(rows, cols, DType::bf16, Backend::cuda);
  const auto tuned = ops::softmax_tuning_candidates(rows, cols, DType::bf16, Backend::cuda);
  REQUIRE(tuned.size() > 2 * base.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    CAPTURE(ops::describe(base[i]));
    ops::SoftmaxConfig ptx = base[i], cuda = base[i];
    ptx.codegen = GpuCodegen::ptx;
    cuda.codegen = GpuCodegen::cuda;
    CHECK(tuned[2 * i] == ptx);
    CHECK(tuned[2 * i + 1] == cuda);
  }
  // The rest are occupancy variants, each naming the build it was taken from and asking one block
  // an SM more than that build's registers allow. The row held over 8 warps is register-limited
  // as either generator builds it (more than 64 registers), so it has a variant for each.
  std::set<GpuCodegen> held_variants;
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  for (std::size_t i = 2 * base.size(); i < tuned.size(); ++i) {
    CAPTURE(ops::describe(tuned[i]));
    CHECK(tuned[i].codegen != GpuCodegen::automatic);
    ops::SoftmaxConfig build = tuned[i];
    build.min_blocks_per_sm = 0;
    o.config = build;
    int blocks = 1 << 10;
    for (const CompiledKernel* k : ops::compile_softmax(Pointer{0x10000, DType::bf16}, Pointer{0x20000, DType::bf16},
                                                        rows, cols, cols, cols, false, o))
      if (jit::register_limited(k->metadata())) blocks = std::min(blocks, jit::resident_blocks_per_sm(k->metadata()));
    CHECK(tuned[i].min_blocks_per_sm == blocks + 1);
    ops::SoftmaxConfig plain = build;
    plain.codegen = GpuCodegen::automatic;
    CHECK(std::find(base.begin(), base.end(), plain) != base.end());
    if (plain == ops::SoftmaxConfig{SoftmaxStrategy::row_in_registers, 16384, 8, 1, 1, 1, ops::SoftmaxGrid::per_row})
      held_variants.insert(tuned[i].codegen);
  }
  CHECK(held_variants == std::set<GpuCodegen>{GpuCodegen::ptx, GpuCodegen::cuda});
  // The CPU backend has one generator: its candidates are the defaults as they are.
  if (has_cpu_backend())
    CHECK(ops::softmax_tuning_candidates(rows, cols, DType::bf16, Backend::cpu) ==
          ops::softmax_candidates(rows, cols, DType::bf16, Backend::cpu));
}

TEST_CASE("persistent grids of walked slices stop at 1024 threads an SM, in whole sets") {
  using ops::SoftmaxStrategy;
  auto cap = [](int warps, std::int64_t set, int sms) {
    const ops::SoftmaxConfig c{SoftmaxStrategy::group, 4096, warps, 1, 1, set};
    return ops::detail::walk_program_cap(c, set, sms);
  };
  // An H200: groups of 132 (one program an SM) of 8 warps, four an SM; of 16 warps, two.
  CHECK(cap(8, 132, 132) == 4 * 132);
  CHECK(cap(16, 132, 132) == 2 * 132);
  CHECK(cap(16, 264, 132) == 264);
  // Clusters of 16 programs of 8 warps: 528 programs an H200 holds at that occupancy, 33 clusters.
  CHECK(cap(8, 16, 132) == 33 * 16);
  // 32 warps: one program an SM; a set larger than the device still launches whole, once.
  CHECK(cap(32, 132, 132) == 132);
  CHECK(cap(8, 1024, 132) == 1024);
}

TEST_CASE("a walked first pass reduces inside each thread: no barrier a step, no layout conversion") {
  // 16 x 4M f32 walked by groups of 132 programs (8 warps, the next block in flight). The pass's
  // statistics live in the layout of its per-thread reductions: the only barriers left are its
  // two block reductions at the end of the pass and the group exchange's two.
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  o.config = ops::SoftmaxConfig{ops::SoftmaxStrategy::group, 4096, 8, 2, 1, 132};
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (std::string generator : {"cuda", "ptx"}) {
    CAPTURE(generator);
    tilejit_test::ScopedEnv env("TILEJIT_CODEGEN", generator);
    auto kernels = ops::compile_softmax(Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 16, 4 << 20,
                                        4 << 20, 4 << 20, false, o);
    REQUIRE(kernels.size() == 1u);
    if (generator == "cuda") {
      const std::string cuda = kernels[0]->stage("cuda");
      CHECK(count(cuda, "__syncthreads") == 4u);
      CHECK(cuda.find("in another layout") == std::string::npos);
    }
    CHECK(count(kernels[0]->stage("ptx"), "bar.sync") == 4u);
    CHECK(kernels[0]->metadata().spill_store_bytes == 0);
  }
}

TEST_CASE("occupancy variants of walked slices stop at the 1024 threads an SM their grids run") {
  // Walks of 16 x 4M f32 in groups of 132: a variant asks ptxas for one block more than the
  // registers allow, but never past the blocks of 1024 threads the launch runs (four of 8 warps).
  for (int warps : {4, 8, 16}) {
    CAPTURE(warps);
    const ops::SoftmaxConfig walk{ops::SoftmaxStrategy::group, 4096, warps, 2, 1, 132};
    for (const auto& v : ops::softmax_occupancy_variants({walk}, 16, 4 << 20, DType::f32)) {
      CAPTURE(ops::describe(v));
      CHECK(v.min_blocks_per_sm * 32 * warps <= 1024);
    }
  }
}

TEST_CASE("parse_config reads back what describe writes, for every candidate the autotuner tries") {
  std::size_t read = 0;
  std::set<std::string> strategies;
  bool per_row = false, overlap = false, interleave = false, packed = false;
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{65536, 32},
                            {4096, 1000},
                            {4096, 16384},
                            {4096, 65536},
                            {128, 1 << 20},
                            {1, 16 << 20}})
    for (DType t : {DType::f32, DType::bf16})
      for (const ops::SoftmaxConfig& c : ops::softmax_candidates(rows, cols, t, Backend::cuda)) {
        // Each as the tuner lists it, and with the words only occupancy variants and forced
        // configurations add (the variants themselves would compile every candidate to find them).
        ops::SoftmaxConfig bounded = c;
        bounded.min_blocks_per_sm = 3;
        bounded.stat_cols = 8;
        bounded.codegen = GpuCodegen::ptx;
        packed = packed || c.programs_per_block != 1;
        for (const ops::SoftmaxConfig& v : {c, bounded}) {
          CAPTURE(ops::describe(v));
          CHECK(ops::parse_config(ops::describe(v)) == v);
          ++read;
        }
        strategies.insert(ops::strategy_name(c.strategy));
        per_row = per_row || c.grid == ops::SoftmaxGrid::per_row;
        overlap = overlap || c.overlap;
        interleave = interleave || c.interleave;
      }
  // Every strategy and every word was among them.
  CHECK(strategies.size() == 6);
  CHECK(per_row);
  CHECK(overlap);
  CHECK(interleave);
  CHECK(packed);
  CHECK(read > 100);
  // Words in any order, spaces and tabs between them; what is left out keeps its default.
  ops::SoftmaxConfig group{ops::SoftmaxStrategy::group, 8192, 16, 2, 1, 64};
  group.interleave = true;
  CHECK(ops::parse_config(" group\tinterleave group=64  stages=2 warps=16 BLOCK=8192 ") == group);
  ops::SoftmaxConfig online{ops::SoftmaxStrategy::online, 4096};
  CHECK(ops::parse_config("online BLOCK=4096") == online);
}

TEST_CASE("a configuration's generator builds its kernels, whatever TILEJIT_CODEGEN says") {
  // f32 16 x 4M in groups of 264, as the H100's autotuner picked it (through the PTX generator).
  ops::SoftmaxOptions o;
  o.backend = Backend::cuda;
  for (const char* environment : {"cuda", "ptx", "tiered"})
    for (const char* generator : {"ptx", "cuda"}) {
      CAPTURE(environment);
      CAPTURE(generator);
      setenv("TILEJIT_CODEGEN", environment, 1);
      o.config = ops::parse_config(std::string("group BLOCK=8192 warps=8 group=264 min_blocks=4 codegen=") + generator);
      CHECK(ops::describe(*o.config).ends_with(std::string(" codegen=") + generator));
      auto kernels = ops::compile_softmax(Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, 16, 4194304,
                                          4194304, 4194304, false, o);
      unsetenv("TILEJIT_CODEGEN");
      REQUIRE(!kernels.empty());
      for (const CompiledKernel* k : kernels) CHECK(k->metadata().codegen == generator);
    }
}

TEST_CASE("parse_config names the word it cannot use") {
  const std::pair<const char*, const char*> refused[] = {
      {"", "empty (it starts with a strategy"},
      {"automatic BLOCK=64", "unknown strategy 'automatic'"},
      {"rows_2d BLOCK=64 rows=2", "cannot read 'rows=2' (the words after the strategy are BLOCK=N"},
      {"online BLOCK=64 rows/program=2", "'rows/program=2' does not apply to online"},
      {"cluster BLOCK=8192 group=4", "'group=4' does not apply to cluster: its programs a row are cluster=N"},
      {"split_row BLOCK=4096 splits=8 splits=4", "'splits' is given twice"},
      {"online BLOCK=4k", "cannot read 'BLOCK=4k'"},
      {"online BLOCK=-64", "'BLOCK=-64' is negative"},
      {"online BLOCK=64 grid=each", "unknown grid in 'grid=each' (persistent or per_row)"},
      {"online BLOCK=64 codegen=nvcc", "unknown generator in 'codegen=nvcc' (ptx, cuda or tiered)"},
      {"online BLOCK=64 codegen=automatic", "unknown generator in 'codegen=automatic'"},
      {"online warps=4", "no BLOCK=N"},
  };
  for (const auto& [text, why] : refused) {
    CAPTURE(text);
    try {
      ops::parse_config(text);
      FAIL("accepted");
    } catch (const Error& e) {
      const std::string message = e.what();
      CHECK_MESSAGE(message.find(why) != std::string::npos, message);
      CHECK(message.find(std::string("softmax configuration '") + text + "'") != std::string::npos);
    }
  }
}
