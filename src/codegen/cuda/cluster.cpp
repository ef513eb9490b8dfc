// Reductions across a thread-block cluster (sm_90). Each block's thread 0 sends its scalar into
// slot <its rank> of every block's shared memory with st.async, which counts the bytes on the
// receiving block's mbarrier for that slot set; each block waits on its own mbarrier until all
// cluster_size slots have landed, then every thread combines them in rank order, so all blocks get
// the same bits. No cluster barrier and no fence: a release fence would wait for every store the
// thread has in flight (the previous row's output), which ncu showed as the largest stall of the
// bf16 cluster kernel after memory latency.
//
// Slots come in two sets used in turn (tj_cluster_turn), each with its mbarrier (one arrival,
// thread 0's, which also announces the bytes to expect; use n of a set waits for parity n & 1).
// A block sends round n + 2 into a set only after its round n + 1 wait, which needed every
// block's round n + 1 send; each block sends only after a __syncthreads that follows its own
// reads of round n, and st.async releases at cluster scope, so those reads are done.
#include <fmt/format.h>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

// The st.async of one compute-type value: PTX type, inline-asm constraint, bytes.
struct RemoteStore {
  const char* ptx_type;
  const char* constraint;
  int bytes;
};

RemoteStore remote_store(const std::string& compute) {
  if (compute == "float") return {"f32", "f", 4};
  if (compute == "double") return {"f64", "d", 8};
  if (compute == "long long") return {"s64", "l", 8};
  return {"s32", "r", 4};
}

}  // namespace

// Slots are 8 bytes each (the widest compute type), two sets of cluster_size, and an mbarrier per
// set, initialized before the cluster's first barrier so no block can send to one not yet set up.
std::string Emitter::cluster_prologue() const {
  if (cluster_size_ <= 1) return "";
  return fmt::format(
      "  __shared__ __align__(8) unsigned char tj_cluster_slots[{}];\n"
      "  __shared__ __align__(8) unsigned long long tj_cluster_full[2];  // per set: all slots of a round landed\n"
      "  unsigned tj_cluster_rank, tj_cluster_turn = 0;\n"
      "  asm(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(tj_cluster_rank));\n"
      "  if (threadIdx.x == 0) {{\n"
      "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: "
      "\"r\"((unsigned)__cvta_generic_to_shared(&tj_cluster_full[0])) : \"memory\");\n"
      "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: "
      "\"r\"((unsigned)__cvta_generic_to_shared(&tj_cluster_full[1])) : \"memory\");\n"
      "    asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
      "  }}\n"
      "  // Every block of the cluster has started, its mbarriers ready, before any sends into it.\n"
      "  asm volatile(\"barrier.cluster.arrive.relaxed.aligned;\\n\\tbarrier.cluster.wait.aligned;\" ::: "
      "\"memory\");\n",
      2 * cluster_size_ * 8);
}

// The start of one round: the set's slots as `slot_t`, then thread 0 arms this block's mbarrier
// for cluster_size values of `bytes` and sends `values` (inline-asm constraint and expression,
// one, or two for a v2 `send`) to every block; then every thread waits for its block's slots.
void Emitter::cluster_round_send(const std::string& slot_t, int bytes, const std::string& send,
                                 const std::vector<std::pair<std::string, std::string>>& values) {
  line(fmt::format("{0}* tj_slots = reinterpret_cast<{0}*>(tj_cluster_slots + (tj_cluster_turn & 1) * {1});", slot_t,
                   cluster_size_ * 8));
  line("const unsigned tj_full = (unsigned)__cvta_generic_to_shared(&tj_cluster_full[tj_cluster_turn & 1]);");
  line("__syncthreads();  // this block is done reading the set's last round (see the top of cluster.cpp)");
  open("if (threadIdx.x == 0)");
  line(fmt::format(
      "asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], {};\" :: \"r\"(tj_full) : \"memory\");",
      cluster_size_ * bytes));
  line("const unsigned tj_local = (unsigned)__cvta_generic_to_shared(tj_slots + tj_cluster_rank);");
  line("#pragma unroll");
  open(fmt::format("for (unsigned tj_r = 0; tj_r < {}; ++tj_r)", cluster_size_));
  line("unsigned tj_remote, tj_remote_full;");
  line("asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(tj_remote) : \"r\"(tj_local), \"r\"(tj_r));");
  line(
      "asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(tj_remote_full) : \"r\"(tj_full), "
      "\"r\"(tj_r));");
  std::string value_template, operands;
  for (std::size_t i = 0; i < values.size(); ++i) {
    value_template += fmt::format("{}%{}", i ? ", " : "", i + 1);
    operands += fmt::format(", \"{}\"({})", values[i].first, values[i].second);
  }
  if (values.size() > 1) value_template = "{" + value_template + "}";
  line(fmt::format("asm volatile(\"{} [%0], {}, [%{}];\" :: \"r\"(tj_remote){}, \"r\"(tj_remote_full) : \"memory\");",
                   send, value_template, values.size() + 1, operands));
  close();
  close();
  line("unsigned tj_landed;  // every thread waits for its own block's slots of this round");
  open("do");
  line(
      "asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 "
      "%0, 1, 0, p; }\" : \"=r\"(tj_landed) : \"r\"(tj_full), \"r\"((tj_cluster_turn >> 1) & 1) : \"memory\");");
  close();
  line("while (!tj_landed);");
}

