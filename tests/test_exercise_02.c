/* test_exercise_02.c - lesson 02: the grader of the assignment, and the check of plan.h.
 *
 * Suite "exercise02": one test per question of lessons/02_layout/exercise/README.md. The
 * expected answer is COMPUTED with common/layout.h from the question's inputs (the question
 * text, parsed), never written here; the student's answer comes from answers.c. Built twice
 * (tests/exercise.mk):
 *     make grade02                       with the student's lessons/02_layout/exercise/answers.c
 *     build/tests/test_exercise_02       with the staff solution (exercise/solution/answers.c),
 *                                        part of `make test`
 * A failed question prints the student's answer and a hint, not the expected one.
 *
 * Suite "lesson02_plan": the layouts mA, mB, mC that lessons/02_layout/gemm.cu builds with
 * plan.h give exactly the hand-written offsets of common/harness.h's convention for every
 * element of small problems, in all four operand orders, with and without padded leading
 * dimensions, and fit in the arrays the harness allocates.
 *
 * A report hook prints, above Criterion's "Tested: 13 | Passing: ...", how many of the 10
 * questions are right and how many of the 3 plan checks pass, so a student can tell them apart.
 * Question tests are named q01..q10 so that Criterion's alphabetical order is the README's.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "answers.h"
#include "layout.h"
#include "layout_print.h"
#include "plan.h"

/* ---- helpers ------------------------------------------------------------------------- */

static lay_layout parse_or_die(const char *text) {
    lay_layout L;
    int rc = lay_parse(text, &L);
    cr_assert_eq(rc, LAY_OK, "grader bug: cannot parse %s: %s", text, lay_strerror(rc));
    return L;
}

static void must(int rc, const char *what) {
    cr_assert_eq(rc, LAY_OK, "grader bug: %s failed: %s", what, lay_strerror(rc));
}

/* 1 when a and b are the same function on [0, size) (ignoring their mode structure). */
static int same_function(lay_layout a, lay_layout b) {
    if (lay_size(a) != lay_size(b)) return 0;
    for (int i = 0; i < lay_size(a); ++i)
        if (lay_crd2idx(a, i) != lay_crd2idx(b, i)) return 0;
    return 1;
}

/* The student's layout must be the library's result exactly: same shape, same strides, same
 * nesting (as CuTe prints it). */
static void check_layout(const char *q, lay_layout got, lay_layout expected) {
    char g[256], e[256];
    cr_assert(lay_valid(got), "%s: not answered yet (or not a layout: check the text)", q);
    lay_sprint(g, sizeof g, got);
    lay_sprint(e, sizeof e, expected);
    if (strcmp(g, e) == 0) return;
    if (same_function(got, expected))
        cr_assert_fail("%s: %s is the right function but not the expected modes; "
                "keep the structure the operation produces (see the README)", q, g);
    else if (lay_size(got) != lay_size(expected))
        cr_assert_fail("%s: %s has size %d, the answer has size %d", q, g, lay_size(got),
                lay_size(expected));
    else
        cr_assert_fail("%s: %s is not the answer (a different function)", q, g);
}

static void check_value(const char *q, lay_off got, lay_off expected) {
    cr_assert(got != EX02_TODO, "%s: not answered yet", q);
    cr_assert(got == expected, "%s: %lld is not the answer", q, got);
}

/* ---- the questions ------------------------------------------------------------------- */

Test(exercise02, q01_offset_of_a_coordinate) {
    lay_layout L = parse_or_die("(4,8):(8,1)");
    check_value("Q1", ex02_q1_offset(), lay_crd2idx2(L, 2, 3));
}

Test(exercise02, q02_offset_of_a_1d_index) {
    lay_layout L = parse_or_die("(4,8):(8,1)");
    check_value("Q2", ex02_q2_index(), lay_crd2idx(L, 13));
}

Test(exercise02, q03_coalesce) {
    lay_layout R;
    must(lay_coalesce(&R, parse_or_die("((2,4),3):((1,2),8)")), "coalesce");
    check_layout("Q3", ex02_q3_coalesce(), R);
}

Test(exercise02, q04_padded_kmajor_tile) {
    const int tile_m = 16, tile_k = 16, pad = 4;
    /* K-major: k has stride 1, the next row starts tile_k + pad floats later */
    check_layout("Q4", ex02_q4_padded_tile(), p2_layout_A(tile_m, tile_k, tile_k + pad, 1));
}

Test(exercise02, q05_mB_of_TT) {
    const int N = 6, K = 4, ldb = 8;
    const int b_kmajor = 0; /* TT: B(n,k) at B[n + k*ldb] (common/harness.h) */
    check_layout("Q5", ex02_q5_mB_TT(), p2_layout_B(N, K, ldb, b_kmajor));
}

