/* simt_fp32.cuh - lesson 04's fp32 SIMT kernel as lesson 08 composes it: the register-staged
 * "ldg128" kernel (LDG.128 -> registers -> STS into transposed smem tiles, 2 buffers, one
 * barrier per k_tile, 2-D register blocking, fragment double buffering), here with
 *   - a K split: a grid (tiles, splits) whose CTA (t, s) computes split s of the K tiles
 *     (plan_split) and writes its fp32 partial sum to slice s of the workspace (splitk.cuh
 *     reduces them), or with one split and no workspace writes C as lesson 04 does;
 *   - lesson 08's rasterization (plan_raster) instead of lesson 04's copy of it;
 *   - five operand copy-mode pairs instead of nine: the four 16-byte ones (one per operand
 *     order) and the 4-byte one for anything unaligned (X4 for both), to keep the compile short.
 * Everything else is lesson 04's code (kernel_ldg.cuh, gemm.cu): `diff` shows these steps.
 * The layouts it indexes through are in simt_plan.h; the kernel itself is stamped out per tile
 * configuration by simt_kernel.cuh.
 *
 * Shapes as everywhere (common/harness.h): A (M,K), B (N,K), C (M,N) row-major; here a thread
 * of the copy sees an operand as (X,K):(sx,sk), x = m for A and n for B. */

#define P4_CAT_(a, b) a##b
#define P4_CAT(a, b) P4_CAT_(a, b)

/* ---- the tiled copy of one k_tile of one operand -----------------------------------------
 * Thread tid's part of the copy p4_copy(mode, ...) (simt_plan.h): element j of vector v is
 * index j + VEC*v of the thread's partitions of the gmem tile gX (offsets from the tile
 * origin), of the smem tile sX, and of two identity tiles that give each element's (x,k) for
 * the predicates (CuTe's identity tensors); with constant j, v (unrolled loops) every index
 * folds to the thread's offset plus an immediate. Offsets inside one tile are 32-bit ints
 * (x*sx + k*sk < BLK_X*ld + BLK_K < 2^31: disp_refusal refuses ld >= P4_MAX_LD). */
/* A thread's view of one operand's copy: who it is and the gmem tile's strides. Offsets are
 * computed where they are used, base plus constant, as the layouts give them; nothing else is
 * kept across the K loop (the compiler keeps or recomputes the bases as registers allow). */
typedef struct {
    int tid;    /* the thread */
    int sx, sk; /* the gmem tile's strides (run-time lda/ldb, or 1) */
} p4_view;

static __device__ __forceinline__ void p4_view_make(p4_view *w, const int tid, long long sx,
                                                    long long sk) {
    w->tid = tid;
    w->sx = (int)sx;
    w->sk = (int)sk;
}

/* Element i = j + VEC*v (element j of vector v) of the thread's copy: its (x,k) in the tile
 * (lay_tiled_copy_crd of the mode's tiled copy), then its offset through the gmem tile
 * (BLK_X,BLK_K):(sx,sk) or the smem tile (BLK_X,BLK_K):(1,BLK_X+P4_PAD). */
static __device__ __forceinline__ int p4_elem(const lay_tiled_copy *cp, const int blk_x,
                                              const int blk_k, const p4_view *w, int i, int which) {
    const int vec = lay_tiled_copy_nval(*cp);
    int x, k;
    lay_tiled_copy_crd(*cp, blk_x, blk_k, w->tid, i % vec, i / vec, &x, &k);
    if (which == 0) return (int)lay_crd2idx2(p4_gmem_layout(blk_x, blk_k, w->sx, w->sk), x, k);
    if (which == 1) return (int)lay_crd2idx2(p4_smem_layout(blk_x, blk_k), x, k);
    return which == 2 ? x : k;
}
/* (in the copy functions below, cp is the mode's tiled copy, built once per call) */
#define P4_GAT(w, i) p4_elem(&cp, blk_x, blk_k, (w), (i), 0)
#define P4_SAT(w, i) p4_elem(&cp, blk_x, blk_k, (w), (i), 1)
#define P4_XAT(w, i) p4_elem(&cp, blk_x, blk_k, (w), (i), 2)
#define P4_KAT(w, i) p4_elem(&cp, blk_x, blk_k, (w), (i), 3)

