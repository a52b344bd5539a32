/* harness.h - the course harness: CLI, data, cuBLAS reference, checks, timing, report.
 *
 * Every lesson's main() is one call:
 *
 *     int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
 *
 * where `lesson` (a gemm_lesson) names the lesson and lists its kernel variants. The harness
 * (C11, compiled by gcc, common/harness.c) parses the options, makes seeded random operands on
 * the device, computes the reference with cuBLAS at the same compute type (plus a float64 CPU
 * reference for small sizes, which also checks cuBLAS), checks the lesson's output, times the
 * lesson and cuBLAS in the same run and prints one table. `./run --help` lists the options.
 * Before each checked launch it fills every SM's shared memory with NaN (harness_dev.h), so a
 * kernel that reads shared memory it did not write in that launch fails the check.
 * Operand values are a hash of (seed, index) (harness_kernels.cu), so they do not depend on the
 * launch shape. Timing: before each timed launch a memset of 3x the L2 evicts the operands;
 * CUDA events bracket the launch alone; the median of --iters runs is reported (slow kernels
 * get fewer runs: about 2 s of timed runs per case).
 *
 * THE GEMM CONVENTION (one for the whole repository, as in CuTe):
 *     C = alpha * A * B^T + beta * C        A is (M,K), B is (N,K), C is (M,N)
 * `op` is expressed by strides, never by copying. The two layout letters are BLAS's words
 * (column-major storage, first letter for A, second for B), mapped onto our (M,K)/(N,K) shapes:
 *     letter   A (M,K) element (m,k) at          B (N,K) element (n,k) at
 *     'T'      A[m*lda + k]   (K-major)          B[n + k*ldb]   (N-major)
 *     'N'      A[m + k*lda]   (M-major)          B[n*ldb + k]   (K-major)
 * So the default "TN" is A row-major with K contiguous and B stored as (N,K) with K contiguous
 * (like torch.nn.functional.linear(x, W)). C is always row-major: C[m*ldc + n], ldc >= N.
 *
 * THE EPILOGUE (lesson 07 on; --out, --epilogue, --bias-axis, --gelu, --bias-dtype): the output
 * D, written over C, is
 *     D = act(alpha * acc + beta * C + bias)      then ONE rounding to the output dtype
 * where acc(m,n) = sum_k A(m,k) * B(n,k) in the accumulator's precision (fp32 unless a variant
 * says GEMM_ACC_FP16), everything after it in fp32, and bias is a vector: --bias-axis n (the
 * default) adds bias[n], one value per output column = per output feature, as in
 * torch.nn.functional.linear(x, W, b); --bias-axis m adds bias[m], one per row. act is the
 * identity, relu(x) = (x < 0 ? 0 : x) (NaN stays NaN) or gelu (--gelu tanh, the default and
 * cuBLASLt's form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); --gelu erf: 0.5 x (1 +
 * erf(x / sqrt(2)))). This is cuBLASLt's order (cublasLt.h, CUBLASLT_EPILOGUE_BIAS: the bias is
 * "added before applying the final postprocessing"). beta = 0 never reads C. The reference is
 * cuBLASLt with the matching CUBLASLT_EPILOGUE_* where it supports the case, else cuBLAS (fp32
 * output) + the harness's elementwise kernel (common/harness_epilogue.h), plus the float64 CPU
 * reference of the whole expression; each row is timed as the lesson's kernel, cuBLAS (plain),
 * cuBLASLt fused and cuBLAS + a separate bias/activation kernel ("unfused").
 *
 * Exit status of harness_main: 0 every check passed; 1 a check failed; 2 usage error or a
 * request the lesson refuses; 3 no usable CUDA device or a CUDA/cuBLAS error.
 */
#ifndef GEMM_HARNESS_H
#define GEMM_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { HARNESS_EXIT_OK = 0, HARNESS_EXIT_FAIL = 1, HARNESS_EXIT_USAGE = 2, HARNESS_EXIT_CUDA = 3 };

/* Element types. GEMM_DT_BIT(d) makes the bitmask a variant uses to list what it supports. */
typedef enum { GEMM_FP32 = 0, GEMM_FP16 = 1, GEMM_BF16 = 2, GEMM_NDTYPES = 3 } gemm_dtype;
#define GEMM_DT_BIT(d) (1u << (d))
#define GEMM_DT_ALL (GEMM_DT_BIT(GEMM_FP32) | GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))

