/* test_plans_08.c - CPU proofs for lesson 08's plan (lessons/08_dispatch/plan.h), Criterion.
 *
 *   - the K loop and the epilogue use lesson 07's layouts (checked again on 08's own header);
 *   - plan_raster is a bijection from the tile ids onto the tile grid, groups of 8 tile rows
 *     walked down first, a shorter last group included;
 *   - the persistent schedule: plan_persistent_ctas keeps the rounds of a full grid with the
 *     fewest CTAs; plan_persistent_tile / plan_persistent_count hand out every tile exactly
 *     once, round t's tiles in round t, each CTA's tiles a prefix of the rounds, and a CTA's
 *     tile column changes from round to round;
 *   - stream-K over the last round (plan_sk_*): every (tile, K tile) computed exactly once, the
 *     data-parallel tiles whole and first, each stream-K tile with one owner (the segment with
 *     K tile 0, its CTA's last), every other piece its CTA's first segment and among the
 *     owner's contributors, so no CTA waits before it has published its own piece;
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

Test(plan08, persistent_grid_keeps_the_rounds) {
    for (long long tiles = 0; tiles <= 1200; ++tiles)
        for (long long cap = 1; cap <= 140; ++cap) {
            const long long g = plan_persistent_ctas(tiles, cap);
            cr_assert(g >= 0 && g <= cap && g <= tiles, "%lld tiles, cap %lld -> %lld", tiles, cap,
                      g);
            if (tiles == 0) continue;
            const long long rounds = (tiles + cap - 1) / cap;
            cr_assert_eq((tiles + g - 1) / g, rounds, "%lld tiles, cap %lld", tiles, cap);
            if (g > 1) /* one CTA fewer would need another round */
                cr_assert_gt((tiles + g - 2) / (g - 1), rounds, "%lld tiles, cap %lld", tiles, cap);
        }
    cr_assert_eq(plan_persistent_ctas(512, 132), 128);  /* 4096^2 in 128x256 tiles */
    cr_assert_eq(plan_persistent_ctas(8192, 132), 131); /* 16384^2: 63 rounds */
    cr_assert_eq(plan_persistent_ctas(100, 132), 100);  /* fewer tiles than SMs */
    cr_assert_eq(plan_persistent_ctas(133, 132), 67);   /* 2 rounds */
}

Test(plan08, persistent_tiles_once_each) {
    static char hit[1300];
    const int shifts[] = {0, 8};
    for (int si = 0; si < 2; ++si)
        for (int tiles = 1; tiles <= 1200; tiles += 7)
            for (int cap = 1; cap <= 140; cap += 3) {
                const int g = (int)plan_persistent_ctas(tiles, cap), sh = shifts[si];
                const int rounds = (tiles + g - 1) / g;
                memset(hit, 0, sizeof hit);
                for (int b = 0; b < g; ++b) {
                    const int n = plan_persistent_count(b, g, tiles, sh);
                    cr_assert(n == rounds || n == rounds - 1, "%d tiles, g %d, b %d: %d", tiles, g,
                              b, n);
                    for (int t = 0; t < rounds; ++t) {
                        const int id = plan_persistent_tile(b, t, g, sh);
                        cr_assert(id >= t * g && id < (t + 1) * g); /* round t's tiles */
                        cr_assert_eq(id < tiles, t < n, "%d tiles, g %d, b %d, t %d", tiles, g, b,
                                     t); /* the CTA's tiles are the first n rounds */
                        if (id < tiles) {
                            cr_assert_eq(hit[id], 0, "tile %d twice", id);
                            hit[id] = 1;
                        }
                    }
                }
                for (int id = 0; id < tiles; ++id) cr_assert_eq(hit[id], 1, "tile %d missed", id);
            }
    /* 4095x4095 in 128x256 tiles (32 x 16, groups of 8 tile rows) on 128 CTAs: with shift 0
     * CTA 120 takes tile column 15, the partial one, in all 4 rounds; with shift 8 the 4
     * rounds give it 4 different columns */
    for (int sh = 0; sh <= 8; sh += 8) {
        int cols = 0, last = 0;
        for (int t = 0; t < 4; ++t) {
            int tm, tn;
            plan_raster(plan_persistent_tile(120, t, 128, sh), 32, 16, 8, &tm, &tn);
            cols |= 1 << tn;
            last += tn == 15;
        }
        cr_assert_eq(__builtin_popcount(cols), sh ? 4 : 1);
        cr_assert_eq(last, sh ? 1 : 4);
    }
}

