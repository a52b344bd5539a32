/* dispatch.h - lesson 08's registry of kernel configurations and the dispatcher that picks one
 * for a problem. Host-only C (gcc and nvcc): the kernels live in gemm.cu, splitk.cuh and
 * simt_fp32.cuh; this file says what each configuration is, what it accepts and which one a
 * problem gets, so that the CPU tests (tests/test_dispatch_08.c) check the very same code the
 * `default` variant runs.
 *
 *   disp_configs[]     the registry: tile, warps, stages, schedule, K split, what it accepts
 *   disp_smem_bytes    dynamic shared memory of one CTA of a configuration
 *   disp_refusal       why a configuration cannot compute a problem exactly (NULL: it can)
 *   disp_split_for     the K split a split-K configuration uses for a problem
 *   disp_unsplit_twin  the registry row that runs a split-K configuration's kernel unsplit
 *   disp_rules[]       the heuristic, one row per rule: when, what, why, what was measured
 *   disp_choose        the configuration, split and orientation for a problem, and the rule
 *   disp_explain       that choice as one line (./run --explain)
 *
 * Example (what `./run --explain --size 16x4096x4096 --dtype fp16` prints):
 *     disp_device d = disp_device_default();       // an H200: 132 SMs, 227 KiB smem per CTA
 *     disp_choice c;
 *     disp_choose(&p, &d, &c);   // disp_configs[c.cfg].name is "16x128x64_s4_splitk",
 *                                   // c.split = 12, disp_rules[c.rule].id is "T2"
 *
 * Words: a configuration's problem is C = alpha * A * B^T + beta * C with A (M,K), B (N,K)
 * (common/harness.h). "Transposed" means the dispatcher runs a configuration on the problem
 * C^T = B * A^T (A and B swap roles, M and N swap), which turns a small N into a small M; the
 * product then goes through the fp32 workspace and the reduction writes C (splitk.cuh).
 */
#ifndef LESSON08_DISPATCH_H
#define LESSON08_DISPATCH_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "plan.h"
#include "simt_plan.h"

/* ---- the registry ------------------------------------------------------------------------ */

typedef enum {
    DISP_TC = 0,  /* mma.sync m16n8k16 Tensor Core kernel (gemm.cu), fp16/bf16 in, fp32 acc */
    DISP_SIMT = 1 /* lesson 04's register-staged FFMA kernel (simt_fp32.cuh), fp32 */
} disp_kind;

/* The schedule: how the CTAs of a launch map onto the work. Values are the TC kernel's SCHED
 * template parameter. */
typedef enum {
    DISP_TILE = 0,       /* one CTA per tile of C, 1-D rasterized grid */
    DISP_PERSISTENT = 1, /* one CTA per SM slot, each walks tiles; the pipeline runs across */
    DISP_SPLITK = 2,     /* one CTA per (tile, K split): grid (tiles, splits); with more than one
                            split (or transposed) each writes fp32 partial sums to the workspace
                            and splitk_reduce applies the epilogue once */
    DISP_STREAMK = 3     /* persistent, the last round's K iterations spread evenly over the
                            CTAs (plan.h, plan_sk_*); partial sums between CTAs, in the kernel */
} disp_sched;

typedef struct disp_config {
    const char *name; /* the variant name (./run --variant NAME) */
    disp_kind kind;
    unsigned dtypes;      /* GEMM_DT_BIT mask */
    int bm, bn, bk;       /* CTA tile (BLK_M, BLK_N, BLK_K) */
    int warps_m, warps_n; /* warps along M and N (warp tile = bm/warps_m x bn/warps_n) */
    int stages;           /* smem stages of the pipeline (SIMT: 2 register-staged buffers) */
    disp_sched sched;
    int split;       /* K split: 1 never split, 0 chosen per problem (disp_split_for), S fixed */
    int fast_only;   /* 1: only the 16-byte cp.async path: A and B K-major (layout TN), lda, ldb
                      (and ldc, offsets: the harness's align) multiples of 8, 16-byte bases */
    int ctas_per_sm; /* CTAs one SM holds (smem and registers, sm_90; the kernel's launch
                        bounds promise at least min_blocks). The GPU's own count replaces it
                        at run time (cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
    int min_blocks;  /* __launch_bounds__ min CTAs per SM: registers per thread <= 65536 /
                        (threads * min_blocks), at most 255 */
    int fuses;       /* 1: its kernel applies every epilogue in its own store (bias, ReLU/GELU,
                        the input's type or fp32 out) on the 16-byte path with K % 8 == 0;
                        otherwise, and for any epilogue of the others, splitk_reduce applies
                        it (disp_epi_where) */
    const char *summary;
} disp_config;

#define DISP_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
#define DISP_FP32 GEMM_DT_BIT(GEMM_FP32)

/* The registry, in the order of ./run --list (after `default`). ctas_per_sm: from the smem
 * (228 KiB per SM on sm_90, 1 KiB of it reserved per CTA) and ptxas's register counts
 * (build/08_dispatch/ptxas.txt, CUDA 13.0, sm_90: 243-254 for the 128-row TC tiles, 178 for
 * 64x128, 92 for 16x128, 255 for simt_128x128x8_4w, 168 for simt_32x64x8_2w). */
/*  name, kind, dtypes, bm, bn, bk, warps_m, warps_n, stages, sched, split, fast_only,
 *  ctas_per_sm, min_blocks, fuses, summary */
