// Host buffers: allocation, transfers, bounds, moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "tilejit/device.h"
#include "tilejit/error.h"

using namespace tilejit;

TEST_CASE("host buffer round trip") {
  Buffer b(DType::f32, 1000, Memory::host);
  CHECK(b.dtype() == DType::f32);
  CHECK(b.count() == 1000);
  CHECK(b.bytes() == 4000);
  CHECK(b.memory() == Memory::host);
  CHECK(b.address() % 64 == 0);
  CHECK(b.address() == reinterpret_cast<std::uintptr_t>(b.host_data()));

  std::vector<float> in(1000);
  std::iota(in.begin(), in.end(), -3.5f);
  b.upload(in);
  CHECK(b.download<float>() == in);
  CHECK(static_cast<const float*>(b.host_data())[10] == in[10]);

  // Partial transfers at an offset.
  const float patch[2] = {42.f, 43.f};
  b.upload(patch, sizeof(patch), 8 * sizeof(float));
  float got[3] = {};
  b.download(got, sizeof(got), 7 * sizeof(float));
  CHECK(got[0] == in[7]);
  CHECK(got[1] == 42.f);
  CHECK(got[2] == 43.f);

  b.fill_bytes(0xff);
  const std::vector<std::uint32_t> bits = b.download<std::uint32_t>();
  CHECK(std::all_of(bits.begin(), bits.end(), [](std::uint32_t v) { return v == 0xffffffffu; }));
}

TEST_CASE("host buffer bounds and type errors") {
  Buffer b(DType::f16, 10, Memory::host);  // 20 bytes
  char bytes[32] = {};
  CHECK_NOTHROW(b.upload(bytes, 20));
  CHECK_NOTHROW(b.upload(bytes, 0, 20));
  CHECK_THROWS_AS(b.upload(bytes, 21), Error);
  CHECK_THROWS_AS(b.upload(bytes, 2, 19), Error);
  CHECK_THROWS_AS(b.download(bytes, 1, 21), Error);
  CHECK_THROWS_AS(b.upload(bytes, 4, SIZE_MAX - 1), Error);  // offset + size would wrap
  CHECK_THROWS_AS(b.upload(nullptr, 4), Error);
  CHECK_THROWS_AS(b.upload(std::vector<float>(5)), Error);          // wrong element size
  CHECK_THROWS_AS(b.upload(std::vector<std::uint16_t>(9)), Error);  // wrong count
  CHECK_NOTHROW(b.upload(std::vector<std::uint16_t>(10)));
  CHECK_THROWS_AS(b.download<float>(), Error);
  try {
    b.upload(bytes, 21);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("out of bounds") != std::string::npos);
  }
}

TEST_CASE("zero-count buffers allocate nothing") {
  for (Memory where : {Memory::host, Memory::device}) {
    Buffer b(DType::f64, 0, where);
    CHECK(b.count() == 0);
    CHECK(b.bytes() == 0);
    CHECK(b.address() == 0);
    CHECK_NOTHROW(b.upload(nullptr, 0));
    CHECK_NOTHROW(b.fill_bytes(0));
    CHECK(b.download<double>().empty());
    CHECK_THROWS_AS(b.upload("x", 1), Error);
  }
}

TEST_CASE("device buffers have no host pointer") {
  Buffer b(DType::i32, 0, Memory::device);
  CHECK_THROWS_AS(b.host_data(), Error);
}

TEST_CASE("buffers move and leave the source empty") {
  Buffer a(DType::i64, 8, Memory::host);
  a.upload(std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8});
  const auto address = a.address();
  Buffer b(std::move(a));
  CHECK(b.address() == address);
  CHECK(a.count() == 0);
  CHECK(a.address() == 0);
  Buffer c(DType::i1, 3, Memory::host);
  c = std::move(b);
  CHECK(c.dtype() == DType::i64);
  CHECK(c.download<std::int64_t>()[7] == 8);
  Buffer d;
  CHECK(d.count() == 0);
}
