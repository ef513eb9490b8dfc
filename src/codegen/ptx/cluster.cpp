// Reductions across a thread-block cluster (sm_90), as the CUDA C generator does them
// (codegen/cuda/cluster.cpp, which says why they are safe): thread 0 sends the block's value into
// slot <rank> of every block's shared memory with st.async, counted on the receiving block's
// mbarrier for the slot set (tj_cluster_full), every thread waits on its own block's mbarrier,
// then combines the slots in rank order. No cluster barrier and no fence, which would wait for the
// block's stores in flight. Two slot sets are used in turn (tj_cluster_slots); a __syncthreads
// before each send keeps a set from being written while this block still reads it. When every
// loop runs an even number of cluster reductions per step, each reduction's set is known while
// generating (NVVM folds the CUDA C generator's turn variable the same way): the slots are
// constant addresses, read as vectors. The mbarrier phase to wait for is counted at run time.
#include <fmt/format.h>

#include "codegen/ptx/emitter.h"
#include "codegen/ptx/math.h"
#include "tilejit/error.h"

namespace tilejit::codegen::ptx {
namespace {

constexpr int kSlotBytes = 8;  // the widest compute type

}  // namespace

std::string Emitter::cluster_declarations() const {
  if (cluster_size_ <= 1) return "";
  return fmt::format(".shared .align 16 .b8 tj_cluster_slots[{}];\n.shared .align 8 .b64 tj_cluster_full[2];\n\n",
                     2 * cluster_size_ * kSlotBytes);
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
  cluster_.full = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.u32 {}, tj_cluster_full", cluster_.full));
  cluster_.rounds = code_.reg(RegClass::b32);
  code_.ins(fmt::format("mov.b32 {}, 0", cluster_.rounds));
  code_.ins(fmt::format("@{} mbarrier.init.shared::cta.b64 [{}], 1", cluster_.writer, cluster_.full));
  code_.ins(fmt::format("@{} mbarrier.init.shared::cta.b64 [{}+8], 1", cluster_.writer, cluster_.full));
  code_.ins(fmt::format("@{} fence.mbarrier_init.release.cluster", cluster_.writer));
  // Every block of the cluster has started, its mbarriers ready, before any sends into it.
  code_.ins("barrier.cluster.arrive.relaxed.aligned");
  code_.ins("barrier.cluster.wait.aligned");
}

// A cluster or group of one program: its own value, or its own pair (NaN for an all -inf row,
// as with more programs). Returns false for larger sets.
bool Emitter::exchange_of_one(const ir::Op& op, int programs) {
  if (programs > 1) return false;
  if (op.attrs.reduce != ir::ReduceKind::softmax_stats) {
    scalars_[op.results[0]] = scalar(op.operands[0]);
    return true;
  }
  const std::string m = scalar(op.operands[0]), s = scalar(op.operands[1]);
  scalars_[op.results[0]] = m;
  scalars_[op.results[1]] =
      binary(ir::OpKind::mul, DType::f32, s, exp_f32(code_, binary(ir::OpKind::sub, DType::f32, m, m)));
  return true;
}

void Emitter::cluster_reduce_op(const ir::Op& op) {
  if (exchange_of_one(op, cluster_size_)) return;
  if (op.attrs.reduce == ir::ReduceKind::softmax_stats) return cluster_softmax_stats_op(op);
  ir::ValueId src = op.operands[0], res = op.results[0];
  const DType t = type(src).elem;
  const DType acc_t = t == DType::f16 || t == DType::bf16 ? DType::f32 : t;
  const std::vector<std::string> values = cluster_exchange({to_compute(t, scalar(src))}, acc_t);
  std::string acc = values[0];
  for (int r = 1; r < cluster_size_; ++r)
    acc = binary(reduce_combine_op(op.attrs.reduce), acc_t, acc, values[static_cast<std::size_t>(r)]);
  scalars_[res] = from_compute(t, acc);
}

// (M, S) from every block's (max, sum) pair, both in rank order: M the max of the maxes, S the
// sum of sum * exp(max - M) (the accurate exp: 2 ulp).
void Emitter::cluster_softmax_stats_op(const ir::Op& op) {
  const std::string m = scalar(op.operands[0]), s = scalar(op.operands[1]);
  const std::vector<std::string> pairs = cluster_exchange({m, s}, DType::f32);
  std::string row_max = pairs[0];
  for (int r = 1; r < cluster_size_; ++r)
    row_max = binary(ir::OpKind::maximum, DType::f32, row_max, pairs[static_cast<std::size_t>(2 * r)]);
  std::string row_sum;
  for (int r = 0; r < cluster_size_; ++r) {
    const auto i = static_cast<std::size_t>(2 * r);
    std::string part = binary(ir::OpKind::mul, DType::f32, pairs[i + 1],
                              exp_f32(code_, binary(ir::OpKind::sub, DType::f32, pairs[i], row_max)));
    row_sum = r == 0 ? part : binary(ir::OpKind::add, DType::f32, row_sum, part);
  }
  scalars_[op.results[0]] = row_max;
  scalars_[op.results[1]] = row_sum;
}

std::vector<std::string> Emitter::cluster_exchange(const std::vector<std::string>& mine, DType acc_t) {
  const int width_bytes = static_cast<int>(dtype_size(acc_t));
  const int bytes = width_bytes * static_cast<int>(mine.size());  // one block's entry in a set
  if (bytes > kSlotBytes) throw InternalError("PTX generation: a cluster slot holds 8 bytes");
  const char* width = width_bytes == 8 ? "b64" : "b32";
  // This reduction's slot set (at set + set_offset), this block's slot in it, and the set's mbarrier.
  std::string set, slot, full;
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
    full = hoisted(fmt::format("cluster_full:{}", set_offset), [&] {
      std::string r = code_.reg(RegClass::b32);
      code_.ins(fmt::format("add.u32 {}, {}, {}", r, cluster_.full, set_offset == 0 ? 0 : 8));
      return r;
    });
  } else {
    std::string parity = code_.reg(RegClass::b32);
    set = code_.reg(RegClass::b32);
    slot = code_.reg(RegClass::b32);
    code_.ins(fmt::format("and.b32 {}, {}, 1", parity, cluster_.turn));
    code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", set, parity, cluster_size_ * kSlotBytes, cluster_.slots));
    code_.ins(fmt::format("mad.lo.u32 {}, {}, {}, {}", slot, cluster_.rank, bytes, set));
    full = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mad.lo.u32 {}, {}, 8, {}", full, parity, cluster_.full));
  }
  code_.ins("bar.sync 0");  // this block is done reading the set's last round
  // The writer's stores sit behind a branch of their own. Predicated instead, each one made
  // ptxas build a generic address from the shared window (an S2R and a PRMT per store: 16 S2R
  // per step of the f32 cluster kernel, and 6 more registers). Not free everywhere: in the
  // built-in table's bf16 configuration (BLOCK 8192, 16 warps, 1 stage, clusters of 8) this
  // branch or .explicitcluster alone takes ptxas from 32 to 40 registers, both together to 38
  // (NVRTC's kernel: 38), so 3 blocks per SM instead of 4; its .text is 9728 -> 8832 bytes.
  std::string skip = code_.label();
  code_.ins(fmt::format("@!{} bra {}", cluster_.writer, skip));
  code_.ins(fmt::format("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{}], {}", full, cluster_size_ * bytes));
  const std::string stored =
      mine.size() == 1 ? mine[0] : fmt::format("{{{}}}", fmt::join(mine.begin(), mine.end(), ", "));
  const std::string vec = mine.size() == 1 ? "" : fmt::format(".v{}", mine.size());
  for (int r = 0; r < cluster_size_; ++r) {
    std::string remote = code_.reg(RegClass::b32), remote_full = code_.reg(RegClass::b32);
    code_.ins(fmt::format("mapa.shared::cluster.u32 {}, {}, {}", remote, slot, r));
    code_.ins(fmt::format("mapa.shared::cluster.u32 {}, {}, {}", remote_full, full, r));
    code_.ins(fmt::format("st.async.shared::cluster.mbarrier::complete_tx::bytes{}.{} [{}], {}, [{}]", vec, width,
                          remote, stored, remote_full));
  }
  code_.place(skip);
  // Use n of a set (n = rounds / 2) waits for the phase of parity n & 1.
  std::string phase = code_.reg(RegClass::b32), landed = code_.reg(RegClass::pred);
  code_.ins(fmt::format("bfe.u32 {}, {}, 1, 1", phase, cluster_.rounds));
  std::string wait = code_.label();
  code_.place(wait);
  code_.ins(fmt::format("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 {}, [{}], {}", landed, full, phase));
  code_.ins(fmt::format("@!{} bra {}", landed, wait));
  code_.ins(fmt::format("add.u32 {}, {}, 1", cluster_.rounds, cluster_.rounds));
  // The slots, up to 16 bytes per load (a set starts 16-byte aligned when the cluster size is
  // even), in rank order: every block's values, one after another.
  const int words = cluster_size_ * static_cast<int>(mine.size());
  const int set_align = cluster_size_ % 2 == 0 ? 16 : kSlotBytes;
  std::vector<std::string> values;
  for (int w = 0; w < words;) {
    int n = 16 / width_bytes;
    while (n > 1 && (w + n > words || (w * width_bytes) % (n * width_bytes) != 0 || n * width_bytes > set_align))
      n /= 2;
    std::vector<std::string> regs;
    for (int k = 0; k < n; ++k) regs.push_back(code_.reg(compute_class(acc_t)));
    code_.ins(fmt::format("ld.shared{}.{} {}, [{}+{}]", n == 1 ? "" : fmt::format(".v{}", n), width,
                          n == 1 ? regs[0] : fmt::format("{{{}}}", fmt::join(regs, ", ")), set,
                          set_offset + w * width_bytes));
    values.insert(values.end(), regs.begin(), regs.end());
    w += n;
  }
  if (!cluster_.static_turn) code_.ins(fmt::format("xor.b32 {}, {}, 1", cluster_.turn, cluster_.turn));
  return values;
}

}  // namespace tilejit::codegen::ptx
