/* tiles.h - lesson 03 assignment, part 1: the CTA's tiles and every thread's partitions.
 *
 * YOU WRITE ex03_smem_layout and the four TODO blocks of ex03_partition. kernel.cu calls them
 * on the GPU, and the CPU grader (tests/test_exercise_03.c) calls the very same functions on
 * the CPU, so `make grade03` checks your tiles and partitions without a GPU.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C with A (M,K), B (N,K),
 * C (M,N); the operand order is in the strides of the full tensors mA, mB (built in kernel.cu).
 * The configuration is the lesson's: a CTA computes a (BLK_M,BLK_N) = (128,128) tile of C from
 * k_tiles of BLK_K = 8, with 256 threads; the thread layouts are given below.
 *
 * Plain C over common/layout.h: compiles with gcc (the CPU grader) and nvcc (the kernel).
 */
#ifndef EX03_TILES_H
#define EX03_TILES_H

#include "layout.h"

/* every function here is inlined into the kernel: its layouts then fold to index arithmetic */
#ifdef __CUDACC__
#define EX03_INLINE static __host__ __device__ __forceinline__
#else
#define EX03_INLINE static inline
#endif

#define EX03_BLK_M 128
#define EX03_BLK_N 128
#define EX03_BLK_K 8
#define EX03_NTHR 256
#define EX03_THR_M 8 /* C rows per thread (BLK_M / 16) */
#define EX03_THR_N 8 /* C columns per thread (BLK_N / 16) */
/* Shared memory the kernel declares for sA and sB: room for a tile plus up to 8 floats of
 * padding per k column. Your smem layout must fit (its cosize at most this). */
#define EX03_SMEM_A_FLOATS (EX03_BLK_K * (EX03_BLK_M + 8))
#define EX03_SMEM_B_FLOATS (EX03_BLK_K * (EX03_BLK_N + 8))

/* GIVEN. The copy thread layout of a (BLK_X,BLK_K) tile: 256 threads as (32,8).
 *   K-major operand: (32,8):(8,1), thread t at (x,k) = (t/8, t%8): k fastest;
 *   x-major operand: (32,8):(1,32), thread t at (x,k) = (t%32, t/32): x fastest.
 * Either way a warp reads contiguous global memory. local_partition with it gives each thread
 * (BLK_X/32, BLK_K/8) = (4,1) elements of the tile. */
EX03_INLINE lay_layout ex03_copy_thr_layout(int kmajor) {
    return lay_l2(32, 8, kmajor ? 8 : 1, kmajor ? 1 : 32);
}

/* GIVEN. The compute thread layout over the (BLK_M,BLK_N) tile of C: (16,16):(16,1), thread t
 * at (m,n) = (t/16, t%16); local_partition gives it the (8,8) elements (t/16 + 16i, t%16 + 16j). */
EX03_INLINE lay_layout ex03_compute_thr_layout(void) { return lay_l2(16, 16, 16, 1); }

/* TODO 1. The shared-memory layout of a (blk_x, BLK_K) tile (blk_x = BLK_M for sA, BLK_N for
 * sB): x contiguous (so the compute loop reads neighbouring m or n), k columns one "pitch"
 * apart. Choose the pitch so that the K-major copy stores (a warp writes 4 x by 8 k, see
 * ex03_copy_thr_layout) hit 32 different banks, and so that the tile fits in
 * EX03_SMEM_A_FLOATS / EX03_SMEM_B_FLOATS. (Banks: 32 of them, 4 bytes wide; the float at
 * offset o is in bank o % 32. CUDA C++ Programming Guide, "Shared Memory".) */
EX03_INLINE lay_layout ex03_smem_layout(int blk_x) {
    (void)blk_x; /* delete when used */
    return lay_l1(0, 0); /* the invalid layout: "not written yet" */
}

