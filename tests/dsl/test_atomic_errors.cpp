// One test case per misuse of tl::atomic_*: each throws a UserError naming the problem, located
// at the offending line of this file (HERE, user_error_check.h).
#include <doctest/doctest.h>

#include "tilejit/kernel.h"
#include "tilejit/tl.h"
#include "user_error_check.h"

namespace tl = tilejit::tl;
using tilejit::DType;
using tilejit_test::compile;
using tilejit_test::expect_user_error;
using tilejit_test::g_line;

namespace {

void add_to_bf16(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) { HERE(tl::atomic_add(x, 1.0)); }

void xor_of_floats(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) { HERE(tl::atomic_xor(x, 1)); }

void value_wider_than_pointers(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr BLOCK) {
  auto v = tl::load(x + tl::arange(0, BLOCK));
  HERE(tl::atomic_max(x, v));
}

void mask_not_boolean(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  HERE(tl::atomic_add(x + offs, 1.0, offs));
}

void pointer_as_value(tl::Ptr x, tl::Ptr y, tl::Int, tl::Constexpr) { HERE(tl::atomic_xchg(x, y)); }

void not_pointers(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) { HERE(tl::atomic_add(n, 1)); }

void expected_wider_than_pointers(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr BLOCK) {
  HERE(tl::atomic_cas(x, tl::arange(0, BLOCK), 1));
}

void compile_bf16(tilejit_test::KernelFn fn) {
  g_line = 0;
  tilejit::Kernel k("user_error_kernel", fn, {"x", "y", "n", "BLOCK"});
  k.compile({tilejit::Pointer{0x10000, DType::bf16}, tilejit_test::kY, 100, 16}, {.arch = "sm_90"});
}

}  // namespace

TEST_CASE("an atomic on 16-bit elements") {
  expect_user_error([] { compile_bf16(add_to_bf16); },
                    "atomic_add needs pointers to i32, i64, f32 or f64, got ptr<bf16>", g_line);
}

TEST_CASE("a bitwise atomic on floats") {
  expect_user_error([] { compile(xor_of_floats); }, "atomic_xor needs pointers to i32 or i64, got ptr<f32>", g_line);
}

TEST_CASE("an atomic whose value or expected value is wider than its pointers") {
  expect_user_error([] { compile(value_wider_than_pointers); },
                    "atomic_max: the value f32[16] does not fit the pointers ptr<f32>", g_line);
  expect_user_error([] { compile(expected_wider_than_pointers); },
                    "atomic_cas: the expected value f32[16] does not fit the pointers ptr<f32>", g_line);
}

TEST_CASE("an atomic with a mask that is not boolean") {
  expect_user_error([] { compile(mask_not_boolean); }, "atomic_add: the mask must be boolean", g_line);
}

TEST_CASE("an atomic given a pointer as its value") {
  expect_user_error([] { compile(pointer_as_value); }, "atomic_xchg: the value cannot be a pointer", g_line);
}

TEST_CASE("an atomic on something that is not pointers") {
  expect_user_error([] { compile(not_pointers); }, "atomic_add: the first argument must be pointers, got i32", g_line);
}
