// The JIT's view of the CPU backend: IR -> LLVM IR (src/codegen/llvm) -> native code
// (runtime/cpu). Every function exists in builds without LLVM, where those that need the
// backend throw tilejit::Error saying it is unavailable.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "ir/ir.h"
#include "jit/compiled_kernel_impl.h"

namespace tilejit::jit {

/// Names the target in cache keys and metadata: host triple, CPU, features and LLVM version.
std::string cpu_target();
/// LLVM's version, or "none" in builds without it (part of every disk-cache key).
std::string llvm_version_name();
/// Generates LLVM IR for `f` and compiles it; fills the kernel's llvm stage, metadata and code.
void compile_cpu(CompiledKernel::Impl& k, const ir::Function& f);
/// The native assembly of a CPU kernel (its "asm" stage).
std::string cpu_assembly(const CompiledKernel::Impl& k);
/// Runs the grid; `params` is the CUDA launch packing of `args` (`n` slots; one more is free).
/// Throws UserError, at the access's source line, when a load or store of the kernel went
/// outside a Buffer argument (those elements were skipped).
void launch_cpu(const CompiledKernel::Impl& k, const Grid& grid, std::span<const Arg> args, void** params,
                std::size_t n, int max_threads);
/// A persistent grid for the CPU: a few programs per thread.
std::uint64_t cpu_persistent_grid(std::uint64_t work_items);

}  // namespace tilejit::jit
