// The IR verifier rejects broken functions built by hand; the printer numbers values densely
// in the order a reader meets them.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "dsl_test_util.h"
#include "ir/builder.h"
#include "ir/verifier.h"
#include "passes/passes.h"
#include "tilejit/error.h"

using namespace dsltest;
using ir::OpKind;
using ir::Type;

namespace {

// A small valid function: p[pid] = 1.5.
ir::Function straight_line() {
  ir::Function f;
  f.name = "k";
  ir::ValueId p = f.new_value(Type::pointer(DType::f32));
  f.params.push_back({"p", p});
  ir::Builder b(f);
  ir::ValueId c = b.constant_float(DType::f32, 1.5);
  ir::ValueId pid = b.program_id(0);
  ir::ValueId q = b.addptr(p, pid);
  b.store(q, c);
  return f;
}

// acc = 0; for i in [0, n): acc += float(i); one carried value.
struct LoopFn {
  ir::Function f;
  ir::ValueId n, init, iv, acc, next, result;
};

LoopFn simple_loop(bool yield_value = true) {
  LoopFn l;
  ir::Function& f = l.f;
  f.name = "loop";
  l.n = f.new_value(Type::scalar(DType::i32));
  f.params.push_back({"n", l.n});
  ir::Builder b(f);
  ir::ValueId zero = b.constant_int(DType::i32, 0);
  ir::ValueId one = b.constant_int(DType::i32, 1);
  l.init = b.constant_float(DType::f32, 0.0);
  ir::Region body;
  l.iv = f.new_value(Type::scalar(DType::i32));
  l.acc = f.new_value(Type::scalar(DType::f32));
  body.args = {l.iv, l.acc};
  b.set_insertion_region(&body);
  ir::ValueId ivf = b.cast(l.iv, DType::f32);
  l.next = b.binary(OpKind::add, l.acc, ivf);
  b.yield(yield_value ? std::vector<ir::ValueId>{l.next} : std::vector<ir::ValueId>{});
  b.set_insertion_region(&f.body);
  l.result = b.for_range(zero, l.n, one, {l.init}, std::move(body), 2).at(0);
  return l;
}

void expect_rejected(const ir::Function& f, const std::string& fragment) {
  bool thrown = false;
  try {
    ir::verify(f);
  } catch (const tilejit::InternalError& e) {
    thrown = true;
    INFO("message: " << e.what());
    CHECK(std::string(e.what()).find(fragment) != std::string::npos);
  }
  CHECK_MESSAGE(thrown, "the verifier accepted a broken function");
}

}  // namespace

TEST_CASE("the verifier accepts well-formed functions") {
  CHECK_NOTHROW(ir::verify(straight_line()));
  CHECK_NOTHROW(ir::verify(simple_loop().f));
}

TEST_CASE("the verifier rejects a use before the definition") {
  ir::Function f = straight_line();
  // Move the store (last) before the addptr that defines its pointer.
  std::swap(f.body.ops[2], f.body.ops[3]);
  expect_rejected(f, "before its definition");
}

TEST_CASE("the verifier rejects a loop-body value used after the loop") {
  LoopFn l = simple_loop();
  ir::Builder b(l.f);
  b.unary(OpKind::neg, l.next);  // `next` only exists inside the body
  expect_rejected(l.f, "before its definition");
}

TEST_CASE("the verifier rejects mismatched operand types") {
  ir::Function f;
  f.name = "mixed";
  ir::Builder b(f);
  ir::ValueId i = b.constant_int(DType::i32, 1);
  ir::ValueId x = b.constant_float(DType::f32, 2.0);
  // The builder refuses this add, so build the op by hand.
  ir::Op add{OpKind::add, {i, x}, {f.new_value(Type::scalar(DType::f32))}, {}, {}, {}};
  f.body.ops.push_back(add);
  expect_rejected(f, "operand types differ");
}

TEST_CASE("the verifier rejects a result whose type breaks the rules") {
  ir::Function f = straight_line();
  ir::ValueId pid = f.body.ops[1].results[0];
  f.value_types[static_cast<std::size_t>(pid)] = Type::scalar(DType::i64);  // program_id is i32
  expect_rejected(f, "rules say i32");
}

TEST_CASE("the verifier rejects a yield count that differs from the carried values") {
  expect_rejected(simple_loop(/*yield_value=*/false).f, "yield count");
}

