// Binding launch arguments to a kernel's parameters: checks them (UserError at the caller's
// line) and derives the specialization they select and its cache key.
#pragma once

#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "tilejit/kernel.h"

namespace tilejit::jit {

struct BoundParam {
  std::string name;
  detail::ParamKind kind;
  DType dtype = DType::i32;          // pointee for pointers, value type for scalars
  std::int64_t constexpr_value = 0;  // constexpr parameters only
  /// Facts the code may rely on (Triton's specialization): a pointer's address, or an
  /// integer's value, is a multiple of this; an integer equals 1.
  std::int64_t divisibility = 1;
  bool equals_one = false;
};

struct KernelSignature {
  std::string kernel_name;
  std::vector<detail::ParamKind> kinds;
  std::vector<std::string> names;  // one per parameter (defaults: arg0, arg1, ...)
  std::vector<bool> specialize;    // false: no alignment/divisibility/==1 facts for it
};

/// Whether the arguments of a launch satisfy the facts a compiled specialization assumed;
/// UserError naming the first argument that does not.
void check_facts(const KernelSignature& sig, const std::vector<BoundParam>& compiled,
                 const std::vector<BoundParam>& given, const std::source_location& loc);

/// Checks `args` against the signature and returns each parameter's specialization.
std::vector<BoundParam> bind_arguments(const KernelSignature& sig, std::span<const Arg> args,
                                       const std::source_location& loc);

/// The cache key: kernel identity, parameter specializations, options and target.
std::string specialization_key(const KernelSignature& sig, const void* identity, const std::vector<BoundParam>& params,
                               int num_warps, int num_stages, const std::string& arch, Backend backend);

/// 64-bit FNV-1a, for entry names derived from keys.
std::uint64_t fnv1a(std::string_view text);

}  // namespace tilejit::jit
