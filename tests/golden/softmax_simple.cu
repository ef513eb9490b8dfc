
// kernel softmax_simple: 4 warps
extern "C" __global__ void __launch_bounds__(128) softmax_simple_<hash>(float* v0, float* v1, int v2, int v3, int v4) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_reduction_buffer_bytes = 16;
#line 21 "softmax_seed.h"
  const int v5 = (int)blockIdx.x;
#line 24 "softmax_seed.h"
  int const v9 = (v5 * v2);
  float* const v10 = (v1 + v9);
  float const v13 = __int_as_float(0xff800000);
  float* v11_1[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v11_1[r] = v10;
  int v6_2[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v6_2[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)));
  float* v12_0[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v12_0[r] = (v11_1[r] + v6_2[r]);
  int v7_4[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v7_4[r] = v4;
  bool v8_3[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v8_3[r] = (v6_2[r] < v7_4[r]);
  float v14_5[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v14_5[r] = v13;
  float v15[8];
  #pragma unroll
  for (int r = 0; r < 8; r += 1) {
    unsigned tj_w0 = (unsigned)(__float_as_uint(v14_5[r + 0]));
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v8_3[r]), "l"(v12_0[r]));
    v15[r + 0] = __uint_as_float(tj_w0);
  }
#line 25 "softmax_seed.h"
  float v16_acc_6[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v16_acc_6[r] = v15[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], v16_acc_6[r | 1]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], v16_acc_6[r | 2]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], v16_acc_6[r | 4]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], __shfl_xor_sync(0xffffffffu, v16_acc_6[r], 1));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], __shfl_xor_sync(0xffffffffu, v16_acc_6[r], 2));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], __shfl_xor_sync(0xffffffffu, v16_acc_6[r], 4));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], __shfl_xor_sync(0xffffffffu, v16_acc_6[r], 8));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v16_acc_6[r] = tj_max(v16_acc_6[r], __shfl_xor_sync(0xffffffffu, v16_acc_6[r], 16));
   {
    float* tj_red = reinterpret_cast<float*>(tj_smem);
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v16_acc_6[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v16_acc_6[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v16_acc_6[r] = tj_max(v16_acc_6[r], tj_red[s * 1 + 0]);
    }
  }
  float const v16 = v16_acc_6[0];
  float v17_7[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v17_7[r] = v16;
  float v18[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v18[r] = (v15[r] - v17_7[r]);
#line 26 "softmax_seed.h"
  float const v19 = 1.44269502f;
  float v20_8[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v20_8[r] = v19;
  float v21[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v21[r] = (v18[r] * v20_8[r]);
  float v22[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v22[r] = tj_ex2_ftz(v21[r]);
#line 27 "softmax_seed.h"
  float v23_acc_9[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v23_acc_9[r] = v22[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v23_acc_9[r] = v23_acc_9[r] + v23_acc_9[r | 1];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v23_acc_9[r] = v23_acc_9[r] + v23_acc_9[r | 2];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + v23_acc_9[r | 4];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + __shfl_xor_sync(0xffffffffu, v23_acc_9[r], 1);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + __shfl_xor_sync(0xffffffffu, v23_acc_9[r], 2);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + __shfl_xor_sync(0xffffffffu, v23_acc_9[r], 4);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + __shfl_xor_sync(0xffffffffu, v23_acc_9[r], 8);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v23_acc_9[r] = v23_acc_9[r] + __shfl_xor_sync(0xffffffffu, v23_acc_9[r], 16);
   {
    float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v23_acc_9[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v23_acc_9[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v23_acc_9[r] = v23_acc_9[r] + tj_red[s * 1 + 0];
    }
  }
  float const v23 = v23_acc_9[0];
#line 28 "softmax_seed.h"
  float v25[8];
  const float tj_rcp_10 = tj_rcp_approx(v23);
  if (fabsf(v23) <= 8.50705917e37f && fabsf(v23) >= 1.17549435e-38f) {
    #pragma unroll
    for (int r = 0; r < 8; ++r) v25[r] = v22[r] * tj_rcp_10;
  } else {
    #pragma unroll
    for (int r = 0; r < 8; ++r) v25[r] = tj_div_full(v22[r], v23);
  }
  int const v26 = (v5 * v3);
  float* const v27 = (v0 + v26);
  float* v28_12[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v28_12[r] = v27;
  float* v29_11[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v29_11[r] = (v28_12[r] + v6_2[r]);
  #pragma unroll
  for (int r = 0; r < 8; r += 1) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b32 [%1], %2; }" :: "r"((int)(v8_3[r])), "l"(v29_11[r]), "r"((unsigned)(__float_as_uint(v25[r + 0]))) : "memory");
  }
}
