
// kernel softmax_persistent: 4 warps
extern "C" __global__ void __launch_bounds__(128) softmax_persistent_<hash>(float* v0, float* v1, int v2, int v3, int v4, int v5) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_reduction_buffer_bytes = 16;
#line 34 "softmax_seed.h"
  const int v6 = (int)blockIdx.x;
#line 35 "softmax_seed.h"
  const int v7 = (int)gridDim.x;
#line 39 "softmax_seed.h"
  int const v11 = (v6 * v2);
  float* const v12 = (v1 + v11);
  float const v15 = __int_as_float(0xff800000);
#line 36 "softmax_seed.h"
  bool const v17 = (v6 < v4);
#line 39 "softmax_seed.h"
  float* v13_1[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v13_1[r] = v12;
  int v8_2[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v8_2[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)));
  float* v14_0[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v14_0[r] = (v13_1[r] + v8_2[r]);
  int v9_5[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v9_5[r] = v5;
  bool v10_4[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v10_4[r] = (v8_2[r] < v9_5[r]);
  bool v18_6[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v18_6[r] = v17;
  bool v19_3[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v19_3[r] = (v10_4[r] & v18_6[r]);
  float v16_7[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v16_7[r] = v15;
  float v20[8];
  #pragma unroll
  for (int r = 0; r < 8; r += 1) {
    unsigned tj_w0 = (unsigned)(__float_as_uint(v16_7[r + 0]));
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v19_3[r]), "l"(v14_0[r]));
    v20[r + 0] = __uint_as_float(tj_w0);
  }
#line 36 "softmax_seed.h"
  float v23[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v23[r] = v20[r];
  // num_stages=2 (pipelining hint)
  for (int v22 = v6; v22 < v4; v22 += v7) {
    int const v24 = (v22 + v7);
    bool const v25 = (v24 < v4);
#line 39 "softmax_seed.h"
    int const v26 = (v24 * v2);
    float* const v27 = (v1 + v26);
    float* v28_9[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v28_9[r] = v27;
    float* v29_8[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v29_8[r] = (v28_9[r] + v8_2[r]);
    bool v30_11[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v30_11[r] = v25;
    bool v31_10[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v31_10[r] = (v10_4[r] & v30_11[r]);
    float v32[8];
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      unsigned tj_w0 = (unsigned)(__float_as_uint(v16_7[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v31_10[r]), "l"(v29_8[r]));
      v32[r + 0] = __uint_as_float(tj_w0);
    }
#line 40 "softmax_seed.h"
    float v33_acc_12[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v33_acc_12[r] = v23[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 1]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 2]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 4]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 1));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 2));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 4));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 8));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v33_acc_12[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
        v33_acc_12[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 4; ++s) v33_acc_12[r] = tj_max(v33_acc_12[r], tj_red[s * 1 + 0]);
      }
    }
    float const v33 = v33_acc_12[0];
    float v34_13[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v34_13[r] = v33;
    float v35[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v35[r] = (v23[r] - v34_13[r]);
#line 41 "softmax_seed.h"
    float const v36 = 1.44269502f;
    float v37_14[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v37_14[r] = v36;
    float v38[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v38[r] = (v35[r] * v37_14[r]);
    float v39[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v39[r] = tj_ex2_ftz(v38[r]);
#line 42 "softmax_seed.h"
    float v40_acc_15[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v40_acc_15[r] = v39[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 1];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 2];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 4];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 2);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 4);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 8);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v40_acc_15[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
        v40_acc_15[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 4; ++s) v40_acc_15[r] = v40_acc_15[r] + tj_red[s * 1 + 0];
      }
    }
    float const v40 = v40_acc_15[0];
#line 43 "softmax_seed.h"
    float v42[8];
    const float tj_rcp_16 = tj_rcp_approx(v40);
    if (fabsf(v40) <= 8.50705917e37f && fabsf(v40) >= 1.17549435e-38f) {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v42[r] = v39[r] * tj_rcp_16;
    } else {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v42[r] = tj_div_full(v39[r], v40);
    }
    int const v43 = (v22 * v3);
    float* const v44 = (v0 + v43);
    float* v45_18[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v45_18[r] = v44;
    float* v46_17[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v46_17[r] = (v45_18[r] + v8_2[r]);
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b32 [%1], %2; }" :: "r"((int)(v10_4[r])), "l"(v46_17[r]), "r"((unsigned)(__float_as_uint(v42[r + 0]))) : "memory");
    }
#line 36 "softmax_seed.h"
    float v23_next_19[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v23_next_19[r] = v32[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v23[r] = v23_next_19[r];
  }
}
