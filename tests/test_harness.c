#define _POSIX_C_SOURCE 200809L
/* test_harness.c - CPU tests of the harness: option parsing, refusals, the plan of a request
 * (which cases run, how refusals are reported), tolerance logic, the float64 reference,
 * fp16/bf16 conversions and the CSV format. No GPU needed.
 * Run: make test  (or build/tests/test_harness --verbose) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "harness_tests.h"

/* ---- option parsing -------------------------------------------------------------------- */

Test(parse, defaults_use_the_default_sweep) {
    harness_opts o;
    char err[256];
    const char *argv[] = {"run"};
    cr_assert_eq(parse(&o, err, 1, argv), 0);
    cr_assert_eq(o.layouts, 0u); /* 0: the lesson's default_layouts (TN when it names none) */
    cr_assert_eq(o.dtypes, 0u);
    cr_assert_float_eq(o.alpha, 1.0f, 0);
    cr_assert_float_eq(o.beta, 0.0f, 0);
    cr_assert_eq(o.iters, 20);
    cr_assert_eq(o.nsizes, 5);
    /* the sweep has sizes that are not tile multiples and a non-square one */
    int odd = 0, nonsquare = 0;
    for (int i = 0; i < o.nsizes; ++i) {
        odd |= o.sizes[i][0] == 127 || o.sizes[i][0] == 4093;
        nonsquare |= o.sizes[i][0] != o.sizes[i][1] && o.sizes[i][1] != o.sizes[i][2] &&
                     o.sizes[i][0] != o.sizes[i][2];
    }
    cr_assert(odd && nonsquare);
}

Test(parse, every_option) {
    harness_opts o;
    char err[256];
    const char *argv[] = {"run",         "--size",   "127x255x33,8x8x8",
                          "--layout=NT", "--dtype",  "bf16",
                          "--alpha",     "1.5",      "--beta",
                          "-0.25",       "--iters",  "7",
                          "--warmup",    "0",        "--check-only",
                          "--csv",       "out.csv",  "--seed",
                          "42",          "--pad",    "3",
                          "--offset",    "1",        "--init",
                          "ones",        "--poison", "inf",
                          "--variant",   "fast"};
    cr_assert_eq(parse(&o, err, sizeof argv / sizeof *argv, argv), 0, "%s", err);
    cr_assert_eq(o.nsizes, 2);
    cr_assert_eq(o.sizes[0][0], 127);
    cr_assert_eq(o.sizes[0][1], 255);
    cr_assert_eq(o.sizes[0][2], 33);
    cr_assert_eq(o.sizes[1][2], 8);
    cr_assert_eq(o.layouts, GEMM_LAYOUT_BIT(GEMM_NT));
    cr_assert(o.explicit_layout);
    cr_assert_eq(o.dtypes, GEMM_DT_BIT(GEMM_BF16));
    cr_assert_float_eq(o.alpha, 1.5f, 0);
    cr_assert_float_eq(o.beta, -0.25f, 0);
    cr_assert_eq(o.iters, 7);
    cr_assert_eq(o.warmup, 0);
    cr_assert(o.check_only);
    cr_assert_str_eq(o.csv, "out.csv");
    cr_assert_eq(o.seed, 42ull);
    cr_assert_eq(o.pad, 3);
    cr_assert_eq(o.offset, 1);
    cr_assert_eq(o.init, HARNESS_INIT_ONES);
    cr_assert_eq(o.poison, HARNESS_POISON_INF);
    cr_assert_str_eq(o.variant, "fast");
}

Test(parse, m_n_k_and_lists) {
    harness_opts o;
    char err[256];
    const char *a1[] = {"run", "--m", "100", "--k", "7"};
    cr_assert_eq(parse(&o, err, 5, a1), 0, "%s", err);
    cr_assert_eq(o.nsizes, 1);
    cr_assert_eq(o.sizes[0][0], 100);
    cr_assert_eq(o.sizes[0][1], 100); /* omitted N = the first given */
    cr_assert_eq(o.sizes[0][2], 7);
    const char *a2[] = {"run", "--layout", "all", "--dtype", "fp16,bf16"};
    cr_assert_eq(parse(&o, err, 5, a2), 0, "%s", err);
    cr_assert_eq(o.layouts, GEMM_LAYOUT_ALL);
    cr_assert(o.layout_all);
    cr_assert_eq(o.dtypes, GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16));
    cr_assert(!o.explicit_dtype);
    const char *a3[] = {"run", "--sweep", "bench"};
    cr_assert_eq(parse(&o, err, 3, a3), 0, "%s", err);
    cr_assert_geq(o.nsizes, 6);
    cr_assert_eq(o.sizes[0][0], 256);
    /* one number is a cube, as --m alone is; it mixes with MxNxK in a list */
    const char *a4[] = {"run", "--size", "100,7x8x9", "--size", "65536"};
    cr_assert_eq(parse(&o, err, 5, a4), 0, "%s", err);
    cr_assert_eq(o.nsizes, 3);
    const int want[3][3] = {{100, 100, 100}, {7, 8, 9}, {65536, 65536, 65536}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            cr_assert_eq(o.sizes[i][j], want[i][j], "size %d extent %d: %d", i, j, o.sizes[i][j]);
}

