// tl::atomic_* on the backend this binary tests: many programs (threads of the CPU backend's
// pool, blocks on the GPU) updating few addresses, checked against what any order of the
// updates gives, computed here: exact counts and bit patterns, float64 sums, the set of old
// values a ticket counter hands out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "kernel_test.h"

using namespace tilejit;
using namespace tilejit::testing;
namespace tl = tilejit::tl;

namespace {

// hist[key[i]] += 1 and sums[key[i]] += x[i] for a block of keys per program.
void histogram_kernel(tl::Ptr hist, tl::Ptr sums, tl::Ptr keys, tl::Ptr x, tl::Int n, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto key = tl::load(keys + offs, mask, 0);
  tl::atomic_add(hist + key, 1, mask);
  tl::atomic_add(sums + key, tl::load(x + offs, mask, 0.0), mask);
}

// Every element of every program takes a ticket from one counter; the tickets are written twice
// (columns 0 and 1 of a 2-D block) so that copies of a replicated element must hold theirs too.
// Each program also takes one ticket of its own from a second counter.
void tickets_kernel(tl::Ptr out, tl::Ptr per_program, tl::Ptr counters, tl::Constexpr BLOCK) {
  auto pid = tl::program_id(0);
  auto same = counters + tl::arange(0, BLOCK) * 0;
  auto ticket = tl::atomic_add(same, 1);
  auto rows = pid * BLOCK + tl::arange(0, BLOCK);
  auto two = ticket(tl::all, tl::newaxis) + tl::arange(0, 2)(tl::newaxis, tl::all) * 0;
  tl::store(out + rows(tl::all, tl::newaxis) * 2 + tl::arange(0, 2)(tl::newaxis, tl::all), two);
  tl::store(per_program + pid, tl::atomic_add(counters + 1, 1) * 2 + 1);
}

// slots[i % SLOTS] op= x[i] for each kind of update (KIND: 0 max, 1 min, 2 and, 3 or, 4 xor).
void fold_kernel(tl::Ptr slots, tl::Ptr x, tl::Int n, tl::Constexpr KIND, tl::Constexpr SLOTS, tl::Constexpr BLOCK) {
  auto offs = tl::program_id(0) * BLOCK + tl::arange(0, BLOCK);
  auto mask = offs < n;
  auto v = tl::load(x + offs, mask, 0);
  auto p = slots + offs % SLOTS;
  switch (KIND.value) {
    case 0: tl::atomic_max(p, v, mask); break;
    case 1: tl::atomic_min(p, v, mask); break;
    case 2: tl::atomic_and(p, v, mask); break;
    case 3: tl::atomic_or(p, v, mask); break;
    case 4: tl::atomic_xor(p, v, mask); break;
  }
}

// Program p exchanges p + 1 into one slot and writes back what it took out; then every
// program's compare-and-swap of 0 -> p + 1 on a second slot, whose old value says who won.
void exchange_kernel(tl::Ptr slots, tl::Ptr taken, tl::Ptr seen) {
  auto pid = tl::program_id(0);
  tl::store(taken + pid, tl::atomic_xchg(slots, pid + 1));
  tl::store(seen + pid, tl::atomic_cas(slots + 1, 0, pid + 1));
}

// Masked elements neither update nor return anything but 0; a block of cas where half expect
// what memory holds.
void masked_kernel(tl::Ptr data, tl::Ptr old, tl::Ptr swapped, tl::Ptr cas_old, tl::Constexpr BLOCK) {
  auto i = tl::arange(0, BLOCK);
  tl::store(old + i, tl::atomic_add(data + i, 100, i % 3 == 0));
  tl::store(cas_old + i, tl::atomic_cas(swapped + i, tl::where(i % 2 == 0, i, -1), i + 1000));
}

}  // namespace

