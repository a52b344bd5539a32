#define _POSIX_C_SOURCE 200809L
/* test_epilogue.c - CPU tests of the harness's epilogue (common/harness.h, THE EPILOGUE):
 * the options (good and bad), GELU tanh / erf against known values, the bias-axis mapping,
 * the order of operations and the one rounding on hand-computed cases (the float64 reference
 * and the fp32 arithmetic of the GPU reference kernel, harness_epilogue.h), the tolerance with
 * each output dtype, the epilogue, fp16 accumulation and --exact, what variants refuse and
 * what requests plan, the table and the CSV columns. No GPU needed.
 * Run: make test  (or build/tests/test_epilogue --verbose) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "harness_tests.h"
#include "harness_epilogue.h"

/* ---- options ------------------------------------------------------------------------- */

Test(options, defaults) {
    harness_opts o;
    char err[256];
    const char *argv[] = {"run"};
    cr_assert_eq(parse(&o, err, 1, argv), 0, "%s", err);
    cr_assert_eq(o.outs, 0u);      /* the default output of each input dtype */
    cr_assert_eq(o.epis, 0u);      /* none */
    cr_assert_eq(o.bias_axes, 0u); /* n */
    cr_assert_eq(o.gelu, GEMM_GELU_TANH);
    cr_assert_eq(o.bias_dtype, -1); /* the output's */
    cr_assert_eq(o.exact, 0);
    cr_assert_eq(harness_default_out(GEMM_FP32), GEMM_FP32);
    cr_assert_eq(harness_default_out(GEMM_FP16), GEMM_FP16);
    cr_assert_eq(harness_default_out(GEMM_BF16), GEMM_BF16);
}

Test(options, every_epilogue_option) {
    harness_opts o;
    char err[256];
    const char *argv[] = {"run",          "--out", "fp32,bf16", "--epilogue=bias_gelu,relu",
                          "--bias-axis",  "m",     "--gelu",    "erf",
                          "--bias-dtype", "fp32",  "--exact",   "--init",
                          "ones"};
    cr_assert_eq(parse(&o, err, sizeof argv / sizeof *argv, argv), 0, "%s", err);
    cr_assert_eq(o.outs, GEMM_DT_BIT(GEMM_FP32) | GEMM_DT_BIT(GEMM_BF16));
    cr_assert_eq(o.epis, (1u << GEMM_EPI_BIAS_GELU) | (1u << GEMM_EPI_RELU));
    cr_assert_eq(o.bias_axes, 1u << GEMM_BIAS_M);
    cr_assert_eq(o.gelu, GEMM_GELU_ERF);
    cr_assert_eq(o.bias_dtype, GEMM_FP32);
    cr_assert(o.exact);
    cr_assert(!o.out_all && !o.epi_all);
    const char *all[] = {"run", "--out", "all", "--epilogue", "all", "--bias-axis", "all"};
    cr_assert_eq(parse(&o, err, 7, all), 0, "%s", err);
    cr_assert_eq(o.outs, (unsigned)GEMM_DT_ALL);
    cr_assert_eq(o.epis, (1u << GEMM_NEPIS) - 1u);
    cr_assert_eq(o.bias_axes, 3u);
    cr_assert(o.out_all && o.epi_all);
    const char *nm[] = {"run", "--bias-axis", "n,m", "--gelu", "tanh"};
    cr_assert_eq(parse(&o, err, 5, nm), 0, "%s", err);
    cr_assert_eq(o.bias_axes, 3u);
    cr_assert_eq(o.gelu, GEMM_GELU_TANH);
}

Test(options, bad_epilogue_options_are_rejected) {
    static const bad_cmdline bad[] = {
        {{"run", "--out", "fp64"}, 3, "bad --out 'fp64'"},
        {{"run", "--out"}, 2, "--out needs a value"},
        {{"run", "--epilogue", "swish"}, 3, "bad --epilogue 'swish': expected none, bias"},
        {{"run", "--epilogue", "bias+gelu"}, 3, "bad --epilogue"},
        {{"run", "--bias-axis", "k"}, 3, "bad --bias-axis 'k': expected n, m or all"},
        {{"run", "--gelu", "fast"}, 3, "bad --gelu 'fast': expected tanh or erf"},
        {{"run", "--bias-dtype", "int8"}, 3, "bad --bias-dtype 'int8'"},
        {{"run", "--bias-dtype", "all"}, 3, "bad --bias-dtype"},
        {{"run", "--exact=1"}, 2, "takes no value"},
        {{"run", "--epilog", "bias"}, 3, "unknown option '--epilog'"},
    };
    assert_rejected(bad, sizeof bad / sizeof bad[0]);
}

