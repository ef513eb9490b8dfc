// The front end's semantic layer: promotion, broadcasting, pointers, reductions and the
// creation ops, checked on the IR that tracing records. Expected types follow Triton's rules
// (python/triton/language/semantic.py), not the code under test.
#include <doctest/doctest.h>

#include "dsl_test_util.h"

using namespace dsltest;
using ir::OpKind;

namespace {

// A scalar parameter of any element type (tracing accepts any dtype for scalars).
TraceParam scalar_param(const std::string& name, DType t) {
  return {name, is_float(t) ? TraceParam::Kind::floating : TraceParam::Kind::integer, t, 0};
}

}  // namespace

TEST_CASE("promotion of two traced values follows Triton's table") {
  struct Row {
    DType a, b, expected;
  };
  const Row rows[] = {
      {DType::f16, DType::bf16, DType::f32},  // neither half type holds the other
      {DType::bf16, DType::f16, DType::f32},  {DType::f16, DType::f32, DType::f32},
      {DType::bf16, DType::f64, DType::f64},  {DType::i32, DType::i64, DType::i64},
      {DType::i64, DType::i32, DType::i64},   {DType::i1, DType::i32, DType::i32},
      {DType::i32, DType::f16, DType::f16},  // integer with float: the float type
      {DType::i64, DType::bf16, DType::bf16}, {DType::f32, DType::f32, DType::f32},
  };
  for (const Row& row : rows) {
    CAPTURE(tilejit::dtype_name(row.a));
    CAPTURE(tilejit::dtype_name(row.b));
    DType got = DType::i1;
    auto f = trace({scalar_param("a", row.a), scalar_param("b", row.b)}, [&] {
      auto a = int_arg(0), b = int_arg(1);
      got = (a + b).dtype();
    });
    CHECK(got == row.expected);
    auto adds = ops_of(f, OpKind::add);
    REQUIRE(adds.size() == 1);
    CHECK(f.type(adds[0]->results[0]) == ir::Type::scalar(row.expected));
    // Operands not already of the result type arrive through an explicit cast.
    for (ir::ValueId v : adds[0]->operands) {
      CHECK(f.type(v) == ir::Type::scalar(row.expected));
      if (const ir::Op* d = def_of(f, v)) {
        CHECK(d->kind == OpKind::cast);
        CHECK(d->attrs.dtype == row.expected);
      }
    }
  }
}

TEST_CASE("promotion: f16 block + bf16 block is f32, both sides cast") {
  auto f = trace({ptr_param("a", DType::f16), ptr_param("b", DType::bf16)}, [] {
    auto offs = tl::arange(0, 16);
    auto s = tl::load(ptr_arg(0) + offs) + tl::load(ptr_arg(1) + offs);
    CHECK(s.dtype() == DType::f32);
    CHECK(s.shape() == tl::Shape{16});
  });
  auto adds = ops_of(f, OpKind::add);
  REQUIRE(adds.size() == 1);
  CHECK(type_of(f, adds[0]->results[0]) == "f32[16]");
  auto casts = ops_of(f, OpKind::cast);
  REQUIRE(casts.size() == 2);
  CHECK(type_of(f, casts[0]->operands[0]) == "f16[16]");
  CHECK(type_of(f, casts[1]->operands[0]) == "bf16[16]");
}

