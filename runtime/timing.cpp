#include "tilejit/timing.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/l2_flush.h"
#include "tilejit/error.h"

namespace tilejit {
namespace {

class Event {
 public:
  Event() { rt::check(rt::driver().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  ~Event() {
    if (!rt::driver_shutting_down()) rt::driver().cuEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  CUevent event_ = nullptr;
};

// Holds a stream at its head (queue_first) until open(), or until a second has passed, in case the
// driver's queue fills before the host is done and enqueuing waits for the stream itself. However
// time_gpu returns, the gate opens and the stream is waited for before the gate is freed.
class StreamGate {
 public:
  explicit StreamGate(CUstream stream) : stream_(stream) {}
  ~StreamGate() {
    open();
    if (held_ && !rt::driver_shutting_down()) rt::driver().cuStreamSynchronize(stream_);
  }
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void hold() {
    rt::check(rt::driver().cuLaunchHostFunc(stream_, &StreamGate::wait, this), "cuLaunchHostFunc");
    held_ = true;
  }
  void open() { open_.store(true, std::memory_order_release); }

 private:
  static void CUDA_CB wait(void* self) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    auto& gate = *static_cast<StreamGate*>(self);
    while (!gate.open_.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  CUstream stream_;
  bool held_ = false;
  std::atomic<bool> open_{false};
};

}  // namespace

Timing time_gpu(const std::function<void()>& run, const TimingOptions& options) {
  if (options.reps < 1 || options.warmup < 0 || options.trailing < 0)
    throw Error("time_gpu: reps must be >= 1, and warmup and trailing >= 0");
  rt::make_context_current();
  const auto& d = rt::driver();
  auto stream = reinterpret_cast<CUstream>(options.stream);
  auto flush = [&] {
    if (options.flush_l2) flush_l2(options.stream);
  };
  StreamGate gate(stream);
  if (options.queue_first) gate.hold();
  for (int i = 0; i < options.warmup; ++i) {
    flush();
    run();
  }
  std::vector<Event> starts(static_cast<std::size_t>(options.reps)), ends(static_cast<std::size_t>(options.reps));
  for (int i = 0; i < options.reps; ++i) {
    flush();
    rt::check(d.cuEventRecord(starts[static_cast<std::size_t>(i)].get(), stream), "cuEventRecord");
    run();
    rt::check(d.cuEventRecord(ends[static_cast<std::size_t>(i)].get(), stream), "cuEventRecord");
  }
  for (int i = 0; i < options.trailing; ++i) {
    flush();
    run();
  }
  gate.open();
  rt::check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");  // the trailing runs too
  Timing t;
  for (int i = 0; i < options.reps; ++i) {
    float ms = 0;
    rt::check(
        d.cuEventElapsedTime(&ms, starts[static_cast<std::size_t>(i)].get(), ends[static_cast<std::size_t>(i)].get()),
        "cuEventElapsedTime");
    t.samples_ms.push_back(ms);
  }
  std::vector<double> sorted = t.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty()) {
    t.min_ms = sorted.front();
    t.max_ms = sorted.back();
    std::size_t n = sorted.size();
    t.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  }
  return t;
}

void flush_l2(StreamHandle stream) {
  rt::make_context_current();
  static const Buffer flush_buffer(DType::i32, 64u << 20, Memory::device);  // once, for the process
  rt::flush_l2(flush_buffer.address(), flush_buffer.bytes(), stream);
}

void copy_device_to_device(std::uint64_t dst, std::uint64_t src, std::size_t bytes, StreamHandle stream) {
  rt::make_context_current();
  rt::check(rt::driver().cuMemcpyDtoDAsync(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src), bytes,
                                           reinterpret_cast<CUstream>(stream)),
            "cuMemcpyDtoDAsync");
}

}  // namespace tilejit
