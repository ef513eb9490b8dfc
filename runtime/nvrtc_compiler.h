// CUDA C -> PTX/cubin through NVRTC (internal). Works without a GPU or driver.
#pragma once

#include <string>
#include <vector>

namespace tilejit::rt {

/// What ptxas reported for a kernel (--ptxas-options=-v). Across several functions in one
/// program each figure is the largest reported.
struct PtxasInfo {
  bool valid = false;  ///< ptxas ran and reported register usage (only for sm_XX targets)
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int static_shared_bytes = 0;
};

/// Everything one compilation produced.
struct NvrtcOutput {
  std::string ptx;
  std::vector<char> cubin;  ///< empty for compute_XX (PTX-only) targets
  std::string log;          ///< NVRTC's log, ptxas' -v report included
  PtxasInfo ptxas;
  std::vector<std::string> options;  ///< exactly what NVRTC was given
  double compile_ms = 0;
};

/// Compiles `source` (named `file_name` in diagnostics) for `arch`: "sm_XX" (optionally with an
/// 'a' or 'f' suffix) yields a cubin and PTX, "compute_XX" PTX only. Options are always
/// --gpu-architecture=<arch> --std=c++17 -lineinfo --ptxas-options=-v --no-cache, then
/// --include-path=<cuda_include_dir()> when that was found, then `extra_options`.
/// Throws CompileError (summary naming file and arch; the log, the source and the joined options)
/// when NVRTC rejects the program, and tilejit::Error for a malformed `arch`.
/// Thread-safe: each call uses its own NVRTC program.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& file_name, const std::string& arch,
                          const std::vector<std::string>& extra_options = {});

/// The options nvrtc_compile(source, file, arch, extra_options) passes to NVRTC; part of every
/// disk-cache key. Throws tilejit::Error for a malformed `arch`.
std::vector<std::string> nvrtc_options(const std::string& arch, const std::vector<std::string>& extra_options = {});

/// Extracts ptxas' -v report from a compile log; valid is false when the log has none.
PtxasInfo parse_ptxas_info(const std::string& log);

/// The CUDA toolkit's include directory (where cuda_fp16.h and cuda_bf16.h live), which NVRTC does
/// not search by itself: the one found at build time if it still exists, else $CUDA_HOME/include or
/// $CUDA_PATH/include; empty when none has the headers.
std::string cuda_include_dir();

/// The linked NVRTC's version, "major.minor", e.g. "13.0". Part of every cache key.
std::string nvrtc_version();

}  // namespace tilejit::rt
