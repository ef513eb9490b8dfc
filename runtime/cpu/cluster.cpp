#include "runtime/cpu/cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <barrier>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "tilejit/error.h"

namespace tilejit::rt::cpu {
namespace {

// One running cluster: a barrier for its threads and two sets of slots used in turn (the next
// reduction writes the other set; the one after it starts only past the next barrier, which
// every thread reaches after reading this set), as the GPU code does with shared memory.
struct Group {
  explicit Group(int size) : size(size), barrier(size), slots(2 * static_cast<std::size_t>(size)) {}
  int size;
  std::barrier<> barrier;
  std::vector<long double> slots;  // wide enough for every compute type, exact for i64
};

struct ThreadState {
  Group* group = nullptr;
  int rank = 0;
  int turn = 0;
};
thread_local ThreadState t_state;

template <class T>
T reduce_in_cluster(T value, std::int32_t kind) {
  ThreadState& s = t_state;
  if (!s.group) return value;  // a program outside any cluster (cannot happen for generated code)
  long double* set = s.group->slots.data() + static_cast<std::size_t>(s.turn) * s.group->size;
  set[s.rank] = static_cast<long double>(value);
  s.group->barrier.arrive_and_wait();
  // Rank order, the same in every program: all get the same bits, as on the GPU.
  T acc = static_cast<T>(set[0]);
  for (int r = 1; r < s.group->size; ++r) {
    T v = static_cast<T>(set[r]);
    if (kind == 0) acc = acc + v;
    else if constexpr (std::is_floating_point_v<T>) {
      // max/min propagate NaN, like tj_max/tj_min on the GPU.
      if (std::isnan(acc) || std::isnan(v)) acc = std::isnan(acc) ? acc : v;
      else acc = kind == 1 ? std::max(acc, v) : std::min(acc, v);
    } else {
      acc = kind == 1 ? std::max(acc, v) : std::min(acc, v);
    }
  }
  s.turn ^= 1;
  return acc;
}

}  // namespace

extern "C" float tilejit_cluster_reduce_f32(float v, std::int32_t kind) { return reduce_in_cluster(v, kind); }
extern "C" double tilejit_cluster_reduce_f64(double v, std::int32_t kind) { return reduce_in_cluster(v, kind); }
extern "C" std::int32_t tilejit_cluster_reduce_i32(std::int32_t v, std::int32_t kind) {
  return reduce_in_cluster(v, kind);
}
extern "C" std::int64_t tilejit_cluster_reduce_i64(std::int64_t v, std::int32_t kind) {
  return reduce_in_cluster(v, kind);
}

std::span<const ClusterHelper> cluster_helpers() {
  static const ClusterHelper helpers[] = {
      {"tilejit_cluster_reduce_f32", reinterpret_cast<void*>(&tilejit_cluster_reduce_f32)},
      {"tilejit_cluster_reduce_f64", reinterpret_cast<void*>(&tilejit_cluster_reduce_f64)},
      {"tilejit_cluster_reduce_i32", reinterpret_cast<void*>(&tilejit_cluster_reduce_i32)},
      {"tilejit_cluster_reduce_i64", reinterpret_cast<void*>(&tilejit_cluster_reduce_i64)},
  };
  return helpers;
}

void run_clusters(std::uint64_t x, std::uint64_t y, std::uint64_t z, int cluster_size, int max_threads,
                  const std::function<void(std::int32_t, std::int32_t, std::int32_t)>& program) {
  const auto c = static_cast<std::uint64_t>(cluster_size);
  const std::uint64_t clusters = x / c * y * z;
  const auto groups = static_cast<std::uint64_t>(std::max(1, max_threads / cluster_size));
  const std::uint64_t n_groups = std::min(groups, clusters);
  std::mutex error_mutex;
  std::exception_ptr error;
  std::vector<std::unique_ptr<Group>> state;
  for (std::uint64_t g = 0; g < n_groups; ++g) state.push_back(std::make_unique<Group>(cluster_size));
  std::vector<std::thread> threads;
  for (std::uint64_t g = 0; g < n_groups; ++g)
    for (int rank = 0; rank < cluster_size; ++rank)
      threads.emplace_back([&, g, rank] {
        Group& group = *state[g];
        for (std::uint64_t k = g; k < clusters; k += n_groups) {
          std::uint64_t rest = k / (x / c);
          auto px = static_cast<std::int32_t>((k % (x / c)) * c + static_cast<std::uint64_t>(rank));
          t_state = {&group, rank, 0};
          try {
            program(px, static_cast<std::int32_t>(rest % y), static_cast<std::int32_t>(rest / y));
          } catch (...) {
            std::lock_guard lock(error_mutex);
            if (!error) error = std::current_exception();
          }
          t_state = {};
          // The cluster's programs end together: the next cluster's reductions start from
          // fresh slots, whatever its own count of reductions.
          group.barrier.arrive_and_wait();
        }
      });
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tilejit::rt::cpu
