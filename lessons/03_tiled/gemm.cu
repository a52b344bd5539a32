/* Lesson 03 - shared-memory tiling with Tensor views: CuTe's sgemm tutorial kernel in C.
 *
 * The kernel of CuTe's sgemm tutorial (`gemm_device`), written with common/layout.h:
 *   1. full tensors mA (M,K), mB (N,K), mC (M,N): a pointer plus a layout whose strides
 *      encode the operand order (TN, NT, NN, TT), so one kernel serves all four;
 *   2. the CTA's tiles gA, gB, gC by local_tile with the (BLK_M,BLK_N,BLK_K) tiler and the
 *      per-mode projections (Step<_1,X,_1> etc. become bit masks 0b101, 0b110, 0b011);
 *   3. shared-memory tiles sA, sB;
 *   4. copy partitions tAgA/tAsA, tBgB/tBsB by local_partition with thread layouts tA, tB;
 *   5. compute partitions tCsA, tCsB, tCgC by projections of the thread layout tC;
 *   6. register accumulators tCrC;
 *   7. the k_tile loop: copy, barrier, outer-product gemm, barrier;
 *   8. the axpby epilogue.
 * What the tutorial leaves out and this lesson adds: predication. It assumes M, N, K are
 * tile multiples; here every copy and every store is guarded by coordinates that come from
 * identity tensors partitioned exactly like the data (CuTe's make_identity_tensor trick), so
 * any M, N, K >= 1 works. Out-of-range elements are copied as zeros and contribute nothing.
 *
 * Build and run:   make lesson03 && ./run
 *                  ./run --size 4096x4096x4096
 *                  ./run --check-only --layout all --size 129x257x33
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 * All four layouts, any M, N, K >= 1, any leading dimension below 2^31; fp32 only.
 */
#include <limits.h>
#include "harness.h"
#include "layout.h"
#include "plan.h"

/* The element of tensor t at (i,j) as an offset only: used with identity tensors,
 * whose "offset" is a coordinate (see below) and whose pointer is never dereferenced. */
#define P3_OFF2(t, i, j) ((t).off + lay_crd2idx2((t).layout, (i), (j)))

/* Every layout operation returns a status; with the constant tiles of this kernel they cannot
 * fail, but a failure must never turn into a wrong index. A kernel returns nothing, so the
 * calls below are wrapped in LAY_TRY_VOID (layout.h), LAY_TRY's form for a void function: on
 * an error the CTA stops, C stays unwritten and the harness reports the failure. After
 * inlining, the checks fold away. */

/* One kernel for all four operand orders. The order is data, not code: it only chooses strides,
 * those of the full tensors mA/mB (below) and those of the copy thread layouts tA/tB (plan.h),
 * while every SHAPE is a compile-time constant or a plain run-time extent. So each layout
 * operation has one structure that nvcc can see, and folds to index arithmetic computed once
 * per thread; the k_tile loop only adds k_tile * (stride of the k mode). */
