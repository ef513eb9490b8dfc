// The PTX generator (src/codegen/ptx) through the compiler, without a GPU: every example and
// library kernel assembles (ptxas or nvJitLink) for sm_80 and sm_90 without spills, vector accesses
// follow the specialization as in the CUDA C path, unsupported kernels fall back to CUDA C
// and say why, and the disk cache serves the PTX path too.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "codegen/fake_pointer.h"
#include "codegen/ptx_access_counts.h"
#include "example_kernels.h"
#include "kernels/cluster_rows_kernel.h"
#include "kernels/vector_add.h"
#include "runtime/ptx_assembler.h"
#include "scoped_env.h"
#include "src/ops/softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/ops/softmax_kernels.h"
#include "tilejit/ops/softmax_seed.h"

using namespace tilejit;
namespace tl = tilejit::tl;

using tilejit_test::AccessCounts;
using tilejit_test::count_accesses;

namespace {

using tilejit_test::fake;

CompileOptions ptx_options(int num_warps, const std::string& arch, int num_stages = 1) {
  CompileOptions o;
  o.num_warps = num_warps;
  o.num_stages = num_stages;
  o.arch = arch;
  o.backend = Backend::cuda;
  o.codegen = GpuCodegen::ptx;
  return o;
}

using tilejit_test::ScopedEnv;

struct Case {
  std::string name;
  std::function<const CompiledKernel&(DType, const CompileOptions&)> compile;
};

// Every kernel the PTX generator must handle, at shapes that keep a row in registers.
std::vector<Case> all_kernels() {
  std::vector<Case> cases;
  for (const auto& e : examples::example_kernels()) {
    if (e.name == "softmax") continue;  // an alias
    cases.push_back({"examples/" + e.name, [&e](DType t, const CompileOptions& o) -> const CompiledKernel& {
                       return e.kernel->compile(e.arguments(300, 1000, 1024, t), o);
                     }});
  }
  cases.push_back({"ops::softmax_simple", [](DType t, const CompileOptions& o) -> const CompiledKernel& {
                     return ops::softmax_simple().compile({fake(t, 0), fake(t, 1), 1024, 1024, 1000, 1024}, o);
                   }});
  cases.push_back(
      {"ops::softmax_persistent", [](DType t, const CompileOptions& o) -> const CompiledKernel& {
         return ops::softmax_persistent().compile({fake(t, 0), fake(t, 1), 1024, 1024, 4096, 1000, 1024, 2}, o);
       }});
  for (int wide : {0, 1})
    for (int log : {0, 1}) {
      std::string tag = fmt::format("(LOG={}, WIDE={})", log, wide);
      cases.push_back({"ops::softmax_rows_2d_op" + tag, [=](DType t, const CompileOptions& o) -> const CompiledKernel& {
                         return ops::softmax_rows_2d_op().compile(
                             {fake(t, 0), fake(t, 1), 64, 64, 1000, 50, 16, 64, log, wide, 1}, o);
                       }});
      cases.push_back({"ops::softmax_row_op" + tag, [=](DType t, const CompileOptions& o) -> const CompiledKernel& {
                         return ops::softmax_row_op().compile(
                             {fake(t, 0), fake(t, 1), 1024, 1024, 1000, 1000, 1024, log, wide, 2}, o);
                       }});
      cases.push_back({"ops::softmax_online_op" + tag, [=](DType t, const CompileOptions& o) -> const CompiledKernel& {
                         return ops::softmax_online_op().compile(
                             {fake(t, 0), fake(t, 1), 40000, 40000, 100, 40000, 1024, log, wide,
                              ops::detail::stat_cols(ops::SoftmaxConfig{.block = 1024}, Backend::cuda, t)},
                             o);
                       }});
      cases.push_back(
          {"ops::softmax_split_normalize" + tag, [=](DType t, const CompileOptions& o) -> const CompiledKernel& {
             return ops::softmax_split_normalize().compile(
                 {fake(t, 0), fake(DType::f32, 1), fake(t, 2), 1 << 20, 1 << 20, 1 << 20, 1 << 16, 16, 1024, log, wide},
                 o);
           }});
    }
  for (int wide : {0, 1})
    cases.push_back({fmt::format("ops::softmax_split_partials(WIDE={})", wide),
                     [=](DType t, const CompileOptions& o) -> const CompiledKernel& {
                       return ops::softmax_split_partials().compile(
                           {fake(DType::f32, 0), fake(t, 1), 1 << 20, 1 << 20, 1 << 16, 1024, wide,
                            ops::detail::stat_cols(ops::SoftmaxConfig{.block = 1024}, Backend::cuda, t)},
                           o);
                     }});
  return cases;
}

// Bytes of machine code in a cubin (an ELF64 file): the sizes of its .text.* sections.
std::size_t text_bytes(const std::string& elf) {
  auto read = [&](std::size_t at, std::size_t bytes) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(elf.at(at + i))} << (8 * i);
    return static_cast<std::size_t>(v);
  };
  const std::size_t table = read(0x28, 8), entry = read(0x3A, 2), count = read(0x3C, 2), names_index = read(0x3E, 2);
  const std::size_t names = read(table + names_index * entry + 0x18, 8);
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t header = table + i * entry;
    if (elf.compare(names + read(header, 4), 6, ".text.") == 0) total += read(header + 0x20, 8);
  }
  return total;
}

