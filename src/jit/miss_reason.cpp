#include "jit/miss_reason.h"

#include <fmt/format.h>

#include <map>

namespace tilejit::jit {

std::string encode_components(const KeyComponents& parts) {
  std::string out;
  for (const auto& [name, value] : parts) out += name + "=" + value + "\n";
  return out;
}

KeyComponents decode_components(std::string_view text) {
  KeyComponents out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return out;
}

std::vector<std::string> component_differences(const KeyComponents& now, const KeyComponents& cached) {
  std::map<std::string, std::string> old(cached.begin(), cached.end());
  std::vector<std::string> out;
  for (const auto& [name, value] : now) {
    auto it = old.find(name);
    if (it == old.end()) {
      out.push_back(fmt::format("{} is new ({})", name, value));
      continue;
    }
    if (it->second != value) out.push_back(fmt::format("{} differs ({}, cached: {})", name, value, it->second));
    old.erase(it);
  }
  for (const auto& [name, value] : old) out.push_back(fmt::format("{} is gone (cached: {})", name, value));
  return out;
}

std::string explain_miss(const std::string& kernel, const KeyComponents& now,
                         const std::vector<KeyComponents>& candidates) {
  const std::vector<std::string>* best = nullptr;
  std::vector<std::vector<std::string>> diffs;
  diffs.reserve(candidates.size());
  for (const auto& c : candidates) {
    diffs.push_back(component_differences(now, c));
    if (!best || diffs.back().size() < best->size()) best = &diffs.back();
  }
  if (!best) return fmt::format("first compile of {} in this process", kernel);
  if (best->empty()) return fmt::format("compiled {} although an identical key was cached", kernel);
  // The generated source follows from the specialization: name it only when nothing else differs.
  std::vector<std::string> causes;
  for (const auto& d : *best)
    if (d.rfind("source ", 0) != 0) causes.push_back(d);
  return fmt::format("compiled {} because {}", kernel, fmt::join(causes.empty() ? *best : causes, " and "));
}

}  // namespace tilejit::jit
