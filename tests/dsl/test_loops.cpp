// for_range and loop-carried values: what becomes an iter_arg, what stays a plain use, and
// how values flow through nested loops and out of them.
#include <doctest/doctest.h>

#include <optional>

#include "dsl_test_util.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "tilejit/error.h"

using namespace dsltest;
using ir::OpKind;
namespace passes = tilejit::passes;

namespace {

const std::vector<TraceParam> kParams = {ptr_param("x", DType::f32), ptr_param("out", DType::f32), int_param("n")};

const ir::Op& only_loop(const ir::Function& f) {
  auto loops = ops_of(f, OpKind::for_range);
  REQUIRE(loops.size() == 1);
  return *loops[0];
}

}  // namespace

TEST_CASE("a Tensor reassigned inside the loop is carried; one only read is not") {
  auto f = trace(kParams, [] {
    auto x = ptr_arg(0), out = ptr_arg(1);
    auto n = int_arg(2);
    auto offs = tl::arange(0, 16);
    tl::Tensor acc = tl::zeros({16}, DType::f32);
    tl::Tensor scale = tl::full({16}, 2.0, DType::f32);  // read only
    tl::Tensor count = tl::zeros({}, DType::i32);        // a carried scalar
    tl::for_range(0, n, [&](tl::Int i) {
      acc = acc + tl::load(x + i * 16 + offs) * scale;
      count = count + 1;
    });
    tl::store(out + offs, acc);
    tl::store(out, count.to(DType::f32));
  });
  passes::canonicalize(f, /*verify_each=*/true);
  ir::verify(f);

  const ir::Op& loop = only_loop(f);
  REQUIRE(loop.results.size() == 2);
  const ir::Region& body = loop.regions[0];
  REQUIRE(body.args.size() == 3);  // induction variable, acc, count
  CHECK(type_of(f, body.args[0]) == "i32");
  CHECK(type_of(f, body.args[1]) == "f32[16]");
  CHECK(type_of(f, body.args[2]) == "i32");
  CHECK(type_of(f, loop.results[0]) == "f32[16]");
  CHECK(type_of(f, loop.results[1]) == "i32");
  // Inits are the values from before the loop.
  const ir::Op* acc_init = def_of(f, loop.operands[ir::kForFixedOperands]);
  REQUIRE(acc_init);
  CHECK(acc_init->kind == OpKind::splat);
  // The yield hands back the new accumulator (an add of the carried value).
  const ir::Op& yield = body.ops.back();
  REQUIRE(yield.kind == OpKind::yield);
  REQUIRE(yield.operands.size() == 2);
  const ir::Op* next = def_of(f, yield.operands[0]);
  REQUIRE(next);
  CHECK(next->kind == OpKind::add);
  CHECK(next->operands[0] == body.args[1]);
  // After the loop the Tensor names the loop's result.
  auto stores = ops_of(f, OpKind::store);
  REQUIRE(stores.size() == 2);
  CHECK(stores[0]->operands[1] == loop.results[0]);
  // `scale` is used inside the body directly, as a value defined outside it.
  auto muls = ops_of(f, OpKind::mul);
  bool used_directly = false;
  for (const ir::Op* m : muls)
    if (type_of(f, m->results[0]) == "f32[16]") {
      const ir::Op* d = def_of(f, m->operands[1]);
      used_directly = d && d->kind == OpKind::splat && d != acc_init;
    }
  CHECK(used_directly);
}

TEST_CASE("the loop's bounds and step become operands; num_stages is kept") {
  auto f = trace(kParams, [] {
    tl::Tensor acc = tl::zeros({16}, DType::f32);
    tl::for_range(tl::program_id(0), int_arg(2), tl::num_programs(0), {.num_stages = 3},
                  [&](tl::Int i) { acc = acc + tl::load(ptr_arg(0) + i + tl::arange(0, 16)); });
    tl::store(ptr_arg(1) + tl::arange(0, 16), acc);
  });
  const ir::Op& loop = only_loop(f);
  CHECK(loop.attrs.num_stages == 3);
  const ir::Op* start = def_of(f, loop.operands[0]);
  const ir::Op* step = def_of(f, loop.operands[2]);
  REQUIRE(start);
  REQUIRE(step);
  CHECK(start->kind == OpKind::program_id);
  CHECK(loop.operands[1] == f.params[2].value);
  CHECK(step->kind == OpKind::num_programs);
}

