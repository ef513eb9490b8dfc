#include "dsl/trace.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <typeinfo>

#include "ir/verifier.h"
#include "tilejit/error.h"

namespace tilejit::tl::detail {

// Declared in tilejit/kernel.h for the kernel templates.
Tensor param_tensor(int index) { return Tracer::current(std::source_location::current()).param_tensor(index); }
std::int64_t param_constexpr(int index) {
  return Tracer::current(std::source_location::current()).param_constexpr(index);
}

namespace {

// "std::out_of_range" rather than "St12out_of_range".
std::string readable_type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && name ? name.get() : type.name();
}

// The user's own code threw while their kernel was traced (an index out of range in a table, a
// failed precondition). What they threw stays nested, so it can still be caught by type.
[[noreturn]] void report_kernel_exception(const std::string& kernel, const Tracer& tracer,
                                          const std::source_location& call_site) {
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    what = fmt::format("{}: {}", readable_type_name(typeid(e)), e.what());
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  const ir::SourceLoc& latest = tracer.latest_loc();
  if (latest.line == 0)
    std::throw_with_nested(
        UserError(fmt::format("kernel '{}' threw before its first DSL operation while being traced: {}", kernel, what),
                  call_site));
  std::throw_with_nested(UserError(
      fmt::format("kernel '{}' threw while being traced, after the DSL operation on this line: {}", kernel, what),
      latest.file, latest.line));
}

}  // namespace

ir::Function trace_kernel(const std::string& name, std::vector<TraceParam> params, const std::function<void()>& invoke,
                          const std::source_location& call_site) {
  Tracer tracer(name, std::move(params));
  try {
    invoke();
  } catch (const Error&) {
    throw;  // tilejit's own, already located
  } catch (const std::bad_alloc&) {
    throw;  // out of memory is not a mistake to locate
  } catch (const abi::__forced_unwind&) {
    throw;  // thread cancellation must go on unwinding
  } catch (...) {
    report_kernel_exception(name, tracer, call_site);
  }
  ir::Function f = tracer.finish();
  ir::verify(f);
  return f;
}

}  // namespace tilejit::tl::detail