/* Epilogues (see THE EPILOGUE above): bit 0 = bias, bits 1-2 = the activation. */
typedef enum {
    GEMM_EPI_NONE = 0,
    GEMM_EPI_BIAS = 1,
    GEMM_EPI_RELU = 2,
    GEMM_EPI_BIAS_RELU = 3,
    GEMM_EPI_GELU = 4,
    GEMM_EPI_BIAS_GELU = 5,
    GEMM_NEPIS = 6
} gemm_epi;
typedef enum { GEMM_ACT_NONE = 0, GEMM_ACT_RELU = 1, GEMM_ACT_GELU = 2 } gemm_act;
#define GEMM_EPI_HAS_BIAS(e) ((int)(e)&1)
#define GEMM_EPI_ACT(e) ((gemm_act)((int)(e) >> 1))
typedef enum { GEMM_BIAS_N = 0, GEMM_BIAS_M = 1 } gemm_bias_axis; /* bias[n] or bias[m] */
typedef enum { GEMM_GELU_TANH = 0, GEMM_GELU_ERF = 1 } gemm_gelu;

/* What a variant supports beyond every lesson's default, or'ed into its `dtypes` mask (bits 0-2
 * are the input dtypes, GEMM_DT_BIT): a variant without these bits runs the default output
 * dtype (fp32 for fp32 inputs, else the input's), epilogue none, fp32 accumulation, and the
 * harness refuses anything else for it before launch.
 *   GEMM_OUT_BIT(d)      output (and C) dtype d; none given: the default output only
 *   GEMM_EPI_BIT(e)      epilogue e (GEMM_EPI_NONE is always supported)
 *   GEMM_BIAS_DT_BIT(d)  bias dtype d; none given: the output's dtype only
 *   GEMM_ACC_FP16        accumulates in fp16 (mma ...f16.f16.f16.f16): checked against cuBLAS
 *                        with CUBLAS_COMPUTE_16F under a K-dependent tolerance
 * e.g. GEMM_DT_BIT(GEMM_FP16) | GEMM_OUT_BIT(GEMM_FP32) | GEMM_OUT_BIT(GEMM_FP16) | GEMM_EPI_ALL */
#define GEMM_OUT_BIT(d) (1u << (4 + (d)))
#define GEMM_OUT_ALL (GEMM_OUT_BIT(GEMM_FP32) | GEMM_OUT_BIT(GEMM_FP16) | GEMM_OUT_BIT(GEMM_BF16))
#define GEMM_EPI_BIT(e) (1u << (8 + (e)))
#define GEMM_EPI_ALL (0x3Fu << 8)
#define GEMM_BIAS_DT_BIT(d) (1u << (16 + (d)))
#define GEMM_BIAS_DT_ALL (7u << 16)
#define GEMM_ACC_FP16 (1u << 24)

/* Operand orders (see the table above). GEMM_LAYOUT_BIT(l) for the supported-layouts mask. */
typedef enum { GEMM_TN = 0, GEMM_NT = 1, GEMM_NN = 2, GEMM_TT = 3, GEMM_NLAYOUTS = 4 } gemm_layout;
#define GEMM_LAYOUT_BIT(l) (1u << (l))
#define GEMM_LAYOUT_ALL 0xFu

/* One GEMM problem as a lesson's launch function receives it. All pointers are device
 * pointers. Leading dimensions and offsets are in elements, not bytes.
 *   A: (M,K) of `dtype`;  a_kmajor ? A[m*lda + k] : A[m + k*lda]
 *   B: (N,K) of `dtype`;  b_kmajor ? B[n*ldb + k] : B[n + k*ldb]
 *   C: (M,N) of `c_dtype`, row-major C[m*ldc + n]; read only when beta != 0. The output D is
 *      written over it.
 *   bias: (N) when bias_axis is GEMM_BIAS_N, (M) for GEMM_BIAS_M, of `bias_dtype`, contiguous,
 *      allocated at exactly that length; NULL when the epilogue has no bias.
 * alpha and beta are applied in fp32. c_dtype is fp32 for fp32 inputs and equals dtype for
 * fp16/bf16 inputs unless --out says otherwise (a variant claims other outputs with
 * GEMM_OUT_BIT). Accumulation is fp32 unless the variant says GEMM_ACC_FP16. The epilogue
 * fields are GEMM_EPI_NONE, GEMM_BIAS_N, GEMM_GELU_TANH and c_dtype when no option sets them. */
