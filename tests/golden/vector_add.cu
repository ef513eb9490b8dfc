
// kernel vector_add: 4 warps
extern "C" __global__ void __launch_bounds__(128) vector_add_<hash>(float* v0, float* v1, float* v2, int v3) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
#line 12 "vector_add.h"
  const int v5 = (int)blockIdx.x;
  int const v6 = 1024;
  int const v7 = (v5 * v6);
#line 14 "vector_add.h"
  float* v12_1[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v12_1[r] = v1;
  int v8_3[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v8_3[r] = v7;
  int v4_4[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v4_4[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)));
  int v9_2[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v9_2[r] = (v8_3[r] + v4_4[r]);
  float* v13_0[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v13_0[r] = (v12_1[r] + v9_2[r]);
  int v10_6[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v10_6[r] = v3;
  bool v11_5[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v11_5[r] = (v9_2[r] < v10_6[r]);
  float v14[8];
  #pragma unroll
  for (int r = 0; r < 8; r += 4) {
    unsigned tj_w0 = (unsigned)(0);
    unsigned tj_w1 = (unsigned)(0);
    unsigned tj_w2 = (unsigned)(0);
    unsigned tj_w3 = (unsigned)(0);
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v11_5[r]), "l"(v13_0[r]));
    v14[r + 0] = __uint_as_float(tj_w0);
    v14[r + 1] = __uint_as_float(tj_w1);
    v14[r + 2] = __uint_as_float(tj_w2);
    v14[r + 3] = __uint_as_float(tj_w3);
  }
  float* v15_8[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v15_8[r] = v0;
  float* v16_7[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v16_7[r] = (v15_8[r] + v9_2[r]);
  float v17[8];
  #pragma unroll
  for (int r = 0; r < 8; r += 4) {
    unsigned tj_w0 = (unsigned)(0);
    unsigned tj_w1 = (unsigned)(0);
    unsigned tj_w2 = (unsigned)(0);
    unsigned tj_w3 = (unsigned)(0);
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v11_5[r]), "l"(v16_7[r]));
    v17[r + 0] = __uint_as_float(tj_w0);
    v17[r + 1] = __uint_as_float(tj_w1);
    v17[r + 2] = __uint_as_float(tj_w2);
    v17[r + 3] = __uint_as_float(tj_w3);
  }
  float v18[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v18[r] = (v17[r] + v14[r]);
  float* v19_10[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v19_10[r] = v2;
  float* v20_9[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v20_9[r] = (v19_10[r] + v9_2[r]);
  #pragma unroll
  for (int r = 0; r < 8; r += 4) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v11_5[r])), "l"(v20_9[r]), "r"((unsigned)(__float_as_uint(v18[r + 0]))), "r"((unsigned)(__float_as_uint(v18[r + 1]))), "r"((unsigned)(__float_as_uint(v18[r + 2]))), "r"((unsigned)(__float_as_uint(v18[r + 3]))) : "memory");
  }
}
