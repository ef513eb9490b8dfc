// The PTX emitter's state and helpers. A block value in a layout is the list of registers
// holding a thread's elements (register r of the layout is element r of the list): loops over
// a thread's elements are unrolled here, so every register is named and nothing can spill to
// local memory through an indexed array. Scalars are single registers.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/cuda/layout_assignment.h"
#include "codegen/ptx/code.h"
#include "codegen/ptx/codegen.h"
#include "passes/axis_info.h"

namespace tilejit::codegen::ptx {

using cuda::Layout;
using Regs = std::vector<std::string>;

class Emitter {
 public:
  Emitter(const ir::Function& f, const PtxCodegenOptions& options);
  PtxKernelSource run();

 private:
  // ---- values ----
  const ir::Type& type(ir::ValueId v) const { return f_.type(v); }
  /// The register holding scalar `v`.
  const std::string& scalar(ir::ValueId v) const;
  /// Registers holding block value `v` in layout `l`, emitting a rematerialization or a
  /// shared-memory conversion when needed.
  Regs block(ir::ValueId v, const Layout& l);
  /// Register `r` of block `v` in layout `l`. Index values (index_only) and streamed values are
  /// built one element at a time, so an access that needs one address and one predicate per
  /// vector computes only those, and a consumer of a streamed value only what it takes; other
  /// values come from block().
  std::string element(ir::ValueId v, const Layout& l, int r);
  /// The layout a broadcast's or expand_dims' operand takes for result layout `l` (register r of
  /// one is register r of the other).
  Layout operand_layout(const ir::Op& op, const Layout& l) const;
  Layout natural_layout(ir::ValueId v) const;
  // Registers known for `v` per place: a layout's string (the whole block) or "layout#r" (one
  // element).
  void remember(ir::ValueId v, const std::string& where, const Regs& regs);
  void remember(ir::ValueId v, const Layout& l, const Regs& regs) { remember(v, layout_name(l), regs); }
  const Regs* recall(ir::ValueId v, const std::string& where) const;
  const Regs* recall(ir::ValueId v, const Layout& l) const { return recall(v, layout_name(l)); }
  /// cuda::to_string(l), kept: element-by-element emission asks for it at every element.
  const std::string& layout_name(const Layout& l) const;
  mutable std::deque<std::pair<Layout, std::string>> layout_names_;  // a deque: names stay put

  // ---- thread coordinates (thread_layout.cpp) ----
  /// %tid.x & 31 and %tid.x >> 5.
  const std::string& lane();
  const std::string& warp();
  /// The thread's index within its program: %tid.x, less the bits that pick the program where
  /// programs share a block (CompileOptions::programs_per_block).
  const std::string& thread_id();
  bool packed() const { return options_.programs_per_block > 1; }
  /// With programs sharing a block: computes the program's place in its block and its id, and
  /// returns at once from programs past the grid (the launch's grid.x, a parameter). Prologue.
  void packed_prologue();
  /// A barrier across this program's threads: the block's, or this program's own named barrier.
  std::string barrier();
  /// The part of coordinate `dim` that comes from the lane and warp bits (a prologue value),
  /// or "" when it is always 0.
  std::string thread_coord(const Layout& l, int dim);
  /// The part that comes from register index `r` (a constant).
  static std::int64_t reg_coord(const Layout& l, int dim, int r);
  /// Row-major linear index of the element: thread part (prologue value or "") and register part.
  std::string thread_linear(const Layout& l);
  static std::int64_t reg_linear(const Layout& l, int r);
  /// A prologue value named by `key`, computed once by `make` (which emits into the prologue);
  /// while rematerializing outside loops, computed again where it is asked for.
  template <class F>
  std::string hoisted(const std::string& key, F make);
  /// True when bits of lane/warp id that are replicas in `l` are all zero (prologue value), or
  /// "" when `l` has no replicated lanes or warps.
  std::string owner_predicate(const Layout& l);
  /// Address of the program's dynamic shared memory (a 32-bit shared-window address). Where
  /// programs share a block, it holds kProgramSharedBytes, replaced by the size once known.
  static constexpr const char* kProgramSharedBytes = "TJ_PROGRAM_SHARED_BYTES";
  const std::string& shared_base();
  void need_shared(int bytes) { shared_bytes_ = std::max(shared_bytes_, bytes); }
  /// Dynamic shared memory: [reduction buffer 0 | reduction buffer 1 | layout conversions], as
  /// the CUDA C generator lays it out. Cross-warp reductions use the two buffers in turn, so each
  /// needs one barrier (between its writes and its reads) instead of two: the next reduction
  /// writes the other buffer, and the one after it runs past that reduction's barrier first.
  /// Layout conversions keep both barriers. Bytes one reduction writes (0 within warps):
  int cross_warp_bytes(const ir::Op& reduce) const;
  int conversion_base() const { return 2 * reduction_buffer_bytes_; }
  Regs convert_layout(ir::ValueId v, const Layout& from, const Layout& to);
  /// Shared-window address of this thread's first element of a block laid out in element order
  /// from the start of shared memory in layout `l`, `bytes` an element (a prologue value).
  std::string thread_shared_address(const Layout& l, int bytes);

