// One test case per user error: each must throw tilejit::UserError whose message names the
// problem and whose location is the offending line of the kernel (or of the API call) in this
// file. Each offending call is wrapped in HERE(), which records its line.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"
#include "user_error_check.h"

namespace tl = tilejit::tl;
using tilejit::Arg;
using tilejit::DType;
using tilejit::UserError;

namespace {

using tilejit_test::compile;
using tilejit_test::expect_user_error;
using tilejit_test::g_line;
using tilejit_test::KernelFn;
using tilejit_test::kX;
using tilejit_test::kY;

// A correct kernel, for the launch-API errors.
void copy_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  tl::store(y + offs, tl::load(x + offs, offs < n), offs < n);
}

// ---- kernels with one mistake each ----

void shape_mismatch(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto a = tl::arange(0, 16);
  auto b = tl::arange(0, 32);
  HERE(auto c = a + b);
}

void arange_not_power_of_two(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) { HERE(auto r = tl::arange(0, 12)); }

void arange_empty(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) { HERE(auto r = tl::arange(16, 16)); }

void other_without_mask(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  HERE(auto v = tl::load(x + offs, -tl::inf));
}

void float_plus_pointer(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) { HERE(auto p = x + 1.5); }

void pointer_times_int(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) { HERE(auto p = x * 2); }

void pointer_plus_pointer(tl::Ptr x, tl::Ptr y, tl::Int, tl::Constexpr) { HERE(auto p = x + y); }

void bad_reduction_axis(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto r = tl::arange(0, 16);
  HERE(auto s = tl::sum(r, 1));
}

void reduce_scalar(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) { HERE(auto m = tl::max(n, 0)); }

void reduce_all_of_scalar(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) { HERE(auto m = tl::sum(n)); }

void exp_of_integer(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto r = tl::arange(0, 16);
  HERE(auto e = tl::exp(r));
}

void exp_fast_of_integer(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto r = tl::arange(0, 16);
  HERE(auto e = tl::exp_fast(r));
}

void fma_of_integers(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) {
  auto r = tl::arange(0, 16);
  HERE(auto f = tl::fma(r, n, 1));
}

void fma_of_bf16(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16)).to(DType::bf16);
  HERE(auto f = tl::fma(v, 2.0, v));
}

void fma_of_pointer(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16));
  HERE(auto f = tl::fma(v, 2.0, x));
}

void fma_of_unbroadcastable(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16));
  auto w = tl::load(x + tl::arange(0, 32));
  HERE(auto f = tl::fma(v, 2.0, w));
}

void cluster_max_of_block(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16));
  HERE(auto m = tl::cluster_max(v, 2));
}

void cluster_sum_of_too_many(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto s = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  HERE(auto m = tl::cluster_sum(s, 32));
}

void two_cluster_sizes(tl::Ptr x, tl::Ptr out, tl::Int, tl::Constexpr) {
  auto s = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  auto a = tl::cluster_sum(s, 2);
  HERE(auto b = tl::cluster_max(s, 4));
  tl::store(out, a + b);
}

void cluster_sum_in_rank_dependent_loop(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr) {
  auto rank = tl::program_id(0) % 4;
  HERE(tl::for_range(rank, n, 4, [&](tl::Int i) {
    auto s = tl::sum(tl::load(x + i * 16 + tl::arange(0, 16)), 0);
    tl::store(out + i, tl::cluster_sum(s, 4));
  }));
}

void cluster_sum_in_cluster_uniform_loop(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr) {
  // Bounds from the cluster's index, a parameter and a cluster reduction: the same in every program.
  auto first = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  auto steps = tl::cluster_max(first, 4).to(DType::i32);
  tl::for_range(tl::program_id(0) / 4, n + steps, tl::num_programs(0) / 4, [&](tl::Int i) {
    auto s = tl::sum(tl::load(x + i * 16 + tl::arange(0, 16)), 0);
    tl::store(out + i, tl::cluster_sum(s, 4));
  });
}

void group_sum_of_too_many(tl::Ptr x, tl::Ptr out, tl::Int, tl::Constexpr) {
  auto s = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  HERE(auto m = tl::group_sum(s, 5000, out));
}

