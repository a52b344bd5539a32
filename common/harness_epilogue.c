/* harness_epilogue.c - the epilogue's host side: names, the float64 arithmetic of the CPU
 * reference, tolerances, and the cuBLASLt plan (the fused reference and the "cuBLASLt fused"
 * time). See THE EPILOGUE in harness.h and harness_epilogue.h. C11, compiled by gcc. */
#include "harness_epilogue.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------------------ */

static const char *const epi_names[GEMM_NEPIS] = {"none",      "bias", "relu",
                                                  "bias_relu", "gelu", "bias_gelu"};

int harness_epi_parse(const char *s) {
    for (int i = 0; i < GEMM_NEPIS; ++i)
        if (strcmp(s, epi_names[i]) == 0) return i;
    return -1;
}

const char *harness_epi_name(gemm_epi e) { return (e >= 0 && e < GEMM_NEPIS) ? epi_names[e] : "?"; }

gemm_dtype harness_default_out(gemm_dtype d) { return d; }

void harness_epi_label(char *buf, size_t len, gemm_epi e, gemm_bias_axis axis, gemm_gelu form) {
    const int m = GEMM_EPI_HAS_BIAS(e) && axis == GEMM_BIAS_M;
    const int erf_form = GEMM_EPI_ACT(e) == GEMM_ACT_GELU && form == GEMM_GELU_ERF;
    snprintf(buf, len, "%s%s%s%s%s", harness_epi_name(e), m || erf_form ? "[" : "", m ? "m" : "",
             m && erf_form ? "," : "",
             erf_form ? "erf]"
             : m      ? "]"
                      : "");
}

/* ---- float64 arithmetic (the CPU reference) ---------------------------------------------- */

double harness_gelu_f64(double x, gemm_gelu form) {
    if (form == GEMM_GELU_ERF) return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
    const double s2pi = 0.79788456080286535588; /* sqrt(2 / pi) */
    return 0.5 * x * (1.0 + tanh(s2pi * (x + 0.044715 * x * x * x)));
}

double harness_act_f64(double x, gemm_epi e, gemm_gelu form) {
    switch (GEMM_EPI_ACT(e)) {
        case GEMM_ACT_RELU: return x < 0.0 ? 0.0 : x; /* NaN < 0 is false: NaN stays NaN */
        case GEMM_ACT_GELU: return harness_gelu_f64(x, form);
        default: return x;
    }
}

double harness_bias_at(const float *bias, gemm_bias_axis axis, long long i, long long j) {
    if (!bias) return 0.0;
    return (double)bias[axis == GEMM_BIAS_N ? j : i];
}

void harness_ref_epilogue_f64(double *out, int n, int r0, int r1, gemm_epi e, gemm_gelu form,
                              const float *bias, gemm_bias_axis axis) {
    const int has_bias = GEMM_EPI_HAS_BIAS(e) && bias;
    for (int i = r0; i < r1; ++i)
        for (int j = 0; j < n; ++j) {
            double *v = &out[(long long)(i - r0) * n + j];
            if (has_bias) *v += harness_bias_at(bias, axis, i, j);
            *v = harness_act_f64(*v, e, form);
        }
}

/* ---- tolerance -------------------------------------------------------------------------- */

harness_tol harness_tolerance_case(const gemm_problem *p, int acc16, int exact) {
    harness_tol t = harness_tolerance(p->c_dtype, p->k);
    if (exact) {
        t.rel_fro = t.elem = 0.0;
        return t;
    }
    if (acc16) {
        const double ulp_out = p->c_dtype == GEMM_FP32   ? 1.1920928955078125e-07
                               : p->c_dtype == GEMM_FP16 ? 9.765625e-04
                                                         : 7.8125e-03;
        const double e16 = 4.8828125e-04 * sqrt((double)(p->k > 0 ? p->k : 1)); /* 2^-11 */
        t.rel_fro = ulp_out + e16;
        t.elem = 2.0 * ulp_out + 4.0 * e16;
    }
    if (GEMM_EPI_ACT(p->epilogue) == GEMM_ACT_GELU) {
        t.rel_fro += 9.765625e-04; /* 2^-10 */
        t.elem += 9.765625e-04;
    }
    return t;
}

