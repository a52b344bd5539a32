/* ring.h - lesson 06 assignment, part 1: the swizzled smem tile and the stage ring.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE ex06_smem_tile (TODO 1) and the three numbers of the stage ring (TODO 2:
 * ex06_prefetch, ex06_wait_n, ex06_stage_of). kernel.cu copies every K tile into your tile and
 * runs its pipeline on your ring; the CPU grader (tests/test_exercise_06.c) checks the very same
 * functions without a GPU: your tile holds every element once with no padding, the kernel's
 * ldmatrix.x4 reads and cp.async stores through it are free of bank conflicts and deliver the
 * mma.sync fragments; and a simulation of the pipeline on your ring, for 1 to 20 K tiles, never
 * computes a K tile that may not have landed, never overwrites a stage that is still to be
 * read, keeps STAGES - 1 K tiles in flight and never waits longer than it must.
 *
 * The configuration is that of the lesson's `128x128x64_s3` variant: a CTA of 4 warps (2 x 2)
 * computes a (BLK_M,BLK_N) = (128,128) tile of C from K tiles of BLK_K = 64, each warp a
 * (64,64) warp tile of 4 x 8 mma.sync m16n8k16 atoms over 4 k-steps of 16, from a ring of
 * STAGES = 3 smem stages. Operand tiles are K-major in smem: sA (BLK_M,BLK_K), sB
 * (BLK_N,BLK_K), halves (2 bytes), rows of 128 bytes.
 *
 * Plain C over common/layout.h: compiles with gcc (the CPU grader) and nvcc (the kernel).
 */
#ifndef EX06_RING_H
#define EX06_RING_H

#include "layout.h"

#ifdef __CUDACC__
#define EX06_INLINE static __host__ __device__ __forceinline__
#else
#define EX06_INLINE static inline
#endif

#define EX06_BLK_M 128
#define EX06_BLK_N 128
#define EX06_BLK_K 64
#define EX06_WARPS_M 2
#define EX06_WARPS_N 2
#define EX06_NTHR 128 /* 32 * WARPS_M * WARPS_N */
#define EX06_MI 4     /* atoms per warp tile along M: 64 / 16 */
#define EX06_NI 8     /* atoms per warp tile along N: 64 / 8 */
#define EX06_KSTEPS 4 /* k-steps of 16 per K tile */
#define EX06_STAGES 3 /* smem stages of the ring */

#define EX06_TODO (-1) /* "not answered yet" (TODO 2) */

/* GIVEN. The tiled MMA: the m16n8k16 atom over 2 x 2 warps, warp w at (w / 2, w % 2), 4 x 8
 * atoms per warp tile, 4 k-steps per K tile (lesson 05). */
EX06_INLINE lay_tiled_mma ex06_mma(void) {
    return lay_make_tiled_mma(lay_mma_atom_m16n8k16(),
                              lay_l2(EX06_WARPS_M, EX06_WARPS_N, EX06_WARPS_N, 1), EX06_MI,
                              EX06_NI, EX06_KSTEPS);
}

/* GIVEN. The gmem -> smem copy of a (rows, BLK_K) tile in 16-byte chunks (8 halves along k):
 * thread t at row t / 8, chunk t % 8 of a (16, 8)-chunk copy tile, repeated down the tile
 * (copy r: 16 r rows further). One warp stores 4 whole rows of 128 bytes. */
EX06_INLINE lay_tiled_copy ex06_copy(void) {
    return lay_make_tiled_copy(lay_l2(EX06_NTHR / (EX06_BLK_K / 8), EX06_BLK_K / 8,
                                      EX06_BLK_K / 8, 1),
                               lay_l2(1, 8, 0, 1));
}

/* TODO 1. The smem tile of one stage of one operand: (rows, BLK_K) halves, K-major, rows of
 * exactly BLK_K halves (no padding), composed with the swizzle that makes the 8 rows of an
 * ldmatrix phase, and the 8 chunks of a cp.async phase, fall in 8 different 16-byte bank
 * groups. Build the swizzle with lay_swizzle_sw and the tile with lay_make_swizzled
 * (common/layout_tv.h, "Swizzled shared-memory layouts"); the kernel indexes it with
 * lay_swizzled_crd2idx2(S, m, k). What it must do (each is a check of the rubric):
 *   - every (m, k) of the tile at its own offset in [0, rows * BLK_K), the 8 halves of a
 *     16-byte chunk along k contiguous and 16-byte aligned;
 *   - the kernel's ldmatrix.x4 reads and 16-byte cp.async stores through it conflict-free. */
