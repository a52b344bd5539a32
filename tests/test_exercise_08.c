/* test_exercise_08.c - lesson 08: the CPU grader of the assignment (lessons/08_dispatch/exercise):
 * rule S1 of the learner's rule_ex.h in the lesson's dispatcher (dispatch.h built with
 * DISP_EXERCISE, as the graded binary's `exercise` variant is). The device is the H200 of
 * disp_device_default (132 SMs, the registry's CTAs per SM), and a GPU of 64 SMs where the
 * class must not move.
 *
 * The class of S1 (exercise/README.md): fp16/bf16, 16 < M <= 64, K <= 2048, any N, whatever
 * the GPU's SM count, in every layout and alignment (operands the 16-byte copy cannot take are
 * first copied by rule R1, K zero-padded to a multiple of 8, and the rules then see the
 * copies: a K of 2041..2048 stays <= 2048, 2049 becomes 2056).
 *
 * Suite choice: the class's shapes get S1 and a Tensor Core configuration of the registry, on
 * the problem as it is (not C^T); the borders of the class on both sides (M = 16 / 17, 64 / 65,
 * K = 2048 / 2049, fp32, on 132 and on 64 SMs); over a grid of extents, dtypes, layouts and
 * alignments S1 is chosen exactly for the class, and every problem still gets a configuration
 * that accepts it (disp_refusal says NULL for what will run); outside the class every problem
 * gets the lesson's own rule (pinned for a few shapes).
 * Suite row: S1 is one row, the first, with when / why / measured written; --explain's line
 * (disp_explain, what ./run --explain prints) names it with its when.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the rule_ex.h of the source being graded (make grade08, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <string.h>

#define DISP_EXERCISE /* dispatch.h: the learner's rule_ex.h, its rules first */
#include "dispatch.h"
#include "problem_08.h"

static gemm_problem tn(int m, int n, int k, gemm_dtype dt) {
    return problem(m, n, k, dt, GEMM_TN, 0, 0);
}

static const char *dt_name(gemm_dtype dt) {
    return dt == GEMM_FP32 ? "fp32" : dt == GEMM_BF16 ? "bf16" : "fp16";
}
static const char *layout_name(gemm_layout l) {
    static const char *n[] = {"TN", "NT", "NN", "TT"};
    return (int)l >= 0 && (int)l < 4 ? n[l] : "?";
}

/* The class, as the README states it (the GPU plays no part). */
static int in_class(const gemm_problem *p) {
    return p->dtype != GEMM_FP32 && p->m > 16 && p->m <= 64 && p->k <= 2048;
}

static int s1_index(void) { return 0; } /* DISP_EXERCISE_RULES come first in the table */
static int is_s1(const disp_choice *c) { return c->rule == s1_index(); }

/* What the dispatcher picks for p, as one line for the messages. */
static const char *said(const gemm_problem *p, const disp_device *d) {
    static char buf[512];
    disp_explain(p, d, buf, sizeof buf);
    return buf;
}

/* The choice is accepted by its configuration: what will run passes disp_refusal. */
static void assert_accepted(const gemm_problem *p, const disp_device *d, const disp_choice *c) {
    char why[256];
    const gemm_problem q = disp_choice_problem(p, c);
    const char *r = disp_refusal(&disp_configs[c->cfg], &q, c->split, d, why, sizeof why);
    cr_assert(r == NULL, "%dx%dx%d %s %s: %s declines what it was given: %s", p->m, p->n, p->k,
              dt_name(p->dtype), layout_name(p->layout), disp_configs[c->cfg].name, r);
}