/* ---- the copy plan of the k_tiles -----------------------------------------------------------
 * A vector's x predicate and its gmem offset from the tile's origin are the same for every
 * k_tile. p4_copy_prep computes both once per CTA (one 32-bit offset and one float count per
 * vector, in registers). A vector whose rows are outside the tensor gets offset 0 (the tile
 * origin, a valid and 16-byte aligned address) and 0 floats, i.e. it loads zeros. */
typedef struct {
    int off[P4_MAXV]; /* gmem offset of the vector from the tile origin, in floats */
    unsigned words;   /* 4 bits per vector: how many of its floats exist (0..4); the rest is
                         zero-filled. Packed to save registers (one instead of P4_MAXV). */
} p4_copy_plan;

static __device__ __forceinline__ void p4_copy_prep(p4_copy_plan *pl, const p4_view *w,
                                                    const int mode, const int blk_x,
                                                    const int blk_k, const int nthr, int x_rem) {
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr), vec = p4_copy_vec(mode);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
    pl->words = 0;
#pragma unroll
    for (int v = 0; v < nv; ++v) {
        const int x = P4_XAT(w, vec * v);
        const int in = x < x_rem;
        pl->off[v] = in ? P4_GAT(w, vec * v) : 0;
        const int words = (mode == P4_COPY_X16) ? max(0, min(4, x_rem - x)) : (in ? vec : 0);
        pl->words |= (unsigned)words << (4 * v);
    }
}

/* ---- register-staged copies ------------------------------------------------------------
 * p4_ldg_tile loads this thread's part of one k_tile into registers rS (BLK_X*BLK_K/NTHR
 * floats: vector v of a 4-float mode in rS[4v..4v+3], value v of X4 in rS[v]); p4_sts_tile
 * later stores them into a transposed smem tile. Offsets and x predicates come from the plan
 * (p4_copy_prep); check_k = 1 (last k_tile only) also drops the k's at or beyond k_rem. Every
 * element that does not exist is a zero in rS and is never read: a partial vector is read one
 * float at a time, only its existing floats. */
static __device__ __forceinline__ void p4_ldg_tile(const p4_copy_plan *pl, const p4_view *w,
                                                   const int mode, const int blk_x, const int blk_k,
                                                   const int nthr, const int check_k,
                                                   const float *gX, int k_rem, float *rS) {
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr), vec = p4_copy_vec(mode);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
#pragma unroll
    for (int v = 0; v < nv; ++v) {
        const int k = P4_KAT(w, vec * v);
        const float *src = gX + pl->off[v];
        int n = (int)((pl->words >> (4 * v)) & 0xFu); /* floats of the vector that exist */
        if (check_k) n = (mode == P4_COPY_K16) ? min(n, max(0, k_rem - k)) : (k < k_rem ? n : 0);
        if (mode == P4_COPY_K16 || mode == P4_COPY_X16) {
            float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (n == 4) {
                r = *(const float4 *)src; /* LDG.128 */
            } else {
                /* Also right for n == 4, which never gets here in C. But nvcc 13.0's ptxas
                 * (sm_90) compiled the prologue's `n == 4` test of the x-major copy into the
                 * predicate of a VIMNMX that was false for n == 4, and sent every full vector
                 * here: the 4th float of each vector of k_tile 0 was lost (measured on the
                 * H200, notes/perf.md run 7). With the n > 3 load the result no longer
                 * depends on which way the branch goes. */
                if (n > 0) r.x = src[0];
                if (n > 1) r.y = src[1];
                if (n > 2) r.z = src[2];
                if (n > 3) r.w = src[3];
            }
            rS[4 * v] = r.x;
            rS[4 * v + 1] = r.y;
            rS[4 * v + 2] = r.z;
            rS[4 * v + 3] = r.w;
        } else {
            rS[v] = n ? *src : 0.0f;
        }
    }
}