Test(options, epilogue_names_round_trip) {
    for (int e = 0; e < GEMM_NEPIS; ++e)
        cr_assert_eq(harness_epi_parse(harness_epi_name((gemm_epi)e)), e);
    cr_assert_eq(harness_epi_parse("gelu_bias"), -1);
    cr_assert(GEMM_EPI_HAS_BIAS(GEMM_EPI_BIAS_GELU) && !GEMM_EPI_HAS_BIAS(GEMM_EPI_GELU));
    cr_assert_eq(GEMM_EPI_ACT(GEMM_EPI_BIAS_RELU), GEMM_ACT_RELU);
    cr_assert_eq(GEMM_EPI_ACT(GEMM_EPI_BIAS), GEMM_ACT_NONE);
    char l[32];
    harness_epi_label(l, sizeof l, GEMM_EPI_BIAS_GELU, GEMM_BIAS_M, GEMM_GELU_ERF);
    cr_assert_str_eq(l, "bias_gelu[m,erf]");
    harness_epi_label(l, sizeof l, GEMM_EPI_BIAS_GELU, GEMM_BIAS_N, GEMM_GELU_TANH);
    cr_assert_str_eq(l, "bias_gelu");
    harness_epi_label(l, sizeof l, GEMM_EPI_BIAS_RELU, GEMM_BIAS_M, GEMM_GELU_ERF);
    cr_assert_str_eq(l, "bias_relu[m]"); /* no GELU: its form does not matter */
    harness_epi_label(l, sizeof l, GEMM_EPI_GELU, GEMM_BIAS_M, GEMM_GELU_ERF);
    cr_assert_str_eq(l, "gelu[erf]"); /* no bias: its axis does not matter */
}

/* ---- GELU ------------------------------------------------------------------------------ */

Test(gelu, known_values) {
    /* erf form: x * Phi(x), Phi the standard normal CDF: Phi(1) = 0.8413447460685429,
     * Phi(2) = 0.9772498680518208, Phi(-3) = 0.0013498980316301 */
    cr_assert_float_eq(harness_gelu_f64(1.0, GEMM_GELU_ERF), 0.8413447460685429, 1e-15);
    cr_assert_float_eq(harness_gelu_f64(-1.0, GEMM_GELU_ERF), -(1.0 - 0.8413447460685429), 1e-15);
    cr_assert_float_eq(harness_gelu_f64(2.0, GEMM_GELU_ERF), 2.0 * 0.9772498680518208, 1e-15);
    cr_assert_float_eq(harness_gelu_f64(-3.0, GEMM_GELU_ERF), -3.0 * 0.0013498980316301, 1e-15);
    /* tanh form: 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))), evaluated by hand at x = 1:
     * sqrt(2/pi) * 1.044715 = 0.8335565596..., tanh of it = 0.6823839812... */
    cr_assert_float_eq(harness_gelu_f64(1.0, GEMM_GELU_TANH), 0.8411919906082768, 1e-15);
    cr_assert_float_eq(harness_gelu_f64(-1.0, GEMM_GELU_TANH), -0.15880800939172324, 1e-15);
    cr_assert_float_eq(harness_gelu_f64(2.0, GEMM_GELU_TANH), 1.954597694087775, 1e-14);
    cr_assert_eq(harness_gelu_f64(0.0, GEMM_GELU_TANH), 0.0);
    cr_assert_eq(harness_gelu_f64(0.0, GEMM_GELU_ERF), 0.0);
    /* far out both are the identity (positive) and 0 (negative) */
    cr_assert_float_eq(harness_gelu_f64(10.0, GEMM_GELU_TANH), 10.0, 1e-12);
    cr_assert_float_eq(harness_gelu_f64(-10.0, GEMM_GELU_ERF), 0.0, 1e-12);
}

