// The CUDA C emitter's state and its helpers. Each block value lives in a register array
// `T name[R]` indexed only inside fully unrolled loops, so every index is a compile-time
// constant and nothing goes to local memory. Scalars are plain variables.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "codegen/cuda/codegen.h"
#include "codegen/cuda/layout_assignment.h"
#include "passes/axis_info.h"

namespace tilejit::codegen::cuda {

class Emitter {
 public:
  Emitter(const ir::Function& f, const CudaCodegenOptions& options);
  CudaKernelSource run();

 private:
  // ---- output ----
  void line(const std::string& text);
  void open(const std::string& text);  // "text {" and indent
  void close(const std::string& tail = "}");
  /// `#pragma unroll for (int r = 0; r < n; ++r) <body>`.
  void per_register(int n, const std::string& body);
  void at_source(const ir::Op& op);
  std::string fresh(const std::string& base);
  /// A barrier across this program's threads: __syncthreads(), or with several programs a block
  /// (CompileOptions::programs_per_block) the named barrier of this program's warps.
  std::string barrier() const;
  /// True in one thread of the program (stores of scalars).
  std::string first_thread() const;
  bool packed() const { return options_.programs_per_block > 1; }

  // ---- values ----
  const ir::Type& type(ir::ValueId v) const { return f_.type(v); }
  std::string storage_type(ir::ValueId v) const;
  std::string scalar(ir::ValueId v) const;
  /// `vN`, N being the value's number in the printed IR, so the two stages read alike.
  std::string value_name(ir::ValueId v) const;
  /// Name of an array holding block value `v` in layout `l`, emitting a rematerialization
  /// or a shared-memory conversion when needed.
  std::string block(ir::ValueId v, const Layout& l);
  /// Layout a fixed value has, or the default one for free values.
  Layout natural_layout(ir::ValueId v) const;
  void remember(ir::ValueId v, const Layout& l, const std::string& name);
  const std::string* recall(ir::ValueId v, const Layout& l) const;
  std::string coord(const Layout& l, int dim, const std::string& reg) const;
  std::string linear_index(const Layout& l, const std::string& reg) const;

  // ---- ops ----
  void region(const ir::Region& r);
  void op(const ir::Op& op);
  void scalar_op(const ir::Op& op);
  /// Emits op's block result in layout `l` into a new array `name`.
  void block_op(const ir::Op& op, const Layout& l, const std::string& name);
  /// C expression of an elementwise op given its operands' element expressions.
  std::string elementwise(const ir::Op& op, const std::vector<std::string>& args) const;
  void load_op(const ir::Op& op, const Layout& l, const std::string& name);
  /// x / s for a block x and a splat scalar s (softmax's normalization): one reciprocal per
  /// thread and a multiply per element. Returns false when the op is not of that form.
  bool uniform_float_division(const ir::Op& op, const Layout& l, const std::string& name);
  void store_op(const ir::Op& op);
  /// Conditions (on `r`, tj_lane, tj_warp) true for the first copy of each element of `l`; none
  /// when `l` holds no copies.
  std::vector<std::string> first_copy_conditions(const Layout& l) const;
  /// Atomics (atomic.cpp): the op, the helper function its operation and type call, and all
  /// helpers the kernel used (emitted before it).
  void atomic_op(const ir::Op& op);
  std::string atomic_helper(const ir::Op& op);
  std::string atomic_helpers() const;
  /// Elements per thread one access may move: contiguous in the layout, proven contiguous
  /// and aligned by the axis analysis, one mask value for all, at most 16 bytes.
  int vector_width(ir::ValueId ptr, ir::ValueId mask, const Layout& l) const;
  void reduce_op(const ir::Op& op);
  /// cluster_reduce (cluster.cpp), and the declarations it needs at the top of the kernel.
  void cluster_reduce_op(const ir::Op& op);
  bool exchange_of_one(const ir::Op& op, int programs);
  void cluster_softmax_stats_op(const ir::Op& op);
  void cluster_round_send(const std::string& slot_t, int bytes, const std::string& send,
                          const std::vector<std::pair<std::string, std::string>>& values);
  std::string cluster_prologue() const;
  /// group_reduce (group.cpp): the op, the barrier function it calls (emitted before the
  /// kernel) and its declarations at the top of the kernel. All empty without group reductions.
  void group_reduce_op(const ir::Op& op);
  void group_softmax_stats_op(const ir::Op& op);
  void group_exchange_scope(ir::ValueId workspace, const std::string& set, const std::string& slot_t);
  void group_combine_stats();
  std::string group_helpers() const;
  std::string group_prologue() const;
  /// Stashes (stash.cpp): their layout, a slot's address.
  Layout stash_layout(const ir::Stash& s) const;
  std::string stash_pointer(const ir::Op& op, const std::string& slot);
  void stash_put_op(const ir::Op& op);
  void stash_get_op(const ir::Op& op, const Layout& l, const std::string& name);
  void stash_copy_op(const ir::Op& op);
  void copies_wait_op(const ir::Op& op);
  /// Shared memory all the kernel's stashes take, each padded to 16 bytes.
  int stash_bytes() const;
  void loop_op(const ir::Op& op);
  std::string convert_layout(ir::ValueId v, const Layout& from, const Layout& to);
  /// Shared memory layout: [reduction buffer 0 | reduction buffer 1 | layout conversions | stashes].
  /// Cross-warp reductions alternate between the two buffers, so a reduction needs one barrier
  /// (between its writes and reads) instead of two: the next reduction writes the other
  /// buffer, and the one after it runs past that reduction's barrier first. Returns the
  /// address expression of the buffer this reduction uses and advances the turn.
  std::string reduction_scratch(int bytes);
  /// Layout conversions keep both barriers and their own region after the two buffers.
  std::string conversion_scratch(int bytes);

  const ir::Function& f_;
  CudaCodegenOptions options_;
  LayoutPlan plan_;
  passes::AxisInfo axes_;
  std::unordered_map<ir::ValueId, const ir::Op*> def_;
  std::unordered_map<ir::ValueId, int> numbers_;
  std::unordered_map<ir::ValueId, std::string> alias_;  // loop results name their carried variable
  // Arrays already holding a value in a layout, per open scope (inner scopes see outer ones).
  std::vector<std::map<std::pair<ir::ValueId, std::string>, std::string>> scopes_;
  std::string out_;
  int indent_ = 0;
  int counter_ = 0;
  int reduction_turn_ = 0;          // reductions emitted so far (loop bodies padded to even)
  int reduction_buffer_bytes_ = 0;  // size of each of the two reduction buffers
  int conversion_bytes_ = 0;
  int cluster_size_ = 1;          // blocks per cluster (ir::cluster_size), 1 without cluster reductions
  int group_size_ = 1;            // blocks per group (ir::group_size), 1 without group reductions
  bool group_workspace_ = false;  // exchanges go through the workspace (groups of 2 or more, or split)
  std::map<std::string, std::string> atomic_helpers_;  // name -> definition
  std::string last_loc_;
  std::string pending_loc_;
};

}  // namespace tilejit::codegen::cuda
