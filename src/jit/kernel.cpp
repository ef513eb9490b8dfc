#include "tilejit/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "jit/background_compiles.h"
#include "jit/build_choice.h"
#include "jit/compiled_kernel_impl.h"
#include "jit/compiler.h"
#include "jit/cpu_backend.h"
#include "runtime/device.h"
#include "tilejit/error.h"

namespace tilejit {

const char* codegen_name(GpuCodegen c) {
  switch (c) {
    case GpuCodegen::automatic: return "automatic";
    case GpuCodegen::ptx: return "ptx";
    case GpuCodegen::cuda: return "cuda";
    case GpuCodegen::tiered: return "tiered";
  }
  return "?";
}

GpuCodegen default_codegen() {
  if (const char* env = std::getenv("TILEJIT_CODEGEN"); env && *env) {
    std::string_view v = env;  // read on every launch: no allocation
    if (v == "ptx") return GpuCodegen::ptx;
    if (v == "cuda") return GpuCodegen::cuda;
    if (v == "tiered") return GpuCodegen::tiered;
    throw Error(fmt::format(
        "TILEJIT_CODEGEN must be 'ptx' (PTX + ptxas), 'cuda' (CUDA C + NVRTC) or 'tiered' (PTX first, NVRTC's kernel "
        "built in the background replacing it), got '{}'",
        v));
  }
  return kDefaultGpuCodegen;
}

namespace {

// The CPU backend has one code generator: its kernels' keys do not depend on the GPU choice.
GpuCodegen resolve(GpuCodegen requested, Backend backend) {
  if (backend == Backend::cpu) return GpuCodegen::automatic;
  return requested == GpuCodegen::automatic ? default_codegen() : requested;
}

// An explicit CUDA arch asks for CUDA: compiling for sm_90 on a machine without a GPU is how
// PTX is produced and inspected there.
Backend resolve(Backend requested, const std::string& arch) {
  if (requested != Backend::automatic) return requested;
  if (!arch.empty()) return Backend::cuda;
  return default_backend();
}

}  // namespace

// The memory cache. A hit is found by the arguments' facts and the resolved options alone
// (hash_facts + an exact comparison): no trace, no key string, no heap allocation; the last
// specialization found is checked first without taking the lock.
struct KernelBase::Impl {
  jit::KernelSignature signature;
  const void* identity;
  std::function<void()> invoke;

  struct FastEntry {
    FastEntry(std::uint64_t h, std::vector<jit::ArgFacts> f, jit::BlockOptions bo, Backend b, GpuCodegen c,
              std::string a, const CompiledKernel* k)
        : hash(h), facts(std::move(f)), block(bo), backend(b), codegen(c), arch(std::move(a)), kernel(k) {}
    std::uint64_t hash;
    std::vector<jit::ArgFacts> facts;
    jit::BlockOptions block;
    Backend backend;
    GpuCodegen codegen;
    std::string arch;
    // Atomic: a tiered entry moves from the PTX generator's kernel to NVRTC's while others read it.
    std::atomic<const CompiledKernel*> kernel;

    bool matches(std::uint64_t h, const jit::ArgFacts* f, std::size_t n, const jit::BlockOptions& bo, Backend b,
                 GpuCodegen c, std::string_view a) const {
      return h == hash && bo == block && b == backend && c == codegen && a == arch && n == facts.size() &&
             std::equal(facts.begin(), facts.end(), f);
    }
  };

  std::mutex mutex;
  std::condition_variable compiled;  // wakes threads waiting for a key another thread compiles
  std::unordered_map<std::string, std::unique_ptr<CompiledKernel>> cache;
  std::unordered_multimap<std::uint64_t, FastEntry> fast;  // nodes are stable: `last` points into it
  std::atomic<const FastEntry*> last{nullptr};
  std::unordered_map<std::string, bool> in_flight;
  std::size_t compiles = 0;
  std::string last_reason;
  int background = 0;               // tiered NVRTC builds queued or running for this kernel
  std::condition_variable settled;  // background reached 0

