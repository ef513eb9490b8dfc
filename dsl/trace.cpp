#include "dsl/trace.h"

#include "ir/verifier.h"
#include "tilejit/error.h"

namespace tilejit::tl::detail {

// Declared in tilejit/kernel.h for the kernel templates.
Tensor param_tensor(int index) { return Tracer::current(std::source_location::current()).param_tensor(index); }
std::int64_t param_constexpr(int index) {
  return Tracer::current(std::source_location::current()).param_constexpr(index);
}

ir::Function trace_kernel(const std::string& name, std::vector<TraceParam> params,
                          const std::function<void()>& invoke) {
  Tracer tracer(name, std::move(params));
  invoke();
  ir::Function f = tracer.finish();
  ir::verify(f);
  return f;
}

}  // namespace tilejit::tl::detail
