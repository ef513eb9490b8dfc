// Runtime on a real device: properties, device memory, NVRTC -> load -> launch.
// Built everywhere; gpu_main.cpp skips the suite (exit 77) when there is no device.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/module.h"
#include "runtime/nvrtc_compiler.h"
#include "tilejit/device.h"
#include "tilejit/error.h"
#include "tilejit/timing.h"

using namespace tilejit;

namespace {

std::size_t count_wrong_affine(const std::vector<float>& x, const std::vector<float>& y) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(std::fabs(y[i] - (2.0f * x[i] + 1.0f)) <= 1e-5f * std::fabs(2.0f * x[i]) + 1e-6f)) ++bad;
  return bad;
}

const char* const kAffine = R"(
extern "C" __global__ void affine_kernel(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
)";

std::unique_ptr<rt::LoadedKernel> load_affine() {
  rt::NvrtcOutput out = rt::nvrtc_compile(kAffine, "affine.cu", rt::target_arch(), {});
  return rt::LoadedKernel::load(out.cubin, "affine_kernel");
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.f, 100.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace

TEST_CASE("device properties are sane") {
  const DeviceProperties& p = device_properties();
  MESSAGE(p.name << " sm_" << p.cc_major << p.cc_minor << ", " << p.sm_count << " SMs");
  CHECK_FALSE(p.name.empty());
  CHECK(p.cc_major >= 7);
  CHECK(p.sm_count > 0);
  CHECK(p.regs_per_sm >= 65536);
  CHECK(p.smem_per_block >= 48 * 1024);
  CHECK(p.smem_per_block_optin >= p.smem_per_block);
  CHECK(p.smem_per_sm >= p.smem_per_block_optin);
  CHECK(p.max_threads_per_sm >= 1024);
  CHECK(p.l2_bytes > 0);
  CHECK(&p == &device_properties());  // queried once
}

TEST_CASE("device buffer round trip, offsets and fill") {
  const std::vector<float> in = random_floats(100003, 1);
  Buffer b(DType::f32, in.size(), Memory::device);
  CHECK(b.memory() == Memory::device);
  CHECK(b.address() != 0);
  b.upload(in);
  CHECK(b.download<float>() == in);

  float part[4] = {};
  b.download(part, sizeof(part), 10 * sizeof(float));
  CHECK(part[0] == in[10]);
  CHECK(part[3] == in[13]);
  CHECK_THROWS_AS(b.download(part, sizeof(part), b.bytes() - 8), Error);
  CHECK_THROWS_AS(b.host_data(), Error);

  b.fill_bytes(0xff);
  const std::vector<std::uint32_t> bits = b.download<std::uint32_t>();
  CHECK(std::all_of(bits.begin(), bits.end(), [](std::uint32_t v) { return v == 0xffffffffu; }));

  Buffer moved = std::move(b);
  CHECK(moved.count() == in.size());
  CHECK(b.address() == 0);
}

TEST_CASE("stream-ordered buffers: allocated, used and freed in a stream's order") {
  CHECK_FALSE(stream_is_capturing(nullptr));
  const std::vector<float> in = random_floats(4099, 3);
  {
    Buffer b = Buffer::stream_ordered(DType::f32, in.size(), nullptr);
    CHECK(b.memory() == Memory::device);
    CHECK(b.address() != 0);
    b.upload(in);  // synchronous, after the allocation on the legacy stream
    CHECK(b.download<float>() == in);
    Buffer moved = std::move(b);  // the stream and the way to free move along
    CHECK(b.address() == 0);
    moved.fill_bytes_async(0, nullptr);
    const std::vector<float> zeros = moved.download<float>();
    CHECK(std::all_of(zeros.begin(), zeros.end(), [](float v) { return v == 0.f; }));
  }  // freed with cuMemFreeAsync: the device stays usable
  synchronize();
  CHECK(Buffer::stream_ordered(DType::bf16, 0, nullptr).address() == 0);
}

TEST_CASE("NVRTC-compiled kernel loads and computes y = 2x + 1") {
  auto kernel = load_affine();
  const int n = 1000003;
  const std::vector<float> x = random_floats(n, 2);
  Buffer dx(DType::f32, n, Memory::device), dy(DType::f32, n, Memory::device);
  dx.upload(x);
  dy.fill_bytes(0xff);  // poison: NaN wherever the kernel fails to write

  std::uint64_t py = dy.address(), px = dx.address();
  int nn = n;
  void* params[] = {&py, &px, &nn};
  const unsigned threads = 256;
  kernel->launch({(n + threads - 1) / threads, 1, 1}, threads, 0, nullptr, params);
  synchronize();

  CHECK(count_wrong_affine(x, dy.download<float>()) == 0);
}

TEST_CASE("other threads get the context made current for them") {
  auto kernel = load_affine();
  const int n = 4099;
  const std::vector<float> x = random_floats(n, 3);
  std::size_t bad = 1;
  std::thread worker([&] {
    // A fresh thread has no current context; every runtime entry point sets it.
    Buffer dx(DType::f32, n, Memory::device), dy(DType::f32, n, Memory::device);
    dx.upload(x);
    dy.fill_bytes(0xff);
    std::uint64_t py = dy.address(), px = dx.address();
    int nn = n;
    void* params[] = {&py, &px, &nn};
    kernel->launch({(n + 127) / 128, 1, 1}, 128, 0, nullptr, params);
    synchronize();
    bad = count_wrong_affine(x, dy.download<float>());
  });
  worker.join();
  CHECK(bad == 0);
}

TEST_CASE("kernels and buffers may outlive main") {
  // The JIT cache holds loaded kernels in statics; they are destroyed during exit, which must be
  // quiet (ctest sees the exit status).
  static std::unique_ptr<rt::LoadedKernel> kept = load_affine();
  static Buffer kept_buffer(DType::f32, 1024, Memory::device);
  CHECK(kept != nullptr);
  CHECK(kept_buffer.address() != 0);
}

TEST_CASE("kernel resources and occupancy") {
  auto kernel = load_affine();
  const rt::KernelResources r = kernel->resources();
  CHECK(r.n_regs > 0);
  CHECK(r.local_bytes == 0);
  CHECK(r.static_shared_bytes == 0);
  CHECK(r.max_threads_per_block == 1024);
  CHECK(r.max_dynamic_shared_bytes > 0);
  CHECK(kernel->max_active_blocks_per_sm(256, 0) > 0);
  CHECK_THROWS_AS(kernel->max_active_blocks_per_sm(0, 0), Error);
}

TEST_CASE("PTX images load too") {
  rt::NvrtcOutput out = rt::nvrtc_compile(kAffine, "affine.cu", "compute_" + rt::target_arch().substr(3), {});
  std::vector<char> ptx(out.ptx.begin(), out.ptx.end());  // not NUL-terminated on purpose
  auto kernel = rt::LoadedKernel::load(ptx, "affine_kernel");
  CHECK(kernel->resources().n_regs > 0);
}

TEST_CASE("loading errors name the call") {
  rt::NvrtcOutput out = rt::nvrtc_compile(kAffine, "affine.cu", rt::target_arch(), {});
  try {
    rt::LoadedKernel::load(out.cubin, "no_such_kernel");
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK(e.call() == "cuModuleGetFunction");
    CHECK(std::string(e.what()).find("no_such_kernel") != std::string::npos);
  }
}

TEST_CASE("impossible launches are refused") {
  auto kernel = load_affine();
  std::uint64_t p = 0;
  int n = 0;
  void* params[] = {&p, &p, &n};
  CHECK_THROWS_AS(kernel->launch({1, 1, 1}, 2048, 0, nullptr, params), Error);
  CHECK_THROWS_AS(kernel->launch({1, 1, 1}, 0, 0, nullptr, params), Error);
  // Grid limits are checked by the driver itself.
  CHECK_THROWS_AS(kernel->launch({0, 1, 1}, 32, 0, nullptr, params), CudaError);
  CHECK_THROWS_AS(kernel->launch({1, 0, 1}, 32, 0, nullptr, params), CudaError);
  CHECK_THROWS_AS(kernel->launch({1, 65536, 1}, 32, 0, nullptr, params), CudaError);
  CHECK_THROWS_AS(kernel->launch({1, 1, 1}, 32, 16u << 20, nullptr, params), Error);
  try {
    kernel->launch({1, 1, 1}, 2048, 0, nullptr, params);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("2048 threads") != std::string::npos);
  }
  // n == 0: a valid launch that touches no memory; the context is still healthy.
  kernel->launch({1, 1, 1}, 32, 0, nullptr, params);
  synchronize();
}

