/* plan.h - lesson 07's choice of layouts, written with the layout library (common/layout.h),
 * shared by the kernel (gemm.cu) and the CPU tests (tests/test_plans_07.c).
 *
 * Every function returns a layout built from its (compile-time) arguments; the kernel
 * evaluates these layouts point by point (lay_tiled_mma_c_crd, lay_tiled_ldmatrix_a_crd,
 * lay_tiled_copy_crd, lay_swizzled_crd2idx2...), which nvcc folds to the index arithmetic one
 * would write by hand (tests/test_sass.sh counts the K loop's instructions).
 *
 *   plan_mma       the tiled MMA: the mma.sync m16n8k16 atom over WARPS_M x WARPS_N warps
 *   plan_smem      the smem tile of one stage, (rows, BK) K-major, swizzled
 *   plan_copy      the gmem -> smem copy: 16-byte chunks (8 halves), a row of chunks per
 *                  BK/8 threads
 *   plan_smem_*    what the kernel's address shortcuts rely on: the offset of a row block,
 *                  the stage size, and how a k-step moves a lane's ldmatrix address
 *   plan_cstage*   the epilogue's staging block of one warp (the accumulator -> output remap)
 *                  and its 16-byte copies to and from C
 * What this lesson adds to lesson 06's plan: plan_cstage, plan_cstage_copy, plan_cstage_size.
 */
#ifndef LESSON07_PLAN_H
#define LESSON07_PLAN_H

#include "layout.h"

/* plan_mma: the m16n8k16 atom (PTX ISA 9.7.14.5.8) over warps_m x warps_n warps, warp w at
 * (w / warps_n, w % warps_n), each owning a (bm/warps_m, bn/warps_n) warp tile of
 * (bm/warps_m/16) x (bn/warps_n/8) atoms, bk/16 k-steps per K tile.
 *   e.g. plan_mma(2, 4, 128, 256, 64): 8 warps of 64x64 = 4 x 8 atoms, 4 k-steps */
LAY_HD static inline lay_tiled_mma plan_mma(int warps_m, int warps_n, int bm, int bn, int bk) {
    return lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(warps_m, warps_n, warps_n, 1),
                              bm / warps_m / 16, bn / warps_n / 8, bk / 16);
}

/* plan_smem: the (rows, bk) K-major smem tile of halves of one stage, composed with the swizzle
 * of its row length (lay_swizzle_sw: 2*bk-byte rows): bk = 64 -> Sw<3,3,3> o (rows,64):(64,1)
 * (chunk ^= row % 8), bk = 32 -> Sw<2,3,3> o (rows,32):(32,1) (chunk ^= (row / 2) % 4). The 8
 * rows one ldmatrix phase reads, and the 8 chunks one 8-lane cp.async phase writes, land in 8
 * different 16-byte bank groups (tests/test_plans_06.c). Other bk: no swizzle. */
LAY_HD static inline lay_swizzled plan_smem(int rows, int bk) {
    lay_swizzle sw;
    if (lay_swizzle_sw(&sw, 2 * bk, 2) != LAY_OK) sw.b = sw.m = sw.s = 0; /* the identity */
    return lay_make_swizzled(sw, lay_l2(rows, bk, bk, 1));
}

/* plan_copy: the copy of a (rows, bk) tile of halves in 16-byte chunks (cp.async 16 B): value
 * layout (1,8) (8 halves along k), thread t at (t / (bk/8), t % (bk/8)) of an
 * (nt/(bk/8), bk/8)-chunk copy tile, which repeats down the tile (repeat r: rows + r*nt/(bk/8)).
 * bk/8 neighbouring threads read one whole row segment of gmem. */
LAY_HD static inline lay_tiled_copy plan_copy(int nt, int bk) {
    return lay_make_tiled_copy(lay_l2(nt / (bk / 8), bk / 8, bk / 8, 1), lay_l2(1, 8, 0, 1));
}

/* plan_smem_rows: the offset (halves) of row `rows` of the smem tile, column 0: of a block of
 * rows that starts a multiple of 8 rows down. The swizzle looks only at offset bits below
 * 8 rows, so S(r0 + r, k) = plan_smem_rows(r0) + S(r, k) for such r0 (tests check it): the
 * kernel adds warp, atom and copy row blocks as constants. plan_smem_stage is the size of one
 * stage of `rows` rows (the offset of the row just past it). */
