// Emptying L2 before a timed run (internal): lines a kernel loaded with an evict_last hint
// outlive a memset of plain stores, so a flush that is only a memset leaves them for the next run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tilejit/device.h"

namespace tilejit::rt {

/// The PTX (sm_80+) of tj_l2_flush(buffer, chunks, discard): over `chunks` 16-byte chunks of
/// `buffer`, reads each with an L2 evict_last hint (discard = 0), or drops each 128-byte line from
/// L2 unwritten (discard != 0, discard.global.L2).
const std::string& l2_flush_ptx();

/// Enqueues on `stream` a memset of `buffer` (larger than L2: it leaves L2 full of the buffer's
/// dirty lines, as do_bench's flush does). Before it, on sm_80 and later, tj_l2_flush reads the
/// buffer with the evict_last hint, so its lines displace those of the same hint too, then drops
/// its own lines; TILEJIT_FLUSH_HELD_LINES=0 leaves that out (bench-timing-context --full-sweep 1
/// with and without shows what it mends). `bytes` is a multiple of 128, `buffer` 128-byte aligned.
void flush_l2(std::uint64_t buffer, std::size_t bytes, StreamHandle stream);

}  // namespace tilejit::rt
