/* lt_algos.cu - the kernels cuBLASLt could run for one GEMM, each timed: what its heuristic
 * chose from, and how fast the alternatives are.
 *
 * The problem is the harness's TN one: C (M,N) = A (M,K) * B (N,K)^T, all row-major, fp16 or
 * bf16 in and out, fp32 compute and scale, alpha 1, beta 0, called through the harness's own
 * cuBLASLt plan (harness_lt_plan_make / harness_lt_run, common/harness_epilogue.h: the same
 * descriptors, 32 MiB workspace and heuristic pick as the "Lt" column of a lesson's table).
 * Every algorithm id that cublasLtMatmulAlgoGetIds returns is tried with each tile id, stages
 * id and CTA swizzle its capabilities list (cublasLtMatmulAlgoCapGetAttribute:
 * CUBLASLT_ALGO_CAP_TILE_IDS, _STAGES_IDS, _CTA_SWIZZLING_SUPPORT; no K split, the other fields
 * at their defaults); what cublasLtMatmulAlgoCheck accepts is run, compared with the heuristic's
 * result and timed three times; the fastest `--top` are timed again with `--iters` runs.
 * Operands and timing are the harness's too, so that the times compare with a lesson's: A and
 * B from its fill (harness_dev_fill, uniform in [-1, 1); the power the Tensor Cores draw, and
 * so the clock under the power limit, depends on the data), and the median of runs that each
 * stand alone between two events, after a memset larger than the L2.
 *
 * The API does not say which kernel, or which Tensor Core instruction, a configuration runs.
 * `--launch i,j,...` (indices from the listing; -1 = the heuristic's pick) runs each listed
 * configuration twice and nothing else, for Nsight Compute to name the kernels:
 *     ncu --clock-control none --metrics gpu__time_duration.sum build/tools/lt_algos \
 *         --size 4096x4096x4096 --launch -1,35,32
 * (cutlass_80_* and sm80_xmma_* kernels use mma.sync; nvjet_sm90_* use wgmma.)
 *
 * Build/run: make build/tools/lt_algos && build/tools/lt_algos --dtype fp16 --size 4096x4096x4096
 * Options: --dtype fp16|bf16 (fp16), --size MxNxK (4096x4096x4096, each 1..65536), --top N (20),
 *          --iters N (20), --launch LIST.
 * Output: one line per configuration of the fastest `--top`: index, algorithm id, tile id,
 * stages id, swizzle, ms, TFLOP/s, then the heuristic's pick (timed before the search and after
 * it). Every final timing starts after 50 ms of idle GPU. A configuration whose result
 * differs from the heuristic's (beyond 2^-6 relative, the 16-bit outputs' rounding of sums
 * taken in another order), or that fails to run, is listed and not ranked.
 * Exit: 0 ok, 2 bad option, 3 no CUDA device / CUDA or cuBLAS error.
 */
#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness_dev.h"
#include "harness_epilogue.h"

#define MAX_IDS 512
#define MAX_CFGS 8192
#define WORKSPACE_BYTES (32u << 20) /* the harness's cuBLASLt workspace */
#define REST_MS 50                  /* idle time before each final timing */
#define FILL_SEED 1ull              /* any: the values are uniform in [-1, 1) for every seed */

/* One configuration: an initialized and configured algorithm, and its times in ms. */
typedef struct cfg {
    cublasLtMatmulAlgo_t algo;
    int index; /* in the order of enumeration (--launch takes it) */
    int id, tile, stages, swizzle, wrong;
    double ms;
} cfg;

/* The problem and everything a launch needs. */
typedef struct ctx {
    int M, N, K, bf16;
    cudaDataType_t dt;
    cublasLtHandle_t lt;
    gemm_problem p;     /* C = A * B^T, TN, written to C */
    harness_lt_plan pl; /* the harness's cuBLASLt plan of p: descriptors and heuristic pick */
    uint16_t *A, *B, *C, *Cref;
    void *ws, *flush;
    size_t flush_bytes;
    unsigned *bad;  /* device counter of elements that differ from Cref */
    cudaStream_t s; /* every launch (a created stream, as the harness's: not the legacy one) */
    cudaEvent_t e0, e1;
} ctx;

