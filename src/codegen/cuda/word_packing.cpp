#include "codegen/cuda/word_packing.h"

#include <fmt/format.h>

#include <vector>

namespace tilejit::codegen::cuda {

Packing packing(int elem_bytes, int width) {
  int bytes = elem_bytes * width;
  if (elem_bytes == 8) return {8, 8, width, "l", "unsigned long long"};
  if (bytes >= 4) return {elem_bytes, 4, bytes / 4, "r", "unsigned"};
  if (elem_bytes == 2) return {2, 2, 1, "h", "unsigned short"};
  return {1, 0, 0, "", ""};  // bytes: no PTX path
}

std::string to_bits(DType t, bool is_ptr, const std::string& e) {
  if (is_ptr) return fmt::format("(unsigned long long)({})", e);
  switch (t) {
    case DType::f32: return fmt::format("__float_as_uint({})", e);
    case DType::f64: return fmt::format("(unsigned long long)__double_as_longlong({})", e);
    case DType::i64: return fmt::format("(unsigned long long)({})", e);
    case DType::i32: return fmt::format("(unsigned)({})", e);
    default: return fmt::format("(unsigned)({})", e);  // f16 / bf16 bit patterns
  }
}

std::string from_bits(DType t, const std::string& w) {
  switch (t) {
    case DType::f32: return fmt::format("__uint_as_float({})", w);
    case DType::f64: return fmt::format("__longlong_as_double((long long)({}))", w);
    case DType::i64: return fmt::format("(long long)({})", w);
    case DType::i32: return fmt::format("(int)({})", w);
    default: return fmt::format("(unsigned short)({})", w);
  }
}

std::string pack_word(DType t, const Packing& pk, const std::function<std::string(int)>& elem) {
  std::vector<std::string> parts;
  for (int e = 0; e < pk.per_word(); ++e) {
    std::string bits = to_bits(t, false, elem(e));
    parts.push_back(e == 0 ? fmt::format("({})({})", pk.word_type, bits)
                           : fmt::format("(({})({}) << {})", pk.word_type, bits, 8 * pk.elem_bytes * e));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

std::string unpack_element(DType t, const Packing& pk, const std::string& word, int e) {
  return from_bits(t, pk.per_word() == 1 ? word : fmt::format("({} >> {})", word, 8 * pk.elem_bytes * e));
}

}  // namespace tilejit::codegen::cuda