Test(parse, help_and_list) {
    harness_opts o;
    char err[256];
    const char *a[] = {"run", "--help"};
    cr_assert_eq(parse(&o, err, 2, a), 0);
    cr_assert(o.help);
    const char *b[] = {"run", "--list"};
    cr_assert_eq(parse(&o, err, 2, b), 0);
    cr_assert(o.list);
}

/* Each bad command line is rejected with status 2 and a message naming the problem. */
Test(parse, bad_input_is_rejected) {
    static const bad_cmdline bad[] = {
        {{"run", "--bogus"}, 2, "unknown option '--bogus'"},
        {{"run", "extra"}, 2, "unexpected argument"},
        {{"run", "--size", "4x4"}, 3, "bad --size '4x4': expected MxNxK, or N for NxNxN"},
        {{"run", "--size", "4xx4"}, 3, "bad --size"},
        {{"run", "--size", "x4x4x4"}, 3, "bad --size"},
        {{"run", "--size", "4x4x"}, 3, "bad --size"},
        {{"run", "--size", "0"}, 3, "bad --size"},
        {{"run", "--size", "65537"}, 3, "bad --size"},
        {{"run", "--size", "0x4x4"}, 3, "bad --size"},
        {{"run", "--size", "4x4x4x4"}, 3, "bad --size"},
        {{"run", "--size", "4xax4"}, 3, "bad --size"},
        {{"run", "--m", "-3"}, 3, "bad --m"},
        {{"run", "--k", "70000"}, 3, "bad --k"},
        {{"run", "--layout", "XT"}, 3, "bad --layout"},
        {{"run", "--dtype", "fp64"}, 3, "bad --dtype"},
        {{"run", "--alpha", "1.5x"}, 3, "bad --alpha"},
        {{"run", "--beta", "nan"}, 3, "bad --beta"},
        {{"run", "--beta", "1e40"}, 3, "within fp32's range"},
        {{"run", "--iters", "0"}, 3, "bad --iters"},
        {{"run", "--iters"}, 2, "needs a value"},
        {{"run", "--seed", "-1"}, 3, "bad --seed"},
        {{"run", "--init", "zeros"}, 3, "bad --init"},
        {{"run", "--poison", "zero"}, 3, "bad --poison"},
        {{"run", "--check-only=1"}, 2, "takes no value"},
        {{"run", "--sweep", "bench", "--m"}, 4, "needs a value"},
        {{"run", "--sweep", "huge"}, 3, "bad --sweep"},
    };
    assert_rejected(bad, sizeof bad / sizeof bad[0]);
    harness_opts o;
    char err[256];
    const char *combo[] = {"run", "--sweep", "bench", "--size", "8x8x8"};
    cr_assert_eq(parse(&o, err, 5, combo), HARNESS_EXIT_USAGE);
}

/* ---- refusals -------------------------------------------------------------------------- */

static const char *k_mult8(const gemm_problem *p) {
    return p->k % 8 ? "K must be a multiple of 8" : NULL;
}

