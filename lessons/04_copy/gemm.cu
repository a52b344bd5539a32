/* Lesson 04 - tiled copy: 128-bit vectors, predication, cp.async pipelines, register blocking.
 *
 * Lesson 03 (CuTe's sgemm tutorial kernel) copies one float per thread per instruction, waits
 * for every copy before computing, and reads 2 floats from smem per FMA. This lesson keeps its
 * structure (CTA tile -> smem tiles -> thread partitions -> register accumulators -> axpby) and
 * changes five things, each one a variant below so its effect can be measured:
 *   1. Tiled copy with vectors. The copy of a (BLK_X,BLK_K) tile is a TV layout: vector e of
 *      the tile is moved by thread e % NTHR as its value e / NTHR (plan.h). Where the operand
 *      is contiguous along M/N, a vector is 4 floats (LDG.128 / cp.async 16 B).
 *   2. Predication for any M, N, K, ld and base pointer: each vector's coordinate is compared
 *      with the tile's remaining extent; out-of-range elements are zero-filled by cp.async's
 *      src-size operand instead of being branched around, so edge tiles run the same code.
 *      Unaligned operands (ld % 4 != 0 or a base pointer not 16-B aligned) take a 4-byte copy.
 *   3. cp.async (LDGSTS): global -> shared without passing through registers, in a pipeline
 *      of STAGES buffers (2 = double buffering), so the loads of k_tile t+STAGES-1 are in
 *      flight while k_tile t is computed.
 *   4. 2-D register blocking: a thread owns THR_M x THR_N (8x8 or 16x8) elements of C inside
 *      a warp tile (WARP_M,WARP_N), and computes them as outer products of THR_M floats of A and
 *      THR_N floats of B loaded from smem as float4s (16 FFMA per LDS.128 instead of 1/2).
 *   5. Register-staged copies ("ldg128_*" variants, kernel_ldg.cuh): LDG.128 of k_tile t+1
 *      into registers while k_tile t is computed, then STS (transposing K-major operands with
 *      4 STS.32) into the other of two smem buffers: one LDG.128 where the transposing cp.async
 *      needs four LDGSTS.32, one barrier per k_tile, few address registers (2 CTAs per SM).
 *
 * Shared memory holds both tiles transposed, (BLK_K, BLK_X) with x contiguous, so the inner
 * loop reads 4 consecutive m (or n) as one float4 whatever the operand's layout in gmem. For a
 * K-major operand (A in TN, the default) that transposition is done by the copy itself: a
 * cp.async moves bytes unchanged, so it moves one float at a time (4-byte cp.async) into its
 * transposed place; the synchronous "tiled_vec" variant instead loads 4 k's with one LDG.128
 * and stores them with 4 STS.32.
 *
 * Build and run:   make lesson04 && ./run
 *                  ./run --variant fast --size 4096x4096x4096
 *                  ./run --check-only --layout all --pad 3
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 * All four layouts, any M, N, K >= 1, any lda/ldb/ldc and base offset; fp32 only.
 */
#include <stdint.h>
#include "harness.h"
#include "plan.h"
#include "ptx.h"

/* ---- cp.async (common/ptx.h: LDGSTS on sm_80+) ----------------------------------------
 * ptx_copy16_zfill(smem_u32, src, bytes): 16 bytes, src_bytes (0..16) read, the rest zero-filled:
 * cp.async.cg for a whole or an empty chunk, registers for a partial one (a row's last chunk,
 * whose 16-byte window in the matrix's last row would pass the allocation's end);
 * .cg caches in L2 only (the data is reused from smem, not from L1). ptx_cp_async_ca4: the
 * same for one float (.ca is the only cache mode of 4-byte copies). With src_bytes == 0
 * nothing is read, but we still pass an address inside the tensor. The copies are
 * asynchronous: ptx_cp_async_commit() closes this thread's group, PTX_CP_ASYNC_WAIT(N)
 * returns when at most N of its groups are in flight; a __syncthreads() after it makes the
 * whole tile visible to the CTA. */
