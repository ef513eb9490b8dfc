
// kernel stash_copy_round_trip: 4 warps
extern "C" __global__ void __launch_bounds__(128) stash_copy_round_trip_<hash>(float* v0, float* v1, float* v2, int v3) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  constexpr int tj_stash_offset = 0;  // after the scratch
#line 51 "stash_round_trip_kernel.h"
  const int v5 = (int)blockIdx.x;
  int const v6 = 2048;
  int const v7 = (v5 * v6);
#line 52 "stash_round_trip_kernel.h"
  float* const v12 = (v2 + v7);
  int const v15 = 0;
  float* v13_1[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v13_1[r] = v12;
  int v4_2[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v4_2[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)));
  float* v14_0[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v14_0[r] = (v13_1[r] + v4_2[r]);
  int v8_5[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v8_5[r] = v7;
  int v9_4[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v9_4[r] = (v8_5[r] + v4_2[r]);
  int v10_6[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v10_6[r] = v3;
  bool v11_3[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v11_3[r] = (v9_4[r] < v10_6[r]);
  if ((unsigned)v15 < 4u) {
    float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v15 * 512);
#if __CUDA_ARCH__ >= 800
    #pragma unroll
    for (int r = 0; r < 4; r += 4) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))))), "l"(v14_0[r]), "r"(v11_3[r] ? 16 : 0) : "memory");
    }
#else
    #pragma unroll
    for (int r = 0; r < 4; ++r) tj_stash[(((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)))] = v11_3[r] ? *v14_0[r] : (float)0;
#endif
  }
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#line 53 "stash_round_trip_kernel.h"
  int const v16 = 4;
  int const v17 = 1;
  for (int v18 = v15; v18 < v16; v18 += v17) {
#line 54 "stash_round_trip_kernel.h"
    int const v19 = (v18 + v17);
    int const v20 = 512;
    int const v21 = (v19 * v20);
    int const v22 = (v7 + v21);
#line 55 "stash_round_trip_kernel.h"
    float* v26_8[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v26_8[r] = v2;
    int v23_10[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v23_10[r] = v22;
    int v24_9[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v24_9[r] = (v23_10[r] + v4_2[r]);
    float* v27_7[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v27_7[r] = (v26_8[r] + v24_9[r]);
    bool v25_11[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v25_11[r] = (v24_9[r] < v10_6[r]);
    if ((unsigned)v19 < 4u) {
      float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v19 * 512);
#if __CUDA_ARCH__ >= 800
      #pragma unroll
      for (int r = 0; r < 4; r += 4) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"((unsigned)__cvta_generic_to_shared(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))))), "l"(v27_7[r]), "r"(v25_11[r] ? 16 : 0) : "memory");
      }
#else
      #pragma unroll
      for (int r = 0; r < 4; ++r) tj_stash[(((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256)))] = v25_11[r] ? *v27_7[r] : (float)0;
#endif
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
#if __CUDA_ARCH__ >= 800
#line 56 "stash_round_trip_kernel.h"
    asm volatile("cp.async.wait_group 1;" ::: "memory");
#endif
#line 57 "stash_round_trip_kernel.h"
    int const v28 = (v18 * v20);
    int const v29 = (v7 + v28);
#line 58 "stash_round_trip_kernel.h"
    float v33[4];
    if ((unsigned)v18 < 4u) {
      const float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v18 * 512);
      #pragma unroll
      for (int r = 0; r < 4; r += 4) {
        const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))));
        v33[r + 0] = __uint_as_float(tj_v.x);
        v33[r + 1] = __uint_as_float(tj_v.y);
        v33[r + 2] = __uint_as_float(tj_v.z);
        v33[r + 3] = __uint_as_float(tj_v.w);
      }
    } else {
      #pragma unroll
      for (int r = 0; r < 4; ++r) v33[r] = (float)0;
    }
    float* v34_13[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v34_13[r] = v0;
    int v30_15[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v30_15[r] = v29;
    int v31_14[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v31_14[r] = (v30_15[r] + v4_2[r]);
    float* v35_12[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v35_12[r] = (v34_13[r] + v31_14[r]);
    bool v32_16[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v32_16[r] = (v31_14[r] < v10_6[r]);
    #pragma unroll
    for (int r = 0; r < 4; r += 4) {
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v32_16[r])), "l"(v35_12[r]), "r"((unsigned)(__float_as_uint(v33[r + 0]))), "r"((unsigned)(__float_as_uint(v33[r + 1]))), "r"((unsigned)(__float_as_uint(v33[r + 2]))), "r"((unsigned)(__float_as_uint(v33[r + 3]))) : "memory");
    }
#line 53 "stash_round_trip_kernel.h"
  }
#if __CUDA_ARCH__ >= 800
#line 60 "stash_round_trip_kernel.h"
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
#line 61 "stash_round_trip_kernel.h"
  float v36[4];
  if ((unsigned)v16 < 4u) {
    const float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v16 * 512);
    #pragma unroll
    for (int r = 0; r < 4; r += 4) {
      const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))));
      v36[r + 0] = __uint_as_float(tj_v.x);
      v36[r + 1] = __uint_as_float(tj_v.y);
      v36[r + 2] = __uint_as_float(tj_v.z);
      v36[r + 3] = __uint_as_float(tj_v.w);
    }
  } else {
    #pragma unroll
    for (int r = 0; r < 4; ++r) v36[r] = (float)0;
  }
  int const v37 = -1;
  float v38[4];
  if ((unsigned)v37 < 4u) {
    const float* tj_stash = (reinterpret_cast<float*>(tj_smem + tj_stash_offset + 0) + v37 * 512);
    #pragma unroll
    for (int r = 0; r < 4; r += 4) {
      const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256))));
      v38[r + 0] = __uint_as_float(tj_v.x);
      v38[r + 1] = __uint_as_float(tj_v.y);
      v38[r + 2] = __uint_as_float(tj_v.z);
      v38[r + 3] = __uint_as_float(tj_v.w);
    }
  } else {
    #pragma unroll
    for (int r = 0; r < 4; ++r) v38[r] = (float)0;
  }
  float v39[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v39[r] = (v38[r] + v36[r]);
  int const v40 = 512;
  int const v41 = (v5 * v40);
  float* const v42 = (v1 + v41);
  float* v43_18[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v43_18[r] = v42;
  float* v44_17[4];
  #pragma unroll
  for (int r = 0; r < 4; ++r) v44_17[r] = (v43_18[r] + v4_2[r]);
  #pragma unroll
  for (int r = 0; r < 4; r += 4) {
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)1), "l"(v44_17[r]), "r"((unsigned)(__float_as_uint(v39[r + 0]))), "r"((unsigned)(__float_as_uint(v39[r + 1]))), "r"((unsigned)(__float_as_uint(v39[r + 2]))), "r"((unsigned)(__float_as_uint(v39[r + 3]))) : "memory");
  }
}