TEST_CASE("driver errors become CudaError naming the call") {
  // Call the driver directly with grid.y == 0 and check the result's translation.
  rt::NvrtcOutput out = rt::nvrtc_compile(kAffine, "affine.cu", rt::target_arch(), {});
  rt::make_context_current();
  const rt::Driver& d = rt::driver();
  CUmodule module = nullptr;
  rt::check(d.cuModuleLoadData(&module, out.cubin.data()), "cuModuleLoadData");
  CUfunction function = nullptr;
  rt::check(d.cuModuleGetFunction(&function, module, "affine_kernel"), "cuModuleGetFunction");
  std::uint64_t p = 0;
  int n = 0;
  void* params[] = {&p, &p, &n};
  const CUresult r = d.cuLaunchKernel(function, 1, 0, 1, 32, 1, 1, 0, nullptr, params, nullptr);
  CHECK(r != CUDA_SUCCESS);
  try {
    rt::check(r, "cuLaunchKernel");
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    CHECK(e.call() == "cuLaunchKernel");
    CHECK(e.code() == static_cast<int>(r));
    CHECK(e.name().rfind("CUDA_ERROR_", 0) == 0);
    CHECK(std::string(e.what()).find("cuLaunchKernel") != std::string::npos);
  }
  rt::check(d.cuModuleUnload(module), "cuModuleUnload");
  synchronize();  // the failed launch left no sticky error
}

