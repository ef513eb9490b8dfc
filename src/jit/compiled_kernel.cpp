#include <fmt/format.h>

#include <algorithm>
#include <cstring>
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
    if (load_ptx) {
      const std::string& ptx = stages.at("ptx");
      loaded = rt::LoadedKernel::load(std::vector<char>(ptx.begin(), ptx.end()), metadata.entry_name);
    } else {
      if (cubin.empty())
        throw Error(fmt::format("kernel {} was compiled for {} without a cubin; it cannot be loaded",
                                metadata.entry_name, metadata.arch));
      loaded = rt::LoadedKernel::load(cubin, metadata.entry_name);
    }
    if (metadata.cluster_size > 8) loaded->allow_non_portable_cluster_size();
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
  out.max_active_blocks_per_sm = m.max_active_blocks_per_sm(
      32 * impl_->metadata.num_warps * impl_->metadata.programs_per_block, impl_->metadata.dynamic_shared_bytes);
  return out;
}

namespace {

// Launches of kernels with at most this many parameters build their packing on the stack.
constexpr std::size_t kInlineArgs = 32;

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
  // Only arguments of this specialization may use it.
  jit::ArgFacts inline_facts[kInlineArgs];
  std::vector<jit::ArgFacts> heap_facts(args.size() > kInlineArgs ? args.size() : 0);
  jit::ArgFacts* facts = heap_facts.empty() ? inline_facts : heap_facts.data();
  jit::bind_facts(k.signature, args, facts, loc);
  jit::check_facts(k.signature, k.params, facts, loc);
  k.launch_checked(grid, args, options, loc);
}

