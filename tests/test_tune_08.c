/* test_tune_08.c - CPU proofs for lesson 08's tuning (lessons/08_dispatch/tune.h), Criterion.
 * The device is the H200 of disp_device_default.
 *
 *   - the candidates --tune times: each accepted by its configuration, each once, the rules'
 *     choice among them, the split choices (the rule's, half, double, 1), both orientations
 *     for split-K configurations only, the K-major copies only where the rules would copy;
 *   - the table: a line formatted and parsed back is the same entry (every configuration,
 *     split, orientation, operands, dtype, layout, epilogue); malformed lines are rejected
 *     with a reason; comments and blank lines are no entries;
 *   - loading: line numbers, duplicates, an entry whose configuration refuses its problem;
 *   - lookup: exact match only (dtype, layout, M, N, K, epilogue), the rules otherwise; an
 *     entry that refuses the actual problem (another alignment) is refused, not replaced;
 *   - --explain's line says "tuned (FILE line N)".
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "../lessons/08_dispatch/tune.h"
#include "problem_08.h"

static const int sizes[][3] = {{16, 4096, 4096},   {64, 4096, 4096},   {512, 512, 512},
                               {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192},
                               {4093, 4093, 4093}, {1, 1, 1},          {4096, 16, 4096},
                               {127, 129, 67},     {32, 4096, 4096},   {96, 8192, 8192}};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

Test(candidates, each_accepted_once_and_the_rules_choice_among_them) {
    const disp_device d = disp_device_default();
    static disp_choice c[DISP_MAX_CANDIDATES];
    char why[256];
    for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
        for (int l = 0; l < GEMM_NLAYOUTS; ++l)
            for (int s = 0; s < NSIZES; ++s) {
                const gemm_problem p = problem(sizes[s][0], sizes[s][1], sizes[s][2],
                                               (gemm_dtype)dt, (gemm_layout)l, 0, 0);
                const int n = disp_candidates(&p, &d, c, DISP_MAX_CANDIDATES);
                cr_assert(n >= 1 && n <= DISP_MAX_CANDIDATES, "%dx%dx%d: %d candidates", p.m, p.n,
                          p.k, n);
                disp_choice rule;
                cr_assert_eq(disp_choose(&p, &d, &rule), 0);
                int found = 0;
                for (int i = 0; i < n; ++i) {
                    cr_assert_null(disp_choice_refusal(&c[i], &p, &d, why, sizeof why),
                                   "%dx%dx%d: candidate %s split %d refuses: %s", p.m, p.n, p.k,
                                   disp_configs[c[i].cfg].name, c[i].split, why);
                    cr_assert(c[i].split >= 1 && c[i].split <= DISP_MAX_SPLIT);
                    cr_assert(!c[i].transposed || disp_configs[c[i].cfg].sched == DISP_SPLITK);
                    cr_assert(!c[i].repack || !disp_fast_path(&p), "copies only where needed");
                    if (c[i].repack) { /* the copies' problem: TN, K padded to a multiple of 8 */
                        const gemm_problem q = disp_choice_problem(&p, &c[i]);
                        cr_assert(q.k == (p.k + 7) / 8 * 8 && q.lda == q.k && q.ldb == q.k &&
                                      q.layout == GEMM_TN,
                                  "%dx%dx%d: a copied candidate runs K = %d", p.m, p.n, p.k, q.k);
                    }
                    cr_assert(disp_configs[c[i].cfg].dtypes & GEMM_DT_BIT(dt));
                    for (int j = 0; j < i; ++j)
                        cr_assert(!disp_same_run(&c[i], &c[j]), "%dx%dx%d: candidate %d twice", p.m,
                                  p.n, p.k, i);
                    found += disp_same_run(&c[i], &rule);
                }
                cr_assert_eq(found, 1,
                             "%dx%dx%d %d %d: the rules' choice %s split %d is not a "
                             "candidate",
                             p.m, p.n, p.k, dt, l, disp_configs[rule.cfg].name, rule.split);
            }
}

/* 512^3 fp16 TN: every TC configuration; the split-K ones with the rule's split (1 for
 * 128x128x32_s4_splitk: no TC split at K <= DISP_NO_SPLIT_K_TC) and double (2), on C and C^T;
 * the others on C only. */
