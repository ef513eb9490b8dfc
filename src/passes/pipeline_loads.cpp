// Software pipelining for loops with num_stages >= 2: the loads of iteration i+1 are issued
// at the top of iteration i (into a loop-carried value), so their latency overlaps the work
// on the current iteration's data. A load qualifies when its pointers, mask and `other`
// depend only on the induction variable and on values defined before the loop.
//
//   for i ... { x = load(p(i), m(i)); use(x) }
// becomes
//   x0 = load(p(lo), m(lo) & lo < hi)
//   for i ... iter_args(cur = x0) { nxt = load(p(i+s), m(i+s) & i+s < hi); use(cur); yield nxt }
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite_util.h"

namespace tilejit::passes {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::ValueId;

class LoopPipeliner {
 public:
  LoopPipeliner(ir::Function& f, int num_warps, int default_stages)
      : f_(f), num_warps_(num_warps), default_stages_(default_stages) {}

  bool run(Region& r) {
    bool changed = false;
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      for (auto& nested : r.ops[i].regions) changed |= run(nested);
      if (r.ops[i].kind != OpKind::for_range || std::max(r.ops[i].attrs.num_stages, default_stages_) < 2) continue;
      std::size_t inserted = pipeline(r, i);  // prologue ops now stand before the loop
      i += inserted;
      changed |= inserted > 0;
    }
    return changed;
  }

 private:
  // Ops of the body that `v` depends on, in body order; false when it depends on anything
  // but the induction variable, outer values and pure ops of the body.
  bool slice(const Region& body, ValueId v, std::unordered_set<ValueId>& needed) {
    if (needed.count(v)) return true;
    for (std::size_t a = 1; a < body.args.size(); ++a)
      if (body.args[a] == v) return false;  // carried: changes with the iteration
    auto def = defs_.find(v);
    if (def == defs_.end()) return true;  // the induction variable or an outer value
    const Op& op = *def->second;
    if (op.kind == OpKind::load || ir::has_side_effects(op.kind)) return false;
    needed.insert(v);
    for (ValueId o : op.operands)
      if (!slice(body, o, needed)) return false;
    return true;
  }

  // Rebuilds the slice ops (in body order) with the induction variable replaced by `iv`,
  // appending to the builder's region; `map` receives old -> new values.
  void clone_slice(const Region& body, const std::unordered_set<ValueId>& needed, ValueId old_iv, ValueId iv,
                   std::unordered_map<ValueId, ValueId>& map, Region& into) {
    map[old_iv] = iv;
    for (const Op& op : body.ops) {
      if (op.results.size() != 1 || !needed.count(op.results[0])) continue;
      Op copy = op;
      for (auto& v : copy.operands) v = resolve(map, v);
      copy.results = {f_.new_value(f_.type(op.results[0]))};
      map[op.results[0]] = copy.results[0];
      into.ops.push_back(std::move(copy));
    }
  }

  // A load of the pointers `ptr` under `mask` & `valid`, built in `into`.
  ValueId guarded_load(const Op& load, std::unordered_map<ValueId, ValueId>& map, ValueId valid, Region& into) {
    ir::Builder b(f_);
    b.set_insertion_region(&into);
    b.set_loc(load.loc);
    ValueId ptr = resolve(map, load.operands[0]);
    const ir::Shape& shape = f_.type(ptr).shape;
    ValueId guard = shape.empty() ? valid : b.splat(valid, shape);
    ValueId mask = load.attrs.has_mask ? b.binary(OpKind::bit_and, resolve(map, load.operands[1]), guard) : guard;
    ValueId other;
    if (load.attrs.has_other) {
      other = resolve(map, load.operands[2]);
    } else {
      DType t = f_.type(ptr).elem;
      ValueId zero = is_float(t) ? b.constant_float(t, 0.0) : b.constant_int(t, 0);
      other = shape.empty() ? zero : b.splat(zero, shape);
    }
    return b.load(ptr, mask, other, load.attrs.eviction);
  }

  // Returns how many prologue ops were inserted before the loop (0: nothing to pipeline).
  std::size_t pipeline(Region& outer, std::size_t index) {
    Op& loop = outer.ops[index];
    Region& body = loop.regions[0];
    defs_.clear();
    for (const Op& op : body.ops)
      for (ValueId v : op.results) defs_[v] = &op;
    std::vector<std::size_t> loads;
    std::unordered_set<ValueId> needed;
    for (std::size_t i = 0; i < body.ops.size(); ++i) {
      const Op& op = body.ops[i];
      if (op.kind != OpKind::load) continue;
      std::int64_t per_thread = f_.type(op.results[0]).numel() / (32 * num_warps_);
      if (per_thread > kMaxElementsPerThread) continue;  // two copies in registers would spill
      std::unordered_set<ValueId> mine = needed;
      bool ok = true;
      for (ValueId v : op.operands) ok = ok && slice(body, v, mine);
      if (!ok) continue;
      needed = std::move(mine);
      loads.push_back(i);
    }
    if (loads.empty()) return 0;

    ValueId iv = body.args[0], start = loop.operands[0], end = loop.operands[1], step = loop.operands[2];
    ir::Builder b(f_);
    // Prologue: the first iteration's loads.
    Region prologue;
    std::unordered_map<ValueId, ValueId> first;
    clone_slice(body, needed, iv, start, first, prologue);
    b.set_insertion_region(&prologue);
    b.set_loc(loop.loc);
    ValueId valid0 = b.binary(OpKind::cmp_lt, start, end);
    // Top of the body: the next iteration's loads.
    Region head;
    b.set_insertion_region(&head);
    ValueId next_iv = b.binary(OpKind::add, iv, step);
    ValueId valid = b.binary(OpKind::cmp_lt, next_iv, end);
    std::unordered_map<ValueId, ValueId> next;
    clone_slice(body, needed, iv, next_iv, next, head);

    std::unordered_map<ValueId, ValueId> replace;
    std::vector<ValueId> prefetched;
    for (std::size_t i : loads) {
      const Op& load = body.ops[i];
      ValueId init = guarded_load(load, first, valid0, prologue);
      prefetched.push_back(guarded_load(load, next, valid, head));
      ValueId cur = f_.new_value(f_.type(load.results[0]));
      body.args.push_back(cur);
      loop.operands.push_back(init);
      loop.results.push_back(f_.new_value(f_.type(load.results[0])));
      replace[load.results[0]] = cur;
    }
    // The original loads become dead once their uses read the carried value.
    Op& yield = body.ops.back();
    yield.operands.insert(yield.operands.end(), prefetched.begin(), prefetched.end());
    replace_uses(body, replace);
    body.ops.insert(body.ops.begin(), std::make_move_iterator(head.ops.begin()),
                    std::make_move_iterator(head.ops.end()));
    std::size_t inserted = prologue.ops.size();
    outer.ops.insert(outer.ops.begin() + static_cast<long>(index), std::make_move_iterator(prologue.ops.begin()),
                     std::make_move_iterator(prologue.ops.end()));
    return inserted;
  }

  static constexpr std::int64_t kMaxElementsPerThread = 32;

  ir::Function& f_;
  int num_warps_;
  int default_stages_;
  std::unordered_map<ValueId, const Op*> defs_;
};

}  // namespace

bool pipeline_loop_loads(ir::Function& f, int num_warps, int default_stages) {
  LoopPipeliner p(f, num_warps, default_stages);
  bool changed = p.run(f.body);
  if (changed) eliminate_dead_code(f);
  return changed;
}

}  // namespace tilejit::passes
