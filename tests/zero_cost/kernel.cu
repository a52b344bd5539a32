/* tests/zero_cost/kernel.cu -- a small GEMM-like kernel (C = A * B^T, A (M,K) and B (N,K)
 * row-major, C (M,N) row-major, the repository's "TN" convention) that indexes every operand
 * through common/layout.h: global layouts from run-time M, N, K, lda, ldb, ldc; tilers, thread
 * layouts and shared-memory layouts (one swizzled) from constants; local_tile and
 * local_partition as in CuTe's sgemm tutorial. tests/test_zero_cost.sh compiles it and
 * fails on any stack frame, spill or local-memory instruction: the layouts must fold to
 * plain index arithmetic. Compile-only: it is never launched. */
#include "layout.h"

#define BLK_M 64
#define BLK_N 64
#define BLK_K 8

extern "C" __global__ void __launch_bounds__(256)
    gemm_layout_tn(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
                   int ldc) {
    __shared__ float smemA[BLK_M * BLK_K];
    __shared__ float smemB[BLK_N * BLK_K];

    /* full matrices, run-time extents and leading dimensions */
    lay_tensor mA = lay_make_tensor((void *)A, lay_l2(M, K, lda, 1)); /* (M,K) */
    lay_tensor mB = lay_make_tensor((void *)B, lay_l2(N, K, ldb, 1)); /* (N,K) */
    lay_tensor mC = lay_make_tensor((void *)C, lay_l2(M, N, ldc, 1)); /* (M,N) */

    /* CTA tiles: local_tile(mA, cta_tiler, cta_coord, Step<_1,X,_1>) etc. */
    lay_tiler cta_tiler = lay_tiler3(BLK_M, BLK_N, BLK_K);
    int cta_coord[3] = {LAY_CRD(blockIdx.x), LAY_CRD(blockIdx.y), LAY_FREE}; /* (m,n,_) */
    lay_tensor gA, gB, gC;
    if (lay_local_tile(&gA, mA, cta_tiler, cta_coord, 0x5u) != LAY_OK) return; /* (BLK_M,BLK_K,k) */
    if (lay_local_tile(&gB, mB, cta_tiler, cta_coord, 0x6u) != LAY_OK) return; /* (BLK_N,BLK_K,k) */
    if (lay_local_tile(&gC, mC, cta_tiler, cta_coord, 0x3u) != LAY_OK) return; /* (BLK_M,BLK_N) */

    /* shared memory: sA column-major, sB through a swizzle (XOR of 8-element chunks) */
    lay_tensor sA = lay_make_tensor(smemA, lay_l2(BLK_M, BLK_K, 1, BLK_M)); /* (BLK_M,BLK_K) */
    lay_swizzled sB_layout;
    lay_swizzle sw = {3, 3, 3};
    if (lay_swizzled_make(&sB_layout, sw, 0, lay_l2(BLK_N, BLK_K, BLK_K, 1)) != LAY_OK) return;

    /* copy partitions: 256 threads as (32,8) over (BLK,BLK_K) */
    lay_layout tA = lay_l2(32, 8, 8, 1);
    lay_tensor tAgA, tAsA, tBgB;
    if (lay_local_partition(&tAgA, gA, tA, (int)threadIdx.x, LAY_PROJ_ALL) != LAY_OK)
        return; /* (2,1,k) */
    if (lay_local_partition(&tAsA, sA, tA, (int)threadIdx.x, LAY_PROJ_ALL) != LAY_OK)
        return; /* (2,1) */
    if (lay_local_partition(&tBgB, gB, tA, (int)threadIdx.x, LAY_PROJ_ALL) != LAY_OK)
        return; /* (2,1,k) */

    /* compute partitions: 16x16 threads, each 4x4 of C */
    lay_layout tC = lay_l2(16, 16, 1, 16);
    lay_tensor tCsA, tCgC;
    if (lay_local_partition(&tCsA, sA, tC, (int)threadIdx.x, 0x1u) != LAY_OK)
        return; /* (4,BLK_K) */
    if (lay_local_partition(&tCgC, gC, tC, (int)threadIdx.x, LAY_PROJ_ALL) != LAY_OK)
        return; /* (4,4) */
    int tn = (int)threadIdx.x / 16;

    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.f;

    int k_tiles = (K + BLK_K - 1) / BLK_K;
    for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
        for (int i = 0; i < 2; ++i) {
            LAY_AT2(tAsA, float, i, 0) = LAY_AT3(tAgA, float, i, 0, kt);
            /* B: thread (row n, col k) of the tile, stored swizzled */
            int n = (int)threadIdx.x / 8 + 32 * i, k = (int)threadIdx.x % 8;
            smemB[lay_swizzled_crd2idx2(sB_layout, n, k)] = LAY_AT3(tBgB, float, i, 0, kt);
        }
        __syncthreads();
#pragma unroll 1 /* k stays a run-time value: the layouts must still fold */
        for (int k = 0; k < BLK_K; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += LAY_AT2(tCsA, float, i, k) *
                                 smemB[lay_swizzled_crd2idx2(sB_layout, tn + 16 * j, k)];
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) LAY_AT2(tCgC, float, i, j) = acc[i][j];
}
