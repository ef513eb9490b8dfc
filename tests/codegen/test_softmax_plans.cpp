// ops::compile_softmax: the CUDA kernels each softmax band would launch compile for sm_90
// without a GPU, with no spills, and the split strategy brings its two kernels.
#include <doctest/doctest.h>

#include <string>

#include "tilejit/ops/softmax.h"

using namespace tilejit;

TEST_CASE("compile_softmax: every band's CUDA kernels compile without spilling") {
  ops::SoftmaxOptions cuda;
  cuda.backend = Backend::cuda;
  struct Case {
    std::int64_t rows, cols;
    std::size_t kernels;
  };
  for (Case c : {Case{65536, 128, 1}, Case{4096, 4096, 1}, Case{4096, 65536, 1}, Case{1, 1 << 20, 2}})
    for (DType t : {DType::f32, DType::bf16}) {
      CAPTURE(c.rows);
      CAPTURE(c.cols);
      CAPTURE(dtype_name(t));
      auto kernels =
          ops::compile_softmax(Pointer{0x10000, t}, Pointer{0x20000, t}, c.rows, c.cols, c.cols, c.cols, false, cuda);
      REQUIRE(kernels.size() == c.kernels);
      for (const CompiledKernel* k : kernels) {
        CHECK(k->metadata().backend == Backend::cuda);
        CHECK(k->stage("ptx").find(".entry " + k->metadata().entry_name) != std::string::npos);
        CHECK(k->metadata().spill_store_bytes == 0);
        CHECK(k->metadata().stack_frame_bytes == 0);
      }
    }
}
