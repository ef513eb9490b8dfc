// Runs body(t) for t = 0 .. threads-1 on that many threads released at once (a latch), and
// joins them: the concurrency tests' way of making threads race for one thing.
#pragma once

#include <latch>
#include <thread>
#include <vector>

namespace tilejit::testing {

template <class Body>
void run_together(int threads, Body body) {
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  for (auto& th : pool) th.join();
}

}  // namespace tilejit::testing
