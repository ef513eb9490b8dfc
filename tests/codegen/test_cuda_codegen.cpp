// CUDA C generated for the example kernels: its shape (entry, launch bounds, #line, register
// arrays indexed only by unrolled loops) and NVRTC compiling it for several targets, dtypes and
// warp counts without spilling. None of this needs a GPU.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "example_kernels.h"
#include "kernels/cluster_rows_kernel.h"
#include "kernels/loop_reductions_kernel.h"
#include "kernels/stash_round_trip_kernel.h"
#include "ptx_access_counts.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"

using namespace tilejit;
using examples::ExampleKernel;

namespace {

constexpr std::int64_t kRows = 8, kCols = 1000, kBlock = 1024;

const CompiledKernel& compile_example(const ExampleKernel& e, DType dtype, const std::string& arch, int num_warps = 4,
                                      std::int64_t block = kBlock, std::int64_t cols = kCols) {
  auto args = e.arguments(kRows, cols, block, dtype);
  return e.kernel->compile(args, {.num_warps = num_warps, .num_stages = 1, .arch = arch, .codegen = GpuCodegen::cuda});
}

// Each kernel once (the registry also lists "softmax" as an alias).
std::vector<const ExampleKernel*> distinct_examples() {
  std::vector<const ExampleKernel*> out;
  std::set<const KernelBase*> seen;
  for (const auto& e : examples::example_kernels())
    if (seen.insert(e.kernel).second) out.push_back(&e);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

// [first, last] lines of `inline void <fn>(` ... `}` in a header.
std::pair<int, int> function_lines(const std::vector<std::string>& file, const std::string& fn) {
  int first = 0;
  for (std::size_t i = 0; i < file.size(); ++i) {
    if (!first && file[i].find("inline void " + fn + "(") != std::string::npos) first = static_cast<int>(i) + 1;
    if (first && file[i] == "}") return {first, static_cast<int>(i) + 1};
  }
  return {0, 0};
}

}  // namespace

TEST_CASE("every example kernel: extern \"C\" __global__ entry with __launch_bounds__(32 * num_warps)") {
  for (const ExampleKernel* e : distinct_examples()) {
    for (int warps : {4, 8}) {
      CAPTURE(e->name);
      CAPTURE(warps);
      const CompiledKernel& k = compile_example(*e, DType::f32, "sm_90", warps);
      const std::string& cuda = k.stage("cuda");
      const std::string entry = k.metadata().entry_name;
      CHECK(entry.rfind(e->kernel->name() + "_", 0) == 0);
      std::string head =
          "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(32 * warps) + ") " + entry + "(";
      CHECK(cuda.find(head) != std::string::npos);
      // One kernel per module.
      CHECK(cuda.find("__global__") == cuda.rfind("__global__"));
    }
  }
}

TEST_CASE("every example kernel: #line directives point into the kernel's own function") {
  // The seed kernels are library kernels (include/tilejit/ops); the others are examples.
  const std::map<std::string, std::string> header = {{"softmax_simple", "include/tilejit/ops/softmax_seed.h"},
                                                     {"softmax_held", "include/tilejit/ops/softmax_seed.h"},
                                                     {"softmax_persistent", "include/tilejit/ops/softmax_seed.h"},
                                                     {"softmax_rows_2d", "examples/kernels/softmax_rows_2d.h"},
                                                     {"softmax_online", "examples/kernels/softmax_online.h"},
                                                     {"layernorm", "examples/kernels/layernorm.h"},
                                                     {"vector_add", "examples/kernels/vector_add.h"}};
  static const std::regex directive(R"re(^#line (\d+) "([^"]+)"$)re");
  for (const ExampleKernel* e : distinct_examples()) {
    const std::string name = e->kernel->name();
    CAPTURE(name);
    REQUIRE(header.count(name));
    const std::string& cuda = compile_example(*e, DType::f16, "sm_90").stage("cuda");
    int directives = 0;
    std::set<int> lines;
    for (const std::string& l : lines_of(cuda)) {
      std::smatch m;
      if (!std::regex_match(l, m, directive)) continue;
      ++directives;
      const std::string path = m[2].str();
      CAPTURE(path);
      CHECK(path.ends_with(header.at(name)));
      lines.insert(std::stoi(m[1].str()));
      // The directive names a real file, and a line inside the kernel function.
      std::ifstream file(path);
      REQUIRE(file.good());
      std::stringstream text;
      text << file.rdbuf();
      auto [first, last] = function_lines(lines_of(text.str()), name + "_kernel");
      REQUIRE(first > 0);
      CHECK(std::stoi(m[1].str()) > first);
      CHECK(std::stoi(m[1].str()) < last);
    }
    CHECK(directives > 0);
    CHECK(lines.size() >= 2);  // several source lines, not one stamp for the whole kernel
  }
}

TEST_CASE("every example kernel: register arrays are indexed only by unrolled-loop constants") {
  static const std::regex array_use(R"(\b(v\d+\w*)\[([^\]]*)\])");
  static const std::regex allowed_index(R"(^[rk0-9|&~ ()+]+$)");  // r, r | k, r + 3 ...
  static const std::regex counted_loop(R"(for \(int ([rks]) = \d+; \1 < (\w+); \+\+\1\))");
  for (const ExampleKernel* e : distinct_examples()) {
    for (DType t : {DType::f32, DType::bf16}) {
      CAPTURE(e->name);
      const std::string& cuda = compile_example(*e, t, "sm_90", 8).stage("cuda");
      auto lines = lines_of(cuda);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        CAPTURE(l);
        for (auto it = std::sregex_iterator(l.begin(), l.end(), array_use); it != std::sregex_iterator(); ++it)
          CHECK(std::regex_match((*it)[2].str(), allowed_index));
        // Loops over registers run a compile-time number of times and are unrolled.
        std::smatch m;
        if (std::regex_search(l, m, counted_loop)) {
          CHECK(
              std::all_of(m[2].first, m[2].second, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }));
          if (m[1].str() != "s") {
            REQUIRE(i > 0);
            CHECK(trim(lines[i - 1]) == "#pragma unroll");
          }
        }
      }
    }
  }
}

TEST_CASE("NVRTC compiles every example kernel for sm_80 and sm_90 at f32, f16 and bf16") {
  for (const ExampleKernel& e : examples::example_kernels()) {
    for (const char* arch : {"sm_80", "sm_90"}) {
      for (DType t : {DType::f32, DType::f16, DType::bf16}) {
        CAPTURE(e.name);
        CAPTURE(arch);
        CAPTURE(dtype_name(t));
        const CompiledKernel* k = nullptr;
        try {
          k = &compile_example(e, t, arch);
        } catch (const CompileError& err) {
          FAIL_CHECK("NVRTC rejected the kernel: " << err.what() << "\n" << err.log());
          continue;
        }
        const auto& md = k->metadata();
        CHECK(md.arch == arch);
        const std::string& ptx = k->stage("ptx");
        CHECK(ptx.find(".entry " + md.entry_name + "(") != std::string::npos);
        CHECK(ptx.find(std::string(".target ") + arch) != std::string::npos);
        CHECK(ptx.find(".maxntid 128, 1, 1") != std::string::npos);
        const std::string& cubin = k->stage("cubin");
        REQUIRE(cubin.size() > 4);
        CHECK(cubin.substr(0, 4) ==
              "\x7f"
              "ELF");
        // The IR sees the pointee type the arguments asked for.
        CHECK(k->stage("ir").find(std::string("ptr<") + std::string(dtype_name(t)) + ">") != std::string::npos);
      }
    }
  }
}

TEST_CASE("seed softmax kernels keep everything in registers (no spills, no stack) at 8 warps") {
  for (const char* name : {"softmax_simple", "softmax_persistent"}) {
    const ExampleKernel& e = examples::find_example(name);
    for (std::int64_t block : {1024, 4096, 16384}) {
      CAPTURE(name);
      CAPTURE(block);
      const CompiledKernel& k = compile_example(e, DType::f32, "sm_90", 8, block, block);
      const auto& md = k.metadata();
      INFO("registers: " << md.registers);
      CHECK(md.registers > 0);
      CHECK(md.registers <= 255);
      CHECK(md.spill_store_bytes == 0);
      CHECK(md.spill_load_bytes == 0);
      CHECK(md.stack_frame_bytes == 0);
    }
  }
}

TEST_CASE("softmax_rows_2d and softmax_online compile at 1, 2, 4, 8, 16 and 32 warps") {
  for (const char* name : {"softmax_rows_2d", "softmax_online"}) {
    const ExampleKernel& e = examples::find_example(name);
    for (std::int64_t block : {64, 1024}) {
      for (int warps : {1, 2, 4, 8, 16, 32}) {
        CAPTURE(name);
        CAPTURE(block);
        CAPTURE(warps);
        const CompiledKernel* k = nullptr;
        try {
          k = &compile_example(e, DType::f32, "sm_90", warps, block);
        } catch (const CompileError& err) {
          FAIL_CHECK("NVRTC rejected the kernel: " << err.what() << "\n" << err.log());
          continue;
        }
        CHECK(k->metadata().num_warps == warps);
        const std::string threads = std::to_string(32 * warps);
        CHECK(k->stage("cuda").find("__launch_bounds__(" + threads + ")") != std::string::npos);
        CHECK(k->stage("ptx").find(".maxntid " + threads + ", 1, 1") != std::string::npos);
      }
    }
  }
}

TEST_CASE("an invalid num_warps is refused before code generation") {
  const ExampleKernel& e = examples::find_example("vector_add");
  for (int warps : {0, 3, 64}) {
    CAPTURE(warps);
    CHECK_THROWS_AS(compile_example(e, DType::f32, "sm_90", warps), Error);
  }
}

TEST_CASE("cross-warp reductions take two scratch buffers in turn: one barrier each, one more for odd loops") {
  static const tilejit_test::LoopReductionsKernel k("loop_reductions", tilejit_test::loop_reductions_kernel,
                                                    {"out", "x", "rows", "REDUCTIONS", "BLOCK"});
  for (int reductions : {1, 2, 3}) {
    CAPTURE(reductions);
    std::vector<Arg> args{Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, std::int64_t{5},
                          std::int64_t{reductions}, std::int64_t{1024}};
    const CompiledKernel& c =
        k.compile(args, {.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda});
    const std::string& cuda = c.stage("cuda");
    const std::size_t barriers = tilejit_test::occurrences(cuda, "__syncthreads();");
    CHECK(barriers == static_cast<std::size_t>(reductions % 2 == 0 ? reductions : reductions + 1));
    CHECK(tilejit_test::occurrences(cuda, "(tj_smem + tj_reduction_buffer_bytes)") ==
          static_cast<std::size_t>(reductions / 2));
    // Four warps, one f32 partial each: two 16-byte buffers.
    CHECK(c.metadata().dynamic_shared_bytes == 32);
  }
}

TEST_CASE("cross-warp reductions over 16 warps or more: one shared load a warp, then a butterfly") {
  // Below 16 warps every thread reads every warp's slot (a shorter chain); from 16 each lane reads
  // one slot and shuffles (codegen::cuda::butterfly_across_warps), in both generators.
  static const tilejit_test::LoopReductionsKernel k("loop_reductions", tilejit_test::loop_reductions_kernel,
                                                    {"out", "x", "rows", "REDUCTIONS", "BLOCK"});
  for (int warps : {8, 16, 32}) {
    CAPTURE(warps);
    std::vector<Arg> args{Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, std::int64_t{5}, std::int64_t{1},
                          std::int64_t{4096}};
    const bool butterfly = warps >= 16;
    const std::string& cuda =
        k.compile(args, {.num_warps = warps, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda})
            .stage("cuda");
    CHECK((tilejit_test::occurrences(cuda, fmt::format("= tj_red[tj_lane & {}];", warps - 1)) == 1) == butterfly);
    CHECK((tilejit_test::occurrences(cuda, fmt::format("for (int s = 1; s < {}; ++s)", warps)) == 1) == !butterfly);
    const std::string& ptx =
        k.compile(args, {.num_warps = warps, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::ptx})
            .stage("ptx");
    CHECK(tilejit_test::occurrences(ptx, "ld.shared.b32") == (butterfly ? 1u : static_cast<std::size_t>(warps)));
  }
}

TEST_CASE("cluster reductions: clusters compiled in, one st.async per rank and an mbarrier wait each, no fence") {
  std::vector<Arg> args{Pointer{0x10000, DType::f32},
                        Pointer{0x20000, DType::f32},
                        Pointer{0x30000, DType::i32},
                        Pointer{0x40000, DType::f32},
                        std::int64_t{7},
                        std::int64_t{400},
                        std::int64_t{128},
                        std::int64_t{4}};
  const CompiledKernel& c = tilejit_test::cluster_rows().compile(
      args, {.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda});
  CHECK(c.metadata().cluster_size == 4);
  const std::string& cuda = c.stage("cuda");
  CHECK(cuda.find("__cluster_dims__(4, 1, 1)") != std::string::npos);
  // Four reductions per row (max, sum, min, count), each a send and a wait on this block's
  // mbarrier; the one cluster barrier is the start-up one, after the mbarriers are set up.
  CHECK(tilejit_test::occurrences(cuda, "barrier.cluster.arrive") == 1);
  CHECK(tilejit_test::occurrences(cuda, "barrier.cluster.arrive.relaxed.aligned") == 1);
  CHECK(tilejit_test::occurrences(cuda, "st.async.shared::cluster.mbarrier::complete_tx::bytes.f32") == 3);
  CHECK(tilejit_test::occurrences(cuda, "st.async.shared::cluster.mbarrier::complete_tx::bytes.s32") == 1);
  CHECK(tilejit_test::occurrences(cuda, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;") ==
        4);  // 4 blocks x 4 bytes
  CHECK(tilejit_test::occurrences(cuda, "mbarrier.try_wait.parity.acquire.cluster") == 4);
  // NVRTC took it: the cluster instructions are in its PTX, and no fence waits for the block's
  // stores in flight (the reason for st.async: codegen/cuda/cluster.cpp).
  const std::string& ptx = c.stage("ptx");
  CHECK(ptx.find(".reqnctapercluster 4, 1, 1") != std::string::npos);
  CHECK(ptx.find("mapa.shared::cluster") != std::string::npos);
  CHECK(ptx.find("st.async") != std::string::npos);
  CHECK(ptx.find("fence.acq_rel") == std::string::npos);
  CHECK(ptx.find("membar") == std::string::npos);
  CHECK(ptx.find("barrier.cluster.arrive.release") == std::string::npos);
  CHECK(c.metadata().spill_store_bytes == 0);

  // Clusters of one: no cluster code at all.
  args[7] = std::int64_t{1};
  const CompiledKernel& one = tilejit_test::cluster_rows().compile(
      args, {.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda});
  CHECK(one.metadata().cluster_size == 1);
  CHECK(one.stage("cuda").find("tj_cluster") == std::string::npos);
  CHECK(one.stage("cuda").find("__cluster_dims__") == std::string::npos);

  // Before sm_90 there are no clusters: a clear error, not an NVRTC log.
  args[7] = std::int64_t{2};
  CHECK_THROWS_WITH_AS(tilejit_test::cluster_rows().compile(
                           args, {.num_warps = 4, .num_stages = 1, .arch = "sm_80", .codegen = GpuCodegen::cuda}),
                       doctest::Contains("needs sm_90 or newer; the target is sm_80"), Error);
}

TEST_CASE("group reductions: one global-memory barrier per reduction, a cooperative launch, any arch") {
  std::vector<Arg> args = tilejit_test::group_rows_compile_args(40);
  // sm_80: groups need no clusters.
  const CompiledKernel& c = tilejit_test::group_rows().compile(
      args, {.num_warps = 4, .num_stages = 1, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  CHECK(c.metadata().group_size == 40);
  CHECK(c.metadata().cluster_size == 1);
  const std::string& cuda = c.stage("cuda");
  CHECK(cuda.find("__cluster_dims__") == std::string::npos);
  // Four reductions per row (max, sum, min, count), each one barrier call.
  CHECK(tilejit_test::occurrences(cuda,
                                  "tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, 40u, tj_group_rank));") == 4);
  CHECK(tilejit_test::occurrences(cuda, std::to_string(group_workspace_stride(40)) + "ull") == 4);
  // NVRTC took it: the barrier's release / acquire accesses are in its PTX, and nothing spills.
  const std::string& ptx = c.stage("ptx");
  CHECK(ptx.find("atom.release.gpu.global.add.u32") != std::string::npos);
  CHECK(ptx.find("ld.acquire.gpu.global.u32") != std::string::npos);
  CHECK(ptx.find("membar") == std::string::npos);
  CHECK(c.metadata().spill_store_bytes == 0);

  // Split exchanges (tl::group_softmax_stats_start / _finish): one arrival, one wait, each on the
  // ticket's barrier; the wait compares with the word thread 0 saw when it arrived.
  const std::vector<Arg> stats_args = tilejit_test::group_stats_compile_args(7, 4000, 128, 40);
  const CompiledKernel& s = tilejit_test::group_stats_split().compile(
      stats_args, {.num_warps = 4, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  // In the IR: a start gives the ticket (i32), which the loop carries to its finish.
  CHECK(tilejit_test::occurrences(s.stage("ir"), "group_reduce.softmax_stats") == 4);
  CHECK(tilejit_test::occurrences(s.stage("ir"), "group=40, start : i32") == 2);
  CHECK(tilejit_test::occurrences(s.stage("ir"), "group=40, finish : f32") == 2);
  const std::string& split = s.stage("cuda");
  CHECK(tilejit_test::occurrences(split, "= tj_group_arrive(tj_barrier, 40u, tj_group_rank);") ==
        2);  // before the loop and in it
  CHECK(tilejit_test::occurrences(split, "if (threadIdx.x == 0) tj_group_wait(tj_barrier, tj_group_seen[") == 2);
  CHECK(tilejit_test::occurrences(split, "tj_group_turn += 1;") == 2);
  // A group of one still exchanges through the workspace when split (NVRTC compiles it).
  const CompiledKernel& split_of_one =
      tilejit_test::group_stats_split().compile(tilejit_test::group_stats_compile_args(7, 4000, 128, 1),
                                                {.num_warps = 4, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  CHECK(tilejit_test::occurrences(split_of_one.stage("cuda"), "= tj_group_arrive(tj_barrier, 1u, tj_group_rank);") ==
        2);
  CHECK(split_of_one.stage("ptx").find("atom.release.gpu.global.add.u32") != std::string::npos);

  // Warp 0 loads its lanes' slots unrolled, all in flight before the first use: two (max, sum)
  // pairs a lane for 40 programs, one 8-byte load each, no loop around them.
  const std::string& s_ptx = s.stage("ptx");
  CHECK(tilejit_test::occurrences(s_ptx, "ld.relaxed.gpu.global.v2.f32") == 4);  // two finishes, two loads each
  // Groups past 16 slots a lane load in chunks of 16, twice (max, then sum): NVRTC takes them,
  // without spilling, for the stats and for the one-value reductions, one chunk's loads at a time
  // (NVRTC unrolling the chunks hoisted all their loads: 209 registers in the softmax op's group
  // of 528, so one program per SM, and the launch was refused).
  const CompiledKernel& big =
      tilejit_test::group_stats().compile(tilejit_test::group_stats_compile_args(7, 4000, 128, 600),
                                          {.num_warps = 4, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  CHECK(tilejit_test::occurrences(big.stage("cuda"), "for (int tj_c = 0; tj_c < 19; tj_c += 16)") == 2);
  CHECK(big.metadata().spill_store_bytes == 0);
  CHECK(big.metadata().registers <= 64);
  std::vector<Arg> big_args = args;
  big_args[8] = std::int64_t{600};
  const CompiledKernel& big_rows = tilejit_test::group_rows().compile(
      big_args, {.num_warps = 4, .num_stages = 1, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  CHECK(tilejit_test::occurrences(big_rows.stage("cuda"), "for (int tj_c = 0; tj_c < 19; tj_c += 16)") == 4);
  CHECK(big_rows.metadata().spill_store_bytes == 0);
  CHECK(big_rows.metadata().registers <= 64);

  // The PTX generator builds them too (tests/codegen/test_ptx_group.cpp).
  const CompiledKernel& p = tilejit_test::group_rows().compile(
      args, {.num_warps = 4, .num_stages = 1, .arch = "sm_80", .codegen = GpuCodegen::ptx});
  CHECK(p.metadata().codegen == "ptx");

  // Groups of one: no group code at all.
  args[8] = std::int64_t{1};
  const CompiledKernel& one = tilejit_test::group_rows().compile(
      args, {.num_warps = 4, .num_stages = 1, .arch = "sm_80", .codegen = GpuCodegen::cuda});
  CHECK(one.metadata().group_size == 1);
  CHECK(one.stage("cuda").find("tj_group") == std::string::npos);
}

TEST_CASE("stashes: vector shared-memory accesses, no barrier, after the scratch in dynamic shared memory") {
  // 12 slots of 4096 f32 (192 KiB) over 8 warps and 3 of 512 bf16 over 2, each put in a loop and
  // read back in one. The kernel loads f32, so its layouts give a thread 4 contiguous elements:
  // 16 bytes an access in the f32 stash, 8 in the bf16 one.
  for (auto [slots, cols, dtype, warps, vector] :
       {std::tuple{12, 4096, DType::f32, 8, ".v4"}, std::tuple{3, 512, DType::bf16, 2, ".v2"}}) {
    CAPTURE(cols);
    std::vector<Arg> args{Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32},
                          Pointer{0x30000, DType::f32}, std::int64_t{100000},
                          std::int64_t{slots},          std::int64_t{1},
                          std::int64_t{cols},           static_cast<std::int64_t>(dtype)};
    const CompiledKernel& c = tilejit_test::stash_round_trip().compile(
        args, {.num_warps = warps, .arch = "sm_90", .codegen = GpuCodegen::cuda});
    const std::int64_t stash = std::int64_t{slots} * cols * static_cast<std::int64_t>(dtype_size(dtype));
    CHECK(c.metadata().dynamic_shared_bytes == stash);  // no reductions: no scratch before it
    const std::string& ir = c.stage("ir");
    CHECK(ir.find(fmt::format("stash 0: {}[{}] x {} slots", dtype_name(dtype), cols, slots)) != std::string::npos);
    CHECK(tilejit_test::occurrences(ir, "stash_put") == 2);
    CHECK(tilejit_test::occurrences(ir, "stash_get") == 3);
    const std::string& cuda = c.stage("cuda");
    CHECK(cuda.find("constexpr int tj_stash_offset = 0;") != std::string::npos);
    CHECK(cuda.find("__syncthreads") == std::string::npos);
    const std::string& ptx = c.stage("ptx");
    static const std::regex any_shared(R"((ld|st)\.shared(\.v[24])?\.(b|f|u|s)\d+)");
    int wide = 0, other = 0;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), any_shared); it != std::sregex_iterator(); ++it)
      ((*it)[2].str() == vector ? wide : other)++;
    CHECK(wide > 0);
    CHECK(other == 0);
    CHECK(c.metadata().spill_store_bytes == 0);
    CHECK(c.metadata().stack_frame_bytes == 0);
  }
}

TEST_CASE("stash copies: one 16-byte cp.async per vector, a group per copy, waits as written") {
  // 4 slots of 1024 f32 over 4 warps: 8 elements a thread, two 16-byte copies of each block.
  std::vector<Arg> args{Pointer{0x10000, DType::f32},
                        Pointer{0x20000, DType::f32},
                        Pointer{0x30000, DType::f32},
                        std::int64_t{100000},
                        std::int64_t{4},
                        std::int64_t{1},
                        std::int64_t{1024}};
  const CompiledKernel& c = tilejit_test::stash_copy_round_trip().compile(
      args, {.num_warps = 4, .arch = "sm_90", .codegen = GpuCodegen::cuda});
  // Two copies (before the loop and in it), each two 16-byte vectors and one group; NVRTC unrolls
  // the loop of 4, so the PTX holds each of the loop's instructions 4 times.
  CHECK(tilejit_test::occurrences(c.stage("ir"), "stash_copy %") == 2);
  CHECK(tilejit_test::occurrences(c.stage("ir"), "copies_wait pending=1") == 1);
  const std::string& cuda = c.stage("cuda");
  CHECK(tilejit_test::occurrences(cuda, "cp.async.cg.shared.global [%0], [%1], 16, %2;") == 2);
  CHECK(tilejit_test::occurrences(cuda, "cp.async.commit_group;") == 2);
  const std::string& ptx = c.stage("ptx");
  // (The last trip's copy is into slot 4, outside the stash: the unrolled test drops it.)
  CHECK(tilejit_test::occurrences(ptx, "cp.async.cg.shared.global") == 2 + 2 * 3);
  CHECK(ptx.find("cp.async.ca.shared.global") == std::string::npos);
  CHECK(tilejit_test::occurrences(ptx, "cp.async.commit_group") == 1 + 4);
  CHECK(tilejit_test::occurrences(ptx, "cp.async.wait_group 1") == 4);
  CHECK(tilejit_test::occurrences(ptx, "cp.async.wait_group 0") == 1);
  CHECK(c.metadata().spill_store_bytes == 0);
  // Before sm_80 there is no cp.async: the copies go through registers.
  const CompiledKernel& old = tilejit_test::stash_copy_round_trip().compile(
      args, {.num_warps = 4, .arch = "sm_75", .codegen = GpuCodegen::cuda});
  CHECK(old.stage("ptx").find("cp.async") == std::string::npos);
}

namespace {

// A running sum per tile row of a walked block, rescaled by 2^(fma(old max, k, 0) - s) when its
// max grows: the factor comes from the carried max through an op none of whose operands has a
// layout in the layout assignment's first round. FMA_FORM 0 writes it 2^((old max - new max) k).
void rescaled_running_sum(tl::Ptr out, tl::Ptr in, tl::Int n, tl::Constexpr FMA_FORM, tl::Constexpr BLOCK) {
  const std::int64_t lanes = BLOCK.value / 8;
  auto tile = tl::arange(0, lanes)(tl::all, tl::newaxis) * 8 + tl::arange(0, 8)(tl::newaxis, tl::all);
  auto lane_max = tl::full({lanes}, -tl::inf, DType::f32);
  auto lane_sum = tl::zeros({lanes}, DType::f32);
  tl::for_range(0, n, BLOCK, [&](tl::Int start) {
    auto x = tl::load(in + start + tile, start + tile < n, -tl::inf);
    auto new_max = tl::maximum(lane_max, tl::max(x, 1));
    auto s = tl::fma(new_max, 1.5, 0.0);
    auto added = tl::sum(tl::exp2_fast(tl::fma(x, 1.5, -s(tl::all, tl::newaxis))), 1);
    auto scale =
        FMA_FORM.value ? tl::exp2_fast(tl::fma(lane_max, 1.5, 0.0) - s) : tl::exp2_fast((lane_max - new_max) * 1.5);
    lane_sum = lane_sum * scale + added;
    lane_max = new_max;
  });
  tl::store(out + tl::arange(0, lanes), lane_sum);
}

}  // namespace

TEST_CASE("a running sum rescaled through an fma of its carried max keeps the reduction's layout") {
  // The carried max has no layout in the first round, so neither has the fma of it: the sum once
  // took the default layout from that, and converted through shared memory twice a step.
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr, tl::Constexpr> k(
      "rescaled_running_sum", rescaled_running_sum, {"out", "in", "n", "FMA_FORM", "BLOCK"});
  auto cuda = [&](std::int64_t fma_form) {
    std::vector<Arg> args{Pointer{0x10000, DType::f32}, Pointer{0x20000, DType::f32}, std::int64_t{5000}, fma_form,
                          std::int64_t{2048}};
    return k.compile(args, {.num_warps = 8, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda})
        .stage("cuda");
  };
  const std::string with_fma = cuda(1), with_sub = cuda(0);
  CHECK(tilejit_test::occurrences(with_fma, "__syncthreads();") ==
        tilejit_test::occurrences(with_sub, "__syncthreads();"));
  CHECK(tilejit_test::occurrences(with_fma, "tj_x[") == tilejit_test::occurrences(with_sub, "tj_x["));
}

TEST_CASE("shifts: both generators define amounts past the width, and ptxas takes them") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr out, tl::Ptr in, tl::Constexpr BLOCK) {
    auto offs = tl::arange(0, BLOCK);
    auto x = tl::load(in + offs);
    tl::store(out + offs, (x << offs.to(x.dtype())) ^ (x >> (offs % 70).to(x.dtype())));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Constexpr> k("shifts", fn, {"out", "in", "BLOCK"});
  for (DType t : {DType::i32, DType::i64}) {
    CAPTURE(dtype_name(t));
    const bool wide = t == DType::i64;
    const auto& cuda = k.compile({Pointer{0x10000, t}, Pointer{0x20000, t}, 128},
                                 {.num_warps = 4, .arch = "sm_90", .codegen = GpuCodegen::cuda});
    CHECK(cuda.stage("cuda").find(wide ? ">= 64ull ? 0 : (long long)" : ">= 32u ? 0 : (int)") != std::string::npos);
    CHECK(cuda.stage("cuda").find(wide ? " >> 63)" : " >> 31)") != std::string::npos);
    CHECK_FALSE(cuda.stage("cubin").empty());
    const auto& ptx = k.compile({Pointer{0x10000, t}, Pointer{0x20000, t}, 128},
                                {.num_warps = 4, .arch = "sm_90", .codegen = GpuCodegen::ptx});
    REQUIRE(ptx.metadata().codegen == "ptx");
    CHECK(ptx.stage("ptx").find(wide ? "shl.b64" : "shl.b32") != std::string::npos);
    CHECK(ptx.stage("ptx").find(wide ? "shr.s64" : "shr.s32") != std::string::npos);
    // PTX clamps a u32 amount itself; a 64-bit one is clamped before it is narrowed.
    CHECK((ptx.stage("ptx").find("min.u64") != std::string::npos) == wide);
    CHECK_FALSE(ptx.stage("cubin").empty());
  }
}
