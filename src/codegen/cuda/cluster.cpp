// Reductions across a thread-block cluster (sm_90): each block's thread 0 writes its scalar into
// slot <its rank> of every block's shared memory (st.shared::cluster through mapa), one cluster
// barrier (release/acquire) makes the writes visible, and every thread combines the slots in rank
// order, so all blocks get the same bits. Slots come in two sets used in turn (tj_cluster_turn):
// the next reduction writes the other set, and the one after that runs past the next
// reduction's barrier, which every block reaches only after reading this set.
#include <fmt/format.h>

#include "codegen/cuda/cuda_types.h"
#include "codegen/cuda/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::cuda {
namespace {

// The remote store of one compute-type value: PTX type and inline-asm constraint.
struct RemoteStore {
  const char* ptx_type;
  const char* constraint;
};

RemoteStore remote_store(const std::string& compute) {
  if (compute == "float") return {"f32", "f"};
  if (compute == "double") return {"f64", "d"};
  if (compute == "long long") return {"s64", "l"};
  return {"s32", "r"};
}

}  // namespace

// Slots are 8 bytes each (the widest compute type), two sets of cluster_size.
std::string Emitter::cluster_prologue() const {
  if (cluster_size_ <= 1) return "";
  return fmt::format(
      "  __shared__ __align__(8) unsigned char tj_cluster_slots[{}];\n"
      "  unsigned tj_cluster_rank, tj_cluster_turn = 0;\n"
      "  asm(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(tj_cluster_rank));\n"
      "  // Every block of the cluster has started before any writes into another's shared memory.\n"
      "  asm volatile(\"barrier.cluster.arrive.relaxed.aligned;\\n\\tbarrier.cluster.wait.aligned;\" ::: "
      "\"memory\");\n",
      2 * cluster_size_ * 8);
}

// softmax_stats: each slot holds a block's (max, sum) as a float2, stored with one remote v2
// store per rank; M is the max of the maxes, S the sum of sum * expf(max - M), both in rank order.
void Emitter::cluster_softmax_stats_op(const ir::Op& op) {
  const std::string m = scalar(op.operands[0]), s = scalar(op.operands[1]);
  const std::string row_max = scalar(op.results[0]), row_sum = scalar(op.results[1]);
  std::string max_acc = fresh(value_name(op.results[0]) + "_acc"), sum_acc = fresh(value_name(op.results[1]) + "_acc");
  line(fmt::format("float {}, {};", max_acc, sum_acc));
  line(fmt::format("// cluster_softmax_stats over {} blocks", cluster_size_));
  open("");
  line(fmt::format("float2* tj_slots = reinterpret_cast<float2*>(tj_cluster_slots + (tj_cluster_turn & 1) * {});",
                   cluster_size_ * 8));
  open("if (threadIdx.x == 0)");
  line("const unsigned tj_local = (unsigned)__cvta_generic_to_shared(tj_slots + tj_cluster_rank);");
  line("#pragma unroll");
  open(fmt::format("for (unsigned tj_r = 0; tj_r < {}; ++tj_r)", cluster_size_));
  line("unsigned tj_remote;");
  line("asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(tj_remote) : \"r\"(tj_local), \"r\"(tj_r));");
  line(
      fmt::format("asm volatile(\"st.shared::cluster.v2.f32 [%0], {{%1, %2}};\" :: \"r\"(tj_remote), \"f\"({}), "
                  "\"f\"({}) : \"memory\");",
                  m, s));
  close();
  close();
  line(
      "asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: "
      "\"memory\");");
  line(fmt::format("{} = tj_slots[0].x;", max_acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} = tj_max({}, tj_slots[tj_r].x);", cluster_size_, max_acc,
                   max_acc));
  line(fmt::format("{} = tj_slots[0].y * expf(tj_slots[0].x - {});", sum_acc, max_acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} += tj_slots[tj_r].y * expf(tj_slots[tj_r].x - {});",
                   cluster_size_, sum_acc, max_acc));
  line("tj_cluster_turn ^= 1;");
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
  line(fmt::format("{}* tj_slots = reinterpret_cast<{}*>(tj_cluster_slots + (tj_cluster_turn & 1) * {});", acc_t, acc_t,
                   cluster_size_ * 8));
  open("if (threadIdx.x == 0)");
  line(fmt::format("const {} tj_mine = {};", acc_t, to_compute(t, scalar(src))));
  line("const unsigned tj_local = (unsigned)__cvta_generic_to_shared(tj_slots + tj_cluster_rank);");
  line("#pragma unroll");
  open(fmt::format("for (unsigned tj_r = 0; tj_r < {}; ++tj_r)", cluster_size_));
  line("unsigned tj_remote;");
  line("asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(tj_remote) : \"r\"(tj_local), \"r\"(tj_r));");
  line(fmt::format(
      "asm volatile(\"st.shared::cluster.{} [%0], %1;\" :: \"r\"(tj_remote), \"{}\"(tj_mine) : \"memory\");",
      st.ptx_type, st.constraint));
  close();
  close();
  line(
      "asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: "
      "\"memory\");");
  line(fmt::format("{} = tj_slots[0];", acc));
  line("#pragma unroll");
  line(fmt::format("for (int tj_r = 1; tj_r < {}; ++tj_r) {} = {};", cluster_size_, acc,
                   reduce_combine(op.attrs.reduce, acc, "tj_slots[tj_r]")));
  line("tj_cluster_turn ^= 1;");
  close();
  line(fmt::format("{} const {} = {};", out_t, scalar(res), from_compute(t, acc)));
}

}  // namespace tilejit::codegen::cuda
