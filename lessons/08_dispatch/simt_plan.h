/* simt_plan.h - the layouts of lesson 04's register-staged fp32 SIMT kernel, as lesson 08
 * composes it (simt_fp32.cuh): the tiled copies, the transposed smem tile, the gmem tile and
 * the compute partition (an FFMA atom tiled over warps). A copy of lesson 04's plan.h, cut to
 * what the ldg128 kernel uses (lessons are self-contained); names keep lesson 04's p4_ prefix
 * so that `diff ../04_copy/plan.h simt_plan.h` shows what lesson 08 left out. Plain C:
 * compiles with gcc (host, tests/test_dispatch_08.c) and nvcc (host + device).
 *
 * Shared memory holds every operand tile TRANSPOSED, (BLK_K, BLK_X) with x contiguous and
 * each k row padded by P4_PAD floats: sX (BLK_X,BLK_K):(1,BLK_X+P4_PAD), so the inner product
 * loop reads 4 consecutive x (one float4) per LDS.128 whatever the operand's gmem layout.
 * x is the row mode of an operand tile (M for A, N for B), BLK_X its size.
 */
#ifndef LESSON08_SIMT_PLAN_H
#define LESSON08_SIMT_PLAN_H

#include "layout.h"

/* Padding of each k row of a transposed smem tile, in floats: with BLK_X a multiple of 32 the
 * row pitch BLK_X+4 is 4 (mod 32) banks and rows stay 16-byte aligned. */
#define P4_PAD 4

/* Largest lda/ldb the kernel accepts: offsets inside one operand tile are 32-bit ints, and
 * BLK_X * ld + BLK_K must stay below 2^31 for BLK_X <= 256. */
#define P4_MAX_LD (1LL << 22)

/* Most floats of one operand a thread stages per k_tile (the copy plan packs 4 bits per
 * vector into one unsigned: at most 8 vectors; an X4 copy has one float per vector). */
#define P4_MAXV 8

/* ---- copy partitions: tiled copies (thread layout x value layout) ----------------------
 * A tile (BLK_X,BLK_K) is moved by NTHR threads, one copy instruction of VEC = 1 or 4 floats
 * per (thread, repeat) (lay_tiled_copy, common/layout_tv.h):
 *   P4_COPY_K16  4 floats along k, gmem K-major, one LDG.128, stored as 4 STS.32:
 *                thr (NTHR/(BLK_K/4), BLK_K/4):(BLK_K/4,1), val (1,4):(0,1).
 *   P4_COPY_X16  4 floats along x, gmem x-major (M- or N-contiguous), LDG.128 + STS.128:
 *                thr (BLK_X/4, NTHR/(BLK_X/4)):(1,BLK_X/4), val (4,1):(1,0).
 *   P4_COPY_X4   1 float along x, anything not 16-byte aligned (either majorness: the strides
 *                are kernel arguments): thr (min(BLK_X,NTHR), NTHR/BLK_X):(1,BLK_X), val (1,1).
 * (Lesson 04's P4_COPY_K4, the transposing 4-byte cp.async, is not used by this kernel.) */
enum { P4_COPY_K4 = 0, P4_COPY_K16 = 1, P4_COPY_X16 = 2, P4_COPY_X4 = 3, P4_NCOPY = 4 };

/* The value layout of a copy mode: (VX,VK) -> element of one instruction. */
LAY_HD static inline lay_layout p4_copy_val(int mode) {
    if (mode == P4_COPY_K16) return lay_l2(1, 4, 0, 1);
    if (mode == P4_COPY_X16) return lay_l2(4, 1, 1, 0);
    return lay_l2(1, 1, 0, 0);
}

/* The tiled copy of mode `mode` for a (blk_x, blk_k) tile and nthr threads. */
LAY_HD static inline lay_tiled_copy p4_copy(int mode, int blk_x, int blk_k, int nthr) {
    lay_layout thr;
    if (mode == P4_COPY_K16) {
        thr = lay_l2(nthr / (blk_k / 4), blk_k / 4, blk_k / 4, 1);
    } else if (mode == P4_COPY_X16) {
        thr = lay_l2(blk_x / 4, nthr / (blk_x / 4), 1, blk_x / 4);
    } else {
        thr = nthr >= blk_x ? lay_l2(blk_x, nthr / blk_x, 1, blk_x) : lay_l2(nthr, 1, 1, 0);
    }
    return lay_make_tiled_copy(thr, p4_copy_val(mode));
}

/* Floats per copy instruction and vectors each thread moves per k_tile: plain arithmetic that
 * bounds `#pragma unroll` loops (the CPU test checks them against the layouts). */