static __device__ __forceinline__ void p4_sts_tile(const p4_view *w, const int mode,
                                                   const int blk_x, const int blk_k, const int nthr,
                                                   const float *rS, float *sX) {
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr), vec = p4_copy_vec(mode);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
#pragma unroll
    for (int v = 0; v < nv; ++v) {
        if (mode == P4_COPY_K16) { /* 4 k's -> 4 rows of the transposed tile: 4 STS.32 */
#pragma unroll
            for (int j = 0; j < 4; ++j) sX[P4_SAT(w, j + vec * v)] = rS[4 * v + j];
        } else if (mode == P4_COPY_X16) { /* 4 x's: one STS.128 */
            *(float4 *)(sX + P4_SAT(w, vec * v)) =
                make_float4(rS[4 * v], rS[4 * v + 1], rS[4 * v + 2], rS[4 * v + 3]);
        } else {
            sX[P4_SAT(w, v)] = rS[v];
        }
    }
}

/* Copy mode of an operand for the register-staged kernels: 16-byte vectors along its
 * contiguous mode when ld and the base pointer allow, else single floats (X4 coordinates,
 * whatever the majorness: the strides are kernel arguments). */
static int p4_ldg_mode(int kmajor, const void *ptr, long long ld) {
    const int vec = ld % 4 == 0 && (uintptr_t)ptr % 16 == 0;
    return vec ? (kmajor ? P4_COPY_K16 : P4_COPY_X16) : P4_COPY_X4;
}

/* ---- epilogue of every kernel: tCgC = alpha * tCrC + beta * tCgC ------------------------
 * One run of 4 contiguous outputs C(m, n..n+3) of a thread tile row (r: the 4 accumulators,
 * tCgC: &C(m,n)); the row m is known to be inside M. Stored as one float4 when C allows it
 * (c_vec: ldc % 4 == 0 and C 16-byte aligned) and the run is inside N, else element by
 * element with predicates. C is read only when beta != 0, so a NaN-filled C with beta == 0
 * never leaks into the result. */