// The lines of a PTX kernel's last loop: from the label a branch jumps back to, to that branch.
std::vector<std::string> loop_body(const std::string& ptx) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < ptx.size();) {
    std::size_t end = ptx.find('\n', at);
    if (end == std::string::npos) end = ptx.size();
    std::string line = ptx.substr(at, end - at);
    line.erase(0, line.find_first_not_of(" \t"));
    if (!line.empty() && line[0] != '.') lines.push_back(line);
    at = end + 1;
  }
  for (std::size_t i = lines.size(); i-- > 0;) {
    const std::string& line = lines[i];
    if (line.rfind("bra", 0) != 0 && line.find(" bra") == std::string::npos) continue;
    const std::string label = line.substr(line.rfind(' ') + 1, line.size() - line.rfind(' ') - 2) + ":";
    for (std::size_t j = 0; j < i; ++j)
      if (lines[j] == label)
        return {lines.begin() + static_cast<std::ptrdiff_t>(j) + 1, lines.begin() + static_cast<std::ptrdiff_t>(i) + 1};
  }
  return {};
}

// One cluster reduction per loop step (an odd number), of f64 partial sums: the slot set a
// reduction uses is known only at run time (the turn register).
void cluster_odd_kernel(tl::Ptr out, tl::Ptr in, tl::Int n_rows, tl::Int n_cols, tl::Constexpr BLOCK,
                        tl::Constexpr CLUSTER) {
  auto rank = tl::program_id(0) % CLUSTER;
  tl::for_range(tl::program_id(0) / CLUSTER, n_rows, tl::num_programs(0) / CLUSTER, [&](tl::Int row) {
    auto cols = rank * BLOCK + tl::arange(0, BLOCK);
    auto x = tl::load(in + row * n_cols + cols, cols < n_cols, 0.0f).to(DType::f64);
    tl::store(out + row, tl::cluster_sum(tl::sum(x, 0), CLUSTER).to(DType::f32), rank == 0);
  });
}

const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr>& cluster_odd() {
  static const Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Int, tl::Constexpr, tl::Constexpr> k(
      "cluster_odd", cluster_odd_kernel, {"out", "in", "n_rows", "n_cols", "BLOCK", "CLUSTER"});
  return k;
}

const CompiledKernel& compile_seed(std::uint64_t out, std::uint64_t in, std::int64_t cols, DType t = DType::f32) {
  return ops::softmax_simple().compile({Pointer{out, t}, Pointer{in, t}, cols, cols, cols, 1024},
                                       ptx_options(4, "sm_90"));
}

}  // namespace

