/* Lesson 07 - the epilogue: D = act(alpha*acc + beta*C + bias), fused, rounded once, stored
 * as whole 128-byte rows.
 *
 * What this lesson adds to lesson 06's default kernel, and nothing else: the epilogue. A network
 * wants act(A*B^T + bias) in fp16/bf16, not A*B^T; run as separate kernels, the bias and the
 * activation read and write D once more each. Here they happen on the fp32 accumulators, in
 * registers, right after the K loop, with one conversion to the output type at the end
 * (epilogue.cuh): alpha, beta*C (C read through shared memory with coalesced 16-byte cp.async,
 * only when beta != 0), the bias along n or m, ReLU or GELU (tanh or erf form), then the
 * staged stores: each warp writes its block into its own smem block (rows padded by 8
 * elements: conflict-free both ways) and copies it out in 16-byte chunks, whole rows of C per
 * warp store (lesson 06 stored 16-byte pieces of 8 different rows). One path for every tile,
 * edge tiles included. The output may be fp32, fp16 or bf16 whatever the inputs (fp16 in, fp32
 * out). And the accumulator: variant acc16_128x256x64_s3 accumulates in fp16
 * (mma...f16.f16.f16.f16), checked against cuBLAS's CUBLAS_COMPUTE_16F (opt-in: name it).
 *
 * Tile configurations (the variants; the first is the default):
 *   128x256x64_s3   8 warps (2 x 4), warp tile 64x64, 3 stages, 144 KiB smem, 1 CTA/SM;
 *                   every output type and epilogue (fp32 staging: 8 x 64 x 72 floats = the
 *                   144 KiB of the stages, exactly)
 *   128x128x64_s3   4 warps (2 x 2), warp tile 64x64, 3 stages,  96 KiB smem, 2 CTAs/SM
 *   128x128x32_s4   4 warps (2 x 2), warp tile 64x64, 4 stages,  64 KiB smem (Swizzle<2,3,3>)
 *                   (these two: the input's output type, no epilogue: lesson 06's tiles)
 *   acc16_128x256x64_s3   the default's tile with fp16 accumulators; fp16 only, no epilogue
 *
 * Limits (refused before launch with one line, never a wrong answer): layout TN only (A and B
 * K-major); lda, ldb, ldc and the A/B/C base pointers multiples of 8 elements (16 bytes: every
 * cp.async moves 16 aligned bytes, and so does every store of D); M <= 8388480 (grid.y); a
 * variant whose smem is more than the GPU allows names one that fits; what a variant does not
 * declare (output types, epilogues, see --list) the harness refuses. Lesson 08 takes every
 * layout, alignment and size. Any M, N, K >= 1 works: edge tiles are zero-filled through
 * cp.async's src-size operand.
 *
 * Why templates: register arrays need compile-time sizes, the mma instruction (f16/bf16, fp32
 * or fp16 accumulators) must be chosen at compile time, and the lesson wants several tile
 * shapes from one source; in plain C one would stamp the kernels out with a macro. The
 * epilogue is a template parameter too (a type, epi_fused<OUT, ACT>, epilogue.cuh): each
 * (input, output, activation) combination is compiled once, as its own kernel, with only the
 * instructions it needs; bias and beta are uniform run-time branches inside it. 3 x 2 x 4 = 24
 * kernels for the default tile, one per combination, instead of one kernel that tests all
 * options for every element.
 *
 * Build and run:   make lesson07 && ./run
 *                  ./run --variant 128x256x64_s3 --dtype fp16 --size 4096x4096x4096
 *                  ./run --variant default --dtype fp16 --out fp32 --epilogue bias_gelu --size 4096x4096x4096
 *                  ./run --variant acc16_128x256x64_s3 --init ones --size 256x256x8192
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
    void *C;           /* (M,N) of the output type: C[m*ldc + n]; D is written over it */
    long long lda, ldb, ldc;
    int rows32;  /* BM rows of A and BN rows of B span < 2^31 bytes: 32-bit row offsets */
    const void *bias;   /* NULL (no bias), or N values (bias_axis 0) / M values (1) */
    int bias_axis;      /* 0: bias[n], one per column; 1: bias[m], one per row */
    int bias_dtype;     /* gemm_dtype of the bias */
} kargs;

#include "epilogue.cuh"

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
 * outside A/B get 0 bytes from `safe`; a chunk that ends its row partly (0 < kb < 16, K % 8
 * != 0) goes through ptx_copy16_zfill's register path. */
