/* test_plans_07.c - CPU proofs for lesson 07's plan (lessons/07_epilogue/plan.h), Criterion.
 *
 * Everything lesson 06 proves holds for 07's K loop (the same plan_mma, plan_smem, plan_copy;
 * checked here again on 07's own header), plus the epilogue's staging of D:
 *   - the accumulator -> output remap is a layout: plan_cstage composed with the warp's C
 *     fragment TV layout (lay_composition), equal to what the kernel evaluates point by point;
 *   - the warp's fragment stores into its (64, 64 + 8) staging block are conflict-free both for
 *     2-byte outputs (4-byte stores: 1 wavefront, 8 without the pad) and for fp32 outputs
 *     (8-byte stores: 2 wavefronts, the least 256 bytes take; 8 without the pad); every element
 *     is written once, the pad never;
 *   - the 16-byte copies (plan_cstage_copy; out of the block to D, and into it from C when
 *     beta != 0) move whole row segments, 1 wavefront per 8-lane phase, and cover the block
 *     once, in PASSES = 64*64/(32*vec) passes (the epilogue's enum), for both element sizes;
 *   - the staging blocks of all warps fit in the pipeline's smem they overlay (fp32: exactly).
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

Test(plan07, fp32_fragment_stores_conflict_free_with_the_pad) {
    /* fp32 output: each lane stores its pair as 8 bytes (4 bytes per element) */
    const lay_tiled_mma mma = plan_mma(2, 4, 128, 256, 64);
    const lay_layout padded = plan_cstage(64, 64), plain = lay_l2(64, 64, 64, 1);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
            for (int h = 0; h < 2; ++h) {
                int ap[32], an[32];
                for (int l = 0; l < 32; ++l) {
                    int r, c;
                    lay_tiled_mma_c_crd(&mma, l, 2 * h + 4 * (i + 4 * j), &r, &c);
                    ap[l] = 4 * (int)lay_crd2idx2(padded, r, c);
                    an[l] = 4 * (int)lay_crd2idx2(plain, r, c);
                    cr_assert_eq(ap[l] % 8, 0, "8-byte aligned pair");
                }
                cr_assert_eq(bank_wavefronts64(ap), 2, "(%d,%d,%d)", i, j, h);
                cr_assert_eq(bank_wavefronts64(an), 8, "(%d,%d,%d)", i, j, h);
            }
}

Test(plan07, remap_is_the_staging_layout_composed_with_the_fragment_layout) {
    /* one warp's accumulators: the tiled MMA of one warp (its coordinates are the warp-local
     * ones the kernel uses: lay_tiled_mma_c_crd at lane < 32) */
    const lay_tiled_mma warp = plan_mma(1, 1, 64, 64, 64);
    const lay_tiled_mma cta = plan_mma(2, 4, 128, 256, 64);
    lay_layout tv, remap;
    cr_assert_eq(lay_tiled_mma_tv_c(&tv, &warp), LAY_OK); /* (lane, value) -> m + 64 n */
    cr_assert_eq(lay_size(tv), 32 * 128);
    /* the staging block as a function of the column-major index m + 64 n of the warp tile */
    cr_assert_eq(lay_composition(&remap, plan_cstage(64, 64), tv), LAY_OK);
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 128; ++v) {
            int m, n, mc, nc;
            lay_tiled_mma_c_crd(&warp, l, v, &m, &n);
            lay_tiled_mma_c_crd(&cta, l, v, &mc, &nc);
            cr_assert(m == mc && n == nc, "warp 0 of the CTA's tiled MMA");
            cr_assert_eq((int)lay_crd2idx(remap, l + 32 * v),
                         (int)lay_crd2idx2(plan_cstage(64, 64), m, n), "lane %d value %d", l, v);
        }
}

/* The 16-byte copies of a staging block of es-byte elements (es = 2: 8 halves per chunk,
 * es = 4: 4 floats): each 8-lane phase is 128 contiguous bytes of one row (1 wavefront, and
 * whole 128-byte pieces of a row of C), the block is covered once. */
static void check_copy(int es) {
    const int vec = 16 / es;
    const lay_tiled_copy cp = plan_cstage_copy(64, es);
    const lay_layout sC = plan_cstage(64, 64);
    cr_assert_eq(lay_tiled_copy_reps(cp, 64, 64), 64 * 64 / (32 * vec), "the epilogue's PASSES");
    static int seen[64][64];
    memset(seen, 0, sizeof seen);
    for (int it = 0; it < lay_tiled_copy_reps(cp, 64, 64); ++it) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
            int r, c;
            lay_tiled_copy_crd(cp, 64, 64, l, 0, it, &r, &c);
            cr_assert(r < 64 && c % vec == 0 && c + vec <= 64);
            for (int e = 0; e < vec; ++e) seen[r][c + e]++;
            addr[l] = es * (int)lay_crd2idx2(sC, r, c);
            cr_assert_eq(addr[l] % 16, 0);
            if (l % 8) { /* the 8 lanes of a phase: one 128-byte piece of one row */
                int r0, c0;
                lay_tiled_copy_crd(cp, 64, 64, l - 1, 0, it, &r0, &c0);
                cr_assert(r0 == r && c0 + vec == c, "es %d pass %d lane %d", es, it, l);
            }
        }
        cr_assert_eq(bank_wavefronts(addr), 4, "es %d pass %d", es, it);
    }
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 64; ++c) cr_assert_eq(seen[r][c], 1);
}

Test(plan07, copy_out_whole_rows_conflict_free_once) {
    check_copy(2); /* fp16 / bf16 output: 4 rows of 128 bytes per warp instruction */
    check_copy(4); /* fp32 output: 2 rows of 256 bytes */
    /* a warp instruction writes whole rows of the warp tile */
    int r0, c0, r31, c31;
    lay_tiled_copy_crd(plan_cstage_copy(64, 4), 64, 64, 0, 0, 0, &r0, &c0);
    lay_tiled_copy_crd(plan_cstage_copy(64, 4), 64, 64, 31, 0, 0, &r31, &c31);
    cr_assert(r0 == 0 && c0 == 0 && r31 == 1 && c31 == 60);
}

Test(plan07, staging_fits_in_the_stages) {
    /* 8 warps of 64x64 in 3 stages of (128 + 256) x 64; 4 warps in 128x128x64 s3, 128x128x32 s4 */
    cr_assert_leq(8 * plan_cstage_size(64, 64),
                  3 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)));
    cr_assert_leq(4 * plan_cstage_size(64, 64),
                  3 * (plan_smem_stage(128, 64) + plan_smem_stage(128, 64)));
    cr_assert_leq(4 * plan_cstage_size(64, 64),
                  4 * (plan_smem_stage(128, 32) + plan_smem_stage(128, 32)));
    /* fp32 output (the default tile only): 4 bytes per element, exactly the stages' bytes */
    cr_assert_eq(8 * plan_cstage_size(64, 64) * 4,
                 3 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)) * 2);
}