TEST_CASE("every example and library kernel assembles from generated PTX for sm_80 and sm_90 without spills") {
  for (const auto& c : all_kernels())
    for (DType t : {DType::f32, DType::f16, DType::bf16})
      for (int warps : {1, 2, 4, 8, 16})
        for (const char* arch : {"sm_80", "sm_90"}) {
          CAPTURE(c.name);
          CAPTURE(dtype_name(t));
          CAPTURE(warps);
          CAPTURE(arch);
          const CompiledKernel& k = c.compile(t, ptx_options(warps, arch));
          const KernelMetadata& md = k.metadata();
          REQUIRE_MESSAGE(md.codegen == "ptx", md.compile_reason);
          CHECK(md.key.find("codegen=ptx") != std::string::npos);
          CHECK_FALSE(k.stage("cubin").empty());
          CHECK(md.registers > 0);
          CHECK(md.spill_store_bytes == 0);
          CHECK(md.spill_load_bytes == 0);
          CHECK(md.stack_frame_bytes == 0);
          const std::string& ptx = k.stage("ptx");
          CHECK(ptx.find(fmt::format(".target {}", arch)) != std::string::npos);
          CHECK(ptx.find(fmt::format(".maxntid {}, 1, 1", 32 * warps)) != std::string::npos);
          CHECK(k.stage_names() == std::vector<std::string>{"cubin", "ir", "ir.lowered", "ptx"});
        }
}

TEST_CASE("PTX path: aligned pointers and widths divisible by 16 give v4 loads and stores") {
  const auto& k = compile_seed(0x10000, 0x20000, 1024);
  AccessCounts c = count_accesses(k.stage("ptx"));
  CHECK(c.vector_loads > 0);
  CHECK(c.vector_stores > 0);
  CHECK(c.scalar_loads == 0);
  CHECK(c.scalar_stores == 0);
  CHECK(k.stage("ptx").find("ld.global.v4.b32") != std::string::npos);
  CHECK(k.stage("ptx").find("st.global.v4.b32") != std::string::npos);
}

TEST_CASE("PTX path: a pointer one element off 16 bytes gives scalar accesses for it") {
  const auto& k = compile_seed(0x10000, 0x20004, 1024);
  AccessCounts c = count_accesses(k.stage("ptx"));
  CHECK(c.vector_loads == 0);
  CHECK(c.scalar_loads > 0);
  CHECK(c.vector_stores > 0);
}

TEST_CASE("PTX path: an odd row width gives scalar (predicated) accesses") {
  const auto& k = compile_seed(0x10000, 0x20000, 1001);
  AccessCounts c = count_accesses(k.stage("ptx"));
  CHECK(c.vector_loads == 0);
  CHECK(c.vector_stores == 0);
  CHECK(c.scalar_loads > 0);
  CHECK(k.stage("ptx").find("@%p") != std::string::npos);
}

TEST_CASE("PTX path: f16 rows move 8 elements per 16-byte access") {
  const auto& k = compile_seed(0x10000, 0x20000, 1024, DType::f16);
  CHECK(k.stage("ptx").find("ld.global.v4.b32") != std::string::npos);
  CHECK(k.stage("ptx").find("cvt.f32.f16") != std::string::npos);
  CHECK(k.stage("ptx").find("cvt.rn.f16.f32") != std::string::npos);
}

TEST_CASE("PTX path: the instructions that carry the CUDA C path's semantics") {
  const auto& k = ops::softmax_persistent().compile(
      {fake(DType::bf16, 0), fake(DType::bf16, 1), 1024, 1024, 4096, 1000, 1024, 2}, ptx_options(4, "sm_90"));
  const std::string& ptx = k.stage("ptx");
  for (const char* needle :
       {"max.NaN.f32", "shfl.sync.bfly.b32", "bar.sync 0", "rcp.approx.ftz.f32", "div.full.f32", "ex2.approx.ftz.f32",
        "cvt.rn.bf16.f32", "%nctaid.x", "%ctaid.x", ".extern .shared .align 16 .b8 tj_smem[]", ".loc ", ".file 1"}) {
    CAPTURE(needle);
    CHECK(ptx.find(needle) != std::string::npos);
  }
  CHECK(k.metadata().dynamic_shared_bytes > 0);
}