TEST_CASE("the verifier rejects a yield whose type differs from its carried value") {
  LoopFn l = simple_loop();
  ir::Op& loop = l.f.body.ops.back();
  ir::Region& body = loop.regions[0];
  body.ops.back().operands[0] = l.iv;  // an i32 for the f32 carried value
  expect_rejected(l.f, "yield 0 type differs");
}

TEST_CASE("the verifier rejects loop bodies without a final yield and stray yields") {
  SUBCASE("missing yield") {
    LoopFn l = simple_loop();
    l.f.body.ops.back().regions[0].ops.pop_back();
    expect_rejected(l.f, "does not end with yield");
  }
  SUBCASE("yield at function level") {
    ir::Function f = straight_line();
    ir::Builder b(f);
    b.yield({});
    expect_rejected(f, "yield outside");
  }
}

TEST_CASE("the verifier rejects a value defined twice") {
  ir::Function f = straight_line();
  f.body.ops.insert(f.body.ops.begin() + 1, f.body.ops[0]);  // the constant again, same result id
  expect_rejected(f, "defined twice");
}

TEST_CASE("the printer numbers values densely, in order, whatever the value ids") {
  ir::Function f;
  f.name = "k";
  // Ids 0 and 1 are never defined: the printed names must not show the gap.
  f.new_value(Type::scalar(DType::i32));
  f.new_value(Type::scalar(DType::i32));
  ir::ValueId p = f.new_value(Type::pointer(DType::f32));
  f.params.push_back({"p", p});
  ir::Builder b(f);
  ir::ValueId c = b.constant_float(DType::f32, 1.5);
  ir::ValueId pid = b.program_id(0);
  b.store(b.addptr(p, pid), c);
  CHECK(ir::print(f) ==
        "kernel k(%0: ptr<f32>) {\n"
        "  %1 = constant 1.5 : f32\n"
        "  %2 = program_id 0 : i32\n"
        "  %3 = addptr %0, %2 : ptr<f32>\n"
        "  store %3, %1\n"
        "}\n");
}

TEST_CASE("the printer shows source locations by file base name on request") {
  ir::Function f;
  f.name = "k";
  ir::Builder b(f);
  b.set_loc({"/some/dir/my_kernel.h", 42});
  b.program_id(0);
  CHECK(ir::print(f, {.locations = true}) == "kernel k() {\n  %0 = program_id 0 : i32  // my_kernel.h:42\n}\n");
  CHECK(ir::print(f) == "kernel k() {\n  %0 = program_id 0 : i32\n}\n");
}

TEST_CASE("the printer numbers a loop's values in reading order") {
  // Reading the header left to right: the loop result, the induction variable, then the
  // carried argument; the body follows.
  LoopFn l = simple_loop();
  CHECK(ir::print(l.f) ==
        "kernel loop(%0: i32) {\n"
        "  %1 = constant 0 : i32\n"
        "  %2 = constant 1 : i32\n"
        "  %3 = constant 0.0 : f32\n"
        "  %4 = for_range %5 = %1 to %0 step %2 iter_args(%6 = %3) -> (f32) num_stages=2 {\n"
        "    %7 = cast %5 : f32\n"
        "    %8 = add %6, %7 : f32\n"
        "    yield %8\n"
        "  }\n"
        "}\n");
}

TEST_CASE("printed IR after canonicalize uses every number from 0 without gaps") {
  auto f = trace({ptr_param("x", DType::f32), ptr_param("out", DType::f32), int_param("n")}, [] {
    auto offs = tl::arange(0, 16);
    tl::Tensor acc = tl::zeros({16}, DType::f32);
    auto unused = tl::exp(tl::load(ptr_arg(0) + offs));  // dead: removed by the passes
    tl::for_range(0, int_arg(2), [&](tl::Int i) { acc = acc + tl::load(ptr_arg(0) + i * 16 + offs); });
    tl::store(ptr_arg(1) + offs, acc);
  });
  tilejit::passes::canonicalize(f, true);
  std::string text = ir::print(f);
  INFO(text);
  std::set<int> seen;
  static const std::regex name(R"(%(\d+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it)
    seen.insert(std::stoi((*it)[1].str()));
  REQUIRE(!seen.empty());
  CHECK(*seen.begin() == 0);
  CHECK(*seen.rbegin() == static_cast<int>(seen.size()) - 1);
  CHECK(text.find("exp") == std::string::npos);
  // Each result name is defined once.
  static const std::regex def(R"(^\s*(%\d+) = )");
  std::set<std::string> defs;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, def)) CHECK(defs.insert(m[1].str()).second);
  }
}