Test(gelu, the_two_forms_differ_by_up_to_5e_4) {
    double worst = 0.0, at = 0.0;
    for (int i = -10000; i <= 10000; ++i) {
        const double x = i / 1000.0;
        const double d =
            fabs(harness_gelu_f64(x, GEMM_GELU_TANH) - harness_gelu_f64(x, GEMM_GELU_ERF));
        if (d > worst) worst = d, at = x;
    }
    cr_assert(worst > 4.7e-4 && worst < 4.8e-4, "max |tanh - erf| = %g at %g", worst, at);
    cr_assert(fabs(fabs(at) - 2.70) < 0.02, "largest near |x| = 2.70, got %g", at);
    /* so a reference in the other form fails an fp32 output's tolerance */
    cr_assert_gt(worst, harness_tolerance(GEMM_FP32, 4096).elem);
}

Test(gelu, fp32_reference_kernel_arithmetic_matches_float64) {
    /* hepi_gelu is what the harness's GPU reference kernel computes, in fp32 */
    for (int i = -8000; i <= 8000; i += 7) {
        const float x = i / 1000.0f;
        for (int f = 0; f < 2; ++f) {
            const double want = harness_gelu_f64(x, (gemm_gelu)f);
            const double got = hepi_gelu(x, (gemm_gelu)f);
            /* tanhf / erff are good to about 1e-7 absolute; 1 + tanh(...) keeps that, and
                             * 0.5 x scales it: an error of about 1e-7 |x| */
            cr_assert_leq(fabs(got - want), 2.5e-7 * (fabs((double)x) + fabs(want)) + 1e-12,
                          "x=%g form %d: %.9g vs %.9g", (double)x, f, got, want);
        }
    }
}

/* ---- order of operations, rounding once ------------------------------------------------ */

Test(order, hand_computed_cases) {
    /* alpha*acc = 3, beta = 0.5, C = -4, bias = 0.25: 3 - 2 + 0.25 = 1.25 */
    cr_assert_eq(hepi_apply(3.0f, 0.5f, -4.0f, 1, 0.25f, GEMM_ACT_NONE, GEMM_GELU_TANH), 1.25f);
    /* the bias comes before the activation: relu(-1 + 2) = 1, not relu(-1) + 2 = 2 */
    cr_assert_eq(hepi_apply(-1.0f, 0.0f, 0.0f, 1, 2.0f, GEMM_ACT_RELU, GEMM_GELU_TANH), 1.0f);
    /* and so does beta * C: relu(2 + 0.5*(-6)) = relu(-1) = 0 */
    cr_assert_eq(hepi_apply(2.0f, 0.5f, -6.0f, 0, 0.0f, GEMM_ACT_RELU, GEMM_GELU_TANH), 0.0f);
    /* gelu(1 + 1) = gelu(2), tanh form */
    cr_assert_float_eq(hepi_apply(1.0f, 0.0f, 0.0f, 1, 1.0f, GEMM_ACT_GELU, GEMM_GELU_TANH),
                       1.954597694087775, 2e-6);
    /* beta = 0 ignores C whatever it holds (the kernels never read it) */
    cr_assert_eq(hepi_apply(1.5f, 0.0f, NAN, 0, 0.0f, GEMM_ACT_NONE, GEMM_GELU_TANH), 1.5f);
    cr_assert_eq(hepi_apply(1.5f, 0.0f, INFINITY, 1, 0.5f, GEMM_ACT_RELU, GEMM_GELU_TANH), 2.0f);
    /* no bias: -0 stays -0 (adding a zero bias would make it +0) */
    cr_assert(signbit(hepi_apply(-0.0f, 0.0f, 0.0f, 0, 0.0f, GEMM_ACT_NONE, GEMM_GELU_TANH)));
    /* relu keeps NaN, fmaxf would not */
    cr_assert(isnan(hepi_apply(NAN, 0.0f, 0.0f, 0, 0.0f, GEMM_ACT_RELU, GEMM_GELU_TANH)));
    cr_assert(isnan(harness_act_f64(NAN, GEMM_EPI_BIAS_RELU, GEMM_GELU_TANH)));
    cr_assert_eq(harness_act_f64(-3.0, GEMM_EPI_RELU, GEMM_GELU_TANH), 0.0);
    cr_assert_eq(harness_act_f64(-3.0, GEMM_EPI_BIAS, GEMM_GELU_TANH), -3.0);
}

