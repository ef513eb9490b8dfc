// Choosing the backend: names, TILEJIT_BACKEND, an explicit CUDA arch, and builds without LLVM.
// Runs in every build.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/vector_add.h"
#include "tilejit/tilejit.h"

using namespace tilejit;

namespace {

struct EnvGuard {
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v, had_ = true;
  }
  ~EnvGuard() {
    if (had_) setenv(name_, saved_.c_str(), 1);
    else unsetenv(name_);
  }
  const char* name_;
  std::string saved_;
  bool had_ = false;
};

const Pointer kX{0x1000, DType::f32}, kY{0x2000, DType::f32}, kOut{0x3000, DType::f32};

}  // namespace

TEST_CASE("backend names and TILEJIT_BACKEND") {
  CHECK(std::string(backend_name(Backend::automatic)) == "automatic");
  CHECK(std::string(backend_name(Backend::cuda)) == "cuda");
  CHECK(std::string(backend_name(Backend::cpu)) == "cpu");
  EnvGuard guard("TILEJIT_BACKEND");
  setenv("TILEJIT_BACKEND", "cpu", 1);
  CHECK(default_backend() == Backend::cpu);
  setenv("TILEJIT_BACKEND", "cuda", 1);
  CHECK(default_backend() == Backend::cuda);
  setenv("TILEJIT_BACKEND", "tpu", 1);
  CHECK_THROWS_WITH_AS(default_backend(), doctest::Contains("TILEJIT_BACKEND must be 'cuda' or 'cpu'"), Error);
  unsetenv("TILEJIT_BACKEND");
  CHECK(default_backend() == (has_gpu() ? Backend::cuda : Backend::cpu));
}

TEST_CASE("an explicit CUDA arch compiles for CUDA even where the default is the CPU") {
  EnvGuard guard("TILEJIT_BACKEND");
  setenv("TILEJIT_BACKEND", "cpu", 1);
  const auto& k = examples::vector_add().compile({kX, kY, kOut, 100, 128}, {.arch = "sm_90"});
  CHECK(k.metadata().backend == Backend::cuda);
  CHECK(k.metadata().key.ends_with("backend=cuda"));
  CHECK(k.stage("ptx").find(".entry") != std::string::npos);
  CHECK_THROWS_WITH_AS(k.stage("llvm"), doctest::Contains("available: "), Error);
}

TEST_CASE("without LLVM the CPU backend says it is unavailable; everything else works") {
  std::string why;
  if (has_cpu_backend(&why)) {
    CHECK(why.empty());
    return;
  }
  CHECK(why == "the CPU backend is not available: tilejit was built without LLVM (TILEJIT_WITH_LLVM=OFF)");
  CompileOptions cpu;
  cpu.backend = Backend::cpu;
  CHECK_THROWS_WITH_AS(examples::vector_add().compile({kX, kY, kOut, 100, 128}, cpu), why.c_str(), Error);
  CompileOptions cuda;
  cuda.backend = Backend::cuda;
  CHECK(examples::vector_add().compile({kX, kY, kOut, 100, 128}, cuda).stage("ptx").find(".entry") !=
        std::string::npos);
}

TEST_CASE("a Buffer cannot be of unknown memory") { CHECK_THROWS_AS(Buffer(DType::f32, 4, Memory::unknown), Error); }

TEST_CASE("a Buffer by default lives where the default backend's kernels read") {
  CHECK(memory_of(Backend::cpu) == Memory::host);
  CHECK(memory_of(Backend::cuda) == Memory::device);
  EnvGuard guard("TILEJIT_BACKEND");
  setenv("TILEJIT_BACKEND", "cpu", 1);
  CHECK(memory_of() == Memory::host);
  CHECK(Buffer(DType::f32, 4).memory() == Memory::host);
  setenv("TILEJIT_BACKEND", "cuda", 1);
  CHECK(memory_of() == Memory::device);
  if (has_gpu()) CHECK(Buffer(DType::f32, 4).memory() == Memory::device);
  else CHECK_THROWS_AS(Buffer(DType::f32, 4), CudaError);  // asked for CUDA: no silent host memory
  unsetenv("TILEJIT_BACKEND");
  CHECK(Buffer(DType::f32, 4).memory() == (has_gpu() ? Memory::device : Memory::host));
}

// The program README's "Compiling and launching" shows: nothing in it names a backend or a memory.
TEST_CASE("a program that leaves backend and memory to their defaults runs on the CPU backend") {
  std::string why;
  if (!has_cpu_backend(&why)) {
    MESSAGE("skipped: " << why);
    return;
  }
  EnvGuard guard("TILEJIT_BACKEND");
  setenv("TILEJIT_BACKEND", "cpu", 1);  // what a machine without a GPU picks by itself
  const std::int64_t n = 1000;
  std::vector<float> x(n), y(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i), y[i] = 1.0f / static_cast<float>(i + 1);
  Buffer bx(DType::f32, n), by(DType::f32, n), bout(DType::f32, n);
  bx.upload(x);
  by.upload(y);
  examples::vector_add().launch(Grid(cdiv(n, 256)), {bx, by, bout, n, 256});
  synchronize();  // waits for any GPU work; the CPU launch has already finished
  const std::vector<float> out = bout.download<float>();
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < n; ++i) wrong += out[i] != x[i] + y[i];  // one rounding either way
  CHECK(wrong == 0);
}