typedef struct gemm_problem {
    int m, n, k;
    gemm_layout layout;
    gemm_dtype dtype;   /* element type of A and B */
    gemm_dtype c_dtype; /* element type of C */
    float alpha, beta;
    const void *A;
    const void *B;
    void *C;
    long long lda, ldb, ldc;
    int a_kmajor, b_kmajor; /* derived from layout; 1 = K is the contiguous mode */
    /* the epilogue, D = act(alpha*acc + beta*C + bias) rounded once to c_dtype */
    gemm_epi epilogue;
    gemm_bias_axis bias_axis;
    gemm_gelu gelu;
    gemm_dtype bias_dtype;
    const void *bias;
} gemm_problem;

/* One kernel variant of a lesson.
 *   name     short id used by --variant and in the table ("coalesced")
 *   summary  one line for --list
 *   dtypes   GEMM_DT_BIT mask of supported input types, or'ed with the GEMM_OUT_BIT /
 *            GEMM_EPI_BIT / GEMM_BIAS_DT_BIT / GEMM_ACC_FP16 bits of what else it supports
 *   layouts  GEMM_LAYOUT_BIT mask of supported operand orders
 *   align    required alignment, in elements, of lda, ldb, ldc and of the A/B/C base
 *            pointers (1 = any). The harness refuses problems that break it.
 *   check    optional: returns NULL when the variant can run p, else a one-line reason
 *            ("K must be a multiple of 8"); called before any launch.
 *   launch   enqueues the GEMM on `stream` and returns cudaGetLastError() (or the first
 *            error met). It must not synchronize or allocate. */
typedef struct gemm_variant {
    const char *name;
    const char *summary;
    unsigned dtypes;
    unsigned layouts;
    int align;
    const char *(*check)(const gemm_problem *p);
    cudaError_t (*launch)(const gemm_problem *p, cudaStream_t stream);
} gemm_variant;

/* A lesson: its id ("01_naive"), a title, and its variants (the first is the default).
 * default_layouts: GEMM_LAYOUT_BIT mask used when --layout is not given; 0 means TN. */
typedef struct gemm_lesson {
    const char *id;
    const char *title;
    int nvariants;
    const gemm_variant *variants;
    unsigned default_layouts;
} gemm_lesson;

/* A lesson with a dispatcher (lesson 08) registers how to explain it before harness_main;
 * `--explain` then prints, for every (dtype, layout, size) of the request, the line fn writes
 * (no newline: what the default variant would run for p and why; returns its length). fn is
 * called first with p == NULL for a header line (what it plans for, e.g. the device), which
 * may be "". The pointers in p are stand-ins with the request's alignment (--offset), never
 * dereferenced; no GPU is needed. Without a registered fn, --explain is a usage error. */
typedef int (*harness_explain_fn)(const gemm_problem *p, char *buf, size_t len);
void harness_set_explain(harness_explain_fn fn);

/* A lesson with a dispatcher may also register a tuner before harness_main; then
 *   --tune            for every (dtype, layout, size) of the request the harness asks
 *                     candidates() for every way the lesson can run the problem, checks each
 *                     once against the reference (a wrong one is reported, exits 1 at the end
 *                     and never wins), times each as it times a variant (warm-up, median of
 *                     --iters runs, each after an L2 flush) and prints one line: the winner,
 *                     the runner-up, the candidate the default variant runs and cuBLAS;
 *   --tune-out FILE   (with --tune) writes the winners as a table: the header comment, then
 *                     one line per problem from entry();
 *   --tuned FILE      load(FILE) before anything else (--explain included): the lesson's
 *                     default variant then runs the table's entries; a bad file is one line
 *                     in err and exit 2.
 * Without a registered tuner these options are a usage error. */
