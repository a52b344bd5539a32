/* Lesson 06 - swizzled shared memory and a multi-stage cp.async pipeline.
 *
 * What this lesson adds to lesson 05's default kernel, and nothing else:
 *  1. Swizzled smem instead of padded rows. The 8 rows one ldmatrix phase reads are BK halves
 *     apart; with BK = 64 (128-byte rows) all 8 start on the same banks (8-way conflict).
 *     Lesson 05 padded every row by 16 bytes; here the tile is composed with a swizzle: the
 *     16-byte chunk index inside a row is XORed with row bits (Swizzle<3,3,3> for BK = 64,
 *     Swizzle<2,3,3> for BK = 32, on offsets counted in halves; see plan.h). Both the 16-byte
 *     cp.async stores and the ldmatrix reads are conflict-free, and no smem is wasted.
 *  2. STAGES >= 3 K tiles in flight instead of 2: the copies of K tile kt + STAGES - 1 are
 *     issued while tile kt is computed, so a copy has STAGES - 1 K tiles of MMAs to land in,
 *     and the K tile itself can be short (BK = 64: 144 KiB for 3 stages of 128 x 256).
 * Everything else is lesson 05's default: the warp tile (64 x 64) and MMA atom, the 2-D grid
 * of one CTA per C tile, one barrier per K tile, fragments double-buffered across k-steps,
 * copies issued between the MMAs, unpredicated copies while the K tile lies inside A and B,
 * and the epilogue straight from the MMA registers.
 *
 * Tile configurations (the variants; the first is the default):
 *   128x256x64_s3   8 warps (2 x 4), warp tile 64x64, 3 stages, 144 KiB smem, 1 CTA/SM
 *   128x128x64_s3   4 warps (2 x 2), warp tile 64x64, 3 stages,  96 KiB smem, 2 CTAs/SM
 *   128x128x32_s4   4 warps (2 x 2), warp tile 64x64, 4 stages,  64 KiB smem (Swizzle<2,3,3>)
 *
 * Limits (refused before launch with one line, never a wrong answer): layout TN only (A and B
 * K-major); lda, ldb, ldc and the A/B/C base pointers multiples of 8 elements (16 bytes: every
 * cp.async moves 16 aligned bytes); M <= 8388480 (grid.y); a variant whose smem is more than
 * the GPU allows names one that fits. Lesson 08 takes every layout, alignment and size. Any
 * M, N, K >= 1 works: edge tiles are zero-filled through cp.async's src-size operand.
 *
 * Why templates: register arrays need compile-time sizes, the mma instruction (f16/bf16) must
 * be chosen at compile time, and the lesson wants several tile shapes from one source; in
 * plain C one would stamp the kernels out with a macro.
 *
 * Build and run:   make lesson06 && ./run
 *                  ./run --variant 128x256x64_s3 --dtype fp16 --size 4096x4096x4096
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
/* The smem tile of one stage: rows SROW(BK) halves apart, element (row, col) at
 * SMEM_OFFSET(row, col, BK) halves, swizzled (plan.h) */
#define SROW(BK) (BK)
#define SMEM_OFFSET(row, col, BK) plan_smem_offset((row), (col), (BK), 1, 0)

