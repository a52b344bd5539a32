/* plan.h - lesson 05's choice of layouts, written with the layout library (common/layout.h),
 * shared by the kernels (gemm.cu, first.cuh) and the CPU tests (tests/test_plans_05.c).
 *
 * Every function returns a layout built from its (compile-time) arguments; the kernel
 * evaluates these layouts point by point (lay_tiled_mma_c_crd, lay_tiled_ldmatrix_a_crd,
 * lay_tiled_copy_crd, lay_swizzled_crd2idx2...), which nvcc folds to the index arithmetic one
 * would write by hand (tests/test_sass.sh counts the K loop's instructions).
 *
 *   plan_mma       the tiled MMA: the mma.sync m16n8k16 atom over WARPS_M x WARPS_N warps
 *   plan_smem      the smem tile of one stage, (rows, BK) K-major, rows padded by 8 halves
 *   plan_copy      the gmem -> smem copy: 16-byte chunks (8 halves), a row of chunks per
 *                  BK/8 threads
 *   plan_smem_*    what the kernel's address shortcuts rely on: the offset of a row block,
 *                  the stage size, and how a k-step moves a lane's ldmatrix address
 * Lesson 06 changes plan_smem (a swizzle instead of padded rows) and, with it, plan_smem_kstep
 * (an XOR instead of an add).
 */
#ifndef LESSON05_PLAN_H
#define LESSON05_PLAN_H

#include "layout.h"

/* plan_mma: the m16n8k16 atom (PTX ISA 9.7.14.5.8) over warps_m x warps_n warps, warp w at
 * (w / warps_n, w % warps_n), each owning a (bm/warps_m, bn/warps_n) warp tile of
 * (bm/warps_m/16) x (bn/warps_n/8) atoms, bk/16 k-steps per K tile.
 *   e.g. plan_mma(2, 4, 128, 256, 64): 8 warps of 64x64 = 4 x 8 atoms, 4 k-steps */
LAY_HD static inline lay_tiled_mma plan_mma(int warps_m, int warps_n, int bm, int bn, int bk) {
    return lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(warps_m, warps_n, warps_n, 1),
                              bm / warps_m / 16, bn / warps_n / 8, bk / 16);
}

/* plan_smem_pad: the (rows, bk) K-major smem tile of halves of one stage, each row padded by
 * pad halves: (rows,bk):(bk+pad,1), as a swizzled layout whose swizzle is the identity
 * (Sw<0,0,0>: lesson 06 puts a real one there). With pad = 8 (16 bytes) the 8 rows one
 * ldmatrix phase reads start 16 bytes apart modulo 128: 8 different bank groups, no conflict;
 * with pad = 0 and 128-byte rows (bk = 64) all 8 start in the same group: an 8-way conflict
 * (tests/test_plans_05.c). plan_smem: the kernels' choice, pad = PLAN_PAD. */
#define PLAN_PAD 8
LAY_HD static inline lay_swizzled plan_smem_pad(int rows, int bk, int pad) {
    lay_swizzle none;
    none.b = none.m = none.s = 0;
    return lay_make_swizzled(none, lay_l2(rows, bk, bk + pad, 1));
}
LAY_HD static inline lay_swizzled plan_smem(int rows, int bk) {
    return plan_smem_pad(rows, bk, PLAN_PAD);
}

/* plan_copy: the copy of a (rows, bk) tile of halves in 16-byte chunks (cp.async 16 B): value
 * layout (1,8) (8 halves along k), thread t at (t / (bk/8), t % (bk/8)) of an
 * (nt/(bk/8), bk/8)-chunk copy tile, which repeats down the tile (repeat r: rows + r*nt/(bk/8)).
 * bk/8 neighbouring threads read one whole row segment of gmem. */
LAY_HD static inline lay_tiled_copy plan_copy(int nt, int bk) {
    return lay_make_tiled_copy(lay_l2(nt / (bk / 8), bk / 8, bk / 8, 1), lay_l2(1, 8, 0, 1));
}

/* plan_smem_rows: the offset (halves) of row `rows` of the smem tile, column 0:
 * S(r0 + r, k) = plan_smem_rows(r0) + S(r, k) (tests check it): the kernel adds warp, atom
 * and copy row blocks as constants. plan_smem_stage is the size of one stage of `rows` rows
 * (the offset of the row just past it, padding included). */
LAY_HD static inline int plan_smem_rows(int rows, int bk) {
    return (int)lay_crd2idx2(plan_smem(rows + 1, bk).layout, rows, 0);
}
LAY_HD static inline int plan_smem_stage(int rows, int bk) { return plan_smem_rows(rows, bk); }

/* plan_smem_kstep: the byte offset of S(r, k + kk*dk) from ob = 2*S(r, k) (2 bytes per half):
 * a lane's ldmatrix address at k-step kk, dk = 16. Along a padded row that is kk*L(0, dk)
 * further on; kstep_b = plan_smem_kstep_b(dk, bk) = 2*L(0, dk). */
LAY_HD static inline unsigned plan_smem_kstep_b(int dk, int bk) {
    return 2u * (unsigned)lay_crd2idx2(plan_smem(1, bk).layout, 0, dk);
}
LAY_HD static inline unsigned plan_smem_kstep(unsigned ob, int kk, unsigned kstep_b) {
    return ob + (unsigned)kk * kstep_b;
}

#endif /* LESSON05_PLAN_H */
