// Software pipelining for loops with num_stages >= 2: the loads of the next num_stages - 1
// iterations are in flight while the current one is consumed (loop-carried values, one per
// iteration ahead), so their latency overlaps the work on the current iteration's data. A load
// qualifies when its pointers, mask and `other` depend only on the induction variable and on
// values defined before the loop. With two stages:
//
//   for i ... { x = load(p(i), m(i)); use(x) }
// becomes
//   x0 = load(p(lo), m(lo) & lo < hi)
//   for i ... iter_args(cur = x0) { nxt = load(p(i+s), m(i+s) & i < hi-s); use(cur); yield nxt }
//
// and with three, x0 and x1 are loaded before the loop and carried as (cur, cur1), the body
// loads iteration i+2s and yields (cur1, nxt). Deeper pipelines are capped by registers: the
// copies in flight may hold at most kPrefetchBudget elements per thread.
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

  // Outer loops first: an inner loop's prologue loads, once placed in the outer body, would
  // qualify there too, and the outer loop would fetch them a whole outer iteration ahead (a
  // walked row's second pass read before its first, holding registers all the while).
  bool run(Region& r) {
    bool changed = false;
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      if (r.ops[i].kind == OpKind::for_range) {
        const int stages = r.ops[i].attrs.num_stages > 1 ? r.ops[i].attrs.num_stages : default_stages_;
        if (stages >= 2) {
          // The prologue goes before the loop; the loop's num_stages becomes the depth it got.
          std::size_t inserted = pipeline(r, i, stages - 1);
          i += inserted;
          changed |= inserted > 0;
        }
      }
      for (auto& nested : r.ops[i].regions) changed |= run(nested);
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
    if (op.kind == OpKind::load || op.kind == OpKind::stash_get || ir::has_side_effects(op.kind)) return false;
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

  // How far ahead iteration k lies, k * step, and the last index from which it still exists,
  // end - k * step (comparing against it cannot overflow where iv + k * step would, near the top
  // of the index type), built in `into`. Both are loop-invariant: the prologue builds them.
  // Iteration 0 is the index itself, which exists below `end`.
  struct Reach {
    ValueId distance, limit;
  };
  Reach reach(ValueId end, ValueId step, int k, Region& into, const ir::SourceLoc& loc) {
    if (k == 0) return {ir::kNoValue, end};
    ir::Builder b(f_);
    b.set_insertion_region(&into);
    b.set_loc(loc);
    ValueId distance = k == 1 ? step : b.binary(OpKind::mul, step, b.constant_int(f_.type(step).elem, k));
    return {distance, b.binary(OpKind::sub, end, distance)};
  }

  // The index `r` ahead of `iv`, and whether that iteration exists, built in `into`.
  std::pair<ValueId, ValueId> ahead(ValueId iv, const Reach& r, Region& into, const ir::SourceLoc& loc) {
    ir::Builder b(f_);
    b.set_insertion_region(&into);
    b.set_loc(loc);
    ValueId index = r.distance == ir::kNoValue ? iv : b.binary(OpKind::add, iv, r.distance);
    return {index, b.binary(OpKind::cmp_lt, iv, r.limit)};
  }

  // Returns how many prologue ops were inserted before the loop (0: nothing to pipeline).
  std::size_t pipeline(Region& outer, std::size_t index, int max_depth) {
    Op& loop = outer.ops[index];
    Region& body = loop.regions[0];
    defs_.clear();
    for (const Op& op : body.ops)
      for (ValueId v : op.results) defs_[v] = &op;
    std::vector<std::size_t> loads;
    std::unordered_set<ValueId> needed;
    std::int64_t per_thread_total = 0;
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
      per_thread_total += std::max<std::int64_t>(per_thread, 1);
    }
    if (loads.empty()) {
      loop.attrs.num_stages = 1;
      return 0;
    }
    // One iteration ahead always (as checked above); more while the copies fit the budget.
    const int depth = static_cast<int>(std::clamp<std::int64_t>(kPrefetchBudget / per_thread_total, 1, max_depth));

    // From here on num_stages tells code generators how deep the loop is pipelined.
    loop.attrs.num_stages = depth + 1;
    ValueId iv = body.args[0], start = loop.operands[0], end = loop.operands[1], step = loop.operands[2];
    // Prologue: the loads of the first `depth` iterations.
    Region prologue;
    std::vector<std::vector<ValueId>> init(loads.size());
    for (int k = 0; k < depth; ++k) {
      auto [iv_k, valid_k] = ahead(start, reach(end, step, k, prologue, loop.loc), prologue, loop.loc);
      std::unordered_map<ValueId, ValueId> map;
      clone_slice(body, needed, iv, iv_k, map, prologue);
      for (std::size_t l = 0; l < loads.size(); ++l)
        init[l].push_back(guarded_load(body.ops[loads[l]], map, valid_k, prologue));
    }
    // Top of the body: the loads of iteration iv + depth * step.
    Region head;
    auto [next_iv, valid] = ahead(iv, reach(end, step, depth, prologue, loop.loc), head, loop.loc);
    std::unordered_map<ValueId, ValueId> next;
    clone_slice(body, needed, iv, next_iv, next, head);

    // Per load, `depth` carried values: the current iteration's, then those further ahead.
    std::unordered_map<ValueId, ValueId> replace;
    std::vector<ValueId> yielded;
    for (std::size_t l = 0; l < loads.size(); ++l) {
      const Op& load = body.ops[loads[l]];
      const ir::Type t = f_.type(load.results[0]);
      std::vector<ValueId> carried;
      for (int k = 0; k < depth; ++k) {
        carried.push_back(f_.new_value(t));
        body.args.push_back(carried.back());
        loop.operands.push_back(init[l][static_cast<std::size_t>(k)]);
        loop.results.push_back(f_.new_value(t));
      }
      yielded.insert(yielded.end(), carried.begin() + 1, carried.end());
      yielded.push_back(guarded_load(load, next, valid, head));
      replace[load.results[0]] = carried.front();
    }
    // The original loads become dead once their uses read the carried value.
    Op& yield = body.ops.back();
    yield.operands.insert(yield.operands.end(), yielded.begin(), yielded.end());
    replace_uses(body, replace);
    body.ops.insert(body.ops.begin(), std::make_move_iterator(head.ops.begin()),
                    std::make_move_iterator(head.ops.end()));
    std::size_t inserted = prologue.ops.size();
    outer.ops.insert(outer.ops.begin() + static_cast<long>(index), std::make_move_iterator(prologue.ops.begin()),
                     std::make_move_iterator(prologue.ops.end()));
    return inserted;
  }

  static constexpr std::int64_t kMaxElementsPerThread = 32;
  // Elements per thread that the copies in flight may hold together, for pipelines deeper than
  // one iteration ahead (one block per SM keeps 255 registers per thread; most of ours run two).
  static constexpr std::int64_t kPrefetchBudget = 64;

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
