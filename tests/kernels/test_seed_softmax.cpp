// The seed softmax kernels and the other examples against float64 references, on the backend
// this binary runs (kernel_test.h).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "example_kernels.h"
#include "half_bits.h"
#include "kernel_test.h"
#include "kernels/softmax_online.h"
#include "kernels/softmax_rows_2d.h"
#include "kernels/softmax_seed.h"
#include "kernels/vector_add.h"
#include "softmax_reference.h"

using namespace tilejit;
using namespace tilejit::testing;

namespace {

int seed_warps(std::int64_t block) { return block >= 4096 ? 16 : block >= 2048 ? 8 : 4; }

void check_softmax(std::int64_t rows, std::int64_t cols) {
  CAPTURE(rows);
  CAPTURE(cols);
  std::int64_t block = examples::next_power_of_two(cols);
  auto host = softmax_input(rows, cols, static_cast<unsigned>(rows * 131 + cols));
  auto ref = examples::softmax_reference(host, rows, cols, cols);
  Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, host.size());
  in.upload(host);
  // The one-program-per-row kernels (stages 0: no loop), the row in registers or in shared
  // memory, the persistent one with the next row's loads in flight, and on the GPU also with the
  // next three rows' (the CPU backend does not pipeline loads: num_stages changes nothing there).
  struct Variant {
    const char* name;
    int stages;
  };
  for (auto [name, stages] :
       {Variant{"simple", 0}, Variant{"held", 0}, Variant{"persistent", 2}, Variant{"persistent", 4}}) {
    CAPTURE(name);
    CAPTURE(stages);
    if (stages > 2 && backend() == Backend::cpu) continue;
    out.fill_bytes(0xff);  // NaN: unwritten outputs cannot pass
    auto opts = options(seed_warps(block), std::max(stages, 1));
    if (stages == 0) {
      const auto& k = std::string(name) == "held" ? examples::softmax_held() : examples::softmax_simple();
      k.launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, block}, opts);
    } else {
      std::vector<Arg> args{out, in, cols, cols, rows, cols, block, stages};
      const auto& k = examples::softmax_persistent().compile(args, compile_options(opts.num_warps, stages));
      k.launch({persistent_grid(k, static_cast<std::uint64_t>(rows))}, args, opts);
    }
    finish();
    check_f32_rows(out, ref, rows, cols);
  }
}

}  // namespace

TEST_CASE("seed softmax kernels match float64 for every shape") {
  const std::int64_t all_cols[] = {1, 2, 31, 32, 33, 127, 1000, 1024, 4097, 16384};
  for (std::int64_t rows : {1, 7})
    for (std::int64_t cols : all_cols) check_softmax(rows, cols);
  // The tall shapes with every width take minutes on a 2-core CPU (the float64 reference and the
  // random inputs dominate), so the CPU run covers them with a subset of widths that still spans
  // one element, odd widths, a power of two and a row wider than 4096; the GPU runs all of them.
  for (std::int64_t rows : {4096, 4099})
    for (std::int64_t cols : all_cols) {
      bool subset = cols == 1 || cols == 33 || cols == 1024 || cols == 4097;
      if (backend() == Backend::cuda || subset) check_softmax(rows, cols);
    }
}