Test(order, one_rounding_not_two) {
    /* alpha*acc = 1 + 2^-11 lies halfway between the fp16 neighbours 1 and 1 + 2^-10. With the
     * bias 2^-12 added in fp32 first, it rounds once, up to 1 + 2^-10 (0x3C01). Rounding the
     * product to fp16 first (tie to even: 1.0) and the sum again gives 1.0 (0x3C00). */
    const float ax = 1.0f + 0x1p-11f, bias = 0x1p-12f;
    const uint16_t once =
        harness_float_to_half(hepi_apply(ax, 0.0f, 0.0f, 1, bias, GEMM_ACT_NONE, GEMM_GELU_TANH));
    const uint16_t twice =
        harness_float_to_half(harness_half_to_float(harness_float_to_half(ax)) + bias);
    cr_assert_eq(once, 0x3C01, "one rounding: 0x%04x", once);
    cr_assert_eq(twice, 0x3C00, "two roundings: 0x%04x", twice);
    /* the same in bf16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
    const uint16_t b_once = harness_float_to_bf16(
        hepi_apply(1.0f + 0x1p-8f, 0.0f, 0.0f, 1, 0x1p-9f, GEMM_ACT_NONE, GEMM_GELU_TANH));
    cr_assert_eq(b_once, 0x3F81);
}

Test(order, float64_reference_bias_axes) {
    /* a 2 x 3 block (rows 5 and 6 of the output) holding alpha*acc + beta*C0 = 10*i + j */
    double v[6];
    const float bias_n[3] = {0.5f, -1.0f, 2.0f};              /* one per column */
    const float bias_m[7] = {0, 0, 0, 0, 0, 100.0f, -100.0f}; /* one per row */
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 3; ++j) v[3 * r + j] = 10 * (5 + r) + j;
    harness_ref_epilogue_f64(v, 3, 5, 7, GEMM_EPI_BIAS, GEMM_GELU_TANH, bias_n, GEMM_BIAS_N);
    const double want_n[6] = {50.5, 50.0, 54.0, 60.5, 60.0, 64.0};
    for (int i = 0; i < 6; ++i) cr_assert_eq(v[i], want_n[i], "axis n, element %d: %g", i, v[i]);
    for (int r = 0; r < 2; ++r)
        for (int j = 0; j < 3; ++j) v[3 * r + j] = 10 * (5 + r) + j;
    harness_ref_epilogue_f64(v, 3, 5, 7, GEMM_EPI_BIAS_RELU, GEMM_GELU_TANH, bias_m, GEMM_BIAS_M);
    const double want_m[6] = {150, 151, 152, 0, 0, 0}; /* relu(60 + j - 100) = 0 */
    for (int i = 0; i < 6; ++i) cr_assert_eq(v[i], want_m[i], "axis m, element %d: %g", i, v[i]);
    cr_assert_eq(harness_bias_at(bias_n, GEMM_BIAS_N, 6, 2), 2.0);
    cr_assert_eq(harness_bias_at(bias_m, GEMM_BIAS_M, 6, 2), -100.0);
    cr_assert_eq(harness_bias_at(NULL, GEMM_BIAS_M, 6, 2), 0.0);
}

Test(order, the_gpu_cases_with_ones) {
    /* lessons/07_epilogue/gpu_cases.txt: M=96, N=160, K=64, A = B = 1, bias[i] = i:
     * along n every element is 64 + j, along m 64 + i -- exact in fp16 (integers < 2048) */
    const int M = 96, N = 160, K = 64;
    float A[96 * 64], B[160 * 64], bias[160];
    for (int i = 0; i < M * K; ++i) A[i] = 1.0f;
    for (int i = 0; i < N * K; ++i) B[i] = 1.0f;
    for (int i = 0; i < N; ++i) bias[i] = (float)i;
    static double out[96 * 160];
    harness_ref_f64(M, N, K, 1.0, A, K, 1, B, K, 1, 0.0, NULL, N, 0, M, out);
    harness_ref_epilogue_f64(out, N, 0, M, GEMM_EPI_BIAS, GEMM_GELU_TANH, bias, GEMM_BIAS_N);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            cr_assert_eq(out[i * N + j], 64.0 + j);
            cr_assert_eq(harness_half_to_float(harness_float_to_half((float)out[i * N + j])),
                         64.0f + j);
        }
    harness_ref_f64(M, N, K, 1.0, A, K, 1, B, K, 1, 0.0, NULL, N, 0, M, out);
    harness_ref_epilogue_f64(out, N, 0, M, GEMM_EPI_BIAS, GEMM_GELU_TANH, bias, GEMM_BIAS_M);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) cr_assert_eq(out[i * N + j], 64.0 + i);
}

