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

/* Operand orders (see the table above). GEMM_LAYOUT_BIT(l) for the supported-layouts mask. */
typedef enum { GEMM_TN = 0, GEMM_NT = 1, GEMM_NN = 2, GEMM_TT = 3, GEMM_NLAYOUTS = 4 } gemm_layout;
#define GEMM_LAYOUT_BIT(l) (1u << (l))
#define GEMM_LAYOUT_ALL 0xFu

/* One GEMM problem as a lesson's launch function receives it. All pointers are device
 * pointers. Leading dimensions and offsets are in elements, not bytes.
 *   A: (M,K) of `dtype`;  a_kmajor ? A[m*lda + k] : A[m + k*lda]
 *   B: (N,K) of `dtype`;  b_kmajor ? B[n*ldb + k] : B[n + k*ldb]
 *   C: (M,N) of `c_dtype`, row-major C[m*ldc + n]; read only when beta != 0.
 * alpha and beta are applied in fp32. c_dtype is fp32 for fp32 inputs and equals dtype for
 * fp16/bf16 inputs (accumulation is always fp32). */
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
} gemm_problem;

/* One kernel variant of a lesson.
 *   name     short id used by --variant and in the table ("coalesced")
 *   summary  one line for --list
 *   dtypes   GEMM_DT_BIT mask of supported input types
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
    int list;      /* --list: print variants and exit */
    int explain;   /* --explain: print the dispatcher's choice per case and exit */
    int help;      /* --help was given */
} harness_opts;

/* The default sweep: sizes that are not multiples of any tile (127, 1000, 4093), M != N != K,
 * and 4096^3 for timing. Fills o->sizes; returns the count. */
int harness_default_sweep(harness_opts *o);

/* Parses argv into *o (defaults first). Returns 0 on success; on a bad option writes one line
 * (no newline) to err and returns HARNESS_EXIT_USAGE. --help sets o->help and returns 0.
 * Example: char e[256]; harness_opts o; if (harness_parse(argc, argv, &o, e, sizeof e)) ... */
int harness_parse(int argc, char **argv, harness_opts *o, char *err, size_t errlen);

/* Prints the usage text for program `prog` to f. */
void harness_usage(FILE *f, const char *prog);

/* Parses "fp32" / "fp16" / "bf16" (returns the dtype or -1) and "TN"/"NT"/"NN"/"TT". */
int harness_dtype_parse(const char *s);
int harness_layout_parse(const char *s);
const char *harness_dtype_name(gemm_dtype d);
const char *harness_layout_name(gemm_layout l);
size_t harness_dtype_size(gemm_dtype d);

/* Why variant v cannot run problem p (dtype, layout, alignment of ld/offset, v->check), or
 * NULL when it can. The pointers in p may be NULL (only offsets/ld are looked at). */
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
 * o->variant is "" (--variant absent or 'all'), 'default' naming the first. Fills sel (room for
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

/* ---- the whole run ------------------------------------------------------------------- */

/* Parses options, runs every selected (variant, dtype, layout, size), prints the table and the
 * closing "N passed, M failed" line, and returns the exit status described at the top. */
int harness_main(int argc, char **argv, const gemm_lesson *lesson);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_HARNESS_H */
