#include "tilejit/dtype.h"

namespace tilejit {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::i1: return "i1";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  return "?";
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::i1: return 1;
    case DType::f16:
    case DType::bf16: return 2;
    case DType::i32:
    case DType::f32: return 4;
    case DType::i64:
    case DType::f64: return 8;
  }
  return 0;
}

bool is_float(DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64; }
bool is_int(DType t) { return t == DType::i32 || t == DType::i64; }

bool parse_dtype(std::string_view n, DType& out) {
  struct Entry {
    std::string_view name;
    DType type;
  };
  static constexpr Entry table[] = {{"i1", DType::i1},     {"bool", DType::i1},       {"i32", DType::i32},
                                    {"int32", DType::i32}, {"i64", DType::i64},       {"int64", DType::i64},
                                    {"f16", DType::f16},   {"fp16", DType::f16},      {"float16", DType::f16},
                                    {"bf16", DType::bf16}, {"bfloat16", DType::bf16}, {"f32", DType::f32},
                                    {"fp32", DType::f32},  {"float32", DType::f32},   {"f64", DType::f64},
                                    {"fp64", DType::f64},  {"float64", DType::f64}};
  for (const auto& e : table)
    if (e.name == n) {
      out = e.type;
      return true;
    }
  return false;
}

}  // namespace tilejit
