// Reductions across a group of programs through global memory (tl::group_*), for groups larger
// than a thread-block cluster or GPUs without clusters. The launch is cooperative, so every
// program of a group is resident and a spinning wait cannot starve the others.
//
// Each group owns group_workspace_stride(G) bytes of the workspace: four barriers (one 32-bit
// word each, on 128-byte lines of their own) and, from byte 512, four sets of G 8-byte slots.
// Exchange n of a program uses barrier and set n mod 4. An exchange: thread 0 writes the block's
// value into slot <rank> of the set and arrives at the set's barrier (start); later it waits
// there, then warp 0 (its lanes wait for lane 0 at a __syncwarp) loads every slot at once (lane l
// takes slots l, l + 32, ...) and combines them in a fixed order, then a shuffle tree, so every
// program gets the same bits (finish). A whole exchange does both at once; a split one
// (tl::group_softmax_stats_start / _finish) lets the program work in between, with at most two
// open. Four sets make that safe: a program starts exchange n + 4 only after finishing n + 2,
// which needed every program to start n + 2, which each did after finishing n.
//
// A barrier is one atomic add per program and a spin on the same word: rank 0 adds 2^31 - (G - 1)
// and every other program 1, so a round's arrivals add exactly 2^31. The top bit flips when the
// last one lands (no partial sum reaches it) and the low bits are zero again, so the next launch
// with the same group size needs no memset (another size puts its barriers elsewhere). A waiter
// cannot miss the flip: the word flips again only once every program, this one included, has
// arrived at the set's next round. Every step on the critical path is one round trip to L2: the
// last arrival's atomic, the waiters' next poll, and warp 0's loads of the slots, all in flight
// together.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "tilejit/kernel.h"

namespace tilejit::codegen::cuda {
namespace {

// The value that leaves the other operand of a combine unchanged, in compute type `t`.
std::string identity(ir::ReduceKind k, const std::string& t) {
  if (k == ir::ReduceKind::sum) return "0";
  const bool max = k == ir::ReduceKind::max;
  if (t == "float") return max ? "__int_as_float(0xff800000)" : "__int_as_float(0x7f800000)";
  if (t == "double")
    return max ? "__longlong_as_double(0xfff0000000000000LL)" : "__longlong_as_double(0x7ff0000000000000LL)";
  if (t == "long long") return max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
  return max ? "(-2147483647 - 1)" : "2147483647";
}

}  // namespace

std::string Emitter::group_helpers() const {
  if (!group_workspace_) return "";
  // Release / acquire at GPU scope instead of full fences: the arrival releases this block's slot,
  // the wait acquires every other block's. Slots are read at GPU scope (from L2, never a stale L1).
  return R"(
// One of a group's barriers (tl::group_*), run by one thread per block: returns the barrier word
// before this block's arrival (see codegen/cuda/group.cpp for why the top bit flips once a round).
__device__ __forceinline__ unsigned tj_group_arrive(unsigned char* barrier, unsigned size, unsigned rank) {
  const unsigned add = rank == 0u ? 0x80000000u - (size - 1u) : 1u;
  unsigned before;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(before) : "l"(barrier), "r"(add) : "memory");
  return before;
}
// Waits until the top bit differs from `before`: the whole group has arrived.
__device__ __forceinline__ void tj_group_wait(unsigned char* barrier, unsigned before) {
  unsigned now;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(barrier) : "memory");
  } while (((now ^ before) & 0x80000000u) == 0u);
}
// A (max, sum) slot, written by one program and read by the others.
__device__ __forceinline__ void tj_group_put2(float* slot, float a, float b) {
  asm volatile("st.relaxed.gpu.global.v2.f32 [%0], {%1, %2};" ::"l"(slot), "f"(a), "f"(b) : "memory");
}
__device__ __forceinline__ float2 tj_group_get2(const float* slot) {
  float2 v;
  asm volatile("ld.relaxed.gpu.global.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(slot) : "memory");
  return v;
}
)";
}

std::string Emitter::group_prologue() const {
  if (!group_workspace_) return "";
  return fmt::format(
      "  __shared__ __align__(8) unsigned char tj_group_result[8];  // the exchange's result, for every warp\n"
      "  __shared__ unsigned tj_group_seen[4];  // thread 0: each barrier's word before this block last arrived\n"
      "  unsigned tj_group_turn = 0;  // exchanges started: the next one uses set tj_group_turn % 4\n"
      "  const unsigned tj_group_rank = blockIdx.x % {}u;\n",
      group_size_);
}

// The top of an exchange's scope: the group's part of the workspace (tj_group), the barrier and
// slot set `set` (an expression, 0..3) as `slot_t` (volatile unless `slot_t` is float, whose
// pairs go through tj_group_put2 / tj_group_get2).
void Emitter::group_exchange_scope(ir::ValueId workspace, const std::string& set, const std::string& slot_t) {
  line(fmt::format("unsigned char* tj_group = (unsigned char*)({}) + (unsigned long long)(blockIdx.x / {}u) * {}ull;",
                   scalar(workspace), group_size_, group_workspace_stride(group_size_)));
  line(fmt::format("unsigned char* tj_barrier = tj_group + ({}) * 128;", set));
  const std::string qualified = slot_t == "float" ? slot_t : "volatile " + slot_t;
  line(fmt::format("{0}* tj_slots = reinterpret_cast<{0}*>(tj_group + 512 + ({1}) * {2});", qualified, set,
                   group_size_ * 8));
}

