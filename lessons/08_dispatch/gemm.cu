/* Lesson 08 - dispatch: persistent CTAs, CTA rasterization and a path for every problem.
 *
 * What this lesson adds to lesson 07's default kernel: it runs every problem, and keeps the
 * GPU busy from one tile to the next.
 *  1. Persistent CTAs (the default variant): one CTA per SM walks tiles blockIdx.x,
 *     +gridDim.x, ...; the cp.async pipeline runs on across tiles, so the next tile's first K
 *     tiles load while this tile's last ones are computed and its epilogue runs (own C staging
 *     blocks, 216 KiB). The loader runs STAGES-1 (tile, K tile) pairs ahead of the MMAs.
 *     The steady-state loop must carry no more live state than before: when it also carried
 *     the loader's tile switch, ptxas bunched the ldmatrix loads (fewer free registers) and
 *     the kernel lost 11% (notes/perf.md, run 16); the switch lives in the predicated loop.
 *  2. CTA rasterization: a 1-D grid whose CTAs walk RASTER_GROUP tile rows down before moving
 *     right (plan_raster), so that neighbours share their A and B panels in L2.
 *  3. The generic path: any layout (NT, NN, TT as well as TN), any leading dimension, any base
 *     offset. The fast path needs A and B K-major, lda and ldb multiples of 8 and 16-byte-
 *     aligned A and B; anything else runs the same kernel and pipeline, but each thread
 *     gathers its 8-element chunks with predicated 2-byte loads (either majorness) and stores
 *     them to the swizzled tile itself. Correct everywhere and slow; launch_cfg() chooses.
 *     The staged epilogue needs beta = 0, ldc % 8 == 0, C 16-byte aligned and a full tile;
 *     otherwise the direct one stores element pairs when ldc is even and C 4-byte aligned,
 *     single elements otherwise.
 *
 * Tile configurations (the variants; the first is the default; one that needs more smem than
 * the GPU allows is refused with the name of one that fits):
 *   128x256x64_s3_persistent  as 128x256x64_s3, one CTA per SM over all tiles, 216 KiB smem
 *   128x256x64_s3   8 warps (2 x 4), warp tile 64x64, 3 stages, 144 KiB smem, 1 CTA/SM
 *   128x128x64_s3   4 warps (2 x 2), warp tile 64x64, 3 stages,  96 KiB smem, 2 CTAs/SM
 *   128x128x32_s4   4 warps (2 x 2), warp tile 64x64, 4 stages,  64 KiB smem (Swizzle<2,3,3>)
 *
 * Every problem is accepted: fp16 and bf16, every layout, any M, N, K >= 1, any leading
 * dimension, any base offset (align = 1).
 *
 * Why templates: register arrays need compile-time sizes, the mma instruction (f16/bf16) must
 * be chosen at compile time, and the lesson wants several tile shapes from one source; in
 * plain C one would stamp the kernels out with a macro.
 *
 * Build and run:   make lesson08 && ./run
 *                  ./run --variant 128x256x64_s3_persistent,128x256x64_s3 --dtype bf16 \
 *                        --size 4096x4096x4096
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "harness.h"
#include "ptx.h"
#include "plan.h"

#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define RASTER_GROUP 8 /* CTAs walk 8 tile rows down before moving right */
/* The smem tile of one stage: rows SROW(BK) halves apart, element (row, col) at
 * SMEM_OFFSET(row, col, BK) halves, swizzled (plan.h) */
#define SROW(BK) (BK)
#define SMEM_OFFSET(row, col, BK) plan_smem_offset((row), (col), (BK), 1, 0)

/* The kernel's arguments (one struct: the launch passes it by value in constant memory). */
typedef struct kargs {
    int M, N, K;
    float alpha, beta;
    const uint16_t *A; /* (M,K): a_kmajor ? A[m*lda + k] : A[m + k*lda] */
    const uint16_t *B; /* (N,K): b_kmajor ? B[n*ldb + k] : B[n + k*ldb] */
    uint16_t *C;       /* (M,N): C[m*ldc + n] */
    long long lda, ldb, ldc;
    int a_kmajor, b_kmajor;
    int pair_ok; /* ldc even and C 4-byte aligned: store two elements at once */
    int c_vec;   /* beta == 0, ldc % 8 == 0 and C 16-byte aligned: staged 16-byte stores */
    int rows32;  /* BM rows of A and BN rows of B span < 2^31 bytes: 32-bit row offsets */
} kargs;

static __device__ __forceinline__ float elem_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
static __device__ __forceinline__ uint16_t f32_to_elem(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}
/* Two adjacent outputs (lo at the lower address) as one 4-byte word. */
static __device__ __forceinline__ uint32_t f32x2_to_pair(float lo, float hi, int bf16) {
    return (uint32_t)f32_to_elem(lo, bf16) | ((uint32_t)f32_to_elem(hi, bf16) << 16);
}