/* A problem of the class: S1 picks a Tensor Core configuration that runs it as it is. */
static void assert_s1(const gemm_problem *p, const disp_device *d) {
    disp_choice c;
    cr_assert_eq(disp_choose(p, d, &c), 0, "%dx%dx%d: no configuration", p->m, p->n, p->k);
    cr_assert(is_s1(&c),
              "%dx%dx%d %s %s is in the class of S1 (16 < M <= 64, K <= 2048; a GPU of %d "
              "SMs) but gets: %s",
              p->m, p->n, p->k, dt_name(p->dtype), layout_name(p->layout), d->sms, said(p, d));
    cr_assert_eq(disp_configs[c.cfg].kind, DISP_TC,
                 "%dx%dx%d: S1 picks %s, not a Tensor Core "
                 "configuration",
                 p->m, p->n, p->k, disp_configs[c.cfg].name);
    cr_assert_eq(c.transposed, 0, "%dx%dx%d: S1 runs C^T (leave *t at 0)", p->m, p->n, p->k);
    assert_accepted(p, d, &c);
}

/* A problem outside the class: not S1, and accepted. */
static void assert_not_s1(const gemm_problem *p, const disp_device *d) {
    disp_choice c;
    cr_assert_eq(disp_choose(p, d, &c), 0, "%dx%dx%d: no configuration", p->m, p->n, p->k);
    cr_assert(!is_s1(&c),
              "%dx%dx%d %s %s is outside the class of S1 (a GPU of %d SMs) but gets: %s", p->m,
              p->n, p->k, dt_name(p->dtype), layout_name(p->layout), d->sms, said(p, d));
    assert_accepted(p, d, &c);
}

static void rule_written(void) {
    disp_choice c;
    const disp_device d = disp_device_default();
    const gemm_problem p = tn(40, 4096, 1024, GEMM_FP16); /* inside, off every border */
    cr_assert(disp_choose(&p, &d, &c) == 0 && is_s1(&c),
              "S1 does not take 40x4096x1024 fp16 (is ex08_s1_applies written yet? TODO 1): %s",
              said(&p, &d));
}

/* ---- choice -------------------------------------------------------------------------- */

Test(choice, class_table) {
    rule_written();
    const disp_device d = disp_device_default();
    /* the class's measured shapes (README.md), LLM-like ones, odd extents */
    static const int shapes[][3] = {
        {64, 1024, 1024}, {64, 2048, 512},   {40, 2048, 2048},  {64, 8192, 1024},  {63, 4093, 2048},
        {17, 4096, 2048}, {32, 14336, 1024}, {48, 4096, 1536},  {33, 127, 1000},   {17, 7, 2048},
        {64, 1, 1},       {40, 16769, 2048}, {20, 65536, 2048}, {24, 11008, 2048},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i)
        for (int dt = GEMM_FP16; dt <= GEMM_BF16; ++dt) {
            const gemm_problem p = tn(shapes[i][0], shapes[i][1], shapes[i][2], (gemm_dtype)dt);
            cr_assert(in_class(&p), "test table: %dx%dx%d", p.m, p.n, p.k);
            assert_s1(&p, &d);
        }
}

