
// One of a group's barriers (tl::group_*), run by one thread per block: returns the barrier word
// before this block's arrival (see codegen/cuda/group.cpp for why the top bit flips once a round).
__device__ __forceinline__ unsigned tj_group_arrive(unsigned char* barrier, unsigned size, unsigned rank) {
  const unsigned add = rank == 0u ? 0x80000000u - (size - 1u) : 1u;
  unsigned before;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(before) : "l"(barrier), "r"(add) : "memory");
  return before;
}
// Waits until the top bit differs from `before`: the whole group has arrived.
__device__ __forceinline__ void tj_group_wait(unsigned char* barrier, unsigned before) {
  unsigned now;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(barrier) : "memory");
  } while (((now ^ before) & 0x80000000u) == 0u);
}
// A (max, sum) slot, written by one program and read by the others.
__device__ __forceinline__ void tj_group_put2(float* slot, float a, float b) {
  asm volatile("st.relaxed.gpu.global.v2.f32 [%0], {%1, %2};" ::"l"(slot), "f"(a), "f"(b) : "memory");
}
__device__ __forceinline__ float2 tj_group_get2(const float* slot) {
  float2 v;
  asm volatile("ld.relaxed.gpu.global.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(slot) : "memory");
  return v;
}

// kernel softmax_group_online_op: 8 warps
extern "C" __global__ void __launch_bounds__(256) softmax_group_online_op_<hash>(float* v0, float* v1, float* v2, int v3, int v4, int v5, int v6, int v7) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  __shared__ __align__(8) unsigned char tj_group_result[8];  // the exchange's result, for every warp
  __shared__ unsigned tj_group_seen[4];  // thread 0: each barrier's word before this block last arrived
  unsigned tj_group_turn = 0;  // exchanges started: the next one uses set tj_group_turn % 4
  const unsigned tj_group_rank = blockIdx.x % 32u;
  constexpr int tj_reduction_buffer_bytes = 32;
#line 386 "softmax_kernels.h"
  const int v8 = (int)blockIdx.x;
  int const v9 = 32;
  int const v10 = (v8 % v9);
#line 388 "softmax_kernels.h"
  const int v11 = (int)gridDim.x;
  int const v12 = (v11 / v9);
#line 88 "softmax_kernels.h"
  int const v17 = 4;
#line 393 "softmax_kernels.h"
  int const v23 = (v10 * v7);
#line 394 "softmax_kernels.h"
  int const v24 = (v23 + v7);
  int const v25 = tj_min(v24, v6);
#line 395 "softmax_kernels.h"
  int const v26 = (v8 / v9);
  for (int v27 = v26; v27 < v5; v27 += v12) {
#line 34 "softmax_kernels.h"
    int const v28 = (v27 * v3);
#line 396 "softmax_kernels.h"
    float* const v29 = (v1 + v28);
#line 34 "softmax_kernels.h"
    int const v30 = (v27 * v4);
#line 397 "softmax_kernels.h"
    float* const v31 = (v0 + v30);
#line 103 "softmax_kernels.h"
    float const v32 = __int_as_float(0xff800000);
#line 104 "softmax_kernels.h"
    float const v34 = 0.0f;
#line 121 "softmax_kernels.h"
    int const v36 = 1024;
#line 399 "softmax_kernels.h"
    float v33_0[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v33_0[r] = v32;
    float v40[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v40[r] = v33_0[r];
    float v35_1[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v35_1[r] = v34;
    float v41[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v41[r] = v35_1[r];
    for (int v39 = v23; v39 < v25; v39 += v36) {
#line 123 "softmax_kernels.h"
      float* v46_3[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v46_3[r] = v29;
      int v42_5[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v42_5[r] = v39;
      int v15_10[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v15_10[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128)));
      int v16_9[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v16_9[r] = v15_10[r];
      int v18_11[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v18_11[r] = v17;
      int v19_8[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v19_8[r] = (v16_9[r & ~3] * v18_11[r & ~3]);
      int v20_7[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v20_7[r] = v19_8[r];
      int v13_14[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v13_14[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + 0 + 0);
      int v14_13[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v14_13[r] = v13_14[r];
      int v21_12[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v21_12[r] = v14_13[r];
      int v22_6[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v22_6[r] = (v20_7[r] + v21_12[r]);
      int v43_4[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v43_4[r] = (v42_5[r] + v22_6[r]);
      float* v47_2[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v47_2[r] = (v46_3[r] + v43_4[r]);
      int v44_16[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v44_16[r] = v25;
      bool v45_15[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v45_15[r] = (v43_4[r] < v44_16[r]);
      float v48_17[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v48_17[r] = v32;
      float v49[4];
      #pragma unroll
      for (int r = 0; r < 4; r += 4) {
        unsigned tj_w0 = (unsigned)(__float_as_uint(v48_17[r + 0]));
        unsigned tj_w1 = (unsigned)(__float_as_uint(v48_17[r + 1]));
        unsigned tj_w2 = (unsigned)(__float_as_uint(v48_17[r + 2]));
        unsigned tj_w3 = (unsigned)(__float_as_uint(v48_17[r + 3]));
#if __CUDA_ARCH__ >= 800
        asm volatile("{ .reg .pred p; .reg .b64 tj_pol; createpolicy.fractional.L2::evict_last.b64 tj_pol, 1.0; setp.ne.b32 p, %4, 0; @p ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%5], tj_pol; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v45_15[r]), "l"(v47_2[r]));
#else
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v45_15[r]), "l"(v47_2[r]));
#endif
        v49[r + 0] = __uint_as_float(tj_w0);
        v49[r + 1] = __uint_as_float(tj_w1);
        v49[r + 2] = __uint_as_float(tj_w2);
        v49[r + 3] = __uint_as_float(tj_w3);
      }
#line 107 "softmax_kernels.h"
      float v50_acc_18[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v50_acc_18[r] = v49[r];
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 1) == 0) v50_acc_18[r] = tj_max(v50_acc_18[r], v50_acc_18[r | 1]);
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 3) == 0) v50_acc_18[r] = tj_max(v50_acc_18[r], v50_acc_18[r | 2]);
      float v50[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v50[r] = v50_acc_18[r & ~3];
      float v51[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v51[r] = tj_max(v40[r & ~3], v50[r & ~3]);
#line 110 "softmax_kernels.h"
      bool v52[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v52[r] = (v51[r & ~3] == v33_0[r & ~3]);
      float v53[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v53[r] = (v52[r & ~3] ? v35_1[r & ~3] : v51[r & ~3]);
#line 111 "softmax_kernels.h"
      float v54[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v54[r] = v53[r];
      float v55[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v55[r] = v54[r];
      float v56[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v56[r] = (v49[r] - v55[r]);
      float const v57 = 1.44269502f;
      float v58_19[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v58_19[r] = v57;
      float v59[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v59[r] = (v56[r] * v58_19[r]);
      float v60[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v60[r] = tj_ex2_ftz(v59[r]);
#line 112 "softmax_kernels.h"
      float v61_acc_20[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v61_acc_20[r] = v60[r];
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 1) == 0) v61_acc_20[r] = v61_acc_20[r] + v61_acc_20[r | 1];
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 3) == 0) v61_acc_20[r] = v61_acc_20[r] + v61_acc_20[r | 2];
      float v61[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v61[r] = v61_acc_20[r & ~3];
#line 113 "softmax_kernels.h"
      float v62[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v62[r] = (v40[r & ~3] - v53[r & ~3]);
      float v63_21[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v63_21[r] = v57;
      float v64[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v64[r] = (v62[r & ~3] * v63_21[r & ~3]);
      float v65[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v65[r] = tj_ex2_ftz(v64[r & ~3]);
#line 114 "softmax_kernels.h"
      float v66[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v66[r] = (v41[r & ~3] * v65[r & ~3]);
      float v67[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v67[r] = (v66[r & ~3] + v61[r & ~3]);
#line 399 "softmax_kernels.h"
      float v40_next_22[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v40_next_22[r] = v51[r];
      float v41_next_23[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v41_next_23[r] = v67[r];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v40[r] = v40_next_22[r];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v41[r] = v41_next_23[r];
    }
#line 128 "softmax_kernels.h"
    float v68_acc_24[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v68_acc_24[r] = v40[r];
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v68_acc_24[r] = tj_max(v68_acc_24[r], __shfl_xor_sync(0xffffffffu, v68_acc_24[r], 1));
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v68_acc_24[r] = tj_max(v68_acc_24[r], __shfl_xor_sync(0xffffffffu, v68_acc_24[r], 2));
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v68_acc_24[r] = tj_max(v68_acc_24[r], __shfl_xor_sync(0xffffffffu, v68_acc_24[r], 4));
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v68_acc_24[r] = tj_max(v68_acc_24[r], __shfl_xor_sync(0xffffffffu, v68_acc_24[r], 8));
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v68_acc_24[r] = tj_max(v68_acc_24[r], __shfl_xor_sync(0xffffffffu, v68_acc_24[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v68_acc_24[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 0) == 0) {
        v68_acc_24[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v68_acc_24[r] = tj_max(v68_acc_24[r], tj_red[s * 1 + 0]);
      }
    }
    float const v68 = v68_acc_24[0];
#line 129 "softmax_kernels.h"
    bool const v69 = (v68 == v32);
    float const v70 = (v69 ? v34 : v68);
#line 131 "softmax_kernels.h"
    float v71_25[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v71_25[r] = v70;
    float v72[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v72[r] = (v40[r & ~3] - v71_25[r & ~3]);
    float const v73 = 1.44269502f;
    float v74_26[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v74_26[r] = v73;
    float v75[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v75[r] = (v72[r & ~3] * v74_26[r & ~3]);
    float v76[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v76[r] = tj_ex2_ftz(v75[r & ~3]);
    float v77[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v77[r] = (v41[r & ~3] * v76[r & ~3]);
    float v78_acc_27[4];
    #pragma unroll
    for (int r = 0; r < 4; ++r) v78_acc_27[r] = v77[r];
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v78_acc_27[r] = v78_acc_27[r] + __shfl_xor_sync(0xffffffffu, v78_acc_27[r], 1);
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v78_acc_27[r] = v78_acc_27[r] + __shfl_xor_sync(0xffffffffu, v78_acc_27[r], 2);
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v78_acc_27[r] = v78_acc_27[r] + __shfl_xor_sync(0xffffffffu, v78_acc_27[r], 4);
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v78_acc_27[r] = v78_acc_27[r] + __shfl_xor_sync(0xffffffffu, v78_acc_27[r], 8);
    #pragma unroll
    for (int r = 0; r < 4; ++r) if ((r & 0) == 0) v78_acc_27[r] = v78_acc_27[r] + __shfl_xor_sync(0xffffffffu, v78_acc_27[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v78_acc_27[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 4; ++r) if ((r & 0) == 0) {
        v78_acc_27[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v78_acc_27[r] = v78_acc_27[r] + tj_red[s * 1 + 0];
      }
    }
    float const v78 = v78_acc_27[0];
#line 283 "softmax_kernels.h"
    float v79_acc_28, v80_acc_29;
    // group_softmax_stats over 32 programs, through the workspace
     {
      unsigned char* tj_group = (unsigned char*)(v2) + (unsigned long long)(blockIdx.x / 32u) * 1536ull;
      unsigned char* tj_barrier = tj_group + (tj_group_turn & 3u) * 128;
      float* tj_slots = reinterpret_cast<float*>(tj_group + 512 + (tj_group_turn & 3u) * 256);
      __syncthreads();  // this block is done with the last result
      if (threadIdx.x == 0) {
        tj_group_put2(tj_slots + 2 * tj_group_rank, v68, v78);
        tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, 32u, tj_group_rank));
      }
      tj_group_turn += 1;
      if (threadIdx.x < 32) {
        __syncwarp();  // lane 0 is through the barrier: the slots are all written
         {
          float2 tj_v[1];
          #pragma unroll
          for (int tj_k = 0; tj_k < 1; ++tj_k) {
            const int tj_r = threadIdx.x + 32 * (0 + tj_k);
            tj_v[tj_k] = tj_r < 32 ? tj_group_get2(tj_slots + 2 * tj_r) : make_float2(__int_as_float(0xff800000), 0.0f);
          }
          float tj_max_part = __int_as_float(0xff800000), tj_sum_part = 0;
          #pragma unroll
          for (int tj_k = 0; tj_k < 1; ++tj_k) tj_max_part = tj_max(tj_max_part, tj_v[tj_k].x);
          #pragma unroll
          for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_max_part = tj_max(tj_max_part, __shfl_xor_sync(0xffffffffu, tj_max_part, tj_d));
          #pragma unroll
          for (int tj_k = 0; tj_k < 1; ++tj_k)
            if (threadIdx.x + 32 * (0 + tj_k) < 32) tj_sum_part += tj_v[tj_k].y * expf(tj_v[tj_k].x - tj_max_part);
          #pragma unroll
          for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_sum_part += __shfl_xor_sync(0xffffffffu, tj_sum_part, tj_d);
          if (threadIdx.x == 0) reinterpret_cast<float2*>(tj_group_result)[0] = make_float2(tj_max_part, tj_sum_part);
        }
      }
      __syncthreads();
      v79_acc_28 = reinterpret_cast<const float2*>(tj_group_result)[0].x;
      v80_acc_29 = reinterpret_cast<const float2*>(tj_group_result)[0].y;
    }
    float const v79 = v79_acc_28;
    float const v80 = v80_acc_29;
#line 402 "softmax_kernels.h"
    for (int v82 = v23; v82 < v25; v82 += v36) {
#line 190 "softmax_kernels.h"
      float* v87_31[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v87_31[r] = v29;
      int v83_33[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v83_33[r] = v82;
      int v81_34[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v81_34[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2)) + ((((tj_lane >> 0) & 1) * 4) + (((tj_lane >> 1) & 1) * 8) + (((tj_lane >> 2) & 1) * 16) + (((tj_lane >> 3) & 1) * 32) + (((tj_lane >> 4) & 1) * 64)) + ((((tj_warp >> 0) & 1) * 128) + (((tj_warp >> 1) & 1) * 256) + (((tj_warp >> 2) & 1) * 512)));
      int v84_32[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v84_32[r] = (v83_33[r] + v81_34[r]);
      float* v88_30[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v88_30[r] = (v87_31[r] + v84_32[r]);
      int v85_36[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v85_36[r] = v25;
      bool v86_35[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v86_35[r] = (v84_32[r] < v85_36[r]);
      float v89_37[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v89_37[r] = v32;
      float v90[4];
      #pragma unroll
      for (int r = 0; r < 4; r += 4) {
        unsigned tj_w0 = (unsigned)(__float_as_uint(v89_37[r + 0]));
        unsigned tj_w1 = (unsigned)(__float_as_uint(v89_37[r + 1]));
        unsigned tj_w2 = (unsigned)(__float_as_uint(v89_37[r + 2]));
        unsigned tj_w3 = (unsigned)(__float_as_uint(v89_37[r + 3]));
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.cs.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v86_35[r]), "l"(v88_30[r]));
        v90[r + 0] = __uint_as_float(tj_w0);
        v90[r + 1] = __uint_as_float(tj_w1);
        v90[r + 2] = __uint_as_float(tj_w2);
        v90[r + 3] = __uint_as_float(tj_w3);
      }
#line 41 "softmax_kernels.h"
      float v91_38[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v91_38[r] = v79;
      float v92[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v92[r] = (v90[r] - v91_38[r]);
      float v93_39[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v93_39[r] = v73;
      float v94[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v94[r] = (v92[r] * v93_39[r]);
      float v95[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v95[r] = tj_ex2_ftz(v94[r]);
      float v97[4];
      const float tj_rcp_40 = tj_rcp_approx(v80);
      if (fabsf(v80) <= 8.50705917e37f && fabsf(v80) >= 1.17549435e-38f) {
        #pragma unroll
        for (int r = 0; r < 4; ++r) v97[r] = v95[r] * tj_rcp_40;
      } else {
        #pragma unroll
        for (int r = 0; r < 4; ++r) v97[r] = tj_div_full(v95[r], v80);
      }
#line 191 "softmax_kernels.h"
      float* v98_42[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v98_42[r] = v31;
      float* v99_41[4];
      #pragma unroll
      for (int r = 0; r < 4; ++r) v99_41[r] = (v98_42[r] + v84_32[r]);
      #pragma unroll
      for (int r = 0; r < 4; r += 4) {
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.cs.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v86_35[r])), "l"(v99_41[r]), "r"((unsigned)(__float_as_uint(v97[r + 0]))), "r"((unsigned)(__float_as_uint(v97[r + 1]))), "r"((unsigned)(__float_as_uint(v97[r + 2]))), "r"((unsigned)(__float_as_uint(v97[r + 3]))) : "memory");
      }
#line 402 "softmax_kernels.h"
    }
#line 395 "softmax_kernels.h"
  }
}
