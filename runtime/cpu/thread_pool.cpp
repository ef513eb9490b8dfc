#include "runtime/cpu/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>

namespace tilejit::rt::cpu {

struct ThreadPool::Job {
  std::uint64_t n;
  std::uint64_t grain;
  std::atomic<std::uint64_t> next{0};
  const std::function<void(std::uint64_t, std::uint64_t)>* body;
  std::mutex error_mutex;
  std::exception_ptr error;  // the first exception a range threw; the caller rethrows it
};

ThreadPool& ThreadPool::instance() {
  static ThreadPool* pool = new ThreadPool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return *pool;
}

ThreadPool::ThreadPool(int threads) {
  for (int i = 0; i + 1 < threads; ++i) workers_.emplace_back([this, i] { worker(i); });
  for (auto& t : workers_) t.detach();  // the pool lives as long as the process
}

void ThreadPool::work(Job& job) {
  for (;;) {
    std::uint64_t begin = job.next.fetch_add(job.grain, std::memory_order_relaxed);
    if (begin >= job.n) return;
    try {
      (*job.body)(begin, std::min(job.n, begin + job.grain));
    } catch (...) {
      std::lock_guard lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
      job.next.store(job.n);  // stop handing out ranges
    }
  }
}

void ThreadPool::worker(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (index >= helpers_) continue;
      job = job_;
    }
    work(*job);
    std::lock_guard lock(mutex_);
    if (--pending_ == 0) done_.notify_one();
  }
}

void ThreadPool::parallel_for(std::uint64_t n, int max_threads,
                              const std::function<void(std::uint64_t, std::uint64_t)>& body) {
  if (n == 0) return;
  std::uint64_t threads = static_cast<std::uint64_t>(max_threads > 0 ? std::min(max_threads, size()) : size());
  threads = std::min(threads, n);
  if (threads <= 1) {
    body(0, n);
    return;
  }
  std::lock_guard launch(launch_mutex_);
  // Small ranges balance the load; a few per thread keep the atomic off the hot path.
  Job job{n, std::max<std::uint64_t>(1, n / (threads * 16)), {}, &body, {}, nullptr};
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    helpers_ = static_cast<int>(threads) - 1;
    pending_ = helpers_;
    ++generation_;
  }
  wake_.notify_all();
  work(job);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
  helpers_ = 0;
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace tilejit::rt::cpu