/* ---- tolerance ------------------------------------------------------------------------- */

static gemm_problem problem(gemm_dtype in, gemm_dtype out, int k, gemm_epi e) {
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = p.n = 256;
    p.k = k;
    p.dtype = in;
    p.c_dtype = out;
    p.epilogue = e;
    return p;
}

Test(tolerance, by_output_dtype_epilogue_and_accumulator) {
    const gemm_problem p32 = problem(GEMM_FP16, GEMM_FP32, 4096, GEMM_EPI_BIAS);
    const gemm_problem p16 = problem(GEMM_FP16, GEMM_FP16, 4096, GEMM_EPI_BIAS);
    const gemm_problem pb = problem(GEMM_FP16, GEMM_BF16, 4096, GEMM_EPI_BIAS);
    harness_tol t32 = harness_tolerance_case(&p32, 0, 0), t16 = harness_tolerance_case(&p16, 0, 0),
                tb = harness_tolerance_case(&pb, 0, 0);
    /* the output's rounding: fp32 < fp16 < bf16, equal to harness_tolerance without GELU */
    cr_assert_lt(t32.elem, t16.elem);
    cr_assert_lt(t16.elem, tb.elem);
    cr_assert_eq(t16.elem, harness_tolerance(GEMM_FP16, 4096).elem);
    cr_assert_eq(t32.rel_fro, harness_tolerance(GEMM_FP32, 4096).rel_fro);
    /* GELU adds 2^-10 to both bounds */
    const gemm_problem g32 = problem(GEMM_FP16, GEMM_FP32, 4096, GEMM_EPI_BIAS_GELU);
    harness_tol tg = harness_tolerance_case(&g32, 0, 0);
    cr_assert_float_eq(tg.elem - t32.elem, 0x1p-10, 1e-15);
    cr_assert_float_eq(tg.rel_fro - t32.rel_fro, 0x1p-10, 1e-15);
    /* fp16 accumulation: grows like sqrt(K), far beyond fp32 accumulation's */
    const gemm_problem a1 = problem(GEMM_FP16, GEMM_FP16, 1024, GEMM_EPI_NONE);
    const gemm_problem a4 = problem(GEMM_FP16, GEMM_FP16, 4096, GEMM_EPI_NONE);
    harness_tol h1 = harness_tolerance_case(&a1, 1, 0), h4 = harness_tolerance_case(&a4, 1, 0);
    const double ulp16 = 0x1p-10;
    cr_assert_float_eq(h4.rel_fro - ulp16, 2.0 * (h1.rel_fro - ulp16), 1e-12);
    cr_assert_float_eq(h1.rel_fro, ulp16 + 0x1p-11 * 32.0, 1e-12);
    cr_assert_float_eq(h1.elem, 2 * ulp16 + 4 * 0x1p-11 * 32.0, 1e-12);
    cr_assert_gt(h4.elem, 10 * harness_tolerance(GEMM_FP16, 4096).elem);
    /* --exact: nothing */
    harness_tol ex = harness_tolerance_case(&g32, 0, 1);
    cr_assert_eq(ex.elem, 0.0);
    cr_assert_eq(ex.rel_fro, 0.0);
}

