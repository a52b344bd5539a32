/* test_exercise_07.c - lesson 07: the CPU grader of the assignment (lessons/07_epilogue/exercise).
 *
 * Suite gelu: the learner's ex07_gelu (epilogue_ex.h) against GELU's tanh form at known points,
 * and not the erf form (they differ by up to 4.7e-4, near |x| = 2.7).
 * Suite order: ex07_value computes gelu(alpha * acc + beta * c + bias), in that order, and
 * never lets c in when beta = 0 (C holds NaN then).
 * Suite remap: ex07_stage_offset equals the staging layout evaluated at the fragment layout's
 * coordinates (lay_tiled_mma_c_crd, plan_cstage) for every lane and value, puts every
 * accumulator in its own slot of the 64 x 64 block and never in the pad, keeps each pair
 * (v, v + 1) side by side, and its warp-wide pair stores are conflict-free: 1 wavefront for a
 * 4-byte store (fp16 / bf16 output), 2 for an 8-byte one (fp32).
 * Suite questions: the three questions of the exercise README (answers.c), each expected value
 * computed here from the layouts.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade07, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "answers.h"
#include "epilogue_ex.h"
#include "../lessons/06_swizzle/bank_model.h"

/* ---- gelu ------------------------------------------------------------------------------ */

static double gelu_tanh(double x) {
    return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
static double gelu_erf(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440)); }

static void gelu_written(void) {
    cr_assert(!isnan(ex07_gelu(1.0f)), "ex07_gelu is not written yet (TODO 1)");
}

Test(gelu, known_values) {
    gelu_written();
    const float xs[] = {0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, 6.0f, -6.0f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
        const double want = gelu_tanh(xs[i]), got = ex07_gelu(xs[i]);
        cr_assert(fabs(got - want) <= 2e-6 * (1.0 + fabs(want)),
                  "ex07_gelu(%g) = %.8f, GELU's tanh form gives %.8f (0.5 x (1 + tanh(sqrt(2/pi) "
                  "(x + 0.044715 x^3))))",
                  (double)xs[i], got, want);
    }
    cr_assert_eq(ex07_gelu(0.0f), 0.0f, "gelu(0) must be exactly 0");
}

Test(gelu, tanh_not_erf) {
    gelu_written();
    /* at x = 2.7 the two forms differ by 4.7e-4, far more than fp32 rounding */
    const double x = 2.7, got = ex07_gelu((float)x);
    cr_assert(fabs(got - gelu_erf(x)) > 1e-4,
              "ex07_gelu(2.7) = %.7f is the erf form (%.7f); the exercise asks for the tanh form "
              "(%.7f), cuBLASLt's",
              got, gelu_erf(x), gelu_tanh(x));
    cr_assert(fabs(got - gelu_tanh(x)) < 1e-5, "ex07_gelu(2.7) = %.7f, want %.7f", got,
              gelu_tanh(x));
}

/* ---- order ----------------------------------------------------------------------------- */

static void value_written(void) {
    gelu_written();
    cr_assert(!isnan(ex07_value(1.0f, 1.0f, 0.0f, 0.0f, 0.0f)),
              "ex07_value is not written yet (TODO 2)");
}

Test(order, bias_before_gelu) {
    value_written();
    /* acc = -1, bias = 2: gelu(-1 + 2) = gelu(1), not gelu(-1) + 2 */
    const double got = ex07_value(-1.0f, 1.0f, 0.0f, 0.0f, 2.0f);
    cr_assert(fabs(got - gelu_tanh(1.0)) < 2e-6,
              "ex07_value(acc -1, alpha 1, beta 0, bias 2) = %.6f: want gelu(-1 + 2) = %.6f%s",
              got, gelu_tanh(1.0),
              fabs(got - (gelu_tanh(-1.0) + 2.0)) < 1e-4 ? " (you added the bias after GELU)" : "");
}

