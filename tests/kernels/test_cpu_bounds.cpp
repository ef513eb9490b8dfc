// The CPU backend's bounds checks: a load or store outside a Buffer argument is skipped, the
// memory beside it is left alone, and the launch fails with a UserError at the access's line
// naming the program, the element and the argument. Accesses inside, and masked-off lanes
// outside, run as before.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <string_view>

#include "kernel_test.h"

using namespace tilejit;
namespace tl = tilejit::tl;

namespace {

// AT(line, access) records the access's line in `line` while the kernel is traced (once per
// specialization: the cache serves the later launches), then traces the access.
#define AT(line, ...) \
  line = __LINE__;    \
  __VA_ARGS__

unsigned copy_load_line, copy_store_line, atomic_line, scalar_atomic_line, gather_line, scalar_line, before_line,
    walk_line, reverse_line;

using Copy = Kernel<tl::Ptr, tl::Ptr, tl::Int, tl::Constexpr>;
const std::vector<std::string> kNames{"x", "y", "n", "BLOCK"};

// y[i] = x[i] for i < n, one block a program.
void copy_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  AT(copy_load_line, auto v = tl::load(x + offs, offs < n));
  tl::store(y + offs, v, offs < n);
}

// The same, the store reported.
void copy_store_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto v = tl::load(x + offs, offs < BLOCK);
  AT(copy_store_line, tl::store(y + offs, v, offs < n));
}

// y[i] += x[i] atomically, and y[n] += 1 once a program.
void atomic_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto v = tl::load(x + offs, offs < BLOCK);
  AT(atomic_line, tl::atomic_add(y + offs, v, offs < n));
  AT(scalar_atomic_line, tl::atomic_add(y + n, 1.0));
}

// Reads x[(7 i) mod n]: a gather.
void gather_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  AT(gather_line, auto v = tl::load(x + offs * 7 % n));
  tl::store(y + offs, v);
}

// Reads x[n], one element.
void scalar_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr) {
  AT(scalar_line, auto v = tl::load(x + n));
  tl::store(y, v);
}

// Reads x[i - 1]: the first lane is before the buffer.
void before_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  AT(before_line, auto v = tl::load(x + (offs - 1), offs < n));
  tl::store(y + offs, v, offs < n);
}

// y[i] = x[n - 1 - i]: a pointer that steps backwards across the lanes.
void reverse_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  AT(reverse_line, auto v = tl::load(x + (n - 1 - offs)));
  tl::store(y + offs, v);
}

// Walks x a block at a time through a loop-carried pointer, n blocks.
void walk_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  tl::Tensor p = x + offs;
  tl::Tensor acc = tl::zeros({BLOCK}, DType::f32);
  tl::for_range(0, n, [&](tl::Int) {
    AT(walk_line, acc = acc + tl::load(p));
    p = p + BLOCK;
  });
  tl::store(y + offs, acc);
}

// Sums x and y through two loop-carried pointers that swap every iteration: each points into
// either argument, which the checks cannot tie to one extent, so they leave them unchecked
// rather than guess.
void swap_kernel(tl::Ptr x, tl::Ptr y, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::arange(0, BLOCK);
  tl::Tensor p = x + offs, q = y + offs;
  tl::Tensor acc = tl::zeros({BLOCK}, DType::f32);
  tl::for_range(0, n, [&](tl::Int) {
    acc = acc + tl::load(p);
    tl::Tensor t = p;
    p = q;
    q = t;
  });
  tl::store(x + offs, acc);
}

Buffer floats(std::size_t n, float first) {
  Buffer b = testing::buffer(DType::f32, n);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = first + static_cast<float>(i);
  b.upload(v);
  return b;
}

// Launches and expects a UserError at `line` (read after the launch traced the kernel) whose
// message holds every fragment.
void expect_fault(const std::function<void()>& launch, const unsigned& line,
                  std::initializer_list<std::string_view> fragments) {
  bool thrown = false;
  try {
    launch();
  } catch (const UserError& e) {
    thrown = true;
    INFO("what(): " << std::string(e.what()));
    CHECK(std::string_view(e.file()).ends_with("test_cpu_bounds.cpp"));
    CHECK(e.line() == line);
    for (std::string_view f : fragments) CHECK(e.problem().find(f) != std::string::npos);
  }
  CHECK_MESSAGE(thrown, "expected the launch to fail with an out-of-bounds UserError");
}

}  // namespace

TEST_CASE("a load past the end of a Buffer is skipped and reported at its line") {
  Copy k("copy", copy_kernel, kNames);
  Buffer x = floats(40, 0.f), y = floats(64, 100.f);
  expect_fault(
      [&] {
        k.launch({1}, {x, y, 64, 64}, testing::options());
      },
      copy_load_line,
      {"load out of bounds in kernel 'copy': program (0, 0, 0) read element 40 of argument 0 ('x'), which "
       "holds 40 elements of f32 (160 bytes), and 23 more elements"});
  auto out = y.download<float>();
  for (int i = 0; i < 40; ++i) CHECK(out[static_cast<std::size_t>(i)] == static_cast<float>(i));
  // The skipped lanes read as masked-off lanes do: zeros.
  for (int i = 40; i < 64; ++i) CHECK(out[static_cast<std::size_t>(i)] == 0.f);
}

