/* kernel.cu - lesson 03 assignment, part 2: the k_tile loop of the shared-memory tiled GEMM.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE the main loop (TODO 7): for every k_tile, the predicated copy of the A and B tiles
 * into shared memory, the barriers, and the gemm of the tiles into the register accumulators.
 * Everything it needs comes from your tiles.h (part 1): ex03_partition builds the tiles and
 * partitions, ex03_k_tile_count and ex03_copy_pred give the loop's extent and the copy's
 * predicate (the CPU grader checks those; this loop itself is checked only on a GPU). The
 * full tensors, the accumulators, the epilogue, the launch and the harness descriptor are
 * given.
 *
 * Every operand order (TN, NT, NN, TT) and any M, N, K >= 1 must work: elements of a tile that
 * lie outside A or B are stored as 0 into shared memory, so they add nothing. The harness fills
 * shared memory with NaN before every launch: a tile element your copy does not write is NaN.
 *
 * Build, check, time:  make exercise03 && ./run --variant exercise --check-only --layout all
 *                      ./run --size 4096x4096x4096                (yours vs the lesson's)
 * Grade:               make grade03
 */
#include <limits.h>

#include "exercise.h"
#include "tiles.h"

__global__ void __launch_bounds__(EX03_NTHR)
    ex03_gemm(int M, int N, int K, float alpha, const float *A, int lda, int a_kmajor,
              const float *B, int ldb, int b_kmajor, float beta, float *C, int ldc) {
    /* full tensors: the operand order is in the strides */
    const lay_tensor mA = lay_make_tensor((void *)A, lay_l2(M, K, a_kmajor ? lda : 1,
                                                            a_kmajor ? 1 : lda));    /* (M,K) */
    const lay_tensor mB = lay_make_tensor((void *)B, lay_l2(N, K, b_kmajor ? ldb : 1,
                                                            b_kmajor ? 1 : ldb));    /* (N,K) */
    const lay_tensor mC = lay_make_tensor((void *)C, lay_l2(M, N, ldc, 1));          /* (M,N) */

    __shared__ float smemA[EX03_SMEM_A_FLOATS];
    __shared__ float smemB[EX03_SMEM_B_FLOATS];
    ex03_cta c;
    if (ex03_partition(&c, mA, mB, mC, smemA, smemB, a_kmajor, b_kmajor, (int)blockIdx.x,
                       (int)blockIdx.y, (int)threadIdx.x) != LAY_OK)
        return; /* a layout error never becomes a wrong index: C stays unwritten */

    /* how much of this CTA's tile exists (may exceed the tile) */
    const int m_rem = M - (int)blockIdx.x * EX03_BLK_M, n_rem = N - (int)blockIdx.y * EX03_BLK_N;

    float tCrC[EX03_THR_M][EX03_THR_N]; /* (THR_M,THR_N) register accumulators */
#pragma unroll
    for (int i = 0; i < EX03_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < EX03_THR_N; ++j) tCrC[i][j] = 0.0f;

    /* 7: the main loop over k_tiles */
    const int k_tile_max = ex03_k_tile_count(K);
    for (int k_tile = 0; k_tile < k_tile_max; ++k_tile) {
        /* a. copy(tAgA(_,_,k_tile), tAsA) and copy(tBgB(_,_,k_tile), tBsB), predicated by the
         *    identity coordinates: the address is only arithmetic (it may lie outside A; it is
         *    never read then), the load is guarded */
#pragma unroll
        for (int i = 0; i < EX03_CPY_M; ++i)
#pragma unroll
            for (int j = 0; j < EX03_CPY_K; ++j) {
                const int in = ex03_copy_pred(c.tAcA_m, c.tAcA_k, i, j, m_rem, K, k_tile);
                const float *src = &LAY_AT3(c.tAgA, const float, i, j, k_tile);
                LAY_AT2(c.tAsA, float, i, j) = in ? *src : 0.0f;
            }
#pragma unroll
        for (int i = 0; i < EX03_CPY_N; ++i)
#pragma unroll
            for (int j = 0; j < EX03_CPY_K; ++j) {
                const int in = ex03_copy_pred(c.tBcB_n, c.tBcB_k, i, j, n_rem, K, k_tile);
                const float *src = &LAY_AT3(c.tBgB, const float, i, j, k_tile);
                LAY_AT2(c.tBsB, float, i, j) = in ? *src : 0.0f;
            }
        /* b. every thread reads elements of sA/sB that other threads stored: wait for all */
        __syncthreads();
        /* c. gemm(tCsA, tCsB, tCrC): one outer product per k */
#pragma unroll
        for (int k = 0; k < EX03_BLK_K; ++k) {
            float rA[EX03_THR_M], rB[EX03_THR_N];
#pragma unroll
            for (int i = 0; i < EX03_THR_M; ++i) rA[i] = LAY_AT2(c.tCsA, float, i, k);
#pragma unroll
            for (int j = 0; j < EX03_THR_N; ++j) rB[j] = LAY_AT2(c.tCsB, float, j, k);
#pragma unroll
            for (int i = 0; i < EX03_THR_M; ++i)
#pragma unroll
                for (int j = 0; j < EX03_THR_N; ++j) tCrC[i][j] = fmaf(rA[i], rB[j], tCrC[i][j]);
        }
        /* d. the next k_tile's copy overwrites sA/sB: every thread must be done reading */
        __syncthreads();
    }

    /* epilogue (given): axpby, predicated; C is read only when beta != 0 */
#pragma unroll
    for (int i = 0; i < EX03_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < EX03_THR_N; ++j)
            if (EX03_CRD2(c.tCcC_m, i, j) < m_rem && EX03_CRD2(c.tCcC_n, i, j) < n_rem) {
                float *out = &LAY_AT2(c.tCgC, float, i, j);
                *out = (beta != 0.0f) ? fmaf(alpha, tCrC[i][j], beta * *out) : alpha * tCrC[i][j];
            }
}

static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    dim3 block(EX03_NTHR);
    dim3 grid((p->m + EX03_BLK_M - 1) / EX03_BLK_M, (p->n + EX03_BLK_N - 1) / EX03_BLK_N);
    ex03_gemm<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A,
                                     (int)p->lda, p->a_kmajor, (const float *)p->B, (int)p->ldb,
                                     p->b_kmajor, p->beta, (float *)p->C, (int)p->ldc);
    return cudaGetLastError();
}

/* grid.y is limited to 65535 CTAs; layout.h strides are ints. */
static const char *check(const gemm_problem *p) {
    if ((p->n + EX03_BLK_N - 1) / EX03_BLK_N > 65535)
        return "N must be at most 8388480 (grid.y limit of 65535 CTAs of 128)";
    if (p->lda > INT_MAX || p->ldb > INT_MAX || p->ldc > INT_MAX)
        return "leading dimensions must fit in an int (layout.h strides)";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "lesson 03 assignment: 128x128x8 smem tiles, local_tile / local_partition",
    GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check, launch};