LAY_HD static inline int plan_smem_rows(int rows, int bk) {
    return (int)lay_crd2idx2(plan_smem(rows + 1, bk).layout, rows, 0);
}
LAY_HD static inline int plan_smem_stage(int rows, int bk) { return plan_smem_rows(rows, bk); }

/* plan_smem_kstep: the byte offset of S(r, k + kk*dk) from ob = 2*S(r, k) (2 bytes per half),
 * for k a multiple of 8 with k % 16 < 8, dk = 16 and k + kk*dk < bk: a lane's ldmatrix address
 * at k-step kk. Moving along k by whole chunks flips only the chunk bits the swizzle XORs, so
 * S(r, k + kk*dk) = S(r, k) ^ kk*L(0, dk) (tests check it for every lane and k-step); kstep_b
 * = plan_smem_kstep_b(dk, bk) = 2*L(0, dk). In bytes because the kernel keeps byte addresses:
 * one XOR per k-step. */
LAY_HD static inline unsigned plan_smem_kstep_b(int dk, int bk) {
    return 2u * (unsigned)lay_crd2idx2(plan_smem(1, bk).layout, 0, dk);
}
LAY_HD static inline unsigned plan_smem_kstep(unsigned ob, int kk, unsigned kstep_b) {
    return ob ^ ((unsigned)kk * kstep_b);
}

/* plan_cstage: a warp's staging block of output elements (halves, or floats for an fp32
 * output), (wtm, wtn) row-major with rows padded by 8 elements: (wtm,wtn):(wtn+8,1). The
 * accumulator -> output remap is the MMA's C fragment layout (lay_tiled_mma_c_crd) composed
 * with this layout: accumulator pair (c0,c1) or (c2,c3) of a lane goes to one 2-element slot.
 *   2-byte outputs: one 4-byte store per lane, rows of wtn + 8 halves = 36 words (wtn = 64):
 *     row g starts 4g banks on, lane t of group g writes bank 4g + t: 32 banks, 1 wavefront
 *     (without the pad all 8 rows start in the same bank: 8 wavefronts).
 *   4-byte outputs: one 8-byte store per lane, served as two half-warp phases; rows of 72
 *     words start 8g banks on, lanes t of group g write banks 8g + 2t, +1: each phase covers
 *     32 banks once, 2 wavefronts, the fewest 256 bytes can take (without the pad: 8).
 * The 16-byte copies (plan_cstage_copy) read or write whole row segments: each 8-lane phase
 * is 128 contiguous bytes, 1 wavefront (tests/test_plans_07.c checks all of it). */
LAY_HD static inline lay_layout plan_cstage(int wtm, int wtn) {
    return lay_l2(wtm, wtn, wtn + 8, 1);
}
/* plan_cstage_size: elements of one staging block (the offset of the row just past it). */
LAY_HD static inline int plan_cstage_size(int wtm, int wtn) {
    return (int)lay_crd2idx2(plan_cstage(wtm + 1, wtn), wtm, 0);
}
/* plan_cstage_copy: the 16-byte copies between a staging block and C, vec = 16/elem_bytes
 * elements along n each (8 halves or 4 floats): lane l at (l / (wtn/vec), l % (wtn/vec)) of a
 * (32/(wtn/vec), wtn/vec)-chunk copy tile, which repeats down the block. With wtn = 64 every
 * warp instruction moves 4 rows of 128 bytes (halves) or 2 rows of 256 bytes (floats): whole
 * 128-byte lines of C when its rows are 128-byte aligned. The same copy reads C into the block
 * (beta != 0, through cp.async) and writes D out of it. */
LAY_HD static inline lay_tiled_copy plan_cstage_copy(int wtn, int elem_bytes) {
    const int vec = 16 / elem_bytes, per_row = wtn / vec;
    return lay_make_tiled_copy(lay_l2(32 / per_row, per_row, per_row, 1), lay_l2(1, vec, 0, 1));
}

#endif /* LESSON07_PLAN_H */