static const disp_config disp_configs[] = {
    {"128x256x64_s3_persistent", DISP_TC, DISP_HALVES, 128, 256, 64, 2, 4, 3, DISP_PERSISTENT, 1, 0,
     1, 1, 1,
     "128x256x64_s3 with one CTA per SM walking tiles: the pipeline runs on across tiles; "
     "216 KiB smem (C staging of its own)"},
    {"128x256x64_s3_streamk", DISP_TC, DISP_HALVES, 128, 256, 64, 2, 4, 3, DISP_STREAMK, 1, 1, 1, 1,
     0,
     "the persistent kernel with stream-K: the last round's K iterations split evenly over "
     "all SMs, pieces summed by the tile's owner in the kernel; TN"},
    {"128x256x64_s3", DISP_TC, DISP_HALVES, 128, 256, 64, 2, 4, 3, DISP_TILE, 1, 0, 1, 1, 0,
     "lesson 07's 128x256x64_s3 on a rasterized 1-D grid, any layout/alignment"},
    {"128x128x64_s3", DISP_TC, DISP_HALVES, 128, 128, 64, 2, 2, 3, DISP_TILE, 1, 0, 2, 1, 0,
     "lesson 07's 128x128x64_s3 on a rasterized 1-D grid, any layout/alignment"},
    {"128x128x32_s4", DISP_TC, DISP_HALVES, 128, 128, 32, 2, 2, 4, DISP_TILE, 1, 0, 2, 1, 0,
     "lesson 07's 128x128x32_s4 on a rasterized 1-D grid, any layout/alignment"},
    {"128x128x32_s4_splitk", DISP_TC, DISP_HALVES, 128, 128, 32, 2, 2, 4, DISP_SPLITK, 0, 1, 2, 1,
     0, "128x128x32_s4 over (tiles, K splits), split per problem, fp32 partials + reduction; TN"},
    {"64x128x64_s3_splitk", DISP_TC, DISP_HALVES, 64, 128, 64, 2, 2, 3, DISP_SPLITK, 0, 1, 2, 1, 0,
     "M <= 64: 4 warps of 32x64, 3 stages, 72 KiB smem, K split per problem; TN"},
    {"64x128x64_s3", DISP_TC, DISP_HALVES, 64, 128, 64, 2, 2, 3, DISP_SPLITK, 1, 1, 2, 1, 0,
     "64x128x64_s3_splitk's kernel never split (rule T6): few tiles, short K; TN"},
    {"16x128x64_s4_splitk", DISP_TC, DISP_HALVES, 16, 128, 64, 1, 4, 4, DISP_SPLITK, 0, 1, 3, 1, 0,
     "M <= 16: 4 warps of 16x32, 4 stages, 72 KiB smem, K split per problem; TN"},
    {"16x128x64_s4", DISP_TC, DISP_HALVES, 16, 128, 64, 1, 4, 4, DISP_SPLITK, 1, 1, 3, 1, 0,
     "16x128x64_s4_splitk's kernel never split (rule T6): fewer tiles still; TN"},
    {"simt_128x128x8_4w", DISP_SIMT, DISP_FP32, 128, 128, 8, 2, 2, 2, DISP_SPLITK, 0, 0, 2, 2, 0,
     "fp32 FFMA: lesson 04's ldg128_128x128x8_4w (4 warps of 64x64, 16x8/thread), K split"},
    {"simt_32x64x8_2w", DISP_SIMT, DISP_FP32, 32, 64, 8, 1, 2, 2, DISP_SPLITK, 0, 0, 6, 4, 0,
     "fp32 FFMA for small problems (rule F1): 32x64 tiles, 2 warps of 32x32, 8x4/thread, "
     "6.5 KiB smem, K split per problem"},
};
#define DISP_NCONFIGS ((int)(sizeof disp_configs / sizeof disp_configs[0]))

/* The workspace (a __device__ array in gemm.cu: no launch allocates): the K-major copies of
 * A and B of rule R1 (disp_repack_bytes) first, then the fp32 split-K partial sums (a split of
 * S over an (M,N) problem needs S*M*N floats). */
#define DISP_WS_BYTES (256LL << 20)
#define DISP_MAX_SPLIT 16 /* most K splits of one launch */

/* The problem C^T = B * A^T of problem p: A and B swap roles (and leading dimensions and
 * majorness), M and N swap; C is not part of it (the workspace takes the product). */
static inline gemm_problem disp_transpose(const gemm_problem *p) {
    gemm_problem q = *p;
    q.m = p->n;
    q.n = p->m;
    q.A = p->B;
    q.B = p->A;
    q.lda = p->ldb;
    q.ldb = p->lda;
    q.a_kmajor = p->b_kmajor;
    q.b_kmajor = p->a_kmajor;
    return q;
}

/* Index of the configuration named `name`, or -1. */
static inline int disp_find(const char *name) {
    for (int i = 0; i < DISP_NCONFIGS; ++i)
        if (!strcmp(disp_configs[i].name, name)) return i;
    return -1;
}

static inline int disp_threads(const disp_config *c) { return 32 * c->warps_m * c->warps_n; }

/* Dynamic smem of one CTA, bytes. TC: STAGES x (BM + BN) rows of the swizzled smem tile (2
 * bytes per element), plus (persistent, stream-K) one C staging block of (WTM, WTN + 8) halves
 * per warp.
 * SIMT: 2 buffers of the transposed tiles (BK x (BM + P4_PAD) + BK x (BN + P4_PAD) floats). */
static inline long long disp_smem_bytes(const disp_config *c) {
    if (c->kind == DISP_SIMT)
        return 2LL * (c->bk * (c->bm + P4_PAD) + c->bk * (c->bn + P4_PAD)) * 4;
    const long long st =
        (long long)c->stages * (plan_smem_stage(c->bm, c->bk) + plan_smem_stage(c->bn, c->bk)) * 2;
    const int warps = c->warps_m * c->warps_n;
    return st +
           (c->sched == DISP_PERSISTENT || c->sched == DISP_STREAMK
                ? (long long)warps * plan_cstage_size(c->bm / c->warps_m, c->bn / c->warps_n) * 2
                : 0);
}

/* Registers per thread the launch bounds allow. */
static inline int disp_max_regs(const disp_config *c) {
    const int r = 65536 / (disp_threads(c) * c->min_blocks);
    return r > 255 ? 255 : r;
}

/* ---- the device the dispatcher plans for ------------------------------------------------- */

typedef struct disp_device {
    int sms;                        /* multiprocessors */
    int smem_optin;                 /* bytes of smem one CTA may have (opt-in maximum) */
    int ctas_per_sm[DISP_NCONFIGS]; /* CTAs of each configuration one SM holds */
    int measured;                   /* 1: read off a GPU; 0: the H200 values below */
} disp_device;

/* An H200 (sm_90: 132 SMs, 227 KiB per CTA), with the registry's CTAs per SM: what the CPU
 * tests and `--explain` without a GPU plan for. */
static inline disp_device disp_device_default(void) {
    disp_device d;
    memset(&d, 0, sizeof d);
    d.sms = 132;
    d.smem_optin = 227 * 1024;
    for (int i = 0; i < DISP_NCONFIGS; ++i) d.ctas_per_sm[i] = disp_configs[i].ctas_per_sm;
    return d;
}

/* ---- what a configuration accepts ---------------------------------------------------------- */

static inline long long disp_ceil(long long a, long long b) { return (a + b - 1) / b; }
static inline long long disp_tiles(const disp_config *c, int m, int n) {
    return disp_ceil(m, c->bm) * disp_ceil(n, c->bn);
}

/* 1 when A and B can take the 16-byte cp.async path: both K-major, lda and ldb multiples of 8
 * halves, 16-byte aligned bases (NULL pointers, as when a request is planned, count as
 * aligned: the harness checks the request's offsets against the variant's align). */
static inline int disp_fast_path(const gemm_problem *p) {
    return p->a_kmajor && p->b_kmajor && p->lda % 8 == 0 && p->ldb % 8 == 0 &&
           ((uintptr_t)p->A & 15) == 0 && ((uintptr_t)p->B & 15) == 0;
}

/* Why p cannot take the 16-byte copy path (disp_fast_path is 0), as a short phrase for
 * --explain, e.g. "lda = 127 is not a multiple of 8"; "" when it can. */
static inline const char *disp_slow_reason(const gemm_problem *p, char *buf, size_t len) {
    if (!p->a_kmajor || !p->b_kmajor)
        snprintf(buf, len, "%s not K-major",
                 !p->a_kmajor && !p->b_kmajor ? "A and B"
                 : !p->a_kmajor               ? "A"
                                              : "B");
    else if (p->lda % 8 != 0)
        snprintf(buf, len, "lda = %lld is not a multiple of 8", (long long)p->lda);
    else if (p->ldb % 8 != 0)
        snprintf(buf, len, "ldb = %lld is not a multiple of 8", (long long)p->ldb);
    else if (((uintptr_t)p->A & 15) || ((uintptr_t)p->B & 15))
        snprintf(buf, len, "A or B not 16-byte aligned");
    else snprintf(buf, len, "%s", "");
    return buf;
}