Test(refusal, dtype_layout_alignment_and_check) {
    gemm_variant v = {"tc",    "test",   GEMM_DT_BIT(GEMM_FP16), GEMM_LAYOUT_BIT(GEMM_TN), 8,
                      k_mult8, no_launch};
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = p.n = p.k = 64;
    p.lda = p.ldb = p.ldc = 64;
    p.dtype = p.c_dtype = GEMM_FP16;
    p.layout = GEMM_TN;
    char buf[320];
    cr_assert_null(harness_refusal(&v, &p, 0, buf, sizeof buf));
    p.dtype = GEMM_FP32;
    cr_assert(strstr(harness_refusal(&v, &p, 0, buf, sizeof buf),
                     "does not support dtype fp32 (supported: fp16)"));
    p.dtype = GEMM_FP16;
    p.layout = GEMM_NT;
    cr_assert(strstr(harness_refusal(&v, &p, 0, buf, sizeof buf), "does not support layout NT"));
    p.layout = GEMM_TN;
    p.lda = 65;
    cr_assert(strstr(harness_refusal(&v, &p, 0, buf, sizeof buf), "multiples of 8"));
    p.lda = 64;
    cr_assert_not_null(harness_refusal(&v, &p, 1, buf, sizeof buf)); /* offset by one element */
    p.k = 60;
    cr_assert(strstr(harness_refusal(&v, &p, 0, buf, sizeof buf), "K must be a multiple of 8"));
}

/* ---- the plan: cases, refusals, the default sweep's skip line -------------------------- */

static const char *k_mult8_named(const gemm_problem *p) {
    return p->k % 8 ? "K must be a multiple of 8; lesson 99 takes any K" : NULL;
}
static const char *too_much_smem(const gemm_problem *p) {
    (void)p;
    return "needs 300 KiB of shared memory per CTA; try --variant a8";
}

/* a8: any layout, leading dimensions multiples of 8; k8: TN, K a multiple of 8 (its check names
 * another lesson); smem: refused everywhere; h: fp16 only; b8 as a8 */
static const gemm_variant plan_variants[] = {
    {"a8", "align 8", GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 8, NULL, no_launch},
    {"k8", "K % 8", GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_BIT(GEMM_TN), 1, k_mult8_named, no_launch},
    {"smem", "refused", GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, too_much_smem, no_launch},
    {"h", "fp16", GEMM_DT_BIT(GEMM_FP16), GEMM_LAYOUT_BIT(GEMM_TN), 1, NULL, no_launch},
    {"b8", "align 8 too", GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 8, NULL, no_launch},
};
static const gemm_lesson plan_lesson = {"99_test", "plan test", 5, plan_variants,
                                        GEMM_LAYOUT_BIT(GEMM_TN)};

static void plan_of(harness_plan *pl, int argc, const char **argv) {
    plan_cases_of(&plan_lesson, pl, argc, argv);
}

Test(plan, default_sweep_runs_what_it_can_and_skips_in_one_line) {
    /* default sweep 127, 1000, 1021x513x2049, 4093, 4096: a8 refuses lda = 127, 2049, 4093;
     * k8 refuses K = 127, 2049, 4093 */
    const char *argv[] = {"run", "--variant", "a8,k8"};
    harness_plan pl;
    plan_of(&pl, 3, argv);
    cr_assert(pl.default_request);
    cr_assert_eq(pl.ncases, 4);
    cr_assert_eq(pl.nrefused, 6);
    cr_assert_eq(pl.ngroups, 2);
    cr_assert_eq(pl.cases[0].v, &plan_variants[0]); /* run order: variant, dtype, layout, size */
    cr_assert_eq(pl.cases[0].p.m, 1000);
    cr_assert_eq(pl.cases[1].p.m, 4096);
    cr_assert_eq(pl.cases[2].v, &plan_variants[1]);
    char line[1024];
    int n = harness_skip_line(line, sizeof line, plan_lesson.id, &pl);
    cr_assert_eq(n, (int)strlen(line));
    cr_assert(!strchr(line, '\n'), "the skip line is one line");
    cr_assert_str_eq(line,
                     "99_test: the default sweep skipped 6 cases that the kernels refuse: needs "
                     "lda, ldb, ldc and pointer offsets to be multiples of 8 elements (3: "
                     "127x127x127, 1021x513x2049, 4093x4093x4093; a8); K must be a multiple of "
                     "8; lesson 99 takes any K (3: 127x127x127, 1021x513x2049, 4093x4093x4093; "
                     "k8)");
    harness_plan_free(&pl);
}