Test(candidates, splits_and_orientations_of_512_cubed) {
    const disp_device d = disp_device_default();
    static disp_choice c[DISP_MAX_CANDIDATES];
    const gemm_problem p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    const int n = disp_candidates(&p, &d, c, DISP_MAX_CANDIDATES);
    int splits[DISP_MAX_SPLIT + 1][2];
    memset(splits, 0, sizeof splits);
    int plain = 0;
    for (int i = 0; i < n; ++i) {
        cr_assert(!c[i].repack);
        if (c[i].cfg == disp_find("128x128x32_s4_splitk")) ++splits[c[i].split][c[i].transposed];
        if (disp_configs[c[i].cfg].sched != DISP_SPLITK) {
            cr_assert_eq(c[i].split, 1);
            cr_assert_eq(c[i].transposed, 0);
            ++plain;
        }
    }
    cr_assert_eq(plain, 5); /* the one-CTA-per-tile, persistent and stream-K configurations */
    for (int t = 0; t < 2; ++t) {
        cr_assert_eq(splits[1][t], 1);
        cr_assert_eq(splits[2][t], 1);
        cr_assert_eq(splits[3][t] + splits[4][t] + splits[8][t], 0);
    }
    int sc[4];
    cr_assert_eq(disp_split_choices(12, sc), 4);
    cr_assert(sc[0] == 12 && sc[1] == 6 && sc[2] == 24 && sc[3] == 1);
    cr_assert_eq(disp_split_choices(1, sc), 2);
    cr_assert(sc[0] == 1 && sc[1] == 2);
    cr_assert_eq(disp_split_choices(2, sc), 3);
    cr_assert(sc[0] == 2 && sc[1] == 1 && sc[2] == 4);
}

/* The workspace bounds what runs through the partial sums: 8192^2 fp32 partials are the whole
 * 256 MiB, so no split above 1 (C^T with split 1 just fits). */
Test(candidates, large_outputs_have_no_partial_sums) {
    const disp_device d = disp_device_default();
    static disp_choice c[DISP_MAX_CANDIDATES];
    const gemm_problem p = problem(8192, 8192, 8192, GEMM_BF16, GEMM_TN, 0, 0);
    const int n = disp_candidates(&p, &d, c, DISP_MAX_CANDIDATES);
    cr_assert_eq(n, 11); /* every TC configuration on C, the 3 split-K ones on C^T too */
    for (int i = 0; i < n; ++i) cr_assert(c[i].split == 1 && !c[i].repack);
    /* NN: the generic path of the four gathering configurations, and everything on copies */
    const gemm_problem q = problem(4096, 4096, 4096, GEMM_FP16, GEMM_NN, 0, 0);
    const int m = disp_candidates(&q, &d, c, DISP_MAX_CANDIDATES);
    int direct = 0;
    for (int i = 0; i < m; ++i) direct += !c[i].repack;
    cr_assert_eq(direct, 4);
    cr_assert_gt(m, direct);
}

/* ---- the table ---- */

Test(table, format_and_parse_round_trip) {
    char line[512], err[256];
    for (int ci = 0; ci < DISP_NCONFIGS; ++ci)
        for (int dt = 0; dt < GEMM_NDTYPES; ++dt)
            for (int l = 0; l < GEMM_NLAYOUTS; ++l)
                for (int e = 0; e < GEMM_NEPIS; ++e) {
                    gemm_problem p = problem(17 + ci, 4096 - dt, 65536 - l, (gemm_dtype)dt,
                                             (gemm_layout)l, 0, 0);
                    p.epilogue = (gemm_epi)e;
                    const disp_choice c = {ci, 1 + (ci + e) % DISP_MAX_SPLIT, (dt + l) % 2, e % 2,
                                           -1};
                    const double ms = 0.0123 * (1 + ci + e);
                    disp_tuned_format(&p, &c, ms, line, sizeof line);
                    disp_tuned_entry t;
                    cr_assert_eq(disp_tuned_parse(line, &t, err, sizeof err), 1, "%s: %s", line,
                                 err);
                    cr_assert(t.dtype == p.dtype && t.layout == p.layout && t.m == p.m &&
                                  t.n == p.n && t.k == p.k && t.epilogue == p.epilogue,
                              "%s", line);
                    cr_assert(disp_same_run(&t.run, &c), "%s", line);
                    cr_assert_float_eq(t.ms, ms, 1e-6 * ms, "%s", line);
                }
    /* the words themselves */
    const gemm_problem p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    const disp_choice c = {disp_find("128x128x32_s4_splitk"), 4, 0, 0, -1};
    disp_tuned_format(&p, &c, 0.0213, line, sizeof line);
    cr_assert_str_eq(line, "fp16 TN 512 512 512 none -> 128x128x32_s4_splitk 4 C direct 0.0213");
}