__global__ void __launch_bounds__(P3_NTHR)
    gemm03_tiled(int M, int N, int K, float alpha, const float *A, int lda, int a_kmajor,
                 const float *B, int ldb, int b_kmajor, float beta, float *C, int ldc) {
    const int tid = (int)threadIdx.x;

    /* ---- full tensors ---------------------------------------------------------------------
     * (M,K) with strides (lda,1) when A is K-major, (1,lda) when M-major: the layout, not the
     * code, knows the operand order. */
    const int a_sm = a_kmajor ? lda : 1, a_sk = a_kmajor ? 1 : lda;
    const int b_sn = b_kmajor ? ldb : 1, b_sk = b_kmajor ? 1 : ldb;
    lay_tensor mA = lay_make_tensor((void *)A, lay_l2(M, K, a_sm, a_sk)); /* (M,K) */
    lay_tensor mB = lay_make_tensor((void *)B, lay_l2(N, K, b_sn, b_sk)); /* (N,K) */
    lay_tensor mC = lay_make_tensor((void *)C, lay_l2(M, N, ldc, 1));       /* (M,N) */

    /* Identity tensors of one tile: the tile's shapes with strides that turn an index into
     * one of its coordinates, (BLK_M,BLK_K):(1,0) maps (m,k) -> m and (BLK_M,BLK_K):(0,1) maps
     * (m,k) -> k. Partitioned exactly like sA (or gC), element i of the partition is the
     * in-tile coordinate of element i of the data partition; compared with the residues
     * M - m0 and K - k0 it is the predicate "is this element inside A?" (CuTe builds the same
     * thing with make_identity_tensor; ours has constant shapes, so it folds at compile time). */
    const lay_tensor cA_m = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_K, 1, 0)); /* ->m */
    const lay_tensor cA_k = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_K, 0, 1)); /* ->k */
    const lay_tensor cB_n = lay_make_tensor(NULL, lay_l2(P3_BLK_N, P3_BLK_K, 1, 0)); /* ->n */
    const lay_tensor cB_k = lay_make_tensor(NULL, lay_l2(P3_BLK_N, P3_BLK_K, 0, 1)); /* ->k */
    const lay_tensor cC_m = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_N, 1, 0)); /* ->m */
    const lay_tensor cC_n = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_N, 0, 1)); /* ->n */

    /* ---- CTA tiles ------------------------------------------------------------------------
     * The tiler (BLK_M,BLK_N,BLK_K) cuts the (M,N,K) iteration space; this CTA is tile
     * (blockIdx.x, blockIdx.y) in M and N and takes every tile along K (LAY_FREE = CuTe's `_`).
     * LAY_CRD(x) tells nvcc that a run-time coordinate is never LAY_FREE (-1): whether an entry
     * is `_` decides how many modes gA has, and that must be known at compile time.
     * The projection keeps the modes an operand has: A has M and K (0b101, Step<_1,X,_1>),
     * B has N and K (0b110, Step<X,_1,_1>), C has M and N (0b011, Step<_1,_1,X>). */
    const lay_tiler cta_tiler = lay_tiler3(P3_BLK_M, P3_BLK_N, P3_BLK_K);
    const int cta_coord[3] = {LAY_CRD(blockIdx.x), LAY_CRD(blockIdx.y), LAY_FREE}; /* (m,n,_) */
    lay_tensor gA, gB, gC;
    LAY_TRY_VOID(lay_local_tile(&gA, mA, cta_tiler, cta_coord, 0x5u)); /* (BLK_M,BLK_K,k) */
    LAY_TRY_VOID(lay_local_tile(&gB, mB, cta_tiler, cta_coord, 0x6u)); /* (BLK_N,BLK_K,k) */
    LAY_TRY_VOID(lay_local_tile(&gC, mC, cta_tiler, cta_coord, 0x3u)); /* (BLK_M,BLK_N) */
    /* residues: how much of the tile exists (may exceed the tile) */
    const int m_rem = M - (int)blockIdx.x * P3_BLK_M, n_rem = N - (int)blockIdx.y * P3_BLK_N;

    /* ---- shared memory tiles (layouts in plan.h: x contiguous, padded columns) ------------ */
    __shared__ float smemA[P3_SMEM_A_FLOATS];
    __shared__ float smemB[P3_SMEM_B_FLOATS];
    lay_tensor sA = lay_make_tensor(smemA, p3_smem_layout(P3_BLK_M)); /* (BLK_M,BLK_K) */
    lay_tensor sB = lay_make_tensor(smemB, p3_smem_layout(P3_BLK_N)); /* (BLK_N,BLK_K) */

    /* ---- copy partitions ------------------------------------------------------------------
     * tA is (32,8) threads; local_partition tiles gA with it and keeps this thread's element
     * of every (32,8) block: thread t copies (CPY_M,CPY_K) = (4,1) elements per k_tile, 32 rows
     * apart (CuTe's names: CPY_* for a copy partition, THR_* for the compute partition). The
     * same partition applied to sA says where each of them goes, and applied to the identity
     * tiles, what its coordinates are. */
    const lay_layout tA = p3_copy_thr_layout(a_kmajor);
    const lay_layout tB = p3_copy_thr_layout(b_kmajor);
    lay_tensor tAgA, tAsA, tAcA_m, tAcA_k, tBgB, tBsB, tBcB_n, tBcB_k;
    LAY_TRY_VOID(lay_local_partition(&tAgA, gA, tA, tid, LAY_PROJ_ALL));       /* (CPY_M,CPY_K,k) */
    LAY_TRY_VOID(lay_local_partition(&tAsA, sA, tA, tid, LAY_PROJ_ALL));       /* (CPY_M,CPY_K) */
    LAY_TRY_VOID(lay_local_partition(&tAcA_m, cA_m, tA, tid, LAY_PROJ_ALL));   /* (CPY_M,CPY_K) */
    LAY_TRY_VOID(lay_local_partition(&tAcA_k, cA_k, tA, tid, LAY_PROJ_ALL));   /* (CPY_M,CPY_K) */
    LAY_TRY_VOID(lay_local_partition(&tBgB, gB, tB, tid, LAY_PROJ_ALL));       /* (CPY_N,CPY_K,k) */
    LAY_TRY_VOID(lay_local_partition(&tBsB, sB, tB, tid, LAY_PROJ_ALL));       /* (CPY_N,CPY_K) */
    LAY_TRY_VOID(lay_local_partition(&tBcB_n, cB_n, tB, tid, LAY_PROJ_ALL));   /* (CPY_N,CPY_K) */
    LAY_TRY_VOID(lay_local_partition(&tBcB_k, cB_k, tB, tid, LAY_PROJ_ALL));   /* (CPY_N,CPY_K) */

    /* ---- compute partitions: projections of tC --------------------------------------------
     * tC is (16,16) threads over the (BLK_M,BLK_N) tile of C. Thread (tm,tn) owns C elements
     * (tm + 16*i, tn + 16*j). To compute them it needs rows tm + 16*i of sA at every k: that is
     * sA partitioned by tC's M mode only (projection 0b01, Step<_1,X>), and columns tn + 16*j
     * of sB: sB partitioned by tC's N mode only (0b10, Step<X,_1>). */
    const lay_layout tC = p3_compute_thr_layout();
    lay_tensor tCsA, tCsB, tCgC, tCcC_m, tCcC_n;
    LAY_TRY_VOID(lay_local_partition(&tCsA, sA, tC, tid, 0x1u));              /* (THR_M,BLK_K) */
    LAY_TRY_VOID(lay_local_partition(&tCsB, sB, tC, tid, 0x2u));              /* (THR_N,BLK_K) */
    LAY_TRY_VOID(lay_local_partition(&tCgC, gC, tC, tid, LAY_PROJ_ALL));      /* (THR_M,THR_N) */
    LAY_TRY_VOID(lay_local_partition(&tCcC_m, cC_m, tC, tid, LAY_PROJ_ALL));  /* (THR_M,THR_N) */
    LAY_TRY_VOID(lay_local_partition(&tCcC_n, cC_n, tC, tid, LAY_PROJ_ALL));  /* (THR_M,THR_N) */

    /* ---- register accumulators ------------------------------------------------------------ */
    float tCrC[P3_THR_M][P3_THR_N]; /* (THR_M,THR_N) */
