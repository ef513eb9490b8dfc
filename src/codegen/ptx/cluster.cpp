// Reductions across a thread-block cluster (sm_90), as the CUDA C generator does them
// (codegen/cuda/cluster.cpp): thread 0 stores the block's value into slot <rank> of every
// block's shared memory (mapa + st.shared::cluster), one cluster barrier (release / acquire)
// publishes the stores, and every thread combines the slots in rank order. Two slot sets are
// used in turn (tj_cluster_slots) so no second barrier is needed after the reads. When every
// loop runs an even number of cluster reductions per step, each reduction's set is known while
// generating (NVVM folds the CUDA C generator's turn variable the same way): the slots are
// constant addresses, read as vectors.
#include <fmt/format.h>

#include "codegen/ptx/emitter.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

constexpr int kSlotBytes = 8;  // the widest compute type

}  // namespace

std::string Emitter::cluster_declarations() const {
  if (cluster_size_ <= 1) return "";
  return fmt::format(".shared .align 16 .b8 tj_cluster_slots[{}];\n\n", 2 * cluster_size_ * kSlotBytes);
}

// .explicitcluster as NVVM writes for __cluster_dims__: without it ptxas also assembles a path
// for a launch without clusters (12 more branches and 3 more barriers in the f32 cluster kernel).
std::string Emitter::cluster_directive() const {
  return cluster_size_ > 1 ? fmt::format(".explicitcluster\n.reqnctapercluster {}, 1, 1\n", cluster_size_) : "";
}

void Emitter::cluster_prologue() {
  if (cluster_size_ <= 1) return;
  cluster_.static_turn = true;
  for_each_op(f_.body, [&](const ir::Op& loop) {
    if (loop.kind != ir::OpKind::for_range) return;
    int n = 0;
    for_each_op(loop.regions[0], [&](const ir::Op& o) { n += o.kind == ir::OpKind::cluster_reduce; });
    if (n % 2 != 0) cluster_.static_turn = false;
  });
  Code::Prologue in_prologue(code_);
  cluster_.rank = code_.imm(RegClass::b32, "%cluster_ctarank");
  if (!cluster_.static_turn) {
    cluster_.turn = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mov.b32 {}, 0", cluster_.turn));
  }
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
  // This reduction's slot set (at set + set_offset) and this block's slot in it.
  std::string set, slot;
  int set_offset = 0;
  if (cluster_.static_turn) {
    set_offset = cluster_.emitted++ % 2 * cluster_size_ * kSlotBytes;
    set = "tj_cluster_slots";
    slot = hoisted(fmt::format("cluster_slot:{}:{}", set_offset, bytes), [&] {
      std::string r = code_.reg(RegClass::b32);
      code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", r, cluster_.rank, bytes, cluster_.slots));
      if (set_offset == 0) return r;
      std::string moved = code_.reg(RegClass::b32);
      code_.ins(fmt::format("add.u32 {}, {}, {}", moved, r, set_offset));
      return moved;
    });
  } else {
    std::string parity = code_.reg(RegClass::b32);
    set = code_.reg(RegClass::b32);
    slot = code_.reg(RegClass::b32);
    code_.ins(fmt::format("and.b32 {}, {}, 1", parity, cluster_.turn));
    code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", set, parity, cluster_size_ * kSlotBytes, cluster_.slots));
    code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", slot, cluster_.rank, bytes, set));
  }
  // The writer's stores sit behind a branch of their own. Predicated instead, each one made
  // ptxas build a generic address from the shared window (an S2R and a PRMT per store: 16 S2R
  // per step of the f32 cluster kernel, and 6 more registers). Not free everywhere: in the
  // built-in table's bf16 configuration (BLOCK 8192, 16 warps, 1 stage, clusters of 8) this
  // branch or .explicitcluster alone takes ptxas from 32 to 40 registers, both together to 38
  // (NVRTC's kernel: 38), so 3 blocks per SM instead of 4; its .text is 9728 -> 8832 bytes.
  std::string skip = code_.label();
  code_.ins(fmt::format("@!{} bra {}", cluster_.writer, skip));
  const std::string mine = to_compute(t, scalar(src));
  for (int r = 0; r < cluster_size_; ++r) {
    std::string remote = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mapa.shared::cluster.u32 {}, {}, {}", remote, slot, r));
    code_.ins(fmt::format("st.shared::cluster.{} [{}], {}", width, remote, mine));
  }
  code_.place(skip);
  code_.ins("barrier.cluster.arrive.release.aligned");
  code_.ins("barrier.cluster.wait.acquire.aligned");
  // The slots, up to 16 bytes per load (a set starts 16-byte aligned when the cluster size is
  // even), combined in rank order.
  const int set_align = cluster_size_ % 2 == 0 ? 16 : kSlotBytes;
  std::vector<std::string> values;
  for (int r = 0; r < cluster_size_;) {
    int n = 16 / bytes;
    while (n > 1 && (r + n > cluster_size_ || (r * bytes) % (n * bytes) != 0 || n * bytes > set_align)) n /= 2;
    std::vector<std::string> regs;
    for (int k = 0; k < n; ++k) regs.push_back(code_.reg(compute_class(t)));
    code_.ins(fmt::format("ld.shared{}.{} {}, [{}+{}]", n == 1 ? "" : fmt::format(".v{}", n), width,
                          n == 1 ? regs[0] : fmt::format("{{{}}}", fmt::join(regs, ", ")), set,
                          set_offset + r * bytes));
    values.insert(values.end(), regs.begin(), regs.end());
    r += n;
  }
  std::string acc = values[0];
  for (int r = 1; r < cluster_size_; ++r)
    acc = binary(reduce_combine_op(op.attrs.reduce), acc_t, acc, values[static_cast<std::size_t>(r)]);
  if (!cluster_.static_turn) code_.ins(fmt::format("xor.b32 {}, {}, 1", cluster_.turn, cluster_.turn));
  scalars_[res] = from_compute(t, acc);
}

}  // namespace tilejit::codegen::ptx
