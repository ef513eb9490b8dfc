
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
#line 431 "softmax_kernels.h"
  const int v8 = (int)blockIdx.x;
  int const v9 = 32;
  int const v10 = (v8 % v9);
#line 433 "softmax_kernels.h"
  const int v11 = (int)gridDim.x;
  int const v12 = (v11 / v9);
#line 123 "softmax_kernels.h"
  int const v17 = 8;
#line 438 "softmax_kernels.h"
  int const v23 = (v10 * v7);
#line 439 "softmax_kernels.h"
  int const v24 = (v23 + v7);
  int const v25 = tj_min(v24, v6);
#line 440 "softmax_kernels.h"
  int const v26 = (v8 / v9);
  for (int v27 = v26; v27 < v5; v27 += v12) {
#line 34 "softmax_kernels.h"
    int const v28 = (v27 * v3);
#line 441 "softmax_kernels.h"
    unsigned short* const v29 = (v1 + v28);
#line 34 "softmax_kernels.h"
    int const v30 = (v27 * v4);
#line 442 "softmax_kernels.h"
    unsigned short* const v31 = (v0 + v30);
#line 197 "softmax_kernels.h"
    int const v32 = 16384;
    int const v33 = (v23 + v32);
    int const v34 = tj_min(v33, v25);
#line 138 "softmax_kernels.h"
    float const v35 = __int_as_float(0xff800000);
#line 139 "softmax_kernels.h"
    float const v37 = 0.0f;
#line 209 "softmax_kernels.h"
    int const v39 = 2048;
#line 451 "softmax_kernels.h"
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
#line 211 "softmax_kernels.h"
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
#line 201 "softmax_kernels.h"
      int const v54 = (v42 - v23);
      int const v55 = (v54 / v39);
#line 212 "softmax_kernels.h"
      if ((unsigned)v55 < 8u) {
        unsigned short* tj_stash = (reinterpret_cast<unsigned short*>(tj_smem + tj_stash_offset + 0) + v55 * 2048);
        #pragma unroll
        for (int r = 0; r < 8; r += 8) {
          *reinterpret_cast<uint4*>(tj_stash + ((0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128))) * 8 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0))) = make_uint4((unsigned)((unsigned)(v53[r + 0])) | ((unsigned)((unsigned)(v53[r + 1])) << 16), (unsigned)((unsigned)(v53[r + 2])) | ((unsigned)((unsigned)(v53[r + 3])) << 16), (unsigned)((unsigned)(v53[r + 4])) | ((unsigned)((unsigned)(v53[r + 5])) << 16), (unsigned)((unsigned)(v53[r + 6])) | ((unsigned)((unsigned)(v53[r + 7])) << 16));
        }
      }