Test(order, alpha_beta) {
    value_written();
    /* alpha scales the product only: gelu(2 * 1.5 + 0.5 * (-4) + 0.25) = gelu(1.25) */
    const double got = ex07_value(1.5f, 2.0f, 0.5f, -4.0f, 0.25f);
    cr_assert(fabs(got - gelu_tanh(1.25)) < 2e-6,
              "ex07_value(acc 1.5, alpha 2, beta 0.5, c -4, bias 0.25) = %.6f: want gelu(2*1.5 + "
              "0.5*(-4) + 0.25) = gelu(1.25) = %.6f",
              got, gelu_tanh(1.25));
    const double a2 = ex07_value(1.0f, 2.0f, 0.0f, 0.0f, 1.0f); /* gelu(3), not gelu(4) */
    cr_assert(fabs(a2 - gelu_tanh(3.0)) < 4e-6,
              "ex07_value(acc 1, alpha 2, bias 1) = %.6f: want gelu(2*1 + 1) = %.6f (alpha "
              "scales acc, not the bias)",
              a2, gelu_tanh(3.0));
}

Test(order, beta_zero_ignores_c) {
    value_written();
    const float got = ex07_value(0.5f, 1.0f, 0.0f, NAN, 0.5f);
    cr_assert(!isnan(got),
              "ex07_value with beta = 0 and c = NaN is NaN: with beta = 0 C is never read (it "
              "holds NaN in the harness's checks); 0 * NaN is NaN, so test beta first");
    cr_assert(fabs(got - gelu_tanh(1.0)) < 2e-6, "got %.6f, want gelu(1) = %.6f", (double)got,
              gelu_tanh(1.0));
    const float inf = ex07_value(0.5f, 1.0f, 0.0f, INFINITY, 0.5f);
    cr_assert(isfinite(inf), "beta = 0, c = +Inf: got %g", (double)inf);
}

/* ---- remap ----------------------------------------------------------------------------- */

static int layout_offset(int lane, int v) {
    const lay_tiled_mma mma = plan_mma(2, 4, 128, 256, 64); /* the lesson's CTA: warp 0 */
    int m, n;
    lay_tiled_mma_c_crd(&mma, lane, v, &m, &n);
    return (int)lay_crd2idx2(plan_cstage(64, 64), m, n);
}

static void remap_written(void) {
    cr_assert(ex07_stage_offset(0, 0) != EX07_TODO_INT && ex07_stage_offset(5, 3) != EX07_TODO_INT,
              "ex07_stage_offset is not written yet (TODO 3)");
}

Test(remap, equals_the_layouts) {
    remap_written();
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 128; ++v) {
            const int got = ex07_stage_offset(l, v), want = layout_offset(l, v);
            int m, n;
            const lay_tiled_mma mma = plan_mma(1, 1, 64, 64, 64);
            lay_tiled_mma_c_crd(&mma, l, v, &m, &n);
            cr_assert_eq(got, want,
                         "ex07_stage_offset(lane %d, value %d) = %d: that accumulator is element "
                         "(%d,%d) of the warp tile, at %d of plan_cstage(64, 64) = "
                         "(64,64):(72,1)",
                         l, v, got, m, n, want);
        }
}

Test(remap, every_slot_once) {
    remap_written();
    static int seen[64 * 72];
    memset(seen, 0, sizeof seen);
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 128; ++v) {
            const int o = ex07_stage_offset(l, v);
            cr_assert(o >= 0 && o < 64 * 72, "lane %d value %d: offset %d is outside the block",
                      l, v, o);
            cr_assert(o % 72 < 64, "lane %d value %d: offset %d lies in the pad of row %d", l, v, o,
                      o / 72);
            cr_assert_eq(seen[o]++, 0, "offset %d gets two accumulators (one is lane %d value %d)",
                         o, l, v);
            if (v % 2 == 0) /* the kernel stores values v, v + 1 as one pair */
                cr_assert_eq(ex07_stage_offset(l, v + 1), o + 1,
                             "lane %d: values %d and %d are not side by side", l, v, v + 1);
            /* a layout's offset is the sum of its modes' parts (the kernel may rely on it) */
            cr_assert_eq(o, ex07_stage_offset(l, 0) + ex07_stage_offset(0, v),
                         "ex07_stage_offset(%d, %d) is not offset(lane, 0) + offset(0, v)", l, v);
        }
}

