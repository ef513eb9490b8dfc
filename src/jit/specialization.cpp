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

std::vector<BoundParam> bind_arguments(const KernelSignature& sig, std::span<const Arg> args,
                                       const std::source_location& loc) {
  if (args.size() != sig.kinds.size())
    throw UserError(fmt::format("kernel '{}' takes {} arguments ({}), got {}", sig.kernel_name, sig.kinds.size(),
                                fmt::join(sig.names, ", "), args.size()),
                    loc);
  std::vector<BoundParam> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    BoundParam p{sig.names[i], sig.kinds[i]};
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
    out.push_back(std::move(p));
  }
  return out;
}

std::string specialization_key(const KernelSignature& sig, const void* identity, const std::vector<BoundParam>& params,
                               int num_warps, int num_stages, const std::string& arch, Backend backend) {
  std::vector<std::string> parts;
  for (const auto& p : params) {
    switch (p.kind) {
      case detail::ParamKind::pointer:
        parts.push_back(fmt::format("{}:*{}@{}", p.name, dtype_name(p.dtype), p.divisibility));
        break;
      case detail::ParamKind::constexpr_int: parts.push_back(fmt::format("{}={}", p.name, p.constexpr_value)); break;
      case detail::ParamKind::integer:
        parts.push_back(p.equals_one ? fmt::format("{}:{}==1", p.name, dtype_name(p.dtype))
                                     : fmt::format("{}:{}%{}", p.name, dtype_name(p.dtype), p.divisibility));
        break;
      default: parts.push_back(fmt::format("{}:{}", p.name, dtype_name(p.dtype))); break;
    }
  }
  return fmt::format("{}@{}({}) warps={} stages={} arch={} backend={}", sig.kernel_name, identity,
                     fmt::join(parts, ","), num_warps, num_stages, arch, backend_name(backend));
}

void check_facts(const KernelSignature& sig, const std::vector<BoundParam>& compiled,
                 const std::vector<BoundParam>& given, const std::source_location& loc) {
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const BoundParam &want = compiled[i], &got = given[i];
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
