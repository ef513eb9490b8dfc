// Group reductions (tl::group_*) through the PTX generator, without a GPU: the kernels the GPU
// suite runs (tests/kernels/test_cluster_reductions.cpp) and the softmax op's group strategies
// assemble from generated PTX without spilling, with the CUDA C generator's protocol (one
// release-add and one acquire spin a reduction, warp 0 reading the slots), and the tiered
// default keeps such kernels on NVRTC until they have run on a GPU. The numerics run in
// test_kernels_gpu_ptx.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <regex>
#include <string>
#include <vector>

#include "codegen/ptx_access_counts.h"
#include "jit/jit_test_util.h"
#include "kernels/cluster_rows_kernel.h"
#include "scoped_env.h"
#include "tilejit/kernel.h"
#include "tilejit/ops/softmax.h"

using namespace tilejit;
using tilejit_test::occurrences;

namespace {

CompileOptions options(GpuCodegen codegen, const std::string& arch = "sm_80") {
  CompileOptions o;
  o.num_warps = 4;
  o.arch = arch;
  o.backend = Backend::cuda;
  o.codegen = codegen;
  return o;
}

// The PTX generator's build: its own, assembled, nothing spilled.
void check_assembled(const CompiledKernel& k) {
  const KernelMetadata& md = k.metadata();
  REQUIRE_MESSAGE(md.codegen == "ptx", md.compile_reason);
  CHECK_FALSE(k.stage("cubin").empty());
  CHECK(md.registers > 0);
  CHECK(md.spill_store_bytes == 0);
  CHECK(md.spill_load_bytes == 0);
  CHECK(md.stack_frame_bytes == 0);
}

// Integer and double values across a group: max, min and sum of each.
void group_wide_types_kernel(tl::Ptr out, tl::Ptr workspace, tl::Int n, tl::Constexpr GROUP) {
  auto rank = tl::program_id(0) % GROUP;
  auto i = (rank * 3 - n).to(DType::i64);
  auto d = rank.to(DType::f64) * 0.5;
  auto values = tl::group_max(i, GROUP, workspace) + tl::group_min(i, GROUP, workspace) +
                tl::group_sum(i, GROUP, workspace) + tl::group_sum(rank, GROUP, workspace).to(DType::i64);
  auto doubles =
      tl::group_max(d, GROUP, workspace) + tl::group_min(d, GROUP, workspace) + tl::group_sum(d, GROUP, workspace);
  tl::store(out + tl::program_id(0), values.to(DType::f64) + doubles, rank == 0);
}

}  // namespace

TEST_CASE("PTX path: group reductions, one release-add and one acquire spin each, warp 0 reading the slots") {
  const CompiledKernel& k =
      tilejit_test::group_rows().compile(tilejit_test::group_rows_compile_args(40), options(GpuCodegen::ptx));
  check_assembled(k);
  CHECK(k.metadata().group_size == 40);
  const std::string& ptx = k.stage("ptx");
  // Four reductions per row (max, sum, min, count): each thread 0 writes its slot, arrives and spins.
  CHECK(occurrences(ptx, "st.relaxed.gpu.global.") == 4);
  CHECK(occurrences(ptx, "atom.release.gpu.global.add.u32") == 4);
  CHECK(occurrences(ptx, "ld.acquire.gpu.global.u32") == 4);
  // Warp 0 polls together, leaving the spin at once (vote.sync.all) for the slots.
  CHECK(occurrences(ptx, "vote.sync.all.pred") == 4);
  CHECK(occurrences(ptx, "shfl.sync.idx.b32") == 4);  // thread 0's arrival word to every lane
  CHECK(ptx.find("membar") == std::string::npos);
  // Rank 0 adds 2^31 - 39, the others 1; the group's part of the workspace is 1792 bytes.
  CHECK(ptx.find(fmt::format(", {}, 1, ", 0x80000000u - 39)) != std::string::npos);
  CHECK(occurrences(ptx, fmt::format(", {};", group_workspace_stride(40))) == 4);
  // 40 programs: two slots a lane, the second only for lanes 0-7; f32 and i32 slots, 8 bytes apart.
  CHECK(occurrences(ptx, "setp.lt.u32") >= 4);
  CHECK(occurrences(ptx, "ld.relaxed.gpu.global.f32") == 6);  // max, sum, min: two each
  CHECK(occurrences(ptx, "ld.relaxed.gpu.global.b32") == 2);  // the count
  // The result goes through shared memory to every warp.
  CHECK(occurrences(ptx, "[tj_group_result]") == 8);
}