TEST_CASE("promotion with C++ literals: the literal adapts to the block") {
  SUBCASE("int literal with an f16 block stays f16") {
    auto f = trace({ptr_param("x", DType::f16)}, [] {
      auto x = tl::load(ptr_arg(0) + tl::arange(0, 16));
      CHECK((x + 1).dtype() == DType::f16);
      CHECK((2 * x).dtype() == DType::f16);
    });
    CHECK(ops_of(f, OpKind::cast).empty());
    for (const ir::Op* c : ops_of(f, OpKind::constant)) CHECK(c->attrs.dtype == DType::f16);
  }
  SUBCASE("float literal with an f16 block stays f16") {
    trace({ptr_param("x", DType::f16)}, [] {
      auto x = tl::load(ptr_arg(0) + tl::arange(0, 16));
      CHECK((x * 0.5).dtype() == DType::f16);
    });
  }
  SUBCASE("float literal with an i32 block gives f32") {
    auto f = trace({}, [] {
      auto y = tl::arange(0, 16) + 0.5;
      CHECK(y.dtype() == DType::f32);
    });
    auto casts = ops_of(f, OpKind::cast);
    REQUIRE(casts.size() == 1);
    CHECK(type_of(f, casts[0]->operands[0]) == "i32[16]");
    CHECK(type_of(f, casts[0]->results[0]) == "f32[16]");
    auto consts = ops_of(f, OpKind::constant);
    REQUIRE(consts.size() == 1);
    CHECK(consts[0]->attrs.dtype == DType::f32);
    CHECK(consts[0]->attrs.float_value == 0.5);
  }
  SUBCASE("an integer literal too wide for i32 makes the operation i64") {
    trace({int_param("n")}, [] { CHECK((int_arg(0) + (std::int64_t{1} << 40)).dtype() == DType::i64); });
  }
  SUBCASE("i1 & i32 gives i32") {
    auto f = trace({int_param("n")}, [] {
      auto offs = tl::arange(0, 16);
      auto r = (offs < int_arg(0)) & offs;
      CHECK(r.dtype() == DType::i32);
      CHECK(r.shape() == tl::Shape{16});
    });
    auto ands = ops_of(f, OpKind::bit_and);
    REQUIRE(ands.size() == 1);
    CHECK(type_of(f, ands[0]->results[0]) == "i32[16]");
  }
}

TEST_CASE("broadcasting") {
  SUBCASE("[32,1] with [1,64] gives [32,64] through explicit broadcasts") {
    auto f = trace({}, [] {
      auto rows = tl::arange(0, 32)(tl::all, tl::newaxis);
      auto cols = tl::arange(0, 64)(tl::newaxis, tl::all);
      CHECK(rows.shape() == tl::Shape{32, 1});
      CHECK(cols.shape() == tl::Shape{1, 64});
      CHECK((rows * 64 + cols).shape() == tl::Shape{32, 64});
    });
    auto bcasts = ops_of(f, OpKind::broadcast);
    REQUIRE(bcasts.size() >= 2);
    for (const ir::Op* b : bcasts) CHECK(f.type(b->results[0]).shape == ir::Shape{32, 64});
    auto adds = ops_of(f, OpKind::add);
    REQUIRE(adds.size() == 1);
    CHECK(type_of(f, adds[0]->operands[0]) == "i32[32,64]");
    CHECK(type_of(f, adds[0]->operands[1]) == "i32[32,64]");
  }
  SUBCASE("x(all, newaxis) and x(newaxis, all) are expand_dims at axis 1 and 0") {
    auto f = trace({}, [] {
      auto x = tl::arange(0, 8);
      CHECK(x(tl::all, tl::newaxis).shape() == tl::Shape{8, 1});
      CHECK(x(tl::newaxis, tl::all).shape() == tl::Shape{1, 8});
    });
    auto ex = ops_of(f, OpKind::expand_dims);
    REQUIRE(ex.size() == 2);
    CHECK(ex[0]->attrs.axis == 1);
    CHECK(ex[1]->attrs.axis == 0);
  }
  SUBCASE("a scalar is splat to the block's shape") {
    auto f = trace({int_param("n")}, [] { CHECK((int_arg(0) + tl::arange(0, 16)).shape() == tl::Shape{16}); });
    auto splats = ops_of(f, OpKind::splat);
    REQUIRE(splats.size() == 1);
    CHECK(splats[0]->operands[0] == f.params[0].value);
    CHECK(type_of(f, splats[0]->results[0]) == "i32[16]");
  }
  SUBCASE("a 1-D block next to a 2-D one gains a leading unit dimension") {
    auto f = trace({}, [] {
      auto m = tl::zeros({4, 16}, DType::f32);
      CHECK((m + tl::arange(0, 16).to(DType::f32)).shape() == tl::Shape{4, 16});
    });
    auto ex = ops_of(f, OpKind::expand_dims);
    REQUIRE(ex.size() == 1);
    CHECK(ex[0]->attrs.axis == 0);
    CHECK(type_of(f, ex[0]->results[0]) == "f32[1,16]");
  }
}