  const CompiledKernel& lookup(std::span<const Arg> args, const CompileOptions& options, std::source_location loc);
  /// The fast-path entry for these facts (caller holds `mutex`): the one another thread added
  /// first (second = false), else a new one holding `k`.
  std::pair<FastEntry*, bool> index(std::uint64_t h, const jit::ArgFacts* facts, std::size_t n,
                                    const CompileOptions& options, Backend backend, GpuCodegen codegen,
                                    const std::string& arch, const CompiledKernel* k);
  /// How far obtain may go: compile anything; only read the disk cache (nullptr instead of running
  /// a compiler or waiting for another thread's, when neither cache has the kernel); or, for the
  /// ptx generator, nullptr where it cannot express the kernel (rather than handing it to NVRTC).
  enum class Reach { compile, disk_cache_only, ptx_generator_only };
  /// The kernel of one specialization and generator (ptx or cuda; automatic on the CPU): from the
  /// memory cache, from another thread compiling it, or compiled here (within `reach`).
  const CompiledKernel* obtain(const std::vector<jit::BoundParam>& params, const CompileOptions& options,
                               const std::string& arch, Backend backend, GpuCodegen codegen,
                               const std::source_location& call_site, Reach reach = Reach::compile);
  /// GpuCodegen::tiered: NVRTC's kernel when a cache has it, else the PTX generator's at once
  /// while NVRTC builds its own in the background, which then replaces it in `entry`.
  const CompiledKernel* tiered(const std::vector<jit::BoundParam>& params, const CompileOptions& options,
                               const std::string& arch, FastEntry*& entry, std::uint64_t h, const jit::ArgFacts* facts,
                               std::size_t n, const std::source_location& call_site);
};

KernelBase::KernelBase(std::string name, std::vector<detail::ParamKind> kinds, std::vector<std::string> names,
                       const KernelOptions& options, const void* identity, std::function<void()> invoke,
                       std::source_location loc)
    : impl_(std::make_unique<Impl>()) {
  if (!names.empty() && names.size() != kinds.size())
    throw UserError(
        fmt::format("kernel '{}': {} parameter names given for {} parameters", name, names.size(), kinds.size()), loc);
  if (names.empty())
    for (std::size_t i = 0; i < kinds.size(); ++i) names.push_back(fmt::format("arg{}", i));
  std::vector<bool> specialize(kinds.size(), true);
  for (const auto& exempt : options.do_not_specialize) {
    auto it = std::find(names.begin(), names.end(), exempt);
    if (it == names.end())
      throw UserError(fmt::format("kernel '{}': do_not_specialize names '{}', which is not a parameter ({})", name,
                                  exempt, fmt::join(names, ", ")),
                      loc);
    specialize[static_cast<std::size_t>(it - names.begin())] = false;
  }
  impl_->signature = {std::move(name), std::move(kinds), std::move(names), std::move(specialize)};
  impl_->identity = identity;
  impl_->invoke = std::move(invoke);
}

KernelBase::~KernelBase() {
  // A tiered NVRTC build still queued or running uses this kernel's state: let it end first.
  if (impl_) wait_for_background_compiles();
}

const std::string& KernelBase::name() const { return impl_->signature.kernel_name; }

const CompiledKernel& KernelBase::Impl::lookup(std::span<const Arg> args, const CompileOptions& options,
                                               std::source_location loc) {
  constexpr std::size_t kInline = 32;
  jit::ArgFacts inline_facts[kInline];
  std::vector<jit::ArgFacts> heap_facts(args.size() > kInline ? args.size() : 0);
  jit::ArgFacts* facts = heap_facts.empty() ? inline_facts : heap_facts.data();
  jit::bind_facts(signature, args, facts, loc);
  Backend backend = resolve(options.backend, options.arch);
  GpuCodegen codegen = resolve(options.codegen, backend);
  std::string arch = backend == Backend::cpu ? jit::cpu_target()
                     : options.arch.empty()  ? rt::target_arch()
                                             : options.arch;
  const std::size_t n = args.size();
  const jit::BlockOptions block = jit::block_options(options);
  const std::uint64_t h = jit::hash_facts(facts, n, block, backend, codegen, arch);
  auto hit = [&](const FastEntry* e) { return e && e->matches(h, facts, n, block, backend, codegen, arch); };
  if (const FastEntry* e = last.load(std::memory_order_acquire); hit(e))
    return *e->kernel.load(std::memory_order_acquire);

  std::unique_lock lock(mutex);
  for (auto [it, end] = fast.equal_range(h); it != end; ++it)
    if (hit(&it->second)) {
      last.store(&it->second, std::memory_order_release);
      return *it->second.kernel.load(std::memory_order_acquire);
    }
  lock.unlock();

  // Not compiled yet (or compiling in another thread): the full key decides.
  auto params = jit::bind_arguments(signature, args, loc);
  if (codegen == GpuCodegen::tiered) {
    FastEntry* entry = nullptr;
    const CompiledKernel* k = tiered(params, options, arch, entry, h, facts, n, loc);
    last.store(entry, std::memory_order_release);
    return *k;
  }
  const CompiledKernel* found = obtain(params, options, arch, backend, codegen, loc);
  lock.lock();
  // Index it by facts (once per distinct facts; a waiter may get here after the compiler did).
  last.store(index(h, facts, n, options, backend, codegen, arch, found).first, std::memory_order_release);
  return *found;
}

std::pair<KernelBase::Impl::FastEntry*, bool> KernelBase::Impl::index(std::uint64_t h, const jit::ArgFacts* facts,
                                                                      std::size_t n, const CompileOptions& options,
                                                                      Backend backend, GpuCodegen codegen,
                                                                      const std::string& arch,
                                                                      const CompiledKernel* k) {
  for (auto [it, end] = fast.equal_range(h); it != end; ++it)
    if (it->second.matches(h, facts, n, jit::block_options(options), backend, codegen, arch))
      return {&it->second, false};
  auto it = fast.emplace(std::piecewise_construct, std::forward_as_tuple(h),
                         std::forward_as_tuple(h, std::vector<jit::ArgFacts>(facts, facts + n),
                                               jit::block_options(options), backend, codegen, arch, k));
  return {&it->second, true};
}

const CompiledKernel* KernelBase::Impl::obtain(const std::vector<jit::BoundParam>& params,
                                               const CompileOptions& options, const std::string& arch, Backend backend,
                                               GpuCodegen codegen, const std::source_location& call_site, Reach reach) {
  const bool disk_only = reach == Reach::disk_cache_only;
  std::string key = jit::specialization_key(signature, params, jit::block_options(options), arch, backend, codegen);
  std::unique_lock lock(mutex);
  for (;;) {
    if (auto it = cache.find(key); it != cache.end()) return it->second.get();
    if (!in_flight.count(key)) break;
    if (disk_only) return nullptr;
    compiled.wait(lock);  // another thread compiles this key; use its result
  }
  in_flight[key] = true;
  std::vector<jit::KeyComponents> previous;
  for (const auto& [k, c] : cache) previous.push_back(c->impl().components);
  lock.unlock();

  std::unique_ptr<CompiledKernel::Impl> built;
  try {
    jit::CompileRequest req{&signature,
                            params,
                            &invoke,
                            key,
                            jit::block_options(options),
                            arch,
                            backend,
                            codegen,
                            std::move(previous),
                            disk_only,
                            reach == Reach::ptx_generator_only,
                            call_site};
    built = jit::compile_specialization(req);
  } catch (...) {
    lock.lock();
    in_flight.erase(key);
    compiled.notify_all();
    throw;
  }
  lock.lock();
  in_flight.erase(key);
  compiled.notify_all();
  if (!built) return nullptr;  // not within reach
  ++compiles;
  last_reason = built->metadata.compile_reason;
  auto& slot = cache[key];
  slot = std::make_unique<CompiledKernel>(std::move(built));
  return slot.get();
}

const CompiledKernel* KernelBase::Impl::tiered(const std::vector<jit::BoundParam>& params,
                                               const CompileOptions& options, const std::string& arch,
                                               FastEntry*& entry, std::uint64_t h, const jit::ArgFacts* facts,
                                               std::size_t n, const std::source_location& call_site) {
  const CompiledKernel* best =
      obtain(params, options, arch, Backend::cuda, GpuCodegen::cuda, call_site, Reach::disk_cache_only);
  // NVRTC's kernel wins unless the PTX generator's spills less, or as little and fits more blocks
  // an SM (jit/build_choice.h). The PTX generator's build is looked at only where NVRTC's could
  // lose: it spills, or its registers bound its occupancy.
  if (best && (best->metadata().spill_store_bytes > 0 || jit::register_limited(best->metadata()))) {
    const CompiledKernel* ptx =
        obtain(params, options, arch, Backend::cuda, GpuCodegen::ptx, call_site, Reach::ptx_generator_only);
    if (ptx && jit::outranks(ptx->metadata(), best->metadata())) best = ptx;
  }
  const CompiledKernel* now =
      best ? best : obtain(params, options, arch, Backend::cuda, GpuCodegen::ptx, call_site, Reach::ptx_generator_only);
  // The PTX generator cannot express the kernel: NVRTC's, under its own key, so the kernel that runs
  // has one name (and one override file) whatever the caches held.
  if (!now) best = now = obtain(params, options, arch, Backend::cuda, GpuCodegen::cuda, call_site);
  std::unique_lock lock(mutex);
  bool added = false;
  std::tie(entry, added) = index(h, facts, n, options, Backend::cuda, GpuCodegen::tiered, arch, now);
  // Another thread got here first (and queued the NVRTC build).
  if (!added) return entry->kernel.load(std::memory_order_acquire);
  if (best) return now;
  last_reason += "; tiered: NVRTC's build follows in the background";
  ++background;
  lock.unlock();
  // Outside the lock: a worker stopping at exit runs the job (run = false) right here.
  jit::submit_background([this, params, options, arch, entry, call_site](bool run) {
    const CompiledKernel* upgraded = nullptr;
    std::string failure;
    if (run) {
      try {
        upgraded = obtain(params, options, arch, Backend::cuda, GpuCodegen::cuda, call_site);
      } catch (const std::exception& e) {
        failure = e.what();
      }
    }
    std::lock_guard done(mutex);
    const CompiledKernel* stand_in = entry->kernel.load(std::memory_order_acquire);
    if (upgraded && jit::outranks(stand_in->metadata(), upgraded->metadata())) {
      last_reason =
          fmt::format("tiered: the PTX generator's kernel stays ({} registers, {} spilled bytes; NVRTC's {} and {})",
                      stand_in->metadata().registers, stand_in->metadata().spill_store_bytes,
                      upgraded->metadata().registers, upgraded->metadata().spill_store_bytes);
      upgraded = nullptr;
    }
    if (upgraded) entry->kernel.store(upgraded, std::memory_order_release);
    if (!failure.empty()) last_reason = "tiered: NVRTC's build failed, the PTX generator's kernel stays: " + failure;
    if (--background == 0) settled.notify_all();
  });
  return now;
}

const CompiledKernel& KernelBase::compile(std::span<const Arg> args, const CompileOptions& options,
                                          std::source_location loc) const {
  return impl_->lookup(args, options, loc);
}

void KernelBase::launch(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
                        std::source_location loc) const {
  CompileOptions co;
  co.num_warps = options.num_warps;
  co.num_stages = options.num_stages;
  co.min_blocks_per_sm = options.min_blocks_per_sm;
  co.programs_per_block = options.programs_per_block;
  co.prefetch_in_shared = options.prefetch_in_shared;
  co.backend = options.backend;
  co.codegen = options.codegen;
  // The arch string is copied only when one is given (an empty one costs nothing).
  if (!options.arch.empty()) co.arch = options.arch;
  const CompiledKernel& c = impl_->lookup(args, co, loc);
  // The lookup matched these very facts: no second binding or check.
  c.impl().launch_checked(grid, args, options, loc);
}

void wait_for_background_compiles() { jit::wait_background_idle(); }

void KernelBase::wait_for_background_compiles() const {
  std::unique_lock lock(impl_->mutex);
  impl_->settled.wait(lock, [&] { return impl_->background == 0; });
}

std::string KernelBase::last_miss_reason() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->last_reason;
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