template <int BM, int BN, int BK, int NT>
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
            ptx_copy16_zfill(da + c * STEP_B, n ? pa : safe, n);
            pa += cs->a_step;
        } else {
            const int i = c - NA;
            const int n = i * RSTEP < cs->b_rows ? kb : 0;
            ptx_copy16_zfill(db + i * STEP_B, n ? pb : safe, n);
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
 * the B fragment at each turn is reused at once. ACC16: fp16 accumulators; acc[i][j][0] and
 * [1] then hold the bits of two fp16 pairs ({c0,c1}, {c2,c3}; __float_as_uint moves nothing)
 * and [2], [3] stay unused (acc16_to_f32 unpacks them after the K loop). */
template <int BF16, int ACC16, int MI, int NI>
static __device__ __forceinline__ void mma_kstep(float acc[MI][NI][4], const uint32_t ra[MI][4],
                                                 const uint32_t rb[NI][2]) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int jj = 0; jj < NI; ++jj) {
            const int j = i % 2 ? NI - 1 - jj : jj;
            if (ACC16) {
                uint32_t d[2] = {__float_as_uint(acc[i][j][0]), __float_as_uint(acc[i][j][1])};
                ptx_mma_m16n8k16_f16_f16acc(d, ra[i], rb[j]);
                acc[i][j][0] = __uint_as_float(d[0]);
                acc[i][j][1] = __uint_as_float(d[1]);
            } else if (BF16) {
                ptx_mma_m16n8k16_bf16(acc[i][j], ra[i], rb[j]);
            } else {
                ptx_mma_m16n8k16_f16(acc[i][j], ra[i], rb[j]);
            }
        }
}

/* fp16 accumulators (ACC16) -> the fp32 layout the epilogue reads: {c0,c1} = acc[..][0],
 * {c2,c3} = acc[..][1], low half first (PTX ISA 9.7.14.5.8). Zero bits are fp16 zeros, so the
 * K loop starts from acc = 0.0f either way. */
template <int MI, int NI>
static __device__ __forceinline__ void acc16_to_f32(float acc[MI][NI][4]) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const uint32_t lo = __float_as_uint(acc[i][j][0]), hi = __float_as_uint(acc[i][j][1]);
            const float2 a = __half22float2(*(const __half2 *)&lo);
            const float2 b = __half22float2(*(const __half2 *)&hi);
            acc[i][j][0] = a.x; acc[i][j][1] = a.y; acc[i][j][2] = b.x; acc[i][j][3] = b.y;
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
template <int BF16, int ACC16, int BM, int BN, int BK, int NT, int STAGES, int MI, int NI,
          int INTERIOR>
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
                copy_range<BM, BN, BK, NT>(cs, tc, kk * CPK, (kk + 1) * CPK, *wr, ktl, p->K,
                                           p->A);
        }
        mma_kstep<BF16, ACC16, MI, NI>(acc, ra[kk % 2], rb[kk % 2]);
    }
}

/* ---- the kernel ----------------------------------------------------------------------------
 * One CTA per (BM, BN) tile of C at (blockIdx.y, blockIdx.x). Warp w owns the (WTM, WTN) =
 * (BM/WARPS_M, BN/WARPS_N) block (w / WARPS_N, w % WARPS_N) of it; acc[i][j][0..3] is the C
 * fragment of MMA atom (i, j) of that block. Dynamic smem: sA (BM,BK,STAGES), sB (BN,BK,STAGES),
 * each stage swizzled (plan_smem); after the K loop, the warps' staging blocks of D.
 * EPI: the epilogue, a type with ES (bytes of an output element) and
 * EPI::store(acc, &p, &mma, smem, m0, n0) (epilogue.cuh: epi_fused<OUT, ACT>). ACC16: fp16
 * accumulators (fp16 inputs only). */
template <int BF16, int ACC16, typename EPI, int BM, int BN, int BK, int WARPS_M, int WARPS_N,
          int STAGES>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_epilogue(kargs p) {
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
    static_assert(NT / 32 * WTM * (WTN + 8) * EPI::ES <= STAGES * (BM + BN) * BK * 2,
                  "the staging blocks of D must fit in the pipeline's smem");
    static_assert(!ACC16 || !BF16, "fp16 accumulation takes fp16 inputs");
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
        if (st < ktiles) copy_range<BM, BN, BK, NT>(&cs, &tc, 0, tc.na + tc.nb, st, st, p.K, p.A);
        ptx_cp_async_commit();
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the copies fill next */
    if (ktiles > 0) load_frags<MI, NI>(ra[0], rb[0], &fa, &tc, 0, 0);

    /* The steady state: while the K tile being copied (kt + STAGES - 1) lies inside A and B,
     * its copies need no predicates and a next K tile surely follows. This loop must carry no
     * more live state than kt (few live registers: ptxas then spreads the ldmatrix loads
     * evenly between the MMAs; notes/perf.md, run 16). The last STAGES-1 K tiles, and every K
     * tile of an edge CTA, take the predicated copies in the second loop. */
    int kt = 0;
    const int kt_interior = kfull - (STAGES - 1); /* K tiles of the steady state */
    for (; kt < kt_interior; ++kt)
        k_tile<BF16, ACC16, BM, BN, BK, NT, STAGES, MI, NI, 1>(acc, ra, rb, &cs, &fa, &tc, &rd,
                                                               &wr, kt + STAGES - 1, 1, &p);
    for (; kt < ktiles; ++kt)
        k_tile<BF16, ACC16, BM, BN, BK, NT, STAGES, MI, NI, 0>(acc, ra, rb, &cs, &fa, &tc, &rd,
                                                               &wr, kt + STAGES - 1,
                                                               kt + 1 < ktiles, &p);
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */

    if (ACC16) acc16_to_f32<MI, NI>(acc);
    __syncthreads(); /* the staging blocks overlay the stages: every warp's ldmatrix is done */
    EPI::store(acc, &p, &mma, (char *)smem, m0, n0);
}

