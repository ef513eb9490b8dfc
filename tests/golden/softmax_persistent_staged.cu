
// kernel softmax_persistent: 1 warps
extern "C" __global__ void __launch_bounds__(32) softmax_persistent_<hash>(float* v0, float* v1, int v2, int v3, int v4, int v5) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_stash_offset = 0;  // after the scratch
#line 34 "softmax_seed.h"
  const int v6 = (int)blockIdx.x;
#line 35 "softmax_seed.h"
  const int v7 = (int)gridDim.x;
#line 36 "softmax_seed.h"
  int const v8 = 0;
  bool const v9 = (v6 < v4);
#line 39 "softmax_seed.h"
  int const v13 = (v6 * v2);
  float* const v14 = (v1 + v13);
#line 36 "softmax_seed.h"
  int const v17 = (v4 - v7);
#line 39 "softmax_seed.h"
  float* v15_1[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v15_1[r] = v14;
  int v10_2[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v10_2[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0);
  float* v16_0[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v16_0[r] = (v15_1[r] + v10_2[r]);
  int v11_5[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v11_5[r] = v5;
  bool v12_4[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v12_4[r] = (v10_2[r] < v11_5[r]);
  bool v18_6[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v18_6[r] = v9;
  bool v19_3[64];
  #pragma unroll
  for (int r = 0; r < 64; ++r) v19_3[r] = (v12_4[r] & v18_6[r]);
  if ((unsigned)v8 < 1u) {
    float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v8 * 2048);
#if __CUDA_ARCH__ >= 800
    #pragma unroll
    for (int r = 0; r < 64; r += 4) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0))), "l"(v16_0[r]), "r"(v19_3[r] ? 16 : 0) : "memory");
    }
#else
    #pragma unroll
    for (int r = 0; r < 64; ++r) tj_stash[(((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0)] = v19_3[r] ? *v16_0[r] : (float)0;
#endif
  }
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#line 36 "softmax_seed.h"
  // num_stages=2: the next iteration's loads in flight
  for (int v20 = v6; v20 < v4; v20 += v7) {
#line 39 "softmax_seed.h"
    float const v21 = __int_as_float(0xff800000);
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
    float v23[64];
    if ((unsigned)v8 < 1u) {
      const float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v8 * 2048);
      #pragma unroll
      for (int r = 0; r < 64; r += 4) {
        const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0));
        v23[r + 0] = __uint_as_float(tj_v.x);
        v23[r + 1] = __uint_as_float(tj_v.y);
        v23[r + 2] = __uint_as_float(tj_v.z);
        v23[r + 3] = __uint_as_float(tj_v.w);
      }
    } else {
      #pragma unroll
      for (int r = 0; r < 64; ++r) v23[r] = (float)0;
    }
    float v22_7[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v22_7[r] = v21;
    float v24[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v24[r] = (v12_4[r] ? v23[r] : v22_7[r]);
    int const v25 = (v20 + v7);
    bool const v26 = (v20 < v17);
    int const v27 = (v25 * v2);
    float* const v28 = (v1 + v27);
    float* v29_9[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v29_9[r] = v28;
    float* v30_8[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v30_8[r] = (v29_9[r] + v10_2[r]);
    bool v31_11[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v31_11[r] = v26;
    bool v32_10[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v32_10[r] = (v12_4[r] & v31_11[r]);
    if ((unsigned)v8 < 1u) {
      float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v8 * 2048);
#if __CUDA_ARCH__ >= 800
      #pragma unroll
      for (int r = 0; r < 64; r += 4) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0))), "l"(v30_8[r]), "r"(v32_10[r] ? 16 : 0) : "memory");
      }
#else
      #pragma unroll
      for (int r = 0; r < 64; ++r) tj_stash[(((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 128) + (((r >> 3) & 1) * 256) + (((r >> 4) & 1) * 512) + (((r >> 5) & 1) * 1024)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + 0)] = v32_10[r] ? *v30_8[r] : (float)0;
#endif
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#line 40 "softmax_seed.h"
    float v33_acc_12[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v33_acc_12[r] = v24[r];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 1) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 1]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 3) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 2]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 7) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 4]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 15) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 8]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 31) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 16]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], v33_acc_12[r | 32]);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 1));
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 2));
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 4));
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 8));
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v33_acc_12[r] = tj_max(v33_acc_12[r], __shfl_xor_sync(0xffffffffu, v33_acc_12[r], 16));
    float const v33 = v33_acc_12[0];
    float v34_13[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v34_13[r] = v33;
    float v35[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v35[r] = (v24[r] - v34_13[r]);
#line 41 "softmax_seed.h"
    float const v36 = 1.44269502f;
    float v37_14[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v37_14[r] = v36;
    float v38[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v38[r] = (v35[r] * v37_14[r]);
    float v39[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v39[r] = tj_ex2_ftz(v38[r]);
#line 42 "softmax_seed.h"
    float v40_acc_15[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v40_acc_15[r] = v39[r];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 1) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 1];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 3) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 2];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 7) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 4];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 15) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 8];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 31) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 16];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + v40_acc_15[r | 32];
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 1);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 2);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 4);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 8);
    #pragma unroll
    for (int r = 0; r < 64; ++r) if ((r & 63) == 0) v40_acc_15[r] = v40_acc_15[r] + __shfl_xor_sync(0xffffffffu, v40_acc_15[r], 16);
    float const v40 = v40_acc_15[0];
#line 43 "softmax_seed.h"
    float v42[64];
    const float tj_rcp_16 = tj_rcp_approx(v40);
    if (fabsf(v40) <= 8.50705917e37f && fabsf(v40) >= 1.17549435e-38f) {
      #pragma unroll
      for (int r = 0; r < 64; ++r) v42[r] = v39[r] * tj_rcp_16;
    } else {
      #pragma unroll
      for (int r = 0; r < 64; ++r) v42[r] = tj_div_full(v39[r], v40);
    }
    int const v43 = (v20 * v3);
    float* const v44 = (v0 + v43);
    float* v45_18[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v45_18[r] = v44;
    float* v46_17[64];
    #pragma unroll
    for (int r = 0; r < 64; ++r) v46_17[r] = (v45_18[r] + v10_2[r]);
    #pragma unroll
    for (int r = 0; r < 64; r += 4) {
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v12_4[r])), "l"(v46_17[r]), "r"((unsigned)(__float_as_uint(v42[r + 0]))), "r"((unsigned)(__float_as_uint(v42[r + 1]))), "r"((unsigned)(__float_as_uint(v42[r + 2]))), "r"((unsigned)(__float_as_uint(v42[r + 3]))) : "memory");
    }
#line 36 "softmax_seed.h"
  }
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}