/* ---- the tiled copy of one k_tile of one operand -----------------------------------------
 * Thread tid's part of the copy p4_copy(mode, ...) (plan.h) is a set of partitions, computed
 * once per CTA (p4_view_make, lay_tiled_copy_partition): of the gmem tile gX (offsets from the
 * tile origin), of the smem tile sX, and of two identity tiles that give each element's (x,k)
 * for the predicates (CuTe's identity tensors). Element j of vector v is index j + VEC*v of
 * each partition; with constant j, v (unrolled loops) every index folds to the thread's offset
 * plus an immediate. gX points at element (0,0) of the CTA's tile (x0, k0), which is always
 * inside the tensor. x_rem = X - x0 and k_rem = K - k0 are the rows/columns of the tile that
 * exist (they may exceed BLK_X / BLK_K). check_k = 0 promises k_rem >= BLK_K (any k_tile but
 * the last), so the k tests fold away. Offsets inside one tile are 32-bit ints
 * (x*sx + k*sk < BLK_X*ld + BLK_K < 2^31, which the variants' check callbacks guarantee by
 * refusing ld >= P4_MAX_LD): one register per copy instead of a 64-bit pointer, to save
 * registers (still not enough for a 128-register cap: see P4_MINB_8X8 below). */
#define P4_MAXV 8 /* most vectors a thread moves per k_tile and operand (static_assert'ed) */
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
 * (plan.h: p4_copy_crd, the tiled copy's coordinates), then its offset through the gmem tile
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

static __device__ __forceinline__ void
p4_copy_tile(const p4_view *w, const int mode, const int async, const int blk_x, const int blk_k,
             const int nthr, const int check_k, const float *gX, int x_rem, int k_rem, float *sX) {
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr), vec = p4_copy_vec(mode);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
    if (!check_k)
        k_rem = blk_k; /* not the last k_tile: every k of the tile exists, so the
                                    predicates depend on x only and are hoisted out of the
                                    main loop by the compiler */
#pragma unroll
    for (int v = 0; v < nv; ++v) {
        const int x = P4_XAT(w, vec * v), k = P4_KAT(w, vec * v);
        float *dst = sX + P4_SAT(w, vec * v);
        const float *src = gX + P4_GAT(w, vec * v);
        if (mode == P4_COPY_X16) {
            /* 4 floats along x: how many exist (0..4) -> src-size; the rest is zero */
            const int n = (k < k_rem) ? max(0, min(4, x_rem - x)) : 0;
            if (async) {
                ptx_copy16_zfill(ptx_smem_u32(dst), n > 0 ? src : gX, 4 * n);
            } else if (n == 4) {
                *(float4 *)dst = *(const float4 *)src; /* LDG.128 + STS.128 */
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) sX[P4_SAT(w, j + vec * v)] = (j < n) ? src[j] : 0.0f;
            }
        } else if (mode == P4_COPY_K16) {
            /* 4 floats along k (gmem contiguous) -> 4 k rows of the transposed tile */
            const int n = (x < x_rem) ? max(0, min(4, k_rem - k)) : 0;
            float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (mode == P4_COPY_K16 && !check_k) { /* whole vector or nothing (x test only) */
                if (n) r = *(const float4 *)src;   /* LDG.128 */
            } else if (n == 4) {
                r = *(const float4 *)src; /* LDG.128 */
            } else {
                if (n > 0) r.x = src[0];
                if (n > 1) r.y = src[1];
                if (n > 2) r.z = src[2];
            }
            sX[P4_SAT(w, 0 + vec * v)] = r.x;
            sX[P4_SAT(w, 1 + vec * v)] = r.y;
            sX[P4_SAT(w, 2 + vec * v)] = r.z;
            sX[P4_SAT(w, 3 + vec * v)] = r.w;
        } else {
            /* one float (K4: K-major, transposing; X4: x-major but unaligned) */
            const int ok = x < x_rem && k < k_rem;
            if (async) ptx_cp_async_ca4(ptx_smem_u32(dst), ok ? src : gX, ok ? 4 : 0);
            else *dst = ok ? *src : 0.0f;
        }
    }
}

/* ---- the same copy for the k_tiles that are not the last one ----------------------------
 * Every k of such a tile exists, so a vector's predicate depends on x only and its gmem offset
 * from the tile's origin is the same for every k_tile. p4_copy_prep computes both once per
 * CTA (a plan: one 32-bit offset and one byte count per vector, in registers); p4_copy_issue
 * then costs one address add and one copy instruction per vector per k_tile. A vector whose
 * rows are outside the tensor gets offset 0 (the tile origin, a valid and 16-byte aligned
 * address) and 0 bytes, i.e. it writes zeros. */
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