/* Counts into *bad the elements of c that differ from ref by more than 2^-6 of |ref| + 2^-6. */
__global__ void count_diff(const uint16_t *c, const uint16_t *ref, size_t n, int bf16,
                           unsigned *bad) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float x = bf16 ? __bfloat162float(__ushort_as_bfloat16(c[i]))
                             : __half2float(__ushort_as_half(c[i]));
        const float r = bf16 ? __bfloat162float(__ushort_as_bfloat16(ref[i]))
                             : __half2float(__ushort_as_half(ref[i]));
        if (!(fabsf(x - r) <= 0.015625f * (fabsf(r) + 1.0f))) atomicAdd(bad, 1u);
    }
}

/* C = A * B^T with `algo` through the harness's plan (harness_lt_run: the call its "Lt" column
 * times); returns cuBLASLt's status (nothing is launched on failure). */
static cublasStatus_t matmul(const ctx *x, const cublasLtMatmulAlgo_t *algo, uint16_t *C) {
    harness_lt_plan pl = x->pl;
    pl.algo = *algo;
    pl.c = C;
    pl.d = C;
    return harness_lt_run(&pl, x->lt, x->ws, WORKSPACE_BYTES, x->s);
}

/* Median of `iters` runs of `algo` (ms), each alone after an L2 flush, after 3 untimed runs (the
 * harness's default --warmup); 1e30 if it fails. It first leaves the GPU idle for `rest_ms`:
 * under the power limit the clock after a long run of GEMMs is lower than after a pause (the
 * harness times each problem after its checks, not after seconds of GEMMs). */
static double time_algo(const ctx *x, const cublasLtMatmulAlgo_t *algo, int iters, int rest_ms) {
    double ts[64];
    if (iters > 64) iters = 64;
    CUDA_CHECK(cudaStreamSynchronize(x->s));
    usleep(1000u * (unsigned)rest_ms);
    for (int w = 0; w < 3; ++w)
        if (matmul(x, algo, x->C) != CUBLAS_STATUS_SUCCESS) return 1e30;
    CUDA_CHECK(cudaStreamSynchronize(x->s));
    for (int i = 0; i < iters; ++i) {
        CUDA_CHECK(cudaMemsetAsync(x->flush, i & 0xff, x->flush_bytes, x->s));
        CUDA_CHECK(cudaEventRecord(x->e0, x->s));
        if (matmul(x, algo, x->C) != CUBLAS_STATUS_SUCCESS) return 1e30;
        CUDA_CHECK(cudaEventRecord(x->e1, x->s));
        CUDA_CHECK(cudaEventSynchronize(x->e1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, x->e0, x->e1));
        int j = i; /* insertion sort: ts[0..i] ascending */
        for (; j > 0 && ts[j - 1] > ms; --j) ts[j] = ts[j - 1];
        ts[j] = ms;
    }
    return iters % 2 ? ts[iters / 2] : 0.5 * (ts[iters / 2 - 1] + ts[iters / 2]);
}

/* Elements of C that differ from Cref after one run of `algo` (-1 if it fails to run). */
static long long check_algo(const ctx *x, const cublasLtMatmulAlgo_t *algo) {
    const size_t n = (size_t)x->M * x->N;
    CUDA_CHECK(cudaMemsetAsync(x->C, 0xff, n * 2, x->s)); /* NaN in both types: unwritten = wrong */
    if (matmul(x, algo, x->C) != CUBLAS_STATUS_SUCCESS) return -1;
    CUDA_CHECK(cudaMemsetAsync(x->bad, 0, sizeof(unsigned), x->s));
    count_diff<<<1024, 256, 0, x->s>>>(x->C, x->Cref, n, x->bf16, x->bad);
    CUDA_CHECK_LAST();
    unsigned bad;
    CUDA_CHECK(cudaMemcpyAsync(&bad, x->bad, sizeof bad, cudaMemcpyDeviceToHost, x->s));
    CUDA_CHECK(cudaStreamSynchronize(x->s));
    return bad;
}