void group_sum_through_a_block(tl::Ptr x, tl::Ptr out, tl::Int, tl::Constexpr) {
  auto s = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  HERE(auto m = tl::group_sum(s, 4, out + tl::arange(0, 16)));
}

void group_and_cluster(tl::Ptr x, tl::Ptr out, tl::Int, tl::Constexpr) {
  auto s = tl::sum(tl::load(x + tl::arange(0, 16)), 0);
  auto a = tl::cluster_sum(s, 2);
  HERE(auto b = tl::group_max(s, 4, out));
  tl::store(out, a + b);
}

void group_sum_in_rank_dependent_loop(tl::Ptr x, tl::Ptr out, tl::Int n, tl::Constexpr) {
  auto rank = tl::program_id(0) % 40;
  HERE(tl::for_range(rank, n, 40, [&](tl::Int i) {
    auto s = tl::sum(tl::load(x + i * 16 + tl::arange(0, 16)), 0);
    tl::store(out + i, tl::group_sum(s, 40, out));
  }));
}

void and_of_floats(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16));
  HERE(auto b = v & v);
}

void shift_of_floats(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto v = tl::load(x + tl::arange(0, 16));
  HERE(auto b = v << 2);
}

void shift_of_booleans(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) {
  auto mask = tl::arange(0, 16) < n;
  HERE(auto b = mask >> mask);  // (mask >> 1 shifts i32: the literal promotes it, as in C++)
}

void store_mask_not_boolean(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  HERE(tl::store(x + offs, 1.0, offs));
}

void store_value_wider_than_pointers(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  auto v = tl::load(x + offs);
  HERE(tl::store(x + offs, v(tl::all, tl::newaxis) * v(tl::newaxis, tl::all)));
}

void store_mask_wider_than_pointers(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  HERE(tl::store(x + offs, 1.0, offs(tl::all, tl::newaxis) < offs(tl::newaxis, tl::all)));
}

void store_block_through_one_pointer(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  HERE(tl::store(x, tl::load(x + tl::arange(0, 16))));
}

void block_too_large_for_the_warps(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  HERE(auto offs = tl::arange(0, 262144));
  tl::store(x + offs, 0.0, offs < n);
}

void expand_dims_bad_axis(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto r = tl::arange(0, 16);
  HERE(auto e = tl::expand_dims(r, 2));
}

void carried_changes_type(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  tl::Tensor acc = tl::zeros({16}, DType::f32);
  tl::for_range(0, n, [&](tl::Int) { HERE(acc = acc.to(DType::f16)); });
  tl::store(x + tl::arange(0, 16), acc);
}

// The same through a copy assignment: the error points where the new value was computed.
void carried_changes_type_by_copy(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  tl::Tensor acc = tl::zeros({16}, DType::f32);
  tl::for_range(0, n, [&](tl::Int) {
    HERE(tl::Tensor half = acc.to(DType::f16));
    acc = half;
  });
  tl::store(x + tl::arange(0, 16), acc);
}

// The new value is not computed in the loop: it is an f16 block from before it.
void carried_assigned_other_type(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  tl::Tensor acc = tl::zeros({16}, DType::f32);
  tl::Tensor half = tl::zeros({16}, DType::f16);
  tl::for_range(0, n, [&](tl::Int) { HERE(acc = half); });
  tl::store(x + tl::arange(0, 16), acc);
}

void value_escapes_loop(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  std::optional<tl::Tensor> inner;
  tl::for_range(0, n, [&](tl::Int i) { inner.emplace(i * 2); });
  HERE(tl::store(x, *inner));
}

void escaped_value_copied(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  std::optional<tl::Tensor> inner;
  tl::for_range(0, n, [&](tl::Int i) { inner.emplace(i * 2); });
  tl::Tensor copy = *inner;  // copying is not a use: the error comes where the copy is used
  HERE(tl::store(x, copy));
}

void escaped_value_moved(tl::Ptr x, tl::Ptr, tl::Int n, tl::Constexpr) {
  std::optional<tl::Tensor> inner;
  tl::for_range(0, n, [&](tl::Int i) { inner.emplace(i * 2); });
  HERE(tl::Tensor moved = std::move(*inner));
  tl::store(x, moved);
}

void load_not_pointer(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  HERE(auto v = tl::load(offs));
}