static __device__ __forceinline__ void p4_copy_issue(const p4_copy_plan *pl, const p4_view *w,
                                                     const int mode, const int async,
                                                     const int blk_x, const int blk_k,
                                                     const int nthr, const float *gX, float *sX) {
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr), vec = p4_copy_vec(mode);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
#pragma unroll
    for (int v = 0; v < nv; ++v) {
        float *dst = sX + P4_SAT(w, vec * v);
        const float *src = gX + pl->off[v];
        const int bytes = 4 * (int)((pl->words >> (4 * v)) & 0xFu);
        if (mode == P4_COPY_X16) {
            if (async) {
                ptx_copy16_zfill(ptx_smem_u32(dst), src, bytes);
            } else if (bytes == 16) {
                *(float4 *)dst = *(const float4 *)src;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    sX[P4_SAT(w, j + vec * v)] = (4 * j < bytes) ? src[j] : 0.0f;
            }
        } else if (mode == P4_COPY_K16) { /* synchronous only */
            float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (bytes == 16) r = *(const float4 *)src;
            sX[P4_SAT(w, 0 + vec * v)] = r.x;
            sX[P4_SAT(w, 1 + vec * v)] = r.y;
            sX[P4_SAT(w, 2 + vec * v)] = r.z;
            sX[P4_SAT(w, 3 + vec * v)] = r.w;
        } else if (async) {
            ptx_cp_async_ca4(ptx_smem_u32(dst), src, bytes);
        } else {
            *dst = bytes ? *src : 0.0f;
        }
    }
}

/* The pair of copy modes (A's, B's) as one value, the switch of every kernel (kernel.cuh,
 * kernel_ldg.cuh): a body per pair. */
static __host__ __device__ constexpr int p4_modes(int a_mode, int b_mode) {
    return a_mode * P4_NCOPY + b_mode;
}

/* Copy mode of an operand: K-major operands are transposed by the copy (one float per
 * cp.async, or LDG.128 + 4 STS when synchronous); x-major operands use 16-byte vectors when
 * ld and the base pointer allow (all vector starts are then 16-byte aligned), else 4 bytes. */
static int p4_mode(int kmajor, const void *ptr, long long ld, int async) {
    const int vec = ld % 4 == 0 && (uintptr_t)ptr % 16 == 0;
    if (kmajor) return (vec && !async) ? P4_COPY_K16 : P4_COPY_K4;
    return vec ? P4_COPY_X16 : P4_COPY_X4;
}

