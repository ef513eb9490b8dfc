// Reductions across a group of programs through global memory (tl::group_*), for groups larger
// than a thread-block cluster or GPUs without clusters. The launch is cooperative, so every
// program of a group is resident and a spinning wait cannot starve the others.
//
// Each group owns group_workspace_stride(G) bytes of the workspace: four barriers (128 bytes
// each: a counter at byte 0, a generation at byte 64) and, from byte 512, four sets of G 8-byte
// slots. Exchange n of a program uses barrier and set n mod 4. An exchange: thread 0 writes the
// block's value into slot <rank> of the set and arrives at the set's barrier (start); later it
// waits there, then warp 0 (its lanes wait for lane 0 at a __syncwarp) combines the slots in a
// fixed order (lane l takes slots l, l + 32, ... then a shuffle tree), so every program gets the
// same bits (finish). A whole exchange does both at once; a split one (tl::group_softmax_stats_
// start / _finish) lets the program work in between, with at most two open. Four sets make that
// safe: a program starts exchange n + 4 only after finishing n + 2, which needed every program
// to start n + 2, which each did after finishing n. The barriers reset themselves (the last
// arrival zeroes the counter before it advances the generation), so the counters are zero again
// when the launch ends and the next launch with the same group size needs no memset (another
// size puts its counters elsewhere).
#include <fmt/format.h>

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
  // Release / acquire at GPU scope instead of full fences: the arrival releases this block's slot
  // (and orders the generation's read before it), the wait acquires every other block's.
  return R"(
// One of a group's barriers (tl::group_*), run by one thread per block. Arriving returns the
// generation before this block arrived; the last arrival resets the counter, then advances it.
__device__ __forceinline__ unsigned tj_group_arrive(unsigned char* barrier, unsigned size) {
  unsigned* count = reinterpret_cast<unsigned*>(barrier);
  unsigned* generation = reinterpret_cast<unsigned*>(barrier + 64);
  unsigned seen, arrived;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(generation) : "memory");
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(arrived) : "l"(count) : "memory");
  if (arrived == size - 1u) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(count) : "memory");
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(generation) : "memory");
  }
  return seen;
}
// Waits until the generation has moved past `seen`: the whole group has arrived.
__device__ __forceinline__ void tj_group_wait(unsigned char* barrier, unsigned seen) {
  unsigned* generation = reinterpret_cast<unsigned*>(barrier + 64);
  unsigned now;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(generation) : "memory");
  } while (now == seen);
}
)";
}

std::string Emitter::group_prologue() const {
  if (!group_workspace_) return "";
  return fmt::format(
      "  __shared__ __align__(8) unsigned char tj_group_result[8];  // the exchange's result, for every warp\n"
      "  __shared__ unsigned tj_group_seen[4];  // thread 0: each barrier's generation when this block last arrived\n"
      "  unsigned tj_group_turn = 0;  // exchanges started: the next one uses set tj_group_turn % 4\n"
      "  const unsigned tj_group_rank = blockIdx.x % {}u;\n",
      group_size_);
}

// The top of an exchange's scope: the group's part of the workspace (tj_group), the barrier and
// slot set `set` (an expression, 0..3), as `slot_t`.
void Emitter::group_exchange_scope(ir::ValueId workspace, const std::string& set, const std::string& slot_t) {
  line(fmt::format("unsigned char* tj_group = (unsigned char*)({}) + (unsigned long long)(blockIdx.x / {}u) * {}ull;",
                   scalar(workspace), group_size_, group_workspace_stride(group_size_)));
  line(fmt::format("unsigned char* tj_barrier = tj_group + ({}) * 128;", set));
  line(fmt::format("volatile {}* tj_slots = reinterpret_cast<volatile {}*>(tj_group + 512 + ({}) * {});", slot_t,
                   slot_t, set, group_size_ * 8));
}

// Warp 0, once thread 0 has passed the barrier: the stats (max, sum) pairs of every program into
// tj_group_result, M with a lane-strided max and a shuffle tree (every lane ends with it), then S
// the same way from sum * expf(max - M).
void Emitter::group_combine_stats() {
  const int g = group_size_;
  open("if (threadIdx.x < 32)");
  line("__syncwarp();  // lane 0 is through the barrier: the slots are all written");
  line("float tj_max_part = __int_as_float(0xff800000), tj_sum_part = 0;");
  line(
      fmt::format("for (int tj_r = threadIdx.x; tj_r < {}; tj_r += 32) tj_max_part = tj_max(tj_max_part, "
                  "tj_slots[2 * tj_r]);",
                  g));
  line("#pragma unroll");
  line(
      "for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_max_part = tj_max(tj_max_part, __shfl_xor_sync(0xffffffffu, "
      "tj_max_part, tj_d));");
  line(
      fmt::format("for (int tj_r = threadIdx.x; tj_r < {}; tj_r += 32) tj_sum_part += tj_slots[2 * tj_r + 1] * "
                  "expf(tj_slots[2 * tj_r] - tj_max_part);",
                  g));
  line("#pragma unroll");
  line("for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_sum_part += __shfl_xor_sync(0xffffffffu, tj_sum_part, tj_d);");
  line("if (threadIdx.x == 0) reinterpret_cast<float2*>(tj_group_result)[0] = make_float2(tj_max_part, tj_sum_part);");
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
    line(fmt::format("tj_slots[2 * tj_group_rank] = {};", scalar(op.operands[0])));
    line(fmt::format("tj_slots[2 * tj_group_rank + 1] = {};", scalar(op.operands[1])));
    if (phase == ir::ExchangePhase::whole)
      line(fmt::format("tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, {}u));", g));
    else line(fmt::format("tj_group_seen[{}] = tj_group_arrive(tj_barrier, {}u);", set, g));
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
  const int g = group_size_;
  std::string acc = fresh(value_name(res) + "_acc");
  line(fmt::format("{} {};", acc_t, acc));
  line(fmt::format("// group_{} over {} programs, through the workspace", ir::reduce_name(op.attrs.reduce), g));
  open("");
  group_exchange_scope(op.operands[1], "tj_group_turn & 3u", acc_t);
  line("__syncthreads();  // this block is done with the last result");
  open("if (threadIdx.x == 0)");
  line(fmt::format("tj_slots[tj_group_rank] = {};", to_compute(t, scalar(src))));
  line(fmt::format("tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, {}u));", g));
  close();
  line("tj_group_turn += 1;");
  open("if (threadIdx.x < 32)");
  line("__syncwarp();  // lane 0 is through the barrier: the slots are all written");
  line(fmt::format("{} tj_part = {};", acc_t, identity(op.attrs.reduce, acc_t)));
  line(fmt::format("for (int tj_r = threadIdx.x; tj_r < {}; tj_r += 32) tj_part = {};", g,
                   reduce_combine(op.attrs.reduce, "tj_part", "tj_slots[tj_r]")));
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