// softmax_stats: each slot holds a block's (max, sum) as a float2, sent as one v2 st.async per
// rank; M is the max of the maxes, S the sum of sum * expf(max - M), both in rank order.
void Emitter::cluster_softmax_stats_op(const ir::Op& op) {
  const std::string m = scalar(op.operands[0]), s = scalar(op.operands[1]);
  const std::string row_max = scalar(op.results[0]), row_sum = scalar(op.results[1]);
  std::string max_acc = fresh(value_name(op.results[0]) + "_acc"), sum_acc = fresh(value_name(op.results[1]) + "_acc");
  line(fmt::format("float {}, {};", max_acc, sum_acc));
  line(fmt::format("// cluster_softmax_stats over {} blocks", cluster_size_));
  open("");
  cluster_round_send("float2", 8, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32", {{"f", m}, {"f", s}});
  line(fmt::format("{} = tj_slots[0].x;", max_acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} = tj_max({}, tj_slots[tj_r].x);", cluster_size_, max_acc,
                   max_acc));
  line(fmt::format("{} = tj_slots[0].y * expf(tj_slots[0].x - {});", sum_acc, max_acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} += tj_slots[tj_r].y * expf(tj_slots[tj_r].x - {});",
                   cluster_size_, sum_acc, max_acc));
  line("tj_cluster_turn += 1;");
  close();
  line(fmt::format("float const {} = {};", row_max, max_acc));
  line(fmt::format("float const {} = {};", row_sum, sum_acc));
}
// A cluster or group of one program: its own value, or its own pair (NaN for an all -inf row,
// as with more programs). Returns false for larger sets.
bool Emitter::exchange_of_one(const ir::Op& op, int programs) {
  if (programs > 1) return false;
  if (op.attrs.reduce == ir::ReduceKind::softmax_stats) {
    const std::string m = scalar(op.operands[0]), s = scalar(op.operands[1]);
    line(fmt::format("float const {} = {};", scalar(op.results[0]), m));
    line(fmt::format("float const {} = {} * expf({} - {});", scalar(op.results[1]), s, m, m));
  } else {
    line(fmt::format("{} const {} = {};", storage_type(op.results[0]), scalar(op.results[0]), scalar(op.operands[0])));
  }
  return true;
}

void Emitter::cluster_reduce_op(const ir::Op& op) {
  if (exchange_of_one(op, cluster_size_)) return;
  if (op.attrs.reduce == ir::ReduceKind::softmax_stats) return cluster_softmax_stats_op(op);
  ir::ValueId src = op.operands[0], res = op.results[0];
  DType t = type(src).elem;
  std::string acc_t = compute_type(t);
  std::string out_t = storage_type(res);
  RemoteStore st = remote_store(acc_t);
  std::string acc = fresh(value_name(res) + "_acc");
  line(fmt::format("{} {};", acc_t, acc));
  line(fmt::format("// cluster_{} over {} blocks", ir::reduce_name(op.attrs.reduce), cluster_size_));
  open("");
  line(fmt::format("const {} tj_mine = {};", acc_t, to_compute(t, scalar(src))));
  cluster_round_send(acc_t, st.bytes,
                     fmt::format("st.async.shared::cluster.mbarrier::complete_tx::bytes.{}", st.ptx_type),
                     {{st.constraint, "tj_mine"}});
  line(fmt::format("{} = tj_slots[0];", acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} = {};", cluster_size_, acc,
                   reduce_combine(op.attrs.reduce, acc, "tj_slots[tj_r]")));
  line("tj_cluster_turn += 1;");
  close();
  line(fmt::format("{} const {} = {};", out_t, scalar(res), from_compute(t, acc)));
}

}  // namespace tilejit::codegen::cuda