/* ---- the epilogue: where it runs --------------------------------------------------------
 * D = act(alpha * acc + beta * C + bias), rounded once to the output type (common/harness.h,
 * THE EPILOGUE; the arithmetic: epilogue.cuh). A run applies it in one of two places:
 *   DISP_EPI_KERNEL  in the kernel's own store: the plain epilogue (alpha*acc + beta*C in the
 *                    inputs' type, epilogue none) of every configuration run without a split,
 *                    and the whole epilogue in a configuration that `fuses` (disp_epi_fuses);
 *   DISP_EPI_REDUCE  in splitk_reduce (splitk.cuh): the kernel writes unscaled fp32 partial
 *                    sums to the workspace, the reduction sums the K splits and applies the
 *                    whole epilogue once per element of C, so a bias is added once whatever the
 *                    split: every K split and transposed run, and any epilogue of the split-K
 *                    and SIMT configurations and of the generic (gathering) path. With one
 *                    split and partial sums larger than the workspace it goes panel by panel:
 *                    disp_pass_rows rows of C at a time (disp_panel), a GEMM and a reduction
 *                    each.
 *   DISP_EPI_NONE    neither: the 16-byte-path kernels of the one-CTA-per-tile and persistent
 *                    configurations write C themselves and have no fused kernel for it (disp_
 *                    refusal declines; the rules then pass the problem on to one that can).
 * fp32 inputs give an fp32 output (lesson 04's SIMT kernels); fp16 and bf16 inputs take every
 * output type. What the variants claim (common/harness.h: outputs, epilogues, bias types):
 * DISP_EPI_CAPS, for the TC configurations and `default`; the SIMT ones all but other outputs. */
#define DISP_EPI_CAPS (GEMM_OUT_ALL | GEMM_EPI_ALL | GEMM_BIAS_DT_ALL)

typedef enum { DISP_EPI_KERNEL = 0, DISP_EPI_REDUCE = 1, DISP_EPI_NONE = 2 } disp_epi_at;

/* The words of dtypes, layouts and epilogues (--explain, the --tuned table). */
static const char *const disp_dtype_words[] = {"fp32", "fp16", "bf16"};   /* gemm_dtype */
static const char *const disp_layout_words[] = {"TN", "NT", "NN", "TT"};  /* gemm_layout */
static const char *const disp_epi_words[] = {"none",      "bias", "relu", /* gemm_epi */
                                             "bias_relu", "gelu", "bias_gelu"};

/* 1 when p asks for nothing but alpha*acc + beta*C in its inputs' own output type (fp32 for
 * fp32 inputs): what every kernel's own store computes. */
static inline int disp_epi_plain(const gemm_problem *p) {
    return p->epilogue == GEMM_EPI_NONE && p->c_dtype == p->dtype;
}

/* 1 when configuration c's fused kernels (its `fuses`, gemm.cu's launch_cfg_epi) compute q:
 * the 16-byte path with K % 8 == 0 (rule R1's copies make every fp16/bf16 problem that fits
 * the workspace such a problem), beta = 0, output the input's type or fp32; any epilogue,
 * bias axis and bias type. (beta != 0 goes through the reduction, which reads C anyway.) */
static inline int disp_epi_fuses(const disp_config *c, const gemm_problem *q) {
    return c->fuses && c->kind == DISP_TC && disp_fast_path(q) && q->k % 8 == 0 &&
           q->beta == 0.0f && (q->c_dtype == q->dtype || q->c_dtype == GEMM_FP32);
}

/* Where the epilogue of q runs when configuration c computes it with K split `split`, on
 * C^T = B*A^T when `transposed` (q is then already the transposed problem). */
static inline disp_epi_at disp_epi_where(const disp_config *c, const gemm_problem *q, int split,
                                         int transposed) {
    if (split > 1 || transposed) return DISP_EPI_REDUCE;
    if (disp_epi_plain(q) || disp_epi_fuses(c, q)) return DISP_EPI_KERNEL;
    if (c->sched == DISP_SPLITK || !disp_fast_path(q)) return DISP_EPI_REDUCE;
    return DISP_EPI_NONE;
}

/* Rows of C one pass of that run computes with `ws` bytes of workspace for partial sums: all
 * M when the kernel writes C itself or the split*M*N partial floats fit; else, with one split
 * and not transposed, the most whole BLK_M-row panels whose partials fit (the run then goes
 * panel by panel); 0 when not one panel fits, a split or transposed run does not fit whole, or
 * the epilogue has no place in this run (DISP_EPI_NONE).
 *   e.g. 8192x16384, bias_gelu through the reduction, 256 MiB: 4096 rows a pass (2 passes) */
static inline int disp_pass_rows(const disp_config *c, const gemm_problem *q, int split,
                                 int transposed, long long ws) {
    const disp_epi_at at = disp_epi_where(c, q, split, transposed);
    if (at == DISP_EPI_KERNEL) return q->m;
    if (at == DISP_EPI_NONE) return 0;
    if ((long long)split * q->m * q->n * 4 <= ws) return q->m;
    if (split > 1 || transposed) return 0;
    const long long rows = ws / (4LL * q->n) / c->bm * c->bm;
    return rows < q->m ? (int)rows : q->m;
}

/* Rows [m0, m0 + rows) of p as a problem of their own (one pass of disp_pass_rows; rows cut
 * at M): A and C start m0 rows further on, and a bias along m m0 values further on. */
static inline size_t disp_dtype_bytes(gemm_dtype d) { return d == GEMM_FP32 ? 4 : 2; }
static inline gemm_problem disp_panel(const gemm_problem *p, int m0, int rows) {
    gemm_problem q = *p;
    q.m = p->m - m0 < rows ? p->m - m0 : rows;
    q.A = (const char *)p->A +
          (long long)m0 * (p->a_kmajor ? p->lda : 1) * (long long)disp_dtype_bytes(p->dtype);
    q.C = (char *)p->C + (long long)m0 * p->ldc * (long long)disp_dtype_bytes(p->c_dtype);
    if (p->bias && p->bias_axis == GEMM_BIAS_M)
        q.bias = (const char *)p->bias + (long long)m0 * (long long)disp_dtype_bytes(p->bias_dtype);
    return q;
}

/* Why configuration c cannot compute problem p exactly with a K split of `split` (1: none) on
 * device d, as one line into buf; NULL when it can. Checked before any launch: by the variant
 * (its check callback, with the split disp_split_for picks), by the dispatcher for every
 * candidate, and by the CPU tests over all shapes.
 *   e.g. "needs A and B K-major (layout TN); the default variant takes every layout" */