Test(exercise02, q06_composition) {
    lay_layout R;
    must(lay_composition(&R, parse_or_die("(4,8):(8,1)"), parse_or_die("(8,4):(4,1)")),
         "composition");
    check_layout("Q6", ex02_q6_compose(), R);
}

Test(exercise02, q07_complement) {
    lay_layout R;
    must(lay_complement(&R, parse_or_die("4:2"), 24), "complement");
    check_layout("Q7", ex02_q7_complement(), R);
}

Test(exercise02, q08_zipped_divide) {
    lay_layout R;
    lay_tiler T;
    must(lay_parse_tiler("<4:1,4:1>", &T), "parse tiler");
    must(lay_zipped_divide(&R, parse_or_die("(8,8):(8,1)"), T), "zipped_divide");
    check_layout("Q8", ex02_q8_zipped_divide(), R);
}

Test(exercise02, q09_blocked_product) {
    lay_layout R;
    must(lay_blocked_product(&R, parse_or_die("(2,2):(1,2)"), parse_or_die("(2,3):(1,2)")),
         "blocked_product");
    check_layout("Q9", ex02_q9_blocked_product(), R);
}

Test(exercise02, q10_swizzle) {
    lay_swizzle sw;
    must(lay_swizzle_make(&sw, 3, 4, 3), "swizzle");
    const lay_off elem_bytes = 4; /* float */
    lay_off x = lay_crd2idx2(parse_or_die("(8,32):(32,1)"), 1, 4) * elem_bytes;
    check_value("Q10", ex02_q10_swizzle(), lay_swizzle_apply(sw, x));
}

/* ---- lesson 02's plan: layouts == hand-written offsets -------------------------------- */

/* The operand orders as common/harness.c derives them: K-major A for TN/TT, K-major B for
 * TN/NN. */
static const struct {
    const char *name;
    int a_kmajor, b_kmajor;
} orders[] = {{"TN", 1, 1}, {"NT", 0, 0}, {"NN", 0, 1}, {"TT", 1, 0}};

/* Hand-written offsets straight from common/harness.h's table (independent of plan.h). */
static lay_off doc_A(int m, int k, int lda, int kmaj) { return kmaj ? (lay_off)m * lda + k : m + (lay_off)k * lda; }
static lay_off doc_B(int n, int k, int ldb, int kmaj) { return kmaj ? (lay_off)n * ldb + k : n + (lay_off)k * ldb; }

Test(lesson02_plan, layouts_give_the_hand_written_offsets) {
    const int sizes[][3] = {{5, 7, 3}, {1, 9, 4}, {8, 1, 1}, {13, 6, 11}};
    for (int o = 0; o < 4; ++o)
        for (int s = 0; s < 4; ++s)
            for (int pad = 0; pad <= 3; pad += 3) {
                const int M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];
                const int ak = orders[o].a_kmajor, bk = orders[o].b_kmajor;
                /* leading dimensions as the harness sets them (--pad adds to each) */
                const int lda = (ak ? K : M) + pad, ldb = (bk ? K : N) + pad, ldc = N + pad;
                lay_layout mA = p2_layout_A(M, K, lda, ak); /* (M,K) */
                lay_layout mB = p2_layout_B(N, K, ldb, bk); /* (N,K) */
                lay_layout mC = p2_layout_C(M, N, ldc);     /* (M,N) */
                cr_assert(lay_valid(mA) && lay_valid(mB) && lay_valid(mC));
                cr_assert_eq(lay_size(mA), M * K);
                cr_assert_eq(lay_size(mB), N * K);
                cr_assert_eq(lay_size(mC), M * N);
                for (int m = 0; m < M; ++m)
                    for (int k = 0; k < K; ++k) {
                        lay_off got = lay_crd2idx2(mA, m, k);
                        cr_assert_eq(got, doc_A(m, k, lda, ak), "%s A(%d,%d) pad %d",
                                     orders[o].name, m, k, pad);
                        cr_assert_eq(got, p2_hand_A(m, k, lda, ak));
                        /* the 1-D index m + M*k (colexicographic) names the same element */
                        cr_assert_eq(lay_crd2idx(mA, m + (lay_off)M * k), got);
                    }
                for (int n = 0; n < N; ++n)
                    for (int k = 0; k < K; ++k) {
                        lay_off got = lay_crd2idx2(mB, n, k);
                        cr_assert_eq(got, doc_B(n, k, ldb, bk), "%s B(%d,%d) pad %d",
                                     orders[o].name, n, k, pad);
                        cr_assert_eq(got, p2_hand_B(n, k, ldb, bk));
                    }
                for (int m = 0; m < M; ++m)
                    for (int n = 0; n < N; ++n) {
                        lay_off got = lay_crd2idx2(mC, m, n);
                        cr_assert_eq(got, (lay_off)m * ldc + n);
                        cr_assert_eq(got, p2_hand_C(m, n, ldc));
                    }
                /* each layout stays inside the array the harness allocates:
                 * (outer - 1) * ld + inner elements */
                lay_off a_elems = (lay_off)((ak ? M : K) - 1) * lda + (ak ? K : M);
                lay_off b_elems = (lay_off)((bk ? N : K) - 1) * ldb + (bk ? K : N);
                lay_off c_elems = (lay_off)(M - 1) * ldc + N;
                cr_assert_eq(lay_cosize(mA), a_elems, "%s pad %d", orders[o].name, pad);
                cr_assert_eq(lay_cosize(mB), b_elems, "%s pad %d", orders[o].name, pad);
                cr_assert_eq(lay_cosize(mC), c_elems);
            }
}