/* Every tensor one thread of one CTA works with. The shape comments are what each must be. */
typedef struct ex03_cta {
    lay_tensor gA, gB, gC;          /* (BLK_M,BLK_K,k) (BLK_N,BLK_K,k) (BLK_M,BLK_N): gmem tiles */
    lay_tensor sA, sB;              /* (BLK_M,BLK_K) (BLK_N,BLK_K): smem tiles */
    lay_tensor tAgA, tAsA;          /* (THR_M,THR_K,k) (THR_M,THR_K): copy partition of A */
    lay_tensor tAcA_m, tAcA_k;      /* (THR_M,THR_K): in-tile m and k of each element of tAsA */
    lay_tensor tBgB, tBsB;          /* (THR_N,THR_K,k) (THR_N,THR_K): copy partition of B */
    lay_tensor tBcB_n, tBcB_k;      /* (THR_N,THR_K): in-tile n and k of each element of tBsB */
    lay_tensor tCsA, tCsB;          /* (THR_M,BLK_K) (THR_N,BLK_K): what the gemm reads */
    lay_tensor tCgC;                /* (THR_M,THR_N): the C elements this thread owns */
    lay_tensor tCcC_m, tCcC_n;      /* (THR_M,THR_N): in-tile m and n of each element of tCgC */
} ex03_cta;

/* Builds every tensor of `c` for CTA (bx,by) and thread tid, from the full tensors mA (M,K),
 * mB (N,K), mC (M,N) and the smem arrays smemA, smemB (EX03_SMEM_A/B_FLOATS floats).
 * a_kmajor / b_kmajor: 1 when K is the contiguous mode of A / B (chooses tA / tB).
 * Returns LAY_OK, or the first error of a layout operation (then `c` must not be used). */
EX03_INLINE int ex03_partition(ex03_cta *c, lay_tensor mA, lay_tensor mB, lay_tensor mC,
                               float *smemA, float *smemB, int a_kmajor, int b_kmajor, int bx,
                               int by, int tid) {
    /* GIVEN: the CTA tiler and this CTA's coordinate (bx, by, _): one tile in M and N, every
     * tile along K. LAY_CRD tells nvcc that bx and by are never LAY_FREE (README of the lesson,
     * section 1), which keeps every layout below a compile-time structure. */
    const lay_tiler cta_tiler = lay_tiler3(EX03_BLK_M, EX03_BLK_N, EX03_BLK_K);
    const int cta_coord[3] = {LAY_CRD(bx), LAY_CRD(by), LAY_FREE}; /* (m,n,_) */
    /* GIVEN: identity tensors of the tiles. Their "offset" at (x,k) is x (or k): partitioned
     * like the data, element i of the partition is the in-tile coordinate of element i. */
    const lay_tensor cA_m = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 1, 0)); /* ->m */
    const lay_tensor cA_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 0, 1)); /* ->k */
    const lay_tensor cB_n = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 1, 0)); /* ->n */
    const lay_tensor cB_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 0, 1)); /* ->k */
    const lay_tensor cC_m = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_N, 1, 0)); /* ->m */
    const lay_tensor cC_n = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_N, 0, 1)); /* ->n */
    const lay_layout tA = ex03_copy_thr_layout(a_kmajor);
    const lay_layout tB = ex03_copy_thr_layout(b_kmajor);
    const lay_layout tC = ex03_compute_thr_layout();

    /* TODO 2: the CTA tiles c->gA, c->gB, c->gC with lay_local_tile(out, tensor, tiler,
     * coord, projection). The projection keeps the modes of (M,N,K) the operand has. */

    /* TODO 3: the smem tiles c->sA, c->sB: tensors over smemA / smemB with your layout. */

    /* TODO 4: the copy partitions with lay_local_partition(out, tensor, thread layout, tid,
     * projection): tAgA, tAsA and the coordinates tAcA_m, tAcA_k with tA; the same for B. */

    /* TODO 5: the compute partitions with tC: tCsA needs only tC's M mode, tCsB only its N
     * mode, tCgC (and its coordinates tCcC_m, tCcC_n) both. */

    (void)c; (void)mA; (void)mB; (void)mC; (void)smemA; (void)smemB; (void)tid; /* delete */
    (void)cta_tiler; (void)cta_coord; (void)cA_m; (void)cA_k; (void)cB_n; (void)cB_k;
    (void)cC_m; (void)cC_n; (void)tA; (void)tB; (void)tC;
    return LAY_E_ARG; /* TODO: return LAY_OK once every tensor is built */
}

#endif /* EX03_TILES_H */
