// Thread-block clusters on the CPU backend (internal). The programs of one cluster run at the
// same time on their own threads, and cluster reductions meet at a barrier between them, so a
// kernel using tl::cluster_* behaves as on the GPU. Generated code calls the reduction helpers
// below by name; the JIT defines them (cpu_jit.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

namespace tilejit::rt::cpu {

/// Runs every program of an x * y * z grid whose axis-0 programs form clusters of
/// `cluster_size` (x a multiple of it): each group of `cluster_size` threads runs one cluster
/// at a time, every thread one program of it, and about max_threads / cluster_size groups
/// (at least one) work on different clusters at once. program(px, py, pz) runs one program.
void run_clusters(std::uint64_t x, std::uint64_t y, std::uint64_t z, int cluster_size, int max_threads,
                  const std::function<void(std::int32_t, std::int32_t, std::int32_t)>& program);

/// The names the generated code calls, per compute type: "tilejit_cluster_reduce_f32" ...
/// Each takes (value, kind: 0 sum, 1 max, 2 min) and returns the cluster's reduction.
struct ClusterHelper {
  const char* name;
  void* address;
};
std::span<const ClusterHelper> cluster_helpers();

}  // namespace tilejit::rt::cpu