/* The uint32 array capability `attr` of `a` (tile or stages ids) into v[0..max); returns the
 * count, or 1 with v[0] = 0 (undefined: the algorithm's own choice) if it lists none. */
static int cap_list(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoCapAttributes_t attr,
                    uint32_t *v, int max) {
    size_t sz = 0;
    v[0] = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(a, attr, NULL, 0, &sz) != CUBLAS_STATUS_SUCCESS ||
        sz < 4 || sz / 4 > (size_t)max)
        return 1;
    if (cublasLtMatmulAlgoCapGetAttribute(a, attr, v, sz, &sz) != CUBLAS_STATUS_SUCCESS) {
        v[0] = 0;
        return 1;
    }
    return (int)(sz / 4);
}

/* Appends to cs every configuration of algorithm `id` that cublasLtMatmulAlgoCheck accepts. */
static int add_configs(const ctx *x, int id, cfg *cs, int n) {
    cublasLtMatmulAlgo_t a0;
    if (cublasLtMatmulAlgoInit(x->lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, x->dt, x->dt, x->dt, x->dt,
                               id, &a0) != CUBLAS_STATUS_SUCCESS)
        return n;
    uint32_t tiles[1024], stages[1024];
    const int nt = cap_list(&a0, CUBLASLT_ALGO_CAP_TILE_IDS, tiles, 1024);
    const int ns = cap_list(&a0, CUBLASLT_ALGO_CAP_STAGES_IDS, stages, 1024);
    int swz = 0;
    size_t sz;
    if (cublasLtMatmulAlgoCapGetAttribute(&a0, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT, &swz,
                                          sizeof swz, &sz) != CUBLAS_STATUS_SUCCESS)
        swz = 0;
    for (int t = 0; t < nt; ++t)
        for (int s = 0; s < ns; ++s)
            for (uint32_t w = 0; w <= (swz ? 1u : 0u) && n < MAX_CFGS; ++w) {
                cfg c = {a0, n, id, (int)tiles[t], (int)stages[s], (int)w, 0, 1e30};
                cublasLtMatmulAlgoConfigSetAttribute(&c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
                                                     &tiles[t], 4);
                cublasLtMatmulAlgoConfigSetAttribute(&c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID,
                                                     &stages[s], 4);
                cublasLtMatmulAlgoConfigSetAttribute(&c.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
                                                     &w, 4);
                cublasLtMatmulHeuristicResult_t r;
                if (cublasLtMatmulAlgoCheck(x->lt, x->pl.op, x->pl.la, x->pl.lb, x->pl.lc, x->pl.ld,
                                            &c.algo, &r) != CUBLAS_STATUS_SUCCESS ||
                    r.workspaceSize > WORKSPACE_BYTES)
                    continue;
                cs[n++] = c;
            }
    return n;
}

/* Parses "MxNxK" into three values in 1..65536; 0 on a bad string. */
static int parse_size(const char *s, int *m, int *n, int *k) {
    char tail;
    if (sscanf(s, "%dx%dx%d%c", m, n, k, &tail) != 3) return 0;
    return *m >= 1 && *n >= 1 && *k >= 1 && *m <= 65536 && *n <= 65536 && *k <= 65536;
}

/* Parses a positive integer option value in 1..max; 0 on a bad one. */
static int parse_count(const char *s, int max, int *v) {
    char *end;
    const long x = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || x < 1 || x > max) return 0;
    *v = (int)x;
    return 1;
}

/* Allocates and fills the operands, makes the harness's cuBLASLt plan (its heuristic pick) and
 * the reference result with it. */