Test(tolerance, one_output_ulp_passes_with_its_own_dtype_only) {
    /* ref = 1.5; the neighbour in bf16 (1.5 + 2^-7) and in fp16 (1.5 + 2^-10) */
    float ref[4] = {1.5f, 1.5f, 1.5f, 1.5f}, outb[4] = {1.5f, 1.5f, 1.5f, 1.5f + 0x1p-7f};
    float outh[4] = {1.5f, 1.5f, 1.5f, 1.5f + 0x1p-10f};
    harness_cmp c;
    const gemm_problem pb = problem(GEMM_BF16, GEMM_BF16, 64, GEMM_EPI_BIAS_RELU);
    const gemm_problem ph = problem(GEMM_FP16, GEMM_FP16, 64, GEMM_EPI_BIAS_RELU);
    const gemm_problem pf = problem(GEMM_FP16, GEMM_FP32, 64, GEMM_EPI_BIAS_RELU);
    cr_assert(harness_compare(outb, 4, ref, 4, 1, 4, harness_tolerance_case(&pb, 0, 0), &c), "%s",
              c.reason);
    cr_assert_not(harness_compare(outb, 4, ref, 4, 1, 4, harness_tolerance_case(&ph, 0, 0), &c));
    cr_assert(harness_compare(outh, 4, ref, 4, 1, 4, harness_tolerance_case(&ph, 0, 0), &c), "%s",
              c.reason);
    cr_assert_not(harness_compare(outh, 4, ref, 4, 1, 4, harness_tolerance_case(&pf, 0, 0), &c));
    cr_assert_not(harness_compare(outh, 4, ref, 4, 1, 4, harness_tolerance_case(&ph, 0, 1), &c),
                  "--exact: one ulp fails");
    cr_assert(harness_compare(ref, 4, ref, 4, 1, 4, harness_tolerance_case(&ph, 0, 1), &c));
}

/* ---- refusals and plans ---------------------------------------------------------------- */

#define HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
/* plain: what every lesson before 07 declares; epi: every output and epilogue, bias of the
 * output's dtype or fp32; acc16: fp16 accumulation, fp16 only */
static const gemm_variant epi_variants[] = {
    {"plain", "no epilogue", HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, NULL, no_launch},
    {"epi", "fused", HALVES | GEMM_OUT_ALL | GEMM_EPI_ALL | GEMM_BIAS_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_BIT(GEMM_TN), 8, NULL, no_launch},
    {"acc16", "fp16 accumulation", GEMM_DT_BIT(GEMM_FP16) | GEMM_ACC_FP16, GEMM_LAYOUT_BIT(GEMM_TN),
     8, NULL, no_launch},
};
static const gemm_lesson epi_lesson = {"98_epi", "epilogue test", 3, epi_variants,
                                       GEMM_LAYOUT_BIT(GEMM_TN)};

static gemm_problem case_of(gemm_dtype in, gemm_dtype out, gemm_epi e, gemm_dtype bias_dt) {
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = p.n = p.k = 64;
    p.lda = p.ldb = p.ldc = 64;
    p.a_kmajor = p.b_kmajor = 1;
    p.layout = GEMM_TN;
    p.dtype = in;
    p.c_dtype = out;
    p.epilogue = e;
    p.bias_dtype = bias_dt;
    return p;
}

Test(refusal, outputs_epilogues_and_bias_dtypes) {
    char buf[320];
    gemm_problem p = case_of(GEMM_FP16, GEMM_FP16, GEMM_EPI_NONE, GEMM_FP16);
    cr_assert_null(harness_refusal(&epi_variants[0], &p, 0, buf, sizeof buf));
    p.c_dtype = GEMM_FP32; /* fp16 in, fp32 out: only epi claims it */
    cr_assert_str_eq(
        harness_refusal(&epi_variants[0], &p, 0, buf, sizeof buf),
        "variant 'plain' does not support output fp32 for fp16 inputs (supported: fp16)");
    cr_assert_null(harness_refusal(&epi_variants[1], &p, 0, buf, sizeof buf));
    p = case_of(GEMM_BF16, GEMM_BF16, GEMM_EPI_BIAS_GELU, GEMM_BF16);
    cr_assert_str_eq(harness_refusal(&epi_variants[0], &p, 0, buf, sizeof buf),
                     "variant 'plain' does not support epilogue bias_gelu (supported: none)");
    cr_assert_null(harness_refusal(&epi_variants[1], &p, 0, buf, sizeof buf));
    p.bias_dtype = GEMM_FP32;
    cr_assert_null(harness_refusal(&epi_variants[1], &p, 0, buf, sizeof buf));
    p.bias_dtype = GEMM_FP16; /* neither the output's dtype nor claimed */
    cr_assert_str_eq(
        harness_refusal(&epi_variants[1], &p, 0, buf, sizeof buf),
        "variant 'epi' does not support a fp16 bias with bf16 output (supported: fp32, bf16)");
    p.epilogue = GEMM_EPI_GELU; /* no bias: its dtype does not matter */
    cr_assert_null(harness_refusal(&epi_variants[1], &p, 0, buf, sizeof buf));
    p = case_of(GEMM_FP16, GEMM_FP16, GEMM_EPI_RELU, GEMM_FP16);
    cr_assert(strstr(harness_refusal(&epi_variants[2], &p, 0, buf, sizeof buf),
                     "does not support epilogue relu"));
    p.epilogue = GEMM_EPI_NONE;
    cr_assert_null(harness_refusal(&epi_variants[2], &p, 0, buf, sizeof buf));
}