Test(choice, borders) {
    rule_written();
    const disp_device d = disp_device_default();
    disp_device small = d; /* the class is not the GPU's: the same on a GPU of 64 SMs */
    small.sms = 64;
    const disp_device *gpus[] = {&d, &small};
    /* M: 16 is T2's, 17..64 S1's, 65 the other rules'; K: 2048 is S1's, 2049 is not (TN
     * with lda = 2049: R1's copies pad K to 2056); 2045 is S1's (copies: K = 2048) */
    static const int in[][3] = {{17, 1024, 2048},  {64, 1024, 2048}, {17, 4096, 2048},
                                {64, 4096, 2048},  {64, 65, 1},      {17, 16, 2048},
                                {17, 16769, 2048}, {64, 4096, 2045}, {33, 1000, 2047}};
    static const int out[][3] = {{16, 1024, 2048}, {16, 4096, 2048},  {65, 1024, 2048},
                                 {65, 4096, 2048}, {17, 4096, 2049},  {64, 4096, 2049},
                                 {64, 1024, 2049}, {17, 4096, 4096},  {64, 4096, 4096},
                                 {1, 4096, 2048},  {128, 4096, 2048}, {65, 64, 1}};
    for (int g = 0; g < 2; ++g) {
        for (size_t i = 0; i < sizeof in / sizeof in[0]; ++i)
            for (int dt = 0; dt < GEMM_NDTYPES; ++dt) {
                const gemm_problem p = tn(in[i][0], in[i][1], in[i][2], (gemm_dtype)dt);
                if (dt == GEMM_FP32) assert_not_s1(&p, gpus[g]); /* fp32 is never S1's */
                else assert_s1(&p, gpus[g]);
            }
        for (size_t i = 0; i < sizeof out / sizeof out[0]; ++i)
            for (int dt = 0; dt < GEMM_NDTYPES; ++dt) {
                const gemm_problem p = tn(out[i][0], out[i][1], out[i][2], (gemm_dtype)dt);
                assert_not_s1(&p, gpus[g]);
            }
        /* K = 2049 on the 16-byte path (lda = ldb = 2056: no copies), as the rules see it */
        for (int dt = GEMM_FP16; dt <= GEMM_BF16; ++dt) {
            const gemm_problem p = problem(17, 4096, 2049, (gemm_dtype)dt, GEMM_TN, 7, 0);
            const gemm_problem q = problem(64, 1000, 2049, (gemm_dtype)dt, GEMM_TN, 7, 0);
            const gemm_problem r = problem(33, 1000, 2048, (gemm_dtype)dt, GEMM_TN, 8, 0);
            assert_not_s1(&p, gpus[g]);
            assert_not_s1(&q, gpus[g]);
            assert_s1(&r, gpus[g]);
        }
    }
}

Test(choice, sweep_every_problem) {
    rule_written();
    const disp_device d = disp_device_default();
    disp_device small = d;
    small.sms = 64;
    const disp_device *gpus[] = {&d, &small};
    static const int ext[] = {1,   16,  17,   33,   63,   64,   65,   100,  127,   128,
                              129, 500, 1000, 1024, 1025, 1408, 2048, 4093, 16768, 16769};
    static const int ks[] = {1, 7, 33, 64, 512, 1000, 2045, 2048, 2049, 4096, 8192};
    static const struct {
        gemm_layout l;
        int pad, offset;
    } kinds[] = {{GEMM_TN, 0, 0},
                 {GEMM_NN, 0, 0},
                 {GEMM_TT, 3, 1},
                 {GEMM_TN, 1, 0},
                 {GEMM_TN, 7, 0}}; /* pad 7: K = 2049 with lda = 2056, no copies */
    const int ne = sizeof ext / sizeof ext[0], nk = sizeof ks / sizeof ks[0];
    for (int g = 0; g < 2; ++g)
        for (int a = 0; a < ne; ++a)
            for (int b = 0; b < ne; ++b)
                for (int c = 0; c < nk; ++c)
                    for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
                        for (size_t v = 0; v < sizeof kinds / sizeof kinds[0]; ++v) {
                            const gemm_problem p =
                                problem(ext[a], ext[b], ks[c], (gemm_dtype)dt, kinds[v].l,
                                        kinds[v].pad, kinds[v].offset);
                            if (in_class(&p)) assert_s1(&p, gpus[g]);
                            else assert_not_s1(&p, gpus[g]);
                        }
}

