// tilejit error types. Every failure in the C++ API is reported by throwing one of these;
// there are no error codes.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace tilejit {

/// Base of every exception tilejit throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Misuse of the DSL or of the launch API. The message names the problem and the user's
/// source line (file:line), which is also available separately.
class UserError : public Error {
 public:
  UserError(const std::string& problem, std::source_location where);
  UserError(const std::string& problem, const std::string& file, unsigned line);
  const std::string& problem() const { return problem_; }
  const std::string& file() const { return file_; }
  unsigned line() const { return line_; }

 private:
  std::string problem_;
  std::string file_;
  unsigned line_;
};

/// A backend compiler (NVRTC, ptxas, LLVM) rejected generated code. Carries everything
/// needed to reproduce the failure.
class CompileError : public Error {
 public:
  CompileError(const std::string& summary, std::string log, std::string source, std::string options);
  const std::string& log() const { return log_; }
  const std::string& source() const { return source_; }
  const std::string& options() const { return options_; }

 private:
  std::string log_;
  std::string source_;
  std::string options_;
};

/// A CUDA driver call failed, or there is no driver or device to run on.
class CudaError : public Error {
 public:
  /// `call` is the driver function (e.g. "cuLaunchKernel"); `code` its result (0 when the
  /// failure is not a driver result, e.g. libcuda could not be loaded).
  CudaError(const std::string& call, int code, const std::string& name, const std::string& message);
  const std::string& call() const { return call_; }
  int code() const { return code_; }
  const std::string& name() const { return name_; }

 private:
  std::string call_;
  int code_;
  std::string name_;
};

/// A bug in tilejit itself (an invariant the compiler relies on does not hold).
class InternalError : public Error {
 public:
  using Error::Error;
};

}  // namespace tilejit
