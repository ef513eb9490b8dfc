
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
#line 36 "softmax_seed.h"
  bool const v8 = (v6 < v4);
#line 39 "softmax_seed.h"
  int const v12 = (v6 * v2);
  float* const v13 = (v1 + v12);
  float const v16 = __int_as_float(0xff800000);
  float* v14_1[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v14_1[r] = v13;
  int v9_2[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v9_2[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)));
  float* v15_0[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v15_0[r] = (v14_1[r] + v9_2[r]);
  int v10_5[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v10_5[r] = v5;
  bool v11_4[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v11_4[r] = (v9_2[r] < v10_5[r]);
  bool v18_6[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v18_6[r] = v8;
  bool v19_3[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v19_3[r] = (v11_4[r] & v18_6[r]);
  float v17_7[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v17_7[r] = v16;
  float v20[8];
  #pragma unroll
  for (int r = 0; r < 8; r += 1) {
    unsigned tj_w0 = (unsigned)(__float_as_uint(v17_7[r + 0]));
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v19_3[r]), "l"(v15_0[r]));
    v20[r + 0] = __uint_as_float(tj_w0);
  }
#line 36 "softmax_seed.h"
  int const v21 = (v4 - v7);
  float v24[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v24[r] = v20[r];
  // num_stages=2: the next iteration's loads in flight
  for (int v23 = v6; v23 < v4; v23 += v7) {
    int const v25 = (v23 + v7);
    bool const v26 = (v23 < v21);
#line 39 "softmax_seed.h"
    int const v27 = (v25 * v2);
    float* const v28 = (v1 + v27);
    float* v29_9[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v29_9[r] = v28;
    float* v30_8[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v30_8[r] = (v29_9[r] + v9_2[r]);
    bool v31_11[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v31_11[r] = v26;
    bool v32_10[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v32_10[r] = (v11_4[r] & v31_11[r]);
    float v33[8];
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      unsigned tj_w0 = (unsigned)(__float_as_uint(v17_7[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v32_10[r]), "l"(v30_8[r]));
      v33[r + 0] = __uint_as_float(tj_w0);
    }
#line 40 "softmax_seed.h"
    float v34_acc_12[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v34_acc_12[r] = v24[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], v34_acc_12[r | 1]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], v34_acc_12[r | 2]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], v34_acc_12[r | 4]);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], __shfl_xor_sync(0xffffffffu, v34_acc_12[r], 1));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], __shfl_xor_sync(0xffffffffu, v34_acc_12[r], 2));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], __shfl_xor_sync(0xffffffffu, v34_acc_12[r], 4));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], __shfl_xor_sync(0xffffffffu, v34_acc_12[r], 8));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v34_acc_12[r] = tj_max(v34_acc_12[r], __shfl_xor_sync(0xffffffffu, v34_acc_12[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v34_acc_12[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
        v34_acc_12[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 4; ++s) v34_acc_12[r] = tj_max(v34_acc_12[r], tj_red[s * 1 + 0]);
      }
    }
    float const v34 = v34_acc_12[0];
    float v35_13[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v35_13[r] = v34;
    float v36[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v36[r] = (v24[r] - v35_13[r]);
#line 41 "softmax_seed.h"
    float const v37 = 1.44269502f;
    float v38_14[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v38_14[r] = v37;
    float v39[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v39[r] = (v36[r] * v38_14[r]);
    float v40[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v40[r] = tj_ex2_ftz(v39[r]);
#line 42 "softmax_seed.h"
    float v41_acc_15[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v41_acc_15[r] = v40[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v41_acc_15[r] = v41_acc_15[r] + v41_acc_15[r | 1];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v41_acc_15[r] = v41_acc_15[r] + v41_acc_15[r | 2];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + v41_acc_15[r | 4];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + __shfl_xor_sync(0xffffffffu, v41_acc_15[r], 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + __shfl_xor_sync(0xffffffffu, v41_acc_15[r], 2);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + __shfl_xor_sync(0xffffffffu, v41_acc_15[r], 4);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + __shfl_xor_sync(0xffffffffu, v41_acc_15[r], 8);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v41_acc_15[r] = v41_acc_15[r] + __shfl_xor_sync(0xffffffffu, v41_acc_15[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v41_acc_15[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
        v41_acc_15[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 4; ++s) v41_acc_15[r] = v41_acc_15[r] + tj_red[s * 1 + 0];
      }
    }
    float const v41 = v41_acc_15[0];
#line 43 "softmax_seed.h"
    float v43[8];
    const float tj_rcp_16 = tj_rcp_approx(v41);
    if (fabsf(v41) <= 8.50705917e37f && fabsf(v41) >= 1.17549435e-38f) {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43[r] = v40[r] * tj_rcp_16;
    } else {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43[r] = tj_div_full(v40[r], v41);
    }
    int const v44 = (v23 * v3);
    float* const v45 = (v0 + v44);
    float* v46_18[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v46_18[r] = v45;
    float* v47_17[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v47_17[r] = (v46_18[r] + v9_2[r]);
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b32 [%1], %2; }" :: "r"((int)(v11_4[r])), "l"(v47_17[r]), "r"((unsigned)(__float_as_uint(v43[r + 0]))) : "memory");
    }
#line 36 "softmax_seed.h"
    float v24_next_19[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v24_next_19[r] = v33[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v24[r] = v24_next_19[r];
  }
}
