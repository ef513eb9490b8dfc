// Golden files: the lowered IR ("ir.lowered") and the CUDA C ("cuda") of the example kernels
// must match tests/golden/<name>.ir and <name>.cu, and the PTX generator's output for two of
// them tests/golden/<name>.ptx. Every CUDA C source starts with the same prelude (helper
// functions): it is checked once, against cuda_prelude.cu, and each <name>.cu holds what follows
// it. Changing the output on purpose:
//   TILEJIT_UPDATE_GOLDENS=1 ctest --test-dir build -R test_golden
// then review the diff of tests/golden like any other change.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cluster_rows_kernel.h"
#include "kernels/softmax_online.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "kernels/stash_round_trip_kernel.h"
#include "kernels/vector_add.h"
#include "src/codegen/cuda/cuda_types.h"
#include "tilejit/kernel.h"
#include "tilejit/ops/softmax_kernels.h"

using namespace tilejit;
namespace fs = std::filesystem;

namespace {

Pointer fake(DType t, int i) { return Pointer{0x100000u * static_cast<std::uint64_t>(i + 1), t}; }

// Text that changes from run to run or machine to machine is replaced by placeholders: the
// directory in #line and .file directives, and the entry name's key hash (the key holds the
// kernel function's address).
std::string normalize(const std::string& text) {
  static const std::regex line_path(R"re(#line (\d+) "(?:[^"]*/)?([^"/]+)")re");
  static const std::regex file_path(R"re(\.file (\d+) "(?:[^"]*/)?([^"/]+)")re");
  static const std::regex entry_hash(R"(_[0-9a-f]{16}\b)");
  std::string out = std::regex_replace(text, line_path, "#line $1 \"$2\"");
  out = std::regex_replace(out, file_path, ".file $1 \"$2\"");
  return std::regex_replace(out, entry_hash, "_<hash>");
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The first run of differing lines with a little context, in the style of a unified diff.
std::string first_difference(const std::string& expected, const std::string& actual) {
  auto a = split_lines(expected), b = split_lines(actual);
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  auto differs = [&](std::size_t k) { return k >= a.size() || k >= b.size() || a[k] != b[k]; };
  std::size_t end = i;
  while (end < std::max(a.size(), b.size()) && end < i + 8 && differs(end)) ++end;
  std::ostringstream out;
  out << "--- golden\n+++ actual\n@@ first difference at line " << i + 1 << " (golden " << a.size() << " lines, actual "
      << b.size() << ") @@\n";
  for (std::size_t k = i >= 3 ? i - 3 : 0; k < i; ++k) out << " " << a[k] << "\n";
  for (std::size_t k = i; k < std::min(a.size(), end); ++k) out << "-" << a[k] << "\n";
  for (std::size_t k = i; k < std::min(b.size(), end); ++k) out << "+" << b[k] << "\n";
  for (std::size_t k = end; k < std::min(a.size(), end + 2) && !differs(k); ++k) out << " " << a[k] << "\n";
  return out.str();
}

bool updating() {
  const char* v = std::getenv("TILEJIT_UPDATE_GOLDENS");
  return v && std::string(v) == "1";
}

fs::path golden_dir() {
  const char* root = std::getenv("TILEJIT_SOURCE_DIR");
  REQUIRE_MESSAGE(root, "TILEJIT_SOURCE_DIR is not set (ctest sets it; when running by hand, export it)");
  return fs::path(root) / "tests" / "golden";
}

void check_golden(const std::string& file, const std::string& produced) {
  const fs::path path = golden_dir() / file;
  const std::string actual = normalize(produced);
  if (updating()) {
    std::ofstream out(path, std::ios::binary);
    out << actual;
    REQUIRE_MESSAGE(out.good(), "could not write " << path.string());
    MESSAGE("updated " << path.string());
    return;
  }
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden " << path.string() << " (run with TILEJIT_UPDATE_GOLDENS=1)");
  std::stringstream expected;
  expected << in.rdbuf();
  if (expected.str() != actual)
    FAIL_CHECK(path.string() << " differs (TILEJIT_UPDATE_GOLDENS=1 rewrites it):\n"
                             << first_difference(expected.str(), actual));
}

void check_kernel(const std::string& name, const CompiledKernel& k) {
  CAPTURE(name);
  check_golden(name + ".ir", k.stage("ir.lowered"));
  const std::string& cuda = k.stage("cuda");
  const std::string prelude = codegen::cuda::prelude();
  REQUIRE_MESSAGE(cuda.compare(0, prelude.size(), prelude) == 0, "the CUDA C does not start with the prelude");
  check_golden(name + ".cu", cuda.substr(prelude.size()));
}

const CompileOptions kOptions{.num_warps = 4, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda};
const CompileOptions kPtxOptions{
    .num_warps = 4, .num_stages = 1, .arch = "sm_90", .backend = Backend::cuda, .codegen = GpuCodegen::ptx};

}  // namespace

TEST_CASE("normalization removes paths and hashes only") {
  CHECK(normalize("#line 12 \"/a/b/softmax_seed.h\"\n") == "#line 12 \"softmax_seed.h\"\n");
  CHECK(normalize("#line 3 \"vector_add.h\"") == "#line 3 \"vector_add.h\"");
  CHECK(normalize("void softmax_simple_0123456789abcdef(float* v0)") == "void softmax_simple_<hash>(float* v0)");
  CHECK(normalize("v16_acc_6[r] = 0x7f800000;") == "v16_acc_6[r] = 0x7f800000;");
  CHECK(normalize("\t.file 1 \"/a/b/softmax_seed.h\"\n") == "\t.file 1 \"softmax_seed.h\"\n");
}

TEST_CASE("golden: the CUDA C prelude every kernel starts with") {
  check_golden("cuda_prelude.cu", codegen::cuda::prelude());
}

TEST_CASE("golden: softmax_simple (BLOCK 1024, 4 warps, f32)") {
  const auto& k =
      examples::softmax_simple().compile({fake(DType::f32, 0), fake(DType::f32, 1), 1000, 1000, 1000, 1024}, kOptions);
  check_kernel("softmax_simple", k);
}

TEST_CASE("golden: softmax_persistent (BLOCK 1024, 4 warps, f32, num_stages 2)") {
  CompileOptions options = kOptions;
  options.num_stages = 2;
  const auto& k = examples::softmax_persistent().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), 1000, 1000, 64, 1000, 1024, 2}, options);
  check_kernel("softmax_persistent", k);
}