void where_not_boolean(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  auto offs = tl::arange(0, 16);
  HERE(auto v = tl::where(offs, 1.0, 2.0));
}

void stash_without_slots(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) { HERE(tl::stash({256}, DType::f32, 0)); }

void stash_too_large(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  tl::stash({4096}, DType::f32, 8);        // 128 KiB
  HERE(tl::stash({4096}, DType::f32, 8));  // 128 KiB more
}

void stash_float_slot(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto s = tl::stash({16}, DType::f32, 2);
  HERE(s.put(1.5, tl::load(x + tl::arange(0, 16))));
}

void stash_wrong_shape(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto s = tl::stash({16}, DType::f32, 2);
  HERE(s.put(0, tl::load(x + tl::arange(0, 32))));
}

void stash_copy_converting(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  auto s = tl::stash({16}, DType::bf16, 2);
  auto offs = tl::arange(0, 16);
  HERE(s.copy_async(0, x + offs, offs < 10));
}

void wait_negative(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) { HERE(tl::wait_copies(-1)); }

void zero_loop_step(tl::Ptr, tl::Ptr, tl::Int n, tl::Constexpr) {
  HERE(tl::for_range(0, n, 0, [&](tl::Int) {}));
}

void float_loop_bound(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  HERE(tl::for_range(0, 10.5, [&](tl::Int) {}));
}

}  // namespace

TEST_CASE("shape mismatch in a binary op") {
  expect_user_error([] { compile(shape_mismatch); }, "shape mismatch", g_line);
}

TEST_CASE("stash misuse: no slots, too many bytes, a float slot, a block of another shape") {
  expect_user_error([] { compile(stash_without_slots); }, "at least one slot", g_line);
  expect_user_error([] { compile(stash_too_large); }, "131072 bytes; with the kernel's other stashes (131072 bytes)",
                    g_line);
  expect_user_error([] { compile(stash_float_slot); }, "the slot must be an integer scalar", g_line);
  expect_user_error([] { compile(stash_wrong_shape); }, "f32[32]", g_line);
  expect_user_error([] { compile(stash_copy_converting); }, "an asynchronous copy cannot convert", g_line);
  expect_user_error([] { compile(wait_negative); }, "pending must be 0 or more", g_line);
}

TEST_CASE("arange whose length is not a power of two") {
  expect_user_error([] { compile(arange_not_power_of_two); }, "power of two", g_line);
}

TEST_CASE("arange with end <= start") {
  expect_user_error([] { compile(arange_empty); }, "end must be greater than start", g_line);
}

TEST_CASE("load(ptrs, other) without a mask says that other needs a mask") {
  expect_user_error([] { compile(other_without_mask); }, "'other'", g_line);
  expect_user_error([] { compile(other_without_mask); }, "mask is required", g_line);
}

TEST_CASE("a float added to a pointer") {
  expect_user_error([] { compile(float_plus_pointer); }, "floating-point", g_line);
}

TEST_CASE("pointer * int") {
  expect_user_error([] { compile(pointer_times_int); }, "operator * is not defined for pointers", g_line);
}

TEST_CASE("two pointers added") {
  expect_user_error([] { compile(pointer_plus_pointer); }, "cannot add two pointers", g_line);
}

TEST_CASE("reduction over an axis the block does not have") {
  expect_user_error([] { compile(bad_reduction_axis); }, "axis 1 is out of range", g_line);
}

TEST_CASE("reduction of a scalar") {
  expect_user_error([] { compile(reduce_scalar); }, "needs a block", g_line);
  expect_user_error([] { compile(reduce_all_of_scalar); }, "sum: needs a block", g_line);
}

TEST_CASE("exp of an integer") {
  expect_user_error([] { compile(exp_of_integer); }, "exp needs a floating-point operand", g_line);
}

TEST_CASE("exp_fast of an integer") {
  expect_user_error([] { compile(exp_fast_of_integer); }, "exp_fast needs a floating-point operand", g_line);
}

TEST_CASE("fma of integers, of 16-bit values, of a pointer, of shapes that do not broadcast") {
  expect_user_error([] { compile(fma_of_integers); }, "fma needs f32 or f64 operands, got i32", g_line);
  expect_user_error([] { compile(fma_of_bf16); }, "fma needs f32 or f64 operands, got bf16", g_line);
  expect_user_error([] { compile(fma_of_pointer); }, "fma is not defined for pointers", g_line);
  expect_user_error([] { compile(fma_of_unbroadcastable); }, "shape mismatch: f32[16] and f32[32]", g_line);
}