// Rows too wide for a second copy in registers (more than 32 elements a thread) reach the
// persistent loop's next iteration through shared memory on the GPU when asked
// (CompileOptions::prefetch_in_shared: a stash filled by cp.async): odd widths, a grid smaller than the rows, the input
// offset by one element (no 16-byte copies) and rows further apart than they are wide.
TEST_CASE("the persistent seed kernel with the next row staged in shared memory") {
  struct Case {
    std::int64_t rows, cols, stride;
    int warps;
    std::int64_t offset;  // elements the input starts past a 16-byte boundary
  };
  for (Case c : {Case{7, 16384, 16384, 8, 0}, Case{300, 16384, 16384, 4, 0}, Case{300, 9001, 9001, 4, 0},
                 Case{5, 16383, 16383, 8, 1}, Case{33, 5000, 5120, 4, 0}}) {
    CAPTURE(c.rows);
    CAPTURE(c.cols);
    CAPTURE(c.warps);
    CAPTURE(c.offset);
    const std::int64_t block = examples::next_power_of_two(c.cols);
    auto dense = softmax_input(c.rows, c.cols, static_cast<unsigned>(c.rows * 7 + c.cols));
    auto ref = examples::softmax_reference(dense, c.rows, c.cols, c.cols);
    std::vector<float> host(static_cast<std::size_t>(c.offset + c.rows * c.stride), 0.0f);
    for (std::int64_t r = 0; r < c.rows; ++r)
      std::copy_n(dense.begin() + r * c.cols, c.cols, host.begin() + c.offset + r * c.stride);
    Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, dense.size());
    in.upload(host);
    out.fill_bytes(0xff);
    const Pointer src{in.address() + static_cast<std::uint64_t>(c.offset) * 4, DType::f32, memory()};
    std::vector<Arg> args{out, src, c.stride, c.cols, c.rows, c.cols, block, 2};
    CompileOptions staged = compile_options(c.warps, 2);
    staged.prefetch_in_shared = true;
    const auto& k = examples::softmax_persistent().compile(args, staged);
    if (backend() == Backend::cuda) {
      // The stash holds one row: it is in the kernel's shared memory.
      CHECK(k.metadata().dynamic_shared_bytes >= block * 4);
    }
    // A grid of at most 4 programs walks many rows each.
    const std::uint64_t grid = std::min<std::uint64_t>(4, persistent_grid(k, static_cast<std::uint64_t>(c.rows)));
    LaunchOptions launch = options(c.warps, 2);
    launch.prefetch_in_shared = true;
    k.launch({grid}, args, launch);
    finish();
    check_f32_rows(out, ref, c.rows, c.cols);
  }
}

TEST_CASE("the persistent seed kernel with the next 16-bit row staged in shared memory") {
  // bf16 rows of 64 elements a thread at 8 warps: aligned (16-byte copies), an odd width, and the
  // input one element off (2-byte copies, through registers). Inputs k/64 (|k| < 256) are exact in
  // bf16, so the tolerance is the type's.
  struct Case {
    std::int64_t rows, cols, offset;
  };
  for (Case c : {Case{9, 16384, 0}, Case{9, 16383, 0}, Case{6, 16000, 1}}) {
    CAPTURE(c.cols);
    CAPTURE(c.offset);
    const DType t = DType::bf16;
    std::mt19937 rng(static_cast<unsigned>(c.cols));
    std::uniform_int_distribution<int> k(-255, 255);
    std::vector<float> host(static_cast<std::size_t>(c.rows * c.cols));
    for (auto& v : host) v = static_cast<float>(k(rng)) / 64.0f;
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(c.offset), 0);
    for (float v : host) bits.push_back(examples::to_half_bits(t, v));
    Buffer in = buffer(t, bits.size()), out = buffer(t, host.size());
    in.upload(bits);
    out.fill_bytes(0xff);
    const Pointer src{in.address() + static_cast<std::uint64_t>(c.offset) * 2, t, memory()};
    std::vector<Arg> args{out, src, c.cols, c.cols, c.rows, c.cols, std::int64_t{16384}, 2};
    CompileOptions staged = compile_options(8, 2);
    staged.prefetch_in_shared = true;
    const auto& k16 = examples::softmax_persistent().compile(args, staged);
    LaunchOptions launch = options(8, 2);
    launch.prefetch_in_shared = true;
    k16.launch({std::min<std::uint64_t>(2, persistent_grid(k16, static_cast<std::uint64_t>(c.rows)))}, args, launch);
    finish();
    auto cmp = examples::compare_rows(download_floats(out), examples::softmax_reference(host, c.rows, c.cols, c.cols),
                                      c.rows, c.cols, c.cols);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= 1e-2);
  }
}

