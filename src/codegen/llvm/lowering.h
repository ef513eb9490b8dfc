// The IR → LLVM IR lowering's state and helpers (see plan.h for the strategy).
//
// Inside a group's loop nest a block value is handled one chunk at a time: `width` consecutive
// elements along the last dimension (one row of a rank-2 block). A chunk is uniform (one scalar
// for every lane), affine (integer or pointer: lane j = base + stride * j, which is how
// contiguous loads and stores are recognized) or a vector. Elements are kept in their storage
// form (f16/bf16 as i16, i1 as i1) and computed in f32 where the CUDA backend does.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/llvm/codegen.h"
#include "codegen/llvm/plan.h"

namespace tilejit::codegen::llvm_ir {

struct Chunk {
  enum class Kind { uniform, affine, vector };
  Kind kind = Kind::uniform;
  llvm::Value* value = nullptr;
  std::int64_t stride = 0;  // affine only, in elements (pointers: pointee elements)
};

/// Which loop coordinate a dimension of a value follows inside a group: none (extent 1), the
/// current row, or the chunk's columns.
enum class Coord : std::uint8_t { zero, row, col };
using Coords = std::array<Coord, 2>;

/// Coordinates as a value of type `t` sees them: unit dimensions (and absent ones) at zero.
inline Coords normalized(const ir::Type& t, Coords c) {
  for (int d = 0; d < 2; ++d)
    if (d >= t.rank() || t.shape[static_cast<std::size_t>(d)] == 1) c[static_cast<std::size_t>(d)] = Coord::zero;
  return c;
}

/// `f` with every stash_copy made a masked load and a stash_put, and no copies_wait (stash.cpp).
ir::Function synchronous_copies(const ir::Function& f);

class Lowering {
 public:
  Lowering(const ir::Function& f, const LlvmCodegenOptions& options);
  LlvmKernelSource run();

 private:
  // ---- types and conversions (types.cpp) ----
  const ir::Type& type(ir::ValueId v) const { return f_.type(v); }
  llvm::Type* elem_type(DType t);             // SSA element: i1, i32, i64, i16 (f16/bf16), float, double
  llvm::Type* memory_type(DType t);           // in memory: as elem_type, but i1 is a byte
  llvm::Type* compute_type(DType t);          // arithmetic: float for f16/bf16
  llvm::Type* value_type(const ir::Type& t);  // ptr for pointers, else elem_type
  llvm::Type* array_type(const ir::Type& t);  // element of a scratch array
  llvm::Type* like(llvm::Value* shape_of, llvm::Type* elem);  // elem, or a vector of it
  llvm::Value* to_compute(DType t, llvm::Value* v);
  llvm::Value* from_compute(DType t, llvm::Value* v);
  llvm::Value* convert(DType from, DType to, llvm::Value* v);
  llvm::Value* to_memory(const ir::Type& t, llvm::Value* v);    // i1 -> i8
  llvm::Value* from_memory(const ir::Type& t, llvm::Value* v);  // i8 -> i1
  llvm::Constant* constant(DType t, std::int64_t int_value, double float_value);
  std::uint64_t memory_bytes(const ir::Type& t) const;  // one element in memory

  // ---- elementwise math on scalars or vectors (elementwise.cpp) ----
  llvm::Value* apply(const ir::Op& op, const std::vector<llvm::Value*>& args);
  llvm::Value* cluster_reduce(const ir::Op& op);
  llvm::Value* exchange(DType t, llvm::Value* v, ir::ReduceKind k);
  std::pair<llvm::Value*, llvm::Value*> combined_stats(const ir::Op& op);
  void softmax_stats(const ir::Op& op);
  void split_softmax_stats(const ir::Op& op);
  llvm::Value* int_binary(ir::OpKind k, llvm::Value* a, llvm::Value* b);
  llvm::Value* float_binary(ir::OpKind k, llvm::Value* a, llvm::Value* b);
  llvm::Value* nan_max(llvm::Value* a, llvm::Value* b, bool is_max);  // tj_max / tj_min
  llvm::Value* combine(ir::ReduceKind k, bool is_float, llvm::Value* acc, llvm::Value* v);
  llvm::Constant* reduce_identity(ir::ReduceKind k, DType t, llvm::Type* acc_type);
  llvm::Value* horizontal(ir::ReduceKind k, bool is_float, llvm::Value* vec);
  llvm::Value* math(llvm::Intrinsic::ID id, llvm::Value* x);
  llvm::Value* libm_call(const char* f32_name, const char* f64_name, llvm::Value* x);
  /// e^x or 2^x of f32 scalars or vectors, inline (exp.cpp).
  llvm::Value* exp_f32(llvm::Value* x, bool base2);

  // ---- chunks (chunks.cpp) ----
  Chunk eval(ir::ValueId v, Coords coords);
  Chunk eval_op(const ir::Op& op, ir::ValueId v, Coords coords);
  Chunk apply_chunk(const ir::Op& op, const std::vector<Chunk>& args);
  llvm::Value* to_vector(const Chunk& c, const ir::Type& t);
  llvm::Value* coord_value(Coord c);
  Coords identity_coords(int rank) const;
  llvm::Value* linear_index(const ir::Shape& shape, Coords coords);  // i64, of the first lane
  Chunk read_array(ir::ValueId v, Coords coords);
  void write_array(ir::ValueId v, const Chunk& c, Coords coords);
  llvm::Value* array_of(ir::ValueId v);  // allocates in scratch on first use
  llvm::Value* new_array(const ir::Type& t);

