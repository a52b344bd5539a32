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
 * The copy plan of one K tile, per thread (plan_copy): A is na = reps(BM, BK) copies, B is nb.
 * Copy i of A moves the 16-byte chunk of repeat i of the copy tile: row row0 + i*RSTEP
 * (RSTEP = the copy tile's rows), the same chunk column for every i. Because RSTEP rows are
 * a multiple of the swizzle's 8 rows, the smem address of copy i is this thread's copy-0
 * address plus plan_smem_rows(i*RSTEP), a constant, and the gmem address is the copy-0
 * pointer plus i*RSTEP rows. Per K tile, only the pointer moves (by BK), and one byte count
 * covers the K edge for all copies (same column).
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

/* The constants of the kernel's addressing, read once off the layouts of plan.h (the kernel
 * computes them at its start and passes them down; they fold to immediates). The K tile's
 * copy count NCOPY is an enum of the template parameters instead (it sets how the copies are
 * spread over the k-steps, a count the compiler must see before it unrolls);
 * tests/test_plans_*.c check that it equals na + nb. */
typedef struct tile_consts {
    int na, nb;                    /* 16-byte copies of A and of B per thread and K tile */
    int rstep;                     /* rows between a thread's copies */
    uint32_t step_b;               /* smem bytes between them */
    uint32_t a_stage_b, b_stage_b; /* smem bytes of one stage of sA / sB */
    uint32_t a_atom_b, b_atom_b;   /* smem bytes of an A atom's 16 rows / a B atom's 8 rows */
    uint32_t kstep_b;              /* what a k-step moves a lane's ldmatrix address by */
} tile_consts;
template <int BM, int BN, int BK, int NT>
static __device__ __forceinline__ tile_consts tile_plan(void) {
    const lay_tiled_copy cp = plan_copy(NT, BK);
    tile_consts c;
    c.na = lay_tiled_copy_reps(cp, BM, BK);
    c.nb = lay_tiled_copy_reps(cp, BN, BK);
    c.rstep = lay_tiled_copy_tile_m(cp);
    c.step_b = 2 * plan_smem_rows(c.rstep, BK);
    c.a_stage_b = 2 * plan_smem_stage(BM, BK);
    c.b_stage_b = 2 * plan_smem_stage(BN, BK);
    c.a_atom_b = 2 * plan_smem_rows(MMA_M, BK);
    c.b_atom_b = 2 * plan_smem_rows(MMA_N, BK);
    c.kstep_b = plan_smem_kstep_b(MMA_K, BK);
    return c;
}

/* The predicated copies lo..hi-1 of K tile kt into stage st (edge tiles, and the last K
 * tile): kb bytes of each chunk lie inside K (the same for all: one chunk column), rows
 * outside A/B get 0 bytes from `safe`. KTAIL = 1 (the kernel for K % 8 != 0): a chunk that
 * ends its row partly (0 < kb < 16) goes through ptx_copy16_zfill's register path. With
 * K % 8 == 0 a chunk is whole or empty, so KTAIL = 0 keeps every copy one cp.async (a
 * separate instantiation: the register path's code alone, never run there, changes how
 * ptxas allocates the main loop; lesson 05 README, notes/perf.md run 11-3). */
template <int BM, int BN, int BK, int NT, int KTAIL>
static __device__ __forceinline__ void copy_range(const copy_state *cs, const tile_consts *tc,
                                                  int lo, int hi, int st, int kt, int K,
                                                  const uint16_t *safe) {
    const lay_tiled_copy cp = plan_copy(NT, BK); /* the copy counts, for the unrolled loop */
    const int NA = lay_tiled_copy_reps(cp, BM, BK), NB = lay_tiled_copy_reps(cp, BN, BK);
    const int RSTEP = tc->rstep;
    const uint32_t STEP_B = tc->step_b, A_STAGE_B = tc->a_stage_b, B_STAGE_B = tc->b_stage_b;
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
            if (KTAIL) ptx_copy16_zfill(da + c * STEP_B, n ? pa : safe, n);
            else       ptx_cp_async_cg16(da + c * STEP_B, n ? pa : safe, n);
            pa += cs->a_step;
        } else {
            const int i = c - NA;
            const int n = i * RSTEP < cs->b_rows ? kb : 0;
            if (KTAIL) ptx_copy16_zfill(db + i * STEP_B, n ? pb : safe, n);
            else       ptx_cp_async_cg16(db + i * STEP_B, n ? pb : safe, n);
            pb += cs->b_step;
        }
    }
}