/* ---- gmem -> smem: 16-byte cp.async, zero-fill at the edges -----------------------------
 * The copy plan of one K tile, per thread: A is NA = BM*BK/8/NT copies, B is NB copies.
 * Copy i of A moves the 16-byte chunk idx = tid + i*NT of the (BM,BK) tile: row
 * row0 + i*RSTEP (RSTEP = NT/(BK/8)), the same chunk column for every i. Because RSTEP rows
 * are a multiple of the swizzle period (512 halves), the smem address of copy i is
 * this thread's copy-0 address plus a constant, and the gmem address is the copy-0 pointer
 * plus i*RSTEP rows. Per K tile, only the pointer moves (by BK), and one byte count covers
 * the K edge for all copies (same column).
 * Copies are numbered c = 0 .. NA+NB-1 (A first); the main loop spreads them over the first
 * KSTEPS-1 k-steps of a tile so that they interleave with the MMAs. */
typedef struct copy_state {
    const uint16_t *a, *b;    /* copy-0 sources at k = 0 (used only where in range) */
    long long a_step, b_step; /* RSTEP rows of A / B, in elements */
    int a_rows, b_rows;       /* rows left below this thread's copy-0 row (<= 0: none) */
    int col;                  /* this thread's chunk column (halves) */
    uint32_t a_rowb, b_rowb;  /* RSTEP rows of A / B in bytes (interior copies) */
    uint32_t sa, sb;          /* smem byte addresses of copy 0 in stage 0 */
} copy_state;

template <int BM, int BN, int BK, int NT>
static __device__ __forceinline__ void copy_range(const copy_state *cs, int lo, int hi, int st,
                                                  int kt, int K, const uint16_t *safe) {
    enum {
        RSTEP = NT / (BK / 8), NA = BM / RSTEP, NB = BN / RSTEP,
        STEP_B = 2 * RSTEP * SROW(BK), /* smem bytes between copies */
        A_STAGE_B = 2 * BM * SROW(BK), B_STAGE_B = 2 * BN * SROW(BK)
    };
    int kb = 2 * (K - kt * BK - cs->col); /* bytes of this thread's chunk inside K */
    kb = kb < 0 ? 0 : (kb > 16 ? 16 : kb);
    const uint32_t da = cs->sa + st * A_STAGE_B, db = cs->sb + st * B_STAGE_B;
    /* running source pointers, one 64-bit add per copy (an unrolled c * step per copy would
     * be hoisted out of the K loop as NA + NB live 64-bit registers) */
    const int a_lo = lo < NA ? lo : NA, b_lo = lo > NA ? lo - NA : 0;
    const uint16_t *pa = cs->a + kt * BK + a_lo * cs->a_step;
    const uint16_t *pb = cs->b + kt * BK + b_lo * cs->b_step;
#pragma unroll
    for (int c = 0; c < NA + NB; ++c) {
        if (c < lo || c >= hi) continue; /* compile-time after unrolling */
        if (c < NA) {
            const int n = c * RSTEP < cs->a_rows ? kb : 0;
            ptx_cp_async_cg16(da + c * STEP_B, n ? pa : safe, n);
            pa += cs->a_step;
        } else {
            const int i = c - NA;
            const int n = i * RSTEP < cs->b_rows ? kb : 0;
            ptx_cp_async_cg16(db + i * STEP_B, n ? pb : safe, n);
            pb += cs->b_step;
        }
    }
}

/* The same copies for a K tile that lies wholly inside A and B (no predication, no
 * zero-fill): one IMAD.WIDE + one LDGSTS per copy, the smem offsets are immediates. */
template <int BM, int BN, int BK, int NT>
static __device__ __forceinline__ void copy_range_interior(const copy_state *cs, int lo, int hi,
                                                           int st, int kt) {
    enum {
        RSTEP = NT / (BK / 8), NA = BM / RSTEP, NB = BN / RSTEP,
        STEP_B = 2 * RSTEP * SROW(BK),
        A_STAGE_B = 2 * BM * SROW(BK), B_STAGE_B = 2 * BN * SROW(BK)
    };
    const uint16_t *pa = cs->a + kt * BK, *pb = cs->b + kt * BK;
    const uint32_t da = cs->sa + st * A_STAGE_B, db = cs->sb + st * B_STAGE_B;
#pragma unroll
    for (int c = 0; c < NA + NB; ++c) {
        if (c < lo || c >= hi) continue; /* compile-time after unrolling */
        if (c < NA) ptx_cp_async_cg16_row(da + c * STEP_B, pa, cs->a_rowb, c);
        else        ptx_cp_async_cg16_row(db + (c - NA) * STEP_B, pb, cs->b_rowb, c - NA);
    }
}

