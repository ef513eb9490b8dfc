
// kernel softmax_rows_2d: 4 warps
extern "C" __global__ void __launch_bounds__(128) softmax_rows_2d_<hash>(float* v0, float* v1, int v2, int v3, int v4, int v5) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
#line 15 "softmax_rows_2d.h"
  const int v7 = (int)blockIdx.x;
  int const v8 = 32;
  int const v9 = (v7 * v8);
#line 19 "softmax_rows_2d.h"
  float const v29 = __int_as_float(0xff800000);
  float* v24_3[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v24_3[r] = v1;
  int v10_7[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v10_7[r] = v9;
  int v6_8[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v6_8[r] = 0 + (((((r >> 2) & 1) * 8) + (((r >> 3) & 1) * 16)) + ((((tj_lane >> 4) & 1) * 1)) + ((((tj_warp >> 0) & 1) * 2) + (((tj_warp >> 1) & 1) * 4)));
  int v11_6[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v11_6[r] = (v10_7[r & ~3] + v6_8[r & ~3]);
  int v16_5[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v16_5[r] = v11_6[r];
  int v22_9[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v22_9[r] = v2;
  int v23_4[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v23_4[r] = (v16_5[r & ~3] * v22_9[r & ~3]);
  float* v25_2[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v25_2[r] = (v24_3[r & ~3] + v23_4[r & ~3]);
  float* v26_1[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v26_1[r] = v25_2[r];
  int v12_12[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v12_12[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32)) + 0);
  int v13_11[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v13_11[r] = v12_12[r];
  int v27_10[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v27_10[r] = v13_11[r];
  float* v28_0[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v28_0[r] = (v26_1[r] + v27_10[r]);
  int v17_16[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v17_16[r] = v4;
  bool v18_15[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v18_15[r] = (v16_5[r & ~3] < v17_16[r & ~3]);
  bool v19_14[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v19_14[r] = v18_15[r];
  int v14_19[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v14_19[r] = v5;
  bool v15_18[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v15_18[r] = (v13_11[r & ~12] < v14_19[r & ~12]);
  bool v20_17[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v20_17[r] = v15_18[r];
  bool v21_13[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v21_13[r] = (v19_14[r] & v20_17[r]);
  float v30_20[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v30_20[r] = v29;
  float v31[16];
  #pragma unroll
  for (int r = 0; r < 16; r += 4) {
    unsigned tj_w0 = (unsigned)(__float_as_uint(v30_20[r + 0]));
    unsigned tj_w1 = (unsigned)(__float_as_uint(v30_20[r + 1]));
    unsigned tj_w2 = (unsigned)(__float_as_uint(v30_20[r + 2]));
    unsigned tj_w3 = (unsigned)(__float_as_uint(v30_20[r + 3]));
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v21_13[r]), "l"(v28_0[r]));
    v31[r + 0] = __uint_as_float(tj_w0);
    v31[r + 1] = __uint_as_float(tj_w1);
    v31[r + 2] = __uint_as_float(tj_w2);
    v31[r + 3] = __uint_as_float(tj_w3);
  }
#line 20 "softmax_rows_2d.h"
  float v32_acc_21[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v32_acc_21[r] = v31[r];
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 1) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], v32_acc_21[r | 1]);
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], v32_acc_21[r | 2]);
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], __shfl_xor_sync(0xffffffffu, v32_acc_21[r], 1));
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], __shfl_xor_sync(0xffffffffu, v32_acc_21[r], 2));
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], __shfl_xor_sync(0xffffffffu, v32_acc_21[r], 4));
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v32_acc_21[r] = tj_max(v32_acc_21[r], __shfl_xor_sync(0xffffffffu, v32_acc_21[r], 8));
  float v32[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v32[r] = v32_acc_21[r & ~3];
  float v33[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v33[r] = v32[r];
  float v34[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v34[r] = v33[r];
  float v35[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v35[r] = (v31[r] - v34[r]);
#line 21 "softmax_rows_2d.h"
  float v36[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v36[r] = expf(v35[r]);
#line 22 "softmax_rows_2d.h"
  float v37_acc_22[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v37_acc_22[r] = v36[r];
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 1) == 0) v37_acc_22[r] = v37_acc_22[r] + v37_acc_22[r | 1];
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v37_acc_22[r] = v37_acc_22[r] + v37_acc_22[r | 2];
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v37_acc_22[r] = v37_acc_22[r] + __shfl_xor_sync(0xffffffffu, v37_acc_22[r], 1);
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v37_acc_22[r] = v37_acc_22[r] + __shfl_xor_sync(0xffffffffu, v37_acc_22[r], 2);
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v37_acc_22[r] = v37_acc_22[r] + __shfl_xor_sync(0xffffffffu, v37_acc_22[r], 4);
  #pragma unroll
  for (int r = 0; r < 16; ++r) if ((r & 3) == 0) v37_acc_22[r] = v37_acc_22[r] + __shfl_xor_sync(0xffffffffu, v37_acc_22[r], 8);
  float v37[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v37[r] = v37_acc_22[r & ~3];
  float v38[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v38[r] = v37[r];
  float v39[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v39[r] = v38[r];
  float v40[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v40[r] = (v36[r] / v39[r]);
#line 23 "softmax_rows_2d.h"
  float* v43_26[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v43_26[r] = v0;
  int v41_28[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v41_28[r] = v3;
  int v42_27[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v42_27[r] = (v16_5[r & ~3] * v41_28[r & ~3]);
  float* v44_25[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v44_25[r] = (v43_26[r & ~3] + v42_27[r & ~3]);
  float* v45_24[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v45_24[r] = v44_25[r];
  float* v46_23[16];
  #pragma unroll
  for (int r = 0; r < 16; ++r) v46_23[r] = (v45_24[r] + v27_10[r]);
  #pragma unroll
  for (int r = 0; r < 16; r += 4) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v21_13[r])), "l"(v46_23[r]), "r"((unsigned)(__float_as_uint(v40[r + 0]))), "r"((unsigned)(__float_as_uint(v40[r + 1]))), "r"((unsigned)(__float_as_uint(v40[r + 2]))), "r"((unsigned)(__float_as_uint(v40[r + 3]))) : "memory");
  }
}