TEST_CASE("exp_fast is one ex2.approx.ftz in both generators; exp2 keeps subnormal results") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr fast, tl::Ptr exact, tl::Ptr in,
                                                                   tl::Constexpr BLOCK) {
    auto offs = tl::arange(0, BLOCK);
    auto x = tl::load(in + offs);
    tl::store(fast + offs, tl::exp_fast(x));
    tl::store(exact + offs, tl::exp2(x));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Ptr, tl::Constexpr> k("exp_forms", fn, {"fast", "exact", "in", "BLOCK"});
  std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 256};
  const auto& ptx = k.compile(args, ptx_options(4, "sm_90"));
  REQUIRE(ptx.metadata().codegen == "ptx");
  CHECK(ptx.stage("ptx").find("ex2.approx.ftz.f32") != std::string::npos);
  CHECK(ptx.stage("ptx").find("ex2.approx.f32") != std::string::npos);
  CompileOptions cuda = ptx_options(4, "sm_90");
  cuda.codegen = GpuCodegen::cuda;
  const auto& c = k.compile(args, cuda);
  CHECK(c.stage("cuda").find("tj_ex2_ftz(") != std::string::npos);
  CHECK(c.stage("cuda").find("exp2f(") != std::string::npos);
  CHECK(c.stage("ir").find("ftz") != std::string::npos);
}

TEST_CASE("fma is fma.rn in the PTX generator and fmaf in CUDA C; exp2_fast is ex2.approx.ftz") {
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr out, tl::Ptr in, tl::Constexpr BLOCK) {
    auto offs = tl::arange(0, BLOCK);
    auto x = tl::load(in + offs);
    auto s = tl::fma(tl::max(x, 0), 1.5, 0.0);
    tl::store(out + offs, tl::exp2_fast(tl::fma(x, 1.5, -s)));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Constexpr> k("fma_forms", fn, {"out", "in", "BLOCK"});
  std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), 256};
  const auto& ptx = k.compile(args, ptx_options(4, "sm_90"));
  REQUIRE(ptx.metadata().codegen == "ptx");
  CHECK(ptx.stage("ptx").find("fma.rn.f32") != std::string::npos);
  CHECK(ptx.stage("ptx").find("ex2.approx.ftz.f32") != std::string::npos);
  CompileOptions cuda = ptx_options(4, "sm_90");
  cuda.codegen = GpuCodegen::cuda;
  const auto& c = k.compile(args, cuda);
  CHECK(c.stage("cuda").find("fmaf(") != std::string::npos);
  CHECK(c.stage("cuda").find("tj_ex2_ftz(") != std::string::npos);
  // NVVM keeps the zero addend (folding it to a multiply would change the sign of a zero
  // product), so s is rounded once and not fused into the fma that subtracts it.
  const std::regex zero_addend(R"(mov\.f32\s+(%f\d+), 0f00000000;[\s\S]*fma\.rn\.f32\s+%f\d+, %f\d+, %f\d+, \1;)");
  CHECK(std::regex_search(c.stage("ptx"), zero_addend));
}

TEST_CASE("a kernel the PTX generator cannot express falls back to CUDA C and says why") {
  // f64 exp has no PTX sequence here.
  static void (*fn)(tl::Ptr, tl::Ptr, tl::Constexpr) = [](tl::Ptr out, tl::Ptr in, tl::Constexpr BLOCK) {
    auto offs = tl::arange(0, BLOCK);
    tl::store(out + offs, tl::exp(tl::load(in + offs)));
  };
  static const Kernel<tl::Ptr, tl::Ptr, tl::Constexpr> k("exp_f64", fn, {"out", "in", "BLOCK"});
  const auto& c = k.compile({fake(DType::f64, 0), fake(DType::f64, 1), 256}, ptx_options(4, "sm_90"));
  CHECK(c.metadata().codegen == "cuda");
  CHECK(c.metadata().key.find("codegen=ptx") != std::string::npos);
  CHECK(c.metadata().compile_reason.find("instead of the PTX generator") != std::string::npos);
  CHECK(c.metadata().compile_reason.find("'exp' on f64") != std::string::npos);
  CHECK_FALSE(c.stage("cuda").empty());
  CHECK_FALSE(c.stage("cubin").empty());
}