  // ---- ops ----
  void region(const ir::Region& r);
  void op(const ir::Op& op);
  void scalar_op(const ir::Op& op);
  /// Op's block result in layout `l`.
  Regs block_op(const ir::Op& op, const Layout& l);
  Regs load_op(const ir::Op& op, const Layout& l);
  std::string scalar_load(const ir::Op& op);
  /// x / s with s a splat scalar: rcp.approx once, a multiply per element (division.cpp).
  /// Returns false when the op is not of that form.
  bool uniform_float_division(const ir::Op& op, const Layout& l, Regs& out);
  /// x / s of floats with s a splat scalar: the division uniform_float_division speeds up.
  bool splat_division(const ir::Op& op) const;
  /// Its divisor, the reciprocal and whether that is a normal float, computed once a scope.
  const Regs& division_plan(const ir::Op& div);
  /// For a block's division under a register cap: 1/(s k) and a power of two k.
  const Regs& scaled_division_plan(const ir::Op& div);
  void store_op(const ir::Op& op);
  /// The predicate %tid.x == 0 of this program (a prologue value): scalar stores and atomics.
  std::string first_thread();
  /// A predicate true where both are ("" is always true): one of them, or their and.pred.
  std::string both(const std::string& a, const std::string& b);
  /// Atomics (atomic.cpp): the op; one element's atom (old value, 0 where `pred` is false);
  /// bytes of shared memory the op's old values pass through to copies (0 for none).
  void atomic_op(const ir::Op& op);
  std::string atom(const ir::Op& op, const std::string& pred, const std::string& ptr, const std::string& expected,
                   const std::string& value);
  int atomic_broadcast_bytes(const ir::Op& op) const;
  /// True for a block computed from thread coordinates, constants and scalars alone (offsets,
  /// pointers, masks of an arange), which a store can compute again instead of keeping live.
  bool index_only(ir::ValueId v) const;
  /// While alive, index values are computed again where they are used instead of taken from the
  /// registers that earlier ops set. Outside loops, thread coordinates are computed again from
  /// %tid.x too, ending the prologue's live ranges (bf16 BLOCK 8192, 16 warps: 32 registers, 39
  /// with prologue coordinates). Inside a loop they stay prologue values: a few registers, where
  /// computing them again cost an S2R and the coordinate arithmetic before each access in every
  /// step.
  class Rematerialize {
   public:
    explicit Rematerialize(Emitter& e);
    ~Rematerialize();
    Rematerialize(const Rematerialize&) = delete;
    Rematerialize& operator=(const Rematerialize&) = delete;