#define HARNESS_MAX_CANDIDATES 128
typedef struct harness_candidate {
    char name[96];  /* what runs, as words ("128x128x32_s4_splitk split 4 C") */
    int is_default; /* 1: what the default variant runs for this problem */
    char note[96];  /* for the default's candidate: why it runs ("rule T6"), or "" */
    int code[4];    /* the lesson's own description, handed back to launch() */
} harness_candidate;
typedef struct harness_tuner {
    /* The candidates of problem p (device pointers set) into out, room for max; returns the
     * count (at most max). */
    int (*candidates)(const gemm_problem *p, harness_candidate *out, int max);
    /* Enqueues candidate c on p, as gemm_variant.launch does. */
    cudaError_t (*launch)(const gemm_problem *p, const harness_candidate *c, cudaStream_t s);
    /* The table's line of winner c of problem p, measured at ms (no newline). */
    int (*entry)(const gemm_problem *p, const harness_candidate *c, double ms, char *buf,
                 size_t len);
    const char *header; /* the table's header comment: '#' lines, each ending in '\n' */
    /* --tuned FILE: reads and checks the table; 0, or one line (no newline) in err. */
    int (*load)(const char *path, char *err, size_t len);
} harness_tuner;
void harness_set_tuner(const harness_tuner *t);

/* ---- options ------------------------------------------------------------------------- */

#define HARNESS_MAX_SIZES 64
#define HARNESS_MAX_VARIANTS 16

typedef enum { HARNESS_INIT_RANDOM = 0, HARNESS_INIT_ONES = 1, HARNESS_INIT_INT = 2 } harness_init;
typedef enum { HARNESS_POISON_NAN = 0, HARNESS_POISON_INF = 1 } harness_poison;

typedef struct harness_opts {
    int nsizes;
    int sizes[HARNESS_MAX_SIZES][3];     /* M, N, K */
    int default_sweep;                   /* no --size, --m/--n/--k or --sweep was given */
    unsigned layouts;                    /* GEMM_LAYOUT_BIT mask; 0 = the lesson's default */
    unsigned dtypes;                     /* GEMM_DT_BIT mask */
    int explicit_layout, explicit_dtype; /* given as a single value */
    int layout_all, dtype_all;           /* given as 'all' */
    /* "" = every variant (--variant all or not given), else a comma-separated list of variant
     * names ('default' names the first variant) */
    char variant[256];
    float alpha, beta;
    int iters, warmup;
    int check_only;
    int pad;    /* extra elements added to every leading dimension */
    int offset; /* base pointers of A, B, C offset by this many elements */
    harness_init init;
    harness_poison poison;
    unsigned long long seed;
    char csv[512]; /* "" = no CSV */
    /* the epilogue (see THE EPILOGUE): masks of what to run; 0 = the default (the default
     * output of each input dtype; epilogue none; bias along n) */
    unsigned outs;        /* GEMM_DT_BIT mask of output dtypes (--out) */
    unsigned epis;        /* 1u << gemm_epi mask (--epilogue) */
    unsigned bias_axes;   /* 1u << gemm_bias_axis mask (--bias-axis) */
    int out_all, epi_all; /* given as 'all' */
    gemm_gelu gelu;       /* --gelu */
    int bias_dtype;       /* --bias-dtype: a gemm_dtype, or -1 = the output's dtype */
    int exact;            /* --exact: every element must equal the references exactly */
    int list;             /* --list: print variants and exit */
    int explain;          /* --explain: print the dispatcher's choice per case and exit */
    int tune;             /* --tune: time every candidate of the lesson's tuner per case */
    char tune_out[512];   /* --tune-out FILE: the winners as a table; "" = none */
    char tuned[512];      /* --tuned FILE: the table the lesson's default variant uses */
    int help;             /* --help was given */
} harness_opts;

/* The default sweep: sizes that are not multiples of any tile (127, 1000, 4093), M != N != K,
 * and 4096^3 for timing. Fills o->sizes; returns the count. */
int harness_default_sweep(harness_opts *o);

/* Parses argv into *o (defaults first). Returns 0 on success; on a bad option writes one line
 * (no newline) to err and returns HARNESS_EXIT_USAGE. --help sets o->help and returns 0.
 * Example: char e[256]; harness_opts o; if (harness_parse(argc, argv, &o, e, sizeof e)) ... */
