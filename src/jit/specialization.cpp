#include "jit/specialization.h"

#include <fmt/format.h>

#include <limits>

#include "tilejit/error.h"

namespace tilejit::jit {
namespace {

const char* kind_name(detail::ParamKind k) {
  switch (k) {
    case detail::ParamKind::pointer: return "a pointer (tl::Ptr)";
    case detail::ParamKind::integer: return "an integer (tl::Int)";
    case detail::ParamKind::floating: return "a float (tl::Float)";
    case detail::ParamKind::constexpr_int: return "a compile-time integer (tl::Constexpr)";
  }
  return "?";
}

const char* arg_name(Arg::Kind k) {
  switch (k) {
    case Arg::Kind::pointer: return "a pointer";
    case Arg::Kind::integer: return "an integer";
    case Arg::Kind::floating: return "a floating-point number";
  }
  return "?";
}

bool fits_i32(std::int64_t v) {
  return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

}  // namespace

void bind_facts(const KernelSignature& sig, std::span<const Arg> args, ArgFacts* out, const std::source_location& loc) {
  if (args.size() != sig.kinds.size())
    throw UserError(fmt::format("kernel '{}' takes {} arguments ({}), got {}", sig.kernel_name, sig.kinds.size(),
                                fmt::join(sig.names, ", "), args.size()),
                    loc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    ArgFacts p;
    p.kind = sig.kinds[i];
    auto mismatch = [&] {
      return UserError(fmt::format("argument {} ('{}') of kernel '{}' must be {}, got {}", i, sig.names[i],
                                   sig.kernel_name, kind_name(sig.kinds[i]), arg_name(a.kind())),
                       loc);
    };
    switch (sig.kinds[i]) {
      case detail::ParamKind::pointer: {
        if (a.kind() != Arg::Kind::pointer) throw mismatch();
        p.dtype = a.pointer().dtype;
        // Element alignment is always relied on; 16 bytes only where specialization is on.
        std::uint64_t address = a.pointer().address, elem = dtype_size(p.dtype);
        if (sig.specialize[i] && address % 16 == 0) p.divisibility = 16;
        else if (address % elem == 0) p.divisibility = static_cast<std::int64_t>(elem);
        break;
      }
      case detail::ParamKind::integer:
        if (a.kind() != Arg::Kind::integer) throw mismatch();
        p.dtype = fits_i32(a.int_value()) ? DType::i32 : DType::i64;
        if (sig.specialize[i]) {
          p.equals_one = a.int_value() == 1;
          if (a.int_value() % 16 == 0) p.divisibility = 16;
        }
        break;
      case detail::ParamKind::floating:
        if (a.kind() == Arg::Kind::pointer) throw mismatch();
        p.dtype = DType::f32;
        break;
      case detail::ParamKind::constexpr_int:
        if (a.kind() != Arg::Kind::integer) throw mismatch();
        p.constexpr_value = a.int_value();
        break;
    }
    out[i] = p;
  }
}

std::vector<BoundParam> bind_arguments(const KernelSignature& sig, std::span<const Arg> args,
                                       const std::source_location& loc) {
  std::vector<ArgFacts> facts(args.size());
  bind_facts(sig, args, facts.data(), loc);
  std::vector<BoundParam> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgFacts& f = facts[i];
    out.push_back({sig.names[i], f.kind, f.dtype, f.constexpr_value, f.divisibility, f.equals_one});
  }
  return out;
}

KeyComponents spec_components(const std::vector<BoundParam>& params, const BlockOptions& block, const std::string& arch,
                              Backend backend, GpuCodegen codegen) {
  KeyComponents parts;
  for (const auto& p : params) {
    switch (p.kind) {
      case detail::ParamKind::pointer:
        parts.emplace_back(p.name, fmt::format("*{}@{}", dtype_name(p.dtype), p.divisibility));
        break;
      case detail::ParamKind::constexpr_int: parts.emplace_back(p.name, std::to_string(p.constexpr_value)); break;
      case detail::ParamKind::integer:
        parts.emplace_back(p.name, p.equals_one ? fmt::format("{}==1", dtype_name(p.dtype))
                                                : fmt::format("{}%{}", dtype_name(p.dtype), p.divisibility));
        break;
      default: parts.emplace_back(p.name, dtype_name(p.dtype)); break;
    }
  }
  parts.emplace_back("num_warps", std::to_string(block.num_warps));
  parts.emplace_back("num_stages", std::to_string(block.num_stages));
  if (block.min_blocks_per_sm) parts.emplace_back("min_blocks_per_sm", std::to_string(block.min_blocks_per_sm));
  if (block.programs_per_block != 1) parts.emplace_back("programs_per_block", std::to_string(block.programs_per_block));
  if (block.prefetch_in_shared) parts.emplace_back("prefetch_in_shared", "1");
  parts.emplace_back("arch", arch);
  if (backend == Backend::cuda) parts.emplace_back("codegen", codegen_name(codegen));
  parts.emplace_back("backend", backend_name(backend));
  return parts;
}

std::string specialization_key(const KernelSignature& sig, const std::vector<BoundParam>& params,
                               const BlockOptions& block, const std::string& arch, Backend backend,
                               GpuCodegen codegen) {
  std::string args;
  auto parts = spec_components(params, block, arch, backend, codegen);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) args += ',';
    args += parts[i].first;
    args += params[i].kind == detail::ParamKind::constexpr_int ? '=' : ':';
    args += parts[i].second;
  }
  std::string gen = backend == Backend::cuda ? fmt::format(" codegen={}", codegen_name(codegen)) : "";
  std::string min_blocks = block.min_blocks_per_sm ? fmt::format(" min_blocks={}", block.min_blocks_per_sm) : "";
  std::string packed = block.programs_per_block != 1 ? fmt::format(" programs={}", block.programs_per_block) : "";
  std::string shared = block.prefetch_in_shared ? " prefetch_in_shared" : "";
  return fmt::format("{}({}) warps={} stages={}{}{}{} arch={}{} backend={}", sig.kernel_name, args, block.num_warps,
                     block.num_stages, min_blocks, packed, shared, arch, gen, backend_name(backend));
}