TEST_CASE("the PTX generator needs sm_80: older targets fall back to CUDA C") {
  const auto& c = examples::find_example("vector_add")
                      .kernel->compile(examples::find_example("vector_add").arguments(1, 4096, 1024, DType::f32),
                                       ptx_options(4, "sm_75"));
  CHECK(c.metadata().codegen == "cuda");
  CHECK(c.metadata().compile_reason.find("sm_80") != std::string::npos);
}

TEST_CASE("TILEJIT_CODEGEN selects the generator; other values are a clear error") {
  {
    ScopedEnv env("TILEJIT_CODEGEN", nullptr);
    CHECK(default_codegen() == kDefaultGpuCodegen);
  }
  {
    ScopedEnv env("TILEJIT_CODEGEN", "ptx");
    CHECK(default_codegen() == GpuCodegen::ptx);
    CompileOptions o = ptx_options(4, "sm_90");
    o.codegen = GpuCodegen::automatic;
    const auto& k = ops::softmax_simple().compile({fake(DType::f32, 0), fake(DType::f32, 1), 64, 64, 64, 64}, o);
    CHECK(k.metadata().codegen == "ptx");
  }
  {
    ScopedEnv env("TILEJIT_CODEGEN", "cuda");
    CHECK(default_codegen() == GpuCodegen::cuda);
  }
  {
    ScopedEnv env("TILEJIT_CODEGEN", "nvvm");
    CHECK_THROWS_WITH_AS(default_codegen(), doctest::Contains("TILEJIT_CODEGEN must be 'ptx'"), Error);
    CHECK_THROWS_WITH_AS(default_codegen(), doctest::Contains("got 'nvvm'"), Error);
    CompileOptions o = ptx_options(4, "sm_90");
    o.codegen = GpuCodegen::automatic;
    CHECK_THROWS_AS(ops::softmax_simple().compile({fake(DType::f32, 0), fake(DType::f32, 1), 32, 32, 32, 32}, o),
                    Error);
  }
}

TEST_CASE("PTX and CUDA C specializations are cached apart") {
  // An empty disk cache of its own: a miss is also compared with this kernel's entries on disk,
  // and an older generator's entry there could be nearer than the PTX build in memory.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("tilejit-apart-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv cache("TILEJIT_CACHE_DIR", dir.c_str());
  static const Kernel k("vector_add_apart", examples::vector_add_kernel, {"x", "y", "out", "n", "BLOCK_SIZE"});
  std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 4096, 1024};
  CompileOptions cuda = ptx_options(4, "sm_90");
  cuda.codegen = GpuCodegen::cuda;
  const auto& a = k.compile(args, ptx_options(4, "sm_90"));
  const auto& b = k.compile(args, cuda);
  CHECK(&a != &b);
  CHECK(a.metadata().codegen == "ptx");
  CHECK(b.metadata().codegen == "cuda");
  CHECK(b.metadata().key.find("codegen=cuda") != std::string::npos);
  CHECK(b.metadata().compile_reason.find("codegen differs (cuda, cached: ptx)") != std::string::npos);
  CHECK(&k.compile(args, ptx_options(4, "sm_90")) == &a);
  fs::remove_all(dir);
}