/* ---- gmem -> smem, generic path: 8 predicated 2-byte loads per chunk, either majorness -- */
template <int ROWS, int BK, int NT>
static __device__ __forceinline__ void load_tile_generic(uint16_t *s, const uint16_t *X,
                                                         long long ld, int kmajor, int r0,
                                                         int rows, int k0, int K) {
    const int CPR = BK / 8;
#pragma unroll 1 /* few registers: this path is about correctness, not speed */
    for (int i = 0; i < ROWS * CPR / NT; ++i) {
        const int row = plan_copy_row(threadIdx.x, i, NT, BK);
        const int col = plan_copy_chunk(threadIdx.x, i, NT, BK) * 8;
        const int r = r0 + row;
        uint32_t w[4];
#pragma unroll
        for (int e = 0; e < 8; e += 2) {
            const int k = k0 + col + e;
            uint32_t lo = 0, hi = 0;
            if (r < rows && k < K)
                lo = kmajor ? X[(long long)r * ld + k] : X[r + (long long)k * ld];
            if (r < rows && k + 1 < K)
                hi = kmajor ? X[(long long)r * ld + k + 1] : X[r + (long long)(k + 1) * ld];
            w[e / 2] = lo | (hi << 16);
        }
        *(uint4 *)(s + SMEM_OFFSET(row, col, BK)) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* ---- the loader: which (tile, K tile) the copies issued now belong to ---------------------
 * A CTA computes the tiles blockIdx.x + t * gridDim.x, t = 0 .. end-1 (tile numbers go
 * through plan_raster). The loader runs STAGES-1 (tile, K tile) pairs ahead of the MMAs
 * through that sequence, so the first K tiles of tile t+1 are in flight while the last ones
 * of tile t are computed and while its epilogue stores C. */
typedef struct loader {
    int t, kt;  /* tile ordinal (>= end: nothing left to load) and K tile */
    int end;    /* this CTA's number of tiles (0 when K = 0: nothing to load) */
    int m0, n0; /* that tile's origin */
    int kfull;  /* its K tiles [0, kfull) need no predication */
} loader;

/* Points the loader and the per-tile part of the copy plan at tile ordinal l->t. */
template <int BM, int BN, int BK>
static __device__ __forceinline__ void loader_tile(loader *l, copy_state *cs, const kargs *p,
                                                   int crow, int tiles_m, int tiles_n) {
    int tm, tn;
    plan_raster((int)blockIdx.x + l->t * (int)gridDim.x, tiles_m, tiles_n, RASTER_GROUP, &tm, &tn);
    l->m0 = tm * BM;
    l->n0 = tn * BN;
    cs->a_rows = p->M - l->m0 - crow;
    cs->b_rows = p->N - l->n0 - crow;
    cs->a = p->A + (long long)(l->m0 + crow) * p->lda + cs->col; /* used only where in range */
    cs->b = p->B + (long long)(l->n0 + crow) * p->ldb + cs->col;
    l->kfull = p->rows32 && l->m0 + BM <= p->M && l->n0 + BN <= p->N ? p->K / BK : 0;
}

/* After the copies of one K tile: on to the next K tile, or the next tile's first. */
template <int BM, int BN, int BK>
static __device__ __forceinline__ void loader_next(loader *l, copy_state *cs, const kargs *p,
                                                   int crow, int ktiles, int tiles_m,
                                                   int tiles_n) {
    if (++l->kt == ktiles) {
        l->kt = 0;
        if (++l->t < l->end) loader_tile<BM, BN, BK>(l, cs, p, crow, tiles_m, tiles_n);
        else l->kfull = 0;
    }
}

/* Copies [lo, hi) of the loader's K tile into stage st, predicated (zero-fill at the edges);
 * GENERIC: the whole K tile gathered by the first call (lo == 0); nothing once the loader is
 * past this CTA's last tile. */
template <int BM, int BN, int BK, int NT, int STAGES, int GENERIC>
static __device__ __forceinline__ void copies(const copy_state *cs, const loader *ld,
                                              const kargs *p, uint16_t *smem, int lo, int hi,
                                              int st) {
    if (ld->t >= ld->end) return;
    if (!GENERIC) {
        copy_range<BM, BN, BK, NT>(cs, lo, hi, st, ld->kt, p->K, p->A);
    } else if (lo == 0) {
        uint16_t *sB = smem + STAGES * BM * SROW(BK);
        load_tile_generic<BM, BK, NT>(smem + st * BM * SROW(BK), p->A, p->lda, p->a_kmajor,
                                      ld->m0, p->M, ld->kt * BK, p->K);
        load_tile_generic<BN, BK, NT>(sB + st * BN * SROW(BK), p->B, p->ldb, p->b_kmajor,
                                      ld->n0, p->N, ld->kt * BK, p->K);
    }
}

/* ---- smem -> registers: ldmatrix, and the MMAs of one k-step --------------------------- */

/* A warp's ldmatrix addresses in bytes, stage 0 and k-step 0, in two parts: the block offset
 * of the warp's rows (whole rows: the swizzle leaves it alone) and the lane's offset inside
 * a 16 x 16 block, which the swizzle permutes. The swizzle looks only at offset bits below 512
 * halves (256 for BK = 32) and block offsets are multiples of 16 rows, so swizzle(block + lane
 * part) = block + swizzle(lane part); k-step kk flips only chunk bits of the lane part:
 * lane offset(kk) = lane offset(0) ^ kk*16 halves (tests/test_plans_0506.c checks both). */
typedef struct frag_addr {
    uint32_t a, b;           /* sA / sB + the warp's first row */
    uint32_t a_lane, b_lane; /* the lane's offset inside a 16 x 16 block at k-step 0 */
} frag_addr;

/* Fragments of k-step kk of stage st: ra[i] = A atom row i (ldmatrix.x4), rb[j], rb[j+1] =
 * B atoms j, j+1 (one ldmatrix.x4 for two n8 atoms). */
template <int MI, int NI, int BM, int BN, int BK>
static __device__ __forceinline__ void load_frags(uint32_t ra[MI][4], uint32_t rb[NI][2],
                                                  const frag_addr *f, int st, int kk) {
    enum { A_STAGE_B = 2 * BM * SROW(BK), B_STAGE_B = 2 * BN * SROW(BK),
           A_ATOM_B = 2 * MMA_M * SROW(BK), B_ATOM_B = 2 * MMA_N * SROW(BK) };
    const uint32_t sa = f->a + st * A_STAGE_B + (f->a_lane ^ kk * 2 * MMA_K);
    const uint32_t sb = f->b + st * B_STAGE_B + (f->b_lane ^ kk * 2 * MMA_K);
#pragma unroll
    for (int i = 0; i < MI; ++i) ptx_ldmatrix_x4(ra[i], sa + i * A_ATOM_B);
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
        uint32_t r[4];
        ptx_ldmatrix_x4(r, sb + j * B_ATOM_B);
        rb[j][0] = r[0]; rb[j][1] = r[1]; rb[j + 1][0] = r[2]; rb[j + 1][1] = r[3];
    }
}

/* The MI x NI MMAs of one k-step, in serpentine order (row i even: j up, odd: j down), so
 * the B fragment at each turn is reused at once. */
template <int BF16, int MI, int NI>
static __device__ __forceinline__ void mma_kstep(float acc[MI][NI][4], const uint32_t ra[MI][4],
                                                 const uint32_t rb[NI][2]) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int jj = 0; jj < NI; ++jj) {
            const int j = i % 2 ? NI - 1 - jj : jj;
            if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[i], rb[j]);
            else      ptx_mma_m16n8k16_f16(acc[i][j], ra[i], rb[j]);
        }
}