LAY_HD static inline int p4_copy_vec(int mode) {
    return (mode == P4_COPY_K16 || mode == P4_COPY_X16) ? 4 : 1;
}
LAY_HD static inline int p4_copy_count(int mode, int blk_x, int blk_k, int nthr) {
    return blk_x * blk_k / (nthr * p4_copy_vec(mode));
}

/* The transposed smem tile sX (BLK_X,BLK_K):(1,BLK_X+P4_PAD), in floats. */
LAY_HD static inline lay_layout p4_smem_layout(int blk_x, int blk_k) {
    return lay_l2(blk_x, blk_k, 1, blk_x + P4_PAD);
}

/* The gmem tile gX (BLK_X,BLK_K):(sx,sk), in floats: sx = ld, sk = 1 for a K-major operand,
 * sx = 1, sk = ld for an x-major one (ld < P4_MAX_LD: offsets inside a tile fit 32 bits). */
LAY_HD static inline lay_layout p4_gmem_layout(int blk_x, int blk_k, int sx, int sk) {
    return lay_l2(blk_x, blk_k, sx, sk);
}

/* ---- compute partition: an FFMA atom tiled over warps and the warp tile ------------------
 * The 32 lanes of a warp are a (WARP_M/THR_M, WARP_N/THR_N) grid, row-major; lane (lm, ln)
 * owns a 4x4 block of C at (4 lm, 4 ln): together one FFMA atom (lay_mma_atom_fma). A warp
 * tile is (THR_M/4) x (THR_N/4) such atoms; warp w sits at (w / WARPS_N, w % WARPS_N). */
typedef struct {
    int blk_m, blk_n, blk_k, warp_m, warp_n, thr_m, thr_n;
} p4_cfg;

LAY_HD static inline lay_tiled_mma p4_mma(p4_cfg c) {
    const int lanes_m = c.warp_m / c.thr_m, lanes_n = c.warp_n / c.thr_n;
    const int warps_m = c.blk_m / c.warp_m, warps_n = c.blk_n / c.warp_n;
    return lay_make_tiled_mma(lay_mma_atom_fma(lanes_m, lanes_n, 4, 4),
                              lay_l2(warps_m, warps_n, warps_n, 1), c.thr_m / 4, c.thr_n / 4,
                              c.blk_k);
}

/* Thread tid's compute partition of one of four tiles (P4_FRAG_A: sA (BLK_M,BLK_K):
 * (1,BLK_M+P4_PAD), P4_FRAG_B: sB, P4_FRAG_CM / P4_FRAG_CN: the identity tiles (BLK_M,BLK_N):
 * (1,0) / (0,1), i.e. the m / n of each accumulator): the thread's base (value 0), and value
 * v relative to it, the same for every thread (a constant for a constant v). */
enum { P4_FRAG_A = 0, P4_FRAG_B = 1, P4_FRAG_CM = 2, P4_FRAG_CN = 3 };
LAY_HD static inline int p4_frag_base(const lay_tiled_mma *t, p4_cfg c, int which, int tid) {
    if (which == P4_FRAG_A) return (int)lay_tiled_mma_base_a(t, 1, c.blk_m + P4_PAD, tid);
    if (which == P4_FRAG_B) return (int)lay_tiled_mma_base_b(t, 1, c.blk_n + P4_PAD, tid);
    if (which == P4_FRAG_CM) return (int)lay_tiled_mma_base_c(t, 1, 0, tid);
    return (int)lay_tiled_mma_base_c(t, 0, 1, tid);
}
LAY_HD static inline int p4_frag_at(const lay_tiled_mma *t, p4_cfg c, int which, int v) {
    if (which == P4_FRAG_A) return (int)lay_tiled_mma_at_a(t, 1, c.blk_m + P4_PAD, v);
    if (which == P4_FRAG_B) return (int)lay_tiled_mma_at_b(t, 1, c.blk_n + P4_PAD, v);
    if (which == P4_FRAG_CM) return (int)lay_tiled_mma_at_c(t, 1, 0, v);
    return (int)lay_tiled_mma_at_c(t, 0, 1, v);
}

/* Fragment value indices (the colex order of lay_tiled_mma_*_crd): row i of the thread tile at
 * k, A value 4*((i/4) + (THR_M/4)*k) + i%4; likewise B; accumulator (i, j). */
LAY_HD static inline int p4_a_val(int thr_m, int i, int k) {
    return i % 4 + 4 * (i / 4 + (thr_m / 4) * k);
}
LAY_HD static inline int p4_b_val(int thr_n, int j, int k) {
    return j % 4 + 4 * (j / 4 + (thr_n / 4) * k);
}
LAY_HD static inline int p4_c_val(int thr_m, int i, int j) {
    return i % 4 + 4 * (j % 4) + 16 * (i / 4 + (thr_m / 4) * (j / 4));
}

#endif /* LESSON08_SIMT_PLAN_H */
