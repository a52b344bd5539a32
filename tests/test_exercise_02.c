/* test_exercise_02.c - lesson 02: the CPU grader of the assignment (lessons/02_layout/exercise).
 *
 * One Criterion test per question of the exercise's README (suite exercise02, q01..q10, so
 * that Criterion's order is the README's); the rubric (exercise/rubric.txt) gives each its
 * points. The expected answer is COMPUTED with common/layout.h from the question's inputs (the
 * question text, parsed), never written here; the learner's answer comes from answers.c. A
 * failed question prints the learner's answer and a hint, never the expected one.
 * Built by tests/exercise.mk with the answers.c of the source being graded:
 *     make grade02               the learner's lessons/02_layout/exercise/answers.c
 *     make grade-solutions       the staff solution (solutions/02_layout/answers.c)
 */
#include <criterion/criterion.h>
#include <string.h>

#include "answers.h"
#include "layout.h"
#include "layout_print.h"
#include "plan.h" /* lessons/02_layout/plan.h: the lesson's operand layouts */

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
static void check_layout_hint(const char *q, lay_layout got, lay_layout expected,
                              const char *same_function_hint) {
    char g[256], e[256];
    cr_assert(lay_valid(got), "%s: not answered yet (or not a layout: check the text)", q);
    lay_sprint(g, sizeof g, got);
    lay_sprint(e, sizeof e, expected);
    if (strcmp(g, e) == 0) return;
    if (same_function(got, expected))
        cr_assert_fail("%s: %s is the right function but not the expected modes; %s", q, g,
                       same_function_hint);
    else if (lay_size(got) != lay_size(expected))
        cr_assert_fail("%s: %s has size %d, the answer has size %d", q, g, lay_size(got),
                       lay_size(expected));
    else cr_assert_fail("%s: %s is not the answer (a different function)", q, g);
}

static void check_layout(const char *q, lay_layout got, lay_layout expected) {
    check_layout_hint(q, got, expected,
                      "keep the structure the operation produces (see the README)");
}

static void check_value(const char *q, lay_off got, lay_off expected) {
    cr_assert(got != EX02_TODO, "%s: not answered yet", q);
    cr_assert(got == expected, "%s: %lld is not the answer", q, got);
}

/* ---- the questions ------------------------------------------------------------------- */

Test(exercise02, q01_offset_of_a_coordinate) {
    lay_layout L = parse_or_die("(4,8):(9,1)");
    check_value("Q1", ex02_q1_offset(), lay_crd2idx2(L, 2, 3));
}

Test(exercise02, q02_offset_of_a_1d_index) {
    lay_layout L = parse_or_die("(4,8):(9,1)");
    check_value("Q2", ex02_q2_index(), lay_crd2idx(L, 13));
}

Test(exercise02, q03_coalesce) {
    lay_layout R;
    must(lay_coalesce(&R, parse_or_die("((2,4),3):((1,2),8)")), "coalesce");
    check_layout_hint("Q3", ex02_q3_coalesce(), R,
                      "coalesce goes on merging neighbouring modes while shape0 * stride0 == "
                      "stride1 (lesson README, section 5): can two of yours still merge?");
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
