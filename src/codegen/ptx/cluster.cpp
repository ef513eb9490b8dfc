// Reductions across a thread-block cluster (sm_90), as the CUDA C generator does them
// (codegen/cuda/cluster.cpp): thread 0 stores the block's value into slot <rank> of every
// block's shared memory (mapa + st.shared::cluster), one cluster barrier (release / acquire)
// publishes the stores, and every thread combines the slots in rank order. Two slot sets are
// used in turn (tj_cluster_slots, %turn & 1) so no second barrier is needed after the reads.
#include <fmt/format.h>

#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

constexpr int kSlotBytes = 8;  // the widest compute type

}  // namespace

std::string Emitter::cluster_declarations() const {
  if (cluster_size_ <= 1) return "";
  return fmt::format(".shared .align 8 .b8 tj_cluster_slots[{}];\n\n", 2 * cluster_size_ * kSlotBytes);
}

std::string Emitter::cluster_directive() const {
  return cluster_size_ > 1 ? fmt::format(".reqnctapercluster {}, 1, 1\n", cluster_size_) : "";
}

void Emitter::cluster_prologue() {
  if (cluster_size_ <= 1) return;
  Code::Prologue in_prologue(code_);
  cluster_.rank = code_.imm(RegClass::b32, "%cluster_ctarank");
  cluster_.turn = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.b32 {}, 0", cluster_.turn));
  cluster_.slots = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.u32 {}, tj_cluster_slots", cluster_.slots));
  std::string tid = code_.imm(RegClass::b32, "%tid.x");
  cluster_.writer = code_.reg(RegClass::pred);
  code_.ins(fmt::format("setp.eq.u32 {}, {}, 0", cluster_.writer, tid));
  // Every block of the cluster has started before any stores into another's shared memory.
  code_.ins("barrier.cluster.arrive.relaxed.aligned");
  code_.ins("barrier.cluster.wait.aligned");
}

void Emitter::cluster_reduce_op(const ir::Op& op) {
  ir::ValueId src = op.operands[0], res = op.results[0];
  const DType t = type(src).elem;
  if (cluster_size_ <= 1) {  // a cluster of one: the value itself
    scalars_[res] = scalar(src);
    return;
  }
  const DType acc_t = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  const int bytes = static_cast<int>(dtype_size(acc_t));
  const char* width = bytes == 8 ? "b64" : "b32";
  const std::string mine = to_compute(t, scalar(src));
  // This reduction's slot set, and this block's slot in it.
  std::string parity = code_.reg(RegClass::b32), set = code_.reg(RegClass::b32), slot = code_.reg(RegClass::b32);
  code_.ins(fmt::format("and.b32 {}, {}, 1", parity, cluster_.turn));
  code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", set, parity, cluster_size_ * kSlotBytes, cluster_.slots));
  code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", slot, cluster_.rank, bytes, set));
  for (int r = 0; r < cluster_size_; ++r) {
    std::string remote = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mapa.shared::cluster.u32 {}, {}, {}", remote, slot, r));
    code_.ins(fmt::format("@{} st.shared::cluster.{} [{}], {}", cluster_.writer, width, remote, mine));
  }
  code_.ins("barrier.cluster.arrive.release.aligned");
  code_.ins("barrier.cluster.wait.acquire.aligned");
  std::string acc;
  for (int r = 0; r < cluster_size_; ++r) {
    std::string v = code_.reg(compute_class(t));
    code_.ins(fmt::format("ld.shared.{} {}, [{}+{}]", width, v, set, r * bytes));
    acc = r == 0 ? v : binary(reduce_combine_op(op.attrs.reduce), acc_t, acc, v);
  }
  code_.ins(fmt::format("xor.b32 {}, {}, 1", cluster_.turn, cluster_.turn));
  scalars_[res] = from_compute(t, acc);
}

}  // namespace tilejit::codegen::ptx