TEST_CASE("disk cache round trip on the PTX path") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / fmt::format("tilejit-ptx-cache-{}", ::getpid());
  fs::remove_all(dir);
  ScopedEnv cache("TILEJIT_CACHE_DIR", dir.c_str());
  ScopedEnv always("TILEJIT_ALWAYS_COMPILE", nullptr);
  std::vector<Arg> args{fake(DType::f16, 0), fake(DType::f16, 1), 1024, 1024, 4096, 1000, 1024, 2};
  std::string ptx, cubin, path;
  {
    static const ops::SoftmaxPersistent k1("softmax_ptx_disk", ops::softmax_persistent_kernel);
    const auto& c = k1.compile(args, ptx_options(4, "sm_90"));
    CHECK_FALSE(c.metadata().from_disk_cache);
    CHECK(c.metadata().codegen == "ptx");
    path = c.metadata().disk_cache_path;
    REQUIRE_FALSE(path.empty());
    ptx = c.stage("ptx");
    cubin = c.stage("cubin");
  }
  // A new Kernel object has an empty memory cache: the entry comes from disk.
  static const ops::SoftmaxPersistent k2("softmax_ptx_disk", ops::softmax_persistent_kernel);
  const auto& c = k2.compile(args, ptx_options(4, "sm_90"));
  CHECK(c.metadata().from_disk_cache);
  CHECK(c.metadata().disk_cache_path == path);
  CHECK(c.metadata().compile_reason.find(" skipped: disk cache hit") != std::string::npos);
  CHECK(c.stage("ptx") == ptx);
  CHECK(c.stage("cubin") == cubin);
  CHECK(c.metadata().spill_store_bytes == 0);
  CHECK(c.metadata().registers > 0);
  fs::remove_all(dir);
}

TEST_CASE("a PTX override replaces the generated PTX on the PTX path") {
  namespace fs = std::filesystem;
  static const Kernel k("vector_add_override", examples::vector_add_kernel, {"x", "y", "out", "n", "BLOCK_SIZE"});
  std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::f32, 2), 4096, 512};
  fs::path dir = fs::temp_directory_path() / fmt::format("tilejit-ptx-override-{}", ::getpid());
  fs::create_directories(dir);
  std::string entry;
  {
    static const Kernel probe("vector_add_override", examples::vector_add_kernel, {"x", "y", "out", "n", "BLOCK_SIZE"});
    entry = probe.compile(args, ptx_options(4, "sm_90")).metadata().entry_name;
  }
  {
    std::ofstream(dir / (entry + ".ptx")) << "// hand-edited\n";
    ScopedEnv env("TILEJIT_OVERRIDE_DIR", dir.c_str());
    const auto& c = k.compile(args, ptx_options(4, "sm_90"));
    CHECK(c.stage("ptx") == "// hand-edited\n");
    CHECK(c.metadata().override_path == (dir / (entry + ".ptx")).string());
  }
  fs::remove_all(dir);
}

TEST_CASE("pipelined loops of three stages or more are unrolled num_stages times in both generators") {
  // The seed's persistent kernel at 128 columns: the loop loads one row per step.
  const examples::ExampleKernel& e = examples::find_example("softmax_persistent");
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (int stages : {2, 3, 4}) {
    CAPTURE(stages);
    auto args = e.arguments(8, 128, 128, DType::f32);
    args.back() = std::int64_t{stages};  // the kernel's own num_stages parameter
    const CompiledKernel& ptx = e.kernel->compile(args, ptx_options(2, "sm_90", stages));
    REQUIRE(ptx.metadata().codegen == "ptx");
    // stages - 1 rows loaded before the loop, then one per step: rolled at two stages, else
    // one load per copy of the body.
    const std::size_t copies = stages > 2 ? static_cast<std::size_t>(stages) : 1;
    CHECK(count(ptx.stage("ptx"), "ld.global") == static_cast<std::size_t>(stages - 1) + copies);
    CHECK(ptx.metadata().spill_store_bytes == 0);
    CompileOptions o = ptx_options(2, "sm_90", stages);
    o.codegen = GpuCodegen::cuda;
    const std::string cuda = e.kernel->compile(args, o).stage("cuda");
    CHECK(count(cuda, "#pragma unroll " + std::to_string(stages) + "  // num_stages") == (stages > 2 ? 1u : 0u));
  }
}