EX06_INLINE lay_swizzled ex06_smem_tile(int rows) {
    /* Sw<3,3,3> on half offsets: 16-byte chunks (3 bits of halves) keep their order inside,
     * the chunk index (bits 3-5) is XORed with the 128-byte row index mod 8 (bits 6-8) */
    lay_swizzle sw;
    if (lay_swizzle_sw(&sw, 2 * EX06_BLK_K, 2) != LAY_OK) sw.b = sw.m = sw.s = 0;
    return lay_make_swizzled(sw, lay_l2(rows, EX06_BLK_K, EX06_BLK_K, 1));
}

/* GIVEN. Halves of smem one stage of a (rows, BLK_K) tile takes: one past the largest offset of
 * the unswizzled layout, rounded up to the period of the swizzle (2^(B+M+S) halves: a swizzle
 * moves offsets only inside such blocks) and to 64 halves. 0 while TODO 1 is not written. */
EX06_INLINE int ex06_stage_halves(int rows) {
    const lay_swizzled S = ex06_smem_tile(rows);
    if (!lay_valid(S.layout)) return 0;
    const int b = S.sw.b + S.sw.m + S.sw.s, block = b > 6 ? 1 << b : 64;
    return ((int)lay_cosize(S.layout) + block - 1) / block * block;
}

/* GIVEN. The kernel's address shortcuts, read off your tile (lesson 06's plan_smem_rows and
 * plan_smem_kstep): a block of 16 rows further down is S(16, 0) further on (a swizzle looks
 * only at the row bits below 8 rows, so whole blocks of 8 rows add a constant), and 16 halves
 * further along k flip the chunk bits that S(0, 16) flips (an XOR, not an add). The offset of
 * the row a thread supplies for row block blk (atom row i of A, or atom pair j/2 of B) at
 * k-step kk, from the offset base0 of its row for blk = 0, kk = 0: */
EX06_INLINE int ex06_frag_offset(lay_swizzled S, int base0, int blk, int kk) {
    return (base0 ^ (kk * (int)lay_swizzled_crd2idx2(S, 0, 16))) +
           blk * (int)lay_swizzled_crd2idx2(S, 16, 0);
}
/* and of copy r of a thread, r * 16 rows below its copy 0 at offset base0 */
EX06_INLINE int ex06_copy_offset(lay_swizzled S, int base0, int r) {
    return base0 + r * (int)lay_swizzled_crd2idx2(S, lay_tiled_copy_tile_m(ex06_copy()), 0);
}

/* The stage ring. The kernel's pipeline (kernel.cu, TODO 3) is, with P = ex06_prefetch():
 *     prologue: for t = 0 .. P-1:  copy K tile t into stage ex06_stage_of(t) (if t < k_tiles);
 *                                  commit (group t)
 *     iteration kt = 0 .. k_tiles-1:
 *         cp.async.wait_group ex06_wait_n();  __syncthreads();
 *         copy K tile kt + P into stage ex06_stage_of(kt + P) (if it exists); commit
 *         compute K tile kt from stage ex06_stage_of(kt)
 * One group is committed per prologue step and per iteration, even an empty one, so group g
 * always holds K tile g. */

/* TODO 2a. How many K tiles the prologue puts in flight before the loop (and so how far ahead
 * of the one it computes each iteration copies): as many as the ring can hold while one stage
 * is being computed. */
EX06_INLINE int ex06_prefetch(void) { return EX06_STAGES - 1; }

/* TODO 2b. The N of cp.async.wait_group N at the top of iteration kt: the largest N that
 * still guarantees that this thread's copies of K tile kt are complete (wait_group N returns
 * when at most N of the thread's committed groups are pending; PTX ISA 9.7.9.25). */
EX06_INLINE int ex06_wait_n(void) {
    /* at the wait of iteration kt, groups 0 .. kt+P-1 are committed; K tile kt's is group kt,
     * and the P-1 newer ones may stay in flight */
    return ex06_prefetch() - 1;
}

/* TODO 2c. The stage (0 .. STAGES-1) K tile kt is copied into, and computed from. */
EX06_INLINE int ex06_stage_of(int kt) { return kt % EX06_STAGES; }

#endif /* EX06_RING_H */