Test(table, comments_and_blank_lines_are_no_entries) {
    disp_tuned_entry e;
    char err[256];
    cr_assert_eq(disp_tuned_parse("", &e, err, sizeof err), 0);
    cr_assert_eq(disp_tuned_parse("   \t\r", &e, err, sizeof err), 0);
    cr_assert_eq(disp_tuned_parse("# fp16 TN 1 1 1 none -> x", &e, err, sizeof err), 0);
    cr_assert_eq(disp_tuned_parse("fp32 NT 3 5 7 none -> simt_32x64x8_2w 2 CT direct 1.5 # ok", &e,
                                  err, sizeof err),
                 1, "%s", err);
    cr_assert(e.dtype == GEMM_FP32 && e.layout == GEMM_NT && e.m == 3 && e.n == 5 && e.k == 7);
    cr_assert(e.run.cfg == disp_find("simt_32x64x8_2w") && e.run.split == 2 && e.run.transposed);
}

Test(table, malformed_lines_are_rejected_with_a_reason) {
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct", "12 words"},
        {"fp16 TN 512 512 512 none => 128x128x64_s3 1 C direct 1", "12 words"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct 1 extra", "13 words"},
        {"fp8 TN 512 512 512 none -> 128x128x64_s3 1 C direct 1", "unknown dtype 'fp8'"},
        {"fp16 XX 512 512 512 none -> 128x128x64_s3 1 C direct 1", "unknown layout 'XX'"},
        {"fp16 TN 0 512 512 none -> 128x128x64_s3 1 C direct 1", "bad extent '0'"},
        {"fp16 TN 512 65537 512 none -> 128x128x64_s3 1 C direct 1", "bad extent '65537'"},
        {"fp16 TN 512 512 5x2 none -> 128x128x64_s3 1 C direct 1", "bad extent '5x2'"},
        {"fp16 TN 512 512 512 silu -> 128x128x64_s3 1 C direct 1", "unknown epilogue 'silu'"},
        {"fp16 TN 512 512 512 none -> 256x256x64_s9 1 C direct 1", "unknown configuration"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 17 C direct 1", "bad split '17'"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 0 C direct 1", "bad split '0'"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 T direct 1", "bad orientation 'T'"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C packed 1", "bad operands 'packed'"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct fast", "bad time 'fast'"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct -1", "bad time '-1'"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        disp_tuned_entry e;
        char err[256] = "";
        cr_assert_eq(disp_tuned_parse(bad[i].line, &e, err, sizeof err), -1, "accepted: %s",
                     bad[i].line);
        cr_assert(strstr(err, bad[i].why), "%s: reason '%s', want '%s'", bad[i].line, err,
                  bad[i].why);
    }
}

Test(table, load_checks_every_entry_with_its_line) {
    const disp_device d = disp_device_default();
    disp_tuned t;
    char err[320];
    const char *good = "# a comment\n"
                       "fp16 TN 512 512 512 none -> 64x128x64_s3_splitk 2 C direct 0.02\n"
                       "\n"
                       "bf16 NN 4096 4096 4096 none -> 128x256x64_s3_persistent 1 C copied 0.3\n"
                       "fp32 TN 16 4096 4096 none -> simt_32x64x8_2w 8 C direct 0.1";
    cr_assert_eq(disp_tuned_load(good, "t.txt", &d, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n, 3);
    cr_assert(t.e[0].line == 2 && t.e[1].line == 4 && t.e[2].line == 5);
    cr_assert_str_eq(t.path, "t.txt");
    disp_tuned_free(&t);
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"# x\nfp16 TN 512 512 512 none -> nope 1 C direct 1\n",
         "t.txt line 2: unknown configuration 'nope'"},
        {"fp16 TN 512 512 512 none -> 64x128x64_s3_splitk 2 C direct 1\n"
         "fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct 1\n",
         "t.txt line 2: the same problem as line 1"},
        /* the split-K tiles read K-major operands only */
        {"fp16 NN 512 512 512 none -> 64x128x64_s3_splitk 2 C direct 1\n",
         "t.txt line 1: 64x128x64_s3_splitk refuses 512x512x512 fp16 NN: needs A and B K-major"},
        {"fp32 TN 512 512 512 none -> 128x128x64_s3 1 C direct 1\n",
         "128x128x64_s3 refuses 512x512x512 fp32 TN: computes fp16 and bf16 only"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 2 C direct 1\n", "has no K split"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 CT direct 1\n", "computes C only"},
        {"fp16 TN 512 512 64 none -> 128x128x32_s4_splitk 4 C direct 1\n", "K split 4 needs"},
        {"fp16 TN 8192 8192 8192 none -> 128x128x32_s4_splitk 2 C direct 1\n", "workspace"},
        {"fp32 NN 512 512 512 none -> simt_128x128x8_4w 1 C copied 1\n", "copied operands need"},
        {"fp16 TN 512 512 512 none -> 128x128x64_s3 1 C direct\n", "t.txt line 1: expected"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = '\0';
        cr_assert_eq(disp_tuned_load(bad[i].text, "t.txt", &d, &t, err, sizeof err), -1,
                     "accepted: %s", bad[i].text);
        cr_assert(strstr(err, bad[i].why), "reason '%s', want '%s'", err, bad[i].why);
        cr_assert_eq(t.n, 0);
    }
}

Test(lookup, exact_match_only_and_the_rules_otherwise) {
    const disp_device d = disp_device_default();
    disp_tuned t;
    char err[320];
    cr_assert_eq(disp_tuned_load("fp16 TN 512 512 512 none -> 64x128x64_s3_splitk 2 CT direct 1\n"
                                 "fp16 NN 512 512 512 none -> 128x128x64_s3 1 C direct 1\n",
                                 "t.txt", &d, &t, err, sizeof err),
                 0, "%s", err);
    gemm_problem p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    disp_choice c, r;
    int line;
    cr_assert_eq(disp_choose_tuned(&p, &d, &t, &c, &line, err, sizeof err), 0);
    cr_assert_eq(line, 1);
    cr_assert(c.cfg == disp_find("64x128x64_s3_splitk") && c.split == 2 && c.transposed &&
              !c.repack);
    /* NN: the table's generic-path entry, not rule R1's copies */
    p = problem(512, 512, 512, GEMM_FP16, GEMM_NN, 0, 0);
    cr_assert_eq(disp_choose_tuned(&p, &d, &t, &c, &line, err, sizeof err), 0);
    cr_assert(line == 2 && c.cfg == disp_find("128x128x64_s3") && !c.repack);
    /* one extent, the dtype, the layout or the epilogue different: the rules */
    gemm_problem others[6];
    others[0] = problem(512, 512, 513, GEMM_FP16, GEMM_TN, 0, 0);
    others[1] = problem(511, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    others[2] = problem(512, 1024, 512, GEMM_FP16, GEMM_TN, 0, 0);
    others[3] = problem(512, 512, 512, GEMM_BF16, GEMM_TN, 0, 0);
    others[4] = problem(512, 512, 512, GEMM_FP16, GEMM_TT, 0, 0);
    others[5] = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    others[5].epilogue = GEMM_EPI_BIAS;
    for (int i = 0; i < 6; ++i) {
        cr_assert_eq(disp_tuned_find(&t, &others[i]), -1, "case %d", i);
        cr_assert_eq(disp_choose_tuned(&others[i], &d, &t, &c, &line, err, sizeof err), 0);
        cr_assert_eq(disp_choose(&others[i], &d, &r), 0);
        cr_assert(line == 0 && disp_same_run(&c, &r) && c.rule == r.rule, "case %d", i);
    }
    /* no table at all: the rules */
    cr_assert_eq(disp_choose_tuned(&others[0], &d, NULL, &c, &line, err, sizeof err), 0);
    cr_assert_eq(line, 0);
    /* the entry's problem with A one element off: its split-K tile cannot read it; refused */
    p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 1);
    cr_assert_eq(disp_choose_tuned(&p, &d, &t, &c, &line, err, sizeof err), -2);
    cr_assert(strstr(err, "the tuned entry (t.txt line 1) runs 64x128x64_s3_splitk, which refuses"),
              "%s", err);
    disp_tuned_free(&t);
}

Test(lookup, explain_says_tuned_with_file_and_line) {
    const disp_device d = disp_device_default();
    disp_tuned t;
    char err[320], line[512];
    cr_assert_eq(
        disp_tuned_load("\n\nfp16 TN 512 512 512 none -> 128x128x32_s4_splitk 4 C direct 1\n",
                        "tune_08.txt", &d, &t, err, sizeof err),
        0, "%s", err);
    gemm_problem p = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    disp_explain_tuned(&p, &d, &t, line, sizeof line);
    cr_assert_str_eq(line, "128x128x32_s4_splitk, K split 4 (tuned (tune_08.txt line 3))");
    p = problem(1024, 1024, 1024, GEMM_FP16, GEMM_TN, 0, 0);
    disp_explain_tuned(&p, &d, &t, line, sizeof line);
    cr_assert(strstr(line, "(rule T6: "), "%s", line);
    disp_tuned_free(&t);
    /* a copied entry: the copies' K, padded to a multiple of 8, as the rules' line says it */
    cr_assert_eq(disp_tuned_load("fp16 NN 127 129 67 none -> 64x128x64_s3_splitk 1 C copied 1\n"
                                 "bf16 NT 512 512 512 none -> 128x128x64_s3 1 C copied 1\n",
                                 "t.txt", &d, &t, err, sizeof err),
                 0, "%s", err);
    p = problem(127, 129, 67, GEMM_FP16, GEMM_NN, 0, 0);
    disp_explain_tuned(&p, &d, &t, line, sizeof line);
    cr_assert_str_eq(line, "A and B copied K-major with K zero-padded to 72, then "
                           "64x128x64_s3_splitk (tuned (t.txt line 1))");
    p = problem(512, 512, 512, GEMM_BF16, GEMM_NT, 0, 0);
    disp_explain_tuned(&p, &d, &t, line, sizeof line);
    cr_assert_str_eq(line, "A and B copied K-major, then 128x128x64_s3 (tuned (t.txt line 2))");
    disp_tuned_free(&t);
}

/* ---- the epilogue in the candidates and the table ---------------------------------------- */

static gemm_problem with_epi(gemm_problem p, gemm_dtype out, gemm_epi e, float beta) {
    p.c_dtype = out;
    p.epilogue = e;
    p.bias_dtype = out;
    p.bias = GEMM_EPI_HAS_BIAS(e) ? (const void *)0x400000 : NULL;
    p.beta = beta;
    return p;
}

/* With an epilogue every candidate still runs (accepted, and with a place for the epilogue:
 * fused, or in the reduction with room in the workspace), the rules' choice among them; the
 * configurations without a fused epilogue drop out of the 16-byte path. */
Test(candidates, with_an_epilogue_each_has_a_place_for_it) {
    const disp_device d = disp_device_default();
    static disp_choice c[DISP_MAX_CANDIDATES];
    char why[256], name[96];
    static const gemm_epi es[] = {GEMM_EPI_BIAS, GEMM_EPI_BIAS_GELU, GEMM_EPI_RELU};
    for (int dt = 1; dt < GEMM_NDTYPES; ++dt)
        for (int out = 0; out < GEMM_NDTYPES; ++out)
            for (unsigned e = 0; e < sizeof es / sizeof es[0]; ++e)
                for (int l = 0; l < GEMM_NLAYOUTS; l += 2)
                    for (int s = 0; s < NSIZES; ++s) {
                        const gemm_problem p =
                            with_epi(problem(sizes[s][0], sizes[s][1], sizes[s][2], (gemm_dtype)dt,
                                             (gemm_layout)l, 0, 0),
                                     (gemm_dtype)out, es[e], s % 2 ? 0.5f : 0.0f);
                        const int n = disp_candidates(&p, &d, c, DISP_MAX_CANDIDATES);
                        disp_choice rule;
                        cr_assert_eq(disp_choose(&p, &d, &rule), 0);
                        int found = 0;
                        for (int i = 0; i < n; ++i) {
                            cr_assert_null(disp_choice_refusal(&c[i], &p, &d, why, sizeof why),
                                           "%dx%dx%d: %s", p.m, p.n, p.k, why);
                            const gemm_problem q = disp_choice_problem(&p, &c[i]);
                            const disp_config *cf = &disp_configs[c[i].cfg];
                            const disp_epi_at at =
                                disp_epi_where(cf, &q, c[i].split, c[i].transposed);
                            cr_assert_neq(at, DISP_EPI_NONE, "%s", cf->name);
                            disp_cand_name(&p, &c[i], name, sizeof name);
                            cr_assert(strstr(name, at == DISP_EPI_KERNEL ? " fused" : " reduce"),
                                      "%s", name);
                            found += disp_same_run(&c[i], &rule);
                        }
                        cr_assert_eq(found, 1, "%dx%dx%d: the rules' choice is not a candidate",
                                     p.m, p.n, p.k);
                    }
    /* 4096^3 bias_gelu fp16: the persistent kernel fused, the split-K tiles reduced, the
     * other one-CTA-per-tile kernels none */
    const gemm_problem p = with_epi(problem(4096, 4096, 4096, GEMM_FP16, GEMM_TN, 0, 0), GEMM_FP16,
                                    GEMM_EPI_BIAS_GELU, 0.0f);
    const int n = disp_candidates(&p, &d, c, DISP_MAX_CANDIDATES);
    int fused = 0, plain_tiles = 0;
    for (int i = 0; i < n; ++i) {
        disp_cand_name(&p, &c[i], name, sizeof name);
        fused += !strcmp(name, "128x256x64_s3_persistent split 1 C fused");
        plain_tiles += disp_configs[c[i].cfg].sched == DISP_TILE;
    }
    cr_assert_eq(fused, 1);
    cr_assert_eq(plain_tiles, 0);
    /* a plain problem's names say nothing of the epilogue */
    const gemm_problem q = problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0);
    const disp_choice k = {disp_find("128x128x32_s4_splitk"), 4, 0, 0, -1};
    disp_cand_name(&q, &k, name, sizeof name);
    cr_assert_str_eq(name, "128x128x32_s4_splitk split 4 C");
}