TEST_CASE("golden: softmax_persistent_staged (BLOCK 2048, 1 warp, f32, num_stages 2, prefetch_in_shared)") {
  // 64 elements a thread: the next row comes through shared memory (a stash and cp.async).
  CompileOptions options = kOptions;
  options.num_warps = 1;
  options.num_stages = 2;
  options.prefetch_in_shared = true;
  const auto& k = examples::softmax_persistent().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), 2000, 2000, 64, 2000, 2048, 2}, options);
  check_kernel("softmax_persistent_staged", k);
}

TEST_CASE("golden: vector_add (BLOCK 1024, 4 warps, f32)") {
  const auto& k = examples::vector_add().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 4096, 1024}, kOptions);
  check_kernel("vector_add", k);
}

TEST_CASE("golden: softmax_rows_2d (BLOCK_COLS 64, ROWS 32, f32)") {
  const auto& k = examples::softmax_rows_2d().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), 64, 64, 1000, 64, 32, 64}, kOptions);
  check_kernel("softmax_rows_2d", k);
}

TEST_CASE("golden: softmax_online (BLOCK 1024, f16)") {
  const auto& k =
      examples::softmax_online().compile({fake(DType::f16, 0), fake(DType::f16, 1), 5000, 5000, 5000, 1024}, kOptions);
  check_kernel("softmax_online", k);
}

TEST_CASE("golden: cluster_stats (BLOCK 64, clusters of 4, f32: one softmax-stats exchange per row)") {
  const auto& k =
      tilejit_test::cluster_stats().compile({fake(DType::f32, 0), fake(DType::f32, 1), 6, 200, 64, 4}, kOptions);
  check_kernel("cluster_stats", k);
}

TEST_CASE("golden: group_stats (BLOCK 64, groups of 40, f32: the global-memory barrier)") {
  const auto& k = tilejit_test::group_stats().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::i32, 2), 6, 2500, 64, 40}, kOptions);
  check_kernel("group_stats", k);
}

TEST_CASE("golden: stash_copy_round_trip (4 slots of 512 f32, 2 warps: copies, waits, reads)") {
  const auto& k = tilejit_test::stash_copy_round_trip().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 6000, 4, 1, 512}, kOptions);
  check_kernel("stash_copy_round_trip", k);
}

