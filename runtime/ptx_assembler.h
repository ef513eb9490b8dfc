// PTX -> cubin (internal), in whole-program mode wherever the toolkit allows: ptxas as a library
// in this process (nvPTXCompiler, when the build found libnvptxcompiler_static), else the
// toolkit's ptxas program, else nvJitLink in this process. nvJitLink comes last because it
// assembles PTX as relocatable code (like `ptxas -c`), which costs registers: the seed softmax
// (f32, BLOCK 1024, 4 warps) takes 43 there against 32 in whole-program mode. Works without a
// GPU or driver.
#pragma once

#include <string>
#include <vector>

#include "runtime/nvrtc_compiler.h"

namespace tilejit::rt {

struct AssemblerOutput {
  std::vector<char> cubin;
  std::string log;  ///< the assembler's output, ptxas' -v report included
  PtxasInfo ptxas;
  std::vector<std::string> options;  ///< exactly what the assembler was given (ptxas: its path first)
  double assemble_ms = 0;
};

/// Assembles `ptx` (named `file_name` in diagnostics) for `arch` ("sm_XX", optionally with an
/// 'a' or 'f' suffix) with ptx_assembler_options(arch). Throws CompileError (summary naming the
/// file and the arch; the assembler's log, the PTX and the joined options) when the assembler
/// rejects it, and tilejit::Error for an arch that is not sm_XX. Thread-safe.
AssemblerOutput assemble_ptx(const std::string& ptx, const std::string& file_name, const std::string& arch);

/// The options assemble_ptx passes for `arch`; part of every disk-cache key of the PTX path.
/// nvPTXCompiler: {--gpu-name=<arch>, -lineinfo, -v}; ptxas: {<path>, -arch=<arch>, -lineinfo, -v};
/// nvJitLink: {-arch=<arch>, -lineinfo, -Xptxas=-v}.
std::vector<std::string> ptx_assembler_options(const std::string& arch);

/// "nvPTXCompiler", "ptxas" or "nvJitLink": which assembler assemble_ptx uses in this process.
std::string ptx_assembler_name();
/// The assembler's identity for cache keys: nvPTXCompiler's or nvJitLink's version, or ptxas'
/// size and mtime.
std::string ptx_assembler_version();

/// The linked nvJitLink's version, "major.minor", e.g. "13.0". Part of every cache key.
std::string nvjitlink_version();

}  // namespace tilejit::rt