TEST_CASE("a store past the end of its memory leaves the memory beside it alone") {
  Copy k("copy_store", copy_store_kernel, kNames);
  Buffer x = floats(64, 0.f), whole = floats(64, 100.f);
  // The kernel is told y is the first 32 elements of `whole`; the rest must keep its values.
  Pointer y{whole.address(), DType::f32, whole.memory(), 32 * sizeof(float)};
  expect_fault(
      [&] {
        k.launch({2}, {x, y, 64, 32}, testing::options());
      },
      copy_store_line,
      {"store out of bounds in kernel 'copy_store': program (1, 0, 0) wrote element 32 of argument 1 "
       "('y'), which holds 32 elements of f32 (128 bytes), and 31 more elements"});
  auto out = whole.download<float>();
  for (int i = 0; i < 32; ++i) CHECK(out[static_cast<std::size_t>(i)] == static_cast<float>(i));
  for (int i = 32; i < 64; ++i) CHECK(out[static_cast<std::size_t>(i)] == 100.f + static_cast<float>(i));
  // When every program faults, the message names the lowest, whichever thread got there first.
  Pointer none{whole.address(), DType::f32, whole.memory(), 0};
  for (int threads : {1, 2, 4}) {
    LaunchOptions o = testing::options();
    o.cpu_threads = threads;
    expect_fault(
        [&] {
          k.launch({8}, {x, none, 64, 8}, o);
        },
        copy_store_line,
        {"program (0, 0, 0) wrote element 0 of argument 1 ('y'), which holds 0 elements of f32 (0 bytes), "
         "and 63 more elements"});
  }
}

TEST_CASE("atomics past the end of their memory are skipped and reported as updates") {
  Copy k("atomic_add", atomic_kernel, kNames);
  Buffer x = floats(64, 0.f), y = floats(64, 100.f);
  // Blocks of 64 with n = 40: the block updates stay inside, the scalar one (y[40]) too.
  k.launch({1}, {x, y, 40, 64}, testing::options());
  auto out = y.download<float>();
  for (int i = 0; i < 64; ++i) CHECK(out[static_cast<std::size_t>(i)] == 100.f + i + (i < 40 ? i : 0) + (i == 40));
  Pointer head{y.address(), DType::f32, y.memory(), 16 * sizeof(float)};
  expect_fault(
      [&] {
        k.launch({1}, {x, head, 16, 64}, testing::options());
      },
      scalar_atomic_line,
      {"atomic out of bounds in kernel 'atomic_add': program (0, 0, 0) updated element 16 of argument 1 ('y'), which "
       "holds 16 elements"});
  expect_fault(
      [&] {
        k.launch({1}, {x, head, 40, 64}, testing::options());
      },
      atomic_line, {"atomic out of bounds in kernel 'atomic_add': program (0, 0, 0) updated element 16 of argument 1"});
}

TEST_CASE("masked-off lanes past the end are not faults") {
  Copy k("copy", copy_kernel, kNames);
  Buffer x = floats(100, 0.f), y = floats(100, -1.f);
  k.launch({2}, {x, y, 100, 64}, testing::options());
  auto out = y.download<float>();
  for (int i = 0; i < 100; ++i) CHECK(out[static_cast<std::size_t>(i)] == static_cast<float>(i));
}

TEST_CASE("gathers, single elements, elements before the start, backward lanes and loop-carried pointers are checked") {
  Buffer x = floats(40, 0.f), y = floats(64, 0.f);
  Copy gather("gather", gather_kernel, kNames);
  // (7 i) mod 50 first reaches past x's 40 elements at i = 6 (42).
  expect_fault(
      [&] {
        gather.launch({1}, {x, y, 50, 64}, testing::options());
      },
      gather_line, {"load out of bounds in kernel 'gather'", "read element 42", "argument 0 ('x')"});
  Copy one("scalar", scalar_kernel, kNames);
  expect_fault(
      [&] {
        one.launch({1}, {x, y, 40, 1}, testing::options());
      },
      scalar_line, {"load out of bounds in kernel 'scalar': program (0, 0, 0) read element 40 of argument 0 ('x')"});
  Copy before("before", before_kernel, kNames);
  expect_fault(
      [&] {
        before.launch({1}, {x, y, 40, 64}, testing::options());
      },
      before_line, {"read element -1 of argument 0 ('x')"});
  Copy reverse("reverse", reverse_kernel, kNames);
  reverse.launch({1}, {x, y, 40, 32}, testing::options());  // x[39] down to x[8]
  auto reversed = y.download<float>();
  for (int i = 0; i < 32; ++i) CHECK(reversed[static_cast<std::size_t>(i)] == static_cast<float>(39 - i));
  expect_fault(
      [&] {
        reverse.launch({1}, {x, y, 16, 32}, testing::options());
      },
      reverse_line,
      {"load out of bounds in kernel 'reverse': program (0, 0, 0) read element -1 of argument 0 ('x')",
       "and 15 more elements"});
  Copy walk("walk", walk_kernel, kNames);
  walk.launch({1}, {x, y, 5, 8}, testing::options());  // 5 blocks of 8: all of x
  expect_fault(
      [&] {
        walk.launch({1}, {x, y, 6, 8}, testing::options());
      },
      walk_line, {"load out of bounds in kernel 'walk': program (0, 0, 0) read element 40 of argument 0 ('x')"});
}

TEST_CASE("pointers that swap between two arguments in a loop are not checked, and raise no false fault") {
  Copy swap("swap", swap_kernel, kNames);
  Buffer x = floats(16, 0.f), y = floats(64, 100.f);
  swap.launch({1}, {x, y, 2, 16}, testing::options());
  auto out = x.download<float>();
  for (int i = 0; i < 16; ++i) CHECK(out[static_cast<std::size_t>(i)] == 100.f + 2.f * static_cast<float>(i));
}
