
// kernel softmax_held: 4 warps
extern "C" __global__ void __launch_bounds__(128) softmax_held_<hash>(float* v0, float* v1, int v2, int v3, int v4) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_reduction_buffer_bytes = 16;
  constexpr int tj_stash_offset = 32;  // after the scratch
#line 56 "softmax_seed.h"
  const int v5 = (int)blockIdx.x;
#line 60 "softmax_seed.h"
  int const v9 = (v5 * v2);
  float* const v10 = (v1 + v9);
  int const v13 = 0;
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
  if ((unsigned)v13 < 1u) {
    float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v13 * 1024);
#if __CUDA_ARCH__ >= 800
    #pragma unroll
    for (int r = 0; r < 8; r += 1) {
      asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"((unsigned)__cvta_generic_to_shared(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))))), "l"(v12_0[r]), "r"(v8_3[r] ? 4 : 0) : "memory");
    }
#else
    #pragma unroll
    for (int r = 0; r < 8; ++r) tj_stash[(((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)))] = v8_3[r] ? *v12_0[r] : (float)0;
#endif
  }
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#if __CUDA_ARCH__ >= 800
#line 61 "softmax_seed.h"
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
#line 63 "softmax_seed.h"
  float v14[8];
  if ((unsigned)v13 < 1u) {
    const float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v13 * 1024);
    #pragma unroll
    for (int r = 0; r < 8; r += 4) {
      const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 512)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))));
      v14[r + 0] = __uint_as_float(tj_v.x);
      v14[r + 1] = __uint_as_float(tj_v.y);
      v14[r + 2] = __uint_as_float(tj_v.z);
      v14[r + 3] = __uint_as_float(tj_v.w);
    }
  } else {
    #pragma unroll
    for (int r = 0; r < 8; ++r) v14[r] = (float)0;
  }
  float const v15 = __int_as_float(0xff800000);
  float v16_5[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v16_5[r] = v15;
  float v17[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v17[r] = (v8_3[r] ? v14[r] : v16_5[r]);
#line 64 "softmax_seed.h"
  float v18_acc_6[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v18_acc_6[r] = v17[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], v18_acc_6[r | 1]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], v18_acc_6[r | 2]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], v18_acc_6[r | 4]);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], __shfl_xor_sync(0xffffffffu, v18_acc_6[r], 1));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], __shfl_xor_sync(0xffffffffu, v18_acc_6[r], 2));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], __shfl_xor_sync(0xffffffffu, v18_acc_6[r], 4));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], __shfl_xor_sync(0xffffffffu, v18_acc_6[r], 8));
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v18_acc_6[r] = tj_max(v18_acc_6[r], __shfl_xor_sync(0xffffffffu, v18_acc_6[r], 16));
   {
    float* tj_red = reinterpret_cast<float*>(tj_smem);
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v18_acc_6[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v18_acc_6[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v18_acc_6[r] = tj_max(v18_acc_6[r], tj_red[s * 1 + 0]);
    }
  }
  float const v18 = v18_acc_6[0];
  float v19_7[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v19_7[r] = v18;
  float v20[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v20[r] = (v17[r] - v19_7[r]);
#line 65 "softmax_seed.h"
  float const v21 = 1.44269502f;
  float v22_8[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v22_8[r] = v21;
  float v23[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v23[r] = (v20[r] * v22_8[r]);
  float v24[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v24[r] = tj_ex2_ftz(v23[r]);
#line 66 "softmax_seed.h"
  float v25_acc_9[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v25_acc_9[r] = v24[r];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v25_acc_9[r] = v25_acc_9[r] + v25_acc_9[r | 1];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v25_acc_9[r] = v25_acc_9[r] + v25_acc_9[r | 2];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + v25_acc_9[r | 4];
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + __shfl_xor_sync(0xffffffffu, v25_acc_9[r], 1);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + __shfl_xor_sync(0xffffffffu, v25_acc_9[r], 2);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + __shfl_xor_sync(0xffffffffu, v25_acc_9[r], 4);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + __shfl_xor_sync(0xffffffffu, v25_acc_9[r], 8);
  #pragma unroll
  for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v25_acc_9[r] = v25_acc_9[r] + __shfl_xor_sync(0xffffffffu, v25_acc_9[r], 16);
   {
    float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
    const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) tj_red[tj_slot * 1 + 0] = v25_acc_9[r];
    __syncthreads();
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 7) == 0) {
      v25_acc_9[r] = tj_red[0];
      #pragma unroll
      for (int s = 1; s < 4; ++s) v25_acc_9[r] = v25_acc_9[r] + tj_red[s * 1 + 0];
    }
  }
  float const v25 = v25_acc_9[0];
#line 67 "softmax_seed.h"
  float v27[8];
  const float tj_rcp_10 = tj_rcp_approx(v25);
  if (fabsf(v25) <= 8.50705917e37f && fabsf(v25) >= 1.17549435e-38f) {
    #pragma unroll
    for (int r = 0; r < 8; ++r) v27[r] = v24[r] * tj_rcp_10;
  } else {
    #pragma unroll
    for (int r = 0; r < 8; ++r) v27[r] = tj_div_full(v24[r], v25);
  }
  int const v28 = (v5 * v3);
  float* const v29 = (v0 + v28);
  float* v30_12[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v30_12[r] = v29;
  float* v31_11[8];
  #pragma unroll
  for (int r = 0; r < 8; ++r) v31_11[r] = (v30_12[r] + v6_2[r]);
  #pragma unroll
  for (int r = 0; r < 8; r += 1) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.b32 [%1], %2; }" :: "r"((int)(v8_3[r])), "l"(v31_11[r]), "r"((unsigned)(__float_as_uint(v27[r + 0]))) : "memory");
  }
}
