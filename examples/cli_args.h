// Minimal `--name value` command-line parsing shared by the example tools.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tilejit::examples {

/// `text` as a whole number (all of it, as std::stoll reads one); false if it is not one.
bool parse_integer(const std::string& text, std::int64_t& out);

class CliArgs {
 public:
  /// Parses `--key value` pairs and `--flag`s (listed in `flags`). Throws tilejit::Error on
  /// anything else.
  CliArgs(int argc, char** argv, const std::map<std::string, std::string>& defaults,
          std::initializer_list<std::string> flags = {});
  const std::string& str(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  bool flag(const std::string& key) const;
  bool given(const std::string& key) const;

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, bool> flags_;
  std::map<std::string, bool> given_;
};

}  // namespace tilejit::examples
