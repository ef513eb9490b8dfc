#include "runtime/l2_flush.h"

#include <cuda.h>

#include <cstdlib>
#include <memory>

#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/module.h"

namespace tilejit::rt {

const std::string& l2_flush_ptx() {
  // One 16-byte chunk a thread a step, grid-stride. The loads' values are folded into one word,
  // stored only if it takes a value it will not take, so the assembler keeps every load.
  static const std::string ptx = R"(.version 7.4
.target sm_80
.address_size 64

.visible .entry tj_l2_flush(.param .u64 buffer, .param .u64 chunks, .param .u32 discard)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;

  ld.param.u64 %rd1, [buffer];
  ld.param.u64 %rd2, [chunks];
  ld.param.u32 %r1, [discard];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd3, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r5, %r3;
  createpolicy.fractional.L2::evict_last.b64 %rd6, 1.0;
  mov.u32 %r6, 0;
  setp.ne.u32 %p1, %r1, 0;
$next_chunk:
  setp.ge.u64 %p2, %rd3, %rd2;
  @%p2 bra $done;
  shl.b64 %rd7, %rd3, 4;
  add.u64 %rd8, %rd1, %rd7;
  @%p1 bra $drop;
  ld.global.L2::cache_hint.v4.u32 {%r7, %r8, %r9, %r10}, [%rd8], %rd6;
  xor.b32 %r6, %r6, %r7;
  xor.b32 %r6, %r6, %r8;
  xor.b32 %r6, %r6, %r9;
  xor.b32 %r6, %r6, %r10;
  bra $step;
$drop:
  and.b64 %rd9, %rd3, 7;
  setp.ne.u64 %p3, %rd9, 0;
  @%p3 bra $step;
  discard.global.L2 [%rd8], 128;
$step:
  add.u64 %rd3, %rd3, %rd5;
  bra $next_chunk;
$done:
  setp.eq.u32 %p2, %r6, 2143289345;
  @%p2 st.global.u32 [%rd1], %r6;
  ret;
}
)";
  return ptx;
}

namespace {

// On unless TILEJIT_FLUSH_HELD_LINES=0 (the memset alone, to compare with), read once.
bool flush_held_lines() {
  static const bool on = [] {
    const char* v = std::getenv("TILEJIT_FLUSH_HELD_LINES");
    return v == nullptr || std::string(v) != "0";
  }();
  return on;
}

}  // namespace

void flush_l2(std::uint64_t buffer, std::size_t bytes, StreamHandle stream) {
  const DeviceProperties* props = flush_held_lines() ? &device_properties() : nullptr;
  if (props != nullptr && props->cc_major >= 8) {
    static const std::unique_ptr<LoadedKernel> kernel = [] {
      const std::string& ptx = l2_flush_ptx();
      return LoadedKernel::load(std::vector<char>(ptx.begin(), ptx.end()), "tj_l2_flush");
    }();
    std::uint64_t chunks = bytes / 16;
    const Dim3 grid{static_cast<unsigned>(props->sm_count) * 4};
    for (std::uint32_t discard : {0u, 1u}) {
      void* params[] = {&buffer, &chunks, &discard};
      kernel->launch(grid, 256, 0, stream, params);
    }
  }
  check(driver().cuMemsetD8Async(static_cast<CUdeviceptr>(buffer), 0, bytes, reinterpret_cast<CUstream>(stream)),
        "cuMemsetD8Async");
}

}  // namespace tilejit::rt