/* the lesson's own rule for shapes outside the class (its README's table of the suite) */
Test(choice, outside_unchanged) {
    const disp_device d = disp_device_default();
    static const struct {
        int m, n, k;
        gemm_dtype dt;
        const char *rule;
    } want[] = {
        {16, 4096, 4096, GEMM_FP16, "T2"},   {16, 4096, 1024, GEMM_BF16, "T2"},
        {64, 4096, 16384, GEMM_FP16, "T3"},  {32, 4096, 8192, GEMM_BF16, "T3"},
        {64, 4096, 4096, GEMM_FP16, "T3"},   {17, 14336, 4104, GEMM_FP16, "T3"},
        {128, 4096, 4096, GEMM_FP16, "T7"},  {1024, 1024, 16384, GEMM_BF16, "T7"},
        {2048, 2048, 2048, GEMM_FP16, "T8"}, {4096, 4096, 4096, GEMM_FP16, "T9"},
        {4096, 4096, 1024, GEMM_BF16, "T9"}, {4096, 16, 4096, GEMM_FP16, "T4"},
        {4096, 48, 1024, GEMM_FP16, "T5"},   {1024, 1024, 1024, GEMM_FP32, "F1"},
        {1024, 1024, 1024, GEMM_FP16, "T6"}, {512, 512, 512, GEMM_BF16, "T6"},
        {16, 4096, 4096, GEMM_FP32, "F1"},   {32, 4096, 4096, GEMM_FP32, "F1"},
        {4096, 4096, 4096, GEMM_FP32, "F4"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const gemm_problem p = tn(want[i].m, want[i].n, want[i].k, want[i].dt);
        disp_choice c;
        cr_assert_eq(disp_choose(&p, &d, &c), 0);
        cr_assert(c.rule >= 0 && !strcmp(disp_rules[c.rule].id, want[i].rule),
                  "%dx%dx%d %s is outside the class: the lesson picks it by rule %s, now: %s", p.m,
                  p.n, p.k, dt_name(p.dtype), want[i].rule, said(&p, &d));
    }
    /* 4093^3: R1's copies, then the persistent kernel, as before */
    const gemm_problem o = tn(4093, 4093, 4093, GEMM_FP16);
    disp_choice c;
    cr_assert_eq(disp_choose(&o, &d, &c), 0);
    cr_assert(c.repack && !strcmp(disp_rules[c.rule].id, "T9"), "4093^3 fp16: %s", said(&o, &d));
}

/* ---- row ----------------------------------------------------------------------------- */

static int todo(const char *s) { return !s || !s[0] || strstr(s, EX08_TODO) != NULL; }

Test(row, one_rule) {
    cr_assert_geq(DISP_NRULES, 2);
    cr_assert_str_eq(disp_rules[0].id, "S1", "the first row of the table must be S1");
    cr_assert(disp_rules[0].applies == ex08_s1_applies, "S1's row must call ex08_s1_applies");
    cr_assert_str_eq(disp_rules[1].id, "R1",
                     "DISP_EXERCISE_RULES must hold S1's row alone (then comes the lesson's R1)");
    for (int r = 1; r < DISP_NRULES; ++r)
        cr_assert_str_neq(disp_rules[r].id, "S1", "two rows named S1");
}

Test(row, strings) {
    const disp_rule *s = &disp_rules[0];
    cr_assert(!todo(s->when) && strlen(s->when) >= 20,
              "S1's when is not written yet (TODO 2): \"%s\"", s->when ? s->when : "");
    cr_assert(!todo(s->why) && strlen(s->why) >= 20, "S1's why is not written yet (TODO 2): \"%s\"",
              s->why ? s->why : "");
    cr_assert(!todo(s->measured) && strlen(s->measured) >= 10,
              "S1's measured is not written yet (TODO 2): \"%s\"", s->measured ? s->measured : "");
    /* the when names what the class is made of */
    cr_assert(strstr(s->when, "2048") != NULL,
              "S1's when (\"%s\") does not say the longest K of the class (2048)", s->when);
    cr_assert(strstr(s->when, "64") != NULL,
              "S1's when (\"%s\") does not say the largest M of the class (64)", s->when);
}

Test(row, explain) {
    rule_written();
    const disp_device d = disp_device_default();
    const gemm_problem p = tn(17, 4096, 2048, GEMM_BF16);
    char line[512];
    disp_explain(&p, &d, line, sizeof line);
    cr_assert(strstr(line, "(rule S1: ") != NULL, "--explain for 17x4096x2048: \"%s\"", line);
    cr_assert(!todo(disp_rules[0].when) && strstr(line, disp_rules[0].when) != NULL,
              "--explain does not print S1's when: \"%s\"", line);
    disp_choice c;
    disp_choose(&p, &d, &c);
    cr_assert(strstr(line, disp_configs[c.cfg].name) == line,
              "--explain starts with the configuration: \"%s\"", line);
}