Test(plan, every_size_and_every_variant) {
    const char *argv[] = {"run", "--variant", "smem"};
    harness_plan pl;
    plan_of(&pl, 3, argv);
    cr_assert_eq(pl.ncases, 0); /* nothing runs: the caller reports before the table, exit 2 */
    char line[1024];
    harness_refusal_line(line, sizeof line, plan_lesson.id, &pl, 0);
    cr_assert_str_eq(line, "99_test: refused: 5 cases of smem: needs 300 KiB of shared memory "
                           "per CTA; try --variant a8 (first: 127x127x127 fp32 TN); nothing to "
                           "run");
    harness_skip_line(line, sizeof line, plan_lesson.id, &pl);
    cr_assert(strstr(line, "(every size; smem)"), "%s", line);
    harness_plan_free(&pl);
    const char *argv2[] = {"run", "--variant", "a8,b8"}; /* one reason for both variants */
    plan_of(&pl, 3, argv2);
    cr_assert_eq(pl.ngroups, 1);
    harness_skip_line(line, sizeof line, plan_lesson.id, &pl);
    cr_assert(strstr(line, "elements (127x127x127, 1021x513x2049, 4093x4093x4093; every "
                           "variant)"),
              "%s", line);
    harness_plan_free(&pl);
}

Test(plan, explicit_requests_are_not_the_default) {
    harness_plan pl;
    const char *sizes[] = {"run", "--size", "127x127x127,1000x1000x1000", "--variant", "a8"};
    plan_of(&pl, 5, sizes);
    cr_assert(!pl.default_request);
    cr_assert_eq(pl.ncases, 1);
    char line[1024];
    harness_refusal_line(line, sizeof line, plan_lesson.id, &pl, 0);
    cr_assert_str_eq(line, "99_test: refused: 1 case of a8: needs lda, ldb, ldc and pointer "
                           "offsets to be multiples of 8 elements (first: 127x127x127 fp32 TN, "
                           "lda=127 ldb=127 ldc=127 offset=0)");
    harness_plan_free(&pl);
    const char *sweep[] = {"run", "--sweep", "default", "--variant", "a8"};
    plan_of(&pl, 5, sweep);
    cr_assert(!pl.default_request);
    harness_plan_free(&pl);
    const char *pad[] = {"run", "--pad", "1", "--variant", "a8"};
    plan_of(&pl, 5, pad);
    cr_assert(!pl.default_request);
    harness_plan_free(&pl);
    const char *dtype[] = {"run", "--dtype", "fp32", "--variant", "a8"};
    plan_of(&pl, 5, dtype);
    cr_assert(!pl.default_request);
    harness_plan_free(&pl);
    const char *layout[] = {"run", "--layout", "NT", "--variant", "a8"};
    plan_of(&pl, 5, layout);
    cr_assert(!pl.default_request);
    cr_assert_eq(pl.cases[0].p.layout, GEMM_NT);
    harness_plan_free(&pl);
    /* 'all' keeps the defaults' behaviour and leaves out what a variant does not claim */
    const char *all[] = {"run", "--dtype", "all", "--layout", "all", "--variant", "h"};
    plan_of(&pl, 7, all);
    cr_assert(pl.default_request);
    cr_assert_eq(pl.ncases, 5); /* fp16 TN, every size */
    cr_assert_eq(pl.nrefused, 0);
    char skip[64] = "x";
    cr_assert_eq(harness_skip_line(skip, sizeof skip, plan_lesson.id, &pl), 0);
    cr_assert_str_eq(skip, "");
    harness_plan_free(&pl);
}

Test(plan, variant_selection) {
    harness_opts o;
    char err[256];
    const gemm_variant *sel[HARNESS_MAX_VARIANTS];
    const char *all[] = {"run"};
    cr_assert_eq(harness_parse(1, (char **)all, &o, err, sizeof err), 0);
    cr_assert_eq(harness_select_variants(&plan_lesson, &o, sel, err, sizeof err), 5);
    const char *order[] = {"run", "--variant", "k8,default"};
    cr_assert_eq(harness_parse(3, (char **)order, &o, err, sizeof err), 0);
    cr_assert_eq(harness_select_variants(&plan_lesson, &o, sel, err, sizeof err), 2);
    cr_assert_eq(sel[0], &plan_variants[1]);
    cr_assert_eq(sel[1], &plan_variants[0]);
    const char *bad[] = {"run", "--variant", "a8,nope"};
    cr_assert_eq(harness_parse(3, (char **)bad, &o, err, sizeof err), 0);
    cr_assert_eq(harness_select_variants(&plan_lesson, &o, sel, err, sizeof err), 0);
    cr_assert_str_eq(err, "lesson 99_test has no variant 'nope' (see --list)");
    harness_plan pl;
    cr_assert_eq(harness_plan_cases(&plan_lesson, &o, &pl, err, sizeof err), HARNESS_EXIT_USAGE);
    const char *plain[] = {"run"};
    cr_assert_eq(harness_parse(1, (char **)plain, &o, err, sizeof err), 0);
    cr_assert(o.default_sweep);
}