#pragma unroll
    for (int i = 0; i < P3_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < P3_THR_N; ++j) tCrC[i][j] = 0.0f;

    /* ---- main loop over k_tiles ----------------------------------------------------------- */
    const int k_tile_max = (K + P3_BLK_K - 1) / P3_BLK_K;
    for (int k_tile = 0; k_tile < k_tile_max; ++k_tile) {
        const int k_rem = K - k_tile * P3_BLK_K;
        /* copy(tAgA(_,_,k_tile), tAsA) with predicates: elements outside A become 0. The
         * address is formed for every element (it is only arithmetic) and only the load is
         * guarded, so nvcc emits predicated loads instead of branches around the arithmetic. */
#pragma unroll
        for (int i = 0; i < P3_CPY_M; ++i)
#pragma unroll
            for (int j = 0; j < P3_CPY_K; ++j) {
                const int in = P3_OFF2(tAcA_m, i, j) < m_rem && P3_OFF2(tAcA_k, i, j) < k_rem;
                const float *src = &LAY_AT3(tAgA, const float, i, j, k_tile);
                LAY_AT2(tAsA, float, i, j) = in ? *src : 0.0f;
            }
        /* copy(tBgB(_,_,k_tile), tBsB) */
#pragma unroll
        for (int i = 0; i < P3_CPY_N; ++i)
#pragma unroll
            for (int j = 0; j < P3_CPY_K; ++j) {
                const int in = P3_OFF2(tBcB_n, i, j) < n_rem && P3_OFF2(tBcB_k, i, j) < k_rem;
                const float *src = &LAY_AT3(tBgB, const float, i, j, k_tile);
                LAY_AT2(tBsB, float, i, j) = in ? *src : 0.0f;
            }
        /* Barrier 1: sA and sB are written by all 256 threads but read by others below; no
         * thread may start the gemm before every thread's stores are done. */
        __syncthreads();

        /* gemm(tCsA, tCsB, tCrC): (THR_M,THR_N) += (THR_M,BLK_K) * (THR_N,BLK_K)^T, one
         * outer product of a column of tCsA and a column of tCsB per k. */
#pragma unroll
        for (int k = 0; k < P3_BLK_K; ++k) {
            float rA[P3_THR_M], rB[P3_THR_N];
#pragma unroll
            for (int i = 0; i < P3_THR_M; ++i) rA[i] = LAY_AT2(tCsA, float, i, k);
#pragma unroll
            for (int j = 0; j < P3_THR_N; ++j) rB[j] = LAY_AT2(tCsB, float, j, k);
#pragma unroll
            for (int i = 0; i < P3_THR_M; ++i)
#pragma unroll
                for (int j = 0; j < P3_THR_N; ++j) tCrC[i][j] = fmaf(rA[i], rB[j], tCrC[i][j]);
        }
        /* Barrier 2: the next iteration's copy overwrites sA and sB; every thread must have
         * finished reading this k_tile first. */
        __syncthreads();
    }

    /* ---- epilogue: axpby(alpha, tCrC, beta, tCgC), predicated ------------------------------
     * C is read only when beta != 0, so a NaN-filled C with beta == 0 gives a clean result. */