TEST_CASE("atomic_add: integer and float histograms from 64 programs with colliding keys") {
  static const Kernel k("histogram", histogram_kernel, {"hist", "sums", "keys", "x", "n", "BLOCK"});
  const std::int64_t n = 64 * 256 - 5, bins = 37;
  std::mt19937 rng(5);
  std::vector<std::int32_t> keys(n);
  for (auto& key : keys) key = static_cast<std::int32_t>(rng() % bins);
  const std::vector<float> x = random_floats(n, -1.f, 2.f, 6);
  for (DType sum_type : {DType::f32, DType::f64}) {
    CAPTURE(dtype_name(sum_type));
    Buffer bk = buffer(DType::i32, n), bx = buffer(sum_type, n), bh = buffer(DType::i32, bins),
           bs = buffer(sum_type, bins);
    bk.upload(keys);
    if (sum_type == DType::f32) bx.upload(x);
    else bx.upload(std::vector<double>(x.begin(), x.end()));
    bh.fill_bytes(0);
    bs.fill_bytes(0);
    k.launch(Grid(64), {bh, bs, bk, bx, n, 256}, options(4));
    finish();
    std::vector<std::int32_t> want_count(bins, 0);
    std::vector<double> want_sum(bins, 0.0), want_abs(bins, 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      ++want_count[keys[i]];
      want_sum[keys[i]] += x[i];
      want_abs[keys[i]] += std::fabs(x[i]);
    }
    CHECK(bh.download<std::int32_t>() == want_count);
    std::vector<double> got(bins);
    if (sum_type == DType::f32) {
      auto g = bs.download<float>();
      std::copy(g.begin(), g.end(), got.begin());
    } else {
      got = bs.download<double>();
    }
    // Any order of float additions is within n * eps of the sum of magnitudes.
    const double eps = sum_type == DType::f32 ? 0x1p-24 : 0x1p-53;
    for (std::int64_t b = 0; b < bins; ++b) CHECK(std::fabs(got[b] - want_sum[b]) <= want_count[b] * eps * want_abs[b]);
  }
}

TEST_CASE("atomic_add returns each element's old value: tickets are a permutation") {
  static const Kernel k("tickets", tickets_kernel, {"out", "per_program", "counters", "BLOCK"});
  const int programs = 40;
  // 32 elements over 4 warps leave copies of each element in several warps; 256 none.
  for (int block : {32, 256}) {
    CAPTURE(block);
    Buffer out = buffer(DType::i32, static_cast<std::size_t>(programs * block * 2));
    Buffer per_program = buffer(DType::i32, programs), counters = buffer(DType::i32, 2);
    out.fill_bytes(0xff);
    counters.fill_bytes(0);
    k.launch(Grid(programs), {out, per_program, counters, block}, options(4));
    finish();
    auto got = out.download<std::int32_t>();
    std::vector<std::int32_t> first, expect(static_cast<std::size_t>(programs * block));
    for (std::size_t i = 0; i < got.size(); i += 2) {
      CHECK(got[i] == got[i + 1]);
      first.push_back(got[i]);
    }
    std::sort(first.begin(), first.end());
    std::iota(expect.begin(), expect.end(), 0);
    CHECK(first == expect);
    auto mine = per_program.download<std::int32_t>();
    std::sort(mine.begin(), mine.end());
    std::vector<std::int32_t> odd(programs);
    for (int p = 0; p < programs; ++p) odd[p] = 2 * p + 1;
    CHECK(mine == odd);
    CHECK(counters.download<std::int32_t>() == std::vector<std::int32_t>{programs * block, programs});
  }
}