TEST_CASE("PTX path: softmax stats across a group, whole and split, of one and of 40 programs") {
  const CompiledKernel& whole = tilejit_test::group_stats().compile(
      tilejit_test::group_stats_compile_args(7, 4000, 128, 40), options(GpuCodegen::ptx));
  check_assembled(whole);
  CHECK(occurrences(whole.stage("ptx"), "st.relaxed.gpu.global.v2.f32") == 1);
  CHECK(occurrences(whole.stage("ptx"), "ld.relaxed.gpu.global.v2.f32") == 2);  // loaded once for both passes

  // Split: the start arrives and keeps the word it saw; the finish waits on it. Two of each (before
  // the loop and in it), as in the CUDA C build.
  const CompiledKernel& split = tilejit_test::group_stats_split().compile(
      tilejit_test::group_stats_compile_args(7, 4000, 128, 40), options(GpuCodegen::ptx));
  check_assembled(split);
  const std::string& ptx = split.stage("ptx");
  CHECK(occurrences(ptx, "atom.release.gpu.global.add.u32") == 2);
  CHECK(occurrences(ptx, "ld.acquire.gpu.global.u32") == 2);
  CHECK(occurrences(ptx, "st.shared.u32") == 2);
  CHECK(occurrences(ptx, "ld.shared.u32") == 2);
  CHECK(occurrences(ptx, ".shared .align 4 .b32 tj_group_seen[4];") == 1);
  CHECK(occurrences(ptx, "ld.relaxed.gpu.global.v2.f32") == 4);

  // A split group of one still meets at its barrier; a whole one is its own value, no workspace.
  const CompiledKernel& split_of_one = tilejit_test::group_stats_split().compile(
      tilejit_test::group_stats_compile_args(7, 4000, 128, 1), options(GpuCodegen::ptx));
  check_assembled(split_of_one);
  CHECK(occurrences(split_of_one.stage("ptx"), "atom.release.gpu.global.add.u32") == 2);
  CHECK(split_of_one.stage("ptx").find(fmt::format(", {}, 1, ", 0x80000000u)) != std::string::npos);
  const CompiledKernel& whole_of_one = tilejit_test::group_stats().compile(
      tilejit_test::group_stats_compile_args(7, 4000, 128, 1), options(GpuCodegen::ptx));
  check_assembled(whole_of_one);
  CHECK(whole_of_one.stage("ptx").find("tj_group") == std::string::npos);
}

TEST_CASE("PTX path: groups past 16 slots a lane read their slots one chunk at a time") {
  for (std::int64_t group : {512, 600, 4096}) {
    CAPTURE(group);
    const CompiledKernel& stats = tilejit_test::group_stats().compile(
        tilejit_test::group_stats_compile_args(7, 1 << 20, 256, group), options(GpuCodegen::ptx));
    check_assembled(stats);
    const int per_lane = static_cast<int>((group + 31) / 32);
    // Past 16 slots a lane, each step of the loop folds its chunk into the partials the next step
    // starts from: the registers set before the loop are set again inside it.
    const std::regex carried_max(R"(mov\.f32 (%f\d+), 0fFF800000;[\s\S]*mov\.f32 \1, %f\d+;)");
    const std::regex carried_sum(R"(mov\.f32 (%f\d+), 0f00000000;[\s\S]*mov\.f32 \1, %f\d+;)");
    if (per_lane <= 16) {  // straight-line: every load in flight at once, loaded once
      CHECK(occurrences(stats.stage("ptx"), "ld.relaxed.gpu.global.v2.f32") == per_lane);
    } else {  // a loop over chunks of 16, once for the max and once for the sum
      CHECK(occurrences(stats.stage("ptx"), "ld.relaxed.gpu.global.v2.f32") == 2 * 16);
      CHECK(occurrences(stats.stage("ptx"), fmt::format(", {};", per_lane)) == 2);
      CHECK(stats.metadata().registers <= 64);
      const std::string& ptx = stats.stage("ptx");
      const std::string exchange = ptx.substr(ptx.find("vote.sync.all.pred"));
      CHECK(std::regex_search(exchange, carried_max));
      CHECK(std::regex_search(exchange, carried_sum));
    }
    const CompiledKernel& rows =
        tilejit_test::group_rows().compile(tilejit_test::group_rows_compile_args(group), options(GpuCodegen::ptx));
    check_assembled(rows);
    CHECK(rows.metadata().registers <= 64);
    if (per_lane > 16) {  // the first exchange, a max
      const std::string& ptx = rows.stage("ptx");
      CHECK(std::regex_search(ptx.substr(ptx.find("vote.sync.all.pred")), carried_max));
    }
  }
}