TEST_CASE("golden: stash_round_trip (3 slots of 256 bf16 from f32 loads: puts and reads)") {
  const auto& k =
      tilejit_test::stash_round_trip().compile({fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 6000, 3,
                                                1, 256, static_cast<std::int64_t>(DType::bf16)},
                                               kOptions);
  check_kernel("stash_round_trip", k);
}

TEST_CASE("golden: the library's walked group (f32 rows of 1M, groups of 32, blocks of 1024, read twice)") {
  // The op's kernel for few wide rows: online statistics per 16 bytes, one exchange a row, a second
  // pass that reads the slice again. (Kept blocks add stash puts and gets in the same loops, whose
  // code the stash goldens guard; with them this file would pass 700 lines.)
  const std::int64_t cols = 1 << 20, group = 32;
  const auto& k = ops::softmax_group_online_op().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), cols, cols, 128, cols, cols / group, 1024, group,
       0, 0, 0, 4, 0},
      CompileOptions{.num_warps = 8, .num_stages = 1, .arch = "sm_90", .codegen = GpuCodegen::cuda});
  check_kernel("softmax_group_walk", k);
}

TEST_CASE("golden PTX: softmax_persistent (BLOCK 1024, 4 warps, f32, num_stages 2, PTX generator)") {
  CompileOptions options = kPtxOptions;
  options.num_stages = 2;
  const auto& k = examples::softmax_persistent().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), 1024, 1024, 64, 1000, 1024, 2}, options);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("softmax_persistent.ptx", k.stage("ptx"));
}

TEST_CASE("golden PTX: softmax_simple under a register cap (BLOCK 1024, 4 warps, bf16, four blocks an SM)") {
  // The row's maximum on 16-bit pairs and the division by its sum without a branch.
  CompileOptions options = kPtxOptions;
  options.min_blocks_per_sm = 4;
  const auto& k =
      examples::softmax_simple().compile({fake(DType::bf16, 0), fake(DType::bf16, 1), 1024, 1024, 1000, 1024}, options);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("softmax_simple_bf16_capped.ptx", k.stage("ptx"));
}

TEST_CASE("golden PTX: vector_add (BLOCK 1024, 4 warps, f32, PTX generator)") {
  const auto& k = examples::vector_add().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 4096, 1024}, kPtxOptions);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("vector_add.ptx", k.stage("ptx"));
}

TEST_CASE("golden PTX: stash_copy_round_trip (4 slots of 512 f32, 2 warps: copies, waits, reads; PTX generator)") {
  const auto& k = tilejit_test::stash_copy_round_trip().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 6000, 4, 1, 512}, kPtxOptions);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("stash_copy_round_trip.ptx", k.stage("ptx"));
}

TEST_CASE("golden PTX: stash_round_trip (3 slots of 256 bf16 from f32 loads: puts and reads; PTX generator)") {
  const auto& k =
      tilejit_test::stash_round_trip().compile({fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 6000, 3,
                                                1, 256, static_cast<std::int64_t>(DType::bf16)},
                                               kPtxOptions);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("stash_round_trip.ptx", k.stage("ptx"));
}

TEST_CASE("golden: softmax_held (BLOCK 1024, 4 warps, f32: the row in a stash, read back by each phase)") {
  const auto& k =
      examples::softmax_held().compile({fake(DType::f32, 0), fake(DType::f32, 1), 1024, 1024, 1000, 1024}, kOptions);
  check_kernel("softmax_held", k);
}

TEST_CASE("golden PTX: softmax_held (BLOCK 1024, 4 warps, f32, PTX generator: streamed phases)") {
  const auto& k =
      examples::softmax_held().compile({fake(DType::f32, 0), fake(DType::f32, 1), 1024, 1024, 1000, 1024}, kPtxOptions);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("softmax_held.ptx", k.stage("ptx"));
}

TEST_CASE("golden PTX: group_stats_split (BLOCK 64, groups of 40, f32: split exchanges; PTX generator)") {
  const auto& k = tilejit_test::group_stats_split().compile(
      {fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::i32, 2), 6, 2500, 64, 40}, kPtxOptions);
  REQUIRE(k.metadata().codegen == "ptx");
  check_golden("group_stats_split.ptx", k.stage("ptx"));
}