void CompiledKernel::Impl::launch_checked(Grid grid, std::span<const Arg> args, const LaunchOptions& options,
                                          const std::source_location& loc) const {
  const bool on_cpu = metadata.backend == Backend::cpu;
  // The launch packing: one slot per argument, a pointer to each non-constexpr one.
  std::uint64_t inline_storage[kInlineArgs + 1];
  void* inline_params[kInlineArgs + 1];
  // One more slot than arguments: kernels whose programs share blocks take the grid's programs.
  std::vector<std::uint64_t> heap_storage(args.size() > kInlineArgs ? args.size() + 1 : 0);
  std::vector<void*> heap_params(heap_storage.size());
  std::uint64_t* storage = heap_storage.empty() ? inline_storage : heap_storage.data();
  void** packed = heap_params.empty() ? inline_params : heap_params.data();
  std::size_t n = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& want = params[i];
    void* slot = &storage[i];
    switch (want.kind) {
      case detail::ParamKind::constexpr_int: continue;
      case detail::ParamKind::pointer: {
        Memory wrong = on_cpu ? Memory::device : Memory::host;
        if (args[i].pointer().memory == wrong)
          throw UserError(fmt::format("argument {} ('{}') is a {} Buffer, but kernel '{}' was compiled for the {} "
                                      "backend, which needs {} memory (allocate it with Memory::{})",
                                      i, want.name, on_cpu ? "device" : "host", metadata.kernel_name,
                                      on_cpu ? "CPU" : "CUDA", on_cpu ? "host" : "device", on_cpu ? "host" : "device"),
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
    }
    packed[n++] = slot;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;  // nothing to run, as in Triton
  if (grid.x % static_cast<std::uint64_t>(metadata.cluster_size) != 0)
    throw UserError(fmt::format("grid.x = {} is not a multiple of the cluster size {} of kernel '{}' (its "
                                "tl::cluster_* reductions group that many consecutive programs)",
                                grid.x, metadata.cluster_size, metadata.kernel_name),
                    loc);
  if (grid.x % static_cast<std::uint64_t>(metadata.group_size) != 0)
    throw UserError(fmt::format("grid.x = {} is not a multiple of the group size {} of kernel '{}' (its "
                                "tl::group_* reductions group that many consecutive programs)",
                                grid.x, metadata.group_size, metadata.kernel_name),
                    loc);
  rt::Dim3 dims{grid_dim(grid.x, "x", loc), grid_dim(grid.y, "y", loc), grid_dim(grid.z, "z", loc)};
  const auto programs_per_block = static_cast<unsigned>(metadata.programs_per_block);
  if (programs_per_block > 1 && !on_cpu) {
    // The grid counts programs; the kernel runs programs_per_block of them a block and is told
    // how many there are, so the last block's extra ones return at once.
    auto programs = static_cast<std::int32_t>(dims.x);
    std::memcpy(&storage[args.size()], &programs, sizeof programs);
    packed[n++] = &storage[args.size()];
    dims.x = (dims.x + programs_per_block - 1) / programs_per_block;
  }
  if (on_cpu) {
    if (options.cpu_threads < 0)
      throw UserError(fmt::format("cpu_threads must be >= 0, got {}", options.cpu_threads), loc);
    jit::launch_cpu(*this, grid, args, packed, n, options.cpu_threads);
    return;
  }
  const bool cooperative = metadata.group_size > 1;
  if (cooperative && grid.x * grid.y * grid.z > resident_programs())
    throw UserError(fmt::format("kernel '{}' reduces across groups (tl::group_*), so all of its programs must be "
                                "resident at once, but the grid has {} and at most {} fit the device (size it "
                                "with tilejit::persistent_grid)",
                                metadata.kernel_name, grid.x * grid.y * grid.z, resident_programs()),
                    loc);
  module().launch(dims, 32u * static_cast<unsigned>(metadata.num_warps) * programs_per_block,
                  static_cast<unsigned>(metadata.dynamic_shared_bytes), options.stream, packed, cooperative);
}

std::uint64_t CompiledKernel::Impl::resident_programs() const {
  std::call_once(resident_once, [this] {
    const auto& md = metadata;
    const auto& m = module();
    if (md.cluster_size > 1) {
      const int clusters = m.max_active_clusters(md.cluster_size, 32 * md.num_warps, md.dynamic_shared_bytes);
      if (clusters < 1)
        throw Error(
            fmt::format("kernel {}: no cluster of {} programs ({} threads, {} registers each) fits the "
                        "device at once; use a smaller cluster or fewer warps",
                        md.kernel_name, md.cluster_size, 32 * md.num_warps, md.registers));
      resident = static_cast<std::uint64_t>(clusters) * static_cast<std::uint64_t>(md.cluster_size);
      return;
    }
    // Counted in blocks, then in programs (programs_per_block of them a block).
    const auto& dev = rt::current_device();
    auto r = m.resources();
    const int threads = 32 * md.num_warps * md.programs_per_block;
    std::uint64_t per_sm =
        static_cast<std::uint64_t>(std::max(1, m.max_active_blocks_per_sm(threads, md.dynamic_shared_bytes)));
    std::uint64_t regs_per_block =
        static_cast<std::uint64_t>(std::max(1, r.n_regs)) * static_cast<std::uint64_t>(threads);
    per_sm = std::min<std::uint64_t>(per_sm, std::max<std::uint64_t>(1, dev.regs_per_sm / regs_per_block));
    std::uint64_t smem = static_cast<std::uint64_t>(r.static_shared_bytes + md.dynamic_shared_bytes);
    if (smem > 0) per_sm = std::min<std::uint64_t>(per_sm, std::max<std::uint64_t>(1, dev.smem_per_sm / smem));
    resident = static_cast<std::uint64_t>(dev.sm_count) * per_sm * static_cast<std::uint64_t>(md.programs_per_block);
  });
  return resident;
}

std::uint64_t resident_programs(const CompiledKernel& kernel) {
  if (kernel.metadata().backend != Backend::cuda) throw Error("resident_programs: not a CUDA kernel");
  return kernel.impl().resident_programs();
}

std::uint64_t persistent_grid(const CompiledKernel& kernel, std::uint64_t work_items) {
  const auto& md = kernel.metadata();
  const auto c = static_cast<std::uint64_t>(programs_per_exchange(md));  // work items count clusters (groups)
  std::uint64_t resident = 0;
  if (md.backend == Backend::cpu) {
    if (c == 1) return jit::cpu_persistent_grid(work_items);
    resident = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(default_cpu_threads()) / c) * c;
  } else {
    resident = kernel.impl().resident_programs();
  }
  return c * std::max<std::uint64_t>(1, std::min(resident / c, work_items));
}

}  // namespace tilejit