static void setup(ctx *x) {
    const size_t a = (size_t)x->M * x->K, b = (size_t)x->N * x->K, c = (size_t)x->M * x->N;
    int dev;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    x->flush_bytes = 3 * (size_t)prop.l2CacheSize; /* the harness's flush */
    CUDA_CHECK(cudaStreamCreate(&x->s));
    CUDA_CHECK(cudaMalloc((void **)&x->A, a * 2));
    CUDA_CHECK(cudaMalloc((void **)&x->B, b * 2));
    CUDA_CHECK(cudaMalloc((void **)&x->C, c * 2));
    CUDA_CHECK(cudaMalloc((void **)&x->Cref, c * 2));
    CUDA_CHECK(cudaMalloc(&x->ws, WORKSPACE_BYTES));
    CUDA_CHECK(cudaMalloc(&x->flush, x->flush_bytes));
    CUDA_CHECK(cudaMalloc((void **)&x->bad, sizeof(unsigned)));
    const gemm_dtype dt = x->bf16 ? GEMM_BF16 : GEMM_FP16; /* the harness's operands */
    CUDA_CHECK(
        harness_dev_fill(x->A, dt, (long long)a, FILL_SEED ^ 0xA, HARNESS_INIT_RANDOM, x->s));
    CUDA_CHECK(
        harness_dev_fill(x->B, dt, (long long)b, FILL_SEED ^ 0xB, HARNESS_INIT_RANDOM, x->s));
    CUDA_CHECK(cudaEventCreate(&x->e0));
    CUDA_CHECK(cudaEventCreate(&x->e1));
    CUBLAS_CHECK(cublasLtCreate(&x->lt));
    gemm_problem *p = &x->p;
    memset(p, 0, sizeof *p);
    p->m = x->M, p->n = x->N, p->k = x->K;
    p->layout = GEMM_TN, p->a_kmajor = p->b_kmajor = 1;
    p->dtype = p->c_dtype = dt;
    p->alpha = 1.0f, p->beta = 0.0f;
    p->A = x->A, p->B = x->B, p->C = x->C;
    p->lda = p->ldb = x->K, p->ldc = x->N;
    p->epilogue = GEMM_EPI_NONE;
    harness_lt_plan_make(&x->pl, x->lt, p, 0, x->C, x->C, p->ldc, WORKSPACE_BYTES);
    if (!x->pl.ok) {
        fprintf(stderr, "lt_algos: cuBLASLt has no algorithm for this problem (%s)\n", x->pl.why);
        exit(3);
    }
    CUBLAS_CHECK(matmul(x, &x->pl.algo, x->Cref));
    CUDA_CHECK(cudaStreamSynchronize(x->s));
}

static int cmp_ms(const void *a, const void *b) {
    const double x = ((const cfg *)a)->ms, y = ((const cfg *)b)->ms;
    return (x > y) - (x < y);
}