  // ---- memory (memory.cpp) ----
  /// The load or store `op` of one chunk through `ptr`, where `lane_mask` is set (all lanes
  /// when empty): already evaluated, so that bounds checks can emit either twice.
  Chunk load_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords);
  void store_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords);
  void scalar_load(const ir::Op& op);
  void scalar_store(const ir::Op& op);

  // ---- atomics (atomic.cpp) ----
  /// The atomic `op` of one chunk, as load_chunk; always a vector of the old values.
  Chunk atomic_chunk(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& lane_mask, Coords coords);
  void scalar_atomic(const ir::Op& op);
  /// op's atomic update of the element at `ptr`: returns the old value. `expected`: cas only.
  llvm::Value* atomic_element(const ir::Op& op, llvm::Value* ptr, llvm::Value* value, llvm::Value* expected);

  // ---- bounds checks of loads and stores (bounds.cpp) ----
  /// Load or store `op` of one chunk (a load's chunk; an empty one for a store), checked: when
  /// every lane's element lies inside the memory of op's pointer parameter, as is usual, the
  /// access is made as written; else through narrowed_mask.
  Chunk checked_access(const ir::Op& op, Coords coords);
  /// `mask` (empty: every lane) less the lanes of `ptr` whose element lies outside the memory of
  /// op's pointer parameter, after reporting those of them that `mask` sets to the runtime.
  /// Unchanged when op is not checked (its pointer's parameter is not known).
  std::optional<Chunk> narrowed_mask(const ir::Op& op, const Chunk& ptr, const std::optional<Chunk>& mask);
  /// i1: whether every lane of `ptr` (masked or not) is inside; null when op is not checked.
  llvm::Value* all_inside(const ir::Op& op, const Chunk& ptr);
  int checked_param(const ir::Op& op) const;                        // op's pointer parameter, or kUnknownParam
  llvm::Value* parameter_extent(int param, int end);                // the begin (0) or end (1) address, i64
  llvm::Value* lane_addresses(const ir::Op& op, const Chunk& ptr);  // i64, or a vector of them
  /// i1 (or a vector of them): whether the `bytes`-byte element at each address is inside.
  llvm::Value* lanes_inside(int param, std::int64_t bytes, llvm::Value* address);

  // ---- stashes (stash.cpp) ----
  llvm::Value* stash_base(std::size_t id);  // allocates in scratch on first use
  std::pair<llvm::Value*, llvm::Value*> stash_address(const ir::Op& op, Coords coords);
  void stash_put_chunk(const ir::Op& op, Coords coords);
  Chunk stash_get_chunk(const ir::Op& op, Coords coords);

  // ---- control flow and groups (lowering.cpp, groups.cpp, loops.cpp) ----
  void region(const ir::Region& r);
  void scalar_op(const ir::Op& op);
  void group(const Group& g);
  /// Runs `body(i)` for i in [0, count) (straight-line when count is 1); i is an i32.
  void counted_loop(std::int64_t count, std::int64_t step, const std::function<void(llvm::Value*)>& body);
  /// Computes block value `v` into `dst` (an array of its type), chunk by chunk.
  void materialize(ir::ValueId v, llvm::Value* dst);
  void loop(const ir::Op& op);
  void yield(const ir::Op& op);
  llvm::Value* scalar(ir::ValueId v) const;
  /// `then()`, emitted in a block of its own, where scalar `cond` holds; else `otherwise` (which
  /// must be computed before): the phi of the two.
  llvm::Value* only_if(llvm::Value* cond, const std::function<llvm::Value*()>& then, llvm::Value* otherwise);
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const char* name);

  struct LoopState {
    const ir::Op* op;
    std::vector<llvm::AllocaInst*> scalar_slots;  // per carried value (null for blocks)
    std::vector<llvm::Value*> block_slots;        // per carried value (null for scalars)
  };

  const ir::Function& f_;
  LlvmCodegenOptions options_;
  Plan plan_;
  std::unique_ptr<llvm::LLVMContext> ctx_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;  // allocas and scratch addresses go here
  llvm::Value* scratch_ = nullptr;
  std::array<llvm::Value*, 3> program_id_{}, num_programs_{};
  std::int64_t scratch_bytes_ = 0;
  std::unordered_map<std::size_t, llvm::Value*> stashes_;  // stash index -> its array in scratch
  llvm::AllocaInst* split_exchange_pairs_ = nullptr;       // split group exchanges' results, by ticket
  llvm::AllocaInst* split_exchange_turn_ = nullptr;        // split exchanges started

  std::unordered_map<ir::ValueId, int> pointer_params_;     // pointer value -> parameter (pointer_params.h)
  llvm::Value* access_checks_ = nullptr;                    // the launch's rt::cpu::AccessChecks
  std::map<std::pair<int, int>, llvm::Value*> extents_;     // (parameter, 0 begin / 1 end) -> i64
  std::unordered_map<const ir::Op*, int> access_site_ids_;  // index in access_sites_
  std::vector<MemoryAccessSite> access_sites_;

  std::unordered_map<ir::ValueId, llvm::Value*> scalars_;
  std::unordered_map<ir::ValueId, llvm::Value*> arrays_;
  std::vector<LoopState> loops_;

  // The chunk being computed: its row (rank-2 groups), first column and width.
  llvm::Value* row_ = nullptr;
  llvm::Value* col_ = nullptr;
  int width_ = 1;
  int current_group_ = -1;
  std::map<std::pair<ir::ValueId, Coords>, Chunk> memo_;  // chunks computed for this position
};

}  // namespace tilejit::codegen::llvm_ir
