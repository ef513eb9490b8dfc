// PTX -> cubin in this process through nvJitLink (ptxas as a library; internal). Works without a
// GPU or driver.
#pragma once

#include <string>
#include <vector>

#include "runtime/nvrtc_compiler.h"

namespace tilejit::rt {

struct AssemblerOutput {
  std::vector<char> cubin;
  std::string log;  ///< nvJitLink's info log, ptxas' -v report included
  PtxasInfo ptxas;
  std::vector<std::string> options;  ///< exactly what nvJitLink was given
  double assemble_ms = 0;
};

/// Assembles `ptx` (named `file_name` in diagnostics) for `arch` ("sm_XX", optionally with an
/// 'a' or 'f' suffix). Options: -arch=<arch> -lineinfo -Xptxas=-v. Throws CompileError (summary
/// naming the file and the arch; the error and info logs, the PTX and the joined options) when
/// nvJitLink rejects it, and tilejit::Error for an arch that is not sm_XX. Thread-safe.
AssemblerOutput assemble_ptx(const std::string& ptx, const std::string& file_name, const std::string& arch);

/// The options assemble_ptx passes for `arch`; part of every disk-cache key of the PTX path.
std::vector<std::string> ptx_assembler_options(const std::string& arch);

/// The linked nvJitLink's version, "major.minor", e.g. "13.0". Part of every cache key.
std::string nvjitlink_version();

}  // namespace tilejit::rt