/* ---- one K tile ---------------------------------------------------------------------------
 * Timeline of K tile kt (KSTEPS k-steps), computed from stage *rd:
 *   kk < KSTEPS-1   issue a share (CPK) of the cp.async copies of K tile ktl = kt+STAGES-1
 *                   into stage *wr (freed by the previous K tile's barrier)
 *   kk = KSTEPS-1   commit; wait until K tile kt+1 has landed (wait_group STAGES-2);
 *                   barrier; move rd and wr on
 *   every kk        ldmatrix the fragments of k-step kk+1 (the next K tile's first when kk
 *                   is the last and `more` says one follows), then the MMAs of k-step kk
 * INTERIOR (a constant): K tile ktl lies inside A and B (unpredicated copies), and a next K
 * tile surely follows. Otherwise the copies are those of the loader's (tile, K tile):
 * predicated (GENERIC: gathered), nothing once the loader is past this CTA's last tile. */
template <int BF16, int BM, int BN, int BK, int NT, int STAGES, int MI, int NI, int GENERIC,
          int INTERIOR>
static __device__ __forceinline__ void k_tile(float acc[MI][NI][4], uint32_t ra[2][MI][4],
                                              uint32_t rb[2][NI][2], const copy_state *cs,
                                              const frag_addr *fa, int *rd, int *wr, int ktl,
                                              int more, const kargs *p, const loader *ld,
                                              uint16_t *smem) {
    enum {
        KSTEPS = BK / MMA_K,
        NCOPY = (BM + BN) / (NT / (BK / 8)),       /* 16-byte copies per thread per tile */
        /* copies issued per k-step: with 2 stages a K tile's copies have one K tile of MMAs to
         * land in, so all go out at its first k-step; with more they are spread over the
         * first KSTEPS-1 k-steps, between the MMAs */
        CPK = STAGES == 2 ? NCOPY : (NCOPY + KSTEPS - 2) / (KSTEPS - 1)
    };
#pragma unroll
    for (int kk = 0; kk < KSTEPS; ++kk) {
        if (kk == KSTEPS - 1) {
            ptx_cp_async_commit();
            PTX_CP_ASYNC_WAIT(STAGES - 2);
            __syncthreads();
            *rd = *rd + 1 == STAGES ? 0 : *rd + 1;
            *wr = *wr + 1 == STAGES ? 0 : *wr + 1;
        }
        if (kk < KSTEPS - 1 || INTERIOR || more)
            load_frags<MI, NI, BM, BN, BK>(ra[(kk + 1) % 2], rb[(kk + 1) % 2], fa, *rd,
                                           (kk + 1) % KSTEPS);
        if (kk < KSTEPS - 1) {
            if (INTERIOR)
                copy_range_interior<BM, BN, BK, NT>(cs, kk * CPK, (kk + 1) * CPK, *wr, ktl);
            else
                copies<BM, BN, BK, NT, STAGES, GENERIC>(cs, ld, p, smem, kk * CPK, (kk + 1) * CPK,
                                                        *wr);
        }
        mma_kstep<BF16, MI, NI>(acc, ra[kk % 2], rb[kk % 2]);
    }
}