static void plan_of(harness_plan *pl, int argc, const char **argv) {
    plan_cases_of(&epi_lesson, pl, argc, argv);
}

Test(plan, epilogues_bias_axes_and_outputs) {
    harness_plan pl;
    /* bias along n and m, gelu once (no bias: no axis), fp32 and bf16 outputs */
    const char *a[] = {"run",    "--variant", "epi",        "--dtype",      "fp16",
                       "--size", "64x64x64",  "--epilogue", "bias,gelu",    "--bias-axis",
                       "all",    "--out",     "fp32,bf16",  "--bias-dtype", "fp32"};
    plan_of(&pl, sizeof a / sizeof *a, a);
    cr_assert(!pl.default_request);
    cr_assert_eq(pl.ncases, 6, "got %d", pl.ncases);
    cr_assert_eq(pl.nrefused, 0);
    /* order: dtype, output, epilogue, axis, layout, size */
    const struct {
        gemm_dtype out;
        gemm_epi e;
        gemm_bias_axis ax;
    } want[6] = {{GEMM_FP32, GEMM_EPI_BIAS, GEMM_BIAS_N}, {GEMM_FP32, GEMM_EPI_BIAS, GEMM_BIAS_M},
                 {GEMM_FP32, GEMM_EPI_GELU, GEMM_BIAS_N}, {GEMM_BF16, GEMM_EPI_BIAS, GEMM_BIAS_N},
                 {GEMM_BF16, GEMM_EPI_BIAS, GEMM_BIAS_M}, {GEMM_BF16, GEMM_EPI_GELU, GEMM_BIAS_N}};
    for (int i = 0; i < 6; ++i) {
        const gemm_problem *p = &pl.cases[i].p;
        cr_assert_eq(p->dtype, GEMM_FP16);
        cr_assert_eq(p->c_dtype, want[i].out, "case %d", i);
        cr_assert_eq(p->epilogue, want[i].e, "case %d", i);
        cr_assert_eq(p->bias_axis, want[i].ax, "case %d", i);
        cr_assert_eq(p->bias_dtype, GEMM_FP32);
        cr_assert_eq(p->gelu, GEMM_GELU_TANH);
        cr_assert_null(p->bias, "the harness allocates the bias when the case runs");
    }
    harness_plan_free(&pl);
}

Test(plan, all_leaves_out_what_a_variant_does_not_claim) {
    harness_plan pl;
    /* every variant, fp16 inputs, every output and epilogue: plain runs fp16/none, epi 3
     * outputs x 6 epilogues; acc16 is opt-in (only when named) */
    const char *a[] = {"run",   "--dtype", "fp16",       "--size", "64x64x64",
                       "--out", "all",     "--epilogue", "all"};
    plan_of(&pl, sizeof a / sizeof *a, a);
    cr_assert_eq(pl.nrefused, 0);
    cr_assert_eq(pl.nsel, 2);
    cr_assert_eq(pl.ncases, 1 + 18, "got %d", pl.ncases);
    harness_plan_free(&pl);
    const char *named[] = {"run",      "--variant", "epi,acc16", "--dtype",    "fp16", "--size",
                           "64x64x64", "--out",     "all",       "--epilogue", "all"};
    plan_of(&pl, sizeof named / sizeof *named, named);
    cr_assert_eq(pl.ncases, 18 + 1, "got %d", pl.ncases);
    cr_assert_eq(pl.cases[18].v, &epi_variants[2]);
    harness_plan_free(&pl);
    /* named explicitly, they are refused and said so */
    const char *b[] = {"run", "--variant", "plain", "--size", "64x64x64", "--epilogue", "bias"};
    plan_of(&pl, sizeof b / sizeof *b, b);
    cr_assert_eq(pl.ncases, 0);
    cr_assert_eq(pl.nrefused, 1);
    char line[1024];
    harness_refusal_line(line, sizeof line, epi_lesson.id, &pl, 0);
    cr_assert(strstr(line, "refused: 1 case of plain: does not support epilogue bias (supported: "
                           "none)"),
              "%s", line);
    harness_plan_free(&pl);
    /* --out all with an explicit epilogue still reports the epilogue's refusals */
    const char *c[] = {"run",   "--variant", "plain",      "--size", "64x64x64",
                       "--out", "all",       "--epilogue", "relu"};
    plan_of(&pl, sizeof c / sizeof *c, c);
    cr_assert_eq(pl.ncases, 0);
    cr_assert_eq(pl.nrefused, 1); /* fp16 out relu; the other outputs are left out quietly */
    harness_plan_free(&pl);
    /* the default request stays the default with 'all' */
    const char *d[] = {"run", "--out", "all"};
    plan_of(&pl, 3, d);
    cr_assert(pl.default_request);
    harness_plan_free(&pl);
}