TEST_CASE("cluster reductions: a block operand, a cluster too large, two sizes in one kernel") {
  expect_user_error([] { compile(cluster_max_of_block); }, "cluster_max: reduces one scalar per program", g_line);
  expect_user_error([] { compile(cluster_sum_of_too_many); }, "cluster_sum: cluster size 32 is out of range", g_line);
  expect_user_error([] { compile(two_cluster_sizes); },
                    "all cluster reductions of one kernel must use one cluster size", g_line);
}

TEST_CASE("a cluster reduction in a loop whose bounds differ between a cluster's programs") {
  expect_user_error([] { compile(cluster_sum_in_rank_dependent_loop); },
                    "inside a loop whose bounds can differ between the programs of a cluster", g_line);
  CHECK_NOTHROW(compile(cluster_sum_in_cluster_uniform_loop));
}

TEST_CASE("group reductions: a group too large, a workspace that is not one pointer, groups with clusters") {
  expect_user_error([] { compile(group_sum_of_too_many); }, "group_sum: group size 5000 is out of range", g_line);
  expect_user_error([] { compile(group_sum_through_a_block); }, "group_sum: the workspace must be a pointer parameter",
                    g_line);
  expect_user_error([] { compile(group_and_cluster); }, "a kernel reduces across clusters or across groups, not both",
                    g_line);
}

TEST_CASE("a group reduction in a loop whose bounds differ between a group's programs") {
  expect_user_error([] { compile(group_sum_in_rank_dependent_loop); },
                    "inside a loop whose bounds can differ between the programs of a group", g_line);
}

TEST_CASE("bitwise & on floats") {
  expect_user_error([] { compile(and_of_floats); }, "needs integer or boolean operands", g_line);
}

TEST_CASE("shifts of floats and of booleans") {
  expect_user_error([] { compile(shift_of_floats); }, "operator << needs integer operands, got f32[16]", g_line);
  expect_user_error([] { compile(shift_of_booleans); }, "operator >> needs integer operands, got i1[16]", g_line);
}

TEST_CASE("store with a mask that is not boolean") {
  expect_user_error([] { compile(store_mask_not_boolean); }, "mask must be boolean", g_line);
}

TEST_CASE("a store whose value or mask is wider than its pointers (each address would be written twice)") {
  expect_user_error([] { compile(store_value_wider_than_pointers); },
                    "the value f32[16,16] does not fit the pointers ptr<f32>[16]", g_line);
  expect_user_error([] { compile(store_mask_wider_than_pointers); },
                    "the mask i1[16,16] does not fit the pointers ptr<f32>[16]", g_line);
  expect_user_error([] { compile(store_block_through_one_pointer); }, "does not fit the pointers ptr<f32>:", g_line);
}

TEST_CASE("a block with more elements a thread than a program may hold") {
  expect_user_error([] { compile(block_too_large_for_the_warps); },
                    "262144 elements (i32[262144]): over 4 warps that is 2048 elements a thread", g_line);
  expect_user_error([] { compile(block_too_large_for_the_warps); }, "use num_warps = 8 or more", g_line);
}

TEST_CASE("expand_dims with an axis beyond the rank") {
  expect_user_error([] { compile(expand_dims_bad_axis); }, "axis 2 is out of range", g_line);
}

TEST_CASE("a loop-carried value that changes type") {
  expect_user_error([] { compile(carried_changes_type); }, "changes type", g_line);
}

TEST_CASE("a loop-carried value that changes type (copy assignment)") {
  expect_user_error([] { compile(carried_changes_type_by_copy); }, "changes type", g_line);
}

TEST_CASE("a loop-carried value assigned an outer value of another type") {
  expect_user_error([] { compile(carried_assigned_other_type); }, "changes type", g_line);
}

TEST_CASE("a value computed in a loop body used after the loop") {
  expect_user_error([] { compile(value_escapes_loop); }, "for_range body that has ended", g_line);
}

