// One worker thread for compiles nobody waits on: GpuCodegen::tiered's NVRTC builds, which
// replace the PTX generator's kernels once done (internal).
#pragma once

#include <functional>

namespace tilejit::jit {

/// A job gets `run` = true when the worker runs it, false when the queue is dropped at exit
/// (it must then only release what it holds). Jobs run one at a time, in submission order.
using BackgroundJob = std::function<void(bool run)>;

void submit_background(BackgroundJob job);
/// Blocks until every job submitted so far has finished.
void wait_background_idle();

}  // namespace tilejit::jit