/* ---- cuBLASLt ------------------------------------------------------------------------------ */

static cudaDataType_t lt_type(gemm_dtype d) {
    return d == GEMM_FP32 ? CUDA_R_32F : d == GEMM_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

/* the largest power of two (<= 256) that divides the address: what the heuristic may assume */
static uint32_t align_of(const void *ptr) {
    uintptr_t a = (uintptr_t)ptr;
    uint32_t b = 256;
    while (b > 1 && a % b) b /= 2;
    return b;
}

static cublasLtEpilogue_t lt_epilogue(gemm_epi e) {
    switch (e) {
        case GEMM_EPI_BIAS: return CUBLASLT_EPILOGUE_BIAS;
        case GEMM_EPI_RELU: return CUBLASLT_EPILOGUE_RELU;
        case GEMM_EPI_BIAS_RELU: return CUBLASLT_EPILOGUE_RELU_BIAS;
        case GEMM_EPI_GELU: return CUBLASLT_EPILOGUE_GELU;
        case GEMM_EPI_BIAS_GELU: return CUBLASLT_EPILOGUE_GELU_BIAS;
        default: return CUBLASLT_EPILOGUE_DEFAULT;
    }
}

static int lt_failed(harness_lt_plan *pl, const char *what, cublasStatus_t st) {
    if (st == CUBLAS_STATUS_SUCCESS) return 0;
    snprintf(pl->why, sizeof pl->why, "cuBLASLt: %s: %s", what, cublasGetStatusName(st));
    return 1;
}

void harness_lt_plan_make(harness_lt_plan *pl, cublasLtHandle_t lt, const gemm_problem *p,
                          int transposed, const void *c, void *d, long long ldd, size_t ws_bytes) {
    memset(pl, 0, sizeof *pl);
    pl->transposed = transposed;
    pl->alpha = p->alpha;
    pl->beta = p->beta;
    pl->c = c;
    pl->d = d;
    if (GEMM_EPI_ACT(p->epilogue) == GEMM_ACT_GELU && p->gelu == GEMM_GELU_ERF) {
        snprintf(pl->why, sizeof pl->why, "cuBLASLt's GELU is the tanh form, not erf");
        return;
    }
    /* Not transposed: X = B * A^T, column-major N x M (our row-major C). Its A is our B: K-major
     * B is stored like a K x N column-major matrix (op T), N-major B is N x K (op N). Its B is
     * our A^T: K-major A is stored as the K x M column-major A^T (op N), M-major A is M x K
     * (op T). Transposed: Y = A * B^T, column-major M x N, the same reasoning with the roles
     * of A and B exchanged. */
    const long long M = p->m, N = p->n, K = p->k;
    /* x: cuBLASLt's first operand (our B, or A when transposed), rows xr of the output; y: the
     * second, rows yr. A K-major operand is its K x rows column-major transpose (op T for x,
     * op N for y); a rows-major one is rows x K. */
    const int xk = transposed ? p->a_kmajor : p->b_kmajor;
    const int yk = transposed ? p->b_kmajor : p->a_kmajor;
    const long long xr = transposed ? M : N, yr = transposed ? N : M;
    pl->a = transposed ? p->A : p->B;
    pl->b = transposed ? p->B : p->A;
    const cublasOperation_t opa = xk ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opb = yk ? CUBLAS_OP_N : CUBLAS_OP_T;
    const uint64_t ar = xk ? K : xr, ac = xk ? xr : K;
    const uint64_t br = yk ? K : yr, bc = yk ? yr : K;
    const uint64_t dr = xr, dc = yr;
    const long long lda = transposed ? p->lda : p->ldb;
    const long long ldb = transposed ? p->ldb : p->lda;
    const cublasLtEpilogue_t epi = lt_epilogue(p->epilogue);
    if (lt_failed(pl, "descriptor",
                  cublasLtMatmulDescCreate(&pl->op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
        lt_failed(pl, "transa",
                  cublasLtMatmulDescSetAttribute(pl->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa,
                                                 sizeof opa)) ||
        lt_failed(pl, "transb",
                  cublasLtMatmulDescSetAttribute(pl->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb,
                                                 sizeof opb)) ||
        lt_failed(pl, "epilogue",
                  cublasLtMatmulDescSetAttribute(pl->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                                 sizeof epi)))
        return;
    if (GEMM_EPI_HAS_BIAS(p->epilogue)) {
        const void *bias = p->bias;
        const int32_t bt = (int32_t)lt_type(p->bias_dtype);
        if (lt_failed(pl, "bias",
                      cublasLtMatmulDescSetAttribute(pl->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                     &bias, sizeof bias)) ||
            lt_failed(pl, "bias type",
                      cublasLtMatmulDescSetAttribute(pl->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                                     &bt, sizeof bt)))
            return;
    }
    if (lt_failed(pl, "layout A",
                  cublasLtMatrixLayoutCreate(&pl->la, lt_type(p->dtype), ar, ac, lda)) ||
        lt_failed(pl, "layout B",
                  cublasLtMatrixLayoutCreate(&pl->lb, lt_type(p->dtype), br, bc, ldb)) ||
        lt_failed(pl, "layout C",
                  cublasLtMatrixLayoutCreate(&pl->lc, lt_type(p->c_dtype), dr, dc, ldd)) ||
        lt_failed(pl, "layout D",
                  cublasLtMatrixLayoutCreate(&pl->ld, lt_type(p->c_dtype), dr, dc, ldd)))
        return;
    cublasLtMatmulPreference_t pref = NULL;
    const uint64_t ws = ws_bytes;
    const uint32_t al_a = align_of(pl->a), al_b = align_of(pl->b), al_c = align_of(pl->c),
                   al_d = align_of(pl->d);
    cublasLtMatmulHeuristicResult_t res;
    int nres = 0;
    memset(&res, 0, sizeof res);
    if (!lt_failed(pl, "preference", cublasLtMatmulPreferenceCreate(&pref)) &&
        !lt_failed(pl, "workspace",
                   cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)) &&
        !lt_failed(pl, "alignment",
                   cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof al_a)) &&
        !lt_failed(pl, "alignment",
                   cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof al_b)) &&
        !lt_failed(pl, "alignment",
                   cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof al_c)) &&
        !lt_failed(pl, "alignment",
                   cublasLtMatmulPreferenceSetAttribute(
                       pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_d, sizeof al_d)) &&
        !lt_failed(pl, "no algorithm",
                   cublasLtMatmulAlgoGetHeuristic(lt, pl->op, pl->la, pl->lb, pl->lc, pl->ld, pref,
                                                  1, &res, &nres))) {
        if (nres < 1) snprintf(pl->why, sizeof pl->why, "cuBLASLt: no algorithm for this case");
        else {
            pl->algo = res.algo;
            pl->ok = 1;
        }
    }
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
}

cublasStatus_t harness_lt_run(const harness_lt_plan *pl, cublasLtHandle_t lt, void *ws,
                              size_t ws_bytes, cudaStream_t s) {
    return cublasLtMatmul(lt, pl->op, &pl->alpha, pl->a, pl->la, pl->b, pl->lb, &pl->beta, pl->c,
                          pl->lc, pl->d, pl->ld, &pl->algo, ws, ws_bytes, s);
}

void harness_lt_plan_free(harness_lt_plan *pl) {
    if (pl->la) cublasLtMatrixLayoutDestroy(pl->la);
    if (pl->lb) cublasLtMatrixLayoutDestroy(pl->lb);
    if (pl->lc) cublasLtMatrixLayoutDestroy(pl->lc);
    if (pl->ld) cublasLtMatrixLayoutDestroy(pl->ld);
    if (pl->op) cublasLtMatmulDescDestroy(pl->op);
    memset(pl, 0, sizeof *pl);
}