// The simple kernel with its row held in shared memory (copied there by cp.async, read back by each
// phase): 16-bit rows of 64 elements a thread at 8 warps, aligned (16-byte copies), an odd width and
// the input one element off (2-byte copies, through registers); f32 rows one element off (4-byte
// copies) and rows further apart than they are wide. Inputs k/64 (|k| < 256) are exact in every type.
TEST_CASE("the held seed kernel: rows in shared memory, 16-bit, off 16 bytes, strided") {
  struct Case {
    DType t;
    std::int64_t rows, cols, stride, offset;
    int warps;
  };
  for (Case c : {Case{DType::bf16, 9, 16384, 16384, 0, 8}, Case{DType::bf16, 9, 16383, 16383, 0, 8},
                 Case{DType::bf16, 6, 16000, 16000, 1, 8}, Case{DType::f16, 5, 8192, 8200, 0, 8},
                 Case{DType::f32, 7, 5000, 5003, 1, 4}, Case{DType::f32, 4, 16384, 16384, 0, 16}}) {
    CAPTURE(dtype_name(c.t));
    CAPTURE(c.cols);
    CAPTURE(c.stride);
    CAPTURE(c.offset);
    std::mt19937 rng(static_cast<unsigned>(c.cols));
    std::uniform_int_distribution<int> k(-255, 255);
    std::vector<float> dense(static_cast<std::size_t>(c.rows * c.cols));
    for (auto& v : dense) v = static_cast<float>(k(rng)) / 64.0f;
    std::vector<float> host(static_cast<std::size_t>(c.offset + c.rows * c.stride), 0.0f);
    for (std::int64_t r = 0; r < c.rows; ++r)
      std::copy_n(dense.begin() + r * c.cols, c.cols, host.begin() + c.offset + r * c.stride);
    const auto elem = static_cast<std::uint64_t>(dtype_size(c.t));
    Buffer in = buffer(c.t, host.size()), out = buffer(c.t, dense.size());
    upload_floats(in, host);
    out.fill_bytes(0xff);
    const Pointer src{in.address() + static_cast<std::uint64_t>(c.offset) * elem, c.t, memory()};
    const std::int64_t block = examples::next_power_of_two(c.cols);
    examples::softmax_held().launch({static_cast<std::uint64_t>(c.rows)}, {out, src, c.stride, c.cols, c.cols, block},
                                    options(c.warps));
    finish();
    auto cmp = examples::compare_rows(download_floats(out), examples::softmax_reference(dense, c.rows, c.cols, c.cols),
                                      c.rows, c.cols, c.cols);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= (c.t == DType::f32 ? 1e-5 : c.t == DType::f16 ? 2e-3 : 1e-2));
  }
}

TEST_CASE("vector add") {
  for (std::int64_t n : {1, 1000, (1 << 20) + 3}) {
    CAPTURE(n);
    auto x = random_floats(static_cast<std::size_t>(n), -10.f, 10.f, static_cast<unsigned>(n));
    auto y = random_floats(static_cast<std::size_t>(n), -10.f, 10.f, static_cast<unsigned>(n + 1));
    Buffer bx = buffer(DType::f32, x.size()), by = buffer(DType::f32, y.size()), bo = buffer(DType::f32, x.size());
    bx.upload(x);
    by.upload(y);
    bo.fill_bytes(0xff);
    examples::vector_add().launch({static_cast<std::uint64_t>(cdiv(n, 256))}, {bx, by, bo, n, 256}, options());
    finish();
    auto out = bo.download<float>();
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += out[i] != x[i] + y[i];
    CHECK(bad == 0);
  }
}

TEST_CASE("2-D many-rows softmax and online softmax match float64") {
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 20}, {1000, 64}, {513, 100}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto host = softmax_input(rows, cols, 99);
    Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, host.size());
    in.upload(host);
    out.fill_bytes(0xff);
    std::int64_t block = examples::next_power_of_two(cols), per = std::max<std::int64_t>(1, 1024 / block);
    examples::softmax_rows_2d().launch({static_cast<std::uint64_t>(cdiv(rows, per))},
                                       {out, in, cols, cols, rows, cols, per, block}, options());
    finish();
    check_f32_rows(out, examples::softmax_reference(host, rows, cols, cols), rows, cols);
  }
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {5, 3000}, {64, 65536}, {3, 100003}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    auto host = softmax_input(rows, cols, 7);
    Buffer in = buffer(DType::f32, host.size()), out = buffer(DType::f32, host.size());
    in.upload(host);
    out.fill_bytes(0xff);
    examples::softmax_online().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, 1024},
                                      options(8));
    finish();
    check_f32_rows(out, examples::softmax_reference(host, rows, cols, cols), rows, cols);
  }
}