/* ---- register-staged copies (kernel_ldg.cuh, the "ldg128_*" variants) --------------------
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
                 * (sm_90) compiles the prologue's `n == 4` test of the x-major copy into the
                 * predicate of a VIMNMX that is false for n == 4, and sends every full vector
                 * here: without the n > 3 load the 4th float of each vector of k_tile 0 is
                 * lost. With it the result does not depend on which way the branch goes. */
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
 * compute partition (plan.h: p4_mma). Accumulator (i, j) is value p4_c_val(i, j) of the
 * thread's C fragment; its partitions of two identity tiles give its (m, n) in the CTA tile,
 * and the matrix layout mC (M,N):(ldc,1) its address (flat: a dot product). Row i
 * of the thread tile is one C row; its THR_N columns are THR_N/4 runs of 4 contiguous floats,
 * each stored by p4_store_run4. The tile constants are compile-time at every call
 * (kernel.cuh, kernel_ldg.cuh), so the loops unroll and tCrC stays in registers (ptxas:
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

/* ---- the kernels: one per tile configuration -----------------------------------------
 * kernel.cuh (cp.async or synchronous copies) and kernel_ldg.cuh (register-staged copies) are
 * templates over a configuration type; each configuration below (plan.h's CFG_* constants)
 * gets its own named __global__ kernel, a call of p4_cp_kernel / p4_ldg_kernel, and a launch
 * function for the variant table. Named kernels rather than kernel templates: the names stay
 * short in profiles and SASS listings, and one configuration (ldg128_128x128x8_4w: FRAG2)
 * differs between the sm_80 and the sm_90 code, which is fine inside a kernel's body but not
 * in a kernel template's arguments (the host code launches the kernel the host pass names).
 * P4_MINB_8X8: CTAs per SM promised by the pipelined 8x8-per-thread kernels. 2 caps them at
 * 128 registers, and the copy plans then spill (ptxas); 1 lets them take what they need.
 * Tune on the GPU: build with -DP4_MINB_8X8=2 to compare. */
#include "kernel.cuh"
#include "kernel_ldg.cuh"

#ifndef P4_MINB_8X8
#define P4_MINB_8X8 1
#endif
typedef p4_cp_cfg<CFG_FAST_BLK_M, CFG_FAST_BLK_N, CFG_FAST_BLK_K, CFG_FAST_WARP_M, CFG_FAST_WARP_N,
                  CFG_FAST_THR_M, CFG_FAST_THR_N, CFG_FAST_STAGES, P4_MINB_8X8>
    cfg_fast;
__global__ void __launch_bounds__(cfg_fast::NTHR, cfg_fast::MINB)
    gemm04_fast(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
                int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
                float *__restrict__ C, long long ldc, int c_vec) {
    p4_cp_kernel<cfg_fast>(M, N, K, alpha, A, lda, a_mode, B, ldb, b_mode, beta, C, ldc, c_vec);
}
static cudaError_t launch_gemm04_fast(const gemm_problem *p, cudaStream_t stream) {
    return p4_cp_launch<cfg_fast>(p, stream, gemm04_fast);
}

typedef p4_cp_cfg<CFG_K16_BLK_M, CFG_K16_BLK_N, CFG_K16_BLK_K, CFG_K16_WARP_M, CFG_K16_WARP_N,
                  CFG_K16_THR_M, CFG_K16_THR_N, CFG_K16_STAGES, 1>
    cfg_fast_k16;
__global__ void __launch_bounds__(cfg_fast_k16::NTHR, cfg_fast_k16::MINB)
    gemm04_fast_k16(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
                    int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
                    float *__restrict__ C, long long ldc, int c_vec) {
    p4_cp_kernel<cfg_fast_k16>(M, N, K, alpha, A, lda, a_mode, B, ldb, b_mode, beta, C, ldc, c_vec);
}
static cudaError_t launch_gemm04_fast_k16(const gemm_problem *p, cudaStream_t stream) {
    return p4_cp_launch<cfg_fast_k16>(p, stream, gemm04_fast_k16);
}

/* (a 128x256x8 / 16x8-per-thread configuration, CFG_N256 in plan.h, spilled at 255
 * registers with the copy plans; it is left out until it fits) */

typedef p4_cp_cfg<CFG_S4_BLK_M, CFG_S4_BLK_N, CFG_S4_BLK_K, CFG_S4_WARP_M, CFG_S4_WARP_N,
                  CFG_S4_THR_M, CFG_S4_THR_N, CFG_S4_STAGES, P4_MINB_8X8>
    cfg_fast_s4;
__global__ void __launch_bounds__(cfg_fast_s4::NTHR, cfg_fast_s4::MINB)
    gemm04_fast_s4(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
                   int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
                   float *__restrict__ C, long long ldc, int c_vec) {
    p4_cp_kernel<cfg_fast_s4>(M, N, K, alpha, A, lda, a_mode, B, ldb, b_mode, beta, C, ldc, c_vec);
}
static cudaError_t launch_gemm04_fast_s4(const gemm_problem *p, cudaStream_t stream) {
    return p4_cp_launch<cfg_fast_s4>(p, stream, gemm04_fast_s4);
}

typedef p4_cp_cfg<CFG_CP2_BLK_M, CFG_CP2_BLK_N, CFG_CP2_BLK_K, CFG_CP2_WARP_M, CFG_CP2_WARP_N,
                  CFG_CP2_THR_M, CFG_CP2_THR_N, CFG_CP2_STAGES, P4_MINB_8X8>
    cfg_cp2;
__global__ void __launch_bounds__(cfg_cp2::NTHR, cfg_cp2::MINB)
    gemm04_cp2(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
               int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
               float *__restrict__ C, long long ldc, int c_vec) {
    p4_cp_kernel<cfg_cp2>(M, N, K, alpha, A, lda, a_mode, B, ldb, b_mode, beta, C, ldc, c_vec);
}
static cudaError_t launch_gemm04_cp2(const gemm_problem *p, cudaStream_t stream) {
    return p4_cp_launch<cfg_cp2>(p, stream, gemm04_cp2);
}

typedef p4_cp_cfg<CFG_VEC_BLK_M, CFG_VEC_BLK_N, CFG_VEC_BLK_K, CFG_VEC_WARP_M, CFG_VEC_WARP_N,
                  CFG_VEC_THR_M, CFG_VEC_THR_N, CFG_VEC_STAGES, P4_MINB_8X8>
    cfg_vec;
__global__ void __launch_bounds__(cfg_vec::NTHR, cfg_vec::MINB)
    gemm04_vec(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
               int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
               float *__restrict__ C, long long ldc, int c_vec) {
    p4_cp_kernel<cfg_vec>(M, N, K, alpha, A, lda, a_mode, B, ldb, b_mode, beta, C, ldc, c_vec);
}
static cudaError_t launch_gemm04_vec(const gemm_problem *p, cudaStream_t stream) {
    return p4_cp_launch<cfg_vec>(p, stream, gemm04_vec);
}

/* Register-staged kernels (kernel_ldg.cuh): LDG.128 -> registers -> STS, 2 smem buffers. */
typedef p4_ldg_cfg<CFG_L1C_BLK_M, CFG_L1C_BLK_N, CFG_L1C_BLK_K, CFG_L1C_WARP_M, CFG_L1C_WARP_N,
                   CFG_L1C_THR_M, CFG_L1C_THR_N, 1, 1, 1>
    cfg_ldg_1cta;
__global__ void __launch_bounds__(cfg_ldg_1cta::NTHR, cfg_ldg_1cta::MINB)
    gemm04_ldg_1cta(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
                    long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx,
                    long long b_sk, int b_mode, float beta, float *__restrict__ C, long long ldc,
                    int c_vec) {
    p4_ldg_kernel<cfg_ldg_1cta>(M, N, K, alpha, A, a_sx, a_sk, a_mode, B, b_sx, b_sk, b_mode, beta,
                                C, ldc, c_vec);
}
static cudaError_t launch_gemm04_ldg_1cta(const gemm_problem *p, cudaStream_t stream) {
    return p4_ldg_launch<cfg_ldg_1cta>(p, stream, gemm04_ldg_1cta);
}

typedef p4_ldg_cfg<CFG_L256_BLK_M, CFG_L256_BLK_N, CFG_L256_BLK_K, CFG_L256_WARP_M, CFG_L256_WARP_N,
                   CFG_L256_THR_M, CFG_L256_THR_N, 1, 1, 1>
    cfg_ldg_n256;
__global__ void __launch_bounds__(cfg_ldg_n256::NTHR, cfg_ldg_n256::MINB)
    gemm04_ldg_n256(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
                    long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx,
                    long long b_sk, int b_mode, float beta, float *__restrict__ C, long long ldc,
                    int c_vec) {
    p4_ldg_kernel<cfg_ldg_n256>(M, N, K, alpha, A, a_sx, a_sk, a_mode, B, b_sx, b_sk, b_mode, beta,
                                C, ldc, c_vec);
}
static cudaError_t launch_gemm04_ldg_n256(const gemm_problem *p, cudaStream_t stream) {
    return p4_ldg_launch<cfg_ldg_n256>(p, stream, gemm04_ldg_n256);
}

typedef p4_ldg_cfg<CFG_L16_BLK_M, CFG_L16_BLK_N, CFG_L16_BLK_K, CFG_L16_WARP_M, CFG_L16_WARP_N,
                   CFG_L16_THR_M, CFG_L16_THR_N, 1, 1, 1>
    cfg_ldg_k16;
__global__ void __launch_bounds__(cfg_ldg_k16::NTHR, cfg_ldg_k16::MINB)
    gemm04_ldg_k16(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
                   long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx,
                   long long b_sk, int b_mode, float beta, float *__restrict__ C, long long ldc,
                   int c_vec) {
    p4_ldg_kernel<cfg_ldg_k16>(M, N, K, alpha, A, a_sx, a_sk, a_mode, B, b_sx, b_sk, b_mode, beta,
                               C, ldc, c_vec);
}
static cudaError_t launch_gemm04_ldg_k16(const gemm_problem *p, cudaStream_t stream) {
    return p4_ldg_launch<cfg_ldg_k16>(p, stream, gemm04_ldg_k16);
}

/* 4 warps of 64x64 (128 threads, 128 accumulators each) and 2 CTAs per SM: the same 8 warps
 * per SM as the 128x256 tile, but in two independent CTAs, so one CTA's barrier waits and
 * prologue/epilogue overlap the other's FFMAs (cuBLAS's SGEMM on the H200 is built this way:
 * README section 7). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define P4_FRAG2_4W 0 /* sm_80's ptxas spills the double-buffered fragments at 255 registers */
#else
#define P4_FRAG2_4W 1
#endif
typedef p4_ldg_cfg<CFG_L4W_BLK_M, CFG_L4W_BLK_N, CFG_L4W_BLK_K, CFG_L4W_WARP_M, CFG_L4W_WARP_N,
                   CFG_L4W_THR_M, CFG_L4W_THR_N, 2, P4_FRAG2_4W, 1>
    cfg_ldg_4w;
__global__ void __launch_bounds__(cfg_ldg_4w::NTHR, cfg_ldg_4w::MINB)
    gemm04_ldg_4w(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
                  long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx,
                  long long b_sk, int b_mode, float beta, float *__restrict__ C, long long ldc,
                  int c_vec) {
    p4_ldg_kernel<cfg_ldg_4w>(M, N, K, alpha, A, a_sx, a_sk, a_mode, B, b_sx, b_sk, b_mode, beta, C,
                              ldc, c_vec);
}
static cudaError_t launch_gemm04_ldg_4w(const gemm_problem *p, cudaStream_t stream) {
    return p4_ldg_launch<cfg_ldg_4w>(p, stream, gemm04_ldg_4w);
}

/* Refusals: the grid is 1-D (grouped rasterization), limited to 2^31-1 CTAs, and offsets
 * inside an operand tile are 32-bit (P4_MAX_LD). */
static const char *check_common(const gemm_problem *p, int blk_m, int blk_n) {
    if ((long long)((p->m + blk_m - 1) / blk_m) * ((p->n + blk_n - 1) / blk_n) > 2147483647LL)
        return "too many tiles of C for one grid (limit 2^31-1 CTAs)";
    if (p->lda >= P4_MAX_LD || p->ldb >= P4_MAX_LD)
        return "lda and ldb must be below 2^22 (32-bit offsets inside a tile)";
    return NULL;
}
static const char *check_grid_128x128(const gemm_problem *p) { return check_common(p, 128, 128); }
static const char *check_grid_128x256(const gemm_problem *p) { return check_common(p, 128, 256); }

#define FP32 GEMM_DT_BIT(GEMM_FP32)
/* The first entry is the default: the fastest at 4096^3 on the H200 (README section 8).
 * The register-staged (ldg128_*) kernels handle every operand order (their x-major 16-byte
 * copy works around a ptxas miscompile: the comment in p4_ldg_tile). */
#define LDG_LAYOUTS GEMM_LAYOUT_ALL
static const gemm_variant variants[] = {
    {"ldg128_128x128x8_4w",
     "128x128x8, 4 warps of 64x64, 16x8/thread, 2 CTAs/SM, LDG.128 -> "
     "regs -> STS",
     FP32, LDG_LAYOUTS, 1, check_grid_128x128, launch_gemm04_ldg_4w},
    {"ldg128_128x256x8", "128x256x8, 64x64 warp, 16x8/thread, LDG.128 -> regs -> STS, 2 buffers",
     FP32, LDG_LAYOUTS, 1, check_grid_128x256, launch_gemm04_ldg_n256},
    {"fast", "128x128x8 CTA, 32x64 warp, 8x8/thread, 3-stage cp.async, grouped raster", FP32,
     GEMM_LAYOUT_ALL, 1, check_grid_128x128, launch_gemm04_fast},
    {"tiled_vec", "128x128x8, 8x8/thread, synchronous LDG.128 -> STS copy, 1 smem buffer", FP32,
     GEMM_LAYOUT_ALL, 1, check_grid_128x128, launch_gemm04_vec},
    {"cp_async_2stage", "128x128x8, 8x8/thread, cp.async double buffering (2 stages)", FP32,
     GEMM_LAYOUT_ALL, 1, check_grid_128x128, launch_gemm04_cp2},
    {"fast_128x128x8_s4", "as fast with a 4-stage cp.async pipeline", FP32, GEMM_LAYOUT_ALL, 1,
     check_grid_128x128, launch_gemm04_fast_s4},
    {"fast_128x128x16", "128x128x16 CTA, 32x64 warp, 8x8/thread, 3 stages", FP32, GEMM_LAYOUT_ALL,
     1, check_grid_128x128, launch_gemm04_fast_k16},
    {"ldg128_128x128x8", "128x128x8, 8x8/thread, LDG.128 -> regs -> STS, 2 buffers", FP32,
     LDG_LAYOUTS, 1, check_grid_128x128, launch_gemm04_ldg_1cta},
    {"ldg128_128x128x16", "128x128x16, 8x8/thread, LDG.128 -> regs -> STS, 2 buffers", FP32,
     LDG_LAYOUTS, 1, check_grid_128x128, launch_gemm04_ldg_k16},
};
#undef FP32

static const gemm_lesson lesson = {
    "04_copy", "Tiled copy: vectors, predication, cp.async pipeline, register blocking",
    (int)(sizeof variants / sizeof variants[0]), variants, 0};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
