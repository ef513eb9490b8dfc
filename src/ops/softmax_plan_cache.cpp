// The plans of the shapes a process has run, so that calling the op again on a shape skips the
// tuning file's path, the device's name and the table lookups: 0.43-0.81 us a call on the H200's
// host (bench-latency (d), bench/results/latency_2026-12-03.md). A plan is reused only while what
// it was made from is unchanged: the tuned tables (a generation that tuning and
// forget_softmax_tuning advance) and the inputs the environment gives it (PlanInputs).
#include <mutex>
#include <unordered_map>

#include "softmax_internal.h"

namespace tilejit::ops::detail {
namespace {

struct KeyHash {
  std::size_t operator()(const PlanKey& k) const {
    std::size_t h = std::hash<std::int64_t>()(k.rows) * 31 + std::hash<std::int64_t>()(k.cols);
    h = h * 31 + static_cast<std::size_t>(k.in) * 7 + static_cast<std::size_t>(k.out);
    return h * 31 + static_cast<std::size_t>(k.backend) * 1009 + static_cast<std::size_t>(k.cpu_threads);
  }
};

struct Entry {
  SoftmaxPlan plan;
  std::uint64_t generation;
  PlanInputs inputs;
};

// A process runs few shapes; past this many the cache starts again rather than grow.
constexpr std::size_t kMaxPlans = 1024;

std::mutex g_plans_mutex;
std::uint64_t g_generation = 0;  // under g_plans_mutex

std::unordered_map<PlanKey, Entry, KeyHash>& plans() {
  static std::unordered_map<PlanKey, Entry, KeyHash> m;
  return m;
}

}  // namespace

PlanLookup cached_plan(const PlanKey& key, const PlanInputs& inputs) {
  std::lock_guard lock(g_plans_mutex);
  auto it = plans().find(key);
  if (it == plans().end() || it->second.generation != g_generation || !(it->second.inputs == inputs))
    return {std::nullopt, g_generation};
  return {it->second.plan, g_generation};
}

void remember_plan(const PlanKey& key, const PlanInputs& inputs, std::uint64_t generation, const SoftmaxPlan& plan) {
  std::lock_guard lock(g_plans_mutex);
  if (generation != g_generation) return;  // the tables changed while the plan was made
  if (plans().size() >= kMaxPlans) plans().clear();
  plans().insert_or_assign(key, Entry{plan, generation, inputs});
}

void forget_plans() {
  std::lock_guard lock(g_plans_mutex);
  ++g_generation;
  plans().clear();
}

}  // namespace tilejit::ops::detail
