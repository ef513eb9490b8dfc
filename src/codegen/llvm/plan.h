// How the LLVM backend computes block values: which are recomputed at each use, which ops run
// fused in one loop nest, and which values need an array in scratch memory.
//
// - Free values (index arithmetic: aranges, splats and what is computed from them and scalars)
//   are recomputed wherever they are used, like the CUDA backend's free layouts.
// - Views (broadcast, expand_dims of other values) read their source with remapped coordinates.
// - Every other block op (elementwise math on loaded data, loads, stores, reductions) belongs to
//   a group: consecutive ops of one iteration shape that run in one loop nest, a vector chunk
//   at a time. A group ends where an op needs a reduction of the same group, reads a member
//   through a view (another element than the one being computed), or loads after a store.
// - A group member gets an array in scratch only when something outside its group reads it.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace tilejit::codegen::llvm_ir {

struct Group {
  ir::Shape shape;                 // iteration shape (rank 1 or 2)
  std::vector<const ir::Op*> ops;  // members in program order
  bool has_store = false;
};

struct PlanItem {
  enum class Kind { scalar_op, group, loop, yield };
  Kind kind;
  const ir::Op* op = nullptr;  // scalar_op, loop, yield
  int group = -1;              // group
};

struct Plan {
  std::unordered_set<ir::ValueId> free;           // block values recomputed at each use
  std::unordered_map<ir::ValueId, int> group_of;  // results of group ops -> group index
  std::unordered_set<ir::ValueId> stored;         // group results that need an array
  std::vector<Group> groups;
  std::unordered_map<const ir::Region*, std::vector<PlanItem>> items;
  std::unordered_map<ir::ValueId, const ir::Op*> def;  // defining op of every op result

  bool is_free(ir::ValueId v) const { return free.count(v) != 0; }
  bool is_view(const ir::Op& op) const;
  const std::vector<PlanItem>& region_items(const ir::Region& r) const { return items.at(&r); }
};

Plan make_plan(const ir::Function& f);

}  // namespace tilejit::codegen::llvm_ir
