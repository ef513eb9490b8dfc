
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

// kernel group_stats: 4 warps
extern "C" __global__ void __launch_bounds__(128) group_stats_<hash>(float* v0, float* v1, int* v2, int v3, int v4) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  __shared__ __align__(8) unsigned char tj_group_result[8];  // the exchange's result, for every warp
  __shared__ unsigned tj_group_seen[4];  // thread 0: each barrier's word before this block last arrived
  unsigned tj_group_turn = 0;  // exchanges started: the next one uses set tj_group_turn % 4
  const unsigned tj_group_rank = blockIdx.x % 40u;
  constexpr int tj_reduction_buffer_bytes = 16;
#line 68 "cluster_rows_kernel.h"
  const int v5 = (int)blockIdx.x;
  int const v6 = 40;
  int const v7 = (v5 % v6);
#line 69 "cluster_rows_kernel.h"
  const int v8 = (int)gridDim.x;
  int const v9 = (v8 / v6);
#line 70 "cluster_rows_kernel.h"
  int const v10 = (v5 / v6);
  for (int v11 = v10; v11 < v3; v11 += v9) {
#line 71 "cluster_rows_kernel.h"
    int const v13 = 64;
    int const v14 = (v7 * v13);
#line 72 "cluster_rows_kernel.h"
    int const v19 = (v11 * v4);
    float* const v20 = (v1 + v19);
    float const v23 = __int_as_float(0xff800000);
    float* v21_1[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v21_1[r] = v20;
    int v15_3[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v15_3[r] = v14;
    int v12_4[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v12_4[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32)));
    int v16_2[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v16_2[r] = (v15_3[r] + v12_4[r]);
    float* v22_0[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v22_0[r] = (v21_1[r] + v16_2[r]);
    int v17_6[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v17_6[r] = v4;
    bool v18_5[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v18_5[r] = (v16_2[r] < v17_6[r]);
    float v24_7[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v24_7[r] = v23;
    float v25[1];
    #pragma unroll
    for (int r = 0; r < 1; r += 1) {
      unsigned tj_w0 = (unsigned)(__float_as_uint(v24_7[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v18_5[r]), "l"(v22_0[r]));
      v25[r + 0] = __uint_as_float(tj_w0);
    }
#line 73 "cluster_rows_kernel.h"
    float v26_acc_8[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v26_acc_8[r] = v25[r];
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v26_acc_8[r] = tj_max(v26_acc_8[r], __shfl_xor_sync(0xffffffffu, v26_acc_8[r], 1));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v26_acc_8[r] = tj_max(v26_acc_8[r], __shfl_xor_sync(0xffffffffu, v26_acc_8[r], 2));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v26_acc_8[r] = tj_max(v26_acc_8[r], __shfl_xor_sync(0xffffffffu, v26_acc_8[r], 4));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v26_acc_8[r] = tj_max(v26_acc_8[r], __shfl_xor_sync(0xffffffffu, v26_acc_8[r], 8));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v26_acc_8[r] = tj_max(v26_acc_8[r], __shfl_xor_sync(0xffffffffu, v26_acc_8[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0);
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v26_acc_8[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) {
        v26_acc_8[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 2; ++s) v26_acc_8[r] = tj_max(v26_acc_8[r], tj_red[s * 1 + 0]);
      }
    }
    float const v26 = v26_acc_8[0];
#line 74 "cluster_rows_kernel.h"
    bool const v27 = (v26 == v23);
    float const v28 = 0.0f;
    float const v29 = (v27 ? v28 : v26);
#line 75 "cluster_rows_kernel.h"
    float v30_9[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v30_9[r] = v29;
    float v31[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v31[r] = (v25[r] - v30_9[r]);
    float v32[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v32[r] = expf(v31[r]);
    float v33_acc_10[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v33_acc_10[r] = v32[r];
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v33_acc_10[r] = v33_acc_10[r] + __shfl_xor_sync(0xffffffffu, v33_acc_10[r], 1);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v33_acc_10[r] = v33_acc_10[r] + __shfl_xor_sync(0xffffffffu, v33_acc_10[r], 2);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v33_acc_10[r] = v33_acc_10[r] + __shfl_xor_sync(0xffffffffu, v33_acc_10[r], 4);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v33_acc_10[r] = v33_acc_10[r] + __shfl_xor_sync(0xffffffffu, v33_acc_10[r], 8);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v33_acc_10[r] = v33_acc_10[r] + __shfl_xor_sync(0xffffffffu, v33_acc_10[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0);
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v33_acc_10[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) {
        v33_acc_10[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 2; ++s) v33_acc_10[r] = v33_acc_10[r] + tj_red[s * 1 + 0];
      }
    }
    float const v33 = v33_acc_10[0];
#line 37 "cluster_rows_kernel.h"
    float v34_acc_11, v35_acc_12;
    // group_softmax_stats over 40 programs, through the workspace
     {
      unsigned char* tj_group = (unsigned char*)(v2) + (unsigned long long)(blockIdx.x / 40u) * 1792ull;
      unsigned char* tj_barrier = tj_group + (tj_group_turn & 3u) * 128;
      float* tj_slots = reinterpret_cast<float*>(tj_group + 512 + (tj_group_turn & 3u) * 320);
      __syncthreads();  // this block is done with the last result
      if (threadIdx.x == 0) {
        tj_group_put2(tj_slots + 2 * tj_group_rank, v26, v33);
        tj_group_wait(tj_barrier, tj_group_arrive(tj_barrier, 40u, tj_group_rank));
      }
      tj_group_turn += 1;
      if (threadIdx.x < 32) {
        __syncwarp();  // lane 0 is through the barrier: the slots are all written
         {
          float2 tj_v[2];
          #pragma unroll
          for (int tj_k = 0; tj_k < 2; ++tj_k) {
            const int tj_r = threadIdx.x + 32 * (0 + tj_k);
            tj_v[tj_k] = tj_r < 40 ? tj_group_get2(tj_slots + 2 * tj_r) : make_float2(__int_as_float(0xff800000), 0.0f);
          }
          float tj_max_part = __int_as_float(0xff800000), tj_sum_part = 0;
          #pragma unroll
          for (int tj_k = 0; tj_k < 2; ++tj_k) tj_max_part = tj_max(tj_max_part, tj_v[tj_k].x);
          #pragma unroll
          for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_max_part = tj_max(tj_max_part, __shfl_xor_sync(0xffffffffu, tj_max_part, tj_d));
          #pragma unroll
          for (int tj_k = 0; tj_k < 2; ++tj_k)
            if (threadIdx.x + 32 * (0 + tj_k) < 40) tj_sum_part += tj_v[tj_k].y * expf(tj_v[tj_k].x - tj_max_part);
          #pragma unroll
          for (int tj_d = 16; tj_d > 0; tj_d >>= 1) tj_sum_part += __shfl_xor_sync(0xffffffffu, tj_sum_part, tj_d);
          if (threadIdx.x == 0) reinterpret_cast<float2*>(tj_group_result)[0] = make_float2(tj_max_part, tj_sum_part);
        }
      }
      __syncthreads();
      v34_acc_11 = reinterpret_cast<const float2*>(tj_group_result)[0].x;
      v35_acc_12 = reinterpret_cast<const float2*>(tj_group_result)[0].y;
    }
    float const v34 = v34_acc_11;
    float const v35 = v35_acc_12;
#line 76 "cluster_rows_kernel.h"
    int const v36 = 0;
    bool const v37 = (v7 == v36);
    int const v38 = 2;
    int const v39 = (v11 * v38);
    float* const v40 = (v0 + v39);
    if (threadIdx.x == 0 && v37) *v40 = v34;
#line 77 "cluster_rows_kernel.h"
    int const v41 = 1;
    float* const v42 = (v40 + v41);
    if (threadIdx.x == 0 && v37) *v42 = v35;
#line 70 "cluster_rows_kernel.h"
  }
}
