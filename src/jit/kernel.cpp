#include "tilejit/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "jit/compiler.h"
#include "jit/cpu_backend.h"
#include "runtime/device.h"
#include "tilejit/error.h"

namespace tilejit {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::automatic: return "automatic";
    case Backend::cuda: return "cuda";
    case Backend::cpu: return "cpu";
  }
  return "?";
}

Backend default_backend() {
  if (const char* env = std::getenv("TILEJIT_BACKEND"); env && *env) {
    std::string v = env;
    if (v == "cuda") return Backend::cuda;
    if (v == "cpu") return Backend::cpu;
    throw Error(fmt::format("TILEJIT_BACKEND must be 'cuda' or 'cpu', got '{}'", v));
  }
  return has_gpu() ? Backend::cuda : Backend::cpu;
}

namespace {

// An explicit CUDA arch asks for CUDA: compiling for sm_90 on a machine without a GPU is how
// PTX is produced and inspected there.
Backend resolve(Backend requested, const std::string& arch) {
  if (requested != Backend::automatic) return requested;
  if (!arch.empty()) return Backend::cuda;
  return default_backend();
}

}  // namespace

struct KernelBase::Impl {
  jit::KernelSignature signature;
  const void* identity;
  std::function<void()> invoke;

  std::mutex mutex;
  std::condition_variable compiled;  // wakes threads waiting for a key another thread compiles
  std::unordered_map<std::string, std::unique_ptr<CompiledKernel>> cache;
  std::unordered_map<std::string, bool> in_flight;
  std::size_t compiles = 0;
};

KernelBase::KernelBase(std::string name, std::vector<detail::ParamKind> kinds, std::vector<std::string> names,
                       const KernelOptions& options, const void* identity, std::function<void()> invoke)
    : impl_(std::make_unique<Impl>()) {
  if (!names.empty() && names.size() != kinds.size())
    throw Error(
        fmt::format("kernel '{}': {} parameter names given for {} parameters", name, names.size(), kinds.size()));
  if (names.empty())
    for (std::size_t i = 0; i < kinds.size(); ++i) names.push_back(fmt::format("arg{}", i));
  std::vector<bool> specialize(kinds.size(), true);
  for (const auto& exempt : options.do_not_specialize) {
    auto it = std::find(names.begin(), names.end(), exempt);
    if (it == names.end())
      throw Error(fmt::format("kernel '{}': do_not_specialize names '{}', which is not a parameter ({})", name, exempt,
                              fmt::join(names, ", ")));
    specialize[static_cast<std::size_t>(it - names.begin())] = false;
  }
  impl_->signature = {std::move(name), std::move(kinds), std::move(names), std::move(specialize)};
  impl_->identity = identity;
  impl_->invoke = std::move(invoke);
}

KernelBase::~KernelBase() = default;

const std::string& KernelBase::name() const { return impl_->signature.kernel_name; }

const CompiledKernel& KernelBase::compile(std::span<const Arg> args, const CompileOptions& options,
                                          std::source_location loc) const {
  Impl& k = *impl_;
  auto params = jit::bind_arguments(k.signature, args, loc);
  Backend backend = resolve(options.backend, options.arch);
  std::string arch = backend == Backend::cpu ? jit::cpu_target()
                     : options.arch.empty()  ? rt::target_arch()
                                             : options.arch;
  std::string key =
      jit::specialization_key(k.signature, k.identity, params, options.num_warps, options.num_stages, arch, backend);

  std::unique_lock lock(k.mutex);
  for (;;) {
    if (auto it = k.cache.find(key); it != k.cache.end()) return *it->second;
    if (!k.in_flight.count(key)) break;
    k.compiled.wait(lock);  // another thread compiles this key; use its result
  }
  k.in_flight[key] = true;
  lock.unlock();

  std::unique_ptr<CompiledKernel::Impl> built;
  try {
    jit::CompileRequest req{&k.signature, params, &k.invoke, key, options.num_warps, options.num_stages, arch, backend};
    built = jit::compile_specialization(req);
  } catch (...) {
    lock.lock();
    k.in_flight.erase(key);
    k.compiled.notify_all();
    throw;
  }
  lock.lock();
  k.in_flight.erase(key);
  ++k.compiles;
  auto& slot = k.cache[key];
  slot = std::make_unique<CompiledKernel>(std::move(built));
  k.compiled.notify_all();
  return *slot;
}

void KernelBase::launch(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
                        std::source_location loc) const {
  const CompiledKernel& c = compile(args, {options.num_warps, options.num_stages, options.arch, options.backend}, loc);
  c.launch(grid, args, options, loc);
}

std::size_t KernelBase::cache_size() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->cache.size();
}

std::size_t KernelBase::compile_count() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->compiles;
}

}  // namespace tilejit