   private:
    Emitter& e_;
    bool thread_values_again_;
    std::map<std::string, std::string> saved_hoisted_;
  };
  void reduce_op(const ir::Op& op);
  /// A reduction's per-thread partials of a streamed value (reduction.cpp).
  Regs streamed_tree(ir::ValueId src, const Layout& parent, int axis, ir::OpKind combine, DType acc_t);
  /// The thread's partials of a max or min of a widened 16-bit block, combined two at a time
  /// before widening; false (nothing emitted) where `src` is not such a value (reduction.cpp).
  bool packed_half_tree(ir::ValueId src, const Layout& parent, int axis, ir::OpKind combine, Regs& acc);
  void loop_op(const ir::Op& op);
  /// Whether loop_op carries block `arg` (yielding `yielded`, layout `l`) as 32-bit words.
  bool carried_as_words(ir::ValueId arg, ir::ValueId yielded, const Layout& l) const;
  // ---- stashes (stash.cpp) ----
  /// The default layout of the stash's block: its puts, gets and copies all use it.
  Layout stash_layout(const ir::Stash& s) const { return plan_.default_layout(s.block.shape); }
  /// This thread's first element of the op's slot (a shared-window address) and whether the slot
  /// is one of the stash's: outside, puts and copies do nothing and gets read zeros.
  struct SlotAccess {
    std::string address, in_range;
  };
  SlotAccess stash_slot(const ir::Op& op, const Layout& l);
  /// Stands for where stash `id` starts in shared memory until run() knows the scratch before it.
  static std::string stash_place(std::size_t id);
  void stash_put_op(const ir::Op& op);
  Regs stash_get_op(const ir::Op& op, const Layout& l);
  void stash_copy_op(const ir::Op& op);
  /// The registers of stash read `op` from element `first` on: one access's worth (the slot's
  /// address is computed once a scope).
  Regs stash_piece(const ir::Op& op, const Layout& l, int first);
  // ---- streamed values (streamed.cpp) ----
  /// Collects the stash reads of `r` that can be read again later with the same result.
  void find_rereadable_reads(const ir::Region& r, bool in_loop);
  /// True for a stash read, or an elementwise value of such reads, that each consumer computes
  /// again, element by element, instead of holding it.
  bool streamed(ir::ValueId v) const;
  /// Element r of streamed stash read `op`: its piece read from the stash.
  std::string streamed_stash_read(const ir::Op& op, const Layout& l, int r);
  /// One element of x / s for a splat s (the per-element form of uniform_float_division), or
  /// nullopt when the op is not of that form.
  std::optional<std::string> uniform_float_division_element(const ir::Op& op, const Layout& l, int r);
  /// The division by a splat in streamed value v's chain, or nullptr.
  const ir::Op* streamed_division(ir::ValueId v) const;
  /// The streamed division a store has branched on (on whether 1/s is a normal float), and the
  /// side being emitted: there its elements take that path alone; elsewhere both, the slow one
  /// predicated.
  struct DivisionBranch {
    const ir::Op* op = nullptr;
    bool slow = false;
  };
  // ---- cluster reductions (cluster.cpp) ----
  /// A whole exchange over a cluster or group of one program: its own value, or for softmax
  /// stats its own pair. Returns false, emitting nothing, for larger sets.
  bool exchange_of_one(const ir::Op& op, int programs);
  void cluster_reduce_op(const ir::Op& op);
  void cluster_softmax_stats_op(const ir::Op& op);
  /// Thread 0 sends `mine` (compute-type registers of `acc_t`, one block's slot: 8 bytes at
  /// most) into every block's slot set with st.async, every thread waits on its block's mbarrier
  /// for the set, then loads it: the values of rank 0, then rank 1, ...
  std::vector<std::string> cluster_exchange(const std::vector<std::string>& mine, DType acc_t);
  /// The slots' and mbarriers' module-scope declarations, the entry's cluster shape, and the
  /// prologue: rank, turn, the writing thread, the mbarriers set up, a first cluster barrier. All
  /// empty without cluster reductions.
  std::string cluster_declarations() const;
  std::string cluster_directive() const;
  void cluster_prologue();

  // ---- group reductions through global memory (group.cpp) ----
  void group_reduce_op(const ir::Op& op);
  void group_softmax_stats_op(const ir::Op& op);
  /// The slot set an exchange starts now (tj_group_turn mod 4), in a new register.
  std::string group_turn_set();
  /// Global addresses of this group's barrier word and slots for slot set `set` (a register).
  struct GroupSet {
    std::string barrier, slots;
  };
  GroupSet group_set(ir::ValueId workspace, const std::string& set);
  /// Thread 0: writes `value` (a register or a vector operand, of PTX type `type`) into this
  /// program's slot and arrives at the barrier; returns the word before the arrival.
  std::string group_publish(const GroupSet& s, const std::string& value, const std::string& type);
  /// Warp 0, every lane: spins until the barrier word's top bit differs from `before`'s, then
  /// meets the other lanes (bar.warp.sync).
  void group_wait(const GroupSet& s, const std::string& before);
  /// Warp 0: thread 0's `value` in every lane.
  std::string from_writer(const std::string& value);
  /// Warp 0: loads this lane's slots (one register of each class a slot; the identities past the
  /// group), 16 slots a lane at a time, and hands each chunk to `body` in slot order with the
  /// predicates of the slots that may lie past the group ("" where none can). Past 16 slots a lane
  /// the chunks are the steps of a loop, emitted once: `body` must leave what it accumulates in
  /// registers it updates in place.
  using SlotChunkBody = std::function<void(const std::vector<Regs>& values, const std::vector<std::string>& valid)>;
  void group_slot_chunks(const GroupSet& s, const std::vector<RegClass>& classes,
                         const std::vector<std::string>& identities, const SlotChunkBody& body);
  /// The shared memory and prologue of group exchanges: the result every thread reads, the words
  /// split exchanges keep; the turn. Empty without them.
  std::string group_declarations() const;
  void group_prologue();
  /// %ctaid.x `op` ("rem" or "div") the group size: the block's rank in its group, or its group.
  std::string group_coordinate(const char* op);
  /// %tid.x `compare` `value` ("eq", 0: the writing thread; "lt", 32: warp 0), in a new predicate.
  std::string thread_predicate(const char* compare, int value);

  // ---- warp shuffles (reduction.cpp) ----
  /// `value` of the lane whose id differs from this one's in the bits of `distance`.
  std::string shuffle_xor(DType acc_t, const std::string& value, int distance);
  /// `value` combined over the warp by a butterfly of shuffles (distances 16 down to 1): every
  /// lane ends with the same bits.
  std::string warp_butterfly(ir::OpKind combine, DType acc_t, std::string value);

