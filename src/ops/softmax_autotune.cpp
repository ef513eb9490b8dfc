// The softmax autotuner: times candidate configurations of one shape and records the fastest.
#include "tilejit/ops/softmax_autotune.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include "softmax_internal.h"
#include "tilejit/error.h"
#include "tilejit/timing.h"

namespace tilejit::ops {

namespace {

// Random inputs so exp() does real work; the values do not matter for timing.
void fill_input(Buffer& in, std::size_t count) {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 2.f);
  if (in.dtype() == DType::f32) {
    std::vector<float> v(count);
    for (auto& x : v) x = normal(rng);
    in.upload(v);
  } else {
    // f16 / bf16 bit patterns of small values: exponent near 1, random mantissa.
    std::vector<std::uint16_t> v(count);
    std::uint16_t one = in.dtype() == DType::f16 ? 0x3c00 : 0x3f80;
    for (auto& x : v) x = static_cast<std::uint16_t>(one + (rng() & 0x7f));
    in.upload(v);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

TuneResult tune_softmax(std::int64_t rows, std::int64_t cols, DType dtype, const TuneOptions& options) {
  detail::require_elements("tune_softmax", rows, cols);
  if (dtype != DType::f32 && dtype != DType::f16 && dtype != DType::bf16)
    throw Error(fmt::format("tune_softmax: unsupported element type {}", dtype_name(dtype)));
  const Backend backend = detail::resolve_backend(options.backend);
  std::vector<SoftmaxConfig> candidates =
      options.candidates.empty() ? softmax_tuning_candidates(rows, cols, dtype, backend) : options.candidates;
  const Memory memory = memory_of(backend);
  const auto count = static_cast<std::size_t>(rows * cols);
  Buffer in(dtype, count, memory), out(dtype, count, memory);
  fill_input(in, count);

  // Compile every candidate first, on all cores: the kernel cache lets the timing loop below
  // find them ready.
  if (backend == Backend::cuda)
    detail::compile_candidates(candidates, Pointer{out.address(), dtype, memory}, Pointer{in.address(), dtype, memory},
                               rows, cols);

  Pointer po{out.address(), dtype, memory}, pi{in.address(), dtype, memory};
  // One candidate's median over `reps` runs (CUDA events with L2 flushed, or the host clock).
  auto measure = [&](const SoftmaxConfig& c) {
    SoftmaxOptions forced;
    forced.backend = backend;
    forced.config = c;
    auto run = [&] { softmax(po, pi, rows, cols, cols, cols, nullptr, forced); };
    run();  // compiles (the sweep) or is already compiled (the finals)
    if (backend == Backend::cuda) {
      TimingOptions t;  // its trailing runs keep a batch of ten from reading half as its fast tail
      t.warmup = options.warmup;
      t.reps = options.reps;
      return time_gpu(run, t).median_ms;
    }
    for (int i = 0; i < options.warmup; ++i) run();
    std::vector<double> samples;
    for (int i = 0; i < std::max(1, options.reps); ++i) {
      auto t0 = std::chrono::steady_clock::now();
      run();
      samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(samples);
  };

  // Orders (configuration, ms) pairs fastest first.
  auto faster = [](const auto& a, const auto& b) { return a.second < b.second; };
  TuneResult result;
  for (const SoftmaxConfig& c : candidates) {
    if (!detail::config_fits(c, rows, cols)) continue;
    try {
      result.timings.emplace_back(c, measure(c));
    } catch (const CompileError&) {
      continue;
    } catch (const CudaError&) {
      throw;                    // the device failed: the candidates after this one would not be timed fairly
    } catch (const Error& e) {  // e.g. a group larger than the programs the device holds at once
      std::fprintf(stderr, "tune_softmax: skipped %s: %s\n", describe(c).c_str(), e.what());
    }
  }
  if (result.timings.empty())
    throw Error(fmt::format("tune_softmax: no candidate configuration ran {} x {}", rows, cols));
  std::vector<std::pair<SoftmaxConfig, double>> ranked = result.timings;
  std::stable_sort(ranked.begin(), ranked.end(), faster);
  result.best = ranked.front().first;
  result.best_ms = ranked.front().second;
  if (options.finalists > 0) {
    std::vector<SoftmaxConfig> finalists;
    for (std::size_t i = 0; i < ranked.size() && i < static_cast<std::size_t>(options.finalists); ++i)
      finalists.push_back(ranked[i].first);
    // The incumbent competes when the tuner chose the candidates; a caller's list is the choice.
    SoftmaxOptions current;
    current.backend = backend;
    result.incumbent = plan_softmax(rows, cols, dtype, dtype, current).config;
    const bool incumbent_runs =
        options.candidates.empty() ||
        std::find(options.candidates.begin(), options.candidates.end(), result.incumbent) != options.candidates.end();
    if (incumbent_runs && std::find(finalists.begin(), finalists.end(), result.incumbent) == finalists.end())
      finalists.push_back(result.incumbent);
    std::vector<std::vector<double>> rounds(finalists.size());
    for (int round = 0; round < std::max(1, options.rounds); ++round)
      for (std::size_t i = 0; i < finalists.size(); ++i) {
        try {
          rounds[i].push_back(measure(finalists[i]));
        } catch (const CudaError&) {
          throw;
        } catch (const Error&) {  // only the incumbent can fail here: the sweep ran every other finalist
        }
      }
    for (std::size_t i = 0; i < finalists.size(); ++i)
      if (!rounds[i].empty()) result.finals.emplace_back(finalists[i], median(rounds[i]));
    std::stable_sort(result.finals.begin(), result.finals.end(), faster);
    if (!result.finals.empty()) {
      result.best = result.finals.front().first;
      result.best_ms = result.finals.front().second;
    }
    for (const auto& [c, ms] : result.finals)
      if (c == result.incumbent) result.incumbent_ms = ms;
  }

  detail::record_tuned_config(rows, cols, dtype, backend, result.best, options.persist);
  return result;
}

}  // namespace tilejit::ops