TEST_CASE("comparisons give i1 of the broadcast shape") {
  auto f = trace({int_param("n"), ptr_param("x", DType::f32)}, [] {
    auto offs = tl::arange(0, 16);
    auto lt = offs < int_arg(0);
    CHECK(lt.dtype() == DType::i1);
    CHECK(lt.shape() == tl::Shape{16});
    auto x = tl::load(ptr_arg(1) + offs);
    CHECK((x == 0.0).dtype() == DType::i1);
    CHECK((offs(tl::all, tl::newaxis) != offs(tl::newaxis, tl::all)).shape() == tl::Shape{16, 16});
    CHECK((offs >= 2.5).dtype() == DType::i1);  // compared in f32
  });
  auto lts = ops_of(f, OpKind::cmp_lt);
  REQUIRE(lts.size() == 1);
  CHECK(type_of(f, lts[0]->results[0]) == "i1[16]");
  auto ges = ops_of(f, OpKind::cmp_ge);
  REQUIRE(ges.size() == 1);
  CHECK(type_of(f, ges[0]->operands[0]) == "f32[16]");
}

TEST_CASE("pointer arithmetic is addptr") {
  SUBCASE("pointer + int block") {
    auto f = trace({ptr_param("x", DType::f16)}, [] {
      auto p = ptr_arg(0) + tl::arange(0, 16);
      CHECK(p.is_pointer());
      CHECK(p.dtype() == DType::f16);
      CHECK(p.shape() == tl::Shape{16});
    });
    auto adds = ops_of(f, OpKind::addptr);
    REQUIRE(adds.size() == 1);
    CHECK(type_of(f, adds[0]->results[0]) == "ptr<f16>[16]");
    CHECK(type_of(f, adds[0]->operands[1]) == "i32[16]");
    CHECK(ops_of(f, OpKind::add).empty());
  }
  SUBCASE("int + pointer puts the pointer first") {
    auto f =
        trace({ptr_param("x", DType::bf16), int_param("k")}, [] { CHECK((int_arg(1) + ptr_arg(0)).is_pointer()); });
    auto adds = ops_of(f, OpKind::addptr);
    REQUIRE(adds.size() == 1);
    CHECK(adds[0]->operands[0] == f.params[0].value);
    CHECK(adds[0]->operands[1] == f.params[1].value);
  }
  SUBCASE("pointer - int adds the negated offset") {
    auto f = trace({ptr_param("x", DType::f32)}, [] { CHECK((ptr_arg(0) - 3).is_pointer()); });
    auto adds = ops_of(f, OpKind::addptr);
    REQUIRE(adds.size() == 1);
    const ir::Op* off = def_of(f, adds[0]->operands[1]);
    REQUIRE(off);
    CHECK(off->kind == OpKind::neg);
    const ir::Op* three = def_of(f, off->operands[0]);
    REQUIRE(three);
    CHECK(three->kind == OpKind::constant);
    CHECK(three->attrs.int_value == 3);
  }
  SUBCASE("pointer + i64 offset keeps the 64-bit offset") {
    auto f = trace({ptr_param("x", DType::f32), int_param("off", DType::i64)},
                   [] { CHECK((ptr_arg(0) + int_arg(1)).is_pointer()); });
    auto adds = ops_of(f, OpKind::addptr);
    REQUIRE(adds.size() == 1);
    CHECK(type_of(f, adds[0]->operands[1]) == "i64");
  }
}

