#include "cli_args.h"

#include <fmt/format.h>

#include "tilejit/error.h"

namespace tilejit::examples {

bool parse_integer(const std::string& text, std::int64_t& out) {
  try {
    std::size_t used = 0;
    out = std::stoll(text, &used);
    return used == text.size();
  } catch (...) {
    return false;
  }
}

CliArgs::CliArgs(int argc, char** argv, const std::map<std::string, std::string>& defaults,
                 std::initializer_list<std::string> flags)
    : values_(defaults) {
  for (const auto& f : flags) flags_[f] = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) throw Error(fmt::format("unexpected argument '{}'", a));
    std::string key = a.substr(2);
    if (flags_.count(key)) {
      flags_[key] = true;
      continue;
    }
    if (!values_.count(key)) throw Error(fmt::format("unknown option '--{}'", key));
    if (i + 1 >= argc) throw Error(fmt::format("option '--{}' needs a value", key));
    values_[key] = argv[++i];
    given_[key] = true;
  }
}

const std::string& CliArgs::str(const std::string& key) const { return values_.at(key); }

std::int64_t CliArgs::integer(const std::string& key) const {
  const std::string& v = values_.at(key);
  std::int64_t n = 0;
  if (parse_integer(v, n)) return n;
  throw Error(fmt::format("option '--{}' needs an integer, got '{}'", key, v));
}

bool CliArgs::flag(const std::string& key) const { return flags_.at(key); }
bool CliArgs::given(const std::string& key) const { return given_.count(key) != 0; }

}  // namespace tilejit::examples
