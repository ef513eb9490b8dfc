// f32 math functions as PTX instruction sequences with the accuracy of CUDA's expf, exp2f,
// logf, log2f, sqrtf and rsqrtf without fast-math (the sequences NVVM uses for them, so both
// generators give the same results). Each takes and returns an f32 register.
#pragma once

#include <string>

#include "codegen/ptx/code.h"

namespace tilejit::codegen::ptx {

std::string exp_f32(Code& c, const std::string& x);
std::string exp2_f32(Code& c, const std::string& x);
std::string exp2_ftz_f32(Code& c, const std::string& x);  // subnormal results flush to zero
std::string log_f32(Code& c, const std::string& x);
std::string log2_f32(Code& c, const std::string& x);
std::string sqrt_f32(Code& c, const std::string& x);
std::string rsqrt_f32(Code& c, const std::string& x);

}  // namespace tilejit::codegen::ptx