TEST_CASE("reductions drop the axis") {
  auto f = trace({ptr_param("x", DType::f32)}, [] {
    auto x =
        tl::load(ptr_arg(0) + tl::arange(0, 32)(tl::all, tl::newaxis) * 64 + tl::arange(0, 64)(tl::newaxis, tl::all));
    CHECK(x.shape() == tl::Shape{32, 64});
    CHECK(tl::sum(x, 1).shape() == tl::Shape{32});
    CHECK(tl::max(x, 0).shape() == tl::Shape{64});
    auto total = tl::min(tl::sum(x, 1), 0);
    CHECK(total.rank() == 0);
    CHECK(total.dtype() == DType::f32);
  });
  auto reds = ops_of(f, OpKind::reduce);
  REQUIRE(reds.size() == 4);
  CHECK(reds[0]->attrs.reduce == ir::ReduceKind::sum);
  CHECK(reds[0]->attrs.axis == 1);
  CHECK(type_of(f, reds[0]->results[0]) == "f32[32]");
  CHECK(reds[1]->attrs.reduce == ir::ReduceKind::max);
  CHECK(type_of(f, reds[1]->results[0]) == "f32[64]");
  CHECK(reds[3]->attrs.reduce == ir::ReduceKind::min);
  CHECK(type_of(f, reds[3]->results[0]) == "f32");
}

TEST_CASE("sum of booleans counts them in i32") {
  auto f = trace({int_param("n")}, [] {
    auto count = tl::sum(tl::arange(0, 128) < int_arg(0), 0);
    CHECK(count.dtype() == DType::i32);
    CHECK(count.rank() == 0);
  });
  auto reds = ops_of(f, OpKind::reduce);
  REQUIRE(reds.size() == 1);
  CHECK(type_of(f, reds[0]->operands[0]) == "i32[128]");  // i1 widened first
  CHECK(type_of(f, reds[0]->results[0]) == "i32");
}

TEST_CASE("cdiv(a, b) is (a + b - 1) / b in the integers") {
  auto f = trace({int_param("n")}, [] {
    auto c = tl::cdiv(int_arg(0), 16);
    CHECK(c.dtype() == DType::i32);
    CHECK(c.rank() == 0);
  });
  auto divs = ops_of(f, OpKind::div);
  REQUIRE(divs.size() == 1);
  const ir::Op* sub = def_of(f, divs[0]->operands[0]);
  REQUIRE(sub);
  REQUIRE(sub->kind == OpKind::sub);
  const ir::Op* add = def_of(f, sub->operands[0]);
  REQUIRE(add);
  REQUIRE(add->kind == OpKind::add);
  CHECK(add->operands[0] == f.params[0].value);
  auto literal = [&](ir::ValueId v) {
    const ir::Op* d = def_of(f, v);
    return d && d->kind == OpKind::constant ? d->attrs.int_value : -999;
  };
  CHECK(literal(add->operands[1]) == 16);
  CHECK(literal(sub->operands[1]) == 1);
  CHECK(literal(divs[0]->operands[1]) == 16);
}

TEST_CASE("where selects with broadcasting and promotion") {
  auto f = trace({ptr_param("x", DType::f16), int_param("n")}, [] {
    auto offs = tl::arange(0, 16);
    auto x = tl::load(ptr_arg(0) + offs);
    auto y = tl::where(offs < int_arg(1), x, 0.0);
    CHECK(y.dtype() == DType::f16);
    CHECK(y.shape() == tl::Shape{16});
    auto z = tl::where(offs < 4, 1, 0);  // scalar branches take the condition's shape
    CHECK(z.dtype() == DType::i32);
    CHECK(z.shape() == tl::Shape{16});
  });
  auto sels = ops_of(f, OpKind::select);
  REQUIRE(sels.size() == 2);
  CHECK(type_of(f, sels[0]->operands[0]) == "i1[16]");
  CHECK(type_of(f, sels[0]->results[0]) == "f16[16]");
  CHECK(type_of(f, sels[1]->results[0]) == "i32[16]");
}

TEST_CASE("casts") {
  auto f = trace({ptr_param("x", DType::f32)}, [] {
    auto offs = tl::arange(0, 16);
    auto x = tl::load(ptr_arg(0) + offs);
    CHECK(x.to(DType::f16).dtype() == DType::f16);
    CHECK(x.to(DType::f32).dtype() == DType::f32);  // no-op
    CHECK(tl::cast(offs, DType::bf16).dtype() == DType::bf16);
    CHECK(tl::cast(offs, DType::i1).dtype() == DType::i1);
  });
  auto casts = ops_of(f, OpKind::cast);
  REQUIRE(casts.size() == 3);  // the f32 -> f32 conversion records nothing
  CHECK(type_of(f, casts[0]->results[0]) == "f16[16]");
  CHECK(casts[0]->attrs.dtype == DType::f16);
  CHECK(type_of(f, casts[1]->results[0]) == "bf16[16]");
  CHECK(type_of(f, casts[2]->results[0]) == "i1[16]");
}