static inline const char *disp_refusal(const disp_config *c, const gemm_problem *p, int split,
                                       const disp_device *d, char *buf, size_t len) {
    const long long ktiles = disp_ceil(p->k, c->bk);
    if (!(c->dtypes & GEMM_DT_BIT(p->dtype))) {
        snprintf(buf, len, "computes %s only", c->kind == DISP_SIMT ? "fp32" : "fp16 and bf16");
        return buf;
    }
    if (p->dtype == GEMM_FP32 && p->c_dtype != GEMM_FP32) {
        snprintf(buf, len,
                 "fp32 inputs give an fp32 output only; fp16 and bf16 inputs take "
                 "every output type");
        return buf;
    }
    if (c->fast_only && !(p->a_kmajor && p->b_kmajor)) {
        snprintf(buf, len,
                 "needs A and B K-major (layout TN); the default variant takes every layout");
        return buf;
    }
    if (c->fast_only &&
        (p->lda % 8 || p->ldb % 8 || ((uintptr_t)p->A & 15) || ((uintptr_t)p->B & 15))) {
        snprintf(buf, len,
                 "needs lda and ldb multiples of 8 and 16-byte aligned A and B (16-byte "
                 "cp.async); the default variant takes any alignment");
        return buf;
    }
    if (c->kind == DISP_SIMT && (p->lda >= P4_MAX_LD || p->ldb >= P4_MAX_LD)) {
        snprintf(buf, len, "lda and ldb must be below 2^22 (32-bit offsets inside a tile)");
        return buf;
    }
    if (disp_tiles(c, p->m, p->n) > 2147483647LL) {
        snprintf(buf, len, "M*N too large: more than 2^31-1 CTA tiles");
        return buf;
    }
    if (split < 1 || (split > 1 && c->sched != DISP_SPLITK)) {
        snprintf(buf, len, "has no K split (asked for %d)", split);
        return buf;
    }
    if (split > DISP_MAX_SPLIT) {
        snprintf(buf, len, "K split %d is more than %d", split, DISP_MAX_SPLIT);
        return buf;
    }
    if (split > ktiles) {
        snprintf(buf, len, "K split %d needs at least %d K tiles of %d (K > %d); K = %d has %lld",
                 split, split, c->bk, (split - 1) * c->bk, p->k, ktiles);
        return buf;
    }
    if (split > 1 && (long long)split * p->m * p->n * 4 > DISP_WS_BYTES) {
        snprintf(buf, len,
                 "K split %d of %dx%d needs %lld MiB of workspace, more than the %lld MiB", split,
                 p->m, p->n, ((long long)split * p->m * p->n * 4) >> 20, DISP_WS_BYTES >> 20);
        return buf;
    }
    const disp_epi_at at = disp_epi_where(c, p, split, 0);
    if (at == DISP_EPI_NONE && c->fuses) {
        snprintf(buf, len,
                 "fuses the epilogue with beta = 0, K %% 8 == 0 and its own or an fp32 output "
                 "only; the split-K configurations and default take any");
        return buf;
    }
    if (at == DISP_EPI_NONE) {
        const char *fused = "none";
        for (int i = DISP_NCONFIGS - 1; i >= 0; --i)
            if (disp_configs[i].fuses) fused = disp_configs[i].name;
        snprintf(buf, len,
                 "has no epilogue but alpha, beta on the 16-byte path; %s fuses it (beta = 0), "
                 "the split-K configurations and default take any",
                 fused);
        return buf;
    }
    if (!disp_pass_rows(c, p, split, 0, DISP_WS_BYTES)) {
        snprintf(buf, len,
                 "its epilogue runs in the reduction, whose %d-row panels of N = %d need %lld "
                 "MiB of workspace, more than the %lld MiB",
                 c->bm, p->n, (4LL * c->bm * p->n) >> 20, DISP_WS_BYTES >> 20);
        return buf;
    }
    if (d && disp_smem_bytes(c) > d->smem_optin) {
        snprintf(buf, len,
                 "needs %lld KiB of shared memory per CTA, this GPU allows %d KiB; the "
                 "default variant picks one that fits",
                 disp_smem_bytes(c) / 1024, d->smem_optin / 1024);
        return buf;
    }
    return NULL;
}

/* ---- K split ---------------------------------------------------------------------------- */

/* Shortest K one split keeps (a split is also a prologue, an epilogue and a partial sum
 * written and read back; reasoned, not timed on its own). Multiples of every BK. */
#define DISP_MIN_SPLIT_K_TC 256
#define DISP_MIN_SPLIT_K_SIMT 128
/* Longest K that a Tensor Core configuration never splits. DISP_MIN_SPLIT_K_TC alone lets K =
 * 512 split in 2; in tuning run 16-6 (fp16, M 8-64, N 1024-14336, K 256 and 512: 60 problems)
 * an unsplit tile was the fastest candidate on every one, and T2's 16-row tile split in 2
 * took 1.19-1.39x its unsplit time at K = 512: the second kernel and the fp32 partial sums
 * cost more than half of so short a K loop. */
#define DISP_NO_SPLIT_K_TC 512

/* The K split configuration ci uses for an (m, n, k) problem on device d: its fixed split, or
 * (split 0) 1 for a Tensor Core configuration at K <= DISP_NO_SPLIT_K_TC, else as many as
 * fill the GPU's CTA slots once (slots / tiles), no more than leave each split
 * DISP_MIN_SPLIT_K_* of K (so never more splits than K tiles), DISP_MAX_SPLIT, and what fits
 * ws_bytes of workspace; at least 1. */
static inline int disp_split_for(int ci, int m, int n, int k, const disp_device *d,
                                 long long ws_bytes) {
    const disp_config *c = &disp_configs[ci];
    if (c->split) return c->split;
    if (c->kind != DISP_SIMT && k <= DISP_NO_SPLIT_K_TC) return 1;
    const long long tiles = disp_tiles(c, m, n);
    const long long slots = (long long)d->sms * (d->ctas_per_sm[ci] > 0 ? d->ctas_per_sm[ci] : 1);
    long long s = slots / tiles;
    const long long by_k = k / (c->kind == DISP_SIMT ? DISP_MIN_SPLIT_K_SIMT : DISP_MIN_SPLIT_K_TC);
    const long long by_ws = ws_bytes / (4LL * m * n);
    if (s > by_k) s = by_k;
    if (s > DISP_MAX_SPLIT) s = DISP_MAX_SPLIT;
    if (s > by_ws) s = by_ws;
    return s < 1 ? 1 : (int)s;
}

/* The unsplit twin of configuration ci: the registry row that runs the same kernel (kind, tile,
 * warps, stages, schedule, copy path) with its K split fixed at 1; ci itself when there is
 * none. A split-K configuration whose split comes out 1 is the same launch as its twin: the
 * dispatcher names it by the twin, and --tune times it once.
 *   e.g. disp_unsplit_twin(disp_find("64x128x64_s3_splitk")) == disp_find("64x128x64_s3") */
static inline int disp_unsplit_twin(int ci) {
    const disp_config *c = &disp_configs[ci];
    if (c->split != 0) return ci;
    for (int j = 0; j < DISP_NCONFIGS; ++j) {
        const disp_config *u = &disp_configs[j];
        if (u->split == 1 && u->kind == c->kind && u->bm == c->bm && u->bn == c->bn &&
            u->bk == c->bk && u->warps_m == c->warps_m && u->warps_n == c->warps_n &&
            u->stages == c->stages && u->sched == c->sched && u->fast_only == c->fast_only)
            return j;
    }
    return ci;
}