TEST_CASE("dynamic shared memory above 48 KiB is opted into") {
  const char* src = R"(
extern "C" __global__ void smem_kernel(int* out) {
  extern __shared__ int buf[];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
)";
  const DeviceProperties& props = device_properties();
  if (props.smem_per_block_optin <= 48 * 1024) return;
  rt::NvrtcOutput out = rt::nvrtc_compile(src, "smem.cu", rt::target_arch(), {});
  auto kernel = rt::LoadedKernel::load(out.cubin, "smem_kernel");
  Buffer o(DType::i32, 128, Memory::device);
  std::uint64_t po = o.address();
  void* params[] = {&po};
  const unsigned smem = 64 * 1024;
  kernel->launch({1, 1, 1}, 128, smem, nullptr, params);
  synchronize();
  CHECK(kernel->resources().max_dynamic_shared_bytes >= static_cast<int>(smem));
  const std::vector<std::int32_t> got = o.download<std::int32_t>();
  CHECK(got[0] == 127);
  CHECK(got[127] == 0);
}

TEST_CASE("time_gpu times every run but the trailing ones, with the stream held until all are enqueued or not") {
  const std::vector<float> in = random_floats(1 << 16, 3);
  Buffer src(DType::f32, in.size(), Memory::device), dst(DType::f32, in.size(), Memory::device);
  src.upload(in);
  for (bool queue_first : {false, true}) {
    CAPTURE(queue_first);
    dst.fill_bytes(0);
    int runs = 0;
    TimingOptions options;
    options.warmup = 3;
    options.reps = 7;
    options.queue_first = queue_first;
    options.trailing = 2;
    const Timing t = time_gpu(
        [&] {
          ++runs;
          copy_device_to_device(dst.address(), src.address(), src.bytes());
        },
        options);
    CHECK(runs == 12);
    REQUIRE(t.samples_ms.size() == 7);  // neither the warmup nor the trailing runs
    CHECK(std::all_of(t.samples_ms.begin(), t.samples_ms.end(), [](double ms) { return ms > 0 && ms < 1000; }));
    CHECK(t.min_ms <= t.median_ms);
    CHECK(t.median_ms <= t.max_ms);
    CHECK(dst.download<float>() == in);  // the stream is free again and the copies landed
  }
}

TEST_CASE("flush_l2 drops only its own lines: data written just before it survives") {
  // The flush discards its buffer's lines from L2 unwritten; lines other kernels left dirty there
  // (the copy's output, 16 MiB, well inside L2) must still reach memory.
  const std::vector<float> in = random_floats(4 << 20, 4);
  Buffer src(DType::f32, in.size(), Memory::device), dst(DType::f32, in.size(), Memory::device);
  src.upload(in);
  dst.fill_bytes(0);
  copy_device_to_device(dst.address(), src.address(), src.bytes());
  flush_l2();
  flush_l2();  // a second flush finds the first one's lines
  CHECK(dst.download<float>() == in);
  CHECK(src.download<float>() == in);
}