/* The kernel's arguments (one struct: the launch passes it by value in constant memory). */
typedef struct kargs {
    int M, N, K;
    float alpha, beta;
    const uint16_t *A; /* (M,K) K-major: A[m*lda + k] */
    const uint16_t *B; /* (N,K) K-major: B[n*ldb + k] */
    uint16_t *C;       /* (M,N): C[m*ldc + n] */
    long long lda, ldb, ldc;
    int pair_ok; /* ldc even and C 4-byte aligned: store two elements at once */
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
 * tile surely follows. Otherwise the copies are predicated and skipped past the end of K. */
template <int BF16, int BM, int BN, int BK, int NT, int STAGES, int MI, int NI, int INTERIOR>
static __device__ __forceinline__ void k_tile(float acc[MI][NI][4], uint32_t ra[2][MI][4],
                                              uint32_t rb[2][NI][2], const copy_state *cs,
                                              const frag_addr *fa, int *rd, int *wr, int ktl,
                                              int more, const kargs *p) {
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
            else if (ktl * BK < p->K)
                copy_range<BM, BN, BK, NT>(cs, kk * CPK, (kk + 1) * CPK, *wr, ktl, p->K, p->A);
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

/* ---- the kernel ----------------------------------------------------------------------------
 * One CTA per (BM, BN) tile of C at (blockIdx.y, blockIdx.x). Warp w owns the (WTM, WTN) =
 * (BM/WARPS_M, BN/WARPS_N) block (w / WARPS_N, w % WARPS_N) of it; acc[i][j][0..3] is the C
 * fragment of MMA atom (i, j) of that block. Dynamic smem: sA (BM,BK,STAGES), sB (BN,BK,STAGES),
 * each stage swizzled (plan_smem_offset). */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_swizzle(kargs p) {
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
    extern __shared__ __align__(128) uint16_t smem[];
    const uint32_t sA_u = ptx_smem_u32(smem);
    const uint32_t sB_u = ptx_smem_u32(smem + STAGES * BM * SROW(BK));

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int ktiles = (p.K + BK - 1) / BK;

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

    /* this thread's copy plan (see copy_range) */
    copy_state cs;
    const int crow = plan_copy_row(threadIdx.x, 0, NT, BK); /* this thread's copy-0 row */
    cs.col = plan_copy_chunk(threadIdx.x, 0, NT, BK) * 8;
    cs.a_step = (long long)RSTEP * p.lda;
    cs.b_step = (long long)RSTEP * p.ldb;
    cs.a_rowb = (uint32_t)(2 * cs.a_step);
    cs.b_rowb = (uint32_t)(2 * cs.b_step);
    cs.sa = sA_u + 2 * SMEM_OFFSET(crow, cs.col, BK);
    cs.sb = sB_u + 2 * SMEM_OFFSET(crow, cs.col, BK);
    cs.a_rows = p.M - m0 - crow;
    cs.b_rows = p.N - n0 - crow;
    cs.a = p.A + (long long)(m0 + crow) * p.lda + cs.col;
    cs.b = p.B + (long long)(n0 + crow) * p.ldb + cs.col;
    /* K tiles [0, kfull) lie inside A and B (and their row offsets fit 32 bits) */
    const int kfull = p.rows32 && m0 + BM <= p.M && n0 + BN <= p.N ? p.K / BK : 0;

    /* prologue: the first STAGES-1 K tiles in flight, wait for the first, its fragments */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles) copy_range<BM, BN, BK, NT>(&cs, 0, BM / RSTEP + BN / RSTEP, st, st, p.K, p.A);
        ptx_cp_async_commit();
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the copies fill next */
    if (ktiles > 0) load_frags<MI, NI, BM, BN, BK>(ra[0], rb[0], &fa, 0, 0);

    /* The steady state: while the K tile being copied (kt + STAGES - 1) lies inside A and B,
     * its copies need no predicates and a next K tile surely follows. This loop must carry no
     * more live state than kt (few live registers: ptxas then spreads the ldmatrix loads
     * evenly between the MMAs; notes/perf.md, run 16). The last STAGES-1 K tiles, and every K
     * tile of an edge CTA, take the predicated copies in the second loop. */
    int kt = 0;
    const int kt_interior = kfull - (STAGES - 1); /* K tiles of the steady state */
    for (; kt < kt_interior; ++kt)
        k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, 1>(acc, ra, rb, &cs, &fa, &rd, &wr,
                                                        kt + STAGES - 1, 1, &p);
    for (; kt < ktiles; ++kt)
        k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, 0>(acc, ra, rb, &cs, &fa, &rd, &wr,
                                                        kt + STAGES - 1, kt + 1 < ktiles, &p);
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */

    store_c<BF16, MI, NI>(acc, &p, m0 + wm * WTM, n0 + wn * WTN, lane);
}

/* Dynamic smem of one CTA in bytes: STAGES x (BM + BN) rows of the smem tile. */
static size_t smem_bytes(int bm, int bn, int bk, int stages) {
    return (size_t)stages * (bm + bn) * SROW(bk) * 2;
}

/* Sets the dynamic smem limit and launches one instantiation, one CTA per tile of C (grid
 * (ceil(N/BN), ceil(M/BM))). Returns the first CUDA error. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_one(const kargs *a, cudaStream_t s) {
    const size_t smem = smem_bytes(BM, BN, BK, STAGES);
    void (*kernel)(kargs) = gemm_swizzle<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a->N + BN - 1) / BN), (unsigned)((a->M + BM - 1) / BM));
    kernel<<<grid, dim3(32 * WARPS_M * WARPS_N), smem, s>>>(*a);
    return cudaGetLastError();
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_cfg(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = (uint16_t *)p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    a.rows32 = (long long)BM * p->lda * 2 < (1LL << 31) && (long long)BN * p->ldb * 2 < (1LL << 31);
    return p->dtype == GEMM_BF16 ? launch_one<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, s)
                                 : launch_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, s);
}

static cudaError_t launch_128x256x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 256, 64, 2, 4, 3>(p, s);
}
static cudaError_t launch_128x128x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 128, 64, 2, 2, 3>(p, s);
}
static cudaError_t launch_128x128x32_s4(const gemm_problem *p, cudaStream_t s) {
    return launch_cfg<128, 128, 32, 2, 2, 4>(p, s);
}

/* every variant's dynamic smem (the one table of it; its configurations are those of the
 * launch_* functions above), largest first */
static const struct { const char *name; size_t smem; } by_smem[] = {
    {"128x256x64_s3", smem_bytes(128, 256, 64, 3)},  /* 147,456 B */
    {"128x128x64_s3", smem_bytes(128, 128, 64, 3)},  /*  98,304 B */
    {"128x128x32_s4", smem_bytes(128, 128, 32, 4)}}; /*  65,536 B */

/* Beyond the harness's own checks (dtype, align = 8). A variant whose CTA needs more shared
 * memory than this GPU gives one block (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on
 * sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89; CUDA C++ Programming Guide, "Features and
 * Technical Specifications") is refused before launch, naming the largest variant that fits.
 * Without a usable device the query fails and the harness reports that. */
static const char *check_variant(const gemm_problem *p, const char *name) {
    static char why[160];
    int dev, optin;
    size_t smem = 0;
    for (size_t i = 0; i < sizeof by_smem / sizeof by_smem[0]; ++i)
        if (strcmp(by_smem[i].name, name) == 0) smem = by_smem[i].smem;
    if (!p->a_kmajor || !p->b_kmajor)
        return "needs A and B K-major (layout TN); lesson 08 takes every layout";
    if ((p->m + 127) / 128 > 65535)
        return "M must be at most 8388480 (grid.y holds 65535 tiles of 128 rows); lesson 08 "
               "takes any M";
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
CHECK(128x256x64_s3)
CHECK(128x128x64_s3)
CHECK(128x128x32_s4)
#undef CHECK

#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
#define V(name, sum) {#name, sum, DT_HALVES, GEMM_LAYOUT_ALL, 8, check_##name, launch_##name}

static const gemm_variant variants[] = {
    V(128x256x64_s3, "8 warps (2x4) of 64x64, 3-stage cp.async, Swizzle<3,3,3>, 144 KiB smem"),
    V(128x128x64_s3, "4 warps (2x2) of 64x64, 3-stage cp.async, Swizzle<3,3,3>, 96 KiB smem"),
    V(128x128x32_s4, "4 warps (2x2) of 64x64, 4-stage cp.async, Swizzle<2,3,3>, 64 KiB smem"),
};

static const gemm_lesson lesson = {"06_swizzle", "Swizzled smem + multi-stage cp.async pipeline",
                                   (int)(sizeof variants / sizeof variants[0]), variants,
                                   GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