/* ---- the heuristic ------------------------------------------------------------------------ */

/* What the dispatcher decided for one problem. */
typedef struct disp_choice {
    int cfg;        /* index into disp_configs */
    int split;      /* K split (1: none) */
    int transposed; /* 1: run on C^T = B * A^T (through the workspace) */
    int repack;     /* 1: A and B copied K-major into the workspace first (rule R1) */
    int rule;       /* index into disp_rules of the rule that picked cfg; -1: the fallback */
} disp_choice;

/* Rule R1's copies: A (M,K8) and B (N,K8), K-major and dense, K8 = K rounded up to a multiple
 * of 8 (disp_repack_k): columns K..K8-1 of both copies are zeros (repack.cuh), so the product
 * over K8 is the product over K (each pad term is 0 * 0; no real value meets a pad, so an Inf
 * or NaN of A or B stays where it was). Each copy starts 256-byte aligned in the workspace.
 *   e.g. disp_repack_k(4093) = 4096: 4093^3 runs as 4093x4093x4096, K % 8 == 0 (the kernel
 *   without the partial-chunk path), lda = ldb = 4096. */
static inline long long disp_repack_k(int k) { return (k + 7LL) / 8 * 8; }
static inline long long disp_repack_ld(int k) { return disp_repack_k(k); } /* dense copies */
/* The words --explain adds for rule R1's padding: " with K zero-padded to K8" when the copies
 * pad K (K % 8 != 0), else "". Writes them to buf (len >= 48) and returns buf. */
static inline const char *disp_repack_pad_words(const gemm_problem *p, char *buf, size_t len) {
    buf[0] = '\0';
    if (disp_repack_k(p->k) != p->k)
        snprintf(buf, len, " with K zero-padded to %lld", disp_repack_k(p->k));
    return buf;
}
static inline long long disp_align256(long long b) { return (b + 255) / 256 * 256; }
static inline long long disp_repack_bytes(int m, int n, int k) {
    return disp_align256(2LL * m * disp_repack_ld(k)) + disp_align256(2LL * n * disp_repack_ld(k));
}
/* The problem on the copies, the one the rules pick for and the kernels run: TN, K = K8
 * (disp_repack_k), lda = ldb = K8; A and B NULL (aligned: the workspace's addresses, set by the
 * launch). M, N, C, alpha and beta are p's. A BK that is a multiple of 8 (every TC tile's) gives
 * K8 the K tiles of K (K8 <= ceil(K/BK)*BK), so no K tile, and no K split, is pad alone. */
static inline gemm_problem disp_repacked(const gemm_problem *p) {
    gemm_problem q = *p;
    q.layout = GEMM_TN;
    q.a_kmajor = q.b_kmajor = 1;
    q.k = (int)disp_repack_k(p->k);
    q.lda = q.ldb = disp_repack_ld(p->k);
    q.A = q.B = NULL;
    return q;
}

/* What a rule sees of a problem: the extents of the problem as the rule would run it. */
typedef struct disp_in {
    const gemm_problem *p;
    const disp_device *d;
    int fast;     /* disp_fast_path(p) */
    long long ws; /* workspace bytes left for split-K partial sums */
} disp_in;

/* One rule: applies(in, &cfg_name, &transposed) returns 1 when the rule takes the problem and
 * names the configuration; the dispatcher then asks disp_refusal and moves on if it declines.
 * when / why / measured are the rule's row in the lesson's table (README.md; the CPU test
 * checks every id appears there). measured names the run behind the rule (notes/perf.md), or
 * says that the rule is reasoned and not timed on its own. */
typedef struct disp_rule {
    const char *id;
    const char *when;
    const char *why;
    const char *measured;
    int (*applies)(const disp_in *in, const char **cfg, int *transposed);
} disp_rule;

static inline long long disp_tiles_of(const char *name, int m, int n) {
    return disp_tiles(&disp_configs[disp_find(name)], m, n);
}

/* T1: A or B cannot take the 16-byte cp.async path: the generic (gathering) path. */
static inline int disp_rule_t1(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || in->fast) return 0;
    *cfg = "128x128x64_s3";
    return 1;
}
/* T2..T5: a small M (or, transposed, a small N). */
static inline int disp_rule_t2(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || in->p->m > 16) return 0;
    *cfg = "16x128x64_s4_splitk";
    return 1;
}
static inline int disp_rule_t3(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || in->p->m > 64) return 0;
    *cfg = "64x128x64_s3_splitk";
    return 1;
}
static inline int disp_rule_t4(const disp_in *in, const char **cfg, int *t) {
    if (in->p->dtype == GEMM_FP32 || in->p->n > 16) return 0;
    *cfg = "16x128x64_s4_splitk";
    *t = 1;
    return 1;
}
static inline int disp_rule_t5(const disp_in *in, const char **cfg, int *t) {
    if (in->p->dtype == GEMM_FP32 || in->p->n > 64) return 0;
    *cfg = "64x128x64_s3_splitk";
    *t = 1;
    return 1;
}
/* Half the SMs, the border of rules T6 and T7: fewer 128x128 tiles than sms / 2 leave more
 * than half the GPU idle without a K split or smaller tiles. From --tune (notes/perf.md, run
 * 15-1): at 66..131 tiles (1408^2 x 1024, 2048x1024x2048, 1024x2048x4096, 128x14336x4096)
 * 128x128 tiles without a split won, T7's split of 2 took 1.1-2.0x their time. */
static inline int disp_half_sms(const disp_in *in, const char *cfg) {
    return 2 * disp_tiles_of(cfg, in->p->m, in->p->n) < in->d->sms;
}
/* Longest K rule T6 runs unsplit: at K = 2048 (1024^2, 512x1024) T6's tiles won by 1.2x, at
 * K = 4096 (1024^2) T7's split won by 0.5% (run 15-1); between them is not measured. */
#define DISP_T6_MAX_K 2048
/* T6: fewer 128x128 tiles than half the SMs and a short K: smaller tiles, no K split. 64-row
 * tiles when they give half the SMs a CTA, else 16-row tiles (4x the CTAs of 64-row ones). */
static inline int disp_rule_t6(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || !disp_half_sms(in, "128x128x64_s3") ||
        in->p->k > DISP_T6_MAX_K)
        return 0;
    *cfg = disp_half_sms(in, "64x128x64_s3") ? "16x128x64_s4" : "64x128x64_s3";
    return 1;
}
/* T7: fewer 128x128 tiles than half the SMs and a long K: a K split of 2 or more fills the
 * GPU's CTA slots. */