  // ---- elements (elementwise.cpp) ----
  /// Instructions for one element of an elementwise op; args and result in storage types.
  std::string elementwise(const ir::Op& op, const std::vector<std::string>& args);
  std::string to_compute(DType t, const std::string& r);
  /// 16-bit elements move in pairs through 32-bit words (vector loads and stores, loop-carried
  /// loads). unpack() splits a word into two b16 registers and remembers where they came from;
  /// pack() gives the word holding (lo, hi): the one they came from, else a new one. A bf16
  /// half becomes an f32 straight from its word (shl / and, as NVVM does) instead of being
  /// paired with a zero half (a PRMT each).
  Regs unpack(const std::string& word);
  std::string pack(const std::string& lo, const std::string& hi);
  std::string from_compute(DType t, const std::string& r);
  std::string convert(DType from, DType to, const std::string& r);
  std::string binary(ir::OpKind k, DType t, const std::string& a, const std::string& b);
  /// x / divisor or x % divisor (k) in integer type c by shifts when divisor is a power of two
  /// above 1, else "".
  std::string power_of_two_division(ir::OpKind k, DType c, const std::string& x, std::int64_t divisor);
  std::string compare(ir::OpKind k, DType t, const std::string& a, const std::string& b);
  std::string unary(ir::OpKind k, DType t, const std::string& a);
  std::string constant(DType t, const ir::OpAttrs& a);
  std::string move(RegClass c, const std::string& src);
  /// A register of class `c` holding zero.
  std::string zero(RegClass c);

  const ir::Function& f_;
  PtxCodegenOptions options_;
  cuda::LayoutPlan plan_;
  passes::AxisInfo axes_;
  Code code_;
  std::unordered_map<ir::ValueId, const ir::Op*> def_;
  std::unordered_map<ir::ValueId, std::string> scalars_;
  // Registers already holding a value in a layout, per open scope (inner scopes see outer ones).
  std::vector<std::map<std::pair<ir::ValueId, std::string>, Regs>> scopes_;
  std::map<std::string, std::string> hoisted_;
  std::unordered_map<std::string, std::int64_t> int_constants_;  // registers holding integer constants
  struct Half {
    std::string word;
    bool high;
  };
  std::unordered_map<std::string, Half> halves_;  // b16 registers made by unpack()
  bool rematerializing_ = false;
  bool hoisted_in_place_ = false;                             // hoisted() computes where asked (see Rematerialize)
  mutable std::unordered_map<ir::ValueId, bool> index_only_;  // memo of index_only
  std::unordered_set<ir::ValueId> rereadable_;                // stash reads streamed() may read again
  mutable std::unordered_map<ir::ValueId, bool> streamed_;    // memo of streamed
  DivisionBranch division_branch_;
  int shared_bytes_ = 0;
  int reduction_buffer_bytes_ = 0;  // each of the two, 16-byte aligned (largest cross_warp_bytes)
  int reduction_turn_ = 0;          // cross-warp reductions emitted (loop bodies padded to even)
  int cluster_size_ = 1;            // ir::cluster_size(f_)
  int group_size_ = 1;              // ir::group_size(f_)
  bool group_workspace_ = false;    // exchanges go through the workspace (groups of 2 or more, or split)
  std::string group_turn_;          // register: group exchanges started so far
  struct {
    std::string rank, turn, slots, writer;  // registers (writer: the predicate tid.x == 0)
    std::string full, rounds;               // the mbarriers' address; exchanges so far (for each one's phase)
    // Every loop runs an even number of cluster reductions per step: each one's slot set is
    // known here (reductions emitted so far, mod 2), so no turn register.
    bool static_turn = false;
    int emitted = 0;
  } cluster_;
};

/// Register class of an element (pointers: b64; i1: pred; f16/bf16: b16).
RegClass reg_class(const ir::Type& t);
RegClass reg_class(DType t);
/// Class of the type f16/bf16 are computed in (f32); others their own.
RegClass compute_class(DType t);
/// The elementwise op a reduction combines with (add, maximum, minimum).
ir::OpKind reduce_combine_op(ir::ReduceKind k);

/// Calls f on every op of `r`, nested regions included, in program order.
template <class F>
void for_each_op(const ir::Region& r, F&& f) {
  for (const ir::Op& op : r.ops) {
    f(op);
    for (const auto& nested : op.regions) for_each_op(nested, f);
  }
}

template <class F>
std::string Emitter::hoisted(const std::string& key, F make) {
  auto it = hoisted_.find(key);
  if (it != hoisted_.end()) return it->second;
  std::optional<Code::Prologue> in_prologue;
  if (!hoisted_in_place_) in_prologue.emplace(code_);
  std::string r = make();
  hoisted_[key] = r;
  return r;
}

}  // namespace tilejit::codegen::ptx