#line 213 "softmax_kernels.h"
      float v56[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v56[r] = (float)(tj_bf16_to_f32(v53[r]));
#line 142 "softmax_kernels.h"
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
#line 145 "softmax_kernels.h"
      bool v59[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v59[r] = (v58[r & ~7] == v36_0[r & ~7]);
      float v60[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v60[r] = (v59[r & ~7] ? v38_1[r & ~7] : v58[r & ~7]);
#line 49 "softmax_kernels.h"
      float const v61 = 1.44269502f;
      float v62_19[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v62_19[r] = v61;
      float v63[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v63[r] = fmaf(v60[r & ~7], v62_19[r & ~7], v38_1[r & ~7]);
#line 147 "softmax_kernels.h"
      float v64[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v64[r] = v63[r];
#line 53 "softmax_kernels.h"
      float v65[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v65[r] = (-v64[r & ~7]);
      float v67[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v67[r] = v65[r];
      float v66_20[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v66_20[r] = v61;
      float v68[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v68[r] = fmaf(v56[r], v66_20[r], v67[r]);
      float v69[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v69[r] = tj_ex2_ftz(v68[r]);
#line 148 "softmax_kernels.h"
      float v70_acc_21[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v70_acc_21[r] = v69[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v70_acc_21[r] = v70_acc_21[r] + v70_acc_21[r | 1];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v70_acc_21[r] = v70_acc_21[r] + v70_acc_21[r | 2];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v70_acc_21[r] = v70_acc_21[r] + v70_acc_21[r | 4];
      float v70[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v70[r] = v70_acc_21[r & ~7];
#line 49 "softmax_kernels.h"
      float v71[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v71[r] = fmaf(v43[r & ~7], v62_19[r & ~7], v38_1[r & ~7]);
#line 151 "softmax_kernels.h"
      float v72[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v72[r] = (v71[r & ~7] - v63[r & ~7]);
      float v73[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v73[r] = tj_ex2_ftz(v72[r & ~7]);
#line 152 "softmax_kernels.h"
      float v74[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v74[r] = (v44[r & ~7] * v73[r & ~7]);
      float v75[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v75[r] = (v74[r & ~7] + v70[r & ~7]);
#line 451 "softmax_kernels.h"
      float v43_next_22[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43_next_22[r] = v58[r];
      float v44_next_23[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v44_next_23[r] = v75[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v43[r] = v43_next_22[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v44[r] = v44_next_23[r];
    }
#line 215 "softmax_kernels.h"
    float v79[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v79[r] = v43[r];
    float v80[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v80[r] = v44[r];
    for (int v78 = v34; v78 < v25; v78 += v39) {
#line 161 "softmax_kernels.h"
      unsigned short const v87 = tj_f32_to_bf16(__int_as_float(0xff800000));
      unsigned short* v85_25[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v85_25[r] = v29;
      int v81_27[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v81_27[r] = v78;
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
      int v82_26[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v82_26[r] = (v81_27[r] + v22_28[r]);
      unsigned short* v86_24[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v86_24[r] = (v85_25[r] + v82_26[r]);
      int v83_38[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v83_38[r] = v25;
      bool v84_37[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v84_37[r] = (v82_26[r] < v83_38[r]);
      unsigned short v88_39[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v88_39[r] = v87;
      unsigned short v89[8];
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        unsigned tj_w0 = (unsigned)((unsigned)(v88_39[r + 0])) | ((unsigned)((unsigned)(v88_39[r + 1])) << 16);
        unsigned tj_w1 = (unsigned)((unsigned)(v88_39[r + 2])) | ((unsigned)((unsigned)(v88_39[r + 3])) << 16);
        unsigned tj_w2 = (unsigned)((unsigned)(v88_39[r + 4])) | ((unsigned)((unsigned)(v88_39[r + 5])) << 16);
        unsigned tj_w3 = (unsigned)((unsigned)(v88_39[r + 6])) | ((unsigned)((unsigned)(v88_39[r + 7])) << 16);
#if __CUDA_ARCH__ >= 800
        asm volatile("{ .reg .pred p; .reg .b64 tj_pol; createpolicy.fractional.L2::evict_last.b64 tj_pol, 1.0; setp.ne.b32 p, %4, 0; @p ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%5], tj_pol; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v84_37[r]), "l"(v86_24[r]));
#else
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v84_37[r]), "l"(v86_24[r]));
#endif
        v89[r + 0] = (unsigned short)((tj_w0 >> 0));
        v89[r + 1] = (unsigned short)((tj_w0 >> 16));
        v89[r + 2] = (unsigned short)((tj_w1 >> 0));
        v89[r + 3] = (unsigned short)((tj_w1 >> 16));
        v89[r + 4] = (unsigned short)((tj_w2 >> 0));
        v89[r + 5] = (unsigned short)((tj_w2 >> 16));
        v89[r + 6] = (unsigned short)((tj_w3 >> 0));
        v89[r + 7] = (unsigned short)((tj_w3 >> 16));
      }
      float v90[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v90[r] = (float)(tj_bf16_to_f32(v89[r]));
#line 142 "softmax_kernels.h"
      float v91_acc_40[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v91_acc_40[r] = v90[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v91_acc_40[r] = tj_max(v91_acc_40[r], v91_acc_40[r | 1]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v91_acc_40[r] = tj_max(v91_acc_40[r], v91_acc_40[r | 2]);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v91_acc_40[r] = tj_max(v91_acc_40[r], v91_acc_40[r | 4]);
      float v91[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v91[r] = v91_acc_40[r & ~7];
      float v92[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v92[r] = tj_max(v79[r & ~7], v91[r & ~7]);
#line 145 "softmax_kernels.h"
      bool v93[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v93[r] = (v92[r & ~7] == v36_0[r & ~7]);
      float v94[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v94[r] = (v93[r & ~7] ? v38_1[r & ~7] : v92[r & ~7]);
#line 49 "softmax_kernels.h"
      float const v95 = 1.44269502f;
      float v96_41[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v96_41[r] = v95;
      float v97[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v97[r] = fmaf(v94[r & ~7], v96_41[r & ~7], v38_1[r & ~7]);
#line 147 "softmax_kernels.h"
      float v98[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v98[r] = v97[r];
#line 53 "softmax_kernels.h"
      float v99[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v99[r] = (-v98[r & ~7]);
      float v101[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v101[r] = v99[r];
      float v100_42[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v100_42[r] = v95;
      float v102[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v102[r] = fmaf(v90[r], v100_42[r], v101[r]);
      float v103[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v103[r] = tj_ex2_ftz(v102[r]);
#line 148 "softmax_kernels.h"
      float v104_acc_43[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v104_acc_43[r] = v103[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 1) == 0) v104_acc_43[r] = v104_acc_43[r] + v104_acc_43[r | 1];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 3) == 0) v104_acc_43[r] = v104_acc_43[r] + v104_acc_43[r | 2];
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 7) == 0) v104_acc_43[r] = v104_acc_43[r] + v104_acc_43[r | 4];
      float v104[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v104[r] = v104_acc_43[r & ~7];
#line 49 "softmax_kernels.h"
      float v105[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v105[r] = fmaf(v79[r & ~7], v96_41[r & ~7], v38_1[r & ~7]);
#line 151 "softmax_kernels.h"
      float v106[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v106[r] = (v105[r & ~7] - v97[r & ~7]);
      float v107[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v107[r] = tj_ex2_ftz(v106[r & ~7]);
#line 152 "softmax_kernels.h"
      float v108[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v108[r] = (v80[r & ~7] * v107[r & ~7]);
      float v109[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v109[r] = (v108[r & ~7] + v104[r & ~7]);
#line 215 "softmax_kernels.h"
      float v79_next_44[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v79_next_44[r] = v92[r];
      float v80_next_45[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v80_next_45[r] = v109[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v79[r] = v79_next_44[r];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v80[r] = v80_next_45[r];
    }
#line 166 "softmax_kernels.h"
    float v110_acc_46[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v110_acc_46[r] = v79[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v110_acc_46[r] = tj_max(v110_acc_46[r], __shfl_xor_sync(0xffffffffu, v110_acc_46[r], 1));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v110_acc_46[r] = tj_max(v110_acc_46[r], __shfl_xor_sync(0xffffffffu, v110_acc_46[r], 2));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v110_acc_46[r] = tj_max(v110_acc_46[r], __shfl_xor_sync(0xffffffffu, v110_acc_46[r], 4));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v110_acc_46[r] = tj_max(v110_acc_46[r], __shfl_xor_sync(0xffffffffu, v110_acc_46[r], 8));
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v110_acc_46[r] = tj_max(v110_acc_46[r], __shfl_xor_sync(0xffffffffu, v110_acc_46[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v110_acc_46[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) {
        v110_acc_46[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v110_acc_46[r] = tj_max(v110_acc_46[r], tj_red[s * 1 + 0]);
      }
    }
    float const v110 = v110_acc_46[0];
#line 167 "softmax_kernels.h"
    bool const v111 = (v110 == v35);
    float const v112 = (v111 ? v37 : v110);
#line 49 "softmax_kernels.h"
    float const v113 = 1.44269502f;
    float const v114 = fmaf(v112, v113, v37);
#line 59 "softmax_kernels.h"
    float const v115 = (-v114);
    float const v116 = fmaf(v112, v113, v115);
    float const v117 = (-v116);
    float const v118 = tj_ex2_ftz(v117);
#line 49 "softmax_kernels.h"
    float v119_47[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v119_47[r] = v113;
    float v120[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v120[r] = fmaf(v79[r & ~7], v119_47[r & ~7], v38_1[r & ~7]);
#line 170 "softmax_kernels.h"
    float v121_48[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v121_48[r] = v114;
    float v122[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v122[r] = (v120[r & ~7] - v121_48[r & ~7]);
    float v123[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v123[r] = tj_ex2_ftz(v122[r & ~7]);
    float v124[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v124[r] = (v80[r & ~7] * v123[r & ~7]);
    float v125_acc_49[8];
    #pragma unroll
    for (int r = 0; r < 8; ++r) v125_acc_49[r] = v124[r];
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v125_acc_49[r] = v125_acc_49[r] + __shfl_xor_sync(0xffffffffu, v125_acc_49[r], 1);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v125_acc_49[r] = v125_acc_49[r] + __shfl_xor_sync(0xffffffffu, v125_acc_49[r], 2);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v125_acc_49[r] = v125_acc_49[r] + __shfl_xor_sync(0xffffffffu, v125_acc_49[r], 4);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v125_acc_49[r] = v125_acc_49[r] + __shfl_xor_sync(0xffffffffu, v125_acc_49[r], 8);
    #pragma unroll
    for (int r = 0; r < 8; ++r) if ((r & 0) == 0) v125_acc_49[r] = v125_acc_49[r] + __shfl_xor_sync(0xffffffffu, v125_acc_49[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0) | (((tj_warp >> 1) & 1) << 1) | (((tj_warp >> 2) & 1) << 2);
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v125_acc_49[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 8; ++r) if ((r & 0) == 0) {
        v125_acc_49[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 8; ++s) v125_acc_49[r] = v125_acc_49[r] + tj_red[s * 1 + 0];
      }
    }
    float const v125 = v125_acc_49[0];
    float const v126 = (v125 * v118);
#line 322 "softmax_kernels.h"
    float v127_acc_50, v128_acc_51;
    // group_softmax_stats over 32 programs, through the workspace
     {
      unsigned char* tj_group = (unsigned char*)(v2) + (unsigned long long)(blockIdx.x / 32u) * 1536ull;
      unsigned char* tj_barrier = tj_group + (tj_group_turn & 3u) * 128;
      float* tj_slots = reinterpret_cast<float*>(tj_group + 512 + (tj_group_turn & 3u) * 256);
      __syncthreads();  // this block is done with the last result
      if (threadIdx.x == 0) {
        tj_group_put2(tj_slots + 2 * tj_group_rank, v110, v126);
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
      v127_acc_50 = reinterpret_cast<const float2*>(tj_group_result)[0].x;
      v128_acc_51 = reinterpret_cast<const float2*>(tj_group_result)[0].y;
    }
    float const v127 = v127_acc_50;
    float const v128 = v128_acc_51;
#line 239 "softmax_kernels.h"
    for (int v130 = v34; v130 < v25; v130 += v39) {
#line 229 "softmax_kernels.h"
      unsigned short const v137 = tj_f32_to_bf16(__int_as_float(0xff800000));
      unsigned short* v135_53[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v135_53[r] = v29;
      int v131_55[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v131_55[r] = v130;
      int v129_56[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v129_56[r] = 0 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + ((((tj_lane >> 0) & 1) * 8) + (((tj_lane >> 1) & 1) * 16) + (((tj_lane >> 2) & 1) * 32) + (((tj_lane >> 3) & 1) * 64) + (((tj_lane >> 4) & 1) * 128)) + ((((tj_warp >> 0) & 1) * 256) + (((tj_warp >> 1) & 1) * 512) + (((tj_warp >> 2) & 1) * 1024)));
      int v132_54[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v132_54[r] = (v131_55[r] + v129_56[r]);
      unsigned short* v136_52[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v136_52[r] = (v135_53[r] + v132_54[r]);
      int v133_58[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v133_58[r] = v25;
      bool v134_57[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v134_57[r] = (v132_54[r] < v133_58[r]);
      unsigned short v138_59[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v138_59[r] = v137;
      unsigned short v139[8];
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        unsigned tj_w0 = (unsigned)((unsigned)(v138_59[r + 0])) | ((unsigned)((unsigned)(v138_59[r + 1])) << 16);
        unsigned tj_w1 = (unsigned)((unsigned)(v138_59[r + 2])) | ((unsigned)((unsigned)(v138_59[r + 3])) << 16);
        unsigned tj_w2 = (unsigned)((unsigned)(v138_59[r + 4])) | ((unsigned)((unsigned)(v138_59[r + 5])) << 16);
        unsigned tj_w3 = (unsigned)((unsigned)(v138_59[r + 6])) | ((unsigned)((unsigned)(v138_59[r + 7])) << 16);
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %4, 0; @p ld.global.cs.v4.b32 {%0, %1, %2, %3}, [%5]; }" : "+r"(tj_w0), "+r"(tj_w1), "+r"(tj_w2), "+r"(tj_w3) : "r"((int)v134_57[r]), "l"(v136_52[r]));
        v139[r + 0] = (unsigned short)((tj_w0 >> 0));
        v139[r + 1] = (unsigned short)((tj_w0 >> 16));
        v139[r + 2] = (unsigned short)((tj_w1 >> 0));
        v139[r + 3] = (unsigned short)((tj_w1 >> 16));
        v139[r + 4] = (unsigned short)((tj_w2 >> 0));
        v139[r + 5] = (unsigned short)((tj_w2 >> 16));
        v139[r + 6] = (unsigned short)((tj_w3 >> 0));
        v139[r + 7] = (unsigned short)((tj_w3 >> 16));
      }
      float v140[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v140[r] = (float)(tj_bf16_to_f32(v139[r]));
#line 49 "softmax_kernels.h"
      float const v141 = fmaf(v127, v113, v37);
#line 69 "softmax_kernels.h"
      float const v142 = (-v141);
      float const v143 = fmaf(v127, v113, v142);
      float const v144 = tj_ex2_ftz(v143);
      float const v145 = (v128 * v144);
#line 53 "softmax_kernels.h"
      float v146_60[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v146_60[r] = v113;
      float v147_61[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v147_61[r] = v142;
      float v148[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v148[r] = fmaf(v140[r], v146_60[r], v147_61[r]);
      float v149[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v149[r] = tj_ex2_ftz(v148[r]);
#line 69 "softmax_kernels.h"
      float v151[8];
      const float tj_rcp_62 = tj_rcp_approx(v145);
      if (fabsf(v145) <= 8.50705917e37f && fabsf(v145) >= 1.17549435e-38f) {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v151[r] = v149[r] * tj_rcp_62;
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v151[r] = tj_div_full(v149[r], v145);
      }
#line 230 "softmax_kernels.h"
      unsigned short v154[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v154[r] = tj_f32_to_bf16((float)(v151[r]));
      unsigned short* v152_64[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v152_64[r] = v31;
      unsigned short* v153_63[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v153_63[r] = (v152_64[r] + v132_54[r]);
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.cs.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v134_57[r])), "l"(v153_63[r]), "r"((unsigned)((unsigned)(v154[r + 0])) | ((unsigned)((unsigned)(v154[r + 1])) << 16)), "r"((unsigned)((unsigned)(v154[r + 2])) | ((unsigned)((unsigned)(v154[r + 3])) << 16)), "r"((unsigned)((unsigned)(v154[r + 4])) | ((unsigned)((unsigned)(v154[r + 5])) << 16)), "r"((unsigned)((unsigned)(v154[r + 6])) | ((unsigned)((unsigned)(v154[r + 7])) << 16)) : "memory");
      }
#line 239 "softmax_kernels.h"
    }
#line 453 "softmax_kernels.h"
    for (int v155 = v23; v155 < v34; v155 += v39) {
#line 201 "softmax_kernels.h"
      int const v158 = (v155 - v23);
      int const v159 = (v158 / v39);
#line 242 "softmax_kernels.h"
      unsigned short v160[8];
      if ((unsigned)v159 < 8u) {
        const unsigned short* tj_stash = (reinterpret_cast<unsigned short*>(tj_smem + tj_stash_offset + 0) + v159 * 2048);
        #pragma unroll
        for (int r = 0; r < 8; r += 8) {
          const uint4 tj_v = *reinterpret_cast<const uint4*>(tj_stash + ((0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32) + (((tj_warp >> 1) & 1) * 64) + (((tj_warp >> 2) & 1) * 128))) * 8 + (((((r >> 0) & 1) * 1) + (((r >> 1) & 1) * 2) + (((r >> 2) & 1) * 4)) + 0 + 0)));
          v160[r + 0] = (unsigned short)((tj_v.x >> 0));
          v160[r + 1] = (unsigned short)((tj_v.x >> 16));
          v160[r + 2] = (unsigned short)((tj_v.y >> 0));
          v160[r + 3] = (unsigned short)((tj_v.y >> 16));
          v160[r + 4] = (unsigned short)((tj_v.z >> 0));
          v160[r + 5] = (unsigned short)((tj_v.z >> 16));
          v160[r + 6] = (unsigned short)((tj_v.w >> 0));
          v160[r + 7] = (unsigned short)((tj_v.w >> 16));
        }
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v160[r] = (unsigned short)0;
      }
      float v161[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v161[r] = (float)(tj_bf16_to_f32(v160[r]));
#line 49 "softmax_kernels.h"
      float const v164 = fmaf(v127, v113, v37);
#line 69 "softmax_kernels.h"
      float const v165 = (-v164);
      float const v166 = fmaf(v127, v113, v165);
      float const v167 = tj_ex2_ftz(v166);
      float const v168 = (v128 * v167);
#line 53 "softmax_kernels.h"
      float v169_65[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v169_65[r] = v113;
      float v170_66[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v170_66[r] = v165;
      float v171[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v171[r] = fmaf(v161[r], v169_65[r], v170_66[r]);
      float v172[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v172[r] = tj_ex2_ftz(v171[r]);
#line 69 "softmax_kernels.h"
      float v174[8];
      const float tj_rcp_67 = tj_rcp_approx(v168);
      if (fabsf(v168) <= 8.50705917e37f && fabsf(v168) >= 1.17549435e-38f) {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v174[r] = v172[r] * tj_rcp_67;
      } else {
        #pragma unroll
        for (int r = 0; r < 8; ++r) v174[r] = tj_div_full(v172[r], v168);
      }
#line 243 "softmax_kernels.h"
      unsigned short v177[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v177[r] = tj_f32_to_bf16((float)(v174[r]));
      unsigned short* v175_69[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v175_69[r] = v31;
      int v156_71[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v156_71[r] = v155;
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
      int v157_70[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v157_70[r] = (v156_71[r] + v22_72[r]);
      unsigned short* v176_68[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v176_68[r] = (v175_69[r] + v157_70[r]);
      int v162_82[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v162_82[r] = v25;
      bool v163_81[8];
      #pragma unroll
      for (int r = 0; r < 8; ++r) v163_81[r] = (v157_70[r] < v162_82[r]);
      #pragma unroll
      for (int r = 0; r < 8; r += 8) {
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %0, 0; @p st.global.cs.v4.b32 [%1], {%2, %3, %4, %5}; }" :: "r"((int)(v163_81[r])), "l"(v176_68[r]), "r"((unsigned)((unsigned)(v177[r + 0])) | ((unsigned)((unsigned)(v177[r + 1])) << 16)), "r"((unsigned)((unsigned)(v177[r + 2])) | ((unsigned)((unsigned)(v177[r + 3])) << 16)), "r"((unsigned)((unsigned)(v177[r + 4])) | ((unsigned)((unsigned)(v177[r + 5])) << 16)), "r"((unsigned)((unsigned)(v177[r + 6])) | ((unsigned)((unsigned)(v177[r + 7])) << 16)) : "memory");
      }
#line 453 "softmax_kernels.h"
    }
#line 440 "softmax_kernels.h"
  }
}