/* ---- epilogue: C = alpha*acc + beta*C, straight from the MMA registers -------------------
 * acc[i][j] holds rows g, g+8 and columns 2t, 2t+1 of atom (i, j) in lane l = 4g + t
 * (plan_mma_c_*). C is read only when beta != 0; pairs are stored as one 4-byte word when
 * ldc is even and C 4-byte aligned. */
template <int BF16, int MI, int NI>
static __device__ __forceinline__ void store_c(float acc[MI][NI][4], const kargs *p, int m0,
                                               int n0, int lane) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + i * MMA_M + plan_mma_c_row(lane, 2 * h);
                const int n = n0 + j * MMA_N + plan_mma_c_col(lane, 0);
                float v0 = p->alpha * acc[i][j][2 * h], v1 = p->alpha * acc[i][j][2 * h + 1];
                acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
                if (m >= p->M || n >= p->N) continue;
                uint16_t *c = p->C + (long long)m * p->ldc + n;
                const int two = n + 1 < p->N;
                if (p->beta != 0.0f) {
                    v0 += p->beta * elem_to_f32(c[0], BF16);
                    if (two) v1 += p->beta * elem_to_f32(c[1], BF16);
                }
                if (two && p->pair_ok) {
                    *(uint32_t *)c = f32x2_to_pair(v0, v1, BF16);
                } else {
                    c[0] = f32_to_elem(v0, BF16);
                    if (two) c[1] = f32_to_elem(v1, BF16);
                }
            }
}

/* ---- epilogue through smem: whole 128-byte rows of C --------------------------------------
 * For a full tile with beta = 0. The warp writes its (WTM, WTN) block of C, scaled and
 * converted, as 4-byte pairs into its own staging block sC of (WTM, WTN + C_PAD) halves
 * (plan_cstage_offset: the pad puts the 8 rows of one store in 8 different bank groups), then
 * copies the block out in 16-byte chunks, WTN/8 lanes per row (plan_cstage_out_*): every warp
 * store writes 32/(WTN/8) rows of 2*WTN contiguous bytes. The block is the warp's alone, so
 * __syncwarp() orders its writes and reads; no CTA barrier is needed. */
template <int BF16, int MI, int NI, int WTM, int WTN>
static __device__ __forceinline__ void store_c_staged(float acc[MI][NI][4], const kargs *p,
                                                      uint16_t *sC, int m0, int n0, int lane) {
    enum { C_PAD = 8, C_CH = WTN / 8 /* 16-byte chunks per row */ };
    static_assert(32 % C_CH == 0 && (WTM * C_CH) % 32 == 0, "C staging: whole rows per pass");
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = i * MMA_M + plan_mma_c_row(lane, 2 * h);
                const int c = j * MMA_N + plan_mma_c_col(lane, 0);
                *(uint32_t *)(sC + plan_cstage_offset(r, c, WTN, C_PAD)) = f32x2_to_pair(
                    p->alpha * acc[i][j][2 * h], p->alpha * acc[i][j][2 * h + 1], BF16);
                acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
            }
    __syncwarp(); /* every lane's pairs are in smem before any lane reads a row */
    uint16_t *gC = p->C + (long long)m0 * p->ldc + n0;
#pragma unroll 4
    for (int it = 0; it < WTM * C_CH / 32; ++it) {
        const int r = plan_cstage_out_row(it, lane, WTN), c = plan_cstage_out_col(lane, WTN);
        *(uint4 *)(gC + (long long)r * p->ldc + c) =
            *(const uint4 *)(sC + plan_cstage_offset(r, c, WTN, C_PAD));
    }
    __syncwarp(); /* all reads done before the next tile's pairs overwrite the block */
}