TEST_CASE("PTX path: group reductions of i32, i64 and f64 values") {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr> k("group_wide_types", group_wide_types_kernel,
                                                                  {"out", "workspace", "n", "GROUP"});
  for (std::int64_t group : {2, 48}) {
    CAPTURE(group);
    const CompiledKernel& c = k.compile({Pointer{0x10000, DType::f64}, Pointer{0x20000, DType::i32}, 5, group},
                                        options(GpuCodegen::ptx, "sm_90"));
    check_assembled(c);
    const std::string& ptx = c.stage("ptx");
    CHECK(occurrences(ptx, "atom.release.gpu.global.add.u32") == 7);
    CHECK(occurrences(ptx, "st.relaxed.gpu.global.b64") == 3);
    CHECK(occurrences(ptx, "st.relaxed.gpu.global.f64") == 3);
    CHECK(occurrences(ptx, "st.relaxed.gpu.global.b32") == 1);
    CHECK(ptx.find("0x8000000000000000") != std::string::npos);  // the i64 max's identity
    CHECK(ptx.find("0d7FF0000000000000") != std::string::npos);  // the f64 min's
  }
}

TEST_CASE("PTX path: the softmax op's group strategies assemble without spilling") {
  struct Case {
    DType dtype;
    std::int64_t rows, cols;
    const char* config;
  };
  // The group entries of the H200 and H100 tables (src/ops/tuned/), and the overlapped walk, whose
  // exchanges are split.
  const Case cases[] = {
      {DType::bf16, 1, 1 << 20, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=128"},
      {DType::bf16, 1, 1 << 24, "group BLOCK=8192 warps=16 stages=2 grid=persistent group=264"},
      {DType::bf16, 16, 1 << 22, "group BLOCK=8192 warps=16 stages=1 grid=persistent group=64"},
      {DType::bf16, 128, 1 << 20, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=32"},
      {DType::f32, 1, 1 << 24, "group BLOCK=4096 warps=16 stages=2 grid=persistent group=264 interleave"},
      {DType::bf16, 16, 1 << 22, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=132"},
      {DType::f32, 16, 1 << 22, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=264 min_blocks=4"},
      {DType::f32, 16, 1 << 22, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=264 min_blocks=4 interleave"},
      {DType::f32, 128, 1 << 20, "group BLOCK=8192 warps=8 stages=1 grid=persistent group=64"},
      {DType::f32, 16, 1 << 22, "group BLOCK=8192 warps=16 stages=1 grid=persistent group=128 overlap"},
  };
  for (const Case& c : cases) {
    const std::string config = c.config;
    CAPTURE(config);
    CAPTURE(c.rows);
    ops::SoftmaxOptions o;
    o.backend = Backend::cuda;
    o.config = ops::parse_config(c.config);
    const Pointer in{0x10000, c.dtype}, out{0x20000, c.dtype};
    tilejit_test::ScopedEnv generator("TILEJIT_CODEGEN", "ptx");
    for (const CompiledKernel* k : ops::compile_softmax(out, in, c.rows, c.cols, c.cols, c.cols, false, o)) {
      CAPTURE(k->metadata().kernel_name);
      check_assembled(*k);
      CHECK(k->metadata().group_size > 1);
    }
  }
}

TEST_CASE("the tiered default takes the PTX generator's group kernels first") {
  // They passed the GPU suites (test_kernels_gpu_ptx, H100, 2026-12-05). A private disk cache and a
  // group size no other case compiles, so no NVRTC build of it is there to be taken instead.
  tilejit_test::ScopedEnv generator("TILEJIT_CODEGEN", nullptr);
  jit_test::ScopedCache cache;
  const CompiledKernel& k =
      tilejit_test::group_rows().compile(tilejit_test::group_rows_compile_args(48), options(GpuCodegen::tiered));
  CHECK(k.metadata().codegen == "ptx");
  CHECK(k.metadata().group_size > 1);
  wait_for_background_compiles();  // NVRTC's build, into the private cache before it goes
}