/* ---- report ---------------------------------------------------------------------------- */

Test(report, csv_columns_and_wide_table) {
    harness_row r;
    memset(&r, 0, sizeof r);
    r.lesson = "07_epilogue";
    r.variant = "128x256x64_s3";
    r.dtype = GEMM_FP16;
    r.layout = GEMM_TN;
    r.m = r.n = r.k = 4096;
    r.alpha = 1.0f;
    r.ms = 0.25;
    r.tflops = 549.756;
    r.cublas_ms = 0.2;
    r.cublas_tflops = 687.195;
    r.pct_cublas = 80.0;
    r.rel_err = 1e-4;
    r.max_err = 1e-3;
    r.status = "PASS";
    r.out = GEMM_BF16;
    r.epilogue = GEMM_EPI_BIAS_GELU;
    r.bias_axis = GEMM_BIAS_M;
    r.gelu = GEMM_GELU_ERF;
    r.lt_ms = 0.21;
    r.unfused_ms = 0.27;
    r.reference = "cublas+kernel";
    r.f64_rel_err = 2e-4;
    harness_env e;
    memset(&e, 0, sizeof e);
    strcpy(e.device, "NVIDIA H200");
    strcpy(e.date, "2026-12-01T00:00:00Z");
    strcpy(e.commit, "abc");
    char line[1024];
    harness_csv_format(line, sizeof line, &r, &e);
    const char *tail = strstr(line, ",abc,");
    cr_assert_not_null(tail, "%s", line);
    cr_assert_str_eq(tail,
                     ",abc,bf16,bias_gelu,m,erf,fp32,0.210000,0.270000,cublas+kernel,2.000e-04");
    int commas = 0, hcommas = 0;
    for (const char *q = line; *q; ++q) commas += *q == ',';
    for (const char *q = harness_csv_header(); *q; ++q) hcommas += *q == ',';
    cr_assert_eq(commas, hcommas);
    cr_assert(
        strstr(harness_csv_header(), ",commit,out,epilogue,bias_axis,gelu,acc,lt_ms,unfused_ms,"));
    /* no bias, no gelu: '-' for their columns */
    r.epilogue = GEMM_EPI_RELU;
    r.acc16 = 1;
    harness_csv_format(line, sizeof line, &r, &e);
    cr_assert(strstr(line, ",abc,bf16,relu,-,-,fp16,"), "%s", line);

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    harness_table_header_epi(f);
    r.epilogue = GEMM_EPI_BIAS_GELU;
    harness_table_row_epi(f, &r);
    r.lt_ms = r.unfused_ms = -1.0;
    harness_table_row_epi(f, &r);
    fclose(f);
    cr_assert(strstr(buf, "Lt fused"), "%s", buf);
    cr_assert(strstr(buf, "bias_gelu[m,erf]"), "%s", buf);
    cr_assert(strstr(buf, "0.2100") && strstr(buf, "0.2700"), "%s", buf);
    char *second = strchr(strchr(buf, '\n') + 1, '\n') + 1; /* the untimed row: '-' */
    cr_assert(strstr(second, " - "), "%s", second);
    free(buf);
}