int harness_parse(int argc, char **argv, harness_opts *o, char *err, size_t errlen);

/* Prints the usage text for program `prog` to f, with lesson L's defaults (its operand order,
 * whether it has epilogues); L may be NULL (then TN and no lesson-specific line). */
void harness_usage(FILE *f, const char *prog, const gemm_lesson *L);

/* Parses "fp32" / "fp16" / "bf16" (returns the dtype or -1) and "TN"/"NT"/"NN"/"TT". */
int harness_dtype_parse(const char *s);
int harness_layout_parse(const char *s);
const char *harness_dtype_name(gemm_dtype d);
const char *harness_layout_name(gemm_layout l);
/* "none" "bias" "relu" "bias_relu" "gelu" "bias_gelu" <-> gemm_epi (-1 when unknown) */
int harness_epi_parse(const char *s);
const char *harness_epi_name(gemm_epi e);
/* The default output dtype of inputs d: fp32 for fp32, else d. */
gemm_dtype harness_default_out(gemm_dtype d);
size_t harness_dtype_size(gemm_dtype d);

/* Why variant v cannot run problem p (dtype, layout, alignment of ld/offset, v->check), or
 * NULL when it can. The pointers in p may be NULL: v->check then sees stand-in addresses with
 * the request's alignment (256-byte aligned bases plus offset_elems), never dereferenced. */
const char *harness_refusal(const gemm_variant *v, const gemm_problem *p, int offset_elems,
                            char *buf, size_t buflen);

/* ---- checking ------------------------------------------------------------------------ */

/* Conversions between fp16/bf16 bit patterns and float (round to nearest even). */
float harness_half_to_float(uint16_t h);
float harness_bf16_to_float(uint16_t h);
uint16_t harness_float_to_half(float f);
uint16_t harness_float_to_bf16(float f);

/* Tolerances for comparing a (M,N) output with K-long dot products, computed with `dtype`
 * inputs, fp32 accumulation and stored as `c_dtype`, against a reference of the same compute
 * type. rel_fro bounds ||out-ref||_F / ||ref||_F; elem bounds each |out-ref| / (|ref| + rms(ref)).
 * Both grow like sqrt(K) * fp32 epsilon plus a few units of the output's rounding. */
typedef struct harness_tol {
    double rel_fro;
    double elem;
} harness_tol;
harness_tol harness_tolerance(gemm_dtype c_dtype, int k);

/* The tolerance of one case: harness_tolerance(p->c_dtype, p->k), plus for a GELU epilogue
 * 2^-10 on both bounds (a reference may evaluate tanh/erf with fast approximations of about
 * 2^-11 relative error, and GELU's slope is at most 1.13); with fp16 accumulation (acc16 != 0)
 * a K-dependent term replaces fp32's: e16 = 2^-11 * sqrt(K) (each of the K/16 mma steps rounds
 * the running sum to fp16), rel_fro = ulp_out + e16, elem = 2 ulp_out + 4 e16. With exact != 0
 * both bounds are 0 (integer data: every result must be exact). */
harness_tol harness_tolerance_case(const gemm_problem *p, int acc16, int exact);

/* GELU in float64: form GEMM_GELU_TANH 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
 * GEMM_GELU_ERF 0.5 x (1 + erf(x / sqrt 2)) (= x * Phi(x), e.g. 0.8413447460685429 at x = 1). */
double harness_gelu_f64(double x, gemm_gelu form);

/* The activation of epilogue e in float64: identity, relu (x < 0 ? 0 : x, NaN stays NaN) or
 * gelu of the given form. */
double harness_act_f64(double x, gemm_epi e, gemm_gelu form);

/* The bias value element (i, j) of the (rows, n) output gets: bias[j] for GEMM_BIAS_N, bias[i]
 * for GEMM_BIAS_M; 0 when bias is NULL. bias holds host floats of the bias vector. */
double harness_bias_at(const float *bias, gemm_bias_axis axis, long long i, long long j);

/* Finishes a float64 reference: for rows [r0, r1) of out (ld = n), which holds
 * alpha * acc + beta * C0 (harness_ref_f64), adds the bias and applies the activation of
 * epilogue e: out = act(out + bias), in float64 (no rounding). bias: host floats, or NULL. */
