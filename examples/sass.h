// SASS (the GPU's native assembly) of a cubin, through the CUDA toolkit's disassemblers.
#pragma once

#include <string>

namespace tilejit::examples {

/// nvdisasm, else cuobjdump, found on PATH, in $CUDA_HOME/bin, $CUDA_PATH/bin or
/// /usr/local/cuda/bin; empty when none is there.
std::string find_disassembler();

/// The SASS of `cubin` (written to a temporary file for the tool). Throws tilejit::Error saying
/// plainly that no disassembler is available, or what the tool reported.
std::string disassemble(const std::string& cubin);

}  // namespace tilejit::examples