TEST_CASE("atomic_max and atomic_min: i32, i64, f32 and f64 with negatives and signed zeros") {
  static const Kernel k("fold", fold_kernel, {"slots", "x", "n", "KIND", "SLOTS", "BLOCK"});
  const std::int64_t n = 48 * 128, slots = 7;
  std::mt19937 rng(11);
  std::vector<double> values(n);
  for (auto& v : values) v = std::ldexp(static_cast<double>(static_cast<std::int32_t>(rng() % 2001) - 1000), -3);
  values[3] = -0.0;
  values[10] = 0.0;
  for (DType t : {DType::i32, DType::i64, DType::f32, DType::f64})
    for (int kind : {0, 1}) {
      CAPTURE(dtype_name(t));
      CAPTURE(kind);
      // Slots start at 0.5 (floats) or 0; every value is exact in every type.
      auto as = [&](double v) { return is_float(t) ? v : std::trunc(v); };
      std::vector<double> want(slots, is_float(t) ? 0.5 : 0.0);
      for (std::int64_t i = 0; i < n; ++i)
        want[i % slots] =
            kind == 0 ? std::max(want[i % slots], as(values[i])) : std::min(want[i % slots], as(values[i]));
      Buffer bx = buffer(t, n), bs = buffer(t, slots);
      std::vector<double> init(slots, want[0] * 0 + (is_float(t) ? 0.5 : 0.0));
      auto upload = [&](Buffer& b, const std::vector<double>& v) {
        if (t == DType::i32) {
          std::vector<std::int32_t> c(v.size());
          for (std::size_t i = 0; i < v.size(); ++i) c[i] = static_cast<std::int32_t>(as(v[i]));
          b.upload(c);
        } else if (t == DType::i64) {
          std::vector<std::int64_t> c(v.size());
          for (std::size_t i = 0; i < v.size(); ++i) c[i] = static_cast<std::int64_t>(as(v[i]));
          b.upload(c);
        } else if (t == DType::f32) {
          b.upload(std::vector<float>(v.begin(), v.end()));
        } else {
          b.upload(v);
        }
      };
      upload(bx, values);
      upload(bs, init);
      k.launch(Grid(48), {bs, bx, n, kind, slots, 128}, options(4));
      finish();
      std::vector<double> got(slots);
      if (t == DType::i32) {
        auto g = bs.download<std::int32_t>();
        std::copy(g.begin(), g.end(), got.begin());
      } else if (t == DType::i64) {
        auto g = bs.download<std::int64_t>();
        std::copy(g.begin(), g.end(), got.begin());
      } else if (t == DType::f32) {
        auto g = bs.download<float>();
        std::copy(g.begin(), g.end(), got.begin());
      } else {
        got = bs.download<double>();
      }
      CHECK(got == want);
    }
}

TEST_CASE("atomic_max orders -0 below +0 and atomic_min +0 above -0, for floats") {
  static const Kernel k("fold", fold_kernel, {"slots", "x", "n", "KIND", "SLOTS", "BLOCK"});
  for (int kind : {0, 1}) {
    Buffer bx = buffer(DType::f32, 1), bs = buffer(DType::f32, 1);
    bx.upload(std::vector<float>{kind == 0 ? 0.0f : -0.0f});
    bs.upload(std::vector<float>{kind == 0 ? -0.0f : 0.0f});
    k.launch(Grid(1), {bs, bx, 1, kind, 1, 32}, options(1));
    finish();
    const float got = bs.download<float>()[0];
    CHECK(got == 0.0f);
    CHECK(std::signbit(got) == (kind == 1));
  }
}