TEST_CASE("an i64 bound makes the induction variable i64") {
  auto f = trace({ptr_param("x", DType::f32), int_param("n", DType::i64)}, [] {
    tl::for_range(0, int_arg(1), [&](tl::Int i) {
      CHECK(i.dtype() == DType::i64);
      tl::store(ptr_arg(0) + i, 1.0);
    });
  });
  const ir::Op& loop = only_loop(f);
  CHECK(type_of(f, loop.regions[0].args[0]) == "i64");
  CHECK(type_of(f, loop.operands[0]) == "i64");
}

TEST_CASE("nested loops carry a value through both levels") {
  auto f = trace(kParams, [] {
    auto x = ptr_arg(0), out = ptr_arg(1);
    auto n = int_arg(2);
    auto offs = tl::arange(0, 16);
    tl::Tensor acc = tl::zeros({16}, DType::f32);
    tl::for_range(0, n, [&](tl::Int i) {
      tl::for_range(0, n, [&](tl::Int j) { acc = acc + tl::load(x + (i * n + j) * 16 + offs); });
    });
    tl::store(out + offs, acc);
  });
  passes::canonicalize(f, true);
  auto loops = ops_of(f, OpKind::for_range);
  REQUIRE(loops.size() == 2);
  const ir::Op& outer = *loops[0];
  const ir::Op& inner = *loops[1];
  REQUIRE(outer.results.size() == 1);
  REQUIRE(inner.results.size() == 1);
  // inner's init is outer's carried argument; outer yields inner's result.
  CHECK(inner.operands[ir::kForFixedOperands] == outer.regions[0].args[1]);
  CHECK(outer.regions[0].ops.back().operands.at(0) == inner.results[0]);
  CHECK(inner.regions[0].ops.back().operands.at(0) != inner.regions[0].args[1]);
  auto stores = ops_of(f, OpKind::store);
  REQUIRE(stores.size() == 1);
  CHECK(stores[0]->operands[1] == outer.results[0]);
}

TEST_CASE("read-only outer values are not carried after canonicalize, even in nested loops") {
  auto f = trace(kParams, [] {
    auto x = ptr_arg(0), out = ptr_arg(1);
    auto n = int_arg(2);
    auto offs = tl::arange(0, 16);
    tl::for_range(0, n, [&](tl::Int i) {
      tl::for_range(0, n, [&](tl::Int j) { tl::store(out + (i * n + j) * 16 + offs, tl::load(x + offs)); });
    });
  });
  passes::canonicalize(f, true);
  for (const ir::Op* loop : ops_of(f, OpKind::for_range)) {
    CHECK(loop->results.empty());
    CHECK(loop->regions[0].args.size() == 1);
    CHECK(loop->regions[0].ops.back().operands.empty());
  }
}

TEST_CASE("a value computed in the body cannot be used after the loop") {
  CHECK_THROWS_AS(trace(kParams,
                        [] {
                          std::optional<tl::Tensor> leaked;
                          tl::for_range(0, int_arg(2), [&](tl::Int i) { leaked.emplace(i * 2); });
                          tl::store(ptr_arg(1), *leaked);
                        }),
                  tilejit::UserError);
}

TEST_CASE("a value reassigned to itself only is dropped from the loop") {
  auto f = trace(kParams, [] {
    tl::Tensor v = tl::zeros({16}, DType::f32);
    tl::for_range(0, int_arg(2), [&](tl::Int) {
      tl::Tensor same = v;
      v = same;
      tl::store(ptr_arg(1) + tl::arange(0, 16), v);
    });
  });
  passes::canonicalize(f, true);
  CHECK(only_loop(f).results.empty());
}

TEST_CASE("a loop whose results are unused and that stores nothing is removed") {
  auto f = trace(kParams, [] {
    tl::Tensor acc = tl::zeros({16}, DType::f32);
    tl::for_range(0, int_arg(2), [&](tl::Int) { acc = acc + 1.0; });
  });
  REQUIRE(ops_of(f, OpKind::for_range).size() == 1);
  passes::canonicalize(f, true);
  CHECK(ops_of(f, OpKind::for_range).empty());
  CHECK(f.body.ops.empty());
}

