// How a thread's elements pack into the 16-, 32- or 64-bit words of one vector access, shared by
// global loads and stores (memory.cpp) and shared-memory stashes (stash.cpp).
#pragma once

#include <functional>
#include <string>

#include "tilejit/dtype.h"

namespace tilejit::codegen::cuda {

struct Packing {
  int elem_bytes;
  int word_bytes;
  int words;
  const char* constraint;  // asm operand constraint of one word
  const char* word_type;   // C type of one word
  int per_word() const { return word_bytes / elem_bytes; }
};

/// `width` elements of `elem_bytes` each; words == 0 for one-byte elements (no vector path).
Packing packing(int elem_bytes, int width);

/// C expression turning element `e` (storage type) into its word bits, and back.
std::string to_bits(DType t, bool is_ptr, const std::string& e);
std::string from_bits(DType t, const std::string& w);

/// C expression of one word holding elements elem(0) ... elem(per_word - 1), lowest bits first.
std::string pack_word(DType t, const Packing& pk, const std::function<std::string(int)>& elem);
/// C expression of element `e` of the word expression `word`.
std::string unpack_element(DType t, const Packing& pk, const std::string& word, int e);

}  // namespace tilejit::codegen::cuda