TEST_CASE("PTX path: the op's bf16 rows_2d loop computes one address and one mask per vector access") {
  // On the H200 these two configurations ran at 0.78 and 0.79 of a copy through this generator
  // against 0.90 and 0.91 through NVRTC. The loop body computed all eight elements' 64-bit
  // addresses and masks where a v4 access uses its first element's (113 such instructions for
  // one load and one store; NVVM's 15), and read %tid.x again before each access. Counted in
  // the PTX, each access now costs 4 address instructions (row and column, mul.wide + add.s64
  // each) and 3 predicate ones (two compares and their and); the bound leaves room for a few
  // more, not for a block's worth.
  const Pointer b0 = fake(DType::bf16, 0), b1 = fake(DType::bf16, 1);
  struct Case {
    const char* what;
    std::vector<Arg> args;
  };
  const Case cases[] = {
      {"65536 x 32, 32 rows", {b0, b1, 32, 32, 65536, 32, 32, 32, 0, 0, 1}},
      {"65536 x 128, 8 rows", {b0, b1, 128, 128, 65536, 128, 8, 128, 0, 0, 1}},
  };
  for (const Case& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    CompileOptions o = ptx_options(4, "sm_90");
    const CompiledKernel& k = ops::softmax_rows_2d_op().compile(c.args, o);
    REQUIRE(k.metadata().codegen == "ptx");
    const std::vector<std::string> body = loop_body(k.stage("ptx"));
    int accesses = 0, index_math = 0, tid_reads = 0;
    for (const std::string& ins : body) {
      if (ins.find("ld.global.v4") != std::string::npos || ins.find("st.global.v4") != std::string::npos) ++accesses;
      for (const char* op : {"mul.wide.", "add.s64", "setp.", "and.pred"})
        if (ins.find(op) != std::string::npos) ++index_math;
      if (ins.find("%tid.") != std::string::npos) ++tid_reads;
    }
    CHECK(accesses == 2);
    CHECK(index_math <= 10 * accesses);
    CHECK(tid_reads == 0);
    // The same in machine code: whole-program ptxas makes no more of it than NVRTC does (before:
    // 256 bytes more for both configurations, 16 instructions; now 256 fewer).
    if (rt::ptx_assembler_name() == "nvJitLink") continue;  // relocatable code (see test_ptx_registers.cpp)
    o.codegen = GpuCodegen::cuda;
    const CompiledKernel& nvrtc = ops::softmax_rows_2d_op().compile(c.args, o);
    CHECK(text_bytes(k.stage("cubin")) <= text_bytes(nvrtc.stage("cubin")) + 128);
  }
}

TEST_CASE("PTX path: the op's cluster kernel syncs as NVRTC's does and assembles to no more machine code") {
  // The configurations the H200 table ships for 4096 rows, which ran at 0.73, 0.71 and 0.53 of a
  // copy through this generator against 0.84, 0.73 and 0.58 through NVRTC. The loop had two
  // block barriers per cross-warp reduction where the CUDA C generator has one (two buffers in
  // turn), predicated remote stores that ptxas built from generic addresses (an S2R and a PRMT
  // each: 16 S2R per step), no .explicitcluster (ptxas added a path for launches without a
  // cluster), and bf16 rows carried as 16-bit halves. Counted in the PTX: barriers in the loop
  // (two reductions) and predicated remote stores; in the cubin, .text bytes against NVRTC's
  // (before: +256, +768 and +768 bytes; now 256 fewer each) and the blocks per SM that the
  // registers leave room for. Since the exchanges became st.async sends, each also has the block
  // barrier before its send, as in NVRTC's kernel.
  const Pointer f0 = fake(DType::f32, 0), f1 = fake(DType::f32, 1), b0 = fake(DType::bf16, 0),
                b1 = fake(DType::bf16, 1);
  struct Case {
    std::string what;
    int warps, stages, exchanges;
    std::vector<Arg> args;
  };
  const Case cases[] = {
      {"f32 65536, 8192 x 8", 16, 2, 2, {f0, f1, 65536, 65536, 4096, 65536, 8192, 8, 0, 0, 2, 0}},
      {"bf16 65536, 8192 x 8", 8, 2, 2, {b0, b1, 65536, 65536, 4096, 65536, 8192, 8, 0, 0, 2, 0}},
      {"bf16 262144, 16384 x 16", 16, 1, 2, {b0, b1, 262144, 262144, 4096, 262144, 16384, 16, 0, 0, 1, 0}},
      {"f32 262144, 32768 x 8, one exchange", 16, 1, 1, {f0, f1, 262144, 262144, 4096, 262144, 32768, 8, 0, 0, 1, 1}},
  };
  for (const Case& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    CompileOptions o = ptx_options(c.warps, "sm_90", c.stages);
    const CompiledKernel& k = ops::softmax_cluster_op().compile(c.args, o);
    REQUIRE(k.metadata().codegen == "ptx");
    CHECK(k.stage("ptx").find(".explicitcluster") != std::string::npos);
    int barriers = 0, predicated_remote_stores = 0;
    for (const std::string& ins : loop_body(k.stage("ptx"))) {
      barriers += ins.rfind("bar.sync", 0) == 0;
      predicated_remote_stores += ins[0] == '@' && ins.find("st.async") != std::string::npos;
    }
    CHECK(barriers == 2 + c.exchanges);
    CHECK(predicated_remote_stores == 0);
    if (rt::ptx_assembler_name() == "nvJitLink") continue;  // relocatable code (see test_ptx_registers.cpp)
    o.codegen = GpuCodegen::cuda;
    const CompiledKernel& nvrtc = ops::softmax_cluster_op().compile(c.args, o);
    CHECK(text_bytes(k.stage("cubin")) <= text_bytes(nvrtc.stage("cubin")));
    // Registers are allocated 8 at a time; the bf16 65536 kernel takes 79 against 69, 3 blocks
    // per SM either way.
    auto blocks_per_sm = [&](const CompiledKernel& x) {
      return 65536 / ((x.metadata().registers + 7) / 8 * 8 * 32 * c.warps);
    };
    CHECK(blocks_per_sm(k) >= blocks_per_sm(nvrtc));
    CHECK(k.metadata().spill_store_bytes == 0);
  }
}