/* ---- fp16 / bf16 conversions ----------------------------------------------------------- */

Test(convert, half_and_bf16_known_values) {
    cr_assert_float_eq(harness_half_to_float(0x3C00), 1.0f, 0);
    cr_assert_float_eq(harness_half_to_float(0xC000), -2.0f, 0);
    cr_assert_float_eq(harness_half_to_float(0x7BFF), 65504.0f, 0);
    cr_assert_float_eq(harness_half_to_float(0x0001), 5.9604644775390625e-8f, 0);
    cr_assert(isinf(harness_half_to_float(0x7C00)));
    cr_assert(isnan(harness_half_to_float(0x7E00)));
    cr_assert(isnan(harness_half_to_float(0xFFFF))); /* the 0xFF byte poison is NaN */
    cr_assert_eq(harness_float_to_half(1.0f), 0x3C00);
    cr_assert_eq(harness_float_to_half(65520.0f), 0x7C00);              /* rounds to Inf */
    cr_assert_eq(harness_float_to_half(1.0f + 1.0f / 2048.0f), 0x3C00); /* tie -> even */
    cr_assert_eq(harness_float_to_half(1.0f + 3.0f / 2048.0f), 0x3C02);
    cr_assert_float_eq(harness_bf16_to_float(0x3F80), 1.0f, 0);
    cr_assert_eq(harness_float_to_bf16(1.0f), 0x3F80);
    cr_assert_eq(harness_float_to_bf16(1.0f + 1.0f / 256.0f), 0x3F80); /* tie -> even */
    cr_assert(isnan(harness_bf16_to_float(harness_float_to_bf16(NAN))));
    /* round trip of every finite half */
    for (unsigned h = 0; h < 0x10000u; ++h) {
        if ((h & 0x7C00u) == 0x7C00u) continue;
        cr_assert_eq(harness_float_to_half(harness_half_to_float((uint16_t)h)), h, "half %#x", h);
    }
}

/* ---- tolerance logic ------------------------------------------------------------------- */

#define R 16
#define C 12

static void make_ref(float *ref) {
    for (int i = 0; i < R * C; ++i) ref[i] = (float)sin(0.37 * i + 1.0) * 10.0f;
}

Test(compare, right_answer_passes) {
    float ref[R * C], out[R * C];
    make_ref(ref);
    memcpy(out, ref, sizeof out);
    harness_cmp c;
    cr_assert(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_FP32, 4096), &c));
    cr_assert_float_eq(c.rel_fro, 0.0, 0);
    /* rounding-sized differences pass too: one fp32 ulp on every element */
    for (int i = 0; i < R * C; ++i) out[i] = nextafterf(ref[i], INFINITY);
    cr_assert(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_FP32, 1), &c), "%s",
              c.reason);
    /* fp16 output: two correct kernels round some elements to neighbouring halves; one ulp
     * on a quarter of the elements passes, three ulps on every element does not */
    float ref16[R * C];
    for (int i = 0; i < R * C; ++i) ref16[i] = harness_half_to_float(harness_float_to_half(ref[i]));
    for (int i = 0; i < R * C; ++i)
        out[i] = harness_half_to_float((uint16_t)(harness_float_to_half(ref[i]) + (i % 4 == 0)));
    cr_assert(harness_compare(out, C, ref16, C, R, C, harness_tolerance(GEMM_FP16, 64), &c), "%s",
              c.reason);
    for (int i = 0; i < R * C; ++i)
        out[i] = harness_half_to_float((uint16_t)(harness_float_to_half(ref[i]) + 3));
    cr_assert_not(harness_compare(out, C, ref16, C, R, C, harness_tolerance(GEMM_FP16, 64), &c));
}

Test(compare, nan_fails) {
    float ref[R * C], out[R * C];
    make_ref(ref);
    memcpy(out, ref, sizeof out);
    out[5 * C + 7] = NAN;
    harness_cmp c;
    cr_assert_not(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_FP32, 64), &c));
    cr_assert_eq(c.nonfinite, 1);
    cr_assert_eq(c.first_bad_row, 5);
    cr_assert_eq(c.first_bad_col, 7);
    cr_assert(strstr(c.reason, "NaN/Inf"));
}

