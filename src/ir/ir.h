// The tilejit IR: typed SSA values in structured regions.
//
// A Function owns every value (indexed by ValueId) and a body Region. A Region is a list of
// Ops plus block arguments; the only op with a region is for_range, whose body receives the
// induction variable and the loop-carried values and ends with a yield.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/type.h"
#include "tilejit/eviction.h"

namespace tilejit::ir {

enum class OpKind {
#define TILEJIT_OP(name, category) name,
#include "ir/ops.def"
#undef TILEJIT_OP
};

enum class OpCategory { Nullary, Unary, Binary, Compare, Special };

const char* op_name(OpKind k);
OpCategory op_category(OpKind k);
/// Ops with effects beyond their results (never removed by dead-code elimination).
bool has_side_effects(OpKind k);

using ValueId = std::int32_t;
constexpr ValueId kNoValue = -1;

/// softmax_stats: only across clusters and groups, over (max, sum of exp(x - max)) pairs: the
/// result is (M, S) with M the max of the maxes and S the sum of sum * exp(max - M), in rank order.
enum class ReduceKind { sum, max, min, softmax_stats };
const char* reduce_name(ReduceKind k);

/// A group exchange whole (publish, meet, combine: one op), or split in two so that work runs
/// while the other programs arrive: `start` publishes this program's values and arrives at the
/// group's barrier, returning a ticket (an i32); `finish` takes the ticket, waits for the rest of
/// the group and returns the combined values. Only softmax_stats is split.
enum class ExchangePhase { whole, start, finish };
const char* phase_name(ExchangePhase p);

/// What an atomic op does to each element (the memory's old value is its result): add, max and
/// min (f32/f64 through the integer order of their bits, as CUDA code does), bitwise and/or/
/// xor, exchange, and compare-and-swap (operands: pointers, the expected value, the new value;
/// floats compared by their bits). Acquire-release ordering, device scope, as Triton's default.
enum class AtomicKind { add, max, min, bit_and, bit_or, bit_xor, xchg, cas };
const char* atomic_name(AtomicKind k);

/// Operand positions of an atomic op: pointers, [expected value (cas)], value, [mask].
struct AtomicOperands {
  int value, compare = -1, mask = -1;
};
struct Op;
AtomicOperands atomic_operands(const Op& op);

/// Where an op came from in the user's C++ source.
struct SourceLoc {
  std::string file;
  unsigned line = 0;
};

/// Attributes; which ones are meaningful depends on the op (see the verifier).
struct OpAttrs {
  DType dtype = DType::i32;         // constant, cast: the result element type
  std::int64_t int_value = 0;       // constant (integer types), program_id/num_programs axis, stash index
  double float_value = 0.0;         // constant (float types)
  std::int64_t start = 0, end = 0;  // arange
  int axis = 0;                     // expand_dims, reduce
  int cluster_size = 1;             // cluster_reduce, group_reduce: programs per cluster or group
                                    // (consecutive along axis 0)
  ReduceKind reduce = ReduceKind::sum;
  ExchangePhase phase = ExchangePhase::whole;  // group_reduce
  int num_stages = 1;                          // for_range: software-pipelining hint
  bool has_mask = false;                       // load/store
  bool has_other = false;                      // load
  Eviction eviction = Eviction::normal;        // load/store: L2 hint
  bool flush_subnormals = false;               // exp2: results below 2^-126 may be zero (tl::exp_fast)
  AtomicKind atomic = AtomicKind::add;         // atomic
};

struct Op;

struct Region {
  std::vector<ValueId> args;  // block arguments (for_range: induction variable, then carried)
  std::vector<Op> ops;
};

struct Op {
  OpKind kind;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  OpAttrs attrs;
  std::vector<Region> regions;
  SourceLoc loc;
};

/// Kernel parameter as the IR sees it. Constexpr parameters are folded away during tracing
/// and only recorded here for naming.
struct Param {
  std::string name;
  ValueId value = kNoValue;
  /// Specialization fact: the value (an integer, or a pointer's address in bytes) is a
  /// multiple of this power of two.
  std::int64_t divisibility = 1;
};

/// Shared memory a program keeps blocks in until it reads them back (tl::stash): `slots` blocks
/// of type `block`, private to each program. stash_put (operands: slot, value), stash_get
/// (operand: slot) and stash_copy (operands: slot, pointers, mask: an asynchronous copy from
/// memory, zeros where the mask is false) name theirs by index in Function::stashes
/// (OpAttrs::int_value). A slot outside [0, slots) is not written, and reads as zeros.
/// copies_wait (no operands) waits until at most OpAttrs::int_value of the program's stash_copy
/// ops are still in flight; they complete in the order they were issued.
struct Stash {
  Type block;
  std::int64_t slots = 1;
  std::int64_t bytes() const;
};

struct Function {
  std::string name;
  std::vector<Type> value_types;  // indexed by ValueId
  std::vector<Param> params;
  std::vector<Stash> stashes;
  Region body;

  const Type& type(ValueId v) const { return value_types.at(static_cast<std::size_t>(v)); }
  ValueId new_value(Type t) {
    value_types.push_back(std::move(t));
    return static_cast<ValueId>(value_types.size() - 1);
  }
};

/// for_range operand layout: [start, end, step, init_0 ... init_n-1].
constexpr int kForFixedOperands = 3;

/// The largest thread-block cluster a kernel may ask for (16 on sm_90 with the driver's
/// non-portable-size opt-in, which the launcher sets above 8).
constexpr int kMaxClusterSize = 16;

/// The largest group of programs a group_reduce may span (groups exchange through global
/// memory, and all of a launch's programs must be resident at once).
constexpr int kMaxGroupSize = 4096;

/// Programs per cluster the function's cluster_reduce ops ask for (1 when it has none). All of
/// them must agree: throws UserError naming both source lines otherwise.
int cluster_size(const Function& f);
/// The same for group_reduce ops: programs per group (1 when it has none). A function may not
/// reduce across both clusters and groups.
int group_size(const Function& f);
/// Throws UserError (at the loop's source line) when a cluster or group reduction sits in a loop
/// whose bounds may differ between the programs of a cluster or group (`size` programs): those
/// programs would not all reach it.
void check_cluster_loops(const Function& f, int size);
/// The most elements of one block a program may hold per thread (the block's elements over
/// 32 x num_warps threads). Triton's cap of 2^20 elements a block is the same at 32 warps.
constexpr std::int64_t kMaxElementsPerThread = 1024;
/// Throws UserError (at the op's source line) when a value of `f` holds more than
/// kMaxElementsPerThread elements a thread over `num_warps` warps.
void check_block_sizes(const Function& f, int num_warps);
/// The op that defines each value of `r` and of the regions nested in it (its results; block
/// arguments have none). The pointers are valid while `r` is unchanged.
std::unordered_map<ValueId, const Op*> definitions(const Region& r);
/// Whether an op of `r` or of the regions nested in it takes `v` as an operand.
bool is_used(const Region& r, ValueId v);
/// Whether `r` or a region nested in it holds an op of kind `k`.
bool contains(const Region& r, OpKind k);
/// Whether `r` (a function's body) holds a group exchange split into start and finish. Those go
/// through the workspace even in groups of one.
bool has_split_exchange(const Region& r);

}  // namespace tilejit::ir
