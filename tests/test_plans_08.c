/* test_plans_08.c - CPU proofs for lesson 08's plan (lessons/08_dispatch/plan.h), Criterion.
 *
 *   - the K loop and the epilogue use lesson 07's layouts (checked again on 08's own header);
 *   - plan_raster is a bijection from the tile ids onto the tile grid, groups of 8 tile rows
 *     walked down first, a shorter last group included;
 *   - the persistent variant's smem (3 stages of 128x256x64 + 8 staging blocks) is the
 *     221,184 bytes of its variant table, within sm_90's 227 KiB per block.
 */
#include "../lessons/08_dispatch/plan.h"
#include "plans_tc.h"

Test(plan08, k_loop_and_epilogue_as_lesson_07) {
    tc_cfg c;
    c.bm = 128;
    c.bn = 256;
    c.bk = 64;
    c.warps_m = 2;
    c.warps_n = 4;
    c.mma = plan_mma(2, 4, 128, 256, 64);
    c.sA = plan_smem(128, 64);
    c.sB = plan_smem(256, 64);
    c.copy = plan_copy(256, 64);
    c.kstep = plan_smem_kstep;
    c.kstep_b = plan_smem_kstep_b(16, 64);
    c.a_atom = plan_smem_rows(16, 64);
    c.b_atom = plan_smem_rows(8, 64);
    tc_check_ldmatrix(&c, 0);
    tc_check_ldmatrix(&c, 1);
    tc_check_c(&c);
    cr_assert_eq(lay_tiled_copy_reps(plan_cstage_copy(64), 64, 64), 16);
}

Test(plan08, raster_is_a_bijection) {
    static const int shapes[][3] = {{1, 1, 8}, {32, 32, 8}, {33, 17, 8},
                                    {7, 5, 8}, {9, 3, 4},   {100, 1, 8}};
    for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int tm_n = shapes[s][0], tn_n = shapes[s][1], g = shapes[s][2];
        static char hit[100 * 100];
        memset(hit, 0, sizeof hit);
        for (int b = 0; b < tm_n * tn_n; ++b) {
            int tm, tn;
            plan_raster(b, tm_n, tn_n, g, &tm, &tn);
            cr_assert(tm >= 0 && tm < tm_n && tn >= 0 && tn < tn_n, "shape %u bid %d -> (%d,%d)", s,
                      b, tm, tn);
            cr_assert_eq(hit[tm * tn_n + tn], 0);
            hit[tm * tn_n + tn] = 1;
        }
    }
    /* the order: down a group's 8 rows first, then one tile column right */
    int tm, tn;
    plan_raster(7, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 7 && tn == 0);
    plan_raster(8, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 0 && tn == 1);
    plan_raster(128, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 8 && tn == 0);
}

Test(plan08, persistent_smem) {
    const int stages = 3 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)) * 2;
    const int staging = 8 * plan_cstage_size(64, 64) * 2;
    cr_assert_eq(stages + staging, 221184);
    cr_assert_leq(stages + staging, 227 * 1024);
}
