/* test_plans_05.c - CPU proofs for lesson 05's plan (lessons/05_mma/plan.h), Criterion.
 *
 * For the default kernel's configurations (128x256x128 and 128x256x64, 2 x 4 warps, padded
 * rows) and the first kernel's (128x128, 2 x 2 warps, BK 64 / 32, padded and unpadded):
 *   - the ldmatrix row addresses the kernels compute (layouts evaluated at the first load,
 *     then constants) equal the layouts at every load, and the simulated ldmatrix delivers
 *     exactly the mma.sync fragments of the tiled MMA (plans_tc.h);
 *   - padded rows make the ldmatrix reads conflict-free; 128-byte rows without padding give
 *     an 8-way conflict;
 *   - the copy covers each tile once, copy i lies i*RSTEP rows below copy 0, and the 16-byte
 *     stores are conflict-free (for the default's 64- and 128-wide rows);
 *   - the epilogue's shortcut for the accumulator coordinates, and that they cover C once.
 */
#include "../lessons/05_mma/plan.h"
#include "plans_tc.h"

static tc_cfg cfg(int bm, int bn, int bk, int wm, int wn, int pad) {
    tc_cfg c;
    c.bm = bm;
    c.bn = bn;
    c.bk = bk;
    c.warps_m = wm;
    c.warps_n = wn;
    c.mma = plan_mma(wm, wn, bm, bn, bk);
    c.sA = plan_smem_pad(bm, bk, pad);
    c.sB = plan_smem_pad(bn, bk, pad);
    c.copy = plan_copy(32 * wm * wn, bk);
    c.kstep = plan_smem_kstep;
    c.kstep_b = 2u * (unsigned)lay_crd2idx2(c.sA.layout, 0, 16);
    c.a_atom = (int)lay_crd2idx2(c.sA.layout, 16, 0);
    c.b_atom = (int)lay_crd2idx2(c.sA.layout, 8, 0);
    return c;
}
static int rows_padded(int rows, int bk) { return rows * (bk + PLAN_PAD); }
static int rows_plain(int rows, int bk) { return rows * bk; }

Test(plan05, default_kernel_constants_are_the_layouts) {
    /* what tile_plan reads off plan.h for the default (BK = 128) */
    cr_assert_eq(plan_smem_stage(128, 128), 128 * 136);
    cr_assert_eq(plan_smem_rows(16, 128), 16 * 136);
    cr_assert_eq(plan_smem_kstep_b(16, 128), 32u);
    cr_assert_eq(plan_smem_kstep(100u, 3, 32u), 196u);
    /* 2 stages of (128 + 256) padded rows: the 204 KiB of the variant table */
    cr_assert_eq(2 * (plan_smem_stage(128, 128) + plan_smem_stage(256, 128)) * 2, 208896);
    cr_assert_eq(2 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)) * 2, 110592);
}

Test(plan05, ldmatrix_default_bk128) {
    const tc_cfg c = cfg(128, 256, 128, 2, 4, PLAN_PAD);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
}
Test(plan05, ldmatrix_default_bk64) {
    const tc_cfg c = cfg(128, 256, 64, 2, 4, PLAN_PAD);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
}
Test(plan05, ldmatrix_first_kernel_padded_bk64_and_bk32) {
    tc_cfg c = cfg(128, 128, 64, 2, 2, PLAN_PAD);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
    c = cfg(128, 128, 32, 2, 2, PLAN_PAD);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
}

/* without padding the addresses are still right, but the 8 rows of a phase share banks */
Test(plan05, unpadded_rows_conflict_8_way) {
    const lay_swizzled S = plan_smem_pad(128, 64, 0);
    const lay_tiled_mma mma = plan_mma(2, 2, 128, 128, 64);
    int addr[32];
    for (int l = 0; l < 32; ++l) {
        int m, k;
        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, l, 0, &m, &k);
        addr[l] = 2 * (int)lay_swizzled_crd2idx2(S, m, k);
    }
    cr_assert_eq(bank_wavefronts(addr), 32, "4 phases of 8 wavefronts");
}

Test(plan05, copies_cover_the_tiles_once_conflict_free) {
    tc_cfg c = cfg(128, 256, 128, 2, 4, PLAN_PAD);
    tc_check_copy(&c, 128, 8, rows_padded);
    tc_check_copy(&c, 256, 16, rows_padded);
    c = cfg(128, 256, 64, 2, 4, PLAN_PAD);
    tc_check_copy(&c, 128, 4, rows_padded);
    tc_check_copy(&c, 256, 8, rows_padded);
    c = cfg(128, 128, 64, 2, 2, PLAN_PAD); /* the first kernel: COPIES = 8 */
    tc_check_copy(&c, 128, 8, rows_padded);
    c = cfg(128, 128, 64, 2, 2, 0);
    tc_check_copy(&c, 128, 8, rows_plain);
}

Test(plan05, accumulators_cover_c_once) {
    tc_cfg c = cfg(128, 256, 128, 2, 4, PLAN_PAD);
    tc_check_c(&c);
    c = cfg(128, 128, 64, 2, 2, PLAN_PAD);
    tc_check_c(&c);
}