/* Dynamic smem of one CTA in bytes: STAGES x (BM + BN) rows of the smem tile. */
static size_t smem_bytes(int bm, int bn, int bk, int stages) {
    return (size_t)stages * (plan_smem_stage(bm, bk) + plan_smem_stage(bn, bk)) * 2;
}

/* Sets the dynamic smem limit and launches one instantiation, one CTA per tile of C (grid
 * (ceil(N/BN), ceil(M/BM))). Returns the first CUDA error. */
template <int BF16, int ACC16, typename EPI, int BM, int BN, int BK, int WARPS_M, int WARPS_N,
          int STAGES>
static cudaError_t launch_one(const kargs *a, cudaStream_t s) {
    const size_t smem = smem_bytes(BM, BN, BK, STAGES);
    void (*kernel)(kargs) = gemm_epilogue<BF16, ACC16, EPI, BM, BN, BK, WARPS_M, WARPS_N, STAGES>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a->N + BN - 1) / BN), (unsigned)((a->M + BM - 1) / BM));
    kernel<<<grid, dim3(32 * WARPS_M * WARPS_N), smem, s>>>(*a);
    return cudaGetLastError();
}

/* The kernel's arguments for problem p on a (bm, bn) tile. The staged stores of D move 16
 * aligned bytes: C's base must be 16-byte aligned (the harness's align = 8 elements keeps
 * offsets and ldc so; a caller with another pointer gets cudaErrorMisalignedAddress). The
 * epilogue reads the bias two neighbouring values at a time: the vector's base must be
 * aligned to two elements (the harness allocates it on its own; else the same error). */
static cudaError_t make_kargs(kargs *a, const gemm_problem *p, int bm, int bn) {
    a->M = p->m; a->N = p->n; a->K = p->k;
    a->alpha = p->alpha; a->beta = p->beta;
    a->A = (const uint16_t *)p->A; a->B = (const uint16_t *)p->B; a->C = p->C;
    a->lda = p->lda; a->ldb = p->ldb; a->ldc = p->ldc;
    a->rows32 = (long long)bm * p->lda * 2 < (1LL << 31) && (long long)bn * p->ldb * 2 < (1LL << 31);
    a->bias = GEMM_EPI_HAS_BIAS(p->epilogue) ? p->bias : NULL;
    a->bias_axis = p->bias_axis == GEMM_BIAS_M;
    a->bias_dtype = p->bias_dtype;
    if (((uintptr_t)p->C & 15) || p->ldc % 8) return cudaErrorMisalignedAddress;
    if (a->bias && (uintptr_t)a->bias % (a->bias_dtype == GEMM_FP32 ? 8 : 4))
        return cudaErrorMisalignedAddress;
    return cudaSuccess;
}

#ifndef LESSON07_KERNEL_ONLY /* exercise/kernel.cu includes this file for its kernel alone */

/* The activation of problem p (epilogue.cuh's ACT_*). */
static int act_of(const gemm_problem *p) {
    switch (GEMM_EPI_ACT(p->epilogue)) {
    case GEMM_ACT_RELU: return ACT_RELU;
    case GEMM_ACT_GELU: return p->gelu == GEMM_GELU_ERF ? ACT_GELU_ERF : ACT_GELU_TANH;
    default: return ACT_NONE;
    }
}

/* One tile configuration with every output type and activation: 3 outputs x 4 activations x
 * 2 input types, each its own kernel (the variant that declares them all). */