TEST_CASE("full and zeros") {
  auto f = trace({}, [] {
    auto a = tl::full({16}, 2.5, DType::f16);
    CHECK(a.dtype() == DType::f16);
    CHECK(a.shape() == tl::Shape{16});
    auto b = tl::zeros({4, 8}, DType::i32);
    CHECK(b.dtype() == DType::i32);
    CHECK(b.shape() == tl::Shape{4, 8});
    auto c = tl::full({}, 7, DType::i64);
    CHECK(c.rank() == 0);
    CHECK(c.dtype() == DType::i64);
    auto d = tl::full({8}, -tl::inf, DType::f32);
    CHECK(d.dtype() == DType::f32);
  });
  auto consts = ops_of(f, OpKind::constant);
  REQUIRE(consts.size() == 4);
  CHECK(consts[0]->attrs.dtype == DType::f16);
  CHECK(consts[0]->attrs.float_value == 2.5);
  CHECK(consts[1]->attrs.dtype == DType::i32);
  CHECK(consts[1]->attrs.int_value == 0);
  CHECK(consts[2]->attrs.dtype == DType::i64);
  CHECK(consts[2]->attrs.int_value == 7);
  CHECK(consts[3]->attrs.float_value == -tl::inf);
  auto splats = ops_of(f, OpKind::splat);
  REQUIRE(splats.size() == 3);
  CHECK(type_of(f, splats[1]->results[0]) == "i32[4,8]");
}

TEST_CASE("program ids, aranges and scalar math") {
  auto f = trace({}, [] {
    auto pid = tl::program_id(1);
    CHECK(pid.dtype() == DType::i32);
    CHECK(pid.rank() == 0);
    CHECK(tl::num_programs(2).rank() == 0);
    auto r = tl::arange(4, 20);
    CHECK(r.shape() == tl::Shape{16});
    CHECK(r.dtype() == DType::i32);
  });
  auto pids = ops_of(f, OpKind::program_id);
  REQUIRE(pids.size() == 1);
  CHECK(pids[0]->attrs.int_value == 1);
  auto nps = ops_of(f, OpKind::num_programs);
  REQUIRE(nps.size() == 1);
  CHECK(nps[0]->attrs.int_value == 2);
  auto ar = ops_of(f, OpKind::arange);
  REQUIRE(ar.size() == 1);
  CHECK(ar[0]->attrs.start == 4);
  CHECK(ar[0]->attrs.end == 20);
}

TEST_CASE("load and store carry mask and other explicitly") {
  auto f = trace({ptr_param("x", DType::f16), ptr_param("out", DType::f32), int_param("n")}, [] {
    auto offs = tl::arange(0, 32);
    auto mask = offs < int_arg(2);
    auto x = tl::load(ptr_arg(0) + offs, mask, -tl::inf);
    CHECK(x.dtype() == DType::f16);
    tl::store(ptr_arg(1) + offs, x, mask);  // converted to the pointee type f32
  });
  auto loads = ops_of(f, OpKind::load);
  REQUIRE(loads.size() == 1);
  CHECK(loads[0]->attrs.has_mask);
  CHECK(loads[0]->attrs.has_other);
  CHECK(type_of(f, loads[0]->operands[2]) == "f16[32]");
  auto stores = ops_of(f, OpKind::store);
  REQUIRE(stores.size() == 1);
  CHECK(stores[0]->attrs.has_mask);
  CHECK(type_of(f, stores[0]->operands[1]) == "f32[32]");
  const ir::Op* conv = def_of(f, stores[0]->operands[1]);
  REQUIRE(conv);
  CHECK(conv->kind == OpKind::cast);
}
