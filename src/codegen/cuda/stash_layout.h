// Where a kernel's stashes (tl::stash) sit in shared memory and how a thread moves its part of a
// slot, shared by the CUDA C and PTX generators so both lay stashes out alike.
//
// A stash's slots follow one another, each holding its block in element order; the stashes follow
// the reduction and conversion scratch, each padded to 16 bytes. Puts, gets and copies use the
// default layout of the block's shape, so every thread reads back exactly the elements it wrote.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codegen/cuda/layout.h"
#include "ir/ir.h"

namespace tilejit::codegen::cuda {

/// Elements of a thread's part of a slot that one shared-memory access moves in layout `l`: those
/// contiguous along the fastest dimension, up to 16 bytes (one-byte elements: 1 or 4 and more).
int stash_vector_width(const ir::Stash& s, const Layout& l);

/// Bytes from the start of the stash region to stash `id`: the stashes before it, each padded to
/// 16 bytes. stash_offset(f, f.stashes.size()) is the region's size.
std::int64_t stash_offset(const ir::Function& f, std::size_t id);

}  // namespace tilejit::codegen::cuda
