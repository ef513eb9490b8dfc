#include "ir/builder.h"

#include <fmt/format.h>

#include "ir/type_rules.h"
#include "tilejit/error.h"

namespace tilejit::ir {

std::vector<ValueId> Builder::append(Op op, std::size_t results) {
  op.loc = loc_;
  auto types = infer_result_types(f_, op);
  if (types.size() != results)
    throw InternalError(fmt::format("builder: op must have {} result(s), the rules give {}", results, types.size()));
  for (const Type& t : types) op.results.push_back(f_.new_value(t));
  std::vector<ValueId> r = op.results;
  region_->ops.push_back(std::move(op));
  return r;
}

ValueId Builder::single(Op op) { return append(std::move(op), 1)[0]; }

std::pair<ValueId, ValueId> Builder::two(Op op) {
  auto r = append(std::move(op), 2);
  return {r[0], r[1]};
}

// For ops whose result shape is not implied by the operands (splat, broadcast): the result
// is created first, then checked against the rules.
ValueId Builder::single_declared(Op op, Type declared) {
  op.loc = loc_;
  op.results.push_back(f_.new_value(declared));
  auto types = infer_result_types(f_, op);
  if (types.size() != 1 || types[0] != declared)
    throw InternalError("builder: declared type does not follow the rules");
  ValueId r = op.results[0];
  region_->ops.push_back(std::move(op));
  return r;
}

ValueId Builder::constant_int(DType t, std::int64_t v) {
  Op op{OpKind::constant, {}, {}, {}, {}, {}};
  op.attrs.dtype = t;
  op.attrs.int_value = v;
  if (is_float(t)) op.attrs.float_value = static_cast<double>(v);
  return single(std::move(op));
}

ValueId Builder::constant_float(DType t, double v) {
  Op op{OpKind::constant, {}, {}, {}, {}, {}};
  op.attrs.dtype = t;
  op.attrs.float_value = v;
  if (!is_float(t)) throw InternalError("builder: float constant of integer type");
  return single(std::move(op));
}

ValueId Builder::program_id(int axis) {
  Op op{OpKind::program_id, {}, {}, {}, {}, {}};
  op.attrs.int_value = axis;
  return single(std::move(op));
}

ValueId Builder::num_programs(int axis) {
  Op op{OpKind::num_programs, {}, {}, {}, {}, {}};
  op.attrs.int_value = axis;
  return single(std::move(op));
}

ValueId Builder::arange(std::int64_t start, std::int64_t end) {
  Op op{OpKind::arange, {}, {}, {}, {}, {}};
  op.attrs.start = start;
  op.attrs.end = end;
  return single(std::move(op));
}

ValueId Builder::splat(ValueId scalar, const Shape& shape) {
  return single_declared(Op{OpKind::splat, {scalar}, {}, {}, {}, {}}, f_.type(scalar).with_shape(shape));
}

ValueId Builder::broadcast(ValueId v, const Shape& shape) {
  return single_declared(Op{OpKind::broadcast, {v}, {}, {}, {}, {}}, f_.type(v).with_shape(shape));
}

ValueId Builder::expand_dims(ValueId v, int axis) {
  Op op{OpKind::expand_dims, {v}, {}, {}, {}, {}};
  op.attrs.axis = axis;
  return single(std::move(op));
}

ValueId Builder::binary(OpKind k, ValueId a, ValueId b) { return single(Op{k, {a, b}, {}, {}, {}, {}}); }

ValueId Builder::unary(OpKind k, ValueId a) { return single(Op{k, {a}, {}, {}, {}, {}}); }

ValueId Builder::exp2_flushing_subnormals(ValueId a) {
  Op op{OpKind::exp2, {a}, {}, {}, {}, {}};
  op.attrs.flush_subnormals = true;
  return single(std::move(op));
}

ValueId Builder::cast(ValueId v, DType to) {
  Op op{OpKind::cast, {v}, {}, {}, {}, {}};
  op.attrs.dtype = to;
  return single(std::move(op));
}

ValueId Builder::select(ValueId cond, ValueId a, ValueId b) {
  return single(Op{OpKind::select, {cond, a, b}, {}, {}, {}, {}});
}

ValueId Builder::fma(ValueId a, ValueId b, ValueId c) { return single(Op{OpKind::fma, {a, b, c}, {}, {}, {}, {}}); }

ValueId Builder::addptr(ValueId ptr, ValueId offset) {
  return single(Op{OpKind::addptr, {ptr, offset}, {}, {}, {}, {}});
}

ValueId Builder::load(ValueId ptr, ValueId mask, ValueId other, Eviction eviction) {
  Op op{OpKind::load, {ptr}, {}, {}, {}, {}};
  op.attrs.eviction = eviction;
  if (mask != kNoValue) {
    op.operands.push_back(mask);
    op.attrs.has_mask = true;
  }
  if (other != kNoValue) {
    op.operands.push_back(other);
    op.attrs.has_other = true;
  }
  return single(std::move(op));
}

void Builder::store(ValueId ptr, ValueId value, ValueId mask, Eviction eviction) {
  Op op{OpKind::store, {ptr, value}, {}, {}, {}, {}};
  op.attrs.eviction = eviction;
  if (mask != kNoValue) {
    op.operands.push_back(mask);
    op.attrs.has_mask = true;
  }
  op.loc = loc_;
  infer_result_types(f_, op);
  region_->ops.push_back(std::move(op));
}

ValueId Builder::atomic(AtomicKind k, ValueId ptr, ValueId value, ValueId compare, ValueId mask) {
  Op op{OpKind::atomic, {ptr}, {}, {}, {}, {}};
  op.attrs.atomic = k;
  if (compare != kNoValue) op.operands.push_back(compare);
  op.operands.push_back(value);
  if (mask != kNoValue) {
    op.operands.push_back(mask);
    op.attrs.has_mask = true;
  }
  return single(std::move(op));
}

ValueId Builder::reduce(ValueId v, int axis, ReduceKind k) {
  Op op{OpKind::reduce, {v}, {}, {}, {}, {}};
  op.attrs.axis = axis;
  op.attrs.reduce = k;
  return single(std::move(op));
}

ValueId Builder::cluster_reduce(ValueId v, int cluster_size, ReduceKind k) {
  Op op{OpKind::cluster_reduce, {v}, {}, {}, {}, {}};
  op.attrs.cluster_size = cluster_size;
  op.attrs.reduce = k;
  return single(std::move(op));
}

ValueId Builder::group_reduce(ValueId v, ValueId workspace, int group_size, ReduceKind k) {
  Op op{OpKind::group_reduce, {v, workspace}, {}, {}, {}, {}};
  op.attrs.cluster_size = group_size;
  op.attrs.reduce = k;
  return single(std::move(op));
}

std::pair<ValueId, ValueId> Builder::softmax_stats(ValueId max, ValueId sum, int size, ValueId workspace) {
  const bool group = workspace != kNoValue;
  Op op{group ? OpKind::group_reduce : OpKind::cluster_reduce, {max, sum}, {}, {}, {}, {}};
  if (group) op.operands.push_back(workspace);
  op.attrs.cluster_size = size;
  op.attrs.reduce = ReduceKind::softmax_stats;
  return two(std::move(op));
}

ValueId Builder::group_softmax_stats_start(ValueId max, ValueId sum, int group_size, ValueId workspace) {
  Op op{OpKind::group_reduce, {max, sum, workspace}, {}, {}, {}, {}};
  op.attrs.cluster_size = group_size;
  op.attrs.reduce = ReduceKind::softmax_stats;
  op.attrs.phase = ExchangePhase::start;
  return single(std::move(op));
}

std::pair<ValueId, ValueId> Builder::group_softmax_stats_finish(ValueId ticket, int group_size, ValueId workspace) {
  Op op{OpKind::group_reduce, {ticket, workspace}, {}, {}, {}, {}};
  op.attrs.cluster_size = group_size;
  op.attrs.reduce = ReduceKind::softmax_stats;
  op.attrs.phase = ExchangePhase::finish;
  return two(std::move(op));
}

int Builder::stash(const Type& block, std::int64_t slots) {
  f_.stashes.push_back(Stash{block, slots});
  return static_cast<int>(f_.stashes.size() - 1);
}

void Builder::stash_put(int id, ValueId slot, ValueId value) {
  Op op{OpKind::stash_put, {slot, value}, {}, {}, {}, {}};
  op.attrs.int_value = id;
  op.loc = loc_;
  infer_result_types(f_, op);
  region_->ops.push_back(std::move(op));
}

ValueId Builder::stash_get(int id, ValueId slot) {
  Op op{OpKind::stash_get, {slot}, {}, {}, {}, {}};
  op.attrs.int_value = id;
  return single(std::move(op));
}

void Builder::stash_copy(int id, ValueId slot, ValueId ptrs, ValueId mask) {
  Op op{OpKind::stash_copy, {slot, ptrs, mask}, {}, {}, {}, {}};
  op.attrs.int_value = id;
  op.attrs.has_mask = true;
  op.loc = loc_;
  infer_result_types(f_, op);
  region_->ops.push_back(std::move(op));
}

void Builder::copies_wait(std::int64_t pending) {
  Op op{OpKind::copies_wait, {}, {}, {}, {}, {}};
  op.attrs.int_value = pending;
  op.loc = loc_;
  infer_result_types(f_, op);
  region_->ops.push_back(std::move(op));
}

void Builder::yield(const std::vector<ValueId>& values) {
  Op op{OpKind::yield, values, {}, {}, {}, {}};
  op.loc = loc_;
  region_->ops.push_back(std::move(op));
}

std::vector<ValueId> Builder::for_range(ValueId start, ValueId end, ValueId step, const std::vector<ValueId>& inits,
                                        Region body, int num_stages) {
  Op op{OpKind::for_range, {start, end, step}, {}, {}, {}, {}};
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  op.attrs.num_stages = num_stages;
  op.loc = loc_;
  for (const Type& t : infer_result_types(f_, op)) op.results.push_back(f_.new_value(t));
  op.regions.push_back(std::move(body));
  std::vector<ValueId> results = op.results;
  region_->ops.push_back(std::move(op));
  return results;
}

}  // namespace tilejit::ir