TEST_CASE("PTX path: cluster reductions through distributed shared memory, an mbarrier wait each") {
  std::vector<Arg> args{
      fake(DType::f32, 0), fake(DType::f32, 1), fake(DType::i32, 2), fake(DType::f32, 3), 7, 400, 128, 4};
  const CompiledKernel& k = tilejit_test::cluster_rows().compile(args, ptx_options(4, "sm_90"));
  REQUIRE(k.metadata().codegen == "ptx");
  CHECK(k.metadata().cluster_size == 4);
  const std::string& ptx = k.stage("ptx");
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto p = ptx.find(what); p != std::string::npos; p = ptx.find(what, p + 1)) ++n;
    return n;
  };
  CHECK(count(".reqnctapercluster 4, 1, 1") == 1);
  // Four reductions per row (max, sum, min, count): four st.async sends each (two mapa: the slot
  // and the receiver's mbarrier), one wait on this block's mbarrier each; the one cluster barrier
  // is the start-up one, and nothing fences.
  CHECK(count("mapa.shared::cluster.u32") == 32);
  CHECK(count("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32") == 16);
  CHECK(count("mbarrier.arrive.expect_tx.shared::cta.b64") == 4);
  CHECK(count("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64") == 4);
  CHECK(count("barrier.cluster.arrive") == 1);
  CHECK(count("barrier.cluster.arrive.relaxed.aligned") == 1);
  CHECK(count("fence.acq_rel") == 0);
  CHECK(k.metadata().spill_store_bytes == 0);
  // An even number per step: every slot address is a constant (no turn register).
  CHECK(count("xor.b32") == 0);
  CHECK(count("ld.shared.v4.b32") == 4);
}

TEST_CASE("PTX path: cluster reductions whose slot set is chosen at run time") {
  for (int cluster : {3, 4}) {
    CAPTURE(cluster);
    std::vector<Arg> args{fake(DType::f32, 0), fake(DType::f32, 1), 7, 1000, 256, cluster};
    const CompiledKernel& k = cluster_odd().compile(args, ptx_options(4, "sm_90"));
    REQUIRE(k.metadata().codegen == "ptx");
    const std::string& ptx = k.stage("ptx");
    CHECK(ptx.find("xor.b32") != std::string::npos);
    // 8-byte slots: in pairs where a set starts 16-byte aligned (an even cluster size).
    CHECK((ptx.find("ld.shared.v2.b64") != std::string::npos) == (cluster % 2 == 0));
    CHECK(k.metadata().spill_store_bytes == 0);
  }
}