TEST_CASE("atomic_and, atomic_or and atomic_xor of i32 and i64 bit patterns") {
  static const Kernel k("fold", fold_kernel, {"slots", "x", "n", "KIND", "SLOTS", "BLOCK"});
  const std::int64_t n = 32 * 64 - 9, slots = 5;
  std::mt19937_64 rng(21);
  std::vector<std::uint64_t> bits(n);
  for (auto& b : bits) b = rng() | rng();  // mostly ones, so and-ing leaves some
  for (DType t : {DType::i32, DType::i64})
    for (int kind : {2, 3, 4}) {
      CAPTURE(dtype_name(t));
      CAPTURE(kind);
      const std::uint64_t width_mask = t == DType::i32 ? 0xffffffffull : ~0ull;
      const std::uint64_t start = kind == 2 ? width_mask : 0x5a5aull;
      std::vector<std::uint64_t> want(slots, start);
      for (std::int64_t i = 0; i < n; ++i) {
        std::uint64_t& w = want[i % slots];
        const std::uint64_t v = bits[i] & width_mask;
        w = kind == 2 ? (w & v) : kind == 3 ? (w | v) : (w ^ v);
      }
      std::vector<std::uint64_t> got(slots);
      Buffer bx = buffer(t, n), bs = buffer(t, slots);
      if (t == DType::i32) {
        std::vector<std::uint32_t> x(bits.begin(), bits.end());
        bx.upload(x);
        bs.upload(std::vector<std::uint32_t>(slots, static_cast<std::uint32_t>(start)));
      } else {
        bx.upload(bits);
        bs.upload(std::vector<std::uint64_t>(slots, start));
      }
      k.launch(Grid(32), {bs, bx, n, kind, slots, 64}, options(2));
      finish();
      if (t == DType::i32) {
        auto g = bs.download<std::uint32_t>();
        std::copy(g.begin(), g.end(), got.begin());
      } else {
        got = bs.download<std::uint64_t>();
      }
      CHECK(got == want);
    }
}

TEST_CASE("atomic_xchg hands each value on once; atomic_cas lets exactly one program win") {
  static const Kernel k("exchange", exchange_kernel, {"slots", "taken", "seen"});
  const int programs = 50;
  Buffer slots = buffer(DType::i32, 2), taken = buffer(DType::i32, programs), seen = buffer(DType::i32, programs);
  slots.fill_bytes(0);
  k.launch(Grid(programs), {slots, taken, seen}, options(1));
  finish();
  // The values taken out plus the one left behind are the initial 0 and every program's p + 1.
  auto chain = taken.download<std::int32_t>();
  const auto final_slots = slots.download<std::int32_t>();
  chain.push_back(final_slots[0]);
  std::sort(chain.begin(), chain.end());
  std::vector<std::int32_t> expect(programs + 1);
  std::iota(expect.begin(), expect.end(), 0);
  CHECK(chain == expect);
  const auto old = seen.download<std::int32_t>();
  const auto winners = std::count(old.begin(), old.end(), 0);
  CHECK(winners == 1);
  const auto winner = std::find(old.begin(), old.end(), 0) - old.begin();
  CHECK(final_slots[1] == winner + 1);
  for (int p = 0; p < programs; ++p)
    if (p != winner) CHECK(old[p] == winner + 1);
}

TEST_CASE("masked atomics leave memory alone and return 0; a block of cas swaps where it matches") {
  static const Kernel k("masked", masked_kernel, {"data", "old", "swapped", "cas_old", "BLOCK"});
  const int n = 64;
  Buffer data = buffer(DType::i32, n), old = buffer(DType::i32, n), swapped = buffer(DType::i32, n),
         cas_old = buffer(DType::i32, n);
  std::vector<std::int32_t> init(n);
  std::iota(init.begin(), init.end(), 7);
  data.upload(init);
  std::vector<std::int32_t> held(n);
  std::iota(held.begin(), held.end(), 0);
  swapped.upload(held);
  old.fill_bytes(0xff);
  k.launch(Grid(1), {data, old, swapped, cas_old, n}, options(1));
  finish();
  const auto d = data.download<std::int32_t>(), o = old.download<std::int32_t>();
  const auto s = swapped.download<std::int32_t>(), c = cas_old.download<std::int32_t>();
  for (int i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(d[i] == init[i] + (i % 3 == 0 ? 100 : 0));
    CHECK(o[i] == (i % 3 == 0 ? init[i] : 0));
    CHECK(c[i] == i);
    CHECK(s[i] == (i % 2 == 0 ? i + 1000 : i));
  }
}