static inline int disp_rule_t7(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || !disp_half_sms(in, "128x128x32_s4_splitk")) return 0;
    const int ci = disp_find("128x128x32_s4_splitk");
    if (disp_split_for(ci, in->p->m, in->p->n, in->p->k, in->d, in->ws) < 2) return 0;
    *cfg = "128x128x32_s4_splitk";
    return 1;
}
/* Waves of 128x256 tiles: the persistent kernel holds one CTA per SM, so `tiles` tiles run in
 * ceil(tiles / sms) waves, the last one of `tiles % sms` CTAs (0: full). 1 when those waves
 * leave many SMs idle, T8's class: fewer tiles than SMs, or fewer than DISP_T8_MAX_WAVES tiles
 * per SM with the last wave at most half full. Then 128x128 tiles, two CTAs per SM, put at most
 * one CTA of the last round on each SM, which runs alone and faster. The data (notes/perf.md,
 * run 12-2, the persistent kernel against 128x128x64_s3 in one run, fp16 and bf16): 128x128
 * tiles won at last-wave fills of 15-45% (2048x2560x4096, 3072x2048x4096, 3072^3,
 * 4096x2560x4096, 4096x3328x4096 at 3.15 tiles per SM by 9%, 4608x4096x4096 at 4.36 per SM by
 * 5%), the persistent kernel at 70-94% (3584x2048x4096, 8192x1024x4096, 4096^3 by 5%). With
 * more waves the tail weighs less and 128x128 tiles' lower speed on full waves wins out; 5 per
 * SM is past the last measured win, not a measured edge. */
#define DISP_T8_MAX_WAVES 5
static inline int disp_t8_waves(long long tiles, long long sms) {
    const long long last = tiles % sms;
    return tiles < sms || (tiles < DISP_T8_MAX_WAVES * sms && last > 0 && 2 * last <= sms);
}
/* SK: the class of T8 where stream-K does better (notes/perf.md, run 21-2: the persistent
 * kernel, 128x128x64_s3 and 128x256x64_s3_streamk in one run, fp16, two rounds, bf16 alike):
 * at K = 4096, at least one full wave of 128x256 tiles and fewer than 5 per SM, stream-K took
 * 2.6-5.6% less time than T8's 128x128 tiles where the last wave held at most 36% of the SMs
 * (2048x2560, 3072^2, 4096x3328, 4224x4352, 4608x4096 x 4096; fills 15-36%), and lost where it
 * held 42-45% (4096x2560, 3072x2048: 1.4% and 4%) and at K = 1024 and 2048 on every shape
 * measured (3072^2 x 2048 18% slower than 128x128 tiles). So: K >= DISP_SK_MIN_K, and a last
 * wave of at most 3/8 of the SMs after at least one full one. */
#define DISP_SK_MIN_K 4096
static inline int disp_sk_waves(long long tiles, long long sms) {
    const long long last = tiles % sms;
    return tiles >= sms && tiles < DISP_T8_MAX_WAVES * sms && last > 0 && 8 * last <= 3 * sms;
}
static inline int disp_rule_sk(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || in->p->k < DISP_SK_MIN_K ||
        !disp_sk_waves(disp_tiles_of("128x256x64_s3_streamk", in->p->m, in->p->n), in->d->sms))
        return 0;
    *cfg = "128x256x64_s3_streamk";
    return 1;
}
/* T8: the 128x256 tiles' waves leave many SMs idle (disp_t8_waves): 128x128 tiles, 2 CTAs
 * per SM, twice the CTAs to spread. */
static inline int disp_rule_t8(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 ||
        !disp_t8_waves(disp_tiles_of("128x256x64_s3_persistent", in->p->m, in->p->n), in->d->sms))
        return 0;
    *cfg = "128x128x64_s3";
    return 1;
}
/* T9: the rest. */
static inline int disp_rule_t9(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32) return 0;
    *cfg = "128x256x64_s3_persistent";
    return 1;
}

/* E1: fp16/bf16 with an epilogue that no configuration above takes (disp_refusal declined
 * them: beta != 0, K % 8 != 0 on the 16-byte path, the other 2-byte output type, or a GPU
 * without the persistent kernel's smem): the 128x128 split-K tile, the epilogue in
 * splitk_reduce. */
static inline int disp_rule_e1(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype == GEMM_FP32 || disp_epi_plain(in->p)) return 0;
    *cfg = "128x128x32_s4_splitk";
    return 1;
}

/* F1..F4: fp32 (the SIMT kernel takes every layout and alignment). */
static inline int disp_rule_f1(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    const gemm_problem *p = in->p;
    if (p->dtype != GEMM_FP32) return 0;
    if (p->m > 64 && (p->m > 1024 || p->n > 1024 || p->k > 1024)) return 0;
    *cfg = "simt_32x64x8_2w";
    return 1;
}
static inline int disp_rule_f2(const disp_in *in, const char **cfg, int *t) {
    if (in->p->dtype != GEMM_FP32 || in->p->n > 32) return 0;
    *cfg = "simt_32x64x8_2w";
    *t = 1;
    return 1;
}
static inline int disp_rule_f3(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype != GEMM_FP32) return 0;
    const int ci = disp_find("simt_128x128x8_4w");
    if (disp_split_for(ci, in->p->m, in->p->n, in->p->k, in->d, in->ws) < 2) return 0;
    *cfg = "simt_128x128x8_4w";
    return 1;
}
static inline int disp_rule_f4(const disp_in *in, const char **cfg, int *t) {
    (void)t;
    if (in->p->dtype != GEMM_FP32) return 0;
    *cfg = "simt_128x128x8_4w";
    return 1;
}

/* Lesson 08's assignment (exercise/README.md) adds rules of its own, tried before every rule
 * below: its grading build defines DISP_EXERCISE, and exercise/rule_ex.h defines them and
 * lists their rows in DISP_EXERCISE_RULES. */
