/* plan.h - lesson 03's tile constants and layouts, shared by the kernel (gemm.cu) and the CPU
 * test (tests/test_plans_0304.c), so the test checks the very partitions the kernel uses.
 * Plain C over common/layout.h: compiles with gcc (host) and nvcc (host + device).
 *
 * The shapes are those of CuTe's sgemm tutorial kernel (gemm_device):
 *   CTA tile     (BLK_M,BLK_N,BLK_K) = (128,128,8), 256 threads
 *   copy         tA, tB: 256 threads as (32,8) over the (BLK_M,BLK_K) / (BLK_N,BLK_K) tiles,
 *                k fastest when the operand is K-major (a warp reads 4 rows x 8 contiguous k),
 *                m/n fastest when it is M/N-major (a warp reads 32 contiguous m): coalesced
 *                either way. Each thread copies (CPY_M,CPY_K) = (BLK_M/32, BLK_K/8) = (4,1)
 *                elements of A per k_tile, (CPY_N,CPY_K) = (4,1) of B.
 *   compute      tC: 256 threads as (16,16) over the (BLK_M,BLK_N) tile with n fastest, so a
 *                thread owns (THR_M,THR_N) = (8,8) elements of C strided by 16 ("raked"), and
 *                16 neighbouring lanes store 16 neighbouring floats of a row of C.
 *   smem         sA (BLK_M,BLK_K):(1,BLK_M+4), sB (BLK_N,BLK_K):(1,BLK_N+4): m (n) contiguous,
 *                padded by four floats per k column (see below).
 * Names as in CuTe: CPY_* are the extents of a thread's copy partition (tAgA, tAsA: its
 * elements of the operand tile), THR_* those of its compute partition (tCgC: its elements of
 * the C tile).
 */
#ifndef LESSON03_PLAN_H
#define LESSON03_PLAN_H

#include "layout.h"

#define P3_BLK_M 128
#define P3_BLK_N 128
#define P3_BLK_K 8
#define P3_NTHR 256
#define P3_PAD 4 /* floats of padding per k column of sA / sB */
#define P3_THR_M (P3_BLK_M / 16) /* 8: C rows per thread (compute partition, tC 16x16) */
#define P3_THR_N (P3_BLK_N / 16) /* 8: C columns per thread */
#define P3_CPY_M (P3_BLK_M / 32) /* 4: rows of the A tile per thread (copy partition, tA 32x8) */
#define P3_CPY_N (P3_BLK_N / 32) /* 4: rows of the B tile per thread (tB 32x8) */
#define P3_CPY_K (P3_BLK_K / 8)  /* 1: k per thread and k_tile */

/* Thread layout of the copy of a (BLK_X,BLK_K) tile, 256 threads as (32,8).
 *   K-major operand: (32,8):(8,1), thread t at (x,k) = (t/8, t%8): k fastest.
 *   x-major operand: (32,8):(1,32), thread t at (x,k) = (t%32, t/32): x fastest.
 * lay_local_partition then gives thread t the elements (x + 32*i, k + 8*j).
 * One constant shape, the operand order only in the strides: the kernel passes kmajor at run
 * time (one kernel serves all four operand orders), and only numbers depend on it, never the
 * layout's structure, so local_partition still folds to index arithmetic. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline lay_layout p3_copy_thr_layout(int kmajor) {
    return lay_l2(32, 8, kmajor ? 8 : 1, kmajor ? 1 : 32);
}

/* Thread layout of the compute partition: (16,16):(16,1), thread t at (m,n) = (t/16, t%16). */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline lay_layout p3_compute_thr_layout(void) { return lay_l2(16, 16, 16, 1); }

/* Smem layout of a (BLK_X,BLK_K) tile: x contiguous, k columns padded to BLK_X+4 floats.
 * Why the pad: in a K-major copy a warp writes 4 x by 8 k. Unpadded, the 8 k's of one x are
 * BLK_X = 128 floats apart, all in one bank (8-way conflict). With pitch 132 element (x,k) is
 * in bank (x + 4k) % 32, and x in 0..3, k in 0..7 gives 32 different banks. (CuTe's tutorial pads
 * by 1, which suits its own thread layout; for ours +1 would still leave 2-way conflicts.)
 * The compute reads (16 consecutive x, or one broadcast x) are conflict-free either way. */
#ifdef __CUDACC__
__host__ __device__
#endif
static inline lay_layout p3_smem_layout(int blk_x) {
    return lay_l2(blk_x, P3_BLK_K, 1, blk_x + P3_PAD);
}

#define P3_SMEM_A_FLOATS (P3_BLK_K * (P3_BLK_M + P3_PAD)) /* >= cosize of the sA layout */
#define P3_SMEM_B_FLOATS (P3_BLK_K * (P3_BLK_N + P3_PAD))

#endif /* LESSON03_PLAN_H */
