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
//
// A load too large for a second copy in registers (a whole row of a wide persistent softmax) is
// staged through shared memory instead, one iteration ahead, as Triton's pipeliner does: a
// one-slot stash the next iteration's block lands in by cp.async while the current one is
// consumed.
//
//   copy(S, p(lo), m(lo) & lo < hi)
//   for i ... { wait; x = get(S); copy(S, p(i+s), m(i+s) & i < hi-s); use(where(m(i), x, other)) }
//   wait
//
// Each thread copies and reads back only its own elements (the stash's layout), so its own wait
// is all the synchronization needed; the copy into the slot is issued after the slot's read.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/builder.h"
#include "passes/passes.h"
#include "passes/rewrite_util.h"
#include "tilejit/error.h"

namespace tilejit::passes {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::ValueId;

class LoopPipeliner {
 public:
  LoopPipeliner(ir::Function& f, int num_warps, int default_stages, std::int64_t stash_budget)
      : f_(f), num_warps_(num_warps), default_stages_(default_stages), stash_budget_(stash_budget) {}

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

  // `load`'s mask (through `map`) & `valid` (whether the iteration exists), built by `b`.
  ValueId guarded_mask(ir::Builder& b, const Op& load, const std::unordered_map<ValueId, ValueId>& map, ValueId valid) {
    const ir::Shape& shape = f_.type(load.operands[0]).shape;
    ValueId guard = shape.empty() ? valid : b.splat(valid, shape);
    return load.attrs.has_mask ? b.binary(OpKind::bit_and, resolve(map, load.operands[1]), guard) : guard;
  }