namespace {

// A loop summing `block` floats per iteration, pipelined with `stages` at `num_warps`.
ir::Function pipelined_sum(std::int64_t block, int stages, int num_warps,
                           std::int64_t stash_budget = tl::kMaxStashBytes) {
  auto f = trace(kParams, [&] {
    tl::Tensor acc = tl::zeros({block}, DType::f32);
    tl::for_range(tl::program_id(0), int_arg(2), tl::num_programs(0), {.num_stages = stages},
                  [&](tl::Int i) { acc = acc + tl::load(ptr_arg(0) + i * block + tl::arange(0, block)); });
    tl::store(ptr_arg(1) + tl::arange(0, block), acc);
  });
  passes::canonicalize(f, true);
  passes::pipeline_loop_loads(f, num_warps, 1, stash_budget);
  passes::canonicalize(f, true);
  ir::verify(f);
  return f;
}

// Ops of `kind` at the top level (before or after the loop) and inside its body.
std::pair<std::size_t, std::size_t> outside_and_inside(const ir::Function& f, OpKind kind) {
  std::size_t outside = 0;
  for (const ir::Op& op : f.body.ops) outside += op.kind == kind;
  return {outside, ops_of(f, kind).size() - outside};
}

// Loads at the top level (before the loop) and inside its body.
std::pair<std::size_t, std::size_t> loads_outside_and_inside(const ir::Function& f) {
  std::size_t outside = 0;
  for (const ir::Op& op : f.body.ops) outside += op.kind == OpKind::load;
  return {outside, ops_of(f, OpKind::load).size() - outside};
}

}  // namespace

TEST_CASE("num_stages = s keeps the loads of s - 1 iterations in flight") {
  for (int stages : {2, 3, 4}) {
    CAPTURE(stages);
    ir::Function f = pipelined_sum(64, stages, 1);  // 2 elements per thread
    const ir::Op& loop = only_loop(f);
    const std::size_t depth = static_cast<std::size_t>(stages - 1);
    CHECK(loads_outside_and_inside(f) == std::pair<std::size_t, std::size_t>{depth, 1});
    // Carried: the sum, then one value per iteration ahead; the body reads the first of them
    // and yields the others shifted down, then its own load.
    const ir::Region& body = loop.regions[0];
    REQUIRE(body.args.size() == 2 + depth);
    const ir::Op& yield = body.ops.back();
    for (std::size_t k = 1; k < depth; ++k) CHECK(yield.operands[1 + k - 1] == body.args[2 + k]);
    const ir::Op* last = def_of(f, yield.operands.back());
    REQUIRE(last);
    CHECK(last->kind == OpKind::load);
    // The first carried value feeds the sum; no other does.
    const ir::Op* add = def_of(f, yield.operands[0]);
    REQUIRE(add);
    CHECK(add->kind == OpKind::add);
    CHECK((add->operands[0] == body.args[2] || add->operands[1] == body.args[2]));
  }
}

TEST_CASE("deep pipelines stop where the copies in flight would take too many registers") {
  // 32 elements per thread: two copies in flight fit the budget of 64, a third does not.
  CHECK(loads_outside_and_inside(pipelined_sum(1024, 4, 1)).first == 2);
  // 64 per thread, where shared memory may not hold it: not even one copy ahead.
  CHECK(loads_outside_and_inside(pipelined_sum(2048, 4, 1, 0)) == std::pair<std::size_t, std::size_t>{0, 1});
  // One stage: nothing to pipeline.
  CHECK(loads_outside_and_inside(pipelined_sum(64, 1, 1)).first == 0);
}

TEST_CASE("in nested loops only the inner loop's loads are pipelined, not its prologue") {
  auto f = trace(kParams, [] {
    tl::for_range(tl::program_id(0), int_arg(2), tl::num_programs(0), [&](tl::Int row) {
      tl::Tensor acc = tl::zeros({64}, DType::f32);
      tl::for_range(0, int_arg(2), 64,
                    [&](tl::Int c) { acc = acc + tl::load(ptr_arg(0) + row * int_arg(2) + c + tl::arange(0, 64)); });
      tl::store(ptr_arg(1) + row * 64 + tl::arange(0, 64), acc);
    });
  });
  passes::canonicalize(f, true);
  passes::pipeline_loop_loads(f, 1, 2, tl::kMaxStashBytes);
  passes::canonicalize(f, true);
  ir::verify(f);
  // The outer loop fetches nothing ahead: the inner loop's first load stays in the outer body,
  // just before the inner loop, instead of being issued a whole row early.
  CHECK(loads_outside_and_inside(f).first == 0);
  const ir::Op* outer = nullptr;
  for (const ir::Op& op : f.body.ops)
    if (op.kind == OpKind::for_range) outer = &op;
  REQUIRE(outer);
  CHECK(outer->regions[0].args.size() == 1);
  CHECK(outer->attrs.num_stages == 1);
  const ir::Op* inner = nullptr;
  std::size_t loads_in_outer_body = 0;
  for (const ir::Op& op : outer->regions[0].ops) {
    if (op.kind == OpKind::for_range) inner = &op;
    loads_in_outer_body += op.kind == OpKind::load;
  }
  REQUIRE(inner);
  CHECK(loads_in_outer_body == 1);
  CHECK(inner->regions[0].args.size() == 3);  // the column, the sum and the next step's block
  CHECK(inner->attrs.num_stages == 2);
}

