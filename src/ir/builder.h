// The only way new ops enter a Function: every method types its op with the shared rules
// (type_rules.h), so a built function is well typed by construction.
#pragma once

#include <utility>

#include "ir/ir.h"

namespace tilejit::ir {

class Builder {
 public:
  explicit Builder(Function& f) : f_(f), region_(&f.body) {}

  Function& function() { return f_; }
  Region* insertion_region() const { return region_; }
  void set_insertion_region(Region* r) { region_ = r; }
  /// Source location stamped on the ops built from now on.
  void set_loc(SourceLoc loc) { loc_ = std::move(loc); }
  const SourceLoc& loc() const { return loc_; }

  ValueId constant_int(DType t, std::int64_t v);
  ValueId constant_float(DType t, double v);
  ValueId program_id(int axis);
  ValueId num_programs(int axis);
  ValueId arange(std::int64_t start, std::int64_t end);
  ValueId splat(ValueId scalar, const Shape& shape);
  ValueId broadcast(ValueId v, const Shape& shape);
  ValueId expand_dims(ValueId v, int axis);
  /// Binary and Compare ops (operands of one type).
  ValueId binary(OpKind k, ValueId a, ValueId b);
  ValueId unary(OpKind k, ValueId a);
  /// 2^a whose results below 2^-126 may flush to zero: one hardware instruction on the GPU.
  ValueId exp2_flushing_subnormals(ValueId a);
  ValueId cast(ValueId v, DType to);
  ValueId select(ValueId cond, ValueId a, ValueId b);
  /// a * b + c rounded once (f32 or f64 operands of one type).
  ValueId fma(ValueId a, ValueId b, ValueId c);
  ValueId addptr(ValueId ptr, ValueId offset);
  ValueId load(ValueId ptr, ValueId mask = kNoValue, ValueId other = kNoValue, Eviction eviction = Eviction::normal);
  void store(ValueId ptr, ValueId value, ValueId mask = kNoValue, Eviction eviction = Eviction::normal);
  /// The atomic update `k` of each element `ptr` points at (where `mask` is set); returns the
  /// old values. `compare` is cas's expected value (kNoValue otherwise); cas takes no mask.
  ValueId atomic(AtomicKind k, ValueId ptr, ValueId value, ValueId compare = kNoValue, ValueId mask = kNoValue);
  ValueId reduce(ValueId v, int axis, ReduceKind k);
  /// The reduction of scalar `v` over the `cluster_size` programs of this program's cluster.
  ValueId cluster_reduce(ValueId v, int cluster_size, ReduceKind k);
  /// The same over the `group_size` programs of this program's group, through `workspace`
  /// (a pointer to the group's barrier and slots in global memory).
  ValueId group_reduce(ValueId v, ValueId workspace, int group_size, ReduceKind k);
  /// The row's (max, sum) from each program's (max, sum of exp(x - max)) across its cluster, or
  /// its group when `workspace` is given (ReduceKind::softmax_stats): one exchange.
  std::pair<ValueId, ValueId> softmax_stats(ValueId max, ValueId sum, int size, ValueId workspace = kNoValue);
  /// softmax_stats across a group in two ops (ExchangePhase): start publishes (max, sum) and
  /// returns a ticket; finish waits on it and returns the row's (max, sum).
  ValueId group_softmax_stats_start(ValueId max, ValueId sum, int group_size, ValueId workspace);
  std::pair<ValueId, ValueId> group_softmax_stats_finish(ValueId ticket, int group_size, ValueId workspace);
  /// Declares a stash (ir::Stash) and returns its index.
  int stash(const Type& block, std::int64_t slots);
  /// Writes `value` (the stash's block type) into slot `slot` (an integer scalar) of stash `id`.
  void stash_put(int id, ValueId slot, ValueId value);
  /// The block slot `slot` of stash `id` holds.
  ValueId stash_get(int id, ValueId slot);
  /// Starts copying the block `ptrs` point at (zeros where `mask` is false) into slot `slot`.
  void stash_copy(int id, ValueId slot, ValueId ptrs, ValueId mask);
  /// Waits until at most `pending` stash copies are in flight.
  void copies_wait(std::int64_t pending);
  void yield(const std::vector<ValueId>& values);
  /// Appends a for_range whose body (args: induction variable, then one per init; ends with
  /// a yield) was built separately. Returns the loop results, one per init.
  std::vector<ValueId> for_range(ValueId start, ValueId end, ValueId step, const std::vector<ValueId>& inits,
                                 Region body, int num_stages);

 private:
  // Appends `op` with the `results` result values the type rules give it (InternalError if
  // they give another count); single and two are its one- and two-result forms.
  std::vector<ValueId> append(Op op, std::size_t results);
  ValueId single(Op op);
  std::pair<ValueId, ValueId> two(Op op);  // softmax statistics: (max, sum)
  ValueId single_declared(Op op, Type declared);

  Function& f_;
  Region* region_;
  SourceLoc loc_;
};

}  // namespace tilejit::ir