void harness_ref_epilogue_f64(double *out, int n, int r0, int r1, gemm_epi e, gemm_gelu form,
                              const float *bias, gemm_bias_axis axis);

typedef struct harness_cmp {
    double rel_fro;      /* ||out-ref||_F / ||ref||_F (over finite pairs) */
    double max_abs;      /* worst |out - ref| */
    double worst_scaled; /* worst |out-ref| / (|ref| + rms(ref)) */
    long long worst_row, worst_col;
    long long nonfinite; /* outputs that are NaN or Inf (unwritten outputs stay NaN) */
    long long first_bad_row, first_bad_col; /* first non-finite output, or -1 */
    long long ref_nonfinite;                /* non-finite reference values (reference is broken) */
    int pass;
    char reason[160]; /* why it failed; "" when it passed */
} harness_cmp;

/* Compares out (rows x cols, row-major with leading dimension ld_out) with ref (ld_ref) as
 * floats, using tolerance tol. A NaN/Inf output always fails; so does any element beyond
 * tol.elem or a Frobenius error beyond tol.rel_fro. Returns cmp.pass. */
int harness_compare(const float *out, long long ld_out, const float *ref, long long ld_ref,
                    long long rows, long long cols, harness_tol tol, harness_cmp *cmp);

/* Float64 CPU reference for rows [r0, r1) of C = alpha * A * B^T + beta * C0, from host
 * float copies of the operands laid out as in gemm_problem (a_kmajor/b_kmajor, lda/ldb) and
 * C0 row-major with ldc (C0 may be NULL when beta == 0). Writes rows into out (ld = n). */
void harness_ref_f64(int m, int n, int k, double alpha, const float *A, long long lda, int a_kmajor,
                     const float *B, long long ldb, int b_kmajor, double beta, const float *C0,
                     long long ldc, int r0, int r1, double *out);

/* ---- the plan: what a request runs, decided before the GPU is touched ------------------ */

/* The variants a request names, in the order given: every variant of the lesson when
 * o->variant is "" (--variant absent or 'all') except the opt-in ones (GEMM_ACC_FP16: they run
 * only when named), 'default' naming the first. Fills sel (room for
 * HARNESS_MAX_VARIANTS) and returns the count; 0 with one line in err for an unknown name. */
int harness_select_variants(const gemm_lesson *L, const harness_opts *o, const gemm_variant **sel,
                            char *err, size_t errlen);

#define HARNESS_REFUSAL_GROUPS 4
#define HARNESS_GROUP_SIZES 8

/* The refused cases of one reason: harness_refusal's text without "variant 'X' " and the
 * case's own "(got ...)" details. */
typedef struct harness_refusal_group {
    char reason[200];
    char first[160];   /* the first refused case: "MxNxK dtype layout[, details]" */
    unsigned variants; /* bit vi: selected variant vi was refused for this reason */
    int count;         /* refused cases */
    int nsizes;        /* distinct refused sizes; the first HARNESS_GROUP_SIZES are in sizes */
    int sizes[HARNESS_GROUP_SIZES][3];
} harness_refusal_group;

/* One case to run: a variant and its problem (device pointers still NULL). */
typedef struct harness_case {
    const gemm_variant *v;
    gemm_problem p;
} harness_case;

/* Every (variant, dtype, layout, size) of a request, split into cases to run and refusals. */
typedef struct harness_plan {
    harness_case *cases; /* ncases of them, in run order; free with harness_plan_free */
    int ncases;
    const gemm_variant *sel[HARNESS_MAX_VARIANTS]; /* the selected variants */
    int nsel;
    int nrefused; /* refused cases (what --dtype all / --layout all leave out is not counted) */
    harness_refusal_group groups[HARNESS_REFUSAL_GROUPS];
    int ngroups;
    int nlost;  /* refused cases whose reason found no free group */
    int nsizes; /* sizes in the request */
    /* 1 when the cases are the lesson's defaults: the default sweep, no --dtype / --layout
     * list (only 'all'), no --pad / --offset. Its refusals are skips: said in one line after
     * the table (harness_skip_line) when anything runs. Other requests report refusals
     * before anything runs (harness_refusal_line), and exit 2 when nothing can run. */
    int default_request;
} harness_plan;