#ifdef DISP_EXERCISE
#include "rule_ex.h"
#else
#define DISP_EXERCISE_RULES
#endif
static const disp_rule disp_rules[] = {
    /* clang-format off */
    DISP_EXERCISE_RULES /* the assignment's rows: none outside its grading build */
    /* clang-format on */
    {"R1",
     "fp16/bf16, A or B not for the 16-byte copy (T1's problems), and their K-major copies "
     "fit the workspace",
     "copying A and B once (read + write of each) costs less than gathering them every K tile; "
     "K is zero-padded to a multiple of 8, so the rules below pick for the copies and the kernel "
     "without the partial-chunk path runs (disp_choose applies R1 first)",
     "run 12-2: 4093^3 through R1 (K padded to 4096) then T9 at 315 TFLOP/s fp16, 316 bf16, "
     "against 267 / 268 with copies that kept K = 4093, same run; the generic path ran 73 "
     "(notes/perf.md)",
     NULL},
    {"T1",
     "fp16/bf16, A or B not K-major, lda/ldb not multiples of 8 or A/B not 16-byte "
     "aligned, too large to copy (R1)",
     "only the gathering (generic) path reads such operands; 128x128 tiles put 2 CTAs on an SM, "
     "so one CTA's 2-byte gathers overlap the other's MMAs",
     "reasoned; not timed separately (it takes only problems whose copies exceed the 256 MiB "
     "workspace)",
     disp_rule_t1},
    {"T2", "fp16/bf16 TN, M <= 16",
     "a 128-row tile computes 8x the rows that exist; the problem streams B (N x K) once, so "
     "it needs every SM loading: 16-row tiles, K split until the CTAs fill the GPU",
     "shape suite, run 11-3: 16x4096x4096 88% (fp16) / 90% (bf16) of cuBLAS; lesson 06's "
     "kernel 22% / 21% (run 10-3)",
     disp_rule_t2},
    {"T3", "fp16/bf16 TN, 16 < M <= 64",
     "as T2 with 64-row tiles: 4 warps of 32x64 reuse each B fragment twice",
     "shape suite, run 11-3: 64x4096x4096 73% / 75% of cuBLAS; lesson 06's kernel 20% (run "
     "10-3)",
     disp_rule_t3},
    {"T4", "fp16/bf16 TN, N <= 16",
     "T2 on C^T = B*A^T: the small N becomes the small M (through the workspace)",
     "reasoned (T2's tile on the transposed problem); not timed separately", disp_rule_t4},
    {"T5", "fp16/bf16 TN, 16 < N <= 64", "T3 on C^T = B*A^T",
     "reasoned (T3's tile on the transposed problem); not timed separately", disp_rule_t5},
    {"T6", "fp16/bf16 TN, fewer 128x128 tiles than half the SMs, K <= 2048",
     "128x128 tiles leave most SMs idle, and a K split pays a pass of fp32 partial sums that a "
     "short K does not repay; 64-row tiles (16-row ones where 64-row tiles still leave half "
     "the SMs idle) give the SMs CTAs without a split",
     "--tune, run 15-1, fp16: 512^3 16x128 0.0076 ms against T7's split 0.0133 (1.76x), 1024^3 "
     "64x128 0.0138 against 0.0234 (1.70x), 256x2048x768 1.70x, 1024x1024x2048 1.26x; at "
     "1024x1024x4096 T7's split won by 0.5%",
     disp_rule_t6},
    {"T7", "fp16/bf16 TN, fewer 128x128 tiles than half the SMs, K > 2048",
     "the tiles alone leave SMs idle; split-K (each split >= DISP_MIN_SPLIT_K_TC of K) gives "
     "every SM work, and the fp32 partial sums cost one extra pass over C",
     "shape suite, run 11-3, fp16: 128x4096x4096 67%, 1024x1024x16384 60% of cuBLAS; --tune, "
     "run 15-1: the best candidate, or within 1.18x of it, on 14 such shapes (M 80-1024, N "
     "512-8192, K 4096-16384)",
     disp_rule_t7},
    {"SK",
     "fp16/bf16 TN, K >= 4096, 1 to 5 waves of 128x256 tiles (one CTA per SM), the last one "
     "at most 3/8 full",
     "the last wave's K iterations spread evenly over all SMs (stream-K): its tiles' time is "
     "shared out instead of leaving 5/8 of the SMs idle; the partial sums cost one write and "
     "one read of a tile per SM, which a K of 4096 repays",
     "run 21-2: 2.6-5.6% faster than T8's 128x128 tiles at fills of 15-36% (3072^2 x 4096 "
     "0.1759 against 0.1862 ms fp16, 4224x4352x4096 0.3130 against 0.3316), slower at "
     "42-45% and at K <= 2048",
     disp_rule_sk},
    {"T8",
     "fp16/bf16 TN, fewer 128x256 tiles than SMs, or fewer than 5 per SM with the last wave "
     "at most half full",
     "128x128 tiles, 2 CTAs per SM: twice the CTAs spread over the SMs where 128x256 tiles "
     "leave many idle",
     "shape suite, run 11-3: 2048^3 66% / 64% of cuBLAS; run 12-2: 128x128 tiles 5-20% less time "
     "at last-wave fills of 15-45% (up to 4.36 tiles per SM), the persistent kernel 5% faster "
     "at 70-94%; --tune, run 15-1: at 66-131 tiles of 128x128, 1.1-2.0x faster than a K split "
     "of 2 (1408^2 x 1024 1.88x, 128x14336x4096 1.08x)",
     disp_rule_t8},
    {"T9", "fp16/bf16, everything else (large M, N)",
     "lesson 07's fastest tile; persistent CTAs overlap a tile's epilogue with the next tile's "
     "first loads",
     "shape suite, run 11-3: its seven shapes 63-67% (fp16), 63-65% (bf16) of cuBLAS; 4096^3 "
     "489 TFLOP/s against 128x128x64_s3's 466 in the same run",
     disp_rule_t9},
    {"E1",
     "fp16/bf16 with an epilogue no rule above places (beta != 0, K % 8 != 0 on the 16-byte "
     "path, the other 2-byte output type)",
     "T8's kernel stores alpha*acc + beta*C only, T9's fuses the epilogue for beta = 0, K % 8 "
     "== 0 and its own or an fp32 output; a split-K tile writes fp32 partial sums, and "
     "splitk_reduce applies any epilogue once (one split, or the split T7 would take)",
     "reasoned; not timed (the problems above fall back here only with an epilogue)", disp_rule_e1},
    {"F1", "fp32, M <= 64, or M, N and K all <= 1024",
     "a 128-row tile computes up to 4x the rows that exist, or leaves most SMs idle; 32x64 "
     "tiles, K split until the CTAs fill the GPU",
     "--tune, H200 2026-12-01 (notes/perf.md run 11-2): 512^3 0.0188 ms against F3's 0.0533, "
     "64x4096x4096 0.0841 against 0.1204, 768^3 0.0462 against 0.0583; shape suite, run 11-3: "
     "16x4096x4096 112% of cuBLAS",
     disp_rule_f1},
    {"F2", "fp32, N <= 32", "F1 on C^T = B*A^T (through the workspace)",
     "reasoned (F1's tile on the transposed problem); not timed separately", disp_rule_f2},
    {"F3", "fp32, few 128x128 tiles: a K split >= 2 fits the CTA slots",
     "as T7, for lesson 04's kernel (each split >= DISP_MIN_SPLIT_K_SIMT of K)",
     "shape suite, run 11-3: 128x4096x4096 84%, 128x14336x4096 86%, 1024x1024x16384 90% of "
     "cuBLAS",
     disp_rule_f3},
    {"F4", "fp32, everything else",
     "lesson 04's fastest fp32 kernel (ldg128_128x128x8_4w, 2 CTAs per SM)",
     "shape suite, run 11-3: 88-93% of cuBLAS on its eight other shapes, 4093^3 76%", disp_rule_f4},
};
#define DISP_NRULES ((int)(sizeof disp_rules / sizeof disp_rules[0]))

/* The rules T1.. over problem p with `ws` bytes of workspace for partial sums: the first rule
 * that applies and whose configuration accepts p (disp_refusal with the split disp_split_for
 * picks). Returns 0, or -1 when no rule's configuration accepts p. */