std::uint64_t hash_facts(const ArgFacts* facts, std::size_t n, const BlockOptions& block, Backend backend,
                         GpuCodegen codegen, std::string_view arch) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (std::size_t i = 0; i < n; ++i) {
    const ArgFacts& f = facts[i];
    mix(static_cast<std::uint64_t>(f.kind) | static_cast<std::uint64_t>(f.dtype) << 8 |
        static_cast<std::uint64_t>(f.equals_one) << 16);
    mix(static_cast<std::uint64_t>(f.divisibility));
    mix(static_cast<std::uint64_t>(f.constexpr_value));
  }
  mix(static_cast<std::uint64_t>(block.num_warps));
  mix(static_cast<std::uint64_t>(block.num_stages));
  mix(static_cast<std::uint64_t>(block.min_blocks_per_sm));
  mix(static_cast<std::uint64_t>(block.programs_per_block));
  mix(static_cast<std::uint64_t>(block.prefetch_in_shared));
  mix(static_cast<std::uint64_t>(backend));
  mix(static_cast<std::uint64_t>(codegen));
  return h ^ std::hash<std::string_view>{}(arch);
}

void check_facts(const KernelSignature& sig, const std::vector<BoundParam>& compiled, const ArgFacts* given,
                 const std::source_location& loc) {
  // Facts first, then types and constexpr values: the order users have always seen.
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const BoundParam& want = compiled[i];
    const ArgFacts& got = given[i];
    bool ok = got.divisibility % want.divisibility == 0 && (!want.equals_one || got.equals_one);
    if (ok) continue;
    std::string fact = want.equals_one ? "the value 1"
                       : want.kind == detail::ParamKind::pointer
                           ? fmt::format("an address aligned to {} bytes", want.divisibility)
                           : fmt::format("a multiple of {}", want.divisibility);
    throw UserError(fmt::format("argument {} ('{}') of kernel '{}': this compiled kernel assumes {}; launch through "
                                "the Kernel (which picks the matching specialization) or compile for these arguments",
                                i, sig.names[i], sig.kernel_name, fact),
                    loc);
  }
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const BoundParam& want = compiled[i];
    const ArgFacts& got = given[i];
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
  }
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace tilejit::jit
