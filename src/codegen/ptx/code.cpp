#include "codegen/ptx/code.h"

#include <fmt/format.h>

#include <algorithm>

namespace tilejit::codegen::ptx {
namespace {

const char* prefix(RegClass c) {
  switch (c) {
    case RegClass::pred: return "%p";
    case RegClass::b16: return "%h";
    case RegClass::b32: return "%r";
    case RegClass::f32: return "%f";
    case RegClass::b64: return "%rd";
    case RegClass::f64: return "%fd";
  }
  return "%?";
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

const char* mov_type(RegClass c) {
  switch (c) {
    case RegClass::pred: return "pred";
    case RegClass::b16: return "b16";
    case RegClass::b32: return "b32";
    case RegClass::f32: return "f32";
    case RegClass::b64: return "b64";
    case RegClass::f64: return "f64";
  }
  return "?";
}

std::string vector_operand(const std::vector<std::string>& words) {
  return words.size() == 1 ? words[0] : fmt::format("{{{}}}", fmt::join(words, ", "));
}

std::string vector_suffix(std::size_t words) { return words == 1 ? "" : fmt::format(".v{}", words); }

std::string Code::reg(RegClass c) { return fmt::format("{}{}", prefix(c), ++counts_[c]); }

std::string Code::label() { return fmt::format("$L__{}", labels_++); }

void Code::place(const std::string& label) { body_ += label + ":\n"; }

void Code::ins(const std::string& text) {
  if (in_prologue_) {
    prologue_ += "\t" + text + ";\n";
    return;
  }
  if (!pending_loc_.empty() && pending_loc_ != last_loc_) {
    body_ += pending_loc_;
    last_loc_ = pending_loc_;
  }
  body_ += "\t" + text + ";\n";
}

std::string Code::imm(RegClass c, const std::string& value) {
  std::string r = reg(c);
  ins(fmt::format("mov.{} {}, {}", mov_type(c), r, value));
  return r;
}

void Code::set_loc(const std::string& file, unsigned line) {
  if (line == 0 || file.empty()) return;
  auto [it, added] = files_.emplace(file, static_cast<int>(files_.size()) + 1);
  pending_loc_ = fmt::format("\t.loc {} {} 0\n", it->second, line);
}

std::string Code::declarations() const {
  std::string out;
  for (auto c : {RegClass::pred, RegClass::b16, RegClass::b32, RegClass::f32, RegClass::b64, RegClass::f64}) {
    auto it = counts_.find(c);
    if (it == counts_.end()) continue;
    const char* type = c == RegClass::pred ? "pred" : mov_type(c);
    out += fmt::format("\t.reg .{} {}<{}>;\n", type, prefix(c), it->second + 1);
  }
  return out;
}

std::string Code::file_directives() const {
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [file, index] : files_) ordered.emplace_back(index, file);
  std::sort(ordered.begin(), ordered.end());
  std::string out;
  for (const auto& [index, file] : ordered) out += fmt::format("\t.file {} \"{}\"\n", index, escape(file));
  return out;
}

}  // namespace tilejit::codegen::ptx
