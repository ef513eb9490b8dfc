#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "jit/compiled_kernel_impl.h"
#include "jit/compiler.h"
#include "jit/cpu_backend.h"
#include "runtime/device.h"
#include "tilejit/error.h"

namespace tilejit {

CompiledKernel::CompiledKernel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledKernel::~CompiledKernel() = default;

const KernelMetadata& CompiledKernel::metadata() const { return impl_->metadata; }

const std::string& CompiledKernel::stage(std::string_view name) const {
  const std::string* text = impl_->find_stage(name);
  if (!text)
    throw Error(fmt::format("kernel {} ({} backend) has no stage '{}' (available: {})", impl_->metadata.entry_name,
                            backend_name(impl_->metadata.backend), name, fmt::join(stage_names(), ", ")));
  return *text;
}

std::vector<std::string> CompiledKernel::stage_names() const { return impl_->stage_names(); }

std::vector<std::string> CompiledKernel::Impl::stage_names() const {
  std::vector<std::string> names;
  for (const auto& [name, text] : stages) names.push_back(name);
  if (cpu) names.push_back("asm");
  return names;
}

const std::string* CompiledKernel::Impl::find_stage(std::string_view name) const {
  if (auto it = stages.find(name); it != stages.end()) return &it->second;
  if (name != "asm" || !cpu) return nullptr;
  std::lock_guard lock(asm_mutex);
  if (!asm_text) asm_text = std::make_unique<std::string>(jit::cpu_assembly(*this));
  return asm_text.get();
}

std::string CompiledKernel::write_stage(std::string_view name, const std::string& dir) const {
  stage(name);  // names the available stages when `name` is not one
  return jit::dump_stage(*impl_, std::string(name), dir);
}

std::string CompiledKernel::dump_directory() { return jit::dump_directory(); }

const rt::LoadedKernel& CompiledKernel::Impl::module() const {
  std::call_once(load_once, [this] {
    if (cubin.empty())
      throw Error(fmt::format("kernel {} was compiled for {} without a cubin; it cannot be loaded", metadata.entry_name,
                              metadata.arch));
    loaded = rt::LoadedKernel::load(cubin, metadata.entry_name);
  });
  return *loaded;
}

DeviceResources CompiledKernel::resources() const {
  if (impl_->metadata.backend != Backend::cuda)
    throw Error(fmt::format("kernel {} runs on the CPU: device resources exist only for CUDA kernels",
                            impl_->metadata.entry_name));
  const auto& m = impl_->module();
  auto r = m.resources();
  DeviceResources out;
  out.n_regs = r.n_regs;
  out.local_bytes = r.local_bytes;
  out.static_shared_bytes = r.static_shared_bytes;
  out.max_threads_per_block = r.max_threads_per_block;
  out.max_active_blocks_per_sm =
      m.max_active_blocks_per_sm(32 * impl_->metadata.num_warps, impl_->metadata.dynamic_shared_bytes);
  return out;
}

namespace {

unsigned grid_dim(std::uint64_t v, const char* axis, const std::source_location& loc) {
  if (v > std::numeric_limits<std::int32_t>::max())
    throw UserError(fmt::format("grid.{} = {} is larger than the device allows", axis, v), loc);
  return static_cast<unsigned>(v);
}

}  // namespace

void CompiledKernel::launch(Grid grid, std::span<const Arg> args, StreamHandle stream, std::source_location loc) const {
  LaunchOptions options;
  options.stream = stream;
  launch(grid, args, options, loc);
}

void CompiledKernel::launch(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
                            std::source_location loc) const {
  const Impl& k = *impl_;
  const bool cpu = k.metadata.backend == Backend::cpu;
  auto bound = jit::bind_arguments(k.signature, args, loc);
  // Only arguments of this specialization may use it.
  jit::check_facts(k.signature, k.params, bound, loc);
  std::vector<std::uint64_t> storage(args.size(), 0);
  std::vector<void*> params;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    const auto& want = k.params[i];
    const auto& got = bound[i];
    if (want.kind == detail::ParamKind::constexpr_int) {
      if (got.constexpr_value != want.constexpr_value)
        throw UserError(fmt::format("argument {} ('{}'): this kernel was compiled for {} = {}, got {}", i, want.name,
                                    want.name, want.constexpr_value, got.constexpr_value),
                        loc);
      continue;
    }
    bool widen_ok = want.kind == detail::ParamKind::integer && want.dtype == DType::i64;
    if (got.dtype != want.dtype && !widen_ok)
      throw UserError(fmt::format("argument {} ('{}'): this kernel was compiled for {}, got {}", i, want.name,
                                  dtype_name(want.dtype), dtype_name(got.dtype)),
                      loc);
    void* slot = &storage[i];
    switch (want.kind) {
      case detail::ParamKind::pointer: {
        Memory wrong = cpu ? Memory::device : Memory::host;
        if (args[i].pointer().memory == wrong)
          throw UserError(fmt::format("argument {} ('{}') is a {} Buffer, but kernel '{}' was compiled for the {} "
                                      "backend, which needs {} memory (allocate it with Memory::{})",
                                      i, want.name, cpu ? "device" : "host", k.metadata.kernel_name,
                                      cpu ? "CPU" : "CUDA", cpu ? "host" : "device", cpu ? "host" : "device"),
                          loc);
        storage[i] = args[i].pointer().address;
        break;
      }
      case detail::ParamKind::integer:
        if (want.dtype == DType::i64) {
          std::int64_t v = args[i].int_value();
          std::memcpy(slot, &v, sizeof v);
        } else {
          auto v = static_cast<std::int32_t>(args[i].int_value());
          std::memcpy(slot, &v, sizeof v);
        }
        break;
      case detail::ParamKind::floating: {
        float v = args[i].kind() == Arg::Kind::integer ? static_cast<float>(args[i].int_value())
                                                       : static_cast<float>(args[i].float_value());
        std::memcpy(slot, &v, sizeof v);
        break;
      }
      case detail::ParamKind::constexpr_int: break;
    }
    params.push_back(slot);
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;  // nothing to run, as in Triton
  rt::Dim3 dims{grid_dim(grid.x, "x", loc), grid_dim(grid.y, "y", loc), grid_dim(grid.z, "z", loc)};
  if (cpu) {
    if (options.cpu_threads < 0)
      throw UserError(fmt::format("cpu_threads must be >= 0, got {}", options.cpu_threads), loc);
    jit::launch_cpu(k, grid, params.data(), options.cpu_threads);
    return;
  }
  k.module().launch(dims, 32u * static_cast<unsigned>(k.metadata.num_warps),
                    static_cast<unsigned>(k.metadata.dynamic_shared_bytes), options.stream, params.data());
}

std::uint64_t persistent_grid(const CompiledKernel& kernel, std::uint64_t work_items) {
  if (kernel.metadata().backend == Backend::cpu) return jit::cpu_persistent_grid(work_items);
  const auto& dev = rt::current_device();
  const auto& md = kernel.metadata();
  DeviceResources r = kernel.resources();
  std::uint64_t per_sm = static_cast<std::uint64_t>(std::max(1, r.max_active_blocks_per_sm));
  std::uint64_t regs_per_program = static_cast<std::uint64_t>(std::max(1, r.n_regs)) * 32u * md.num_warps;
  per_sm = std::min<std::uint64_t>(per_sm, std::max<std::uint64_t>(1, dev.regs_per_sm / regs_per_program));
  std::uint64_t smem = static_cast<std::uint64_t>(r.static_shared_bytes + md.dynamic_shared_bytes);
  if (smem > 0) per_sm = std::min<std::uint64_t>(per_sm, std::max<std::uint64_t>(1, dev.smem_per_sm / smem));
  return std::max<std::uint64_t>(1, std::min<std::uint64_t>(dev.sm_count * per_sm, work_items));
}

}  // namespace tilejit