/* The same copies for a K tile that lies wholly inside A and B (no predication, no
 * zero-fill): one IMAD.WIDE + one LDGSTS per copy, the smem offsets are immediates. */
template <int BM, int BN, int BK, int NT>
static __device__ __forceinline__ void copy_range_interior(const copy_state *cs,
                                                           const tile_consts *tc, int lo, int hi,
                                                           int st, int kt) {
    const lay_tiled_copy cp = plan_copy(NT, BK);
    const int NA = lay_tiled_copy_reps(cp, BM, BK), NB = lay_tiled_copy_reps(cp, BN, BK);
    const uint32_t STEP_B = tc->step_b, A_STAGE_B = tc->a_stage_b, B_STAGE_B = tc->b_stage_b;
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

/* A thread's ldmatrix row addresses. The q-th load of its A fragment reads the row at (m, k) =
 * lay_tiled_ldmatrix_a_crd(&mma, 4, 0, tid, q) of sA, q = i + MI*kk for atom row i and k-step
 * kk (B: q = j/2 + (NI/2)*kk, atoms j and j+1). The kernel evaluates the layouts at q = 0
 * only; the other loads follow from two properties of the smem tile (plan.h, checked over
 * every thread and q by tests/test_plans_06.c): atom i is i*a_atom_b bytes further on (whole
 * rows: plan_smem_rows), and k-step kk moves the lane's offset by plan_smem_kstep (an XOR of
 * chunk bits). */
typedef struct frag_addr {
    uint32_t a, b;     /* smem byte addresses of sA / sB, stage 0 */
    uint32_t a_0, b_0; /* byte offsets of this thread's rows for q = 0 */
} frag_addr;

/* Fragments of k-step kk of stage st: ra[i] = A atom row i (ldmatrix.x4), rb[j], rb[j+1] =
 * B atoms j, j+1 (one ldmatrix.x4 for two n8 atoms: registers b0b1, b2b3 of atom j, then of
 * atom j+1, the colex value order of lay_tiled_mma_b_crd). */
template <int MI, int NI>
static __device__ __forceinline__ void load_frags(uint32_t ra[MI][4], uint32_t rb[NI][2],
                                                  const frag_addr *f, const tile_consts *tc,
                                                  int st, int kk) {
    const uint32_t sa = f->a + st * tc->a_stage_b + plan_smem_kstep(f->a_0, kk, tc->kstep_b);
    const uint32_t sb = f->b + st * tc->b_stage_b + plan_smem_kstep(f->b_0, kk, tc->kstep_b);
#pragma unroll
    for (int i = 0; i < MI; ++i) ptx_ldmatrix_x4(ra[i], sa + i * tc->a_atom_b);
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
        uint32_t r[4];
        ptx_ldmatrix_x4(r, sb + j * tc->b_atom_b);
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
template <int BF16, int BM, int BN, int BK, int NT, int STAGES, int MI, int NI, int INTERIOR,
          int KTAIL>
static __device__ __forceinline__ void k_tile(float acc[MI][NI][4], uint32_t ra[2][MI][4],
                                              uint32_t rb[2][NI][2], const copy_state *cs,
                                              const frag_addr *fa, const tile_consts *tc,
                                              int *rd, int *wr, int ktl, int more,
                                              const kargs *p) {
    enum {
        KSTEPS = BK / MMA_K,
        NCOPY = (BM + BN) * BK / 8 / NT, /* 16-byte copies per thread per K tile: tc->na + tc->nb */
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
            load_frags<MI, NI>(ra[(kk + 1) % 2], rb[(kk + 1) % 2], fa, tc, *rd,
                               (kk + 1) % KSTEPS);
        if (kk < KSTEPS - 1) {
            if (INTERIOR)
                copy_range_interior<BM, BN, BK, NT>(cs, tc, kk * CPK, (kk + 1) * CPK, *wr, ktl);
            else if (ktl * BK < p->K)
                copy_range<BM, BN, BK, NT, KTAIL>(cs, tc, kk * CPK, (kk + 1) * CPK, *wr, ktl, p->K,
                                           p->A);
        }
        mma_kstep<BF16, MI, NI>(acc, ra[kk % 2], rb[kk % 2]);
    }
}

/* ---- epilogue: C = alpha*acc + beta*C, straight from the MMA registers -------------------
 * acc[i][j][c] is accumulator value v = c + 4*(i + MI*j) of the tiled MMA, at (m, n) =
 * lay_tiled_mma_c_crd(&mma, tid, v) of the CTA tile at (m0, n0). The kernel evaluates the layout
 * for c = 0 and 2 of atom (0, 0) only: atom (i, j) of a warp tile sits (i*atom.m, j*atom.n)
 * further on (the tiled MMA's definition), and c1, c3 are the columns right of c0, c2 (the
 * atom's C layout; tests/plans_tc.h checks both). C is read only when beta != 0; pairs are
 * stored as one 4-byte word when ldc is even and C 4-byte aligned. mC = (M,N):(ldc,1). */
template <int BF16, int MI, int NI>
static __device__ __forceinline__ void store_c(float acc[MI][NI][4], const kargs *p,
                                               lay_tiled_mma mma, int m0, int n0) {
    const lay_layout mC = lay_l2(p->M, p->N, (int)p->ldc, 1);
    int mh[2], nh[2]; /* c0 and c2 of atom (0, 0) */
    lay_tiled_mma_c_crd(&mma, threadIdx.x, 0, &mh[0], &nh[0]);
    lay_tiled_mma_c_crd(&mma, threadIdx.x, 2, &mh[1], &nh[1]);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + mh[h] + i * mma.atom.m;
                const int n = n0 + nh[h] + j * mma.atom.n;
                float v0 = p->alpha * acc[i][j][2 * h], v1 = p->alpha * acc[i][j][2 * h + 1];
                if (m >= p->M || n >= p->N) continue;
                uint16_t *c = p->C + lay_crd2idx2(mC, m, n);
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
 * each stage swizzled (plan_smem). */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KTAIL>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_swizzle(kargs p) {
    enum {
        NT = 32 * WARPS_M * WARPS_N,
        WTM = BM / WARPS_M, WTN = BN / WARPS_N,
        MI = WTM / MMA_M, NI = WTN / MMA_N, /* atoms per warp along M and N */
        KSTEPS = BK / MMA_K
    };
    static_assert(NI % 2 == 0 && KSTEPS % 2 == 0, "B is loaded two atoms at a time");
    static_assert(STAGES >= 2, "the ring needs a stage to compute and one to fill");
    static_assert((16 * BK) % 256 == 0 && (NT * 8) % 512 == 0, "offsets must keep the swizzle");
    static_assert(BM % (NT / (BK / 8)) == 0 && BN % (NT / (BK / 8)) == 0,
                  "plan_copy's copy tile must tile A and B");
    extern __shared__ __align__(128) uint16_t smem[];
    const uint32_t sA_u = ptx_smem_u32(smem);
    const uint32_t sB_u = ptx_smem_u32(smem + STAGES * plan_smem_stage(BM, BK));
    const lay_tiled_mma mma = plan_mma(WARPS_M, WARPS_N, BM, BN, BK);
    const tile_consts tc = tile_plan<BM, BN, BK, NT>();

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int ktiles = (p.K + BK - 1) / BK;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    frag_addr fa; /* the rows this thread supplies for its first A and B loads (q = 0) */
    {
        int m, n, k;
        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, threadIdx.x, 0, &m, &k);
        fa.a_0 = 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BM, BK), m, k);
        lay_tiled_ldmatrix_b_crd(&mma, 4, 0, threadIdx.x, 0, &n, &k);
        fa.b_0 = 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BN, BK), n, k);
        fa.a = sA_u;
        fa.b = sB_u;
    }
    uint32_t ra[2][MI][4], rb[2][NI][2]; /* fragments, double-buffered over k-steps */

    /* this thread's copy plan (see copy_range): its copy 0 at (crow, col) of the tile */
    copy_state cs;
    int crow;
    lay_tiled_copy_crd(plan_copy(NT, BK), BM, BK, threadIdx.x, 0, 0, &crow, &cs.col);
    {
        const lay_layout mA = lay_l2(p.M, p.K, (int)p.lda, 1); /* (M,K):(lda,1) */
        const lay_layout mB = lay_l2(p.N, p.K, (int)p.ldb, 1); /* (N,K):(ldb,1) */
        cs.a_step = lay_crd2idx2(mA, tc.rstep, 0);
        cs.b_step = lay_crd2idx2(mB, tc.rstep, 0);
        cs.a_rowb = (uint32_t)(2 * cs.a_step);
        cs.b_rowb = (uint32_t)(2 * cs.b_step);
        cs.sa = sA_u + 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BM, BK), crow, cs.col);
        cs.sb = sB_u + 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BN, BK), crow, cs.col);
        cs.a_rows = p.M - m0 - crow;
        cs.b_rows = p.N - n0 - crow;
        cs.a = p.A + lay_crd2idx2(mA, m0 + crow, cs.col);
        cs.b = p.B + lay_crd2idx2(mB, n0 + crow, cs.col);
    }
    /* K tiles [0, kfull) lie inside A and B (and their row offsets fit 32 bits) */
    const int kfull = p.rows32 && m0 + BM <= p.M && n0 + BN <= p.N ? p.K / BK : 0;

    /* prologue: the first STAGES-1 K tiles in flight, wait for the first, its fragments */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        if (st < ktiles)
            copy_range<BM, BN, BK, NT, KTAIL>(&cs, &tc, 0, tc.na + tc.nb, st, st, p.K, p.A);
        ptx_cp_async_commit();
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the copies fill next */
    if (ktiles > 0) load_frags<MI, NI>(ra[0], rb[0], &fa, &tc, 0, 0);

    /* The steady state: while the K tile being copied (kt + STAGES - 1) lies inside A and B,
     * its copies need no predicates and a next K tile surely follows. This loop must carry no
     * more live state than kt: with few live registers ptxas spreads the ldmatrix loads evenly
     * between the MMAs; with more (a persistent loader's state) it bunches them, and the loop
     * runs slower (tests/test_sass.sh checks the spread). The last STAGES-1 K tiles, and every
     * K tile of an edge CTA, take the predicated copies in the second loop. */
    int kt = 0;
    const int kt_interior = kfull - (STAGES - 1); /* K tiles of the steady state */
    for (; kt < kt_interior; ++kt)
        k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, 1, KTAIL>(acc, ra, rb, &cs, &fa, &tc, &rd, &wr,
                                                        kt + STAGES - 1, 1, &p);
    for (; kt < ktiles; ++kt)
        k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, 0, KTAIL>(acc, ra, rb, &cs, &fa, &tc, &rd, &wr,
                                                        kt + STAGES - 1, kt + 1 < ktiles, &p);
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */

    store_c<BF16, MI, NI>(acc, &p, mma, m0, n0);
}

/* Dynamic smem of one CTA in bytes: STAGES x (BM + BN) rows of the smem tile. */
static size_t smem_bytes(int bm, int bn, int bk, int stages) {
    return (size_t)stages * (plan_smem_stage(bm, bk) + plan_smem_stage(bn, bk)) * 2;
}

/* Sets the dynamic smem limit and launches one instantiation, one CTA per tile of C (grid
 * (ceil(N/BN), ceil(M/BM))). Returns the first CUDA error. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int KTAIL>
static cudaError_t launch_one(const kargs *a, cudaStream_t s) {
    const size_t smem = smem_bytes(BM, BN, BK, STAGES);
    void (*kernel)(kargs) = gemm_swizzle<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, KTAIL>;
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
    /* K % 8 != 0: the instantiation whose copies take a row's partial last chunk (copy_range) */
    if (p->k % 8)
        return p->dtype == GEMM_BF16 ? launch_one<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 1>(&a, s)
                                     : launch_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 1>(&a, s);
    return p->dtype == GEMM_BF16 ? launch_one<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0>(&a, s)
                                 : launch_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0>(&a, s);
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
