/* test_dispatch_08.c - CPU proofs for lesson 08's registry and dispatcher
 * (lessons/08_dispatch/dispatch.h), Criterion. The device is the H200 of disp_device_default
 * (132 SMs, 227 KiB per CTA, the registry's CTAs per SM).
 *
 *   - the registry: unique names, smem as plan.h computes it and within the GPU, CTAs per SM
 *     that the smem allows, threads and register caps;
 *   - which configuration (split, orientation, rule) each shape of the suite
 *     (plots/data/shapes.txt), the tuning run's shapes off it and a few more get; T8 against
 *     T9 around its wave borders (tiles per SM, the last wave's fill);
 *   - rule R1's copies: K zero-padded to a multiple of 8, and the rules pick for that padded
 *     problem (the split it gets, no K tile of pad alone);
 *   - every shape of a grid over 1..65536 in every layout, dtype and alignment gets a
 *     configuration that accepts it (disp_refusal says NULL for what it will run);
 *   - the split-K partition: every (tile, K tile) pair computed exactly once, no split empty;
 *   - every rule is a row of the lesson's README table; --explain's line names the rule.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../lessons/08_dispatch/dispatch.h"
#include "problem_08.h"

static disp_device dev(void) { return disp_device_default(); }

Test(registry, names_smem_and_occupancy) {
    cr_assert_gt(DISP_NCONFIGS, 0);
    for (int i = 0; i < DISP_NCONFIGS; ++i) {
        const disp_config *c = &disp_configs[i];
        cr_assert_eq(disp_find(c->name), i, "%s: names must be unique", c->name);
        const long long smem = disp_smem_bytes(c);
        cr_assert_leq(smem, 227 * 1024, "%s: %lld bytes of smem", c->name, smem);
        /* the SM's 228 KiB hold ctas_per_sm CTAs, each with 1 KiB reserved */
        cr_assert_geq(c->ctas_per_sm, 1, "%s", c->name);
        cr_assert_leq(c->ctas_per_sm * (smem + 1024), 228 * 1024, "%s: %d CTAs of %lld bytes",
                      c->name, c->ctas_per_sm, smem);
        cr_assert_leq(disp_threads(c), 1024);
        cr_assert_leq(c->ctas_per_sm * disp_threads(c), 2048, "%s: threads per SM", c->name);
        cr_assert_geq(c->ctas_per_sm, c->min_blocks, "%s: launch bounds promise %d CTAs", c->name,
                      c->min_blocks);
        cr_assert(c->dtypes != 0 && (c->dtypes & ~(unsigned)GEMM_DT_ALL) == 0);
        cr_assert(c->split == 1 || c->sched == DISP_SPLITK, "%s: only split-K splits", c->name);
        cr_assert_leq(c->split, DISP_MAX_SPLIT);
        cr_assert(c->bm % (16 * c->warps_m) == 0 || c->kind == DISP_SIMT, "%s", c->name);
    }
    /* the smem the persistent kernel was measured with: 3 stages of 128x256x64 + 8 staging
     * blocks (tests/test_plans_08.c computes the same from plan.h) */
    cr_assert_eq(disp_smem_bytes(&disp_configs[disp_find("128x256x64_s3_persistent")]), 221184);
    cr_assert_eq(disp_smem_bytes(&disp_configs[disp_find("128x256x64_s3")]), 147456);
    cr_assert_eq(disp_smem_bytes(&disp_configs[disp_find("128x128x64_s3")]), 98304);
    cr_assert_eq(disp_smem_bytes(&disp_configs[disp_find("128x128x32_s4")]), 65536);
}

/* the expected choice of one shape */
typedef struct {
    int m, n, k;
    gemm_dtype dt;
    gemm_layout l;
    const char *cfg;
    int split; /* 0: do not check */
    int transposed;
    const char *rule; /* "R1 T9": copied K-major first (rule R1), then rule T9 picked */
} want;

static void check_want(const want *w) {
    const disp_device d = dev();
    gemm_problem p = problem(w->m, w->n, w->k, w->dt, w->l, 0, 0);
    disp_choice c;
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert_str_eq(disp_configs[c.cfg].name, w->cfg, "%dx%dx%d %d: %s, want %s", w->m, w->n, w->k,
                     (int)w->dt, disp_configs[c.cfg].name, w->cfg);
    if (w->split)
        cr_assert_eq(c.split, w->split, "%dx%dx%d: split %d, want %d", w->m, w->n, w->k, c.split,
                     w->split);
    cr_assert_eq(c.transposed, w->transposed, "%dx%dx%d: transposed %d", w->m, w->n, w->k,
                 c.transposed);
    cr_assert(c.rule >= 0, "%dx%dx%d: picked by the fallback", w->m, w->n, w->k);
    const int repack = !strncmp(w->rule, "R1 ", 3);
    cr_assert_eq(c.repack, repack, "%dx%dx%d: repack %d", w->m, w->n, w->k, c.repack);
    cr_assert_str_eq(disp_rules[c.rule].id, w->rule + 3 * repack, "%dx%dx%d: rule %s, want %s",
                     w->m, w->n, w->k, disp_rules[c.rule].id, w->rule);
}

/* Operands the 16-byte copy cannot take: copied K-major first (R1) when they fit the
 * workspace, the generic path (T1) when they do not. */