/* ---- the kernel ----------------------------------------------------------------------------
 * A CTA computes the (BM, BN) tiles of C numbered blockIdx.x, blockIdx.x + gridDim.x, ...
 * (tile numbers go through plan_raster). With one CTA per tile (grid = tiles) that is one
 * tile; a persistent launch (grid = CTAs that fit on the GPU at once) walks several, and the
 * cp.async pipeline runs on across tile boundaries. Warp w owns the (WTM, WTN) =
 * (BM/WARPS_M, BN/WARPS_N) block (w / WARPS_N, w % WARPS_N) of each tile; acc[i][j][0..3] is
 * the C fragment of MMA atom (i, j) of that block. Dynamic smem: sA (BM,BK,STAGES),
 * sB (BN,BK,STAGES), each stage swizzled (plan_smem_offset); then (PERSIST) the warps' C
 * staging blocks, which otherwise overlay the stages after the K loop. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int PERSIST>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_dispatch(kargs p) {
    enum {
        NT = 32 * WARPS_M * WARPS_N,
        WTM = BM / WARPS_M, WTN = BN / WARPS_N,
        MI = WTM / MMA_M, NI = WTN / MMA_N, /* atoms per warp along M and N */
        KSTEPS = BK / MMA_K,
        RSTEP = NT / (BK / 8) /* rows between a thread's copies */
    };
    static_assert(NI % 2 == 0 && KSTEPS % 2 == 0, "B is loaded two atoms at a time");
    static_assert(STAGES >= 2, "the ring needs a stage to compute and one to fill");
    static_assert((16 * BK) % 256 == 0 && (NT * 8) % 512 == 0, "offsets must keep the swizzle");
    static_assert(BM % RSTEP == 0 && BN % RSTEP == 0, "copy plan must tile A and B");
    static_assert(PERSIST || NT / 32 * WTM * (WTN + 8) <= STAGES * (BM + BN) * BK,
                  "C staging must fit in the pipeline's smem");
    extern __shared__ __align__(128) uint16_t smem[];
    const uint32_t sA_u = ptx_smem_u32(smem);
    const uint32_t sB_u = ptx_smem_u32(smem + STAGES * BM * SROW(BK));

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int tiles_m = (p.M + BM - 1) / BM, tiles_n = (p.N + BN - 1) / BN;
    const int ntiles = tiles_m * tiles_n;
    const int ktiles = (p.K + BK - 1) / BK;
    /* this CTA's tiles: blockIdx.x + t * gridDim.x for t = 0 .. mine-1 */
    const int mine = (int)blockIdx.x < ntiles ? (ntiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1 : 0;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    frag_addr fa;
    fa.a = sA_u + 2 * (wm * WTM) * SROW(BK);
    fa.b = sB_u + 2 * (wn * WTN) * SROW(BK);
    fa.a_lane = 2 * SMEM_OFFSET(plan_ldsm_a_row(lane), 8 * plan_ldsm_a_chunk(lane), BK);
    fa.b_lane = 2 * SMEM_OFFSET(plan_ldsm_b_row(lane), 8 * plan_ldsm_b_chunk(lane), BK);
    uint32_t ra[2][MI][4], rb[2][NI][2]; /* fragments, double-buffered over k-steps */

    /* this thread's copy plan (see copy_range); the tile-independent part */
    copy_state cs;
    const int crow = plan_copy_row(threadIdx.x, 0, NT, BK); /* this thread's copy-0 row */
    cs.col = plan_copy_chunk(threadIdx.x, 0, NT, BK) * 8;
    cs.a_step = (long long)RSTEP * p.lda;
    cs.b_step = (long long)RSTEP * p.ldb;
    cs.a_rowb = (uint32_t)(2 * cs.a_step);
    cs.b_rowb = (uint32_t)(2 * cs.b_step);
    cs.sa = sA_u + 2 * SMEM_OFFSET(crow, cs.col, BK);
    cs.sb = sB_u + 2 * SMEM_OFFSET(crow, cs.col, BK);
    loader ld = {0, 0, ktiles > 0 ? mine : 0, 0, 0, 0};
    if (ld.end > 0) loader_tile<BM, BN, BK>(&ld, &cs, &p, crow, tiles_m, tiles_n);

    /* prologue: the first STAGES-1 K tiles in flight, wait for the first, its fragments */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        copies<BM, BN, BK, NT, STAGES, GENERIC>(&cs, &ld, &p, smem, 0, BM / RSTEP + BN / RSTEP, st);
        ptx_cp_async_commit();
        loader_next<BM, BN, BK>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n);
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the copies fill next */
    if (ld.end > 0) load_frags<MI, NI, BM, BN, BK>(ra[0], rb[0], &fa, 0, 0);

    for (int t = 0; t < mine; ++t) {
        /* The steady state: while the K tile being copied lies inside A and B its copies need
         * no predication (INTERIOR = 1; then a next K tile to compute surely exists too). At
         * the start of a tile with more than STAGES-1 K tiles the loader is at its K tile
         * STAGES-1 and it stays inside the tile, STAGES-1 ahead of kt, so this loop carries
         * no loader state but kt (few live registers: ptxas then spreads the ldmatrix loads
         * evenly between the MMAs). The last K tiles, the ones of an edge tile, and the loads
         * of the next tile's first K tiles take the predicated copies in the second loop. */
        int kt = 0;
        if (!GENERIC && ld.kt == STAGES - 1) {
            for (; kt + STAGES - 1 < ld.kfull; ++kt)
                k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, GENERIC, 1>(
                    acc, ra, rb, &cs, &fa, &rd, &wr, kt + STAGES - 1, 1, &p, &ld, smem);
            if (kt > 0) { /* the loader's position after the loop */
                ld.kt = kt + STAGES - 2;
                loader_next<BM, BN, BK>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n);
            }
        }
        for (; kt < ktiles; ++kt) {
            const int more = kt + 1 < ktiles || t + 1 < mine; /* another K tile follows */
            k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, GENERIC, 0>(
                acc, ra, rb, &cs, &fa, &rd, &wr, ld.kt, more, &p, &ld, smem);
            loader_next<BM, BN, BK>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n);
        }

        /* epilogue of tile t (zeroes acc for the next one) */
        int tm, tn;
        plan_raster((int)blockIdx.x + t * (int)gridDim.x, tiles_m, tiles_n, RASTER_GROUP, &tm, &tn);
        const int m0 = tm * BM, n0 = tn * BN;
        if (p.c_vec && m0 + BM <= p.M && n0 + BN <= p.N) { /* uniform over the CTA */
            if (!PERSIST) {
                /* the staging blocks overlay the pipeline stages: no copy may still be in
                 * flight and every warp must be done with its ldmatrix reads */
                ptx_cp_async_wait_all();
                __syncthreads();
            }
            uint16_t *sC = smem + (PERSIST ? STAGES * (BM + BN) * SROW(BK) : 0) + warp * WTM * (WTN + 8);
            store_c_staged<BF16, MI, NI, WTM, WTN>(acc, &p, sC, m0 + wm * WTM, n0 + wn * WTN, lane);
        } else {
            store_c<BF16, MI, NI>(acc, &p, m0 + wm * WTM, n0 + wn * WTN, lane);
        }
    }
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */
}