TEST_CASE("a load too wide for a second copy in registers is staged through shared memory, one iteration ahead") {
  using Count = std::pair<std::size_t, std::size_t>;
  ir::Function f = pipelined_sum(2048, 4, 1);  // 64 elements per thread
  // No load left: the first iteration's copy before the loop, the next one's in the body.
  CHECK(loads_outside_and_inside(f) == Count{0, 0});
  CHECK(outside_and_inside(f, OpKind::stash_copy) == Count{1, 1});
  CHECK(outside_and_inside(f, OpKind::stash_get) == Count{0, 1});
  // A wait before the read in the body, and one after the loop: no copy outlives it.
  CHECK(outside_and_inside(f, OpKind::copies_wait) == Count{1, 1});
  REQUIRE(f.stashes.size() == 1);
  CHECK(f.stashes[0].slots == 1);
  CHECK(f.stashes[0].block == ir::Type{DType::f32, false, {2048}});
  const ir::Op& loop = only_loop(f);
  CHECK(loop.attrs.num_stages == 2);
  CHECK(loop.regions[0].args.size() == 2);  // the induction variable and the sum: nothing carried
  // In the body: wait, read, then the next iteration's copy into the slot just read.
  std::vector<OpKind> order;
  for (const ir::Op& op : loop.regions[0].ops)
    if (op.kind == OpKind::copies_wait || op.kind == OpKind::stash_get || op.kind == OpKind::stash_copy)
      order.push_back(op.kind);
  CHECK(order == std::vector<OpKind>{OpKind::copies_wait, OpKind::stash_get, OpKind::stash_copy});
  // The stash's bytes are bounded like tl::stash's: a block that would not fit is left alone.
  ir::Function too_big = pipelined_sum(std::int64_t{1} << 16, 2, 1);  // 256 KiB of f32
  CHECK(too_big.stashes.empty());
  CHECK(loads_outside_and_inside(too_big) == Count{0, 1});
}

TEST_CASE("two staged loads in one loop each wait for their own copy, the other's next one still in flight") {
  auto f = trace(kParams, [] {
    tl::Tensor acc = tl::zeros({2048}, DType::f32);
    tl::for_range(tl::program_id(0), int_arg(2), tl::num_programs(0), {.num_stages = 2}, [&](tl::Int i) {
      auto cols = tl::arange(0, 2048);
      acc = acc + tl::load(ptr_arg(0) + i * 2048 + cols) * tl::load(ptr_arg(1) + i * 2048 + cols);
    });
    tl::store(ptr_arg(1) + tl::arange(0, 2048), acc);
  });
  passes::canonicalize(f, true);
  passes::pipeline_loop_loads(f, 1, 1, tl::kMaxStashBytes);
  passes::canonicalize(f, true);
  ir::verify(f);
  CHECK(f.stashes.size() == 2);
  CHECK(outside_and_inside(f, OpKind::stash_copy) == std::pair<std::size_t, std::size_t>{2, 2});
  // Copies land in the order they started, and at each read the load's own copy is the older of
  // the two in flight (the other load's copy was issued after it): all but the latest must land.
  std::vector<std::int64_t> pending;
  for (const ir::Op& op : only_loop(f).regions[0].ops)
    if (op.kind == OpKind::copies_wait) pending.push_back(op.attrs.int_value);
  CHECK(pending == std::vector<std::int64_t>{1, 1});
}

TEST_CASE("a staged load's masked-off elements still read as its `other`") {
  auto f = trace(kParams, [] {
    tl::for_range(tl::program_id(0), int_arg(2), tl::num_programs(0), {.num_stages = 2}, [&](tl::Int row) {
      auto cols = tl::arange(0, 4096);
      auto x = tl::load(ptr_arg(0) + row * 4096 + cols, cols < int_arg(2), -tl::inf);
      tl::store(ptr_arg(1) + row * 4096 + cols, x, cols < int_arg(2));
    });
  });
  passes::canonicalize(f, true);
  passes::pipeline_loop_loads(f, 1, 1, tl::kMaxStashBytes);  // 128 elements per thread
  passes::canonicalize(f, true);
  ir::verify(f);
  // The copy zero-fills where the mask is off; a select puts `other` back before any use.
  std::vector<const ir::Op*> stores = ops_of(f, OpKind::store);
  REQUIRE(stores.size() == 1);
  const ir::Op* value = def_of(f, stores[0]->operands[1]);
  REQUIRE(value);
  CHECK(value->kind == OpKind::select);
  const ir::Op* got = def_of(f, value->operands[1]);
  REQUIRE(got);
  CHECK(got->kind == OpKind::stash_get);
}