namespace {

// Warp 0 loads its lane's share of a group's slots in chunks of at most this many, all in flight
// at once: the loads are the exchange's last round trip to L2, so one chunk is one round trip.
constexpr int kSlotsPerLaneChunk = 16;

// Slots per lane, and per chunk, for a group of `g`.
int slots_per_lane(int g) { return (g + 31) / 32; }
int chunk_of(int g) { return std::min(slots_per_lane(g), kSlotsPerLaneChunk); }

}  // namespace

// Warp 0, once thread 0 has passed the barrier: the stats (max, sum) pairs of every program into
// tj_group_result: M, the max of the maxes (lane-strided, then a shuffle tree; every lane ends with
// it), then S, the sum of sum * expf(max - M) the same way. Up to 16 slots a lane are loaded once
// and kept for both; larger groups load each chunk twice.
void Emitter::group_combine_stats() {
  const int g = group_size_, per_lane = slots_per_lane(g), chunk = chunk_of(g);
  const bool chunked = per_lane > chunk;
  auto load_chunk = [&](const std::string& first) {
    line(fmt::format("float2 tj_v[{}];", chunk));
    line("#pragma unroll");
    line(fmt::format("for (int tj_k = 0; tj_k < {}; ++tj_k) {{", chunk));
    line(fmt::format("  const int tj_r = threadIdx.x + 32 * ({} + tj_k);", first));
    line(
        fmt::format("  tj_v[tj_k] = tj_r < {} ? tj_group_get2(tj_slots + 2 * tj_r) : "
                    "make_float2(__int_as_float(0xff800000), 0.0f);",
                    g));
    line("}");
  };
  auto over_chunks = [&](const std::function<void()>& body) {
    if (!chunked) {
      body();
      return;
    }
    line("#pragma unroll 1  // unrolled, NVRTC hoists every chunk's loads: 209 registers for 528 programs");
    open(fmt::format("for (int tj_c = 0; tj_c < {}; tj_c += {})", per_lane, chunk));
    load_chunk("tj_c");
    body();
    close();
  };
  open("if (threadIdx.x < 32)");
  line("__syncwarp();  // lane 0 is through the barrier: the slots are all written");
  open("");
  if (!chunked) load_chunk("0");
  line("float tj_max_part = __int_as_float(0xff800000), tj_sum_part = 0;");
  over_chunks([&] {
    line("#pragma unroll");
    line(fmt::format("for (int tj_k = 0; tj_k < {}; ++tj_k) tj_max_part = tj_max(tj_max_part, tj_v[tj_k].x);", chunk));
  });
  line("#pragma unroll");
  line(
      "for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_max_part = tj_max(tj_max_part, __shfl_xor_sync(0xffffffffu, "
      "tj_max_part, tj_d));");
  over_chunks([&] {
    line("#pragma unroll");
    line(fmt::format("for (int tj_k = 0; tj_k < {}; ++tj_k)", chunk));
    line(
        fmt::format("  if (threadIdx.x + 32 * ({} + tj_k) < {}) tj_sum_part += tj_v[tj_k].y * expf(tj_v[tj_k].x - "
                    "tj_max_part);",
                    chunked ? "tj_c" : "0", g));
  });
  line("#pragma unroll");
  line("for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_sum_part += __shfl_xor_sync(0xffffffffu, tj_sum_part, tj_d);");
  line("if (threadIdx.x == 0) reinterpret_cast<float2*>(tj_group_result)[0] = make_float2(tj_max_part, tj_sum_part);");
  close();
  close();
  line("__syncthreads();");
}