/* --launch: each listed configuration (or -1, the heuristic's pick) twice. */
static int launch_list(const ctx *x, const cfg *cs, int n, const cublasLtMatmulAlgo_t *pick,
                       const char *list) {
    for (const char *p = list; *p;) {
        char *end;
        const long i = strtol(p, &end, 10);
        if (end == p || i < -1 || i >= n || (*end != ',' && *end != '\0')) {
            fprintf(stderr, "lt_algos: --launch: bad index list '%s' (0..%d or -1)\n", list, n - 1);
            return 2;
        }
        const cublasLtMatmulAlgo_t *a = i < 0 ? pick : &cs[i].algo;
        for (int r = 0; r < 2; ++r) CUBLAS_CHECK(matmul(x, a, x->C));
        CUDA_CHECK(cudaStreamSynchronize(x->s));
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Times every configuration (3 runs), then the fastest `top` (`iters` runs) and prints them. */
static void rank(const ctx *x, cfg *cs, int n, const cublasLtMatmulAlgo_t *pick, int top,
                 int iters) {
    const double tf = 2.0 * x->M * (double)x->N * x->K / 1e9; /* ms -> TFLOP/s */
    const double h0 = time_algo(x, pick, iters, REST_MS);
    int wrong = 0;
    for (int i = 0; i < n; ++i) {
        const long long bad = check_algo(x, &cs[i].algo);
        cs[i].wrong = bad != 0;
        wrong += cs[i].wrong;
        if (bad)
            printf("%s: index %d (algo %d tile %d stages %d swizzle %d): %lld elements\n",
                   bad < 0 ? "failed to run" : "wrong", cs[i].index, cs[i].id, cs[i].tile,
                   cs[i].stages, cs[i].swizzle, bad < 0 ? 0 : bad);
        cs[i].ms = cs[i].wrong ? 1e30 : time_algo(x, &cs[i].algo, 3, 10);
    }
    qsort(cs, (size_t)n, sizeof *cs, cmp_ms);
    if (top > n - wrong) top = n - wrong;
    for (int i = 0; i < top; ++i) cs[i].ms = time_algo(x, &cs[i].algo, iters, REST_MS);
    qsort(cs, (size_t)top, sizeof *cs, cmp_ms);
    printf("%s %dx%dx%d TN: %d configurations, %d wrong or failed; the fastest %d (%d runs):\n",
           x->bf16 ? "bf16" : "fp16", x->M, x->N, x->K, n, wrong, top, iters);
    printf("%6s %5s %5s %7s %8s %9s %8s\n", "index", "algo", "tile", "stages", "swizzle", "ms",
           "TFLOP/s");
    for (int i = 0; i < top; ++i)
        printf("%6d %5d %5d %7d %8d %9.4f %8.1f\n", cs[i].index, cs[i].id, cs[i].tile, cs[i].stages,
               cs[i].swizzle, cs[i].ms, tf / cs[i].ms);
    const double h1 = time_algo(x, pick, iters, REST_MS);
    printf("%6d %5s %5s %7s %8s %9.4f %8.1f  cublasLtMatmulAlgoGetHeuristic's pick (%.4f ms "
           "before the search)\n",
           -1, "-", "-", "-", "-", h1, tf / h1, h0);
}

int main(int argc, char **argv) {
    ctx x;
    memset(&x, 0, sizeof x);
    x.M = x.N = x.K = 4096;
    int top = 20, iters = 20;
    const char *launch = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = v != NULL;
        if (!strcmp(argv[i], "--dtype") && ok) {
            x.bf16 = !strcmp(v, "bf16");
            ok = x.bf16 || !strcmp(v, "fp16");
        } else if (!strcmp(argv[i], "--size") && ok) ok = parse_size(v, &x.M, &x.N, &x.K);
        else if (!strcmp(argv[i], "--top") && ok) ok = parse_count(v, MAX_CFGS, &top);
        else if (!strcmp(argv[i], "--iters") && ok) ok = parse_count(v, 64, &iters);
        else if (!strcmp(argv[i], "--launch") && ok) launch = v;
        else ok = 0;
        if (!ok) {
            static const char *const known[] = {"--dtype", "--size", "--top", "--iters",
                                                "--launch"};
            const char *why = "unknown option";
            for (int k = 0; k < 5; ++k)
                if (!strcmp(argv[i], known[k])) why = v ? "bad value" : "needs a value";
            fprintf(stderr,
                    "lt_algos: %s: %s %s (--dtype fp16|bf16, --size MxNxK with each in "
                    "1..65536, --top N, --iters 1..64, --launch i,j,...)\n",
                    why, argv[i], v ? v : "");
            return 2;
        }
        ++i;
    }
    x.dt = x.bf16 ? CUDA_R_16BF : CUDA_R_16F;
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        fprintf(stderr, "lt_algos: no CUDA device\n");
        return 3;
    }
    setup(&x);
    int ids[MAX_IDS], nid = 0, n = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetIds(x.lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, x.dt, x.dt, x.dt,
                                          x.dt, MAX_IDS, ids, &nid));
    cfg *cs = (cfg *)malloc(sizeof(cfg) * MAX_CFGS);
    if (!cs) {
        fprintf(stderr, "lt_algos: out of host memory\n");
        return 3;
    }
    for (int i = 0; i < nid; ++i) n = add_configs(&x, ids[i], cs, n);
    if (launch) return launch_list(&x, cs, n, &x.pl.algo, launch);
    rank(&x, cs, n, &x.pl.algo, top, iters);
    return 0;
}
