
// kernel cluster_stats: 4 warps
extern "C" __global__ void __launch_bounds__(128) __cluster_dims__(4, 1, 1) cluster_stats_<hash>(float* v0, float* v1, int v2, int v3) {
  const int tj_lane = threadIdx.x & 31;
  const int tj_warp = threadIdx.x >> 5;
  extern __shared__ __align__(16) unsigned char tj_smem[];
  (void)tj_lane; (void)tj_warp; (void)tj_smem;
  __shared__ __align__(8) unsigned char tj_cluster_slots[64];
  __shared__ __align__(8) unsigned long long tj_cluster_full[2];  // per set: all slots of a round landed
  unsigned tj_cluster_rank, tj_cluster_turn = 0;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(tj_cluster_rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(&tj_cluster_full[0])) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(&tj_cluster_full[1])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every block of the cluster has started, its mbarriers ready, before any sends into it.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  constexpr int tj_reduction_buffer_bytes = 16;
#line 68 "cluster_rows_kernel.h"
  const int v4 = (int)blockIdx.x;
  int const v5 = 4;
  int const v6 = (v4 % v5);
#line 69 "cluster_rows_kernel.h"
  const int v7 = (int)gridDim.x;
  int const v8 = (v7 / v5);
#line 70 "cluster_rows_kernel.h"
  int const v9 = (v4 / v5);
  for (int v10 = v9; v10 < v2; v10 += v8) {
#line 71 "cluster_rows_kernel.h"
    int const v12 = 64;
    int const v13 = (v6 * v12);
#line 72 "cluster_rows_kernel.h"
    int const v18 = (v10 * v3);
    float* const v19 = (v1 + v18);
    float const v22 = __int_as_float(0xff800000);
    float* v20_1[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v20_1[r] = v19;
    int v14_3[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v14_3[r] = v13;
    int v11_4[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v11_4[r] = 0 + (0 + ((((tj_lane >> 0) & 1) * 1) + (((tj_lane >> 1) & 1) * 2) + (((tj_lane >> 2) & 1) * 4) + (((tj_lane >> 3) & 1) * 8) + (((tj_lane >> 4) & 1) * 16)) + ((((tj_warp >> 0) & 1) * 32)));
    int v15_2[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v15_2[r] = (v14_3[r] + v11_4[r]);
    float* v21_0[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v21_0[r] = (v20_1[r] + v15_2[r]);
    int v16_6[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v16_6[r] = v3;
    bool v17_5[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v17_5[r] = (v15_2[r] < v16_6[r]);
    float v23_7[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v23_7[r] = v22;
    float v24[1];
    #pragma unroll
    for (int r = 0; r < 1; r += 1) {
      unsigned tj_w0 = (unsigned)(__float_as_uint(v23_7[r + 0]));
      asm volatile("{ .reg .pred p; setp.ne.b32 p, %1, 0; @p ld.global.b32 %0, [%2]; }" : "+r"(tj_w0) : "r"((int)v17_5[r]), "l"(v21_0[r]));
      v24[r + 0] = __uint_as_float(tj_w0);
    }
#line 73 "cluster_rows_kernel.h"
    float v25_acc_8[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v25_acc_8[r] = v24[r];
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v25_acc_8[r] = tj_max(v25_acc_8[r], __shfl_xor_sync(0xffffffffu, v25_acc_8[r], 1));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v25_acc_8[r] = tj_max(v25_acc_8[r], __shfl_xor_sync(0xffffffffu, v25_acc_8[r], 2));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v25_acc_8[r] = tj_max(v25_acc_8[r], __shfl_xor_sync(0xffffffffu, v25_acc_8[r], 4));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v25_acc_8[r] = tj_max(v25_acc_8[r], __shfl_xor_sync(0xffffffffu, v25_acc_8[r], 8));
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v25_acc_8[r] = tj_max(v25_acc_8[r], __shfl_xor_sync(0xffffffffu, v25_acc_8[r], 16));
     {
      float* tj_red = reinterpret_cast<float*>(tj_smem);
      const int tj_slot = (((tj_warp >> 0) & 1) << 0);
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v25_acc_8[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) {
        v25_acc_8[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 2; ++s) v25_acc_8[r] = tj_max(v25_acc_8[r], tj_red[s * 1 + 0]);
      }
    }
    float const v25 = v25_acc_8[0];
#line 74 "cluster_rows_kernel.h"
    bool const v26 = (v25 == v22);
    float const v27 = 0.0f;
    float const v28 = (v26 ? v27 : v25);
#line 75 "cluster_rows_kernel.h"
    float v29_9[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v29_9[r] = v28;
    float v30[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v30[r] = (v24[r] - v29_9[r]);
    float v31[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v31[r] = expf(v30[r]);
    float v32_acc_10[1];
    #pragma unroll
    for (int r = 0; r < 1; ++r) v32_acc_10[r] = v31[r];
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v32_acc_10[r] = v32_acc_10[r] + __shfl_xor_sync(0xffffffffu, v32_acc_10[r], 1);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v32_acc_10[r] = v32_acc_10[r] + __shfl_xor_sync(0xffffffffu, v32_acc_10[r], 2);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v32_acc_10[r] = v32_acc_10[r] + __shfl_xor_sync(0xffffffffu, v32_acc_10[r], 4);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v32_acc_10[r] = v32_acc_10[r] + __shfl_xor_sync(0xffffffffu, v32_acc_10[r], 8);
    #pragma unroll
    for (int r = 0; r < 1; ++r) if ((r & 0) == 0) v32_acc_10[r] = v32_acc_10[r] + __shfl_xor_sync(0xffffffffu, v32_acc_10[r], 16);
     {
      float* tj_red = reinterpret_cast<float*>((tj_smem + tj_reduction_buffer_bytes));
      const int tj_slot = (((tj_warp >> 0) & 1) << 0);
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) tj_red[tj_slot * 1 + 0] = v32_acc_10[r];
      __syncthreads();
      #pragma unroll
      for (int r = 0; r < 1; ++r) if ((r & 0) == 0) {
        v32_acc_10[r] = tj_red[0];
        #pragma unroll
        for (int s = 1; s < 2; ++s) v32_acc_10[r] = v32_acc_10[r] + tj_red[s * 1 + 0];
      }
    }
    float const v32 = v32_acc_10[0];
#line 27 "cluster_rows_kernel.h"
    float v33_acc_11, v34_acc_12;
    // cluster_softmax_stats over 4 blocks
     {
      float2* tj_slots = reinterpret_cast<float2*>(tj_cluster_slots + (tj_cluster_turn & 1) * 32);
      const unsigned tj_full = (unsigned)__cvta_generic_to_shared(&tj_cluster_full[tj_cluster_turn & 1]);
      __syncthreads();  // this block is done reading the set's last round (see the top of cluster.cpp)
      if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 32;" :: "r"(tj_full) : "memory");
        const unsigned tj_local = (unsigned)__cvta_generic_to_shared(tj_slots + tj_cluster_rank);
        #pragma unroll
        for (unsigned tj_r = 0; tj_r < 4; ++tj_r) {
          unsigned tj_remote, tj_remote_full;
          asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(tj_remote) : "r"(tj_local), "r"(tj_r));
          asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(tj_remote_full) : "r"(tj_full), "r"(tj_r));
          asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" :: "r"(tj_remote), "f"(v25), "f"(v32), "r"(tj_remote_full) : "memory");
        }
      }
      unsigned tj_landed;  // every thread waits for its own block's slots of this round
      do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(tj_landed) : "r"(tj_full), "r"((tj_cluster_turn >> 1) & 1) : "memory");
      }
      while (!tj_landed);
      v33_acc_11 = tj_slots[0].x;
      #pragma unroll
      for (int tj_r = 1; tj_r < 4; ++tj_r) v33_acc_11 = tj_max(v33_acc_11, tj_slots[tj_r].x);
      v34_acc_12 = tj_slots[0].y * expf(tj_slots[0].x - v33_acc_11);
      #pragma unroll
      for (int tj_r = 1; tj_r < 4; ++tj_r) v34_acc_12 += tj_slots[tj_r].y * expf(tj_slots[tj_r].x - v33_acc_11);
      tj_cluster_turn += 1;
    }
    float const v33 = v33_acc_11;
    float const v34 = v34_acc_12;
#line 76 "cluster_rows_kernel.h"
    int const v35 = 0;
    bool const v36 = (v6 == v35);
    int const v37 = 2;
    int const v38 = (v10 * v37);
    float* const v39 = (v0 + v38);
    if (threadIdx.x == 0 && v36) *v39 = v33;
#line 77 "cluster_rows_kernel.h"
    int const v40 = 1;
    float* const v41 = (v39 + v40);
    if (threadIdx.x == 0 && v36) *v41 = v34;
#line 70 "cluster_rows_kernel.h"
  }
}