TEST_CASE("a value computed in a loop body copied after the loop") {
  expect_user_error([] { compile(escaped_value_copied); }, "for_range body that has ended", g_line);
}

TEST_CASE("a value computed in a loop body moved after the loop: UserError, not std::terminate") {
  // Guards against a noexcept move that throws (std::terminate): run in a child process.
  std::fflush(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);  // not doctest's crash report: the parent reports
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // and no core file
    int code = 2;  // 0 right error, 1 wrong message or location, 2 nothing thrown, 3 another exception
    try {
      compile(escaped_value_moved);
    } catch (const UserError& e) {
      // The move itself, or the next use of the moved-to Tensor, are both fair places to report.
      bool where = std::string_view(e.file()).ends_with("test_user_errors.cpp") &&
                   (e.line() == g_line || e.line() == g_line + 1);
      code = e.problem().find("for_range body that has ended") != std::string::npos && where ? 0 : 1;
    } catch (...) {
      code = 3;
    }
    _exit(code);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK_MESSAGE(WIFEXITED(status),
                "the child was killed by signal " << WTERMSIG(status) << " (SIGABRT: std::terminate)");
  if (WIFEXITED(status)) CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("load from something that is not a pointer") {
  expect_user_error([] { compile(load_not_pointer); }, "must be pointers", g_line);
}

TEST_CASE("where with a condition that is not boolean") {
  expect_user_error([] { compile(where_not_boolean); }, "condition must be boolean", g_line);
}

TEST_CASE("for_range with a step of zero") {
  expect_user_error([] { compile(zero_loop_step); }, "for_range: step must be positive, got 0", g_line);
}

TEST_CASE("for_range with a floating-point bound") {
  expect_user_error([] { compile(float_loop_bound); }, "must be an integer", g_line);
}

TEST_CASE("a DSL op called outside a kernel trace") {
  expect_user_error([] { HERE((void)tl::arange(0, 16)); }, "only run while a kernel is traced", g_line);
  // A failed trace leaves no tracer behind either.
  CHECK_THROWS_AS(compile(shape_mismatch), UserError);
  expect_user_error([] { HERE((void)tl::program_id(0)); }, "only run while a kernel is traced", g_line);
}

// ---- the user's own code throwing while the kernel is traced ----

void throws_after_a_load(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  HERE(auto v = tl::load(x + offs));
  const std::vector<int> table{1, 2};
  (void)table.at(static_cast<std::size_t>(BLOCK.value));  // out of range: the user's bug, not the DSL's
}

void throws_before_any_dsl_operation(tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr) {
  throw std::invalid_argument("BLOCK must be at least 64");
}

void throws_an_int(tl::Ptr x, tl::Ptr, tl::Int, tl::Constexpr) {
  HERE(auto p = x + 1);
  throw 42;
}

int g_traces = 0;
void throws_on_first_trace_only(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  if (g_traces++ == 0) throw std::runtime_error("first trace fails");
  copy_kernel(x, y, n, BLOCK);
}

TEST_CASE("the user's exception while tracing: named, located at the latest DSL line, and nested") {
  expect_user_error([] { compile(throws_after_a_load); },
                    "kernel 'user_error_kernel' threw while being traced, after the DSL operation on this line: "
                    "std::out_of_range",
                    g_line);
  try {
    compile(throws_after_a_load);
    FAIL("nothing thrown");
  } catch (const UserError& e) {
    CHECK_THROWS_AS(std::rethrow_if_nested(e), std::out_of_range);
  }
  expect_user_error([] { compile(throws_an_int); },
                    "threw while being traced, after the DSL operation on this line: "
                    "an exception that is not a std::exception",
                    g_line);
}

TEST_CASE("the user's exception before any DSL operation is located at the compile call") {
  tilejit::Kernel k("early", throws_before_any_dsl_operation, {"x", "y", "n", "BLOCK"});
  expect_user_error(
      [&] {
        HERE(k.compile({kX, kY, 100, 16}, {.arch = "sm_90"}));
      },
      "kernel 'early' threw before its first DSL operation while being traced: std::invalid_argument: BLOCK must be "
      "at least 64",
      g_line);
  expect_user_error(
      [&] {
        HERE(k.launch({1}, {kX, kY, 100, 16}, {.arch = "sm_90"}));
      },
      "std::invalid_argument", g_line);
  CHECK(k.compile_count() == 0);
}

TEST_CASE("a trace that threw leaves the kernel's cache usable") {
  g_traces = 0;
  tilejit::Kernel k("flaky", throws_on_first_trace_only, {"x", "y", "n", "BLOCK"});
  CHECK_THROWS_AS(k.compile({kX, kY, 100, 16}, {.arch = "sm_90", .codegen = tilejit::GpuCodegen::cuda}), UserError);
  CHECK(k.compile_count() == 0);
  const tilejit::CompiledKernel& c =
      k.compile({kX, kY, 100, 16}, {.arch = "sm_90", .codegen = tilejit::GpuCodegen::cuda});
  CHECK(k.compile_count() == 1);
  CHECK(&k.compile({kX, kY, 100, 16}, {.arch = "sm_90", .codegen = tilejit::GpuCodegen::cuda}) == &c);
  // DSL operations outside a trace are still refused: the failed trace left no tracer behind.
  CHECK_THROWS_AS((void)tl::arange(0, 16), UserError);
}

TEST_CASE("wrong number of launch arguments") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  expect_user_error([&] { HERE(k.compile({kX, kY, 100})); }, "takes 4 arguments", g_line);
  CHECK(k.compile_count() == 0);
}