#pragma unroll
    for (int i = 0; i < P3_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < P3_THR_N; ++j)
            if (P3_OFF2(tCcC_m, i, j) < m_rem && P3_OFF2(tCcC_n, i, j) < n_rem) {
                float *c = &LAY_AT2(tCgC, float, i, j);
                *c = (beta != 0.0f) ? fmaf(alpha, tCrC[i][j], beta * *c) : alpha * tCrC[i][j];
            }
}

static cudaError_t launch_tiled(const gemm_problem *p, cudaStream_t s) {
    dim3 block(P3_NTHR);
    dim3 grid((p->m + P3_BLK_M - 1) / P3_BLK_M, (p->n + P3_BLK_N - 1) / P3_BLK_N);
    gemm03_tiled<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A,
                                        (int)p->lda, p->a_kmajor, (const float *)p->B,
                                        (int)p->ldb, p->b_kmajor, p->beta, (float *)p->C,
                                        (int)p->ldc);
    return cudaGetLastError();
}

/* grid.y is limited to 65535 CTAs; layout.h strides are ints. */
static const char *check_tiled(const gemm_problem *p) {
    if ((p->n + P3_BLK_N - 1) / P3_BLK_N > 65535)
        return "N must be at most 8388480 (grid.y limit of 65535 CTAs of 128)";
    if (p->lda > INT_MAX || p->ldb > INT_MAX || p->ldc > INT_MAX)
        return "leading dimensions must fit in an int (layout.h strides)";
    return NULL;
}

static const gemm_variant variants[] = {
    {"tiled", "CuTe tutorial kernel: 128x128x8 smem tiles, (32,8) copy, (16,16) threads, 8x8 each",
     GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check_tiled, launch_tiled},
};

static const gemm_lesson lesson = {"03_tiled", "Shared-memory tiling with Tensor views", 1,
                                   variants, 0 /* default layout: TN */};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