Test(compare, inf_fails) {
    float ref[R * C], out[R * C];
    make_ref(ref);
    memcpy(out, ref, sizeof out);
    out[0] = -INFINITY;
    harness_cmp c;
    cr_assert_not(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_BF16, 64), &c));
    cr_assert_eq(c.nonfinite, 1);
}

/* An element the kernel never wrote keeps the NaN poison: the whole last row here. */
Test(compare, unwritten_output_fails) {
    float ref[R * C], out[R * C];
    make_ref(ref);
    for (int i = 0; i < R * C; ++i) out[i] = i < (R - 1) * C ? ref[i] : NAN;
    harness_cmp c;
    cr_assert_not(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_FP32, 64), &c));
    cr_assert_eq(c.nonfinite, C);
    cr_assert_eq(c.first_bad_row, R - 1);
}

/* One wrong element among many must fail even though the Frobenius error is small. */
Test(compare, one_wrong_element_fails) {
    static float ref[512 * 512], out[512 * 512];
    for (int i = 0; i < 512 * 512; ++i) ref[i] = out[i] = (float)cos(0.001 * i) * 20.0f;
    out[300 * 512 + 17] += 0.05f;
    harness_cmp c;
    cr_assert_not(
        harness_compare(out, 512, ref, 512, 512, 512, harness_tolerance(GEMM_FP32, 4096), &c));
    cr_assert_lt(c.rel_fro, harness_tolerance(GEMM_FP32, 4096).rel_fro,
                 "Frobenius alone would pass");
    cr_assert_eq(c.worst_row, 300);
    cr_assert_eq(c.worst_col, 17);
}

Test(compare, broken_reference_fails) {
    float ref[R * C], out[R * C];
    make_ref(ref);
    memcpy(out, ref, sizeof out);
    ref[3] = NAN;
    harness_cmp c;
    cr_assert_not(harness_compare(out, C, ref, C, R, C, harness_tolerance(GEMM_FP32, 64), &c));
    cr_assert(strstr(c.reason, "reference"));
}

Test(compare, leading_dimensions_are_respected) {
    /* out has ld 5 with garbage in the padding column; it must be ignored */
    float ref[3 * 4], out[3 * 5];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
            if (j < 4) ref[i * 4 + j] = (float)(i * 4 + j + 1);
            out[i * 5 + j] = j < 4 ? (float)(i * 4 + j + 1) : NAN;
        }
    harness_cmp c;
    cr_assert(harness_compare(out, 5, ref, 4, 3, 4, harness_tolerance(GEMM_FP32, 8), &c), "%s",
              c.reason);
}

Test(tolerance, grows_with_k_and_precision) {
    harness_tol a = harness_tolerance(GEMM_FP32, 64), b = harness_tolerance(GEMM_FP32, 4096);
    harness_tol h = harness_tolerance(GEMM_FP16, 4096), z = harness_tolerance(GEMM_BF16, 4096);
    cr_assert_lt(a.rel_fro, b.rel_fro);
    cr_assert_lt(b.rel_fro, h.rel_fro);
    cr_assert_lt(h.rel_fro, z.rel_fro);
    cr_assert_lt(b.rel_fro, 1e-4); /* fp32: tight */
    cr_assert_lt(z.rel_fro, 1e-2); /* bf16: one output ulp at most */
}

/* ---- float64 reference ----------------------------------------------------------------- */

/* A = [[1,2,3],[4,5,6]] (2x3), B = [[1,0,1],[0,1,0]] (N=2,K=3): A*B^T = [[4,2],[10,5]]. */
Test(reference, hand_checked_all_majorness) {
    const float A_k[6] = {1, 2, 3, 4, 5, 6}; /* K-major: A[m*3+k] */
    const float A_m[6] = {1, 4, 2, 5, 3, 6}; /* M-major: A[m + k*2] */
    const float B_k[6] = {1, 0, 1, 0, 1, 0}; /* K-major: B[n*3+k] */
    const float B_n[6] = {1, 0, 0, 1, 1, 0}; /* N-major: B[n + k*2] */
    const double want[4] = {4, 2, 10, 5};
    double out[4];
    for (int am = 0; am < 2; ++am)
        for (int bm = 0; bm < 2; ++bm) {
            harness_ref_f64(2, 2, 3, 1.0, am ? A_k : A_m, am ? 3 : 2, am, bm ? B_k : B_n,
                            bm ? 3 : 2, bm, 0.0, NULL, 2, 0, 2, out);
            for (int i = 0; i < 4; ++i)
                cr_assert_float_eq(out[i], want[i], 0, "a_kmajor=%d b_kmajor=%d i=%d", am, bm, i);
        }
    /* alpha, beta and a row range: rows [1,2) of 2*A*B^T + 0.5*C0 */
    const float C0[4] = {8, 8, 8, 8};
    harness_ref_f64(2, 2, 3, 2.0, A_k, 3, 1, B_k, 3, 1, 0.5, C0, 2, 1, 2, out);
    cr_assert_float_eq(out[0], 24.0, 0);
    cr_assert_float_eq(out[1], 14.0, 0);
}

