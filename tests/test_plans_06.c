/* test_plans_06.c - CPU proofs for lesson 06's plan (lessons/06_swizzle/plan.h), Criterion.
 *
 *   - plan_smem is Swizzle<3,3,3> (BK = 64: chunk ^= row % 8) and Swizzle<2,3,3> (BK = 32:
 *     chunk ^= (row / 2) % 4) composed with the row-major tile: a bijection on each stage that
 *     keeps 16-byte chunks whole and permutes them only within their row;
 *   - for every variant's configuration, the kernel's ldmatrix addresses (layouts at the first
 *     load, then + whole-row blocks and the k-step XOR) equal the layouts at every load, the
 *     reads are conflict-free and the simulated ldmatrix delivers the mma.sync fragments;
 *   - the copy covers each tile once with conflict-free 16-byte stores, copy i at copy 0 plus
 *     whole rows; the kernel's copy count per K tile (NCOPY) is the layout's;
 *   - the same tiles without the swizzle conflict 4-way (BK 32) and 8-way (BK 64).
 */
#include "../lessons/06_swizzle/plan.h"
#include "plans_tc.h"

static tc_cfg cfg(int bm, int bn, int bk, int wm, int wn) {
    tc_cfg c;
    c.bm = bm;
    c.bn = bn;
    c.bk = bk;
    c.warps_m = wm;
    c.warps_n = wn;
    c.mma = plan_mma(wm, wn, bm, bn, bk);
    c.sA = plan_smem(bm, bk);
    c.sB = plan_smem(bn, bk);
    c.copy = plan_copy(32 * wm * wn, bk);
    c.kstep = plan_smem_kstep;
    c.kstep_b = plan_smem_kstep_b(16, bk);
    c.a_atom = plan_smem_rows(16, bk);
    c.b_atom = plan_smem_rows(8, bk);
    return c;
}
static int rows(int r, int bk) { return plan_smem_rows(r, bk); }

Test(plan06, swizzle_is_the_chunk_xor_and_a_bijection) {
    for (int bk = 32; bk <= 64; bk *= 2) {
        const lay_swizzled S = plan_smem(256, bk);
        cr_assert_eq(S.sw.b, bk == 64 ? 3 : 2);
        cr_assert(S.sw.m == 3 && S.sw.s == 3);
        static char hit[256 * 64];
        memset(hit, 0, sizeof hit);
        for (int r = 0; r < 256; ++r)
            for (int k = 0; k < bk; ++k) {
                const int o = (int)lay_swizzled_crd2idx2(S, r, k);
                const int ch = k / 8, want = bk == 64 ? ch ^ (r % 8) : ch ^ ((r / 2) % 4);
                cr_assert_eq(o, r * bk + 8 * want + k % 8, "bk %d (%d,%d)", bk, r, k);
                cr_assert_eq(hit[o], 0);
                hit[o] = 1;
            }
        /* whole row blocks of 8 rows are left alone: the kernel adds them as constants */
        for (int r0 = 0; r0 < 256; r0 += 8)
            for (int r = 0; r < 8; ++r)
                for (int k = 0; k < bk; k += 8)
                    cr_assert_eq(lay_swizzled_crd2idx2(S, r0 + r, k),
                                 plan_smem_rows(r0, bk) + lay_swizzled_crd2idx2(S, r, k));
    }
    cr_assert_eq(plan_smem_stage(128, 64), 128 * 64);
    cr_assert_eq(plan_smem_kstep_b(16, 64), 32u);
    cr_assert_eq(plan_smem_kstep(0x48u, 2, 32u), 0x08u);
}

Test(plan06, ldmatrix_128x256x64) {
    const tc_cfg c = cfg(128, 256, 64, 2, 4);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
}
Test(plan06, ldmatrix_128x128x64_and_128x128x32) {
    tc_cfg c = cfg(128, 128, 64, 2, 2);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
    c = cfg(128, 128, 32, 2, 2);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
}

Test(plan06, copies_cover_the_tiles_once_conflict_free) {
    /* NCOPY = (BM + BN) * BK / 8 / NT of the kernel: 12, 16, 8 */
    tc_cfg c = cfg(128, 256, 64, 2, 4);
    tc_check_copy(&c, 128, 4, rows);
    tc_check_copy(&c, 256, 8, rows);
    c = cfg(128, 128, 64, 2, 2);
    tc_check_copy(&c, 128, 8, rows);
    c = cfg(128, 128, 32, 2, 2);
    tc_check_copy(&c, 128, 4, rows);
}

Test(plan06, without_the_swizzle_ldmatrix_conflicts) {
    const lay_tiled_mma mma = plan_mma(2, 2, 128, 128, 64);
    for (int bk = 32; bk <= 64; bk *= 2) {
        const lay_layout plain = lay_l2(128, bk, bk, 1);
        int addr[32];
        for (int l = 0; l < 32; ++l) {
            int m, k;
            lay_tiled_ldmatrix_a_crd(&mma, 4, 0, l, 0, &m, &k);
            addr[l] = 2 * (int)lay_crd2idx2(plain, m, k);
        }
        cr_assert_eq(bank_wavefronts(addr), bk == 64 ? 32 : 16, "bk %d", bk);
    }
}

Test(plan06, accumulators_cover_c_once) {
    tc_cfg c = cfg(128, 256, 64, 2, 4);
    tc_check_c(&c);
}
