#include "jit/background_compiles.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

namespace tilejit::jit {
namespace {

std::atomic<bool> g_started{false};  // the worker exists (a job was submitted)

class Worker {
 public:
  Worker() { g_started.store(true, std::memory_order_release); }
  ~Worker() { stop(); }

  // Drops the queue and lets the job in progress (one compile) finish; later submits are dropped.
  void stop() {
    std::deque<BackgroundJob> dropped;
    std::thread running;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(queue_);
      running.swap(thread_);
    }
    woken_.notify_all();
    if (running.joinable()) running.join();
    for (auto& job : dropped) job(false);
    std::lock_guard lock(mutex_);
    unfinished_ -= static_cast<int>(dropped.size());
    if (unfinished_ == 0) idle_.notify_all();
  }

  void submit(BackgroundJob job) {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      job(false);
      return;
    }
    queue_.push_back(std::move(job));
    ++unfinished_;
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    woken_.notify_all();
  }

  void wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return unfinished_ == 0; });
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      woken_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      BackgroundJob job = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      job(true);  // jobs catch their own errors
      // NVRTC has registered its static destructors by now: a handler registered after them runs
      // before them, so an exit from any thread stops this worker before NVRTC's state goes.
      std::call_once(exit_handler_, [] { std::atexit(stop_at_exit); });
      lock.lock();
      if (--unfinished_ == 0) idle_.notify_all();
    }
  }

  static void stop_at_exit();

  std::once_flag exit_handler_;
  std::mutex mutex_;
  std::condition_variable woken_, idle_;
  std::deque<BackgroundJob> queue_;
  int unfinished_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

Worker& worker() {
  static Worker w;
  return w;
}

void Worker::stop_at_exit() { worker().stop(); }

}  // namespace

// exit() runs the exiting thread's thread_local destructors before any static destructor or
// atexit handler. NVRTC registers its static destructors lazily, during its first compile: on the
// worker thread, after the Worker was built, so they run before ~Worker and a build still going
// at exit would use NVRTC's destroyed state (an abort). The main thread's guard stops the worker
// before any of that runs; once the first build is done, an atexit handler does it for an exit
// from any thread. (gettid() == getpid() only on the main thread.) The main thread needs the guard
// even when only other threads submit (an application's pool compiling while main waits): it gets
// one at load time, from static initialization, which runs on the main thread.
namespace {

struct ExitGuard {
  ~ExitGuard() {
    if (::gettid() == ::getpid() && g_started.load(std::memory_order_acquire)) worker().stop();
  }
};

void guard_exit_on_this_thread() {
  thread_local ExitGuard guard;
  (void)guard;
}

const bool g_main_guarded = [] {
  if (::gettid() == ::getpid()) guard_exit_on_this_thread();
  return true;
}();
}  // namespace

void submit_background(BackgroundJob job) {
  guard_exit_on_this_thread();
  worker().submit(std::move(job));
}

void wait_background_idle() { worker().wait_idle(); }

}  // namespace tilejit::jit