template <int BF16, int OUT, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_act(const kargs *a, int act, cudaStream_t s) {
    switch (act) {
    case ACT_RELU:
        return launch_one<BF16, 0, epi_fused<OUT, ACT_RELU>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, s);
    case ACT_GELU_TANH:
        return launch_one<BF16, 0, epi_fused<OUT, ACT_GELU_TANH>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, s);
    case ACT_GELU_ERF:
        return launch_one<BF16, 0, epi_fused<OUT, ACT_GELU_ERF>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, s);
    default:
        return launch_one<BF16, 0, epi_fused<OUT, ACT_NONE>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, s);
    }
}

template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_out(const kargs *a, const gemm_problem *p, cudaStream_t s) {
    const int act = act_of(p);
    switch (p->c_dtype) {
    case GEMM_FP32: return launch_act<BF16, GEMM_FP32, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, act, s);
    case GEMM_FP16: return launch_act<BF16, GEMM_FP16, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, act, s);
    default:        return launch_act<BF16, GEMM_BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(a, act, s);
    }
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_fused(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    cudaError_t e = make_kargs(&a, p, BM, BN);
    if (e != cudaSuccess) return e;
    return p->dtype == GEMM_BF16 ? launch_out<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, p, s)
                                 : launch_out<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, p, s);
}

/* One tile configuration, the input's output type, no epilogue (lesson 06's variants). */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_plain(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    cudaError_t e = make_kargs(&a, p, BM, BN);
    if (e != cudaSuccess) return e;
    if (p->dtype == GEMM_BF16)
        return launch_one<1, 0, epi_fused<GEMM_BF16, ACT_NONE>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, s);
    return launch_one<0, 0, epi_fused<GEMM_FP16, ACT_NONE>, BM, BN, BK, WARPS_M, WARPS_N, STAGES>(&a, s);
}

static cudaError_t launch_128x256x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_fused<128, 256, 64, 2, 4, 3>(p, s);
}
static cudaError_t launch_128x128x64_s3(const gemm_problem *p, cudaStream_t s) {
    return launch_plain<128, 128, 64, 2, 2, 3>(p, s);
}
static cudaError_t launch_128x128x32_s4(const gemm_problem *p, cudaStream_t s) {
    return launch_plain<128, 128, 32, 2, 2, 4>(p, s);
}
/* fp16 accumulators: fp16 in, fp16 out, no epilogue */
static cudaError_t launch_acc16_128x256x64_s3(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    cudaError_t e = make_kargs(&a, p, 128, 256);
    if (e != cudaSuccess) return e;
    return launch_one<0, 1, epi_fused<GEMM_FP16, ACT_NONE>, 128, 256, 64, 2, 4, 3>(&a, s);
}

/* every variant's dynamic smem (the one table of it; its configurations are those of the
 * launch_* functions above), largest first */
static const struct { const char *name; size_t smem; } by_smem[] = {
    {"128x256x64_s3", smem_bytes(128, 256, 64, 3)},        /* 147,456 B */
    {"acc16_128x256x64_s3", smem_bytes(128, 256, 64, 3)},  /* 147,456 B */
    {"128x128x64_s3", smem_bytes(128, 128, 64, 3)},        /*  98,304 B */
    {"128x128x32_s4", smem_bytes(128, 128, 32, 4)}};       /*  65,536 B */

/* Beyond the harness's own checks (dtype, output, epilogue, align = 8). A variant whose CTA needs more shared
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
CHECK(acc16_128x256x64_s3)
#undef CHECK

/* What the variants declare (common/harness.h): input types, and beyond them the outputs,
 * epilogues, bias types and the accumulator. */
#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
#define DT_FUSED (DT_HALVES | GEMM_OUT_ALL | GEMM_EPI_ALL | GEMM_BIAS_DT_ALL)
#define DT_ACC16 (GEMM_DT_BIT(GEMM_FP16) | GEMM_ACC_FP16)
#define V(name, dts, sum) {#name, sum, dts, GEMM_LAYOUT_ALL, 8, check_##name, launch_##name}

static const gemm_variant variants[] = {
    V(128x256x64_s3, DT_FUSED,
      "lesson 06's 128x256x64_s3 + the fused epilogue (bias, ReLU/GELU, any output type)"),
    V(128x128x64_s3, DT_HALVES, "lesson 06's 128x128x64_s3 + the staged epilogue"),
    V(128x128x32_s4, DT_HALVES, "lesson 06's 128x128x32_s4 + the staged epilogue"),
    V(acc16_128x256x64_s3, DT_ACC16,
      "128x256x64_s3 with fp16 accumulators (opt-in: name it; vs CUBLAS_COMPUTE_16F)"),
};

static const gemm_lesson lesson = {"07_epilogue",
                                   "The epilogue: fused bias/activation, any output type, whole rows",
                                   (int)(sizeof variants / sizeof variants[0]), variants,
                                   GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }

#endif /* LESSON07_KERNEL_ONLY */