/* Dynamic smem of one CTA in bytes: STAGES x (BM + BN) rows of the smem tile, plus
 * (persistent) one C staging block of (WTM, WTN + 8) halves per warp. */
static size_t smem_bytes(int bm, int bn, int bk, int warps_m, int warps_n, int stages,
                         int persist) {
    const size_t stages_b = (size_t)stages * (bm + bn) * SROW(bk) * 2;
    return stages_b + (persist ? (size_t)warps_m * warps_n * (bm / warps_m) * (bn / warps_n + 8) * 2 : 0);
}

/* Sets the dynamic smem limit and launches one instantiation on a 1-D grid: one CTA per tile,
 * or (PERSIST) as many CTAs as fit on the GPU at once, never more than there are tiles.
 * Returns the first CUDA error. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int PERSIST>
static cudaError_t launch_one(const kargs *a, cudaStream_t s) {
    const int threads = 32 * WARPS_M * WARPS_N;
    const size_t smem = smem_bytes(BM, BN, BK, WARPS_M, WARPS_N, STAGES, PERSIST);
    void (*kernel)(kargs) =
        gemm_dispatch<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, PERSIST>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    long long grid = (long long)((a->M + BM - 1) / BM) * ((a->N + BN - 1) / BN);
    if (PERSIST) {
        /* CTAs that fit on the device at once, asked once per device (not on every launch) */
        static int cap_dev = -1;
        static long long cap = 0;
        int dev, sms, per_sm;
        if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
        if (dev != cap_dev) {
            if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) !=
                    cudaSuccess ||
                (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                                   smem)) != cudaSuccess)
                return e;
            if (per_sm < 1) per_sm = 1; /* the launch then reports why it cannot run */
            cap = (long long)sms * per_sm;
            cap_dev = dev;
        }
        if (cap < grid) grid = cap;
    }
    if (grid == 0) grid = 1; /* M or N is 0: one CTA that has no tile */
    kernel<<<dim3((unsigned)grid), dim3(threads), smem, s>>>(*a);
    return cudaGetLastError();
}