/* the wavefronts of a warp-wide 8-byte access: two phases of 16 lanes */
static int wavefronts64(const int addr[32]) {
    int total = 0;
    for (int ph = 0; ph < 2; ++ph) {
        int worst = 1;
        for (int b = 0; b < 32; ++b) {
            int words[32], n = 0;
            for (int l = 16 * ph; l < 16 * ph + 16; ++l)
                for (int w = 0; w < 2; ++w) {
                    const int word = addr[l] / 4 + w;
                    if (word % 32 != b) continue;
                    int dup = 0;
                    for (int k = 0; k < n; ++k) dup |= words[k] == word;
                    if (!dup) words[n++] = word;
                }
            if (n > worst) worst = n;
        }
        total += worst;
    }
    return total;
}

Test(remap, conflict_free_pairs) {
    remap_written();
    for (int v = 0; v < 128; v += 2) {
        int a2[32], a4[32];
        for (int l = 0; l < 32; ++l) {
            a2[l] = 2 * ex07_stage_offset(l, v); /* halves: one 4-byte store per lane */
            a4[l] = 4 * ex07_stage_offset(l, v); /* floats: one 8-byte store per lane */
        }
        cr_assert_eq(bank_wavefronts32(a2), 1,
                     "values %d, %d of the 32 lanes (fp16 output): %d wavefronts, want 1", v,
                     v + 1, bank_wavefronts32(a2));
        cr_assert_eq(wavefronts64(a4), 2,
                     "values %d, %d of the 32 lanes (fp32 output): %d wavefronts, want 2", v,
                     v + 1, wavefronts64(a4));
    }
}

/* ---- questions ------------------------------------------------------------------------- */

Test(questions, q1_staging_bytes_fp32) {
    const long want = 8L * plan_cstage_size(64, 64) * 4;
    cr_assert_neq(ex07_q1_staging_bytes_fp32(), EX07_TODO, "Q1 is not answered yet");
    cr_assert_eq(ex07_q1_staging_bytes_fp32(), want,
                 "Q1: %ld; count 8 warps, 64 rows of 64 + 8 elements, 4 bytes each",
                 ex07_q1_staging_bytes_fp32());
}

Test(questions, q2_stores_per_warp) {
    const long want = lay_tiled_copy_reps(plan_cstage_copy(64, 2), 64, 64);
    cr_assert_neq(ex07_q2_stores_per_warp(), EX07_TODO, "Q2 is not answered yet");
    cr_assert_eq(ex07_q2_stores_per_warp(), want,
                 "Q2: %ld; a warp instruction stores 32 chunks of 16 bytes", ex07_q2_stores_per_warp());
}

Test(questions, q3_wavefronts_unpadded) {
    const lay_tiled_mma mma = plan_mma(1, 1, 64, 64, 64);
    int a[32];
    for (int l = 0; l < 32; ++l) {
        int m, n;
        lay_tiled_mma_c_crd(&mma, l, 0, &m, &n);
        a[l] = 2 * (int)lay_crd2idx2(lay_l2(64, 64, 64, 1), m, n);
    }
    cr_assert_neq(ex07_q3_wavefronts_unpadded(), EX07_TODO, "Q3 is not answered yet");
    cr_assert_eq(ex07_q3_wavefronts_unpadded(), bank_wavefronts32(a),
                 "Q3: %ld; in which bank does each of the 8 rows of the store start?",
                 ex07_q3_wavefronts_unpadded());
}