static __device__ __forceinline__ void p4_store_run4(float *tCgC, const float *acc, int n, int N,
                                                     int c_vec, float alpha, float beta) {
    float r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) r[j] = alpha * acc[j];
    if (c_vec && n + 3 < N) {
        if (beta != 0.0f) {
            const float4 o = *(const float4 *)tCgC;
            r[0] = fmaf(beta, o.x, r[0]);
            r[1] = fmaf(beta, o.y, r[1]);
            r[2] = fmaf(beta, o.z, r[2]);
            r[3] = fmaf(beta, o.w, r[3]);
        }
        *(float4 *)tCgC = make_float4(r[0], r[1], r[2], r[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (n + j < N) tCgC[j] = (beta != 0.0f) ? fmaf(beta, tCgC[j], r[j]) : r[j];
    }
}

/* The whole epilogue of a thread: tCrC (THR_M,THR_N) accumulators, row-major, as placed by the
 * compute partition (simt_plan.h: p4_mma). Accumulator (i, j) is value p4_c_val(i, j) of the
 * thread's C fragment; its partitions of two identity tiles give its (m, n) in the CTA tile,
 * and the matrix layout mC (M,N):(ldc,1) its address (flat: a dot product). Row i
 * of the thread tile is one C row; its THR_N columns are THR_N/4 runs of 4 contiguous floats,
 * each stored by p4_store_run4. The tile constants are compile-time at every call
 * (simt_kernel.cuh), so the loops unroll and tCrC stays in registers (ptxas:
 * 0 bytes stack). */
static __device__ __forceinline__ void p4_epilogue(const float *tCrC, const p4_cfg cfg, int tid,
                                                   int m0, int n0, int M, int N, float *C,
                                                   long long ldc, int c_vec, float alpha,
                                                   float beta) {
    const lay_layout mC = lay_l2(M, N, (int)ldc, 1); /* (M,N) */
    /* (m, n) of accumulator value v: the thread's base plus a constant (p4_frag) */
    const lay_tiled_mma mma = p4_mma(cfg);
    const int tCcm = m0 + p4_frag_base(&mma, cfg, P4_FRAG_CM, tid);
    const int tCcn = n0 + p4_frag_base(&mma, cfg, P4_FRAG_CN, tid);

#pragma unroll
    for (int i = 0; i < cfg.thr_m; ++i) {
        const int m = tCcm + p4_frag_at(&mma, cfg, P4_FRAG_CM, p4_c_val(cfg.thr_m, i, 0));
        if (m >= M) continue;
#pragma unroll
        for (int c = 0; c < cfg.thr_n / 4; ++c) {
            const int n = tCcn + p4_frag_at(&mma, cfg, P4_FRAG_CN, p4_c_val(cfg.thr_m, i, 4 * c));
            float *tCgC = C + lay_crd2idx2(mC, m, n); /* (4) */
            p4_store_run4(tCgC, tCrC + i * cfg.thr_n + 4 * c, n, N, c_vec, alpha, beta);
        }
    }
}

/* The copy-mode pair of problem p: each operand's 16-byte mode when both allow one (one pair
 * per operand order), X4 for both otherwise (one kernel body fewer per unaligned mix). */
static void simt_modes(const gemm_problem *p, int *a_mode, int *b_mode) {
    *a_mode = p4_ldg_mode(p->a_kmajor, p->A, p->lda);
    *b_mode = p4_ldg_mode(p->b_kmajor, p->B, p->ldb);
    if (*a_mode == P4_COPY_X4 || *b_mode == P4_COPY_X4) *a_mode = *b_mode = P4_COPY_X4;
}

/* ---- the configurations (disp_configs: simt_128x128x8_4w, simt_32x64x8_2w) ----------------
 * 128x128x8, 4 warps of 64x64, 16x8 accumulators per thread, 2 CTAs per SM: lesson 04's
 * default (ldg128_128x128x8_4w). sm_80's ptxas spills its double-buffered fragments at 255
 * registers (lesson 04), so its sm_80 build reads one set, and (here) runs every k_tile in
 * the general loop. The H200 runs the sm_90 build, which is lesson 04's. */
#define K_NAME simt_128x128x8_4w
#define K_BLK_M 128
#define K_BLK_N 128
#define K_BLK_K 8
#define K_WARP_M 64
#define K_WARP_N 64
#define K_THR_M 16
#define K_THR_N 8
#define K_MINB 2
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define K_FRAG2 0
#define K_PEEL 0 /* with the split's k_tile range, sm_80's ptxas spilled the peeled loop */
#else
#define K_FRAG2 1
#define K_PEEL 1
#endif
#include "simt_kernel.cuh"

/* 32x64x8, 2 warps of 32x32, 8x4 accumulators per thread: for M (or, transposed, N) <= 32,
 * where a 128-row tile would compute 4x the rows that exist. Many small CTAs per SM (6.5 KiB
 * of smem each); with a K split they fill the GPU when the tiles alone cannot. */
#define K_NAME simt_32x64x8_2w
#define K_BLK_M 32
#define K_BLK_N 64
#define K_BLK_K 8
#define K_WARP_M 32
#define K_WARP_N 32
#define K_THR_M 8
#define K_THR_N 4
#define K_MINB 4
#define K_FRAG2 1
#define K_PEEL 1
#include "simt_kernel.cuh"
