/* test_plans_07.c - CPU proofs for lesson 07's plan (lessons/07_epilogue/plan.h), Criterion.
 *
 * Everything lesson 06 proves holds for 07's K loop (the same plan_mma, plan_smem, plan_copy;
 * checked here again on 07's own header), plus the epilogue's C staging:
 *   - the warp's 4-byte fragment stores into its (64, 64 + 8) staging block are conflict-free
 *     (1 wavefront each) and would be 8-way without the pad; every element is written once;
 *   - the copy-out (plan_cstage_copy) reads whole 128-byte rows, 1 wavefront per 8-lane phase,
 *     covers the block once, in PASSES = 64*64/(32*8) passes (the kernel's enum);
 *   - the staging blocks of all warps fit in the pipeline's smem they overlay.
 */
#include "../lessons/07_epilogue/plan.h"
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

Test(plan07, k_loop_as_lesson_06) {
    const tc_cfg c = cfg(128, 256, 64, 2, 4);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
    tc_check_c(&c);
}

/* the 4-byte stores of accumulators c0c1 / c2c3 (h) of atom (i, j), lanes of warp 0 */
static int stage_store_wavefronts(lay_layout sC, lay_tiled_mma mma, int i, int j, int h, int mi) {
    int addr[32];
    for (int l = 0; l < 32; ++l) {
        int r, c;
        lay_tiled_mma_c_crd(&mma, l, 2 * h + 4 * (i + mi * j), &r, &c);
        addr[l] = 2 * (int)lay_crd2idx2(sC, r, c);
    }
    return bank_wavefronts32(addr);
}

Test(plan07, fragment_stores_conflict_free_with_the_pad) {
    const lay_tiled_mma mma = plan_mma(2, 4, 128, 256, 64);
    const lay_layout padded = plan_cstage(64, 64), plain = lay_l2(64, 64, 64, 1);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
            for (int h = 0; h < 2; ++h) {
                cr_assert_eq(stage_store_wavefronts(padded, mma, i, j, h, 4), 1, "(%d,%d,%d)", i, j,
                             h);
                cr_assert_eq(stage_store_wavefronts(plain, mma, i, j, h, 4), 8, "(%d,%d,%d)", i, j,
                             h);
            }
    /* every element of the block written once, the pad never */
    static int seen[64 * 72];
    memset(seen, 0, sizeof seen);
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 4 * 4 * 8; ++v) {
            int r, c;
            lay_tiled_mma_c_crd(&mma, l, v, &r, &c);
            seen[lay_crd2idx2(padded, r, c)]++;
        }
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 72; ++c)
            cr_assert_eq(seen[r * 72 + c], c < 64 ? 1 : 0, "(%d,%d)", r, c);
    cr_assert_eq(plan_cstage_size(64, 64), 64 * 72);
}

Test(plan07, copy_out_whole_rows_conflict_free_once) {
    const lay_tiled_copy out = plan_cstage_copy(64);
    const lay_layout sC = plan_cstage(64, 64);
    cr_assert_eq(lay_tiled_copy_reps(out, 64, 64), 64 * 64 / (32 * 8), "the kernel's PASSES");
    static int seen[64][64];
    memset(seen, 0, sizeof seen);
    for (int it = 0; it < lay_tiled_copy_reps(out, 64, 64); ++it) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
            int r, c;
            lay_tiled_copy_crd(out, 64, 64, l, 0, it, &r, &c);
            cr_assert(r < 64 && c % 8 == 0 && c + 8 <= 64);
            for (int e = 0; e < 8; ++e) seen[r][c + e]++;
            addr[l] = 2 * (int)lay_crd2idx2(sC, r, c);
            cr_assert_eq(addr[l] % 16, 0);
            if (l % 8) { /* 8 lanes = one 128-byte row of C */
                int r0, c0;
                lay_tiled_copy_crd(out, 64, 64, l - 1, 0, it, &r0, &c0);
                cr_assert(r0 == r && c0 + 8 == c);
            }
        }
        cr_assert_eq(bank_wavefronts(addr), 4, "pass %d", it);
    }
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 64; ++c) cr_assert_eq(seen[r][c], 1);
}

Test(plan07, staging_fits_in_the_stages) {
    /* 8 warps of 64x64 in 3 stages of (128 + 256) x 64; 4 warps in 128x128x64 s3, 128x128x32 s4 */
    cr_assert_leq(8 * plan_cstage_size(64, 64),
                  3 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)));
    cr_assert_leq(4 * plan_cstage_size(64, 64),
                  3 * (plan_smem_stage(128, 64) + plan_smem_stage(128, 64)));
    cr_assert_leq(4 * plan_cstage_size(64, 64),
                  4 * (plan_smem_stage(128, 32) + plan_smem_stage(128, 32)));
}
