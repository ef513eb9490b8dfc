// The CPU backend's worker threads: one per hardware core (the launching thread is one of
// them), created on first use and reused by every launch (internal).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilejit::rt::cpu {

class ThreadPool {
 public:
  /// The process-wide pool (never destroyed, so launches from static destructors still work).
  static ThreadPool& instance();

  /// Threads a launch may use: std::thread::hardware_concurrency(), at least 1.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs body(begin, end) over consecutive ranges covering [0, n) on at most `max_threads`
  /// threads (0: all of them), the caller included, and returns when every range is done.
  /// Launches from several threads run one after the other.
  void parallel_for(std::uint64_t n, int max_threads, const std::function<void(std::uint64_t, std::uint64_t)>& body);

 private:
  struct Job;
  explicit ThreadPool(int threads);
  void worker(int index);
  static void work(Job& job);

  std::vector<std::thread> workers_;
  std::mutex launch_mutex_;  // one job at a time
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  int helpers_ = 0;  // workers 0..helpers_-1 take part in the current job
  int pending_ = 0;  // helpers still working on it
};

}  // namespace tilejit::rt::cpu
