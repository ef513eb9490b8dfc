// The softmax autotuner: times candidate configurations on the current device and keeps the
// fastest per (element size, rows band, N band) in a plain-text file per device,
// <cache dir>/autotune-<device name, spaces as '_'>.txt, which softmax consults before its
// tables: one shipped per device the autotuner has run on (shipped_softmax_config), then the
// hand-derived one. With TILEJIT_AUTOTUNE=1, softmax tunes a band the first time it meets it.
//
// File format (versioned; a file that does not parse is ignored as a whole):
//   tilejit-softmax-autotune v2
//   # device: NVIDIA H200
//   # architecture: sm_90, 132 SMs      (GPU files; a shipped table's twins are found by it)
//   # <element bytes> <rows band> <N band> : <strategy> <block> <warps> <stages> <rows/program> <splits> <grid>
//   #   [overlap] [interleave] [min_blocks=N] [stat_cols=N] [programs=N] [codegen=ptx|cuda|tiered]
//   4 12 12 : row_in_registers 4096 16 2 1 1 persistent
//   4 7 20 : group 8192 8 1 1 128 persistent overlap
//   4 4 22 : group 8192 8 1 1 264 persistent min_blocks=4 codegen=ptx
// (v1 files, without the grid word, still read: their configurations are persistent.)
// Bands are ceil(log2(n)): a configuration tuned for one shape serves every shape of its band.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilejit/ops/softmax.h"

namespace tilejit::ops {

struct TuneOptions {
  Backend backend = Backend::automatic;
  /// Configurations to time; empty: softmax_candidates() for the shape.
  std::vector<SoftmaxConfig> candidates;
  int warmup = 2;
  int reps = 10;        ///< timed runs per candidate (median)
  bool persist = true;  ///< write the winner to the device's file
  /// The sweep's fastest `finalists`, with the configuration the op ran before this call (the
  /// incumbent), are timed again in `rounds` rounds, each round timing every finalist in turn;
  /// the lowest median over rounds wins: the fastest of a hundred or more single medians reads
  /// low, and taking the finalists in turn lets every one meet the same clocks and neighbours.
  /// 0: the sweep's fastest wins and nothing is timed again.
  int finalists = 4;
  int rounds = 5;
};

struct TuneResult {
  SoftmaxConfig best;
  double best_ms = 0;  ///< its median over the final rounds (the sweep's figure without finalists)
  std::vector<std::pair<SoftmaxConfig, double>> timings;  ///< every candidate that ran, in order
  /// The final rounds: each finalist and its median over rounds, fastest first.
  std::vector<std::pair<SoftmaxConfig, double>> finals;
  /// The configuration the op ran for this shape before the call and its median over the final
  /// rounds (0 when there were none or it could not run): the tuned file's gain, like for like.
  SoftmaxConfig incumbent;
  double incumbent_ms = 0;
};

/// The configurations the tuner tries for this shape on `backend` by default.
std::vector<SoftmaxConfig> softmax_candidates(std::int64_t rows, std::int64_t cols, DType dtype,
                                              Backend backend = Backend::automatic);

/// For each CUDA candidate whose compiled kernels hold fewer blocks an SM than threads allow
/// because of their registers, the same configuration asking ptxas for one block more
/// (SoftmaxConfig::min_blocks_per_sm). Compiles the candidates (no GPU needed); candidates that
/// do not compile or that set min_blocks_per_sm already have none. tune_softmax times these
/// beside its default candidates. (H200: bf16 4096 x 16384 over 8 warps, 107 registers and two
/// blocks an SM, ran 0.0711 ms with three asked for against 0.0720.)
std::vector<SoftmaxConfig> softmax_occupancy_variants(const std::vector<SoftmaxConfig>& candidates, std::int64_t rows,
                                                      std::int64_t cols, DType dtype);

/// The configurations tune_softmax times by default: softmax_candidates, and on CUDA each of them
/// as each generator builds it (SoftmaxConfig::codegen ptx and cuda) followed by every build's
/// occupancy variant, taken from that build's registers. Compiles on CUDA (no GPU needed).
std::vector<SoftmaxConfig> softmax_tuning_candidates(std::int64_t rows, std::int64_t cols, DType dtype,
                                                     Backend backend = Backend::automatic);

/// Times each candidate on a rows x cols problem of `dtype` (inputs and outputs it allocates:
/// CUDA events with L2 flushed on the GPU, the host clock on the CPU backend), records the
/// fastest for the shape's band (softmax uses it from then on in this process) and, when
/// options.persist, rewrites the device's file. Without a cache directory nothing is recorded.
/// Without options.candidates it times softmax_tuning_candidates, on CUDA each as each generator
/// builds it (SoftmaxConfig::codegen), and the winner keeps its build's generator: left to the
/// tiered default the sweep would time the build a first call gets (the PTX generator's, NVRTC's
/// still in the background) while later processes run NVRTC's from the disk cache, and the two can
/// differ (H100, f32 16 x 4M in groups of 264: 0.210 against 0.222 ms). A caller's candidates run
/// as given.
TuneResult tune_softmax(std::int64_t rows, std::int64_t cols, DType dtype, const TuneOptions& options = {});

/// The tuned configuration for a problem's band on `backend`, if any (read from the file once per
/// process and file name).
std::optional<SoftmaxConfig> tuned_softmax_config(std::int64_t rows, std::int64_t cols, DType dtype,
                                                  Backend backend = Backend::automatic);

/// The devices whose shipped tables serve a device, in the order softmax asks them for a band: its
/// own where tilejit ships one, then those of devices of the same compute capability and SM count
/// (for an H100 SXM, sm_90 with 132 SMs: its own table, which holds only the bands where it was
/// measured faster than the H200's, then the H200's). Empty where none does.
std::vector<std::string> shipped_table_devices(const std::string& device_name, int cc_major, int cc_minor,
                                               int sm_count);
/// The same for `backend`'s device: none on the CPU backend and without a GPU.
std::vector<std::string> shipped_table_devices(Backend backend = Backend::automatic);

/// The configuration of the tuned tables shipped with tilejit for this device's band, if any
/// (tables the autotuner produced on devices it ran on: src/ops/tuned/): the first of
/// shipped_table_devices' tables whose entry for the band fits the shape, as softmax's plans take it.
std::optional<SoftmaxConfig> shipped_softmax_config(std::int64_t rows, std::int64_t cols, DType dtype,
                                                    Backend backend = Backend::automatic);
/// The same for a device named `device_name` (as the driver names it, e.g. "NVIDIA H200").
std::optional<SoftmaxConfig> shipped_softmax_config_for(const std::string& device_name, std::int64_t rows,
                                                        std::int64_t cols, DType dtype);

/// The file the tuner uses for `backend`'s device: under TILEJIT_CACHE_DIR, else
/// $XDG_CACHE_HOME/tilejit, else ~/.cache/tilejit.
std::string softmax_tuning_file(Backend backend = Backend::automatic);

/// Drops tuning results held in memory, so the next lookup reads the file again.
void forget_softmax_tuning();

}  // namespace tilejit::ops
