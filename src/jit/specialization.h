// Binding launch arguments to a kernel's parameters: checks them (UserError at the caller's
// line) and derives the specialization they select and its cache key.
#pragma once

#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "tilejit/kernel.h"

namespace tilejit::jit {

/// What one argument tells the compiler, without its name: bound on every launch, so it
/// allocates nothing and compares as plain data.
struct ArgFacts {
  detail::ParamKind kind = detail::ParamKind::integer;
  DType dtype = DType::i32;
  bool equals_one = false;
  std::int64_t divisibility = 1;
  std::int64_t constexpr_value = 0;
  bool operator==(const ArgFacts&) const = default;
};

struct BoundParam {
  std::string name;
  detail::ParamKind kind;
  DType dtype = DType::i32;          // pointee for pointers, value type for scalars
  std::int64_t constexpr_value = 0;  // constexpr parameters only
  /// Facts the code may rely on (Triton's specialization): a pointer's address, or an
  /// integer's value, is a multiple of this; an integer equals 1.
  std::int64_t divisibility = 1;
  bool equals_one = false;

  ArgFacts facts() const { return {kind, dtype, equals_one, divisibility, constexpr_value}; }
};

struct KernelSignature {
  std::string kernel_name;
  std::vector<detail::ParamKind> kinds;
  std::vector<std::string> names;  // one per parameter (defaults: arg0, arg1, ...)
  std::vector<bool> specialize;    // false: no alignment/divisibility/==1 facts for it
};

/// Named parts of a key ("x" -> "*f32@16", "num_warps" -> "4", ...), in a fixed order: what a
/// cache-miss explanation compares.
using KeyComponents = std::vector<std::pair<std::string, std::string>>;

/// Whether the arguments of a launch satisfy what a compiled specialization assumed (dtypes,
/// constexpr values, alignment/divisibility/==1 facts); UserError naming the first that does not.
void check_facts(const KernelSignature& sig, const std::vector<BoundParam>& compiled, const ArgFacts* given,
                 const std::source_location& loc);

/// Checks `args` against the signature (UserError at `loc`) and writes each one's facts to
/// out[0..args.size()).
void bind_facts(const KernelSignature& sig, std::span<const Arg> args, ArgFacts* out, const std::source_location& loc);

/// Checks `args` against the signature and returns each parameter's specialization.
std::vector<BoundParam> bind_arguments(const KernelSignature& sig, std::span<const Arg> args,
                                       const std::source_location& loc);

/// The options that shape a kernel's blocks (CompileOptions' fields of the same names).
struct BlockOptions {
  int num_warps = 4;
  int num_stages = 1;
  int min_blocks_per_sm = 0;
  int programs_per_block = 1;
  bool prefetch_in_shared = false;
  bool operator==(const BlockOptions&) const = default;
};
inline BlockOptions block_options(const CompileOptions& o) {
  return {o.num_warps, o.num_stages, o.min_blocks_per_sm, o.programs_per_block, o.prefetch_in_shared};
}

/// The specialization's parts: each parameter, then num_warps, num_stages, min_blocks_per_sm,
/// programs_per_block and prefetch_in_shared (when not their defaults), arch, the code generator (CUDA only: `codegen`
/// is ptx or cuda there) and backend.
KeyComponents spec_components(const std::vector<BoundParam>& params, const BlockOptions& block, const std::string& arch,
                              Backend backend, GpuCodegen codegen);

/// The cache key: kernel name, parameter specializations, options and target, e.g.
/// "scale(x:*f32@16,out:*f32@16,n:i32%1,BLOCK=256) warps=4 stages=1 arch=sm_90 codegen=cuda backend=cuda"
/// (" min_blocks=N" and " programs=P" after the stages when set). The same in every process (no addresses), so it
/// also names disk-cache entries.
std::string specialization_key(const KernelSignature& sig, const std::vector<BoundParam>& params,
                               const BlockOptions& block, const std::string& arch, Backend backend, GpuCodegen codegen);

/// A 64-bit hash of a launch's facts and resolved options, for the memory cache's fast lookup.
std::uint64_t hash_facts(const ArgFacts* facts, std::size_t n, const BlockOptions& block, Backend backend,
                         GpuCodegen codegen, std::string_view arch);

/// 64-bit FNV-1a, for entry names derived from keys.
std::uint64_t fnv1a(std::string_view text);

}  // namespace tilejit::jit