Test(reference, padded_leading_dimensions) {
    /* same A with lda = 5 (two garbage columns), B with ldb = 4 */
    const float A[10] = {1, 2, 3, -99, -99, 4, 5, 6, -99, -99};
    const float B[8] = {1, 0, 1, -99, 0, 1, 0, -99};
    double out[4];
    harness_ref_f64(2, 2, 3, 1.0, A, 5, 1, B, 4, 1, 0.0, NULL, 2, 0, 2, out);
    cr_assert_float_eq(out[0], 4.0, 0);
    cr_assert_float_eq(out[3], 5.0, 0);
}

/* ---- CSV ------------------------------------------------------------------------------- */

static harness_row sample_row(void) {
    harness_row r;
    memset(&r, 0, sizeof r);
    r.lesson = "01_naive";
    r.variant = "coalesced";
    r.dtype = GEMM_FP32;
    r.layout = GEMM_NT;
    r.m = 127;
    r.n = 255;
    r.k = 33;
    r.alpha = 1.5f;
    r.beta = 0.0f;
    r.ms = 0.125;
    r.tflops = 2.5;
    r.cublas_ms = 0.05;
    r.cublas_tflops = 6.25;
    r.pct_cublas = 40.0;
    r.rel_err = 1.5e-7;
    r.max_err = 2e-6;
    r.status = "PASS";
    r.out = GEMM_FP32; /* the epilogue's columns: a plain GEMM, no cuBLASLt / unfused time */
    r.lt_ms = r.unfused_ms = -1.0;
    r.reference = "cublas";
    r.f64_rel_err = 1e-7;
    return r;
}

static harness_env sample_env(void) {
    harness_env e;
    memset(&e, 0, sizeof e);
    strcpy(e.device, "NVIDIA H200, test");
    e.cuda_runtime = 13000;
    e.cuda_driver = 13000;
    strcpy(e.date, "2026-11-29T12:00:00Z");
    strcpy(e.commit, "abc123");
    return e;
}

static int count_char(const char *s, char ch) {
    int n = 0;
    for (; *s; ++s) n += *s == ch;
    return n;
}

Test(csv, row_matches_header) {
    harness_row r = sample_row();
    harness_env e = sample_env();
    char line[1024];
    harness_csv_format(line, sizeof line, &r, &e);
    cr_assert_eq(count_char(line, ','), count_char(harness_csv_header(), ','));
    cr_assert_str_eq(line, "01_naive,coalesced,fp32,NT,127,255,33,1.5,0,0.125000,2.500,0.050000,"
                           "6.250,40.00,1.500e-07,2.000e-06,PASS,NVIDIA H200; test,13000,13000,"
                           "2026-11-29T12:00:00Z,abc123,fp32,none,-,-,fp32,-1.000000,-1.000000,"
                           "cublas,1.000e-07");
}

Test(csv, append_writes_header_once) {
    char path[] = "/tmp/test_harness_csv_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    harness_row r = sample_row();
    harness_env e = sample_env();
    cr_assert_eq(harness_csv_append(path, &r, &e), 0);
    cr_assert_eq(harness_csv_append(path, &r, &e), 0);
    FILE *f = fopen(path, "r");
    char line[1024];
    int n = 0, headers = 0;
    while (fgets(line, sizeof line, f)) {
        ++n;
        headers += strncmp(line, "lesson,variant,", 15) == 0;
    }
    fclose(f);
    unlink(path);
    cr_assert_eq(n, 3);
    cr_assert_eq(headers, 1);
    cr_assert_eq(harness_csv_append("/nonexistent-dir/x.csv", &r, &e), -1);
}