Test(choose, other_layouts_and_unaligned_operands) {
    static const want ws[] = {
        {4096, 4096, 4096, GEMM_FP16, GEMM_NN, "128x256x64_s3_persistent", 1, 0, "R1 T9"},
        {4096, 4096, 4096, GEMM_BF16, GEMM_NT, "128x256x64_s3_persistent", 1, 0, "R1 T9"},
        {16, 4096, 4096, GEMM_FP16, GEMM_TT, "16x128x64_s4_splitk", 12, 0, "R1 T2"},
        {4096, 16, 4096, GEMM_FP16, GEMM_NT, "16x128x64_s4_splitk", 12, 1, "R1 T4"},
        {127, 127, 127, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "R1 T6"},
        {8192, 8192, 8192, GEMM_FP16, GEMM_NN, "128x256x64_s3_persistent", 1, 0, "R1 T9"},
        {16384, 8192, 8192, GEMM_FP16, GEMM_NN, "128x128x64_s3", 1, 0, "T1"}, /* 384 MiB */
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
    const disp_device d = dev();
    gemm_problem p = problem(4096, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 1); /* one element off */
    disp_choice c;
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert(c.repack && !strcmp(disp_rules[c.rule].id, "T9"));
    /* the copies: K-major and dense, K zero-padded to a multiple of 8 (the ld too), each
     * 256-byte aligned in the workspace */
    cr_assert_eq(disp_repack_k(4093), 4096);
    cr_assert_eq(disp_repack_k(8), 8);
    cr_assert_eq(disp_repack_k(1), 8);
    cr_assert_eq(disp_repack_ld(4093), 4096);
    cr_assert_eq(disp_repack_ld(8), 8);
    cr_assert_eq(disp_repack_bytes(1, 1, 1), 512);
    cr_assert_eq(disp_repack_bytes(4093, 4093, 4093), 2LL * 4093 * 4096 * 2 + 2 * 0);
    cr_assert_eq(disp_repack_bytes(1000, 33, 999), 2000128 + 66048); /* 2*1000*1000, 2*33*1000 */
    const gemm_problem q = disp_repacked(&p);
    cr_assert(q.a_kmajor && q.b_kmajor && q.lda == 4096 && q.ldb == 4096 && disp_fast_path(&q));
    cr_assert_eq(q.k, 4096, "the copies' K: %d", q.k);
    cr_assert(q.m == 4096 && q.n == 4096 && q.C == p.C && q.ldc == p.ldc && q.layout == GEMM_TN);
}

/* Rule R1 pads K to a multiple of 8 and the rules pick for the padded problem: what they see,
 * the split they give it and what runs is the choice for a TN problem of K8 with aligned
 * leading dimensions (the copies). */
Test(choose, r1_rules_see_the_padded_k) {
    const disp_device d = dev();
    static const struct {
        int m, n, k;
        gemm_layout l;
        int pad, offset;
    } ps[] = {
        {4093, 4093, 4093, GEMM_TN, 0, 0}, {16, 4096, 1020, GEMM_NN, 0, 0},
        {127, 129, 67, GEMM_NT, 0, 0},     {1, 705, 65, GEMM_TT, 0, 0},
        {1000, 1000, 1001, GEMM_TN, 0, 0}, {4096, 16, 4100, GEMM_NN, 0, 0},
        {1000, 33, 999, GEMM_TN, 3, 1},    {512, 512, 7, GEMM_NT, 0, 0},
        {3069, 3070, 3071, GEMM_NN, 0, 0},
    };
    for (unsigned i = 0; i < sizeof ps / sizeof ps[0]; ++i) {
        const gemm_problem p =
            problem(ps[i].m, ps[i].n, ps[i].k, GEMM_FP16, ps[i].l, ps[i].pad, ps[i].offset);
        disp_choice c;
        cr_assert_eq(disp_choose(&p, &d, &c), 0);
        cr_assert(c.repack, "%dx%dx%d: no copies", p.m, p.n, p.k);
        const int k8 = (p.k + 7) / 8 * 8;
        const gemm_problem q = disp_choice_problem(&p, &c);
        cr_assert_eq(q.k, k8, "%dx%dx%d: the configuration runs K = %d, want %d", p.m, p.n, p.k,
                     q.k, k8);
        cr_assert(q.lda == k8 && q.ldb == k8);
        /* the same choice as the rules make for the copies themselves */
        const gemm_problem tn = problem(p.m, p.n, k8, GEMM_FP16, GEMM_TN, 0, 0);
        disp_choice w;
        cr_assert_eq(
            disp_choose_rules(&tn, &d, DISP_WS_BYTES - disp_repack_bytes(p.m, p.n, p.k), &w), 0);
        cr_assert(c.cfg == w.cfg && c.split == w.split && c.transposed == w.transposed &&
                      c.rule == w.rule,
                  "%dx%dx%d: %s split %d, the rules on %dx%dx%d give %s split %d", p.m, p.n, p.k,
                  disp_configs[c.cfg].name, c.split, p.m, p.n, k8, disp_configs[w.cfg].name,
                  w.split);
    }
    /* the padded K moves the split: 16x4096x1020 NN splits K = 1024 four ways (1020 would
     * allow 3 of DISP_MIN_SPLIT_K_TC = 256) */
    gemm_problem p = problem(16, 4096, 1020, GEMM_FP16, GEMM_NN, 0, 0);
    disp_choice c;
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert(c.repack && c.split == 4 && !strcmp(disp_rules[c.rule].id, "T2"), "split %d",
              c.split);
    /* 4093^3: the rules see 4093x4093x4096 and take T9 */
    p = problem(4093, 4093, 4093, GEMM_BF16, GEMM_TN, 0, 0);
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert(c.repack && c.split == 1 && !strcmp(disp_rules[c.rule].id, "T9"));
    cr_assert_eq(disp_choice_problem(&p, &c).k, 4096);
    /* every TC tile's BK is a multiple of 8: K8 has the K tiles of K, none of pad alone */
    for (int ci = 0; ci < DISP_NCONFIGS; ++ci) {
        if (disp_configs[ci].kind != DISP_TC) continue;
        const int bk = disp_configs[ci].bk;
        cr_assert_eq(bk % 8, 0, "%s", disp_configs[ci].name);
        for (int k = 1; k <= 4 * bk + 9; ++k)
            cr_assert_eq(disp_ceil(disp_repack_k(k), bk), disp_ceil(k, bk), "%s K %d",
                         disp_configs[ci].name, k);
    }
}

/* The suite (plots/data/shapes.txt) in fp16 TN, on the H200 of disp_device_default. */
static const want suite[] = {
    {16, 4096, 4096, GEMM_FP16, GEMM_TN, "16x128x64_s4_splitk", 12, 0, "T2"},
    {64, 4096, 4096, GEMM_FP16, GEMM_TN, "64x128x64_s3_splitk", 8, 0, "T3"},
    {128, 4096, 4096, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 8, 0, "T7"},
    {128, 14336, 4096, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},
    {512, 512, 512, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "T6"},
    {1024, 1024, 1024, GEMM_FP16, GEMM_TN, "64x128x64_s3", 1, 0, "T6"},
    {2048, 2048, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},
    {4096, 4096, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {8192, 8192, 8192, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {1024, 1024, 16384, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 4, 0, "T7"},
    {8192, 1024, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {4096, 4096, 1024, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {8192, 8192, 1024, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {2048, 14336, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {4096, 4096, 4104, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    {4093, 4093, 4093, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "R1 T9"}, /* odd lda */
};
#define NSUITE ((int)(sizeof suite / sizeof suite[0]))

Test(choose, the_shape_suite) {
    for (int i = 0; i < NSUITE; ++i) check_want(&suite[i]);
}

/* plots/data/shapes.txt is the suite above, shape for shape. */
Test(choose, the_suite_file_is_the_tested_suite) {
    FILE *f = fopen("plots/data/shapes.txt", "r");
    cr_assert_not_null(f, "run from the repository root");
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        int m, nn, k;
        cr_assert_eq(sscanf(line, "%dx%dx%d", &m, &nn, &k), 3, "bad line: %s", line);
        cr_assert_lt(n, NSUITE, "shapes.txt has more shapes than the test");
        cr_assert(suite[n].m == m && suite[n].n == nn && suite[n].k == k, "shape %d: %s", n, line);
        ++n;
    }
    fclose(f);
    cr_assert_eq(n, NSUITE);
}

/* The suite in fp32 (lesson 04's SIMT kernel, split or not). */
Test(choose, the_shape_suite_fp32) {
    static const want ws[] = {
        {16, 4096, 4096, GEMM_FP32, GEMM_TN, "simt_32x64x8_2w", 12, 0, "F1"},
        {64, 4096, 4096, GEMM_FP32, GEMM_TN, "simt_32x64x8_2w", 6, 0, "F1"},
        {128, 4096, 4096, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 8, 0, "F3"},
        {128, 14336, 4096, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 2, 0, "F3"},
        {512, 512, 512, GEMM_FP32, GEMM_TN, "simt_32x64x8_2w", 4, 0, "F1"},
        {1024, 1024, 1024, GEMM_FP32, GEMM_TN, "simt_32x64x8_2w", 1, 0, "F1"},
        {2048, 2048, 2048, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 1, 0, "F4"},
        {4096, 4096, 4096, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 1, 0, "F4"},
        {1024, 1024, 16384, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 4, 0, "F3"},
        {8192, 1024, 4096, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 1, 0, "F4"},
        {4093, 4093, 4093, GEMM_FP32, GEMM_TN, "simt_128x128x8_4w", 1, 0, "F4"},
        {4096, 8, 4096, GEMM_FP32, GEMM_NN, "simt_32x64x8_2w", 12, 1, "F2"},
        {1, 1, 1, GEMM_FP32, GEMM_TT, "simt_32x64x8_2w", 1, 0, "F1"},
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
}

/* Past the suite: other small M, the transposed small N, big K with small M*N. */
Test(choose, small_m_small_n_and_deep_k) {
    static const want ws[] = {
        {1, 4096, 4096, GEMM_BF16, GEMM_TN, "16x128x64_s4_splitk", 12, 0, "T2"},
        {8, 11008, 4096, GEMM_FP16, GEMM_TN, "16x128x64_s4_splitk", 4, 0, "T2"},
        {32, 4096, 11008, GEMM_FP16, GEMM_TN, "64x128x64_s3_splitk", 8, 0, "T3"},
        {16, 65536, 4096, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "T2"}, /* 512 tiles */
        {4096, 16, 4096, GEMM_FP16, GEMM_TN, "16x128x64_s4_splitk", 12, 1, "T4"},
        {4096, 1, 704, GEMM_FP16, GEMM_TN, "16x128x64_s4_splitk", 2, 1, "T4"},
        {14336, 48, 4096, GEMM_BF16, GEMM_TN, "64x128x64_s3_splitk", 2, 1, "T5"},
        {256, 256, 65536, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 16, 0, "T7"},
        {96, 96, 96, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "T6"}, /* 1 tile of 128x128 */
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
}

/* K <= DISP_NO_SPLIT_K_TC: no Tensor Core split (K = 512 was the one such K that 256 of K per
 * split let split, in 2), so the split-K rows run as their unsplit twins; one K tile more
 * splits again. fp32's SIMT splits keep their own minimum. */
Test(choose, no_tc_split_at_short_k) {
    static const want ws[] = {
        {16, 4096, 512, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "T2"},
        {64, 2048, 512, GEMM_BF16, GEMM_TN, "64x128x64_s3", 1, 0, "T3"},
        {64, 2048, 576, GEMM_FP16, GEMM_TN, "64x128x64_s3_splitk", 2, 0, "T3"},
        {4096, 1, 512, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 1, "T4"},
        {64, 4096, 512, GEMM_FP32, GEMM_TN, "simt_32x64x8_2w", 4, 0, "F1"},
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
    const disp_device d = disp_device_default();
    for (int ci = 0; ci < DISP_NCONFIGS; ++ci)
        if (disp_configs[ci].kind == DISP_TC && disp_configs[ci].split == 0)
            for (int k = 1; k <= DISP_NO_SPLIT_K_TC; k += 37)
                cr_assert_eq(disp_split_for(ci, 16, 1024, k, &d, DISP_WS_BYTES), 1, "%s K %d",
                             disp_configs[ci].name, k);
}

/* The tuning run's seven shapes off the suite (notes/perf.md run 11-2), fp16 TN. */
static const want tune_extra[] = {
    {32, 4096, 4096, GEMM_FP16, GEMM_TN, "64x128x64_s3_splitk", 8, 0, "T3"},
    {256, 4096, 4096, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 4, 0, "T7"},
    {768, 768, 768, GEMM_FP16, GEMM_TN, "64x128x64_s3", 1, 0, "T6"},
    {1536, 1536, 1536, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 72 tiles */
    {3072, 3072, 3072, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 288: 2.18/SM */
    {4096, 11008, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 1376 */
    {96, 8192, 8192, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 0, 0, "T7"},        /* M > 64 */
};

Test(choose, the_tuning_runs_shapes_off_the_suite) {
    for (unsigned i = 0; i < sizeof tune_extra / sizeof tune_extra[0]; ++i)
        check_want(&tune_extra[i]);
}

/* T8 against T9: 128x256 tiles per SM (132 SMs, one persistent CTA each). Under one tile per SM,
 * or under 5 with the last wave at most half full (<= 66 of 132 CTAs), 128x128x64_s3; else the
 * persistent kernel. Shapes BLK_M x BLK_N multiples, so tiles = (M/128) * (N/256). */
Test(choose, t7_takes_few_waves_with_a_sparse_last_wave) {
    static const want ws[] = {
        {2048, 2048, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 128: 0.97 */
        {1536, 2816, 2048, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 132 */
        {896, 4864, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},  /* 133: 1 + 1 */
        {1408, 4608, 2048, GEMM_BF16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 198: 1 + 66 */
        {1280, 5120, 2048, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 200 */
        {8192, 1024, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 256 */
        {1024, 8448, 2048, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 264 */
        {640, 13568, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 265: 2 + 1 */
        {3072, 3072, 3072, GEMM_BF16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 288: 2 + 24 */
        {1920, 5632, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 330: 2 + 66 */
        {512, 21248, 2048, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 332 */
        {2048, 6400, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"}, /* 400: 3 + 4 */
        {4096, 3328, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_streamk", 1, 0, "SK"},    /* 3 + 20 */
        {4096, 4096, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 512 */
        {4608, 4096, 4096, GEMM_BF16, GEMM_TN, "128x256x64_s3_streamk", 1, 0, "SK"},    /* 4 + 48 */
        {4608, 4352, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 612 */
        {5632, 4096, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"}, /* 704 */
        {3069, 3070, 3071, GEMM_FP16, GEMM_NN, "128x128x64_s3", 1, 0, "R1 T8"},         /* copies */
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
    /* the count is the GPU's: on 100 SMs 3072^3's 288 tiles are 2.88 waves, the last one 88 of
     * 100 full, which the persistent kernel keeps */
    cr_assert(disp_t8_waves(288, 132) && !disp_t8_waves(288, 100));
    cr_assert(disp_t8_waves(99, 100) && !disp_t8_waves(100, 100) && disp_t8_waves(150, 100));
    cr_assert(!disp_t8_waves(151, 100) && !disp_t8_waves(200, 100) && disp_t8_waves(250, 100));
    cr_assert(!disp_t8_waves(251, 100) && disp_t8_waves(301, 100) && disp_t8_waves(450, 100));
    cr_assert(!disp_t8_waves(351, 100) && !disp_t8_waves(400, 100) && !disp_t8_waves(501, 100));
}

/* SK inside T8's class: K >= 4096, at least one full wave of 128x256 tiles, fewer than 5 per
 * SM, the last wave at most 3/8 of the SMs (49 of 132); the forced stream-K configuration
 * declines other layouts and epilogues, and the rules go on. */
Test(choose, sk_takes_a_short_last_wave_at_long_k) {
    static const want ws[] = {
        {2048, 2560, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_streamk", 1, 0, "SK"}, /* 1 + 28 */
        {3072, 3072, 4096, GEMM_BF16, GEMM_TN, "128x256x64_s3_streamk", 1, 0, "SK"}, /* 2 + 24 */
        {4224, 4352, 8192, GEMM_FP16, GEMM_TN, "128x256x64_s3_streamk", 1, 0, "SK"}, /* 4 + 33 */
        {3072, 3072, 2048, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},         /* short K */
        {3072, 2048, 4096, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},         /* 1 + 60 */
        {4096, 2560, 4096, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},         /* 2 + 56 */
        {1024, 1024, 16384, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 4, 0, "T7"}, /* 32 */
        {3072, 3072, 4096, GEMM_FP16, GEMM_NT, "128x256x64_s3_streamk", 1, 0, "R1 SK"},
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
    cr_assert(disp_sk_waves(160, 132) && disp_sk_waves(181, 132) && !disp_sk_waves(182, 132));
    cr_assert(!disp_sk_waves(131, 132) && !disp_sk_waves(132, 132) && !disp_sk_waves(660, 132));
    gemm_problem p = problem(3072, 3072, 4096, GEMM_FP16, GEMM_TN, 0, 0);
    p.epilogue = GEMM_EPI_BIAS_GELU; /* stream-K's kernel has no fused epilogue: T8 declines
                                        too, T9 fuses it */
    disp_choice c;
    const disp_device d = dev();
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert_str_eq(disp_configs[c.cfg].name, "128x256x64_s3_persistent");
}

/* T6 against T7 and T8 (132 SMs): T6 takes fewer 128x128 tiles than half the SMs (65, not 66)
 * with K <= 2048, with 64-row tiles when they number at least half the SMs (66), else 16-row
 * ones; a longer K is T7's split, 66 tiles or more T8's. A split-K configuration whose split
 * comes out 1 is named by its unsplit twin. */
Test(choose, t6_borders) {
    static const want ws[] = {
        {1024, 1024, 2048, GEMM_FP16, GEMM_TN, "64x128x64_s3", 1, 0, "T6"},
        {1024, 1024, 2056, GEMM_FP16, GEMM_TN, "128x128x32_s4_splitk", 4, 0, "T7"},
        {640, 1664, 1024, GEMM_BF16, GEMM_TN, "64x128x64_s3", 1, 0, "T6"},     /* 65 tiles */
        {768, 1408, 1024, GEMM_BF16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},    /* 66 tiles */
        {768, 1408, 8192, GEMM_FP16, GEMM_TN, "128x128x64_s3", 1, 0, "T8"},    /* 66, deep K */
        {704, 768, 512, GEMM_FP16, GEMM_TN, "64x128x64_s3", 1, 0, "T6"},       /* 66 of 64x128 */
        {832, 640, 512, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "T6"},       /* 65 of 64x128 */
        {65, 65, 1, GEMM_FP16, GEMM_TN, "16x128x64_s4", 1, 0, "R1 T6"},        /* K padded to 8 */
        {1000, 1000, 1000, GEMM_FP16, GEMM_NT, "64x128x64_s3", 1, 0, "R1 T6"}, /* the copies */
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
    /* the SMs are the GPU's: with 64, 1024^2's 64 tiles are not fewer than half of them */
    disp_device d = dev();
    d.sms = 64;
    gemm_problem p = problem(1024, 1024, 1024, GEMM_FP16, GEMM_TN, 0, 0);
    disp_choice c;
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert_str_eq(disp_rules[c.rule].id, "T8");
    p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0); /* 16 tiles: 32 of 64x128 */
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert_str_eq(disp_configs[c.cfg].name, "64x128x64_s3");
    /* twins: the same kernel, the split fixed at 1 */
    const int s = disp_find("64x128x64_s3_splitk"), u = disp_find("64x128x64_s3");
    cr_assert(s >= 0 && u >= 0 && disp_unsplit_twin(s) == u && disp_unsplit_twin(u) == u);
    cr_assert_eq(disp_unsplit_twin(disp_find("16x128x64_s4_splitk")), disp_find("16x128x64_s4"));
    const int k = disp_find("128x128x32_s4_splitk"); /* 128x128x32_s4 is another schedule */
    cr_assert_eq(disp_unsplit_twin(k), k);
}

/* Every split the dispatcher picks computes every (tile, K tile) pair of the problem exactly
 * once: simulate the (tiles, splits) grid of each split-K choice over the extents grid. */
Test(splitk, the_grid_of_every_choice_covers_every_tile_and_k_tile_once) {
    const disp_device d = dev();
    static unsigned char hit[1 << 22];
    static const int ms[] = {1, 16, 17, 64, 100, 128, 129, 512, 1000, 4096};
    static const int ks[] = {1, 63, 64, 65, 256, 705, 4096, 16384};
    int checked = 0;
    for (int l = 0; l < 2; ++l) /* TN (odd K: odd lda, R1's copies); NN: R1's copies always */
        for (unsigned a = 0; a < sizeof ms / sizeof ms[0]; ++a)
            for (unsigned b = 0; b < sizeof ms / sizeof ms[0]; ++b)
                for (unsigned kk = 0; kk < sizeof ks / sizeof ks[0]; ++kk) {
                    gemm_problem p =
                        problem(ms[a], ms[b], ks[kk], GEMM_FP16, l ? GEMM_NN : GEMM_TN, 0, 0);
                    disp_choice c;
                    cr_assert_eq(disp_choose(&p, &d, &c), 0);
                    cr_assert_eq(c.repack, !disp_fast_path(&p));
                    if (c.split == 1) continue;
                    const disp_config *cf = &disp_configs[c.cfg];
                    const gemm_problem q = disp_choice_problem(&p, &c);
                    cr_assert_eq(q.k, c.repack ? (p.k + 7) / 8 * 8 : p.k);
                    const long long tiles = disp_tiles(cf, q.m, q.n), kt = disp_ceil(q.k, cf->bk);
                    /* the padded K has the K tiles of K: no split is pad alone */
                    cr_assert_eq(kt, disp_ceil(p.k, cf->bk), "%dx%dx%d: %lld K tiles", p.m, p.n,
                                 p.k, kt);
                    cr_assert_leq(tiles * kt, (long long)sizeof hit);
                    memset(hit, 0, (size_t)(tiles * kt));
                    for (long long t = 0; t < tiles; ++t)
                        for (int s = 0; s < c.split; ++s) { /* CTA (t, s) of the grid */
                            int kt0, kt1;
                            plan_split((int)kt, c.split, s, &kt0, &kt1);
                            cr_assert(kt0 < kt1);
                            for (int k = kt0; k < kt1; ++k) ++hit[t * kt + k];
                        }
                    for (long long e = 0; e < tiles * kt; ++e)
                        cr_assert_eq(hit[e], 1,
                                     "%dx%dx%d split %d: (tile, K tile) %lld done %d times", p.m,
                                     p.n, p.k, c.split, e, hit[e]);
                    /* the workspace holds every slice */
                    cr_assert_leq((long long)c.split * q.m * q.n * 4, DISP_WS_BYTES);
                    ++checked;
                }
    cr_assert_gt(checked, 40);
}

Test(choose, large_tn_problems_take_the_persistent_kernel) {
    static const want ws[] = {
        {4096, 4096, 4096, GEMM_FP16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
        {8192, 8192, 8192, GEMM_BF16, GEMM_TN, "128x256x64_s3_persistent", 1, 0, "T9"},
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want(&ws[i]);
}

/* Extents of the "every shape" grid: edges of every tile size, odd and huge values. */
static const int extents[] = {1,    2,    7,    8,    9,     15,    16,    17,    31,   32,  33,
                              63,   64,   65,   100,  127,   128,   129,   255,   256,  257, 1000,
                              2048, 4093, 4096, 4104, 14336, 16384, 32768, 65535, 65536};
#define NEXT ((int)(sizeof extents / sizeof extents[0]))

Test(choose, every_shape_layout_dtype_and_alignment_gets_a_configuration_that_accepts_it) {
    const disp_device d = dev();
    long long n = 0, want_n = 0;
    char why[256];
    unsigned dts = 0; /* the dtypes the default variant claims: what some configuration computes */
    for (int i = 0; i < DISP_NCONFIGS; ++i) dts |= disp_configs[i].dtypes;
    cr_assert_eq(dts, GEMM_DT_ALL, "every dtype has a configuration");
    for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
        if (dts & GEMM_DT_BIT(dt)) want_n += 4LL * 3 * NEXT * NEXT * NEXT;
    for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
        if (dts & GEMM_DT_BIT(dt))
            for (int l = 0; l < GEMM_NLAYOUTS; ++l)
                for (int al = 0; al < 3; ++al) /* aligned, pad 1, offset 1 */
                    for (int i = 0; i < NEXT; ++i)
                        for (int j = 0; j < NEXT; ++j)
                            for (int k = 0; k < NEXT; ++k) {
                                gemm_problem p =
                                    problem(extents[i], extents[j], extents[k], (gemm_dtype)dt,
                                            (gemm_layout)l, al == 1, al == 2);
                                disp_choice c;
                                cr_assert_eq(disp_choose(&p, &d, &c), 0, "%dx%dx%d dt %d layout %d",
                                             p.m, p.n, p.k, dt, l);
                                const gemm_problem q = disp_choice_problem(&p, &c);
                                /* the workspace holds the copies and the partial sums */
                                const long long rb =
                                    c.repack ? disp_repack_bytes(p.m, p.n, p.k) : 0;
                                if (c.transposed || c.split > 1)
                                    cr_assert_leq(rb + 4LL * c.split * q.m * q.n, DISP_WS_BYTES);
                                cr_assert_leq(rb, DISP_WS_BYTES);
                                if (c.repack)
                                    cr_assert(p.dtype != GEMM_FP32 && !disp_fast_path(&p) &&
                                              q.k == disp_repack_k(p.k) && q.k % 8 == 0);
                                else cr_assert_eq(q.k, p.k);
                                const char *r = disp_refusal(&disp_configs[c.cfg], &q, c.split, &d,
                                                             why, sizeof why);
                                cr_assert_null(r, "%dx%dx%d dt %d layout %d: %s refuses: %s", p.m,
                                               p.n, p.k, dt, l, disp_configs[c.cfg].name, r);
                                cr_assert(c.rule >= 0, "%dx%dx%d: no rule took it", p.m, p.n, p.k);
                                ++n;
                            }
    cr_assert_eq(n, want_n);
}

Test(choose, a_gpu_with_less_smem_gets_tiles_that_fit) {
    disp_device d = dev();
    d.smem_optin = 99 * 1024; /* sm_86 / sm_89 */
    gemm_problem p = problem(4096, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0);
    disp_choice c;
    cr_assert_eq(disp_choose(&p, &d, &c), 0);
    cr_assert_leq(disp_smem_bytes(&disp_configs[c.cfg]), 99 * 1024, "%s", disp_configs[c.cfg].name);
}

Test(refusal, one_line_reasons) {
    const disp_device d = dev();
    char why[256];
    gemm_problem p = problem(64, 64, 64, GEMM_FP32, GEMM_TN, 0, 0);
    const disp_config *tc = &disp_configs[disp_find("128x128x64_s3")];
    cr_assert_str_eq(disp_refusal(tc, &p, 1, &d, why, sizeof why), "computes fp16 and bf16 only");
    p = problem(64, 64, 64, GEMM_FP16, GEMM_TN, 0, 0);
    cr_assert_null(disp_refusal(tc, &p, 1, &d, why, sizeof why));
    cr_assert_not_null(disp_refusal(tc, &p, 2, &d, why, sizeof why)); /* not a split-K kernel */
    disp_device small = d;
    small.smem_optin = 99 * 1024;
    const disp_config *pe = &disp_configs[disp_find("128x256x64_s3_persistent")];
    const char *r = disp_refusal(pe, &p, 1, &small, why, sizeof why);
    cr_assert_not_null(r);
    cr_assert(strstr(r, "216 KiB") && strstr(r, "99 KiB"), "%s", r);
    cr_assert_null(strchr(r, '\n'));
}

/* ---- split-K ------------------------------------------------------------------------------ */

Test(splitk, every_tile_and_k_tile_exactly_once) {
    static int hit[4096];
    for (int ktiles = 1; ktiles <= 300; ++ktiles)
        for (int splits = 1; splits <= DISP_MAX_SPLIT && splits <= ktiles; ++splits) {
            memset(hit, 0, sizeof hit);
            int lo = ktiles, hi = 0;
            for (int s = 0; s < splits; ++s) {
                int kt0, kt1;
                plan_split(ktiles, splits, s, &kt0, &kt1);
                cr_assert(kt0 < kt1, "ktiles %d splits %d: split %d is empty", ktiles, splits, s);
                if (kt1 - kt0 < lo) lo = kt1 - kt0;
                if (kt1 - kt0 > hi) hi = kt1 - kt0;
                for (int kt = kt0; kt < kt1; ++kt) {
                    cr_assert(kt >= 0 && kt < ktiles);
                    ++hit[kt];
                }
            }
            for (int kt = 0; kt < ktiles; ++kt)
                cr_assert_eq(hit[kt], 1, "ktiles %d splits %d: K tile %d computed %d times", ktiles,
                             splits, kt, hit[kt]);
            cr_assert_leq(hi - lo, 1, "ktiles %d splits %d: unbalanced", ktiles, splits);
        }
    int a, b;
    plan_split(10, 4, 1, &a, &b);
    cr_assert(a == 2 && b == 5);
    plan_split(10, 4, 3, &a, &b);
    cr_assert(a == 7 && b == 10);
}

/* ---- the lesson's table ------------------------------------------------------------------- */

Test(rules, every_rule_is_in_the_readme_and_explain_names_it) {
    FILE *f = fopen("lessons/08_dispatch/README.md", "r");
    cr_assert_not_null(f, "run from the repository root");
    static char text[1 << 17];
    const size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    for (int r = 0; r < DISP_NRULES; ++r) {
        char row[32];
        snprintf(row, sizeof row, "| %s |", disp_rules[r].id);
        cr_assert_not_null(strstr(text, row), "README has no table row '%s'", row);
        cr_assert(strlen(disp_rules[r].when) > 0 && strlen(disp_rules[r].why) > 0 &&
                  strlen(disp_rules[r].measured) > 0);
        for (int q = 0; q < r; ++q) cr_assert_str_neq(disp_rules[q].id, disp_rules[r].id);
    }
    for (int i = 0; i < DISP_NCONFIGS; ++i) { /* and every configuration in its registry table */
        char row[64];
        snprintf(row, sizeof row, "| `%s` |", disp_configs[i].name);
        cr_assert_not_null(strstr(text, row), "README's registry has no row '%s'", row);
    }
    const disp_device d = dev();
    gemm_problem p = problem(4096, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0);
    char line[512];
    disp_explain(&p, &d, line, sizeof line);
    cr_assert_not_null(strstr(line, "128x256x64_s3_persistent (rule T9: "), "%s", line);
    /* rule R1: the copies, the padded K when K % 8 != 0, then the rule that picked */
    p = problem(4093, 4093, 4093, GEMM_FP16, GEMM_TN, 0, 0);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line,
                     "A and B copied K-major with K zero-padded to 4096 (rule R1: lda = 4093 "
                     "is not a multiple of 8), then 128x256x64_s3_persistent (rule T9: ") == line,
              "%s", line);
    p = problem(4096, 4096, 4096, GEMM_FP16, GEMM_NT, 0, 0);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "A and B copied K-major (rule R1: A and B not K-major), then "
                           "128x256x64_s3_persistent (rule T9: ") == line,
              "%s", line);
    p = problem(3072, 3072, 3072, GEMM_FP16, GEMM_TN, 0, 0);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "128x128x64_s3 (rule T8: ") == line, "%s", line);
}

/* ---- the SIMT configurations (simt_plan.h, lesson 04's layouts) --------------------------- */

/* The tiles of simt_fp32.cuh's two kernels (its K_* macros) and their registry rows. */
static const struct {
    const char *name;
    p4_cfg c;
} simt_cfgs[] = {{"simt_128x128x8_4w", {128, 128, 8, 64, 64, 16, 8}},
                 {"simt_32x64x8_2w", {32, 64, 8, 32, 32, 8, 4}}};

Test(simt, partitions_cover_every_element_once) {
    static unsigned char hit[128 * 132];
    for (unsigned q = 0; q < sizeof simt_cfgs / sizeof simt_cfgs[0]; ++q) {
        const p4_cfg c = simt_cfgs[q].c;
        const int ci = disp_find(simt_cfgs[q].name);
        cr_assert_geq(ci, 0);
        const disp_config *r = &disp_configs[ci];
        cr_assert(r->bm == c.blk_m && r->bn == c.blk_n && r->bk == c.blk_k &&
                      r->warps_m == c.blk_m / c.warp_m && r->warps_n == c.blk_n / c.warp_n,
                  "%s: registry and kernel disagree", r->name);
        const int nthr = disp_threads(r);
        const lay_tiled_mma mma = p4_mma(c);
        /* C: every (m, n) of the CTA tile is one thread's accumulator exactly once, and the A
         * and B values the thread multiplies into it are row m of sA and column n of sB */
        memset(hit, 0, sizeof hit);
        for (int t = 0; t < nthr; ++t)
            for (int i = 0; i < c.thr_m; ++i)
                for (int j = 0; j < c.thr_n; ++j) {
                    const int v = p4_c_val(c.thr_m, i, j);
                    const int m =
                        p4_frag_base(&mma, c, P4_FRAG_CM, t) + p4_frag_at(&mma, c, P4_FRAG_CM, v);
                    const int n =
                        p4_frag_base(&mma, c, P4_FRAG_CN, t) + p4_frag_at(&mma, c, P4_FRAG_CN, v);
                    cr_assert(m >= 0 && m < c.blk_m && n >= 0 && n < c.blk_n);
                    ++hit[m * c.blk_n + n];
                    for (int k = 0; k < c.blk_k; ++k) {
                        const int a = p4_frag_base(&mma, c, P4_FRAG_A, t) +
                                      p4_frag_at(&mma, c, P4_FRAG_A, p4_a_val(c.thr_m, i, k));
                        const int b = p4_frag_base(&mma, c, P4_FRAG_B, t) +
                                      p4_frag_at(&mma, c, P4_FRAG_B, p4_b_val(c.thr_n, j, k));
                        cr_assert_eq(a, m + k * (c.blk_m + P4_PAD), "%s t %d (%d,%d) k %d", r->name,
                                     t, i, j, k);
                        cr_assert_eq(b, n + k * (c.blk_n + P4_PAD));
                    }
                }
        for (int e = 0; e < c.blk_m * c.blk_n; ++e)
            cr_assert_eq(hit[e], 1, "%s: C element %d", r->name, e);
        /* the copies: every (x, k) of the A and B tiles moved once in each copy mode */
        static const int modes[] = {P4_COPY_K16, P4_COPY_X16, P4_COPY_X4};
        for (int op = 0; op < 2; ++op) {
            const int bx = op ? c.blk_n : c.blk_m;
            for (unsigned mi = 0; mi < 3; ++mi) {
                const int mode = modes[mi], vec = p4_copy_vec(mode);
                const int nv = p4_copy_count(mode, bx, c.blk_k, nthr);
                const lay_tiled_copy cp = p4_copy(mode, bx, c.blk_k, nthr);
                cr_assert_eq(nv * vec, bx * c.blk_k / nthr);
                cr_assert_leq(nv * vec, P4_MAXV, "%s: %d floats staged per thread", r->name,
                              nv * vec);
                cr_assert_eq(lay_tiled_copy_nval(cp), vec);
                cr_assert_eq(lay_tiled_copy_reps(cp, bx, c.blk_k), nv);
                memset(hit, 0, sizeof hit);
                for (int t = 0; t < nthr; ++t)
                    for (int v = 0; v < nv; ++v)
                        for (int j = 0; j < vec; ++j) {
                            int x, k;
                            lay_tiled_copy_crd(cp, bx, c.blk_k, t, j, v, &x, &k);
                            cr_assert(x >= 0 && x < bx && k >= 0 && k < c.blk_k);
                            ++hit[x * c.blk_k + k];
                        }
                for (int e = 0; e < bx * c.blk_k; ++e)
                    cr_assert_eq(hit[e], 1, "%s op %d mode %d: element %d", r->name, op, mode, e);
            }
        }
    }
}

/* ---- the epilogue (dispatch.h: disp_epi_where, disp_pass_rows, rule E1) --------------------- */

/* problem() with an epilogue: output type out, epilogue e, bias along `axis`, beta; the bias a
 * stand-in address as the harness would give (never dereferenced). */
static gemm_problem with_epi(gemm_problem p, gemm_dtype out, gemm_epi e, gemm_bias_axis axis,
                             float beta) {
    p.c_dtype = out;
    p.epilogue = e;
    p.bias_axis = axis;
    p.bias_dtype = out;
    p.bias = GEMM_EPI_HAS_BIAS(e) ? (const void *)0x400000 : NULL;
    p.beta = beta;
    return p;
}

static int same_run(const disp_choice *a, const disp_choice *b) {
    return a->cfg == b->cfg && a->split == b->split && a->transposed == b->transposed &&
           a->repack == b->repack;
}

/* the expected choice of one problem with an epilogue, and where the epilogue runs */
typedef struct {
    int m, n, k;
    gemm_dtype dt, out;
    gemm_layout l;
    gemm_epi e;
    float beta;
    const char *cfg;
    int split;
    const char *rule; /* "R1 T9" as in want */
    disp_epi_at at;
    int passes; /* passes of the reduction (disp_pass_rows): 1, or the panels */
} want_epi;

static void check_want_epi(const want_epi *w) {
    const disp_device d = dev();
    const gemm_problem p =
        with_epi(problem(w->m, w->n, w->k, w->dt, w->l, 0, 0), w->out, w->e, GEMM_BIAS_N, w->beta);
    disp_choice c;
    char why[256];
    cr_assert_eq(disp_choose(&p, &d, &c), 0, "%dx%dx%d %s: no configuration", p.m, p.n, p.k,
                 disp_epi_words[w->e]);
    const char *what = disp_epi_words[w->e];
    cr_assert_str_eq(disp_configs[c.cfg].name, w->cfg, "%dx%dx%d %s: %s, want %s", p.m, p.n, p.k,
                     what, disp_configs[c.cfg].name, w->cfg);
    cr_assert_eq(c.split, w->split, "%dx%dx%d %s: split %d", p.m, p.n, p.k, what, c.split);
    cr_assert(c.rule >= 0);
    const int repack = !strncmp(w->rule, "R1 ", 3);
    cr_assert_eq(c.repack, repack, "%dx%dx%d %s: repack %d", p.m, p.n, p.k, what, c.repack);
    cr_assert_str_eq(disp_rules[c.rule].id, w->rule + 3 * repack, "%dx%dx%d %s: rule %s", p.m, p.n,
                     p.k, what, disp_rules[c.rule].id);
    const gemm_problem q = disp_choice_problem(&p, &c);
    const disp_config *cf = &disp_configs[c.cfg];
    cr_assert_eq(disp_epi_where(cf, &q, c.split, c.transposed), w->at, "%dx%dx%d %s: where %d", p.m,
                 p.n, p.k, what, (int)disp_epi_where(cf, &q, c.split, c.transposed));
    const int rows = disp_pass_rows(cf, &q, c.split, c.transposed, disp_choice_ws(&p, &c));
    cr_assert_gt(rows, 0);
    cr_assert_eq(disp_ceil(q.m, rows), w->passes, "%dx%dx%d %s: %d rows a pass", p.m, p.n, p.k,
                 what, rows);
    cr_assert_null(disp_refusal(cf, &q, c.split, &d, why, sizeof why), "%s", why);
}

/* Where each rule's pick applies the epilogue: the persistent kernel fuses it (beta = 0,
 * K % 8 == 0, its own or an fp32 output), a split, a transposed run and the split-K tiles put it
 * in the reduction, T8's tile has none and passes the problem to T9; what no rule above can
 * place (beta != 0 on T9's shapes, K % 8 != 0, fp16 in -> bf16 out) goes to E1. */
Test(epilogue, where_each_rule_applies_it) {
    static const want_epi ws[] = {
        /* T9: fused, in the inputs' type or fp32, every activation */
        {4096, 4096, 4096, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS_GELU, 0.0f,
         "128x256x64_s3_persistent", 1, "T9", DISP_EPI_KERNEL, 1},
        {4096, 4096, 4096, GEMM_BF16, GEMM_FP32, GEMM_TN, GEMM_EPI_RELU, 0.0f,
         "128x256x64_s3_persistent", 1, "T9", DISP_EPI_KERNEL, 1},
        {8192, 8192, 8192, GEMM_FP16, GEMM_FP32, GEMM_TN, GEMM_EPI_NONE, 0.0f,
         "128x256x64_s3_persistent", 1, "T9", DISP_EPI_KERNEL, 1},
        /* T8's shapes: 128x128x64_s3 has no fused epilogue, T9 takes them */
        {2048, 2048, 2048, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS, 0.0f,
         "128x256x64_s3_persistent", 1, "T9", DISP_EPI_KERNEL, 1},
        {3072, 3072, 3072, GEMM_BF16, GEMM_BF16, GEMM_TN, GEMM_EPI_GELU, 0.0f,
         "128x256x64_s3_persistent", 1, "T9", DISP_EPI_KERNEL, 1},
        /* split-K and the small tiles: the reduction, after the splits */
        {16, 4096, 4096, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS, 0.0f, "16x128x64_s4_splitk",
         12, "T2", DISP_EPI_REDUCE, 1},
        {64, 4096, 4096, GEMM_BF16, GEMM_FP32, GEMM_TN, GEMM_EPI_BIAS_RELU, 0.0f,
         "64x128x64_s3_splitk", 8, "T3", DISP_EPI_REDUCE, 1},
        {1024, 1024, 1024, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS_GELU, 0.5f, "64x128x64_s3",
         1, "T6", DISP_EPI_REDUCE, 1}, /* unsplit, reduced */
        {16, 65536, 4096, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS, 0.0f, "16x128x64_s4", 1,
         "T2", DISP_EPI_REDUCE, 1}, /* one split, still reduced */
        /* beta != 0, K % 8 != 0 on the 16-byte path, fp16 -> bf16: E1 */
        {4096, 4096, 4096, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS, 0.5f,
         "128x128x32_s4_splitk", 1, "E1", DISP_EPI_REDUCE, 1},
        {4096, 4096, 4096, GEMM_FP16, GEMM_BF16, GEMM_TN, GEMM_EPI_NONE, 0.0f,
         "128x128x32_s4_splitk", 1, "E1", DISP_EPI_REDUCE, 1},
        /* 16384^2 partials are 1 GiB: 64 MiB panels of 1024 rows */
        {16384, 16384, 1024, GEMM_BF16, GEMM_BF16, GEMM_TN, GEMM_EPI_BIAS_RELU, -1.0f,
         "128x128x32_s4_splitk", 1, "E1", DISP_EPI_REDUCE, 4},
        /* rule R1's copies (K padded to 4096) make 4093^3 the persistent kernel's */
        {4093, 4093, 4093, GEMM_FP16, GEMM_FP16, GEMM_TN, GEMM_EPI_BIAS_GELU, 0.0f,
         "128x256x64_s3_persistent", 1, "R1 T9", DISP_EPI_KERNEL, 1},
        {4093, 4093, 4093, GEMM_BF16, GEMM_BF16, GEMM_NN, GEMM_EPI_BIAS, 0.5f,
         "128x128x32_s4_splitk", 1, "R1 E1", DISP_EPI_REDUCE, 1},
        /* too large to copy (T1's generic path): the reduction, in 2 panels of 8192 rows */
        {16384, 8192, 8192, GEMM_FP16, GEMM_FP16, GEMM_NN, GEMM_EPI_BIAS_GELU, 0.0f,
         "128x128x64_s3", 1, "T1", DISP_EPI_REDUCE, 2},
        /* fp32: the SIMT kernels, the epilogue in the reduction */
        {4096, 4096, 4096, GEMM_FP32, GEMM_FP32, GEMM_TN, GEMM_EPI_BIAS_GELU, 0.0f,
         "simt_128x128x8_4w", 1, "F4", DISP_EPI_REDUCE, 1},
        {16, 4096, 4096, GEMM_FP32, GEMM_FP32, GEMM_TN, GEMM_EPI_BIAS, 0.0f, "simt_32x64x8_2w", 12,
         "F1", DISP_EPI_REDUCE, 1},
        {65536, 65536, 64, GEMM_FP32, GEMM_FP32, GEMM_NT, GEMM_EPI_RELU, 0.0f, "simt_128x128x8_4w",
         1, "F4", DISP_EPI_REDUCE, 64}, /* 1024-row panels */
    };
    for (unsigned i = 0; i < sizeof ws / sizeof ws[0]; ++i) check_want_epi(&ws[i]);
}

/* The epilogue none keeps every choice of the rules: the same problems with another bias axis,
 * gelu form or bias dtype change nothing (they are run-time values of every kernel). */
Test(epilogue, its_options_do_not_move_the_choice) {
    const disp_device d = dev();
    for (int i = 0; i < NSUITE; ++i) {
        const gemm_problem p =
            problem(suite[i].m, suite[i].n, suite[i].k, GEMM_FP16, GEMM_TN, 0, 0);
        gemm_problem a = with_epi(p, GEMM_FP16, GEMM_EPI_BIAS_GELU, GEMM_BIAS_N, 0.0f);
        gemm_problem b = with_epi(p, GEMM_FP16, GEMM_EPI_BIAS_GELU, GEMM_BIAS_M, 0.0f);
        b.gelu = GEMM_GELU_ERF;
        b.bias_dtype = GEMM_FP32;
        disp_choice ca, cb, c0;
        cr_assert(!disp_choose(&a, &d, &ca) && !disp_choose(&b, &d, &cb) &&
                  !disp_choose(&p, &d, &c0));
        cr_assert(same_run(&ca, &cb) && ca.rule == cb.rule, "%dx%dx%d", p.m, p.n, p.k);
        /* with an epilogue only T8 changes: its shapes go to T9's fused kernel */
        if (strcmp(disp_rules[c0.rule].id, "T8"))
            cr_assert(same_run(&ca, &c0), "%dx%dx%d: %s with bias_gelu, %s without", p.m, p.n, p.k,
                      disp_configs[ca.cfg].name, disp_configs[c0.cfg].name);
    }
}

/* Every K split puts the epilogue in the reduction, once per element: the kernels of a split
 * write unscaled partial sums, so a bias can only be added after the splits are summed. */
Test(epilogue, a_split_applies_it_once_in_the_reduction) {
    const disp_device d = dev();
    static const int ms[] = {1, 16, 64, 128, 512, 1024, 4096};
    static const int ks[] = {256, 1024, 4096, 16384};
    int splits = 0;
    for (unsigned a = 0; a < sizeof ms / sizeof ms[0]; ++a)
        for (unsigned b = 0; b < sizeof ms / sizeof ms[0]; ++b)
            for (unsigned k = 0; k < sizeof ks / sizeof ks[0]; ++k)
                for (int dt = 0; dt < GEMM_NDTYPES; ++dt) {
                    const gemm_problem p =
                        with_epi(problem(ms[a], ms[b], ks[k], (gemm_dtype)dt, GEMM_TN, 0, 0),
                                 (gemm_dtype)dt, GEMM_EPI_BIAS, GEMM_BIAS_N, 0.0f);
                    disp_choice c;
                    cr_assert_eq(disp_choose(&p, &d, &c), 0);
                    const gemm_problem q = disp_choice_problem(&p, &c);
                    const disp_epi_at at =
                        disp_epi_where(&disp_configs[c.cfg], &q, c.split, c.transposed);
                    if (c.split > 1 || c.transposed) {
                        cr_assert_eq(at, DISP_EPI_REDUCE, "%dx%dx%d split %d", p.m, p.n, p.k,
                                     c.split);
                        ++splits;
                    } else {
                        cr_assert_neq(at, DISP_EPI_NONE);
                    }
                }
    cr_assert_gt(splits, 50);
    /* the GPU case of gpu_cases.txt: 16x4096x4096 with a bias is split 12 ways */
    const gemm_problem p = with_epi(problem(16, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16,
                                    GEMM_EPI_BIAS, GEMM_BIAS_N, 0.0f);
    disp_choice c;
    cr_assert(!disp_choose(&p, &d, &c) && c.split == 12);
}

/* The panels: rows a pass, whole BLK_M multiples that fit the workspace, every row once. */
Test(epilogue, panels_cover_c_once_and_fit_the_workspace) {
    const disp_config *t = &disp_configs[disp_find("128x128x32_s4_splitk")];
    gemm_problem p = with_epi(problem(16384, 16384, 1024, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16,
                              GEMM_EPI_BIAS, GEMM_BIAS_M, 0.0f);
    cr_assert_eq(disp_pass_rows(t, &p, 1, 0, DISP_WS_BYTES), 4096);
    cr_assert_eq(disp_pass_rows(t, &p, 2, 0, DISP_WS_BYTES), 0); /* a split must fit whole */
    cr_assert_eq(disp_pass_rows(t, &p, 1, 1, DISP_WS_BYTES), 0); /* so must C^T */
    cr_assert_eq(disp_pass_rows(t, &p, 1, 0, 128LL * 16384 * 4 - 1), 0); /* not one panel */
    cr_assert_eq(disp_pass_rows(t, &p, 1, 0, 300LL * 16384 * 4), 256);
    /* the persistent kernel fuses it: no workspace at all */
    const disp_config *pe = &disp_configs[disp_find("128x256x64_s3_persistent")];
    cr_assert_eq(disp_pass_rows(pe, &p, 1, 0, 0), 16384);
    /* a plain problem splits through the workspace whole, as before */
    gemm_problem plain = problem(1024, 1024, 16384, GEMM_FP16, GEMM_TN, 0, 0);
    cr_assert_eq(disp_pass_rows(t, &plain, 4, 0, DISP_WS_BYTES), 1024);
    cr_assert_eq(disp_pass_rows(t, &plain, 1, 0, 0), 1024);
    /* disp_panel: A, C and a bias along m move by the panel's rows; the last one is cut */
    p.lda = 1032;
    p.ldc = 16392;
    const gemm_problem q = disp_panel(&p, 12288, 4096), r = disp_panel(&p, 16000, 4096);
    cr_assert_eq(q.m, 4096);
    cr_assert_eq(r.m, 384);
    cr_assert_eq((uintptr_t)q.A - (uintptr_t)p.A, 12288u * 1032 * 2);
    cr_assert_eq((uintptr_t)q.C - (uintptr_t)p.C, 12288u * 16392 * 2);
    cr_assert_eq((uintptr_t)q.bias - (uintptr_t)p.bias, 12288u * 2);
    cr_assert(q.B == p.B && q.n == p.n && q.k == p.k && q.ldc == p.ldc);
    gemm_problem mm = problem(1000, 100, 64, GEMM_FP32, GEMM_NT, 0, 0); /* A M-major */
    mm.bias_axis = GEMM_BIAS_N;
    mm.bias = (const void *)0x400000;
    const gemm_problem s = disp_panel(&mm, 256, 256);
    cr_assert_eq((uintptr_t)s.A - (uintptr_t)mm.A, 256u * 4);
    cr_assert_eq((uintptr_t)s.C - (uintptr_t)mm.C, 256u * 100 * 4);
    cr_assert(s.bias == mm.bias); /* along n: every panel has all N values */
}

/* Every (dtype, output, epilogue, bias axis, beta) over extents, layouts and alignments gets a
 * configuration that accepts it and a place for the epilogue: never "no configuration". Only
 * fp32 inputs with a 2-byte output are refused, with one line. */
Test(epilogue, every_combination_gets_a_configuration_that_applies_it) {
    const disp_device d = dev();
    static const int ext[] = {1, 7, 16, 17, 64, 65, 127, 1000, 4093, 4096, 65536};
    enum { NE = sizeof ext / sizeof ext[0] };
    char why[256];
    long long n = 0, refused = 0, fused = 0, reduced = 0;
    for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
        for (int out = 0; out < GEMM_NDTYPES; ++out)
            for (int e = 0; e < GEMM_NEPIS; ++e)
                for (int ax = 0; ax <= GEMM_EPI_HAS_BIAS(e); ++ax)
                    for (int be = 0; be < 2; ++be)
                        for (int l = 0; l < GEMM_NLAYOUTS; ++l)
                            for (int al = 0; al < 3; ++al)
                                for (int i = 0; i < NE; ++i)
                                    for (int j = 0; j < NE; ++j)
                                        for (int k = 0; k < NE; ++k) {
                                            const gemm_problem p = with_epi(
                                                problem(ext[i], ext[j], ext[k], (gemm_dtype)dt,
                                                        (gemm_layout)l, al == 1, al == 2),
                                                (gemm_dtype)out, (gemm_epi)e, (gemm_bias_axis)ax,
                                                be ? 0.5f : 0.0f);
                                            disp_choice c;
                                            const int r = disp_choose(&p, &d, &c);
                                            ++n;
                                            if (dt == GEMM_FP32 && out != GEMM_FP32) {
                                                cr_assert_eq(r, -1);
                                                cr_assert_not_null(disp_unsupported(&p));
                                                ++refused;
                                                continue;
                                            }
                                            cr_assert_null(disp_unsupported(&p));
                                            cr_assert_eq(r, 0,
                                                         "%dx%dx%d dt %d out %d %s layout %d: no "
                                                         "configuration",
                                                         p.m, p.n, p.k, dt, out, disp_epi_words[e],
                                                         l);
                                            cr_assert(c.rule >= 0, "%dx%dx%d: the fallback", p.m,
                                                      p.n, p.k);
                                            const gemm_problem q = disp_choice_problem(&p, &c);
                                            const disp_config *cf = &disp_configs[c.cfg];
                                            const disp_epi_at at =
                                                disp_epi_where(cf, &q, c.split, c.transposed);
                                            cr_assert_neq(at, DISP_EPI_NONE,
                                                          "%dx%dx%d %s: %s has no place for it",
                                                          p.m, p.n, p.k, disp_epi_words[e],
                                                          cf->name);
                                            const long long ws = disp_choice_ws(&p, &c);
                                            const int rows =
                                                disp_pass_rows(cf, &q, c.split, c.transposed, ws);
                                            cr_assert_gt(rows, 0, "%dx%dx%d %s: no room", p.m, p.n,
                                                         p.k, disp_epi_words[e]);
                                            if (at == DISP_EPI_REDUCE) {
                                                /* the copies and one pass of partial sums fit the workspace */
                                                cr_assert_leq(4LL * c.split * rows * q.n, ws);
                                                cr_assert(rows == q.m ||
                                                          (c.split == 1 && !c.transposed &&
                                                           rows % cf->bm == 0));
                                                ++reduced;
                                            } else if (!disp_epi_plain(&p)) {
                                                cr_assert(disp_epi_fuses(cf, &q) && q.beta == 0.0f,
                                                          "%s", cf->name);
                                                ++fused;
                                            }
                                            const char *why_not =
                                                disp_refusal(cf, &q, c.split, &d, why, sizeof why);
                                            cr_assert_null(why_not, "%dx%dx%d %s: %s refuses: %s",
                                                           p.m, p.n, p.k, disp_epi_words[e],
                                                           cf->name, why_not);
                                        }
    cr_assert_gt(fused, 1000);
    cr_assert_gt(reduced, 1000);
    cr_assert_gt(refused, 0);
    cr_assert_gt(n, 1000000);
}

/* A forced configuration that cannot apply the epilogue says so in one line and names what
 * can; the SIMT ones compute fp32 outputs only. */
Test(epilogue, forced_configurations_refuse_in_one_line) {
    const disp_device d = dev();
    char why[256];
    const gemm_problem p = with_epi(problem(1024, 1024, 1024, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16,
                                    GEMM_EPI_BIAS_GELU, GEMM_BIAS_N, 0.0f);
    static const char *const none[] = {"128x256x64_s3", "128x128x64_s3", "128x128x32_s4"};
    for (unsigned i = 0; i < sizeof none / sizeof none[0]; ++i) {
        const char *r = disp_refusal(&disp_configs[disp_find(none[i])], &p, 1, &d, why, sizeof why);
        cr_assert_not_null(r, "%s", none[i]);
        cr_assert(strstr(r, "128x256x64_s3_persistent fuses it") && strstr(r, "default take any") &&
                      !strchr(r, '\n'),
                  "%s: %s", none[i], r);
        cr_assert_lt(strlen(r), 150, "%s", r); /* whole in the harness's one-line reason */
    }
    /* the persistent kernel fuses it, the split-K tiles reduce it; with beta != 0 the
     * persistent kernel declines too */
    cr_assert_null(disp_refusal(&disp_configs[disp_find("128x256x64_s3_persistent")], &p, 1, &d,
                                why, sizeof why));
    cr_assert_null(
        disp_refusal(&disp_configs[disp_find("128x128x32_s4_splitk")], &p, 4, &d, why, sizeof why));
    gemm_problem b = p;
    b.beta = 0.5f;
    const char *r = disp_refusal(&disp_configs[disp_find("128x256x64_s3_persistent")], &b, 1, &d,
                                 why, sizeof why);
    cr_assert(r && strstr(r, "fuses the epilogue with beta = 0") && strlen(r) < 150, "%s",
              r ? r : "(null)");
    /* the generic path (NN) of the same tiles reduces it */
    const gemm_problem nn = with_epi(problem(1024, 1024, 1024, GEMM_FP16, GEMM_NN, 0, 0), GEMM_FP16,
                                     GEMM_EPI_BIAS, GEMM_BIAS_M, 0.5f);
    cr_assert_null(
        disp_refusal(&disp_configs[disp_find("128x128x64_s3")], &nn, 1, &d, why, sizeof why));
    /* SIMT: fp32 out only */
    const gemm_problem f = with_epi(problem(64, 64, 64, GEMM_FP32, GEMM_TN, 0, 0), GEMM_FP16,
                                    GEMM_EPI_NONE, GEMM_BIAS_N, 0.0f);
    r = disp_refusal(&disp_configs[disp_find("simt_32x64x8_2w")], &f, 1, &d, why, sizeof why);
    cr_assert(r && strstr(r, "fp32 output only"), "%s", r ? r : "(null)");
}

/* --explain says where the epilogue runs, after the rule. */
Test(epilogue, explain_says_where_it_runs) {
    const disp_device d = dev();
    char line[512];
    gemm_problem p = with_epi(problem(4096, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16,
                              GEMM_EPI_BIAS_GELU, GEMM_BIAS_N, 0.0f);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "128x256x64_s3_persistent (rule T9: ") == line, "%s", line);
    cr_assert(strstr(line, "); epilogue bias_gelu, fp16 out: fused in its store"), "%s", line);
    p = with_epi(problem(16, 4096, 4096, GEMM_BF16, GEMM_TN, 0, 0), GEMM_FP32, GEMM_EPI_BIAS,
                 GEMM_BIAS_N, 0.0f);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "epilogue bias, fp32 out: in splitk_reduce, after the 12 K splits"),
              "%s", line);
    p = with_epi(problem(16384, 16384, 1024, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16, GEMM_EPI_GELU,
                 GEMM_BIAS_N, 0.5f);
    p.gelu = GEMM_GELU_ERF;
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "(rule E1: ") &&
                  strstr(line, "epilogue gelu (erf), fp16 out: in splitk_reduce, 4 passes of "
                               "4096 rows"),
              "%s", line);
    p = with_epi(problem(64, 64, 64, GEMM_FP32, GEMM_TN, 0, 0), GEMM_BF16, GEMM_EPI_NONE,
                 GEMM_BIAS_N, 0.0f);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "refused: fp32 inputs give an fp32 output only") == line, "%s", line);
    /* a plain problem's line says nothing of it */
    p = problem(16, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0);
    disp_explain(&p, &d, line, sizeof line);
    cr_assert_null(strstr(line, "epilogue"), "%s", line);
}
