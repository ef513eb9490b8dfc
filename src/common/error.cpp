#include "tilejit/error.h"

#include <fmt/format.h>

namespace tilejit {

UserError::UserError(const std::string& problem, std::source_location where)
    : Error(fmt::format("{}:{}: error: {}", where.file_name(), where.line(), problem)),
      problem_(problem),
      file_(where.file_name()),
      line_(where.line()) {}

UserError::UserError(const std::string& problem, const std::string& file, unsigned line)
    : Error(fmt::format("{}:{}: error: {}", file, line, problem)), problem_(problem), file_(file), line_(line) {}

CompileError::CompileError(const std::string& summary, std::string log, std::string source, std::string options)
    : Error(fmt::format("{}\n--- compiler log ---\n{}", summary, log)),
      log_(std::move(log)),
      source_(std::move(source)),
      options_(std::move(options)) {}

CudaError::CudaError(const std::string& call, int code, const std::string& name, const std::string& message)
    : Error(fmt::format("{} failed: {} ({}){}", call, name, message,
                        code ? fmt::format(" [CUresult {}]", code) : std::string())),
      call_(call),
      code_(code),
      name_(name) {}

}  // namespace tilejit