// softmax_stats: each slot holds a program's (max, sum). Whole, or split into start (publish and
// arrive; the result is the set, the ticket) and finish (wait and combine).
void Emitter::group_softmax_stats_op(const ir::Op& op) {
  const int g = group_size_;
  const ir::ExchangePhase phase = op.attrs.phase;
  const std::size_t workspace = phase == ir::ExchangePhase::finish ? 1 : 2;
  const char* what = phase == ir::ExchangePhase::whole ? "" : phase == ir::ExchangePhase::start ? "_start" : "_finish";
  std::string set = "tj_group_turn & 3u";
  if (phase == ir::ExchangePhase::start) {
    line(fmt::format("int const {} = (int)(tj_group_turn & 3u);  // the ticket: the set it uses",
                     scalar(op.results[0])));
    set = scalar(op.results[0]);
  } else if (phase == ir::ExchangePhase::finish) {
    set = scalar(op.operands[0]);
  }
  std::string max_acc, sum_acc;
  if (phase != ir::ExchangePhase::start) {
    max_acc = fresh(value_name(op.results[0]) + "_acc");
    sum_acc = fresh(value_name(op.results[1]) + "_acc");
    line(fmt::format("float {}, {};", max_acc, sum_acc));
  }
  line(fmt::format("// group_softmax_stats{} over {} programs, through the workspace", what, g));
  open("");
  group_exchange_scope(op.operands[workspace], set, "float");
  if (phase == ir::ExchangePhase::whole) line("__syncthreads();  // this block is done with the last result");
  if (phase != ir::ExchangePhase::finish) {
    open("if (threadIdx.x == 0)");
    line(fmt::format("tj_group_put2(tj_slots + 2 * tj_group_rank, {}, {});", scalar(op.operands[0]),
                     scalar(op.operands[1])));
    if (phase == ir::ExchangePhase::whole)
      line(fmt::format("tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, {}u, tj_group_rank));", g));
    else line(fmt::format("tj_group_seen[{}] = tj_group_arrive(tj_barrier, {}u, tj_group_rank);", set, g));
    close();
    line("tj_group_turn += 1;");
  } else {
    line("__syncthreads();  // this block is done with the last result");
    line(fmt::format("if (threadIdx.x == 0) tj_group_wait(tj_barrier, tj_group_seen[{}]);", set));
  }
  if (phase != ir::ExchangePhase::start) {
    group_combine_stats();
    line(fmt::format("{} = reinterpret_cast<const float2*>(tj_group_result)[0].x;", max_acc));
    line(fmt::format("{} = reinterpret_cast<const float2*>(tj_group_result)[0].y;", sum_acc));
  }
  close();
  if (phase == ir::ExchangePhase::start) return;
  line(fmt::format("float const {} = {};", scalar(op.results[0]), max_acc));
  line(fmt::format("float const {} = {};", scalar(op.results[1]), sum_acc));
}

void Emitter::group_reduce_op(const ir::Op& op) {
  if (op.attrs.phase == ir::ExchangePhase::whole && exchange_of_one(op, group_size_)) return;
  if (op.attrs.reduce == ir::ReduceKind::softmax_stats) return group_softmax_stats_op(op);
  ir::ValueId src = op.operands[0], res = op.results[0];
  DType t = type(src).elem;
  std::string acc_t = compute_type(t);
  std::string out_t = storage_type(res);
  const int g = group_size_, per_lane = slots_per_lane(g), chunk = chunk_of(g);
  const std::string none = identity(op.attrs.reduce, acc_t);
  std::string acc = fresh(value_name(res) + "_acc");
  line(fmt::format("{} {};", acc_t, acc));
  line(fmt::format("// group_{} over {} programs, through the workspace", ir::reduce_name(op.attrs.reduce), g));
  open("");
  group_exchange_scope(op.operands[1], "tj_group_turn & 3u", acc_t);
  line("__syncthreads();  // this block is done with the last result");
  open("if (threadIdx.x == 0)");
  line(fmt::format("tj_slots[tj_group_rank] = {};", to_compute(t, scalar(src))));
  line(fmt::format("tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, {}u, tj_group_rank));", g));
  close();
  line("tj_group_turn += 1;");
  open("if (threadIdx.x < 32)");
  line("__syncwarp();  // lane 0 is through the barrier: the slots are all written");
  line(fmt::format("{} tj_part = {};", acc_t, none));
  line("#pragma unroll 1  // one chunk's loads in flight at a time (see group_combine_stats)");
  open(fmt::format("for (int tj_c = 0; tj_c < {}; tj_c += {})", per_lane, chunk));
  line(fmt::format("{} tj_v[{}];", acc_t, chunk));
  line("#pragma unroll");
  line(fmt::format("for (int tj_k = 0; tj_k < {}; ++tj_k) {{", chunk));
  line("  const int tj_r = threadIdx.x + 32 * (tj_c + tj_k);");
  line(fmt::format("  tj_v[tj_k] = tj_r < {} ? tj_slots[tj_r] : {};", g, none));
  line("}");
  line("#pragma unroll");
  line(fmt::format("for (int tj_k = 0; tj_k < {}; ++tj_k) tj_part = {};", chunk,
                   reduce_combine(op.attrs.reduce, "tj_part", "tj_v[tj_k]")));
  close();
  line("#pragma unroll");
  line(fmt::format("for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_part = {};",
                   reduce_combine(op.attrs.reduce, "tj_part", "__shfl_xor_sync(0xffffffffu, tj_part, tj_d)")));
  line(fmt::format("if (threadIdx.x == 0) *reinterpret_cast<{}*>(tj_group_result) = tj_part;", acc_t));
  close();
  line("__syncthreads();");
  line(fmt::format("{} = *reinterpret_cast<const {}*>(tj_group_result);", acc, acc_t));
  close();
  line(fmt::format("{} const {} = {};", out_t, scalar(res), from_compute(t, acc)));
}

}  // namespace tilejit::codegen::cuda
