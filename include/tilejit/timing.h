// GPU timing for benchmarks and tools: CUDA events around each run, the median reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "tilejit/device.h"

namespace tilejit {

struct TimingOptions {
  int warmup = 5;  ///< untimed runs first (module load, clocks)
  int reps = 50;   ///< timed runs
  /// Before each run, empty L2 (flush_l2 below) so inputs come from DRAM.
  bool flush_l2 = true;
  /// Hold the stream until every run is enqueued (a host function waits at its head, at most a
  /// second), so no run waits for the host to enqueue it: the GPU's time alone, where by default a
  /// run enqueued just in time also counts its launch's way to the GPU.
  bool queue_first = false;
  /// Untimed runs enqueued after the timed ones, so that the last timed runs, too, have work
  /// queued behind them: with nothing behind them, the last four or five launches of a batch read
  /// up to a tenth faster than the rest, which moves a short batch's median (an autotuner's) by
  /// that much (bench/results/trailing_h100_2026-12-06.md).
  int trailing = 8;
  StreamHandle stream = nullptr;
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> samples_ms;
};

/// Times `run` (which enqueues GPU work on options.stream) with events around each
/// repetition. Needs a GPU.
Timing time_gpu(const std::function<void()>& run, const TimingOptions& options = {});

/// Enqueues on `stream` what empties L2 before each of time_gpu's runs: on sm_80 and later, the
/// lines kernels loaded with an evict_last hint are displaced and dropped (a plain overwrite leaves
/// them: bench/results/timing_context_h100_2026-12-06.md), then a 256 MiB buffer, allocated on
/// first use and kept for the process, is overwritten. For timing loops of one's own (the Python
/// benchmarks flush do_bench's runs with it). TILEJIT_FLUSH_HELD_LINES=0 leaves out the first
/// step. Needs a GPU.
void flush_l2(StreamHandle stream = nullptr);

/// Enqueues a device-to-device copy of `bytes` bytes (the bandwidth ceiling benchmarks quote).
void copy_device_to_device(std::uint64_t dst, std::uint64_t src, std::size_t bytes, StreamHandle stream = nullptr);

}  // namespace tilejit