/* Plans a request: selects the variants, builds every case and asks harness_refusal about it.
 * Needs no GPU (a variant's check() may ask the device). Returns 0, or HARNESS_EXIT_USAGE with
 * one line in err (an unknown variant name). */
int harness_plan_cases(const gemm_lesson *L, const harness_opts *o, harness_plan *plan, char *err,
                       size_t errlen);
void harness_plan_free(harness_plan *plan);

/* Group g of a plan as one line (no newline), as printed before the table:
 * "<lesson>: refused: N cases of <variants>: <reason> (first: <case>)[; nothing to run]". */
int harness_refusal_line(char *buf, size_t len, const char *lesson_id, const harness_plan *plan,
                         int g);

/* Every refusal of a plan as ONE line (no newline), as printed after the table of a default
 * request: "<lesson>: the default sweep skipped N cases that the kernels refuse: <reason>
 * (<count>: <sizes or 'every size'>; <variants or 'every variant'>)[; <reason> (...)]".
 * Writes "" and returns 0 when nothing was refused; else returns the length it needed. */
int harness_skip_line(char *buf, size_t len, const char *lesson_id, const harness_plan *plan);

/* ---- report -------------------------------------------------------------------------- */

/* One result row, as printed in the table and written to the CSV. */
typedef struct harness_row {
    const char *lesson, *variant;
    gemm_dtype dtype;
    gemm_layout layout;
    int m, n, k;
    float alpha, beta;
    double ms, tflops; /* lesson kernel: median time; < 0 when not timed */
    double cublas_ms, cublas_tflops;
    double pct_cublas; /* 100 * cublas_ms / ms; < 0 when not timed */
    double rel_err, max_err;
    const char *status; /* "PASS" / "FAIL" / "SKIP" */
    /* the epilogue (CSV columns after commit; printed when the lesson has epilogues) */
    gemm_dtype out; /* output dtype */
    gemm_epi epilogue;
    gemm_bias_axis bias_axis;
    gemm_gelu gelu;
    int acc16;             /* the variant accumulates in fp16 */
    double lt_ms;          /* cuBLASLt with the epilogue fused; < 0 when not timed or none */
    double unfused_ms;     /* cuBLAS + a separate bias/activation kernel; < 0 when not timed */
    const char *reference; /* "cublas", "cublas16f", "cublaslt", "cublas+kernel" */
    double f64_rel_err;    /* against the float64 reference (sampled rows); < 0 when none */
} harness_row;

typedef struct harness_env {
    char device[128];
    int cuda_runtime, cuda_driver; /* e.g. 13000 */
    char date[32];                 /* ISO 8601 UTC */
    char commit[64];
} harness_env;

/* CSV header line (no newline) and one row (no newline) into buf; returns chars written. */
const char *harness_csv_header(void);
int harness_csv_format(char *buf, size_t len, const harness_row *r, const harness_env *e);

/* Appends a row to path, writing the header first when the file is new or empty.
 * Returns 0, or -1 when the file cannot be written (errno is set). */
int harness_csv_append(const char *path, const harness_row *r, const harness_env *e);

/* Table printing: the header and one aligned row. */
void harness_table_header(FILE *f);
void harness_table_row(FILE *f, const harness_row *r);
/* The table of a run with epilogues: also the output dtype, the epilogue, cuBLASLt fused and
 * the unfused time (used when the lesson has a variant with epilogue bits or --out/--epilogue
 * is given). The epilogue reads like "bias_gelu", "bias_relu[m]" (bias along m), "gelu[erf]". */
void harness_table_header_epi(FILE *f);
void harness_table_row_epi(FILE *f, const harness_row *r);
/* The epilogue of a row as the table and the CSV name it ("bias_gelu[m,erf]"). */
void harness_epi_label(char *buf, size_t len, gemm_epi e, gemm_bias_axis axis, gemm_gelu form);

/* ---- the whole run ------------------------------------------------------------------- */

/* Parses options, runs every selected (variant, dtype, layout, size), prints the table and the
 * closing "N passed, M failed" line, and returns the exit status described at the top. */
int harness_main(int argc, char **argv, const gemm_lesson *lesson);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_HARNESS_H */