/* The key's epilogue word carries the output type when it is not the inputs' own. */
Test(table, the_epilogue_word_carries_another_output_type) {
    char line[512], err[256];
    const disp_device d = disp_device_default();
    const disp_choice c = {disp_find("128x256x64_s3_persistent"), 1, 0, 0, -1};
    gemm_problem p = with_epi(problem(4096, 4096, 4096, GEMM_BF16, GEMM_TN, 0, 0), GEMM_FP32,
                              GEMM_EPI_BIAS_GELU, 0.0f);
    disp_tuned_format(&p, &c, 0.5, line, sizeof line);
    cr_assert_str_eq(
        line, "bf16 TN 4096 4096 4096 bias_gelu:fp32 -> 128x256x64_s3_persistent 1 C direct 0.5");
    disp_tuned_entry e;
    cr_assert_eq(disp_tuned_parse(line, &e, err, sizeof err), 1, "%s", err);
    cr_assert(e.epilogue == GEMM_EPI_BIAS_GELU && e.out == GEMM_FP32 && e.dtype == GEMM_BF16);
    cr_assert_eq(
        disp_tuned_parse("fp16 TN 1 1 1 relu -> 128x128x64_s3 1 C direct 1", &e, err, sizeof err),
        1);
    cr_assert_eq(e.out, GEMM_FP16);
    cr_assert_eq(disp_tuned_parse("fp16 TN 1 1 1 relu:fp8 -> 128x128x64_s3 1 C direct 1", &e, err,
                                  sizeof err),
                 -1);
    cr_assert(strstr(err, "unknown output type 'fp8'"), "%s", err);
    cr_assert_eq(disp_tuned_parse("fp16 TN 1 1 1 silu:fp32 -> 128x128x64_s3 1 C direct 1", &e, err,
                                  sizeof err),
                 -1);
    cr_assert(strstr(err, "unknown epilogue 'silu'"), "%s", err);
    /* lookup: the output type is part of the key */
    disp_tuned t;
    cr_assert_eq(
        disp_tuned_load(
            "bf16 TN 4096 4096 4096 bias_gelu:fp32 -> 128x256x64_s3_persistent 1 C direct 1\n"
            "bf16 TN 4096 4096 4096 bias_gelu -> 128x128x32_s4_splitk 1 C direct 1\n",
            "t.txt", &d, &t, err, sizeof err),
        0, "%s", err);
    cr_assert_eq(disp_tuned_find(&t, &p), 0);
    p.c_dtype = GEMM_BF16;
    cr_assert_eq(disp_tuned_find(&t, &p), 1);
    p.c_dtype = GEMM_FP16;
    cr_assert_eq(disp_tuned_find(&t, &p), -1);
    disp_tuned_free(&t);
    /* an entry whose configuration has no place for its epilogue is refused at load */
    cr_assert_eq(disp_tuned_load("fp16 TN 4096 4096 4096 bias -> 128x128x64_s3 1 C direct 1\n",
                                 "t.txt", &d, &t, err, sizeof err),
                 -1);
    cr_assert(strstr(err, "t.txt line 1: 128x128x64_s3 refuses") && strstr(err, "epilogue"), "%s",
              err);
}