/* Fast path when every cp.async can move 16 aligned bytes, generic path otherwise. */
static int fast_path_ok(const gemm_problem *p) {
    return p->a_kmajor && p->b_kmajor && p->lda % 8 == 0 && p->ldb % 8 == 0 &&
           ((uintptr_t)p->A & 15) == 0 && ((uintptr_t)p->B & 15) == 0;
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int PERSIST>
static cudaError_t launch_cfg(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = (uint16_t *)p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.a_kmajor = p->a_kmajor; a.b_kmajor = p->b_kmajor;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    a.c_vec = p->beta == 0.0f && p->ldc % 8 == 0 && ((uintptr_t)p->C & 15) == 0;
    a.rows32 = (long long)BM * p->lda * 2 < (1LL << 31) && (long long)BN * p->ldb * 2 < (1LL << 31);
    const int bf16 = p->dtype == GEMM_BF16, fast = fast_path_ok(p);
    if (bf16)
        return fast ? launch_one<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, PERSIST>(&a, s)
                    : launch_one<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 1, PERSIST>(&a, s);
    return fast ? launch_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, PERSIST>(&a, s)
                : launch_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 1, PERSIST>(&a, s);
}

static cudaError_t launch_128x256x64_s3_persistent(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 256, 64, 2, 4, 3, 1>(p, s);
}
static cudaError_t launch_128x256x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 256, 64, 2, 4, 3, 0>(p, s);
}
static cudaError_t launch_128x128x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 128, 64, 2, 2, 3, 0>(p, s);
}
static cudaError_t launch_128x128x32_s4(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 128, 32, 2, 2, 4, 0>(p, s);
}

/* every variant's dynamic smem (the one table of it; its configurations are those of the
 * launch_* functions above), largest first */
static const struct { const char *name; size_t smem; } by_smem[] = {
    {"128x256x64_s3_persistent", smem_bytes(128, 256, 64, 2, 4, 3, 1)}, /* 221,184 B */
    {"128x256x64_s3", smem_bytes(128, 256, 64, 2, 4, 3, 0)},            /* 147,456 B */
    {"128x128x64_s3", smem_bytes(128, 128, 64, 2, 2, 3, 0)},            /*  98,304 B */
    {"128x128x32_s4", smem_bytes(128, 128, 32, 2, 2, 4, 0)}};           /*  65,536 B */

/* The 1-D grid holds at most 2^31 - 1 CTAs; tile indices must fit an int. A variant whose CTA
 * needs more shared memory than this GPU gives one block (cudaDevAttrMaxSharedMemoryPerBlockOptin:
 * 227 KiB on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89; CUDA C++ Programming Guide,
 * "Features and Technical Specifications") is refused before launch, naming the largest
 * variant that fits. Without a usable device the query fails and the harness reports that. */
static const char *check_variant(const gemm_problem *p, const char *name) {
    static char why[160];
    int dev, optin;
    size_t smem = 0;
    for (size_t i = 0; i < sizeof by_smem / sizeof by_smem[0]; ++i)
        if (strcmp(by_smem[i].name, name) == 0) smem = by_smem[i].smem;
    if ((long long)((p->m + 127) / 128) * ((p->n + 127) / 128) > 2147483647LL)
        return "M*N too large: more than 2^31-1 CTA tiles";
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) ==
            cudaSuccess &&
        (size_t)optin < smem) {
        const char *fits = NULL;
        for (size_t i = 0; i < sizeof by_smem / sizeof by_smem[0] && !fits; ++i)
            if (by_smem[i].smem <= (size_t)optin) fits = by_smem[i].name;
        snprintf(why, sizeof why, "needs %zu KiB of shared memory per CTA, this GPU allows %d KiB%s%s",
                 smem / 1024, optin / 1024, fits ? "; try --variant " : "", fits ? fits : "");
        return why;
    }
    return NULL;
}
#define CHECK(name) \
    static const char *check_##name(const gemm_problem *p) { return check_variant(p, #name); }
CHECK(128x256x64_s3_persistent)
CHECK(128x256x64_s3)
CHECK(128x128x64_s3)
CHECK(128x128x32_s4)
#undef CHECK

#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
#define V(name, sum) {#name, sum, DT_HALVES, GEMM_LAYOUT_ALL, 1, check_##name, launch_##name}

static const gemm_variant variants[] = {
    V(128x256x64_s3_persistent, "128x256x64_s3 with one CTA per SM walking tiles: the pipeline "
                                "runs on across tiles; 216 KiB smem (C staging of its own)"),
    V(128x256x64_s3, "lesson 07's 128x256x64_s3 on a rasterized 1-D grid, any layout/alignment"),
    V(128x128x64_s3, "lesson 07's 128x128x64_s3 on a rasterized 1-D grid, any layout/alignment"),
    V(128x128x32_s4, "lesson 07's 128x128x32_s4 on a rasterized 1-D grid, any layout/alignment"),
};

static const gemm_lesson lesson = {"08_dispatch", "Persistent CTAs, rasterization, every problem",
                                   (int)(sizeof variants / sizeof variants[0]), variants,
                                   GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
