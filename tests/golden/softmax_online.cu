
// kernel softmax_online: 4 warps
extern "C" __global__ void __launch_bounds__(128) softmax_online_<hash>(unsigned short* v0, unsigned short* v1, int v2, int v3, int v4) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_reduction_buffer_bytes = 16;
#line 14 "softmax_online.h"
  const int v5 = (int)blockIdx.x;
#line 15 "softmax_online.h"
  int const v6 = (v5 * v2);
  unsigned short* const v7 = (v1 + v6);
#line 16 "softmax_online.h"
  int const v8 = (v5 * v3);
  unsigned short* const v9 = (v0 + v8);
#line 18 "softmax_online.h"
  float const v11 = __int_as_float(0xff800000);
#line 19 "softmax_online.h"
  float const v13 = 0.0f;
#line 20 "softmax_online.h"
  int const v15 = 0;
  int const v16 = 1024;
  float v12_0[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v12_0[r] = v11;
  float v20[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v20[r] = v12_0[r];
  float v14_1[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v14_1[r] = v13;
  float v21[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v21[r] = v14_1[r];
  for (int v19 = v15; v19 < v4; v19 += v16) {
#line 22 "softmax_online.h"
    unsigned short const v28 = tj_f32_to_f16(__int_as_float(0xff800000));
    unsigned short* v26_3[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v26_3[r] = v7;
    int v22_5[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v22_5[r] = v19;
    int v10_6[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v10_6[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + ((((tj_lane >> 0) & 1) * 8) + (((tj_lane >> 1) & 1) * 16) + (((tj_lane >> 2) & 1) * 32) + (((tj_lane >> 3) & 1) * 64) + (((tj_lane >> 4) & 1) * 128)) + ((((tj_warp >> 0) & 1) * 256) + (((tj_warp >> 1) & 1) * 512)));
    int v23_4[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v23_4[r] = (v22_5[r] + v10_6[r]);
    unsigned short* v27_2[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v27_2[r] = (v26_3[r] + v23_4[r]);
    int v24_8[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v24_8[r] = v4;
    bool v25_7[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v25_7[r] = (v23_4[r] < v24_8[r]);
    unsigned short v29_9[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v29_9[r] = v28;
    unsigned short v30[8];
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      unsigned short tj_w0 = (unsigned short)((unsigned)(v29_9[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b16 %0, [%2]; }" : "+h"(tj_w0) : "r"((int)v25_7[r]), "l"(v27_2[r]));
      v30[r + 0] = (unsigned short)(tj_w0);
    }
    float v31[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v31[r] = (float)(tj_f16_to_f32(v30[r]));
#line 23 "softmax_online.h"
    float v32[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v32[r] = tj_max(v20[r], v31[r]);
#line 25 "softmax_online.h"
    float v33[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v33[r] = (v20[r] - v32[r]);
    float v34[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v34[r] = expf(v33[r]);
    bool v35[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v35[r] = (v32[r] == v12_0[r]);
    float v36[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v36[r] = (v35[r] ? v14_1[r] : v34[r]);
#line 26 "softmax_online.h"
    float v37[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v37[r] = (v31[r] - v32[r]);
    float v38[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v38[r] = expf(v37[r]);
    float v39[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v39[r] = (v35[r] ? v14_1[r] : v38[r]);
#line 27 "softmax_online.h"
    float v40[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v40[r] = (v21[r] * v36[r]);
    float v41[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v41[r] = (v40[r] + v39[r]);
#line 20 "softmax_online.h"
    float v20_next_10[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v20_next_10[r] = v32[r];
    float v21_next_11[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v21_next_11[r] = v41[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v20[r] = v20_next_10[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v21[r] = v21_next_11[r];
  }
#line 30 "softmax_online.h"
  float v42_acc_12[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v42_acc_12[r] = v20[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], v42_acc_12[r | 1]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], v42_acc_12[r | 2]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], v42_acc_12[r | 4]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], __shfl_xor_sync(0xffffffffu, v42_acc_12[r], 1));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], __shfl_xor_sync(0xffffffffu, v42_acc_12[r], 2));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], __shfl_xor_sync(0xffffffffu, v42_acc_12[r], 4));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], __shfl_xor_sync(0xffffffffu, v42_acc_12[r], 8));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v42_acc_12[r] = tj_max(v42_acc_12[r], __shfl_xor_sync(0xffffffffu, v42_acc_12[r], 16));
   {
    float* tj_red = reinterpret_cast<float*>(tj_smem);
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v42_acc_12[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v42_acc_12[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v42_acc_12[r] = tj_max(v42_acc_12[r], tj_red[s * 1 + 0]);
    }
  }
  float const v42 = v42_acc_12[0];
#line 31 "softmax_online.h"
  float v43_13[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v43_13[r] = v42;
  float v44[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v44[r] = (v20[r] - v43_13[r]);
  float v45[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v45[r] = expf(v44[r]);
  float v46[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v46[r] = (v21[r] * v45[r]);
  float v47_acc_14[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v47_acc_14[r] = v46[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v47_acc_14[r] = v47_acc_14[r] + v47_acc_14[r | 1];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v47_acc_14[r] = v47_acc_14[r] + v47_acc_14[r | 2];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + v47_acc_14[r | 4];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + __shfl_xor_sync(0xffffffffu, v47_acc_14[r], 1);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + __shfl_xor_sync(0xffffffffu, v47_acc_14[r], 2);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + __shfl_xor_sync(0xffffffffu, v47_acc_14[r], 4);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + __shfl_xor_sync(0xffffffffu, v47_acc_14[r], 8);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v47_acc_14[r] = v47_acc_14[r] + __shfl_xor_sync(0xffffffffu, v47_acc_14[r], 16);
   {
    float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v47_acc_14[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v47_acc_14[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v47_acc_14[r] = v47_acc_14[r] + tj_red[s * 1 + 0];
    }
  }
  float const v47 = v47_acc_14[0];
#line 32 "softmax_online.h"
  for (int v48 = v15; v48 < v4; v48 += v16) {
#line 35 "softmax_online.h"
    unsigned short const v55 = tj_f32_to_f16(__int_as_float(0xff800000));
    unsigned short* v53_16[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v53_16[r] = v7;
    int v49_18[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v49_18[r] = v48;
    int v10_19[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v10_19[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + ((((tj_lane >> 0) & 1) * 8) + (((tj_lane >> 1) & 1) * 16) + (((tj_lane >> 2) & 1) * 32) + (((tj_lane >> 3) & 1) * 64) + (((tj_lane >> 4) & 1) * 128)) + ((((tj_warp >> 0) & 1) * 256) + (((tj_warp >> 1) & 1) * 512)));
    int v50_17[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v50_17[r] = (v49_18[r] + v10_19[r]);
    unsigned short* v54_15[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v54_15[r] = (v53_16[r] + v50_17[r]);
    int v51_21[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v51_21[r] = v4;
    bool v52_20[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v52_20[r] = (v50_17[r] < v51_21[r]);
    unsigned short v56_22[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v56_22[r] = v55;
    unsigned short v57[8];
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      unsigned short tj_w0 = (unsigned short)((unsigned)(v56_22[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b16 %0, [%2]; }" : "+h"(tj_w0) : "r"((int)v52_20[r]), "l"(v54_15[r]));
      v57[r + 0] = (unsigned short)(tj_w0);
    }
    float v58[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v58[r] = (float)(tj_f16_to_f32(v57[r]));
#line 36 "softmax_online.h"
    float v59[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v59[r] = (v58[r] - v43_13[r]);
    float v60[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v60[r] = expf(v59[r]);
    float v62[8];
    const float tj_rcp_23 = tj_rcp_approx(v47);
    if (fabsf(v47) <= 8.50705917e37f && fabsf(v47) >= 1.17549435e-38f) {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v62[r] = v60[r] * tj_rcp_23;
    } else {
      #pragma unroll
      for (int r = 0; r < 8; ++r) v62[r] = tj_div_full(v60[r], v47);
    }
    unsigned short v65[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v65[r] = tj_f32_to_f16((float)(v62[r]));
    unsigned short* v63_25[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v63_25[r] = v9;
    unsigned short* v64_24[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v64_24[r] = (v63_25[r] + v50_17[r]);
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b16 [%1], %2; }" :: "r"((int)(v52_20[r])), "l"(v64_24[r]), "h"((unsigned short)((unsigned)(v65[r + 0]))) : "memory");
    }
#line 32 "softmax_online.h"
  }
}