TEST_CASE("seed softmax on f16 and bf16 inputs") {
  // Inputs k/64 with |k| < 256 are exact in both types; every op then rounds to the type, so
  // the tolerance is the type's.
  for (DType t : {DType::f16, DType::bf16}) {
    CAPTURE(dtype_name(t));
    const std::int64_t rows = 9, cols = 300, block = 512;
    std::mt19937 rng(21);
    std::uniform_int_distribution<int> k(-255, 255);
    std::vector<float> host(static_cast<std::size_t>(rows * cols));
    std::vector<std::uint16_t> bits(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) {
      host[i] = static_cast<float>(k(rng)) / 64.0f;
      bits[i] = examples::to_half_bits(t, host[i]);
    }
    Buffer in = buffer(t, host.size()), out = buffer(t, host.size());
    in.upload(bits);
    out.fill_bytes(0xff);
    examples::softmax_simple().launch({static_cast<std::uint64_t>(rows)}, {out, in, cols, cols, cols, block},
                                      options());
    finish();
    auto cmp = examples::compare_rows(download_floats(out), examples::softmax_reference(host, rows, cols, cols), rows,
                                      cols, cols);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= (t == DType::f16 ? 2e-3 : 1.6e-2));
  }
}

TEST_CASE("seed softmax with pointers off 16-byte alignment and odd row strides") {
  // The specialization sees unaligned pointers and strides not divisible by 16, so the code
  // must fall back to narrower accesses; results must not change.
  for (auto [rows, cols, in_stride, out_stride, in_off, out_off] :
       {std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>{33, 1000, 1001,
                                                                                                       1003, 1, 3},
        {7, 1024, 1024, 1024, 1, 1},
        {5, 4097, 4099, 4097, 2, 0}}) {
    CAPTURE(cols);
    CAPTURE(in_off);
    std::vector<float> dense = softmax_input(rows, cols, 5);
    std::vector<float> padded(static_cast<std::size_t>(rows * in_stride + in_off), 0.f);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        padded[static_cast<std::size_t>(in_off + r * in_stride + c)] = dense[static_cast<std::size_t>(r * cols + c)];
    Buffer in = buffer(DType::f32, padded.size());
    Buffer out = buffer(DType::f32, static_cast<std::size_t>(rows * out_stride + out_off));
    in.upload(padded);
    out.fill_bytes(0xff);
    Pointer pin{in.address() + 4 * static_cast<std::uint64_t>(in_off), DType::f32, memory()};
    Pointer pout{out.address() + 4 * static_cast<std::uint64_t>(out_off), DType::f32, memory()};
    ops::softmax_seed(pout, pin, rows, cols, in_stride, out_stride, nullptr, backend());
    finish();
    std::vector<float> all = out.download<float>();
    std::vector<float> got(all.begin() + out_off, all.end());
    auto cmp =
        examples::compare_rows(got, examples::softmax_reference(dense, rows, cols, cols), rows, cols, out_stride);
    CHECK(cmp.nan_mismatches == 0);
    CHECK(cmp.max_rel_error <= 1e-5);
  }
}

TEST_CASE("the seed softmax op: empty shapes launch nothing, bad input is refused") {
  Buffer a = buffer(DType::f32, 16);
  Pointer p{a.address(), DType::f32, memory()};
  CHECK_NOTHROW(ops::softmax_seed(p, p, 0, 16, 16, 16, nullptr, backend()));
  CHECK_NOTHROW(ops::softmax_seed(p, p, 4, 0, 16, 16, nullptr, backend()));
  CHECK_THROWS_AS(ops::softmax_seed(p, p, -1, 16, 16, 16, nullptr, backend()), Error);
  CHECK_THROWS_AS(ops::softmax_seed(p, p, 1, 20000, 20000, 20000, nullptr, backend()), Error);
  CHECK_THROWS_AS(ops::softmax_seed(Pointer{0, DType::f32, memory()}, p, 1, 16, 16, 16, nullptr, backend()), Error);
  CHECK_THROWS_AS(ops::softmax_seed(Pointer{a.address(), DType::i32, memory()}, p, 1, 16, 16, 16, nullptr, backend()),
                  Error);
  CHECK_THROWS_WITH_AS(ops::softmax_seed(p, p, 2, 16, -16, 16, nullptr, backend()),
                       doctest::Contains("negative row stride"), Error);
  // A Buffer's size must hold the rows: 16 floats are one row of 16, not two.
  const Pointer sized{a.address(), DType::f32, memory(), a.bytes()};
  CHECK_NOTHROW(ops::softmax_seed(sized, sized, 1, 16, 16, 16, nullptr, backend()));
  CHECK_THROWS_WITH_AS(ops::softmax_seed(sized, p, 2, 16, 16, 16, nullptr, backend()),
                       doctest::Contains("softmax_seed: the output holds 64 bytes, but 2 rows 16 elements apart"),
                       Error);
}