  // A load of the pointers `ptr` under `mask` & `valid`, built in `into`.
  ValueId guarded_load(const Op& load, std::unordered_map<ValueId, ValueId>& map, ValueId valid, Region& into) {
    ir::Builder b(f_);
    b.set_insertion_region(&into);
    b.set_loc(load.loc);
    ValueId ptr = resolve(map, load.operands[0]);
    const ir::Shape& shape = f_.type(ptr).shape;
    ValueId mask = guarded_mask(b, load, map, valid);
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

  // Whether a block of type `t` can be staged in a stash of its own beside the kernel's stashes
  // and `staged_bytes` more, within the budget (stashes hold numbers, not i1; IR shapes are
  // already of rank 1 or 2 with power-of-two extents).
  bool stageable(const ir::Type& t, std::int64_t staged_bytes) const {
    if (t.is_bool()) return false;
    std::int64_t bytes = staged_bytes + ir::Stash{t, 1}.bytes();
    for (const ir::Stash& s : f_.stashes) bytes += s.bytes();
    return bytes <= stash_budget_;
  }

  // Returns how many prologue ops were inserted before the loop (0: nothing to pipeline); ops
  // inserted after it are not counted.
  std::size_t pipeline(Region& outer, std::size_t index, int max_depth) {
    Op& loop = outer.ops[index];
    Region& body = loop.regions[0];
    // A load issued an iteration early would not see this iteration's atomics, which programs
    // use to hand each other data: such loops stay in program order.
    if (ir::contains(body, OpKind::atomic)) {
      loop.attrs.num_stages = 1;
      return 0;
    }
    defs_.clear();
    for (const Op& op : body.ops)
      for (ValueId v : op.results) defs_[v] = &op;
    std::vector<std::size_t> loads;
    std::vector<ValueId> staged;  // loads (by result) staged through shared memory
    std::unordered_set<ValueId> needed, staged_needed;
    std::int64_t per_thread_total = 0, staged_bytes = 0;
    for (std::size_t i = 0; i < body.ops.size(); ++i) {
      const Op& op = body.ops[i];
      if (op.kind != OpKind::load) continue;
      const ir::Type& t = f_.type(op.results[0]);
      std::int64_t per_thread = t.numel() / (32 * num_warps_);
      // Two copies in registers would spill: shared memory holds the next one, where it can.
      const bool in_shared = per_thread > kMaxElementsPerThread;
      if (in_shared && !stageable(t, staged_bytes)) continue;
      std::unordered_set<ValueId> mine = in_shared ? staged_needed : needed;
      bool ok = true;
      for (ValueId v : op.operands) ok = ok && slice(body, v, mine);
      if (!ok) continue;
      if (in_shared) {
        staged_needed = std::move(mine);
        staged.push_back(op.results[0]);
        staged_bytes += ir::Stash{t, 1}.bytes();
        continue;
      }
      needed = std::move(mine);
      loads.push_back(i);
      per_thread_total += std::max<std::int64_t>(per_thread, 1);
    }
    if (loads.empty() && staged.empty()) {
      loop.attrs.num_stages = 1;
      return 0;
    }
    loop.attrs.num_stages = 1;  // the depth the pipelines below reach
    std::size_t inserted = 0;
    if (!loads.empty()) inserted += in_registers(outer, index, max_depth, loads, needed, per_thread_total);
    if (!staged.empty()) inserted += in_shared_memory(outer, index + inserted, staged, staged_needed);
    return inserted;
  }

  // The register pipeline of `loads` (body indices; `needed`: their address and mask slices).
  std::size_t in_registers(Region& outer, std::size_t index, int max_depth, const std::vector<std::size_t>& loads,
                           const std::unordered_set<ValueId>& needed, std::int64_t per_thread_total) {
    Op& loop = outer.ops[index];
    Region& body = loop.regions[0];
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

  // The shared-memory pipeline of the loads producing `staged` (`needed`: their slices): a
  // one-slot stash each. Copies complete in order, and each load's copy for the next iteration
  // is issued right after its read, so at any read the load's own copy is the oldest of
  // staged.size() in flight: waiting for all but the staged.size() - 1 latest lands it.
  std::size_t in_shared_memory(Region& outer, std::size_t index, const std::vector<ValueId>& staged,
                               const std::unordered_set<ValueId>& needed) {
    Op& loop = outer.ops[index];
    Region& body = loop.regions[0];
    ValueId iv = body.args[0], start = loop.operands[0], end = loop.operands[1], step = loop.operands[2];
    const auto pending = static_cast<std::int64_t>(staged.size()) - 1;
    Region prologue;
    ir::Builder b(f_);
    b.set_loc(loop.loc);
    b.set_insertion_region(&prologue);
    ValueId slot = b.constant_int(DType::i32, 0);
    auto [first_iv, first_valid] = ahead(start, reach(end, step, 0, prologue, loop.loc), prologue, loop.loc);
    std::unordered_map<ValueId, ValueId> first;
    clone_slice(body, needed, iv, first_iv, first, prologue);
    const Reach next_reach = reach(end, step, 1, prologue, loop.loc);
    std::vector<int> stashes;
    for (ValueId v : staged) {
      const Op& load = *find_def(body, v);
      stashes.push_back(b.stash(f_.type(v), 1));
      b.set_loc(load.loc);
      copy(b, stashes.back(), slot, load, first, first_valid);
    }
    for (std::size_t l = 0; l < staged.size(); ++l) {
      std::size_t at = static_cast<std::size_t>(find_def(body, staged[l]) - body.ops.data());
      const Op load = body.ops[at];
      Region here;
      b.set_insertion_region(&here);
      b.set_loc(load.loc);
      b.copies_wait(pending);
      ValueId got = b.stash_get(stashes[l], slot);
      // The copy zero-fills what the mask leaves out; the load gave `other` there.
      const bool refill = load.attrs.has_mask && load.attrs.has_other;
      ValueId value = refill ? b.select(load.operands[1], got, load.operands[2]) : got;
      auto [next_iv, valid] = ahead(iv, next_reach, here, load.loc);
      std::unordered_map<ValueId, ValueId> next;
      clone_slice(body, needed, iv, next_iv, next, here);
      b.set_insertion_region(&here);
      copy(b, stashes[l], slot, load, next, valid);
      replace_uses(body, {{load.results[0], value}});
      body.ops.erase(body.ops.begin() + static_cast<long>(at));
      body.ops.insert(body.ops.begin() + static_cast<long>(at), std::make_move_iterator(here.ops.begin()),
                      std::make_move_iterator(here.ops.end()));
    }
    if (loop.attrs.num_stages < 2) loop.attrs.num_stages = 2;  // one iteration ahead, when nothing else is
    // Nothing left in flight past the loop (the last iteration's copy is of masked-off lanes;
    // `loop` and `body` are not used once the outer region grows).
    Region after;
    b.set_insertion_region(&after);
    b.set_loc(loop.loc);
    b.copies_wait(0);
    outer.ops.insert(outer.ops.begin() + static_cast<long>(index) + 1, std::make_move_iterator(after.ops.begin()),
                     std::make_move_iterator(after.ops.end()));
    std::size_t inserted = prologue.ops.size();
    outer.ops.insert(outer.ops.begin() + static_cast<long>(index), std::make_move_iterator(prologue.ops.begin()),
                     std::make_move_iterator(prologue.ops.end()));
    return inserted;
  }

  static const Op* find_def(const Region& body, ValueId v) {
    for (const Op& op : body.ops)
      if (!op.results.empty() && op.results[0] == v) return &op;
    throw InternalError("pipeline_loop_loads: a staged load went missing");
  }

  // stash_copy of `load`'s pointers (through `map`) into `slot` of stash `id`, under its mask and
  // `valid` (whether the iteration exists).
  void copy(ir::Builder& b, int id, ValueId slot, const Op& load, std::unordered_map<ValueId, ValueId>& map,
            ValueId valid) {
    b.stash_copy(id, slot, resolve(map, load.operands[0]), guarded_mask(b, load, map, valid));
  }

  static constexpr std::int64_t kMaxElementsPerThread = 32;
  // Elements per thread that the copies in flight may hold together, for pipelines deeper than
  // one iteration ahead (one block per SM keeps 255 registers per thread; most of ours run two).
  static constexpr std::int64_t kPrefetchBudget = 64;

  ir::Function& f_;
  int num_warps_;
  int default_stages_;
  std::int64_t stash_budget_;  // shared memory staged loads may bring the kernel's stashes to
  std::unordered_map<ValueId, const Op*> defs_;
};

}  // namespace

bool pipeline_loop_loads(ir::Function& f, int num_warps, int default_stages, std::int64_t stash_budget) {
  LoopPipeliner p(f, num_warps, default_stages, stash_budget);
  bool changed = p.run(f.body);
  if (changed) eliminate_dead_code(f);
  return changed;
}

}  // namespace tilejit::passes