static inline int disp_choose_rules(const gemm_problem *p, const disp_device *d, long long ws,
                                    disp_choice *out) {
    char why[256];
    disp_in in = {p, d, disp_fast_path(p), ws};
    for (int r = 0; r < DISP_NRULES; ++r) {
        const char *name = NULL;
        int t = 0;
        if (!disp_rules[r].applies || !disp_rules[r].applies(&in, &name, &t)) continue;
        int ci = disp_find(name);
        if (ci < 0) continue;
        const gemm_problem q = t ? disp_transpose(p) : *p; /* what the configuration runs */
        const int s = disp_split_for(ci, q.m, q.n, q.k, d, ws);
        if (s == 1) ci = disp_unsplit_twin(ci); /* the same launch, under its unsplit name */
        if (!disp_pass_rows(&disp_configs[ci], &q, s, t, ws)) continue; /* no room */
        if (disp_refusal(&disp_configs[ci], &q, s, d, why, sizeof why)) continue;
        out->cfg = ci;
        out->split = s;
        out->transposed = t;
        out->repack = 0;
        out->rule = r;
        return 0;
    }
    return -1;
}

/* The choice for problem p on device d. R1 first: an fp16/bf16 problem whose A or B cannot
 * take the 16-byte copy is copied K-major into the workspace when both fit, and the rules
 * then pick for the copies (disp_repacked: K padded to a multiple of 8). Otherwise the rules
 * pick for p; if none does (a GPU with too little smem for the rule's tile, say), the first
 * configuration of the registry that accepts p without a split. Returns 0, or -1 when no
 * configuration accepts p (the CPU tests check that every shape, layout and dtype finds one). */
static inline int disp_choose(const gemm_problem *p, const disp_device *d, disp_choice *out) {
    char why[256];
    if (p->dtype != GEMM_FP32 && !disp_fast_path(p) &&
        disp_repack_bytes(p->m, p->n, p->k) <= DISP_WS_BYTES) {
        const gemm_problem q = disp_repacked(p);
        if (!disp_choose_rules(&q, d, DISP_WS_BYTES - disp_repack_bytes(p->m, p->n, p->k), out)) {
            out->repack = 1;
            return 0;
        }
    }
    if (!disp_choose_rules(p, d, DISP_WS_BYTES, out)) return 0;
    for (int ci = 0; ci < DISP_NCONFIGS; ++ci)
        if (!disp_refusal(&disp_configs[ci], p, 1, d, why, sizeof why)) {
            out->cfg = disp_unsplit_twin(ci);
            out->split = 1;
            out->transposed = 0;
            out->repack = 0;
            out->rule = -1;
            return 0;
        }
    return -1;
}

/* The problem configuration c.cfg runs for p: repacked (A and B NULL: the workspace's) and/or
 * transposed. */
static inline gemm_problem disp_choice_problem(const gemm_problem *p, const disp_choice *c) {
    gemm_problem q = c->repack ? disp_repacked(p) : *p;
    return c->transposed ? disp_transpose(&q) : q;
}

/* Workspace bytes choice c leaves for partial sums: all of it, less rule R1's copies. */
static inline long long disp_choice_ws(const gemm_problem *p, const disp_choice *c) {
    return DISP_WS_BYTES - (c->repack ? disp_repack_bytes(p->m, p->n, p->k) : 0);
}

/* Where choice c applies p's epilogue, as a phrase for --explain (no leading separator), e.g.
 *   "epilogue bias_gelu, fp16 out: fused in its store"
 *   "epilogue bias_gelu, fp16 out: in splitk_reduce, after the 12 K splits"
 *   "epilogue gelu (erf), fp16 out: in splitk_reduce, 2 passes of 4096 rows"
 * "" for a plain problem (disp_epi_plain), whose line says nothing new. */
static inline int disp_epi_phrase(const gemm_problem *p, const disp_choice *c, char *buf,
                                  size_t len) {
    if (disp_epi_plain(p)) return snprintf(buf, len, "%s", "");
    const gemm_problem q = disp_choice_problem(p, c);
    const disp_config *cf = &disp_configs[c->cfg];
    char what[64], where[96];
    snprintf(what, sizeof what, "epilogue %s%s, %s out", disp_epi_words[p->epilogue],
             GEMM_EPI_ACT(p->epilogue) == GEMM_ACT_GELU && p->gelu == GEMM_GELU_ERF ? " (erf)" : "",
             disp_dtype_words[p->c_dtype]);
    if (disp_epi_where(cf, &q, c->split, c->transposed) == DISP_EPI_KERNEL)
        return snprintf(buf, len, "%s: fused in its store", what);
    const int rows = disp_pass_rows(cf, &q, c->split, c->transposed, disp_choice_ws(p, c));
    if (c->split > 1) snprintf(where, sizeof where, ", after the %d K splits", c->split);
    else if (rows > 0 && rows < q.m)
        snprintf(where, sizeof where, ", %lld passes of %d rows", disp_ceil(q.m, rows), rows);
    else snprintf(where, sizeof where, "%s", "");
    return snprintf(buf, len, "%s: in splitk_reduce%s", what, where);
}

/* Why the default variant takes no configuration for p, or NULL when one takes it: the one
 * request no configuration computes, fp32 inputs with an fp16/bf16 output. */
static inline const char *disp_unsupported(const gemm_problem *p) {
    if (p->dtype == GEMM_FP32 && p->c_dtype != GEMM_FP32)
        return "fp32 inputs give an fp32 output only (lesson 04's SIMT kernels); fp16 and bf16 "
               "inputs take every output type";
    return NULL;
}

/* The choice for p as one line (no newline), e.g.
 *   "16x128x64_s4_splitk, K split 12 (rule T2: fp16/bf16, M <= 16: ...)"
 *   "A and B copied K-major with K zero-padded to 4096 (rule R1: lda = 4093 is not a multiple
 *    of 8), then 128x256x64_s3_persistent (rule T9: ...)"                   (4093^3, TN)
 * and, when p has an epilogue beyond the plain one, where it runs (disp_epi_phrase):
 *   "128x256x64_s3_persistent (rule T9: ...); epilogue bias_gelu, fp16 out: fused in its
 *    store" */
static inline int disp_explain(const gemm_problem *p, const disp_device *d, char *buf, size_t len) {
    disp_choice c;
    const char *no = disp_unsupported(p);
    if (no) return snprintf(buf, len, "refused: %s", no);
    if (disp_choose(p, d, &c)) return snprintf(buf, len, "no configuration accepts this problem");
    char split[48] = "";
    if (c.split > 1) snprintf(split, sizeof split, ", K split %d", c.split);
    const char *tr = c.transposed ? ", on C^T = B*A^T" : "";
    char why[64], pad[48], rp[160] = "", epi[160], sep[4] = "";
    if (c.repack)
        snprintf(rp, sizeof rp, "A and B copied K-major%s (rule R1: %s), then ",
                 disp_repack_pad_words(p, pad, sizeof pad), disp_slow_reason(p, why, sizeof why));
    if (disp_epi_phrase(p, &c, epi, sizeof epi) > 0) snprintf(sep, sizeof sep, "; ");
    if (c.rule < 0)
        return snprintf(buf, len, "%s%s%s (fallback: the first configuration that accepts it)%s%s",
                        disp_configs[c.cfg].name, split, tr, sep, epi);
    return snprintf(buf, len, "%s%s%s%s (rule %s: %s)%s%s", rp, disp_configs[c.cfg].name, split, tr,
                    disp_rules[c.rule].id, disp_rules[c.rule].when, sep, epi);
}

#endif /* LESSON08_DISPATCH_H */