/* Plays plan_sk through for one (tiles, ktiles, g): the properties of plan.h's comment. */
static void check_sk(int tiles, int kt, int g, int min_iters) {
    static unsigned char hit[40000];
    const plan_sk s = plan_sk_make(tiles, kt, g, 8, min_iters);
    cr_assert_leq((long long)tiles * kt, (long long)sizeof hit);
    memset(hit, 0, (size_t)tiles * kt);
    cr_assert(s.dp == tiles || (s.dp % g == 0 && tiles - s.dp < g), "%d %d %d", tiles, kt, g);
    for (int b = 0; b < g && s.dp < tiles; ++b) /* every range worth its partial sums */
        cr_assert_geq(plan_sk_begin(&s, b + 1) - plan_sk_begin(&s, b), min_iters);
    for (int b = 0; b < g; ++b) {
        const plan_sk_cta c = plan_sk_cta_of(&s, b);
        const int n = plan_sk_segments(&c, kt);
        int whole = 1, owns = 0; /* still in the data-parallel prefix; owns a split tile */
        for (int i = 0; i < n; ++i) {
            int id, k0, k1;
            plan_sk_segment(&c, kt, b, g, 8, i, &id, &k0, &k1);
            cr_assert(id >= 0 && id < tiles && 0 <= k0 && k0 < k1 && k1 <= kt,
                      "%d %d %d: b %d seg %d -> %d [%d,%d)", tiles, kt, g, b, i, id, k0, k1);
            for (int k = k0; k < k1; ++k) {
                cr_assert_eq(hit[id * kt + k], 0, "(%d, %d) twice", id, k);
                hit[id * kt + k] = 1;
            }
            if (id < s.dp) { /* data-parallel: whole, and before every stream-K segment */
                cr_assert(whole && k0 == 0 && k1 == kt);
                continue;
            }
            if (k0 > 0) /* a piece another CTA owns: this CTA's first stream-K segment */
                cr_assert_eq(i, c.whole, "%d %d %d: b %d's piece of %d is not its first", tiles, kt,
                             g, b, id);
            whole = 0;
            if (k0 > 0 || k1 == kt) continue;
            /* an owner with contributors: this CTA's last segment, and the contributors'
             * first segments continue its K tiles up to the tile's end */
            cr_assert_eq(i, n - 1);
            owns = 1;
            int covered = k1;
            for (int h = b + 1; h <= c.last; ++h) {
                const plan_sk_cta ch = plan_sk_cta_of(&s, h);
                int hid, h0, h1;
                plan_sk_segment(&ch, kt, h, g, 8, ch.whole, &hid, &h0, &h1);
                cr_assert(hid == id && h0 == covered, "%d %d %d: owner %d, h %d", tiles, kt, g, b,
                          h);
                covered = h1;
            }
            cr_assert_eq(covered, kt, "%d %d %d: tile %d not covered", tiles, kt, g, id);
        }
        if (!owns) cr_assert_eq(c.last, b);
    }
    for (int i = 0; i < tiles * kt; ++i) cr_assert_eq(hit[i], 1, "(%d, %d) missed", i / kt, i % kt);
}

Test(plan08, streamk_every_k_tile_once) {
    for (int tiles = 1; tiles <= 300; tiles += 13)
        for (int kt = 1; kt <= 70; kt += 23)
            for (int g = 1; g <= 140; g += 11) {
                check_sk(tiles, kt, g, 1);
                check_sk(tiles, kt, g, 8);
            }
    check_sk(512, 64, 132, 8); /* 4096^3 in 128x256x64 tiles: 396 whole, 116 x 64 split */
    check_sk(5, 1, 132, 1);    /* more CTAs than iterations: not split */
    check_sk(132, 64, 132, 8); /* whole rounds only */
    check_sk(133, 64, 132, 8); /* one tile left: 0.48 iterations a range, not split */
    cr_assert_eq(plan_sk_make(133, 64, 132, 8, 8).dp, 133);
    cr_assert_eq(plan_sk_make(135, 64, 132, 8, 1).dp, 132); /* 192 iterations for 132 */
    const plan_sk s = plan_sk_make(512, 64, 132, 8, 8);
    cr_assert_eq(s.dp, 396);
    cr_assert_eq(plan_sk_begin(&s, 1), 56); /* 116 * 64 / 132 = 56.24 iterations a CTA */
    const plan_sk_cta c0 = plan_sk_cta_of(&s, 0), c1 = plan_sk_cta_of(&s, 1);
    cr_assert_eq(plan_sk_segments(&c0, 64), 3 + 1);
    cr_assert_eq(plan_sk_segments(&c1, 64), 3 + 2);    /* [56, 112): 8 of tile 396, 48 of 397 */
    cr_assert(c0.last == 1 && c1.last == 2);           /* tile 397: 48 + 16 of CTA 2's */
    const plan_sk z = plan_sk_make(200, 0, 132, 8, 8); /* K = 0: the persistent rounds */
    cr_assert_eq(z.dp, 200);
    int sum = 0;
    for (int b = 0; b < 132; ++b) {
        const plan_sk_cta c = plan_sk_cta_of(&z, b);
        sum += plan_sk_segments(&c, 0);
    }
    cr_assert_eq(sum, 200);
}

Test(plan08, streamk_grid) {
    cr_assert_eq(plan_sk_ctas(512, 64, 132, 8), 132);
    cr_assert_eq(plan_sk_ctas(32, 64, 132, 8), 132);
    cr_assert_eq(plan_sk_ctas(32, 16, 132, 8), 64);
    cr_assert_eq(plan_sk_ctas(4, 4, 132, 8), 4);
    cr_assert_eq(plan_sk_ctas(0, 4, 132, 8), 1);
    for (int tiles = 1; tiles < 300; tiles += 7)
        for (int kt = 1; kt < 100; kt += 9) {
            const int g = plan_sk_ctas(tiles, kt, 132, 8);
            cr_assert(g >= 1 && g <= 132 && (g >= tiles || g == 132));
            const plan_sk s = plan_sk_make(tiles, kt, g, 8, 8);
            if (s.dp < tiles) cr_assert_geq(plan_sk_begin(&s, 1), 8);
        }
}

Test(plan08, streamk_slot_is_linear) {
    const lay_layout l = plan_sk_slot(256, 32);
    for (int t = 0; t < 256; ++t)
        for (int q = 0; q < 32; ++q)
            cr_assert_eq(lay_crd2idx2(l, t, q), lay_crd2idx2(l, t, 0) + lay_crd2idx2(l, 0, q));
    cr_assert_eq(lay_cosize(l), 256 * 32);
}

Test(plan08, persistent_smem) {
    const int stages = 3 * (plan_smem_stage(128, 64) + plan_smem_stage(256, 64)) * 2;
    const int staging = 8 * plan_cstage_size(64, 64) * 2;
    cr_assert_eq(stages + staging, 221184);
    cr_assert_leq(stages + staging, 227 * 1024);
}
