/* frag.h - lesson 05 assignment, part 1: the padded smem tile and the ldmatrix rows, derived
 * from the MMA atom's TV layouts.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE ex05_smem_tile (TODO 1), ex05_ldsm_a_crd and ex05_ldsm_b_crd (TODO 2). kernel.cu
 * copies every K tile into your smem tile and loads the mma.sync fragments from the rows of
 * TODO 2; the CPU grader (tests/test_exercise_05.c) checks the very same functions without a
 * GPU: every element of the tile at its own 16-byte-aligned place, ldmatrix reads and cp.async
 * stores free of bank conflicts, and a simulated ldmatrix.x4 from your rows delivering to every
 * lane exactly the A and B fragments the mma.sync m16n8k16 atom wants.
 *
 * The configuration is that of the lesson's `padded` variant (lessons/05_mma/first.cuh): a CTA
 * of 4 warps (2 x 2) computes a (BLK_M,BLK_N) = (128,128) tile of C from K tiles of
 * BLK_K = 64, each warp a (64,64) warp tile of MI x NI = 4 x 8 mma atoms of 16 x 8 x 16, over
 * 4 k-steps of 16 per K tile; 2 smem stages. Both operand tiles are K-major in shared memory,
 * like A and B in gmem (layout TN): sA (BLK_M,BLK_K), sB (BLK_N,BLK_K), halves (2 bytes).
 *
 * Plain C over common/layout.h: compiles with gcc (the CPU grader) and nvcc (the kernel).
 */
#ifndef EX05_FRAG_H
#define EX05_FRAG_H

#include "layout.h"

#ifdef __CUDACC__
#define EX05_INLINE static __host__ __device__ __forceinline__
#else
#define EX05_INLINE static inline
#endif

#define EX05_BLK_M 128
#define EX05_BLK_N 128
#define EX05_BLK_K 64
#define EX05_WARPS_M 2
#define EX05_WARPS_N 2
#define EX05_NTHR 128 /* 32 * WARPS_M * WARPS_N */
#define EX05_MI 4     /* atoms per warp tile along M: 64 / 16 */
#define EX05_NI 8     /* atoms per warp tile along N: 64 / 8 */
#define EX05_KSTEPS 4 /* k-steps of 16 per K tile: 64 / 16 */
#define EX05_STAGES 2

/* GIVEN. The tiled MMA: the m16n8k16 atom (PTX ISA 9.7.14.5.8) over 2 x 2 warps, warp w at
 * (w / 2, w % 2), MI x NI atoms per warp tile, KSTEPS atoms along BLK_K. Its fragment maps:
 * lay_tiled_mma_a_crd / _b_crd / _c_crd (common/layout_tv.h). */
EX05_INLINE lay_tiled_mma ex05_mma(void) {
    return lay_make_tiled_mma(lay_mma_atom_m16n8k16(),
                              lay_l2(EX05_WARPS_M, EX05_WARPS_N, EX05_WARPS_N, 1), EX05_MI,
                              EX05_NI, EX05_KSTEPS);
}

/* GIVEN. The gmem -> smem copy of a (rows, BLK_K) operand tile in 16-byte chunks (8 halves
 * along k, one cp.async each): thread t at row t / 8, chunk t % 8 of a (16, 8)-chunk copy
 * tile, repeated down the tile (repeat r: 16 r rows further). */
EX05_INLINE lay_tiled_copy ex05_copy(void) {
    return lay_make_tiled_copy(lay_l2(EX05_NTHR / (EX05_BLK_K / 8), EX05_BLK_K / 8,
                                      EX05_BLK_K / 8, 1),
                               lay_l2(1, 8, 0, 1));
}

/* TODO 1. The smem tile of one stage of one operand: (rows, BLK_K) halves, K-major (the 8
 * halves of a 16-byte chunk along k are contiguous: one cp.async writes them, one ldmatrix
 * row reads them), each row padded so that the 8 rows one ldmatrix phase reads fall in
 * different banks. Returned as a swizzled layout whose swizzle is the identity, Sw<0,0,0>
 * (lesson 06 puts a real one there); the kernel indexes it with lay_swizzled_crd2idx2(S, m, k).
 * What it must do (each is a check of the rubric):
 *   - every (m, k) of the tile at its own offset, 16-byte chunks 16-byte aligned;
 *   - the ldmatrix.x4 reads of the fragments and the 16-byte cp.async stores of ex05_copy are
 *     free of bank conflicts;
 *   - no more padding than that: at most one 16-byte chunk per row. */
EX05_INLINE lay_swizzled ex05_smem_tile(int rows) {
    /* rows of BLK_K + 8 halves: row r starts 16 r bytes (mod 128) further on, so the 8 rows of
     * an ldmatrix phase start in 8 different 16-byte bank groups */
    lay_swizzle none;
    none.b = none.m = none.s = 0;
    return lay_make_swizzled(none, lay_l2(rows, EX05_BLK_K, EX05_BLK_K + 8, 1));
}

/* GIVEN. Halves of smem one stage of a (rows, BLK_K) tile takes: one past the largest offset of
 * the tile, rounded up to 64 halves (128 bytes). 0 while TODO 1 is not written. */
EX05_INLINE int ex05_stage_halves(int rows) {
    const lay_swizzled S = ex05_smem_tile(rows);
    if (!lay_valid(S.layout)) return 0;
    return ((int)lay_cosize(S.layout) + 63) / 64 * 64;
}

/* TODO 2a. The row of sA that thread tid (0..127) supplies for the ldmatrix.x4 of its A
 * fragment of atom row i (0..MI-1) at k-step kk (0..KSTEPS-1): (*m, *k) in the (BLK_M,BLK_K)
 * tile, the first of the 8 halves its lane's row address points to. One ldmatrix.x4 loads a
 * whole 16x16 A atom: its registers r[0..3] must be exactly the atom's fragment registers
 * a0a1, a2a3, a4a5, a6a7 for every lane.
 * Derive it from the tiled MMA (common/layout_tv.h, section "ldmatrix"): do not type in a
 * table of lanes. */
EX05_INLINE void ex05_ldsm_a_crd(const lay_tiled_mma *mma, int tid, int i, int kk, int *m,
                                 int *k) {
    /* the q-th x4 load fills fragment values [8q, 8q+8): (atom value, i, kk) colex, so the
     * load of atom (i, kk) is q = i + MI * kk */
    lay_tiled_ldmatrix_a_crd(mma, 4, 0, tid, i + EX05_MI * kk, m, k);
}

/* TODO 2b. The same for sB: the row thread tid supplies for the ldmatrix.x4 that loads the B
 * fragments of the two n8 atoms j and j+1 (j even, 0..NI-2) at k-step kk: (*n, *k) in the
 * (BLK_N,BLK_K) tile. Its registers r[0], r[1] must be b0b1, b2b3 of atom j and r[2], r[3]
 * those of atom j+1. */
EX05_INLINE void ex05_ldsm_b_crd(const lay_tiled_mma *mma, int tid, int j, int kk, int *n,
                                 int *k) {
    /* one x4 = 8 values = two atoms' 4: (atom value, j, kk) colex gives q = j/2 + NI/2 * kk */
    lay_tiled_ldmatrix_b_crd(mma, 4, 0, tid, j / 2 + EX05_NI / 2 * kk, n, k);
}

#endif /* EX05_FRAG_H */