/* coalesce follows the colexicographic order (mode 0 fastest): an unpadded M-major A,
 * (M,K):(1,M), walks memory 0,1,2,... and coalesces to one mode M*K:1; a K-major A,
 * (M,K):(K,1), is just as contiguous but not in that order (index 1 is offset K) and stays two
 * modes. Padding (lda > M) breaks the M-major merge too. */
Test(lesson02_plan, coalesce_follows_colexicographic_order) {
    const int M = 6, K = 4;
    lay_layout R;
    must(lay_coalesce(&R, p2_layout_A(M, K, M, 0)), "coalesce");
    cr_assert(R.n == 1 && R.shape[0] == M * K && R.stride[0] == 1);
    must(lay_coalesce(&R, p2_layout_A(M, K, M + 3, 0)), "coalesce");
    cr_assert_eq(R.n, 2);
    must(lay_coalesce(&R, p2_layout_A(M, K, K, 1)), "coalesce");
    cr_assert_eq(R.n, 2);
}

/* A small GEMM through the layouts equals the same GEMM through hand-written offsets, bit for
 * bit, in every order with padding: the arithmetic the kernel does, on the CPU. */
Test(lesson02_plan, cpu_gemm_through_layouts) {
    enum { M = 7, N = 5, K = 6, PAD = 2, CAP = 128 };
    float A[CAP], B[CAP], C1[CAP], C2[CAP];
    for (int i = 0; i < CAP; ++i) {
        A[i] = (float)((i * 7) % 11) - 5.0f;
        B[i] = (float)((i * 5) % 13) - 6.0f;
    }
    for (int o = 0; o < 4; ++o) {
        const int ak = orders[o].a_kmajor, bk = orders[o].b_kmajor;
        const int lda = (ak ? K : M) + PAD, ldb = (bk ? K : N) + PAD, ldc = N + PAD;
        lay_tensor mA = lay_make_tensor(A, p2_layout_A(M, K, lda, ak)); /* (M,K) */
        lay_tensor mB = lay_make_tensor(B, p2_layout_B(N, K, ldb, bk)); /* (N,K) */
        lay_tensor mC = lay_make_tensor(C1, p2_layout_C(M, N, ldc));    /* (M,N) */
        cr_assert(lay_cosize(mA.layout) <= CAP && lay_cosize(mB.layout) <= CAP &&
                  lay_cosize(mC.layout) <= CAP);
        for (int i = 0; i < CAP; ++i) C1[i] = C2[i] = -1.0f;
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
                float acc1 = 0.0f, acc2 = 0.0f;
                for (int k = 0; k < K; ++k) {
                    acc1 += LAY_AT2(mA, float, m, k) * LAY_AT2(mB, float, n, k);
                    acc2 += A[doc_A(m, k, lda, ak)] * B[doc_B(n, k, ldb, bk)];
                }
                LAY_AT2(mC, float, m, n) = acc1;
                C2[(lay_off)m * ldc + n] = acc2;
            }
        cr_assert(memcmp(C1, C2, sizeof C1) == 0, "%s: results differ", orders[o].name);
    }
}

/* ---- the summary: questions and plan checks counted apart ------------------------------ */

/* Criterion's "Tested: 13 | Passing: ..." counts both suites; this line, printed before it,
 * says how many of the 10 questions are right and whether the 3 checks of plan.h pass. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats) {
    size_t q_ok = 0, q_n = 0, p_ok = 0, p_n = 0;
    for (struct criterion_suite_stats *s = stats->suites; s; s = s->next) {
        if (strcmp(s->suite->name, "exercise02") == 0) {
            q_ok += s->tests_passed;
            q_n += s->nb_tests - s->tests_skipped;
        } else {
            p_ok += s->tests_passed;
            p_n += s->nb_tests - s->tests_skipped;
        }
    }
    fprintf(stderr, "[====] Lesson 02: questions right %zu of %zu (suite exercise02) | "
            "plan.h checks passing %zu of %zu (suite lesson02_plan, not questions)\n",
            q_ok, q_n, p_ok, p_n);
}