TEST_CASE("a pointer given for a tl::Int parameter") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  expect_user_error([&] { HERE(k.compile({kX, kY, kX, 16})); }, "'n'", g_line);
  expect_user_error([&] { HERE(k.compile({kX, kY, kX, 16})); }, "must be an integer (tl::Int), got a pointer", g_line);
}

TEST_CASE("an integer given for a tl::Ptr parameter") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  expect_user_error(
      [&] {
        HERE(k.compile({kX, 4096, 100, 16}));
      },
      "must be a pointer (tl::Ptr), got an integer", g_line);
}

TEST_CASE("a float given for a tl::Constexpr parameter") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  expect_user_error(
      [&] {
        HERE(k.compile({kX, kY, 100, 16.0}));
      },
      "must be a compile-time integer (tl::Constexpr)", g_line);
}

TEST_CASE("launching a compiled kernel with another constexpr value") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  const tilejit::CompiledKernel& c = k.compile({kX, kY, 100, 16}, {.arch = "sm_90"});
  // Rejected while checking the arguments, before any driver call: no GPU needed.
  expect_user_error([&] { HERE(c.launch({1}, {kX, kY, 100, 32})); }, "compiled for BLOCK = 16, got 32", g_line);
}

TEST_CASE("parameter names that do not match the parameters, at the kernel's definition") {
  expect_user_error(
      [] {
        HERE(tilejit::Kernel k("copy", copy_kernel, {"x", "y"}));
      },
      "2 parameter names given for 4", g_line);
  expect_user_error(
      [] {
        HERE(tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"}, {.do_not_specialize = {"m"}}));
      },
      "do_not_specialize names 'm', which is not a parameter (x, y, n, BLOCK)", g_line);
}

TEST_CASE("compile options out of range, at the compile or launch call") {
  tilejit::Kernel k("copy", copy_kernel, {"x", "y", "n", "BLOCK"});
  expect_user_error(
      [&] {
        HERE(k.compile({kX, kY, 100, 16}, {.num_warps = 3, .arch = "sm_90"}));
      },
      "num_warps must be 1, 2, 4, 8, 16 or 32, got 3", g_line);
  expect_user_error(
      [&] {
        HERE(k.launch({1}, {kX, kY, 100, 16}, {.num_warps = 64, .arch = "sm_90"}));
      },
      "num_warps must be 1, 2, 4, 8, 16 or 32, got 64", g_line);
  expect_user_error(
      [&] {
        HERE(k.compile({kX, kY, 100, 16}, {.num_stages = 0, .arch = "sm_90"}));
      },
      "num_stages must be between 1 and 8, got 0", g_line);
  expect_user_error(
      [&] {
        HERE(k.compile({kX, kY, 100, 16}, {.num_warps = 8, .arch = "sm_90", .programs_per_block = 8}));
      },
      "programs_per_block must be between 1 and 4 for 8 warps", g_line);
  CHECK(k.compile_count() == 0);
}
