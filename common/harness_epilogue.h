/* harness_epilogue.h - the harness's side of the epilogue, internal to the harness (the lessons
 * write their own; see THE EPILOGUE in harness.h for what is computed):
 *   1. the elementwise arithmetic of the harness's GPU reference kernel, host + device, so that
 *      the CPU tests (tests/test_epilogue.c) check the very code that kernel runs;
 *   2. the device helpers of common/harness_epilogue_kernels.cu (reference / unfused
 *      bias+activation kernel, transpose, bias fill);
 *   3. the cuBLASLt plan of one case (common/harness_epilogue.c): the reference and the
 *      "cuBLASLt fused" time.
 */
#ifndef GEMM_HARNESS_EPILOGUE_H
#define GEMM_HARNESS_EPILOGUE_H

#include <math.h>

#include <cublasLt.h>

#include "harness.h"
#include "layout.h" /* LAY_HD: the course's host/device marker */

/* ---- 1. the arithmetic, in fp32 -------------------------------------------------------- */

/* relu that keeps NaN (x < 0 is false for NaN), as torch.relu does; fmaxf(x, 0) would turn a
 * NaN into 0 and hide it. */
LAY_HD static inline float hepi_relu(float x) { return x < 0.0f ? 0.0f : x; }

/* gelu in fp32, with the accurate tanhf / erff of the C library (host) or of CUDA's libdevice
 * (device; this file is never compiled with fast math). */
LAY_HD static inline float hepi_gelu(float x, gemm_gelu form) {
    if (form == GEMM_GELU_ERF) return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    const float s2pi = 0.79788456080286536f; /* sqrt(2 / pi) */
    return 0.5f * x * (1.0f + tanhf(s2pi * (x + 0.044715f * x * x * x)));
}

/* D before its one rounding: act(ax + beta * c + bias) in fp32, in this order, where
 * ax = alpha * acc. The caller reads c only when beta != 0 (pass 0 otherwise) and passes
 * has_bias = 0 when there is no bias (adding 0 would turn -0 into +0). */
LAY_HD static inline float hepi_apply(float ax, float beta, float c, int has_bias, float bias,
                                      gemm_act act, gemm_gelu form) {
    float v = ax;
    if (beta != 0.0f) v += beta * c;
    if (has_bias) v += bias;
    return act == GEMM_ACT_RELU ? hepi_relu(v) : act == GEMM_ACT_GELU ? hepi_gelu(v, form) : v;
}

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 2. device helpers (common/harness_epilogue_kernels.cu) -------------------------------
 * Each enqueues on s and returns the launch error. */

/* D(i,j) = round(hepi_apply(T(i,j), beta, C(i,j), bias...)) for i < rows, j < cols, rounded
 * once to d_dt (round to nearest even). T: t_dt, leading dimension ldt (T == D: in place, as the
 * unfused path runs). C, D: d_dt, leading dimension ldd; C may equal D; C is read only when
 * beta != 0. bias: NULL, or (cols) for GEMM_BIAS_N / (rows) for GEMM_BIAS_M of bias_dt. */
cudaError_t harness_dev_epilogue(void *D, const void *C, gemm_dtype d_dt, long long ldd,
                                 const void *T, gemm_dtype t_dt, long long ldt, long long rows,
                                 long long cols, float beta, const void *bias, gemm_dtype bias_dt,
                                 gemm_bias_axis axis, gemm_epi e, gemm_gelu form, cudaStream_t s);

/* dst(j, i) = src(i, j) for i < rows, j < cols: src row-major with ld_src, dst with ld_dst
 * (dst[j * ld_dst + i] = src[i * ld_src + j]); elements of elem_bytes (2 or 4) bytes, copied
 * bit for bit. */
cudaError_t harness_dev_transpose(void *dst, long long ld_dst, const void *src, long long ld_src,
                                  long long rows, long long cols, size_t elem_bytes,
                                  cudaStream_t s);

/* p[i] = i for i < n, in dtype dt (the bias of --init ones / int: bias[j] = j, so the expected
 * results are integers such as 64 + j; exact in fp16 up to 2048, in bf16 up to 256). */
cudaError_t harness_dev_fill_index(void *p, gemm_dtype dt, long long n, cudaStream_t s);

/* ---- 3. cuBLASLt (common/harness_epilogue.c) ------------------------------------------------
 * cuBLASLt is column-major and adds its bias per row of its D. Our C is row-major (M,N), i.e.
 * the column-major N x M matrix X = B * A^T: its rows are our columns n, so cuBLASLt's bias is
 * our bias along n and it writes C in place (ld = ldc). For the bias along m the plan computes
 * the transposed product Y = A * B^T (column-major M x N, ld = M), whose rows are our rows m,
 * into a separate buffer (the caller transposes C0 into Yc first when beta != 0, and Y back into
 * the output afterwards). */
typedef struct harness_lt_plan {
    int ok;         /* 1: cuBLASLt runs this case */
    int transposed; /* 1: computes Y = A * B^T (bias along m) */
    char why[160];  /* when !ok: why cuBLASLt does not take it */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cublasLtMatmulAlgo_t algo;
    const void *a, *b; /* cuBLASLt's A and B (our B and A, or A and B when transposed) */
    const void *c;     /* its C (read when beta != 0) */
    void *d;           /* its D */
    float alpha, beta;
} harness_lt_plan;

/* Builds the plan of problem p (compute type fp32; output c_dtype; bias per p->epilogue, of
 * p->bias_dtype) with its C at c and D at d, leading dimension ldd (ldc, or M when transposed),
 * and asks cuBLASLt's heuristic for an algorithm within ws_bytes of workspace. GELU erf,
 * fp16 accumulation and type combinations cuBLASLt has no kernel for leave ok = 0 with the
 * reason in why (the caller falls back to cuBLAS + the reference kernel). Never exits. */
void harness_lt_plan_make(harness_lt_plan *pl, cublasLtHandle_t lt, const gemm_problem *p,
                          int transposed, const void *c, void *d, long long ldd, size_t ws_bytes);
/* Enqueues the planned cublasLtMatmul on s. */
cublasStatus_t harness_lt_run(const harness_lt_plan *pl, cublasLtHandle_t lt, void *ws,
                              size_t ws_bytes, cudaStream_t s);
void harness_lt_plan_free(harness_lt_plan *pl);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_HARNESS_EPILOGUE_H */
