
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
extern "C" __global__ void __launch_bounds__(256) softmax_group_online_op_<hash>(unsigned short* v0, unsigned short* v1, float* v2, int v3, int v4, int v5, int v6, int v7) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  __shared__ __align__(8) unsigned char tj_group_result[8];  // the exchange's result, for every warp
  __shared__ unsigned tj_group_seen[4];  // thread 0: each barrier's word before this block last arrived
  unsigned tj_group_turn = 0;  // exchanges started: the next one uses set tj_group_turn % 4
  const unsigned tj_group_rank = blockIdx.x % 32u;
  constexpr int tj_reduction_buffer_bytes = 32;
  constexpr int tj_stash_offset = 64;  // after the scratch
#line 385 "softmax_kernels.h"
  const int v8 = (int)blockIdx.x;
  int const v9 = 32;
  int const v10 = (v8 % v9);
#line 387 "softmax_kernels.h"
  const int v11 = (int)gridDim.x;
  int const v12 = (v11 / v9);
#line 87 "softmax_kernels.h"
  int const v17 = 8;
#line 392 "softmax_kernels.h"
  int const v23 = (v10 * v7);
#line 393 "softmax_kernels.h"
  int const v24 = (v23 + v7);
  int const v25 = tj_min(v24, v6);
#line 394 "softmax_kernels.h"
  int const v26 = (v8 / v9);
  for (int v27 = v26; v27 < v5; v27 += v12) {
#line 33 "softmax_kernels.h"
    int const v28 = (v27 * v3);
#line 395 "softmax_kernels.h"
    unsigned short* const v29 = (v1 + v28);
#line 33 "softmax_kernels.h"
    int const v30 = (v27 * v4);
#line 396 "softmax_kernels.h"
    unsigned short* const v31 = (v0 + v30);
#line 157 "softmax_kernels.h"
    int const v32 = 16384;
    int const v33 = (v23 + v32);
    int const v34 = tj_min(v33, v25);
#line 102 "softmax_kernels.h"
    float const v35 = __int_as_float(0xff800000);
#line 103 "softmax_kernels.h"
    float const v37 = 0.0f;
#line 169 "softmax_kernels.h"
    int const v39 = 2048;
#line 405 "softmax_kernels.h"
    float v36_0[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v36_0[r] = v35;
    float v43[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v43[r] = v36_0[r];
    float v38_1[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v38_1[r] = v37;
    float v44[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v44[r] = v38_1[r];
    for (int v42 = v23; v42 < v34; v42 += v39) {
#line 171 "softmax_kernels.h"
      unsigned short const v51 = tj_f32_to_bf16(__int_as_float(0xff800000));
      unsigned short* v49_3[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v49_3[r] = v29;
      int v45_5[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v45_5[r] = v42;
      int v15_10[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v15_10[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128)));
      int v16_9[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v16_9[r] = v15_10[r];
      int v18_11[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v18_11[r] = v17;
      int v19_8[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v19_8[r] = (v16_9[r & ~7] * v18_11[r & ~7]);
      int v20_7[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v20_7[r] = v19_8[r];
      int v13_14[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v13_14[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0);
      int v14_13[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v14_13[r] = v13_14[r];
      int v21_12[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v21_12[r] = v14_13[r];
      int v22_6[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v22_6[r] = (v20_7[r] + v21_12[r]);
      int v46_4[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v46_4[r] = (v45_5[r] + v22_6[r]);
      unsigned short* v50_2[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v50_2[r] = (v49_3[r] + v46_4[r]);
      int v47_16[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v47_16[r] = v25;
      bool v48_15[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v48_15[r] = (v46_4[r] < v47_16[r]);
      unsigned short v52_17[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v52_17[r] = v51;
      unsigned short v53[8];
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        unsigned tj_w0 = (unsigned)((unsigned)(v52_17[r + 0])) | ((unsigned)((unsigned)(v52_17[r + 1])) << 16);
        unsigned tj_w1 = (unsigned)((unsigned)(v52_17[r + 2])) | ((unsigned)((unsigned)(v52_17[r + 3])) << 16);
        unsigned tj_w2 = (unsigned)((unsigned)(v52_17[r + 4])) | ((unsigned)((unsigned)(v52_17[r + 5])) << 16);
        unsigned tj_w3 = (unsigned)((unsigned)(v52_17[r + 6])) | ((unsigned)((unsigned)(v52_17[r + 7])) << 16);
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.cs.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v48_15[r]), "l"(v50_2[r]));
        v53[r + 0] = (unsigned short)((tj_w0 >> 0));
        v53[r + 1] = (unsigned short)((tj_w0 >> 16));
        v53[r + 2] = (unsigned short)((tj_w1 >> 0));
        v53[r + 3] = (unsigned short)((tj_w1 >> 16));
        v53[r + 4] = (unsigned short)((tj_w2 >> 0));
        v53[r + 5] = (unsigned short)((tj_w2 >> 16));
        v53[r + 6] = (unsigned short)((tj_w3 >> 0));
        v53[r + 7] = (unsigned short)((tj_w3 >> 16));
      }
#line 161 "softmax_kernels.h"
      int const v54 = (v42 - v23);
      int const v55 = (v54 / v39);
#line 172 "softmax_kernels.h"
      if ((unsigned)v55 < 8u) {
        unsigned short* tj_stash = (reinterpret_cast<unsigned short*>(tj_smem + tj_stash_offset + 0) + v55 * 2048);
        #pragma unroll
        for (int r = 0; r < 8; r += 8) {
          *reinterpret_cast<uint4*>(tj_stash + ((0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128))) * 8 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0))) = make_uint4((unsigned)((unsigned)(v53[r + 0])) | ((unsigned)((unsigned)(v53[r + 1])) << 16), (unsigned)((unsigned)(v53[r + 2])) | ((unsigned)((unsigned)(v53[r + 3])) << 16), (unsigned)((unsigned)(v53[r + 4])) | ((unsigned)((unsigned)(v53[r + 5])) << 16), (unsigned)((unsigned)(v53[r + 6])) | ((unsigned)((unsigned)(v53[r + 7])) << 16));
        }
      }
#line 173 "softmax_kernels.h"
      float v56[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v56[r] = (float)(tj_bf16_to_f32(v53[r]));
#line 106 "softmax_kernels.h"
      float v57_acc_18[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v57_acc_18[r] = v56[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v57_acc_18[r] = tj_max(v57_acc_18[r], v57_acc_18[r | 1]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v57_acc_18[r] = tj_max(v57_acc_18[r], v57_acc_18[r | 2]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v57_acc_18[r] = tj_max(v57_acc_18[r], v57_acc_18[r | 4]);
      float v57[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v57[r] = v57_acc_18[r & ~7];
      float v58[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v58[r] = tj_max(v43[r & ~7], v57[r & ~7]);
#line 109 "softmax_kernels.h"
      bool v59[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v59[r] = (v58[r & ~7] == v36_0[r & ~7]);
      float v60[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v60[r] = (v59[r & ~7] ? v38_1[r & ~7] : v58[r & ~7]);
#line 110 "softmax_kernels.h"
      float v61[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v61[r] = v60[r];
      float v62[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v62[r] = v61[r];
      float v63[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v63[r] = (v56[r] - v62[r]);
      float const v64 = 1.44269502f;
      float v65_19[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v65_19[r] = v64;
      float v66[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v66[r] = (v63[r] * v65_19[r]);
      float v67[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v67[r] = tj_ex2_ftz(v66[r]);
#line 111 "softmax_kernels.h"
      float v68_acc_20[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v68_acc_20[r] = v67[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v68_acc_20[r] = v68_acc_20[r] + v68_acc_20[r | 1];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v68_acc_20[r] = v68_acc_20[r] + v68_acc_20[r | 2];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v68_acc_20[r] = v68_acc_20[r] + v68_acc_20[r | 4];
      float v68[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v68[r] = v68_acc_20[r & ~7];
#line 112 "softmax_kernels.h"
      float v69[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v69[r] = (v43[r & ~7] - v60[r & ~7]);
      float v70_21[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v70_21[r] = v64;
      float v71[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v71[r] = (v69[r & ~7] * v70_21[r & ~7]);
      float v72[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v72[r] = tj_ex2_ftz(v71[r & ~7]);
#line 113 "softmax_kernels.h"
      float v73[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v73[r] = (v44[r & ~7] * v72[r & ~7]);
      float v74[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v74[r] = (v73[r & ~7] + v68[r & ~7]);
#line 405 "softmax_kernels.h"
      float v43_next_22[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43_next_22[r] = v58[r];
      float v44_next_23[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v44_next_23[r] = v74[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43[r] = v43_next_22[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v44[r] = v44_next_23[r];
    }
#line 175 "softmax_kernels.h"
    float v78[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v78[r] = v43[r];
    float v79[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v79[r] = v44[r];
    for (int v77 = v34; v77 < v25; v77 += v39) {
#line 122 "softmax_kernels.h"
      unsigned short const v86 = tj_f32_to_bf16(__int_as_float(0xff800000));
      unsigned short* v84_25[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v84_25[r] = v29;
      int v80_27[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v80_27[r] = v77;
      int v15_32[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v15_32[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128)));
      int v16_31[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v16_31[r] = v15_32[r];
      int v18_33[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v18_33[r] = v17;
      int v19_30[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v19_30[r] = (v16_31[r & ~7] * v18_33[r & ~7]);
      int v20_29[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v20_29[r] = v19_30[r];
      int v13_36[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v13_36[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0);
      int v14_35[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v14_35[r] = v13_36[r];
      int v21_34[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v21_34[r] = v14_35[r];
      int v22_28[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v22_28[r] = (v20_29[r] + v21_34[r]);
      int v81_26[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v81_26[r] = (v80_27[r] + v22_28[r]);
      unsigned short* v85_24[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v85_24[r] = (v84_25[r] + v81_26[r]);
      int v82_38[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v82_38[r] = v25;
      bool v83_37[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v83_37[r] = (v81_26[r] < v82_38[r]);
      unsigned short v87_39[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v87_39[r] = v86;
      unsigned short v88[8];
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        unsigned tj_w0 = (unsigned)((unsigned)(v87_39[r + 0])) | ((unsigned)((unsigned)(v87_39[r + 1])) << 16);
        unsigned tj_w1 = (unsigned)((unsigned)(v87_39[r + 2])) | ((unsigned)((unsigned)(v87_39[r + 3])) << 16);
        unsigned tj_w2 = (unsigned)((unsigned)(v87_39[r + 4])) | ((unsigned)((unsigned)(v87_39[r + 5])) << 16);
        unsigned tj_w3 = (unsigned)((unsigned)(v87_39[r + 6])) | ((unsigned)((unsigned)(v87_39[r + 7])) << 16);
#if __CUDA_ARCH__ >= 800
        asm volatile("{ .reg .pred p; .reg .b64 tj_pol; createpolicy.fractional.L2::evict_last.b64 tj_pol, 1.0; setp.ne.b32 p, %4, 0; @p ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%5], tj_pol; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v83_37[r]), "l"(v85_24[r]));
#else
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v83_37[r]), "l"(v85_24[r]));
#endif
        v88[r + 0] = (unsigned short)((tj_w0 >> 0));
        v88[r + 1] = (unsigned short)((tj_w0 >> 16));
        v88[r + 2] = (unsigned short)((tj_w1 >> 0));
        v88[r + 3] = (unsigned short)((tj_w1 >> 16));
        v88[r + 4] = (unsigned short)((tj_w2 >> 0));
        v88[r + 5] = (unsigned short)((tj_w2 >> 16));
        v88[r + 6] = (unsigned short)((tj_w3 >> 0));
        v88[r + 7] = (unsigned short)((tj_w3 >> 16));
      }
      float v89[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v89[r] = (float)(tj_bf16_to_f32(v88[r]));
#line 106 "softmax_kernels.h"
      float v90_acc_40[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v90_acc_40[r] = v89[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v90_acc_40[r] = tj_max(v90_acc_40[r], v90_acc_40[r | 1]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v90_acc_40[r] = tj_max(v90_acc_40[r], v90_acc_40[r | 2]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v90_acc_40[r] = tj_max(v90_acc_40[r], v90_acc_40[r | 4]);
      float v90[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v90[r] = v90_acc_40[r & ~7];
      float v91[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v91[r] = tj_max(v78[r & ~7], v90[r & ~7]);
#line 109 "softmax_kernels.h"
      bool v92[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v92[r] = (v91[r & ~7] == v36_0[r & ~7]);
      float v93[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v93[r] = (v92[r & ~7] ? v38_1[r & ~7] : v91[r & ~7]);
#line 110 "softmax_kernels.h"
      float v94[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v94[r] = v93[r];
      float v95[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v95[r] = v94[r];
      float v96[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v96[r] = (v89[r] - v95[r]);
      float const v97 = 1.44269502f;
      float v98_41[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v98_41[r] = v97;
      float v99[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v99[r] = (v96[r] * v98_41[r]);
      float v100[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v100[r] = tj_ex2_ftz(v99[r]);
#line 111 "softmax_kernels.h"
      float v101_acc_42[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v101_acc_42[r] = v100[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v101_acc_42[r] = v101_acc_42[r] + v101_acc_42[r | 1];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v101_acc_42[r] = v101_acc_42[r] + v101_acc_42[r | 2];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v101_acc_42[r] = v101_acc_42[r] + v101_acc_42[r | 4];
      float v101[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v101[r] = v101_acc_42[r & ~7];
#line 112 "softmax_kernels.h"
      float v102[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v102[r] = (v78[r & ~7] - v93[r & ~7]);
      float v103_43[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v103_43[r] = v97;
      float v104[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v104[r] = (v102[r & ~7] * v103_43[r & ~7]);
      float v105[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v105[r] = tj_ex2_ftz(v104[r & ~7]);
#line 113 "softmax_kernels.h"
      float v106[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v106[r] = (v79[r & ~7] * v105[r & ~7]);
      float v107[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v107[r] = (v106[r & ~7] + v101[r & ~7]);
#line 175 "softmax_kernels.h"
      float v78_next_44[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v78_next_44[r] = v91[r];
      float v79_next_45[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v79_next_45[r] = v107[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v78[r] = v78_next_44[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v79[r] = v79_next_45[r];
    }
#line 127 "softmax_kernels.h"
    float v108_acc_46[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v108_acc_46[r] = v78[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v108_acc_46[r] = tj_max(v108_acc_46[r], __shfl_xor_sync(0xffffffffu, v108_acc_46[r], 1));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v108_acc_46[r] = tj_max(v108_acc_46[r], __shfl_xor_sync(0xffffffffu, v108_acc_46[r], 2));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v108_acc_46[r] = tj_max(v108_acc_46[r], __shfl_xor_sync(0xffffffffu, v108_acc_46[r], 4));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v108_acc_46[r] = tj_max(v108_acc_46[r], __shfl_xor_sync(0xffffffffu, v108_acc_46[r], 8));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v108_acc_46[r] = tj_max(v108_acc_46[r], __shfl_xor_sync(0xffffffffu, v108_acc_46[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v108_acc_46[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) {
        v108_acc_46[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v108_acc_46[r] = tj_max(v108_acc_46[r], tj_red[s * 1 + 0]);
      }
    }
    float const v108 = v108_acc_46[0];
#line 128 "softmax_kernels.h"
    bool const v109 = (v108 == v35);
    float const v110 = (v109 ? v37 : v108);
#line 130 "softmax_kernels.h"
    float v111_47[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v111_47[r] = v110;
    float v112[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v112[r] = (v78[r & ~7] - v111_47[r & ~7]);
    float const v113 = 1.44269502f;
    float v114_48[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v114_48[r] = v113;
    float v115[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v115[r] = (v112[r & ~7] * v114_48[r & ~7]);
    float v116[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v116[r] = tj_ex2_ftz(v115[r & ~7]);
    float v117[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v117[r] = (v79[r & ~7] * v116[r & ~7]);
    float v118_acc_49[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v118_acc_49[r] = v117[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v118_acc_49[r] = v118_acc_49[r] + __shfl_xor_sync(0xffffffffu, v118_acc_49[r], 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v118_acc_49[r] = v118_acc_49[r] + __shfl_xor_sync(0xffffffffu, v118_acc_49[r], 2);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v118_acc_49[r] = v118_acc_49[r] + __shfl_xor_sync(0xffffffffu, v118_acc_49[r], 4);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v118_acc_49[r] = v118_acc_49[r] + __shfl_xor_sync(0xffffffffu, v118_acc_49[r], 8);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v118_acc_49[r] = v118_acc_49[r] + __shfl_xor_sync(0xffffffffu, v118_acc_49[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v118_acc_49[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) {
        v118_acc_49[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v118_acc_49[r] = v118_acc_49[r] + tj_red[s * 1 + 0];
      }
    }
    float const v118 = v118_acc_49[0];
#line 282 "softmax_kernels.h"
    float v119_acc_50, v120_acc_51;
    // group_softmax_stats over 32 programs, through the workspace
     {
      unsigned char* tj_group = (unsigned char*)(v2) + (unsigned long long)(blockIdx.x / 32u) * 1536ull;
      unsigned char* tj_barrier = tj_group + (tj_group_turn & 3u) * 128;
      float* tj_slots = reinterpret_cast<float*>(tj_group + 512 + (tj_group_turn & 3u) * 256);
      __syncthreads();  // this block is done with the last result
      if (threadIdx.x == 0) {
        tj_group_put2(tj_slots + 2 * tj_group_rank, v108, v118);
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
      v119_acc_50 = reinterpret_cast<const float2*>(tj_group_result)[0].x;
      v120_acc_51 = reinterpret_cast<const float2*>(tj_group_result)[0].y;
    }
    float const v119 = v119_acc_50;
    float const v120 = v120_acc_51;
#line 199 "softmax_kernels.h"
    for (int v122 = v34; v122 < v25; v122 += v39) {
#line 189 "softmax_kernels.h"
      unsigned short const v129 = tj_f32_to_bf16(__int_as_float(0xff800000));
      unsigned short* v127_53[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v127_53[r] = v29;
      int v123_55[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v123_55[r] = v122;
      int v121_56[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v121_56[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + ((((tj_lane >> 0) & 1) * 8) + (((tj_lane >> 1) & 1) * 16) + (((tj_lane >> 2) & 1) * 32) + (((tj_lane >> 3) & 1) * 64) + (((tj_lane >> 4) & 1) * 128)) + ((((tj_warp >> 0) & 1) * 256) + (((tj_warp >> 1) & 1) * 512) + (((tj_warp >> 2) & 1) * 1024)));
      int v124_54[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v124_54[r] = (v123_55[r] + v121_56[r]);
      unsigned short* v128_52[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v128_52[r] = (v127_53[r] + v124_54[r]);
      int v125_58[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v125_58[r] = v25;
      bool v126_57[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v126_57[r] = (v124_54[r] < v125_58[r]);
      unsigned short v130_59[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v130_59[r] = v129;
      unsigned short v131[8];
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        unsigned tj_w0 = (unsigned)((unsigned)(v130_59[r + 0])) | ((unsigned)((unsigned)(v130_59[r + 1])) << 16);
        unsigned tj_w1 = (unsigned)((unsigned)(v130_59[r + 2])) | ((unsigned)((unsigned)(v130_59[r + 3])) << 16);
        unsigned tj_w2 = (unsigned)((unsigned)(v130_59[r + 4])) | ((unsigned)((unsigned)(v130_59[r + 5])) << 16);
        unsigned tj_w3 = (unsigned)((unsigned)(v130_59[r + 6])) | ((unsigned)((unsigned)(v130_59[r + 7])) << 16);
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.cs.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v126_57[r]), "l"(v128_52[r]));
        v131[r + 0] = (unsigned short)((tj_w0 >> 0));
        v131[r + 1] = (unsigned short)((tj_w0 >> 16));
        v131[r + 2] = (unsigned short)((tj_w1 >> 0));
        v131[r + 3] = (unsigned short)((tj_w1 >> 16));
        v131[r + 4] = (unsigned short)((tj_w2 >> 0));
        v131[r + 5] = (unsigned short)((tj_w2 >> 16));
        v131[r + 6] = (unsigned short)((tj_w3 >> 0));
        v131[r + 7] = (unsigned short)((tj_w3 >> 16));
      }
      float v132[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v132[r] = (float)(tj_bf16_to_f32(v131[r]));
#line 40 "softmax_kernels.h"
      float v133_60[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v133_60[r] = v119;
      float v134[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v134[r] = (v132[r] - v133_60[r]);
      float v135_61[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v135_61[r] = v113;
      float v136[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v136[r] = (v134[r] * v135_61[r]);
      float v137[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v137[r] = tj_ex2_ftz(v136[r]);
      float v139[8];
      const float tj_rcp_62 = tj_rcp_approx(v120);
      if (fabsf(v120) <= 8.50705917e37f && fabsf(v120) >= 1.17549435e-38f) {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v139[r] = v137[r] * tj_rcp_62;
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v139[r] = tj_div_full(v137[r], v120);
      }
#line 190 "softmax_kernels.h"
      unsigned short v142[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v142[r] = tj_f32_to_bf16((float)(v139[r]));
      unsigned short* v140_64[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v140_64[r] = v31;
      unsigned short* v141_63[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v141_63[r] = (v140_64[r] + v124_54[r]);
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.cs.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v126_57[r])), "l"(v141_63[r]), "r"((unsigned)((unsigned)(v142[r + 0])) | ((unsigned)((unsigned)(v142[r + 1])) << 16)), "r"((unsigned)((unsigned)(v142[r + 2])) | ((unsigned)((unsigned)(v142[r + 3])) << 16)), "r"((unsigned)((unsigned)(v142[r + 4])) | ((unsigned)((unsigned)(v142[r + 5])) << 16)), "r"((unsigned)((unsigned)(v142[r + 6])) | ((unsigned)((unsigned)(v142[r + 7])) << 16)) : "memory");
      }
#line 199 "softmax_kernels.h"
    }
#line 407 "softmax_kernels.h"
    for (int v143 = v23; v143 < v34; v143 += v39) {
#line 161 "softmax_kernels.h"
      int const v146 = (v143 - v23);
      int const v147 = (v146 / v39);
#line 202 "softmax_kernels.h"
      unsigned short v148[8];
      if ((unsigned)v147 < 8u) {
        const unsigned short* tj_stash = (reinterpret_cast<unsigned short*>(tj_smem + tj_stash_offset + 0) + v147 * 2048);
        #pragma unroll
        for (int r = 0; r < 8; r += 8) {
          const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + ((0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128))) * 8 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0)));
          v148[r + 0] = (unsigned short)((tj_v.x >> 0));
          v148[r + 1] = (unsigned short)((tj_v.x >> 16));
          v148[r + 2] = (unsigned short)((tj_v.y >> 0));
          v148[r + 3] = (unsigned short)((tj_v.y >> 16));
          v148[r + 4] = (unsigned short)((tj_v.z >> 0));
          v148[r + 5] = (unsigned short)((tj_v.z >> 16));
          v148[r + 6] = (unsigned short)((tj_v.w >> 0));
          v148[r + 7] = (unsigned short)((tj_v.w >> 16));
        }
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v148[r] = (unsigned short)0;
      }
      float v149[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v149[r] = (float)(tj_bf16_to_f32(v148[r]));
#line 40 "softmax_kernels.h"
      float v152_65[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v152_65[r] = v119;
      float v153[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v153[r] = (v149[r] - v152_65[r]);
      float v154_66[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v154_66[r] = v113;
      float v155[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v155[r] = (v153[r] * v154_66[r]);
      float v156[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v156[r] = tj_ex2_ftz(v155[r]);
      float v158[8];
      const float tj_rcp_67 = tj_rcp_approx(v120);
      if (fabsf(v120) <= 8.50705917e37f && fabsf(v120) >= 1.17549435e-38f) {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v158[r] = v156[r] * tj_rcp_67;
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v158[r] = tj_div_full(v156[r], v120);
      }
#line 203 "softmax_kernels.h"
      unsigned short v161[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v161[r] = tj_f32_to_bf16((float)(v158[r]));
      unsigned short* v159_69[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v159_69[r] = v31;
      int v144_71[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v144_71[r] = v143;
      int v15_76[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v15_76[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128)));
      int v16_75[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v16_75[r] = v15_76[r];
      int v18_77[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v18_77[r] = v17;
      int v19_74[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v19_74[r] = (v16_75[r & ~7] * v18_77[r & ~7]);
      int v20_73[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v20_73[r] = v19_74[r];
      int v13_80[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v13_80[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0);
      int v14_79[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v14_79[r] = v13_80[r];
      int v21_78[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v21_78[r] = v14_79[r];
      int v22_72[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v22_72[r] = (v20_73[r] + v21_78[r]);
      int v145_70[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v145_70[r] = (v144_71[r] + v22_72[r]);
      unsigned short* v160_68[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v160_68[r] = (v159_69[r] + v145_70[r]);
      int v150_82[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v150_82[r] = v25;
      bool v151_81[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v151_81[r] = (v145_70[r] < v150_82[r]);
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.cs.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v151_81[r])), "l"(v160_68[r]), "r"((unsigned)((unsigned)(v161[r + 0])) | ((unsigned)((unsigned)(v161[r + 1])) << 16)), "r"((unsigned)((unsigned)(v161[r + 2])) | ((unsigned)((unsigned)(v161[r + 3])) << 16)), "r"((unsigned)((unsigned)(v161[r + 4])) | ((unsigned)((unsigned)(v161[r + 5])) << 16)), "r"((unsigned)((unsigned)(v161[r + 6])) | ((unsigned)((unsigned)(v161[r + 7])) << 16)) : "memory");
      }
#line 407 "softmax_kernels.h"
    }
#line 394 "softmax_kernels.h"
  }
}
