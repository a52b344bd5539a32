/* Lesson 08 - dispatch: a registry of kernels and a pick per problem; persistent CTAs, CTA
 * rasterization, split-K and a path for every problem.
 *
 * What this lesson adds to lesson 07's default kernel: it runs every problem, keeps the GPU
 * busy from one tile to the next, and picks a configuration per shape.
 *  1. Persistent CTAs (128x256x64_s3_persistent): one CTA per SM walks one tile per round,
 *     as few CTAs as keep the rounds, each a raster group on per round (plan.h,
 *     plan_persistent_*); the cp.async pipeline runs on across tiles, so the next tile's first
 *     K tiles load while this tile's last ones are computed and its epilogue runs (own C staging
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
 *  4. Kernel composition (dispatch.h): a registry of configurations of this kernel (tile,
 *     warps, stages, schedule: one tile per CTA, persistent, or split-K) and of lesson 04's
 *     fp32 SIMT kernel (simt_fp32.cuh), each with what it accepts (disp_refusal: one line,
 *     before any launch); the variant `default` picks one per problem by a table of rules
 *     (disp_choose; ./run --explain prints the choice and the rule).
 *  5. Split-K (splitk.cuh): a (tiles, splits) grid; CTA (t, s) computes split s of tile t's K
 *     tiles and stores fp32 partial sums to a workspace; splitk_reduce adds the splits in a
 *     fixed order and applies the epilogue once. Small M uses 16- and 64-row tiles; small N
 *     the same tiles on C^T = B*A^T (the reduction writes C from the transposed slices).
 *  5b. Stream-K (128x256x64_s3_streamk, SCHED 3; plan.h, plan_sk_*): the persistent kernel
 *     with the last, partial round's K iterations cut into equal ranges, one per CTA; a tile
 *     cut in pieces is finished by the CTA holding its K tile 0, which adds the others' fp32
 *     partial sums (sk_publish, sk_gather: a workspace slot and a release/acquire flag per
 *     CTA) before its epilogue. Rule SK takes it where the last wave is short and K long.
 *  6. Tuning (tune.h): --tune checks and times every candidate (configuration, K split,
 *     orientation) per problem and prints the winner against default's pick and cuBLAS;
 *     --tune-out FILE writes the winners as a table, --tuned FILE makes default run them.
 *  7. Lesson 07's epilogues (--epilogue, --out; epilogue.cuh): D = act(alpha*acc + beta*C +
 *     bias), rounded once. The persistent kernel fuses them in its store (gemm_dispatch_epi,
 *     store_epi: bias and activation applied to the accumulators, then the plain store);
 *     everywhere else the kernels write fp32 partial sums and splitk_reduce applies the
 *     epilogue once per element, after any K split (dispatch.h, disp_epi_where says which).
 *
 * The variants: `default` (the dispatcher), then the registry's configurations in its order
 * (./run --list; the README's table). A configuration that needs more smem than the GPU
 * allows is refused; `default` picks one that fits.
 *
 * Why templates: register arrays need compile-time sizes, the mma instruction (f16/bf16) must
 * be chosen at compile time, and the lesson wants several tile shapes from one source; in
 * plain C one would stamp the kernels out with a macro.
 *
 * Build and run:   make lesson08 && ./run
 *                  ./run --explain --dtype fp16,fp32 --size 16x4096x4096,4096x4096x4096
 *                  ./run --variant default,128x256x64_s3_persistent --dtype bf16 \
 *                        --size 4096x4096x4096
 *                  ./run --epilogue bias_gelu --out fp16 --dtype fp16 --size 4096x4096x4096
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
#include "dispatch.h"
#include "tune.h"

#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define RASTER_GROUP 8 /* CTAs walk 8 tile rows down before moving right */

/* The kernel's arguments (one struct: the launch passes it by value in constant memory). */
typedef struct kargs {
    int M, N, K;
    float alpha, beta;
    const uint16_t *A; /* (M,K): a_kmajor ? A[m*lda + k] : A[m + k*lda] */
    const uint16_t *B; /* (N,K): b_kmajor ? B[n*ldb + k] : B[n + k*ldb] */
    void *C;           /* (M,N) of the output type: C[m*ldc + n]; D is written over it */
    long long lda, ldb, ldc;
    int a_kmajor, b_kmajor;
    int pair_ok; /* ldc even and C aligned to two elements: store a pair at once */
    int c_vec;   /* beta == 0, ldc % 8 == 0 and C 16-byte aligned: staged 16-byte stores */
    int rows32;  /* BM rows of A and BN rows of B span < 2^31 bytes: 32-bit row offsets */
    float *ws;   /* SCHED 2: fp32 partial sums, slice blockIdx.y (M,N):(N,1) (splitk.cuh); or
                    NULL: C as above */
    const uint16_t *safe; /* a valid address (A) for the zero-byte copies at the edges: stays
                             put when a split moves A (a kernel argument, no register) */
} kargs;

/* The fused epilogue's arguments: a second argument of the kernels that fuse it
 * (gemm_dispatch_epi), so that the plain kernels' kargs stays as it was (ptxas allocated the
 * K loop of several plain kernels differently, up to a spill, with four more fields in it). */
typedef struct kepi {
    const void *bias; /* NULL (no bias), or N values (bias_axis 0) / M values (1) */
    int bias_axis;    /* 0: bias[n], one per column; 1: bias[m], one per row */
    int bias_dtype;   /* gemm_dtype of the bias */
    int act;          /* ACT_* (epilogue.cuh), a run-time switch around the epilogue's loops */
} kepi;

/* Stream-K's arguments (SCHED 3, gemm_dispatch_sk; plan.h, plan_sk_*): a third argument of its
 * kernel only, for the same reason. */
typedef struct ksk {
    float *ws;       /* one (BM,BN) fp32 slot per CTA, thread-native (plan_sk_slot) */
    unsigned *flags; /* one per slot: == epoch once the slot is written */
    unsigned epoch;  /* this launch's flag value (1, 2, ...: stale flags read as "not yet") */
    int min_iters;   /* plan_sk_make's: the fewest K iterations a range is worth */
} ksk;
#define SK_MAX_CTAS 256 /* the grid's most CTAs: slots and flags of the workspace (gemm.cu below) */
#define SK_MIN_ITERS 8  /* plan_sk_make: no range shorter than 8 K tiles */

#include "epilogue.cuh" /* the epilogue's arithmetic and the output conversions */

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
 * outside A/B get 0 bytes from `safe`. KTAIL = 1 (the fast path's kernel for K % 8 != 0,
 * GENERIC = 2): a chunk that ends its row partly (0 < kb < 16) goes through
 * ptx_copy16_zfill's register path. With K % 8 == 0 a chunk is whole or empty, so KTAIL = 0
 * keeps every copy one cp.async (a separate instantiation: the register path's code alone,
 * never run there, changes how ptxas allocates the main loop; notes/perf.md run 11-3). */
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

/* ---- gmem -> smem, generic path: 8 predicated 2-byte loads per chunk, either majorness -- */
/* The (ROWS, BK) tile at row r0, column k0 of the (rows, K) matrix mX (either majorness:
 * (rows,K):(ld,1) or (rows,K):(1,ld)) into the swizzled smem tile s: the chunks of plan_copy,
 * each gathered element by element (zeros outside the matrix) and stored as one 16-byte
 * chunk. */
template <int ROWS, int BK, int NT>
static __device__ __forceinline__ void load_tile_generic(uint16_t *s, const uint16_t *X,
                                                         lay_layout mX, int r0, int rows, int k0,
                                                         int K) {
    const lay_tiled_copy cp = plan_copy(NT, BK);
#pragma unroll 1 /* few registers: this path is about correctness, not speed */
    for (int i = 0; i < lay_tiled_copy_reps(cp, ROWS, BK); ++i) {
        int row, col;
        lay_tiled_copy_crd(cp, ROWS, BK, threadIdx.x, 0, i, &row, &col);
        const int r = r0 + row;
        uint32_t w[4];
#pragma unroll
        for (int e = 0; e < 8; e += 2) {
            const int k = k0 + col + e;
            uint32_t lo = 0, hi = 0;
            if (r < rows && k < K) lo = X[lay_crd2idx2(mX, r, k)];
            if (r < rows && k + 1 < K) hi = X[lay_crd2idx2(mX, r, k + 1)];
            w[e / 2] = lo | (hi << 16);
        }
        *(uint4 *)(s + lay_swizzled_crd2idx2(plan_smem(ROWS, BK), row, col)) =
            make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* The tile id of this CTA's t-th tile (plan.h: plan_persistent_tile, one raster group on per
 * round; with one tile per CTA, t = 0, it is blockIdx.x). */
static __device__ __forceinline__ int cta_tile(int t) {
    return plan_persistent_tile((int)blockIdx.x, t, (int)gridDim.x, RASTER_GROUP);
}

/* The tile id of this CTA's segment t and its K tiles [*k0, *k1): stream-K's (SCHED 3,
 * plan_sk_segment of the CTA's part of the schedule, kept in smem: sks), else tile
 * cta_tile(t) whole. */
template <int SCHED>
static __device__ __forceinline__ int cta_segment(const plan_sk_cta *sks, int t, int ktiles,
                                                  int *k0, int *k1) {
    if (SCHED != 3) {
        *k0 = 0;
        *k1 = ktiles;
        return cta_tile(t);
    }
    int id;
    plan_sk_segment(sks, ktiles, (int)blockIdx.x, (int)gridDim.x, RASTER_GROUP, t, &id, k0, k1);
    return id;
}

/* ---- the loader: which (tile, K tile) the copies issued now belong to ---------------------
 * A CTA computes the tiles cta_tile(t), t = 0 .. end-1 (tile numbers go through
 * plan_raster). The loader runs STAGES-1 (tile, K tile) pairs ahead of the MMAs
 * through that sequence, so the first K tiles of tile t+1 are in flight while the last ones
 * of tile t are computed and while its epilogue stores C. */
typedef struct loader {
    int t, kt;  /* tile (stream-K: segment) ordinal (>= end: nothing left to load), K tile */
    int end;    /* this CTA's number of tiles (0 when K = 0: nothing to load) */
    int m0, n0; /* that tile's origin */
    int kfull;  /* its K tiles [0, kfull) need no predication (stream-K: and lie in the segment) */
} loader;

/* Points the loader and the per-tile part of the copy plan at tile ordinal l->t (stream-K:
 * segment l->t, whose first K tile the loader then stands at). */
template <int BM, int BN, int BK, int SCHED>
static __device__ __forceinline__ void loader_tile(loader *l, copy_state *cs, const kargs *p,
                                                   int crow, int tiles_m, int tiles_n,
                                                   const plan_sk_cta *sks) {
    int tm, tn, k0, k1;
    const int ktiles = (p->K + BK - 1) / BK;
    plan_raster(cta_segment<SCHED>(sks, l->t, ktiles, &k0, &k1), tiles_m, tiles_n, RASTER_GROUP,
                &tm, &tn);
    l->m0 = tm * BM;
    l->n0 = tn * BN;
    cs->a_rows = p->M - l->m0 - crow;
    cs->b_rows = p->N - l->n0 - crow;
    /* the fast path's sources (A and B K-major), used only where in range */
    cs->a = p->A + lay_crd2idx2(lay_l2(p->M, p->K, (int)p->lda, 1), l->m0 + crow, cs->col);
    cs->b = p->B + lay_crd2idx2(lay_l2(p->N, p->K, (int)p->ldb, 1), l->n0 + crow, cs->col);
    l->kfull = p->rows32 && l->m0 + BM <= p->M && l->n0 + BN <= p->N ? p->K / BK : 0;
    if (SCHED == 3) {
        l->kt = k0;
        if (l->kfull > k1) l->kfull = k1;
    }
}

/* After the copies of one K tile: on to the next K tile, or the next tile's (stream-K:
 * segment's) first. SCHED 2 (split-K): the CTA has one tile at most, so there is no next one
 * (which also tells the compiler that A and B need not stay live for a next loader_tile). */
template <int BM, int BN, int BK, int SCHED>
static __device__ __forceinline__ void loader_next(loader *l, copy_state *cs, const kargs *p,
                                                   int crow, int ktiles, int tiles_m, int tiles_n,
                                                   const plan_sk_cta *sks) {
    int k0, k1 = ktiles; /* stream-K: the segment's end, read again from smem (a register
                            more through the K loop would spill) */
    if (SCHED == 3) cta_segment<SCHED>(sks, l->t, ktiles, &k0, &k1);
    if (++l->kt == k1) {
        l->kt = 0;
        if (++l->t < l->end && SCHED != 2)
            loader_tile<BM, BN, BK, SCHED>(l, cs, p, crow, tiles_m, tiles_n, sks);
        else l->kfull = 0;
    }
}

/* Copies [lo, hi) of the loader's K tile into stage st, predicated (zero-fill at the edges);
 * GENERIC = 1: the whole K tile gathered by the first call (lo == 0); 0 and 2: the 16-byte
 * copies (2: K % 8 != 0, copy_range's KTAIL); nothing once the loader is past this CTA's last
 * tile. */
template <int BM, int BN, int BK, int NT, int STAGES, int GENERIC>
static __device__ __forceinline__ void copies(const copy_state *cs, const tile_consts *tc,
                                              const loader *ld, const kargs *p, uint16_t *smem,
                                              int lo, int hi, int st) {
    if (ld->t >= ld->end) return;
    if (GENERIC != 1) {
        copy_range<BM, BN, BK, NT, GENERIC == 2>(cs, tc, lo, hi, st, ld->kt, p->K, p->safe);
    } else if (lo == 0) {
        const int lda = (int)p->lda, ldb = (int)p->ldb;
        /* (M,K):(lda,1) when K-major, (M,K):(1,lda) when M-major; B likewise */
        const lay_layout mA = lay_l2(p->M, p->K, p->a_kmajor ? lda : 1, p->a_kmajor ? 1 : lda);
        const lay_layout mB = lay_l2(p->N, p->K, p->b_kmajor ? ldb : 1, p->b_kmajor ? 1 : ldb);
        uint16_t *sB = smem + STAGES * plan_smem_stage(BM, BK);
        load_tile_generic<BM, BK, NT>(smem + st * plan_smem_stage(BM, BK), p->A, mA, ld->m0,
                                      p->M, ld->kt * BK, p->K);
        load_tile_generic<BN, BK, NT>(sB + st * plan_smem_stage(BN, BK), p->B, mB, ld->n0, p->N,
                                      ld->kt * BK, p->K);
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
 * tile surely follows. Otherwise the copies are those of the loader's (tile, K tile):
 * predicated (GENERIC: gathered), nothing once the loader is past this CTA's last tile. */
template <int BF16, int BM, int BN, int BK, int NT, int STAGES, int MI, int NI, int GENERIC,
          int INTERIOR>
static __device__ __forceinline__ void k_tile(float acc[MI][NI][4], uint32_t ra[2][MI][4],
                                              uint32_t rb[2][NI][2], const copy_state *cs,
                                              const frag_addr *fa, const tile_consts *tc,
                                              int *rd, int *wr, int ktl, int more,
                                              const kargs *p, const loader *ld,
                                              uint16_t *smem) {
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
            else
                copies<BM, BN, BK, NT, STAGES, GENERIC>(cs, tc, ld, p, smem, kk * CPK,
                                                        (kk + 1) * CPK, *wr);
        }
        mma_kstep<BF16, MI, NI>(acc, ra[kk % 2], rb[kk % 2]);
    }
}

/* The C-fragment origin of thread tid: (mh[h], nh[h]) = lay_tiled_mma_c_crd(&mma, tid, 2h), the
 * coordinates of its accumulators c0 (h = 0) and c2 (h = 1) of atom (0, 0) in the CTA tile (tid a
 * lane: in its warp's block). Every other accumulator lies whole atoms further on (store_c's
 * comment); store_c, store_c_staged, epi_bias and store_partial start from it. */
static __device__ __forceinline__ void c_frag_origin(const lay_tiled_mma *mma, int tid, int mh[2],
                                                     int nh[2]) {
    lay_tiled_mma_c_crd(mma, tid, 0, &mh[0], &nh[0]);
    lay_tiled_mma_c_crd(mma, tid, 2, &mh[1], &nh[1]);
}

/* ---- epilogue: C = alpha*acc + beta*C, straight from the MMA registers -------------------
 * acc[i][j][c] is accumulator value v = c + 4*(i + MI*j) of the tiled MMA, at (m, n) =
 * lay_tiled_mma_c_crd(&mma, tid, v) of the CTA tile at (m0, n0). The kernel evaluates the layout
 * for c = 0 and 2 of atom (0, 0) only: atom (i, j) of a warp tile sits (i*atom.m, j*atom.n)
 * further on (the tiled MMA's definition), and c1, c3 are the columns right of c0, c2 (the
 * atom's C layout; tests/plans_tc.h checks both). C is read only when beta != 0; pairs are
 * stored as one word (4 bytes of halves, 8 of floats) when ldc is even and C aligned to it
 * (pair_ok). mC = (M,N):(ldc,1). OUT: the output type, the input's or (FUSED only) fp32.
 * FUSED = 1: acc already holds D (store_epi applied the epilogue), stored as it is. */
template <int BF16, int OUT, int FUSED, int MI, int NI>
static __device__ __forceinline__ void store_c(float acc[MI][NI][4], const kargs *p,
                                               lay_tiled_mma mma, int m0, int n0) {
    const lay_layout mC = lay_l2(p->M, p->N, (int)p->ldc, 1);
    int mh[2], nh[2]; /* c0 and c2 of atom (0, 0) */
    c_frag_origin(&mma, threadIdx.x, mh, nh);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + mh[h] + i * mma.atom.m;
                const int n = n0 + nh[h] + j * mma.atom.n;
                float v0 = FUSED ? acc[i][j][2 * h] : p->alpha * acc[i][j][2 * h];
                float v1 = FUSED ? acc[i][j][2 * h + 1] : p->alpha * acc[i][j][2 * h + 1];
                acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
                if (m >= p->M || n >= p->N) continue;
                const int two = n + 1 < p->N;
                if (OUT == GEMM_FP32) { /* fused kernels only: beta = 0 */
                    float *c = (float *)p->C + lay_crd2idx2(mC, m, n);
                    if (two && p->pair_ok) {
                        *(float2 *)c = make_float2(v0, v1);
                    } else {
                        c[0] = v0;
                        if (two) c[1] = v1;
                    }
                    continue;
                }
                uint16_t *c = (uint16_t *)p->C + lay_crd2idx2(mC, m, n);
                if (!FUSED && p->beta != 0.0f) {
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
 * For a full tile with beta = 0. The warp writes its (WTM, WTN) block of C, scaled (FUSED = 0)
 * or as store_epi left it (FUSED = 1) and converted to the input's type, as 4-byte pairs into
 * its own staging block sC (plan_cstage: rows padded by 8
 * halves, which puts the 8 rows of one store in 8 different bank groups), at the warp-local
 * coordinates of its accumulators (lay_tiled_mma_c_crd of the lane as a thread of warp 0; as
 * in store_c, evaluated for atom (0, 0) and moved by whole atoms), then copies the block out in 16-byte chunks (plan_cstage_copy: WTN/8 lanes per row), so
 * every warp store writes 32/(WTN/8) rows of 2*WTN contiguous bytes. The block is the warp's
 * alone, so __syncwarp() orders its writes and reads; no CTA barrier is needed. The warp's
 * block of C starts where lane 0's first accumulator lies. */
template <int BF16, int FUSED, int MI, int NI, int WTM, int WTN>
static __device__ __forceinline__ void store_c_staged(float acc[MI][NI][4], const kargs *p,
                                                      lay_tiled_mma mma, uint16_t *sC, int m0,
                                                      int n0) {
    const lay_layout sCL = plan_cstage(WTM, WTN);  /* (WTM,WTN):(WTN+8,1) */
    const lay_tiled_copy out = plan_cstage_copy(WTN);
    const lay_layout mC = lay_l2(p->M, p->N, (int)p->ldc, 1);
    const int lane = threadIdx.x % 32;
    int rh[2], ch[2]; /* c0 and c2 of atom (0, 0), warp-local */
    c_frag_origin(&mma, lane, rh, ch);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = rh[h] + i * mma.atom.m, c = ch[h] + j * mma.atom.n;
                *(uint32_t *)(sC + lay_crd2idx2(sCL, r, c)) = f32x2_to_pair(
                    FUSED ? acc[i][j][2 * h] : p->alpha * acc[i][j][2 * h],
                    FUSED ? acc[i][j][2 * h + 1] : p->alpha * acc[i][j][2 * h + 1], BF16);
                acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
            }
    __syncwarp(); /* every lane's pairs are in smem before any lane reads a row */
    int wm0, wn0; /* the warp's block of C */
    lay_tiled_mma_c_crd(&mma, threadIdx.x - lane, 0, &wm0, &wn0);
    uint16_t *gC = (uint16_t *)p->C + lay_crd2idx2(mC, m0 + wm0, n0 + wn0);
    enum { PASSES = WTM * WTN / (32 * 8) }; /* = lay_tiled_copy_reps(out, WTM, WTN) */
#pragma unroll 4
    for (int it = 0; it < PASSES; ++it) {
        int r, c;
        lay_tiled_copy_crd(out, WTM, WTN, lane, 0, it, &r, &c);
        *(uint4 *)(gC + lay_crd2idx2(mC, r, c)) = *(const uint4 *)(sC + lay_crd2idx2(sCL, r, c));
    }
    __syncwarp(); /* all reads done before the next tile's pairs overwrite the block */
}

/* ---- the fused epilogue: bias and activation in the kernel's own store ---------------------
 * Kernels with EPI != 0 (gemm_dispatch_epi: the configurations that fuse, dispatch.h's
 * `fuses`) apply D = act(alpha*acc + bias) (beta = 0: disp_epi_fuses) to the accumulators in
 * registers (epi_regs), then store them as the plain kernels do (FUSED = 1): EPI 1 in the
 * input's type, staged when the tile and C allow it; EPI 2 in fp32 (store_c, 8-byte pairs: a
 * quad of lanes covers 32 contiguous bytes of a row, a whole sector; staging floats would need
 * twice the persistent kernel's staging smem, which it does not have).
 * The activation and the bias are run-time values (kepi: e->act, e->bias): a uniform switch
 * picks one loop of epi_regs, each compiled for its own activation, so no element tests it
 * (the bias is -0 where there is none: epi_bias), and the store after it is one loop for all. Lesson 07 makes each combination a kernel of its
 * own; here the K loop is compiled once per output type instead of once per activation, which
 * keeps the lesson's compile time (every configuration is several kernels already: dtypes,
 * copy paths, schedules). */

/* This thread's bias values: bm[i][h] of its rows mh[h] + i*atom.m, bn[j][e] of its columns
 * nh[0] + j*atom.n + e (the coordinates of store_c); loaded once per tile, as lesson 07 does
 * (MI*2 + NI*2 registers, not a load per element). On the other axis, outside C and without a
 * bias they are -0: x + -0 is x for every x (-0 included, which x + 0 would turn into +0), so
 * one loop serves problems with and without a bias, exactly. */
template <int MI, int NI>
static __device__ __forceinline__ void epi_bias(const kargs *p, const kepi *e, lay_tiled_mma mma,
                                                int m0, int n0, float (*bm)[2], float (*bn)[2]) {
    int mh[2], nh[2]; /* c0 and c2 of atom (0, 0) */
    c_frag_origin(&mma, threadIdx.x, mh, nh);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int m = m0 + mh[h] + i * mma.atom.m;
            bm[i][h] = e->bias && e->bias_axis == 1 && m < p->M
                           ? load_bias(e->bias, e->bias_dtype, m)
                           : -0.0f;
        }
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const int n = n0 + nh[0] + j * mma.atom.n + c;
            bn[j][c] = e->bias && e->bias_axis == 0 && n < p->N
                           ? load_bias(e->bias, e->bias_dtype, n)
                           : -0.0f;
        }
}

/* acc <- act(alpha * acc + bias), in place: accumulator c of atom (i, j) is row h = c / 2,
 * column e = c % 2 of the thread's pairs (store_c's coordinates); bm[i][h] + bn[j][e] is the
 * element's bias (one of the two is -0: epi_bias). */
template <int ACT, int MI, int NI>
static __device__ __forceinline__ void epi_regs(float acc[MI][NI][4], float alpha,
                                                const float (*bm)[2], const float (*bn)[2]) {
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const float b = bm[i][c / 2] + bn[j][c % 2];
                acc[i][j][c] = activation<ACT>(alpha * acc[i][j][c] + b);
            }
}

/* The fused store of one tile (EPI 1: the input's type, staged when `staged`; EPI 2: fp32). */
template <int BF16, int EPI, int MI, int NI, int WTM, int WTN>
static __device__ __forceinline__ void store_epi(float acc[MI][NI][4], const kargs *p,
                                                 const kepi *e, lay_tiled_mma mma, uint16_t *sC,
                                                 int m0, int n0, int staged) {
    float bm[MI][2], bn[NI][2];
    epi_bias<MI, NI>(p, e, mma, m0, n0, bm, bn);
    switch (e->act) {
    case ACT_RELU: epi_regs<ACT_RELU, MI, NI>(acc, p->alpha, bm, bn); break;
    case ACT_GELU_TANH: epi_regs<ACT_GELU_TANH, MI, NI>(acc, p->alpha, bm, bn); break;
    case ACT_GELU_ERF: epi_regs<ACT_GELU_ERF, MI, NI>(acc, p->alpha, bm, bn); break;
    default: epi_regs<ACT_NONE, MI, NI>(acc, p->alpha, bm, bn);
    }
    if (EPI == 1 && staged) store_c_staged<BF16, 1, MI, NI, WTM, WTN>(acc, p, mma, sC, m0, n0);
    else store_c<BF16, EPI == 2 ? GEMM_FP32 : BF16 ? GEMM_BF16 : GEMM_FP16, 1, MI, NI>(
        acc, p, mma, m0, n0);
}

#include "splitk.cuh" /* splitk_narrow, store_partial, splitk_reduce */

/* ---- stream-K (SCHED 3): partial sums between CTAs ----------------------------------------
 * The CTA's part of the schedule (plan_sk_cta) lives in static smem of the stream-K kernel
 * alone (sk_cta_smem).
 * A piece of a tile (a segment that does not start at K tile 0) ends in sk_publish: every
 * thread writes its accumulators into the CTA's workspace slot, thread-native (plan_sk_slot:
 * 16-byte stores, each float4 q one coalesced row of the slot), and zeroes them for the next
 * segment; fence, barrier, and one thread raises the slot's flag to this launch's epoch with a
 * release store. The tile's owner (its segment holds K tile 0) calls sk_gather before its
 * epilogue: for each contributing CTA every thread spins on the flag with acquire loads, then
 * adds the slot's values to its own, which are the same (i, j, v) of the same tile.
 * (common/ptx.h, the flags' section, for the memory model.) */
static __device__ __forceinline__ plan_sk_cta *sk_cta_smem(void) {
    __shared__ plan_sk_cta c;
    return &c;
}

template <int NT, int MI, int NI>
static __device__ __forceinline__ void sk_publish(float acc[MI][NI][4], const ksk &sk) {
    const lay_layout slot = plan_sk_slot(NT, MI * NI);
    /* int offsets (SK_MAX_CTAS slots of 8192 float4s): no 64-bit value to keep live */
    float4 *dst = (float4 *)sk.ws +
                  ((int)blockIdx.x * lay_cosize(slot) + lay_crd2idx2(slot, (int)threadIdx.x, 0));
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            __stcg(dst + lay_crd2idx2(slot, 0, i * NI + j), /* the layout is linear */
                   make_float4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]));
            acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
        }
    __threadfence(); /* this thread's slot writes before the flag, GPU-wide */
    __syncthreads(); /* every thread has written and fenced */
    if (threadIdx.x == 0) ptx_st_release_gpu(sk.flags + blockIdx.x, sk.epoch);
}

template <int NT, int MI, int NI>
static __device__ __forceinline__ void sk_gather(float acc[MI][NI][4], const ksk &sk,
                                                 const plan_sk_cta *sks) {
    const lay_layout slot = plan_sk_slot(NT, MI * NI);
#pragma unroll 1
    for (int h = (int)blockIdx.x + 1; h <= sks->last; ++h) {
        /* every thread acquires the flag itself (one broadcast load a warp): no thread waits
         * on another's acquire, and no barrier is needed before the loads */
        while (ptx_ld_acquire_gpu(sk.flags + h) != sk.epoch) {}
        const float4 *src = (const float4 *)sk.ws +
                            (h * lay_cosize(slot) + lay_crd2idx2(slot, (int)threadIdx.x, 0));
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j) {
                /* two 8-byte loads (fewer registers in flight than one 16-byte load) */
                const float2 *q = (const float2 *)(src + lay_crd2idx2(slot, 0, i * NI + j));
                const float2 lo = __ldcg(q), hi = __ldcg(q + 1);
                acc[i][j][0] += lo.x;
                acc[i][j][1] += lo.y;
                acc[i][j][2] += hi.x;
                acc[i][j][3] += hi.y;
            }
    }
}

/* ---- the kernel ----------------------------------------------------------------------------
 * A CTA computes the (BM, BN) tiles of C numbered cta_tile(0), cta_tile(1), ... (round t's
 * tiles are t*gridDim.x .. t*gridDim.x + gridDim.x-1; tile numbers go through plan_raster).
 * With one CTA per tile (grid = tiles) that is tile blockIdx.x; a persistent launch (grid:
 * plan_persistent_ctas of the CTAs that fit on the GPU at once) walks several, and the
 * cp.async pipeline runs on across tile boundaries. Warp w owns the (WTM, WTN) =
 * (BM/WARPS_M, BN/WARPS_N) block (w / WARPS_N, w % WARPS_N) of each tile; acc[i][j][0..3] is
 * the C fragment of MMA atom (i, j) of that block. Dynamic smem: sA (BM,BK,STAGES),
 * sB (BN,BK,STAGES), each stage swizzled (plan_smem); then (SCHED 1) the warps' C
 * staging blocks, which otherwise overlay the stages after the K loop.
 * SCHED, the schedule (disp_sched, dispatch.h): 0 one CTA per tile; 1 persistent CTAs;
 * 2 split-K: the grid is (tiles, splits), CTA (t, s) computes split s of tile t's K tiles
 * (splitk_narrow); 3 stream-K: persistent CTAs walk the segments of plan_sk (the full rounds'
 * tiles whole, then a range of the last round's K iterations), a piece of a tile ends in
 * sk_publish and its owner's segment in sk_gather, then the epilogue. When p.ws is set
 * (split-K, and the generic path of the others), each CTA stores its partial sum to slice
 * blockIdx.y of the workspace (store_partial) and splitk_reduce applies the epilogue.
 * EPI, the epilogue of the kernel's own store: 0 alpha*acc + beta*C in the input's type (the
 * plain kernels, gemm_dispatch); 1 the whole fused epilogue (bias, activation) in the input's
 * type, 2 the same in fp32 (gemm_dispatch_epi: the configurations that fuse, store_epi). The
 * body is one function, the kernels below its two entry points; it works on the kernel's
 * argument itself (a reference: splitk_narrow narrows it in place), as one kernel would. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int SCHED, int EPI>
static __device__ __forceinline__ void gemm_body(kargs &p, const kepi &epi, const ksk &sk) {
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
    enum { OWN_STAGING = SCHED == 1 || SCHED == 3 }; /* C staging smem of its own (persistent) */
    static_assert(OWN_STAGING || NT / 32 * WTM * (WTN + 8) <= STAGES * (BM + BN) * BK,
                  "C staging must fit in the pipeline's smem");
    extern __shared__ __align__(128) uint16_t smem[];
    const uint32_t sA_u = ptx_smem_u32(smem);
    const uint32_t sB_u = ptx_smem_u32(smem + STAGES * plan_smem_stage(BM, BK));
    const lay_tiled_mma mma = plan_mma(WARPS_M, WARPS_N, BM, BN, BK);
    const tile_consts tc = tile_plan<BM, BN, BK, NT>();
    if (SCHED == 2) splitk_narrow<BK>(&p); /* from here on, p is split blockIdx.y's problem */

    const int tiles_m = (p.M + BM - 1) / BM, tiles_n = (p.N + BN - 1) / BN;
    const int ntiles = tiles_m * tiles_n;
    const int ktiles = (p.K + BK - 1) / BK;
    /* stream-K: this CTA's part of the schedule, worked out once (64-bit arithmetic) into
     * smem, where its loops read it (in registers it would cost the K loop a spill) */
    plan_sk_cta *sks = NULL;
    if constexpr (SCHED == 3) { /* (if constexpr: only stream-K's kernel has the smem) */
        sks = sk_cta_smem();
        if (threadIdx.x == 0) {
            const plan_sk s = plan_sk_make(ntiles, ktiles, (int)gridDim.x, RASTER_GROUP,
                                           sk.min_iters);
            *sks = plan_sk_cta_of(&s, (int)blockIdx.x);
        }
        __syncthreads();
    }
    /* this CTA's tiles: cta_tile(t) for t = 0 .. mine-1 (stream-K: its segments) */
    const int mine = SCHED == 3                 ? plan_sk_segments(sks, ktiles)
                     : (int)blockIdx.x >= ntiles ? 0
                     : SCHED == 2               ? 1 /* grid (tiles, splits): one tile each */
                                                : plan_persistent_count((int)blockIdx.x,
                                                                        (int)gridDim.x, ntiles,
                                                                        RASTER_GROUP);

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

    /* this thread's copy plan (see copy_range): its copy 0 at (crow, col) of the tile; the
     * tile-independent part (loader_tile sets the rest) */
    copy_state cs;
    int crow;
    lay_tiled_copy_crd(plan_copy(NT, BK), BM, BK, threadIdx.x, 0, 0, &crow, &cs.col);
    cs.a_step = lay_crd2idx2(lay_l2(p.M, p.K, (int)p.lda, 1), tc.rstep, 0); /* (M,K):(lda,1) */
    cs.b_step = lay_crd2idx2(lay_l2(p.N, p.K, (int)p.ldb, 1), tc.rstep, 0); /* (N,K):(ldb,1) */
    cs.a_rowb = (uint32_t)(2 * cs.a_step);
    cs.b_rowb = (uint32_t)(2 * cs.b_step);
    cs.sa = sA_u + 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BM, BK), crow, cs.col);
    cs.sb = sB_u + 2 * (uint32_t)lay_swizzled_crd2idx2(plan_smem(BN, BK), crow, cs.col);
    loader ld = {0, 0, ktiles > 0 ? mine : 0, 0, 0, 0};
    if (ld.end > 0) loader_tile<BM, BN, BK, SCHED>(&ld, &cs, &p, crow, tiles_m, tiles_n, sks);

    /* prologue: the first STAGES-1 K tiles in flight, wait for the first, its fragments */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        copies<BM, BN, BK, NT, STAGES, GENERIC>(&cs, &tc, &ld, &p, smem, 0, tc.na + tc.nb, st);
        ptx_cp_async_commit();
        loader_next<BM, BN, BK, SCHED>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n, sks);
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the copies fill next */
    if (ld.end > 0) load_frags<MI, NI>(ra[0], rb[0], &fa, &tc, 0, 0);

    for (int t = 0; t < mine; ++t) {
        /* The steady state: while the K tile being copied lies inside A and B its copies need
         * no predication (INTERIOR = 1; then a next K tile to compute surely exists too). At
         * the start of a tile with more than STAGES-1 K tiles the loader is at its K tile
         * STAGES-1 and it stays inside the tile, STAGES-1 ahead of kt, so this loop carries
         * no loader state but kt (few live registers: ptxas then spreads the ldmatrix loads
         * evenly between the MMAs). The last K tiles, the ones of an edge tile, and the loads
         * of the next tile's first K tiles take the predicated copies in the second loop. */
        int k0, k1; /* this tile's K tiles (stream-K: this segment's, read from smem again
                       after the loop instead of kept live through it) */
        cta_segment<SCHED>(sks, t, ktiles, &k0, &k1);
        int kt = k0;
        /* stream-K: a segment's first fragments are loaded here, not under the previous
         * segment's last MMAs, so that none are live through sk_publish / sk_gather (whose
         * loads would otherwise push the kernel past 255 registers) */
        if (SCHED == 3 && t > 0 && ktiles > 0) load_frags<MI, NI>(ra[0], rb[0], &fa, &tc, rd, 0);
        if (GENERIC != 1 && ld.kt == k0 + STAGES - 1 && (SCHED != 3 || ld.t == t)) {
            for (; kt + STAGES - 1 < ld.kfull; ++kt)
                k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, GENERIC, 1>(
                    acc, ra, rb, &cs, &fa, &tc, &rd, &wr, kt + STAGES - 1, 1, &p, &ld, smem);
            cta_segment<SCHED>(sks, t, ktiles, &k0, &k1);
            if (kt > k0) { /* the loader's position after the loop */
                ld.kt = kt + STAGES - 2;
                loader_next<BM, BN, BK, SCHED>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n,
                                               sks);
            }
        }
        for (; kt < k1; ++kt) {
            /* another K tile follows (whose fragments to load now) */
            const int more = kt + 1 < k1 || (SCHED != 3 && t + 1 < mine);
            k_tile<BF16, BM, BN, BK, NT, STAGES, MI, NI, GENERIC, 0>(
                acc, ra, rb, &cs, &fa, &tc, &rd, &wr, ld.kt, more, &p, &ld, smem);
            loader_next<BM, BN, BK, SCHED>(&ld, &cs, &p, crow, ktiles, tiles_m, tiles_n, sks);
        }
        /* (read again, not kept live through the K loop) */
        const int id = cta_segment<SCHED>(sks, t, ktiles, &k0, &k1);
        if (SCHED == 3 && k0 > 0) { /* a piece of a tile another CTA owns */
            sk_publish<NT, MI, NI>(acc, sk);
            continue;
        }
        if (SCHED == 3 && k1 < ktiles) sk_gather<NT, MI, NI>(acc, sk, sks); /* its owner */

        /* epilogue of tile t (zeroes acc for the next one) */
        int tm, tn;
        plan_raster(id, tiles_m, tiles_n, RASTER_GROUP, &tm, &tn);
        const int m0 = tm * BM, n0 = tn * BN;
        /* staged stores: a full tile, beta = 0, ldc % 8 == 0, C 16-byte aligned, halves out
         * (uniform over the CTA) */
        const int staged = EPI != 2 && p.c_vec && m0 + BM <= p.M && n0 + BN <= p.N;
        if (staged && !OWN_STAGING) {
            /* the staging blocks overlay the pipeline stages: no copy may still be in
             * flight and every warp must be done with its ldmatrix reads */
            ptx_cp_async_wait_all();
            __syncthreads();
        }
        uint16_t *sC = smem + (OWN_STAGING ? STAGES * (plan_smem_stage(BM, BK) + plan_smem_stage(BN, BK)) : 0) +
                       threadIdx.x / 32 * plan_cstage_size(WTM, WTN); /* this warp's */
        if (EPI != 0) { /* the fused epilogue */
            store_epi<BF16, EPI, MI, NI, WTM, WTN>(acc, &p, &epi, mma, sC, m0, n0, staged);
        } else if ((SCHED == 2 || GENERIC == 1) && p.ws) {
            /* a partial sum (split-K, or the generic path): splitk_reduce applies the
             * epilogue */
            store_partial<MI, NI>(acc, &p, mma, m0, n0);
        } else if (staged) {
            store_c_staged<BF16, 0, MI, NI, WTM, WTN>(acc, &p, mma, sC, m0, n0);
        } else {
            store_c<BF16, BF16 ? GEMM_BF16 : GEMM_FP16, 0, MI, NI>(acc, &p, mma, m0, n0);
        }
    }
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */
}

/* The kernels: gemm_dispatch (the plain epilogue, every configuration) and gemm_dispatch_epi
 * (EPI 1 or 2: the configurations that fuse the epilogue). */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int SCHED>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_dispatch(kargs p) {
    const kepi none = {NULL, 0, 0, ACT_NONE}; /* not read: EPI 0 */
    const ksk no_sk = {NULL, NULL, 0, 1};      /* not read: SCHED != 3 */
    gemm_body<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, SCHED, 0>(p, none, no_sk);
}
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int SCHED, int EPI>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_dispatch_epi(kargs p, kepi e) {
    const ksk no_sk = {NULL, NULL, 0, 1};
    gemm_body<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, SCHED, EPI>(p, e, no_sk);
}
/* Stream-K (SCHED 3), the plain epilogue. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_dispatch_sk(kargs p, ksk s) {
    const kepi none = {NULL, 0, 0, ACT_NONE};
    gemm_body<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, 3, 0>(p, none, s);
}

/* CTAs of `kernel` (threads, smem bytes each) that fit on the current device at once: asked
 * once per (device, kernel), not on every launch. Returns the first CUDA error. */
static cudaError_t resident_ctas(const void *kernel, int threads, size_t smem, long long *cap) {
    static struct {
        const void *kernel;
        int dev;
        long long cap;
    } seen[16];
    static int nseen = 0;
    int dev, sms, per_sm;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    for (int i = 0; i < nseen; ++i)
        if (seen[i].kernel == kernel && seen[i].dev == dev) {
            *cap = seen[i].cap;
            return cudaSuccess;
        }
    if ((e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem)) !=
            cudaSuccess)
        return e;
    if (per_sm < 1) per_sm = 1; /* the launch then reports why it cannot run */
    *cap = (long long)sms * per_sm;
    if (nseen < 16) {
        seen[nseen].kernel = kernel;
        seen[nseen].dev = dev;
        seen[nseen++].cap = *cap;
    }
    return cudaSuccess;
}

/* Sets the dynamic smem limit of `kernel`, an instantiation of gemm_dispatch or
 * gemm_dispatch_epi with these tile parameters and schedule, and its grid: one CTA per tile on
 * a 1-D grid (SCHED 0), the fewest CTAs that finish in the rounds of as many as fit on the GPU
 * at once (SCHED 1, persistent: plan_persistent_ctas), a (tiles, split) grid (SCHED 2,
 * split-K), or stream-K's plan_sk_ctas of at most SK_MAX_CTAS that fit at once (SCHED 3,
 * gemm_dispatch_sk). smem: the configuration's dynamic smem (disp_smem_bytes, dispatch.h).
 * Returns the first CUDA error; the caller launches. */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int SCHED>
static cudaError_t prepare_launch(const void *kernel, const kargs *a, size_t smem, int split,
                                  dim3 *grid) {
    const int threads = 32 * WARPS_M * WARPS_N;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    long long tiles = (long long)((a->M + BM - 1) / BM) * ((a->N + BN - 1) / BN);
    if (SCHED == 1 || SCHED == 3) {
        long long cap;
        if ((e = resident_ctas(kernel, threads, smem, &cap)) != cudaSuccess) return e;
        if (SCHED == 1) tiles = plan_persistent_ctas(tiles, cap); /* fewest that keep the rounds */
        else
            tiles = plan_sk_ctas((int)tiles, (a->K + BK - 1) / BK,
                                 cap < SK_MAX_CTAS ? (int)cap : SK_MAX_CTAS, SK_MIN_ITERS);
    }
    if (tiles == 0) tiles = 1; /* M or N is 0: one CTA that has no tile */
    *grid = dim3((unsigned)tiles, SCHED == 2 ? (unsigned)split : 1u);
    return cudaSuccess;
}

/* CTAs of a kernel an SM holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor, with the
 * dynamic smem raised first), or -1 on an error. */
static int occupancy_of(const void *kernel, int threads, size_t smem) {
    int per_sm = -1;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem) !=
            cudaSuccess)
        return -1;
    return per_sm;
}
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int SCHED>
static int occupancy_one(size_t smem) {
    void (*kernel)(kargs) =
        gemm_dispatch<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, SCHED>;
    return occupancy_of((const void *)kernel, 32 * WARPS_M * WARPS_N, smem);
}

/* The kernel arguments of problem p for a (BM, BN) tile; ws: the workspace for the partial
 * sums, or NULL (the kernel writes C). The staged stores (c_vec) need halves out, beta = 0,
 * ldc % 8 == 0 and C 16-byte aligned, and no workspace. */
static kargs make_kargs(const gemm_problem *p, int bm, int bn, float *ws) {
    kargs a;
    memset(&a, 0, sizeof a);
    const int es = p->c_dtype == GEMM_FP32 ? 4 : 2; /* bytes of an output element */
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.a_kmajor = p->a_kmajor; a.b_kmajor = p->b_kmajor;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C % (2 * es)) == 0;
    a.c_vec = !ws && es == 2 && p->beta == 0.0f && p->ldc % 8 == 0 && ((uintptr_t)p->C & 15) == 0;
    a.rows32 = (long long)bm * p->lda * 2 < (1LL << 31) && (long long)bn * p->ldb * 2 < (1LL << 31);
    a.ws = ws;
    a.safe = a.A;
    return a;
}

/* The fused epilogue's arguments of problem p. */
static kepi make_kepi(const gemm_problem *p) {
    kepi e;
    e.bias = GEMM_EPI_HAS_BIAS(p->epilogue) ? p->bias : NULL;
    e.bias_axis = p->bias_axis == GEMM_BIAS_M;
    e.bias_dtype = p->bias_dtype;
    e.act = act_of(p);
    return e;
}

/* One TC configuration of the registry on problem p, plain epilogue (alpha*acc + beta*C in
 * the input's type, or with ws the partial sums): fast path (16-byte cp.async) when A and
 * B allow it, the generic path otherwise; the split-K schedule has the fast path only (the
 * registry marks it fast_only, so disp_refusal keeps other problems away). split and ws: the
 * K split and the workspace for partial sums (split-K, and the generic path of the others;
 * split > 1: split-K only). */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int SCHED>
static cudaError_t launch_cfg(const gemm_problem *p, size_t smem, int split, float *ws,
                              cudaStream_t s) {
    enum { G = SCHED == 2 ? 2 : 1 }; /* the generic instantiation, where there is one */
    const kargs a = make_kargs(p, BM, BN, ws);
    const int bf16 = p->dtype == GEMM_BF16, fast = disp_fast_path(p); /* else GEMM_FP16 */
    if ((SCHED == 2 && !fast) || (split != 1 && (SCHED != 2 || !ws)) ||
        (ws && SCHED != 2 && fast) || (!ws && !disp_epi_plain(p)))
        return cudaErrorInvalidValue;
    /* the fast path's K % 8 != 0 kernel (GENERIC 2: copy_range's KTAIL); the split-K schedule
     * has no generic one, so G = 2 stands in for it there and is never launched with !fast */
    const int tail = p->k % 8 != 0;
    void (*kernel)(kargs);
    dim3 grid;
    if (bf16)
        kernel = !fast  ? gemm_dispatch<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, G, SCHED>
                 : tail ? gemm_dispatch<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 2, SCHED>
                        : gemm_dispatch<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED>;
    else
        kernel = !fast  ? gemm_dispatch<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, G, SCHED>
                 : tail ? gemm_dispatch<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 2, SCHED>
                        : gemm_dispatch<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED>;
    cudaError_t e = prepare_launch<BM, BN, BK, WARPS_M, WARPS_N, SCHED>((const void *)kernel, &a,
                                                                    smem, split, &grid);
    if (e != cudaSuccess) return e;
    kernel<<<grid, 32 * WARPS_M * WARPS_N, smem, s>>>(a);
    return cudaGetLastError();
}

/* The same configuration with the epilogue fused (the registry's `fuses`; disp_epi_fuses
 * says which problems): fast path with K % 8 == 0, beta = 0, output the input's type (EPI 1)
 * or fp32 (EPI 2), one K split, C written directly. */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int SCHED>
static cudaError_t launch_cfg_epi(const gemm_problem *p, size_t smem, cudaStream_t s) {
    const kargs a = make_kargs(p, BM, BN, NULL);
    const kepi ep = make_kepi(p);
    const int bf16 = p->dtype == GEMM_BF16, f32 = p->c_dtype == GEMM_FP32;
    if (!disp_fast_path(p) || p->k % 8 != 0 || p->beta != 0.0f ||
        (!f32 && p->c_dtype != p->dtype))
        return cudaErrorInvalidValue;
    void (*kernel)(kargs, kepi);
    dim3 grid;
    if (bf16)
        kernel = f32 ? gemm_dispatch_epi<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED, 2>
                     : gemm_dispatch_epi<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED, 1>;
    else
        kernel = f32 ? gemm_dispatch_epi<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED, 2>
                     : gemm_dispatch_epi<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED, 1>;
    cudaError_t e = prepare_launch<BM, BN, BK, WARPS_M, WARPS_N, SCHED>((const void *)kernel, &a,
                                                                    smem, 1, &grid);
    if (e != cudaSuccess) return e;
    kernel<<<grid, 32 * WARPS_M * WARPS_N, smem, s>>>(a, ep);
    return cudaGetLastError();
}
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int SCHED>
static int occupancy_cfg(size_t smem) {
    return occupancy_one<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0, SCHED>(smem);
}

/* Stream-K's workspace (SCHED 3): __device__ arrays, so that no launch allocates. One (BM,BN)
 * fp32 slot and one flag per CTA of the grid; SK_MAX_CTAS covers 256 CTAs (an H200 holds 132
 * of 128x256x64_s3_streamk). Launches that use it must be ordered (one stream, as the harness
 * runs them). Flags start at 0 and each launch waits for its own epoch (1, 2, ...). */
#define SK_SLOT_FLOATS (128 * 256)
static __device__ __align__(256) float sk_ws[SK_MAX_CTAS * SK_SLOT_FLOATS];
static __device__ unsigned sk_flags[SK_MAX_CTAS];

/* Stream-K's kernel arguments for one launch on stream s: the workspace and a new epoch. One
 * epoch counter for the one workspace, whatever the configuration (a counter per
 * configuration could repeat a value another left in the flags). */
static cudaError_t sk_args(ksk *k, cudaStream_t s) {
    static unsigned epoch = 0;
    cudaError_t e;
    if ((e = cudaGetSymbolAddress((void **)&k->ws, sk_ws)) != cudaSuccess ||
        (e = cudaGetSymbolAddress((void **)&k->flags, sk_flags)) != cudaSuccess)
        return e;
    if (++epoch == 0) { /* after 2^32 launches: clear the flags, start again */
        if ((e = cudaMemsetAsync(k->flags, 0, sizeof sk_flags, s)) != cudaSuccess) return e;
        epoch = 1;
    }
    k->epoch = epoch;
    k->min_iters = SK_MIN_ITERS;
    return cudaSuccess;
}

/* One configuration with the stream-K schedule, plain epilogue, on the 16-byte path (the
 * registry marks it fast_only; K % 8 != 0 takes copy_range's KTAIL kernel): the grid is
 * plan_sk_ctas of the CTAs that fit on the GPU at once, every one of which must be resident
 * together (an owner waits for CTAs of the same launch); its own C staging smem, as the
 * persistent kernel's. split must be 1 and ws NULL (C is written directly). */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static cudaError_t launch_cfg_sk(const gemm_problem *p, size_t smem, int split, float *ws,
                                 cudaStream_t s) {
    static_assert(BM * BN <= SK_SLOT_FLOATS, "a slot holds one tile's partial sums");
    const kargs a = make_kargs(p, BM, BN, NULL);
    if (!disp_fast_path(p) || split != 1 || ws || !disp_epi_plain(p)) return cudaErrorInvalidValue;
    const int bf16 = p->dtype == GEMM_BF16, tail = p->k % 8 != 0;
    void (*kernel)(kargs, ksk);
    if (bf16)
        kernel = tail ? gemm_dispatch_sk<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 2>
                      : gemm_dispatch_sk<1, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0>;
    else
        kernel = tail ? gemm_dispatch_sk<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 2>
                      : gemm_dispatch_sk<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0>;
    dim3 grid;
    ksk k;
    cudaError_t e = prepare_launch<BM, BN, BK, WARPS_M, WARPS_N, 3>((const void *)kernel, &a,
                                                                    smem, 1, &grid);
    if (e != cudaSuccess || (e = sk_args(&k, s)) != cudaSuccess) return e;
    kernel<<<grid, 32 * WARPS_M * WARPS_N, smem, s>>>(a, k);
    return cudaGetLastError();
}
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
static int occupancy_sk(size_t smem) {
    void (*kernel)(kargs, ksk) = gemm_dispatch_sk<0, BM, BN, BK, WARPS_M, WARPS_N, STAGES, 0>;
    return occupancy_of((const void *)kernel, 32 * WARPS_M * WARPS_N, smem);
}

/* ---- the registry's kernels ---------------------------------------------------------------
 * One row per configuration of disp_configs (dispatch.h), in its order (main() checks the
 * names): how to launch it on a problem with a K split (1: none) and a workspace (NULL: C),
 * with its epilogue fused (launch_epi; NULL where the registry's `fuses` is 0), and how many
 * of its CTAs an SM holds. The tile parameters here are the registry's (the CPU tests check
 * the registry's smem against plan.h). */
typedef struct cfg_kernel {
    const char *name;
    cudaError_t (*launch)(const gemm_problem *p, int split, float *ws, cudaStream_t s);
    cudaError_t (*launch_epi)(const gemm_problem *p, cudaStream_t s);
    int (*occupancy)(void);
} cfg_kernel;

#define CFG_SMEM(name) ((size_t)disp_smem_bytes(&disp_configs[disp_find(#name)]))
#define TC_CFG(name, BM, BN, BK, WM, WN, ST, SCHED)                                             \
    static cudaError_t launch_##name(const gemm_problem *p, int split, float *ws,              \
                                     cudaStream_t s) {                                          \
        return launch_cfg<BM, BN, BK, WM, WN, ST, SCHED>(p, CFG_SMEM(name), split, ws, s);      \
    }                                                                                           \
    static int occupancy_##name(void) {                                                         \
        return occupancy_cfg<BM, BN, BK, WM, WN, ST, SCHED>(CFG_SMEM(name));                    \
    }
/* the configurations that fuse the epilogue (registry: fuses = 1) */
#define TC_EPI(name, BM, BN, BK, WM, WN, ST, SCHED)                                             \
    static cudaError_t launch_epi_##name(const gemm_problem *p, cudaStream_t s) {               \
        return launch_cfg_epi<BM, BN, BK, WM, WN, ST, SCHED>(p, CFG_SMEM(name), s);             \
    }
/* the stream-K configuration (SCHED 3: its kernel takes stream-K's arguments too) */
#define TC_SK(name, BM, BN, BK, WM, WN, ST)                                                     \
    static cudaError_t launch_##name(const gemm_problem *p, int split, float *ws,              \
                                     cudaStream_t s) {                                          \
        return launch_cfg_sk<BM, BN, BK, WM, WN, ST>(p, CFG_SMEM(name), split, ws, s);          \
    }                                                                                           \
    static int occupancy_##name(void) {                                                         \
        return occupancy_sk<BM, BN, BK, WM, WN, ST>(CFG_SMEM(name));                            \
    }
TC_CFG(128x256x64_s3_persistent, 128, 256, 64, 2, 4, 3, 1)
TC_EPI(128x256x64_s3_persistent, 128, 256, 64, 2, 4, 3, 1)
TC_SK(128x256x64_s3_streamk, 128, 256, 64, 2, 4, 3)
TC_CFG(128x256x64_s3, 128, 256, 64, 2, 4, 3, 0)
TC_CFG(128x128x64_s3, 128, 128, 64, 2, 2, 3, 0)
TC_CFG(128x128x32_s4, 128, 128, 32, 2, 2, 4, 0)
TC_CFG(128x128x32_s4_splitk, 128, 128, 32, 2, 2, 4, 2)
TC_CFG(64x128x64_s3_splitk, 64, 128, 64, 2, 2, 3, 2)
TC_CFG(64x128x64_s3, 64, 128, 64, 2, 2, 3, 2) /* the same kernel, never split */
TC_CFG(16x128x64_s4_splitk, 16, 128, 64, 1, 4, 4, 2)
TC_CFG(16x128x64_s4, 16, 128, 64, 1, 4, 4, 2) /* the same kernel, never split */
#undef TC_CFG
#undef TC_EPI
#undef TC_SK

/* lesson 04's fp32 SIMT kernel, two tile configurations (launch_simt_*, occupancy_simt_*) */
#include "simt_fp32.cuh"

#define ROW(name) {#name, launch_##name, NULL, occupancy_##name}
#define ROW_EPI(name) {#name, launch_##name, launch_epi_##name, occupancy_##name}
static const cfg_kernel cfg_kernels[] = {
    ROW_EPI(128x256x64_s3_persistent),
    ROW(128x256x64_s3_streamk),
    ROW(128x256x64_s3),
    ROW(128x128x64_s3),
    ROW(128x128x32_s4),
    ROW(128x128x32_s4_splitk),
    ROW(64x128x64_s3_splitk),
    ROW(64x128x64_s3),
    ROW(16x128x64_s4_splitk),
    ROW(16x128x64_s4),
    ROW(simt_128x128x8_4w),
    ROW(simt_32x64x8_2w),
};
#undef ROW
#undef ROW_EPI

#include "repack.cuh" /* repack_kmajor: rule R1's K-major copies */

/* The workspace: DISP_WS_BYTES, a __device__ array, so that no launch allocates (rule R1's
 * copies of A and B, then the split-K partial sums). One per process: launches that use it
 * must be ordered (one stream, as the harness runs them); a library would take it from the
 * caller, as cuBLASLt does. */
static __device__ __align__(256) float disp_ws[DISP_WS_BYTES / 4];

static char *workspace(void) {
    static char *ws = NULL;
    if (!ws && cudaGetSymbolAddress((void **)&ws, disp_ws) != cudaSuccess) ws = NULL;
    return ws;
}

/* Runs configuration ci on p with K split `split`, on C^T = B*A^T when `transposed`, where the
 * epilogue goes (disp_epi_where): straight into C when the kernel applies it itself (the plain
 * launch, or launch_epi for an epilogue the configuration fuses), else into the workspace
 * `ws` of ws_bytes (fp32 partial sums) and through splitk_reduce, which applies the whole
 * epilogue once (splitk.cuh): in one pass, or panel by panel when one split's partial sums
 * do not fit (disp_pass_rows, disp_panel; only without a split and not transposed). The
 * choice was checked by disp_refusal and disp_pass_rows. */
static cudaError_t run_config(int ci, const gemm_problem *p, int split, int transposed, int sms,
                              float *ws, long long ws_bytes, cudaStream_t s) {
    const disp_config *c = &disp_configs[ci];
    const gemm_problem q = transposed ? disp_transpose(p) : *p; /* what the kernel computes */
    if (disp_epi_where(c, &q, split, transposed) == DISP_EPI_KERNEL) {
        if (disp_epi_plain(p)) return cfg_kernels[ci].launch(p, 1, NULL, s);
        return cfg_kernels[ci].launch_epi ? cfg_kernels[ci].launch_epi(p, s)
                                          : cudaErrorInvalidValue;
    }
    if (!ws) return cudaErrorMemoryAllocation;
    const int rows = disp_pass_rows(c, &q, split, transposed, ws_bytes);
    if (rows < 1) return cudaErrorInvalidValue;
    for (int m0 = 0; m0 < p->m; m0 += rows) { /* one pass unless panels (rows < M) */
        const gemm_problem part = rows < p->m ? disp_panel(p, m0, rows) : *p;
        const gemm_problem qq = transposed ? disp_transpose(&part) : part;
        cudaError_t e = cfg_kernels[ci].launch(&qq, split, ws, s);
        if (e == cudaSuccess) e = splitk_reduce_launch(ws, split, &part, transposed, sms, s);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* ---- the device the dispatcher plans for ------------------------------------------------ */

/* Read off the current GPU once (SMs, smem per CTA, each configuration's CTAs per SM); the
 * H200 defaults of dispatch.h when there is no usable GPU (--explain on a CPU machine). */
static const disp_device *current_device(void) {
    static disp_device d;
    static int have = 0;
    if (have) return &d;
    d = disp_device_default();
    int dev, sms, optin;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) ==
            cudaSuccess) {
        d.sms = sms;
        d.smem_optin = optin;
        for (int i = 0; i < DISP_NCONFIGS; ++i) {
            /* a configuration that cannot run here keeps 0 CTAs: disp_refusal declines it */
            const int n = disp_smem_bytes(&disp_configs[i]) <= optin ? cfg_kernels[i].occupancy() : 0;
            d.ctas_per_sm[i] = n > 0 ? n : 0;
        }
        d.measured = 1;
    }
    cudaGetLastError(); /* a failed query leaves no sticky error behind */
    have = 1;
    return &d;
}

/* ---- variants: the dispatcher, then every configuration of the registry ------------------- */

/* One configuration forced with --variant NAME: its refusal (with the split it would use), and
 * its launch. */
static const char *check_cfg(int ci, const gemm_problem *p) {
    static char why[256];
    const disp_device *d = current_device();
    return disp_refusal(&disp_configs[ci], p,
                        disp_split_for(ci, p->m, p->n, p->k, d, DISP_WS_BYTES), d, why, sizeof why);
}
static cudaError_t launch_cfg_index(int ci, const gemm_problem *p, cudaStream_t s) {
    const disp_device *d = current_device();
    return run_config(ci, p, disp_split_for(ci, p->m, p->n, p->k, d, DISP_WS_BYTES), 0, d->sms,
                      (float *)workspace(), DISP_WS_BYTES, s);
}

/* Runs choice c (disp_choose, disp_candidates or a tuned entry) on p: with rule R1's copies
 * first when c.repack (A and B K-major into the workspace, K zero-padded to K8 = q.k, the
 * partial sums after them); the configuration then runs q, the problem the rules chose for. */
static cudaError_t run_choice(const gemm_problem *p, const disp_choice *c, cudaStream_t s) {
    const disp_device *d = current_device();
    char *ws = workspace();
    if (!c->repack)
        return run_config(c->cfg, p, c->split, c->transposed, d->sms, (float *)ws, DISP_WS_BYTES,
                          s);
    if (!ws) return cudaErrorMemoryAllocation;
    gemm_problem q = disp_repacked(p);
    uint16_t *A2 = (uint16_t *)ws;
    uint16_t *B2 = (uint16_t *)(ws + disp_align256(2LL * p->m * q.lda));
    q.A = A2;
    q.B = B2;
    cudaError_t e = repack_launch(p->A, p->m, p->k, q.k, p->lda, p->a_kmajor, A2, (int)q.lda, s);
    if (e == cudaSuccess)
        e = repack_launch(p->B, p->n, p->k, q.k, p->ldb, p->b_kmajor, B2, (int)q.ldb, s);
    if (e != cudaSuccess) return e;
    return run_config(c->cfg, &q, c->split, c->transposed, d->sms,
                      (float *)(ws + disp_repack_bytes(p->m, p->n, p->k)), disp_choice_ws(p, c), s);
}

/* --tuned FILE (tune.h): the table `default` looks problems up in first; empty without it. */
static disp_tuned tuned_table;

/* `default`: the dispatcher picks the configuration, its K split and orientation for each
 * problem (the --tuned table's entry when it has one, else the rules: disp_choose_tuned),
 * then launches it. Accepts every problem (a tuned entry that refuses p is refused before any
 * launch, by check_default). */
static cudaError_t launch_default(const gemm_problem *p, cudaStream_t s) {
    disp_choice c;
    int line;
    char why[320];
    if (disp_choose_tuned(p, current_device(), &tuned_table, &c, &line, why, sizeof why))
        return cudaErrorInvalidValue;
    return run_choice(p, &c, s);
}
static const char *check_default(const gemm_problem *p) {
    static char why[320];
    disp_choice c;
    int line;
    const char *no = disp_unsupported(p);
    if (no) return no;
    const int r = disp_choose_tuned(p, current_device(), &tuned_table, &c, &line, why, sizeof why);
    return r == -2 ? why : r ? "no configuration accepts this problem" : NULL;
}

static int explain(const gemm_problem *p, char *buf, size_t len) {
    const disp_device *d = current_device();
    if (!p)
        return snprintf(buf, len, "dispatch for %d SMs, %d KiB of smem per CTA%s%s%s", d->sms,
                        d->smem_optin / 1024,
                        d->measured ? "" : " (no GPU: an H200 assumed, with the registry's CTAs per SM)",
                        tuned_table.path[0] ? "; tuned entries from " : "", tuned_table.path);
    return disp_explain_tuned(p, d, &tuned_table, buf, len);
}

/* ---- the tuner (--tune, --tune-out, --tuned; common/harness.h) ------------------------------
 * A candidate is a disp_choice (tune.h: disp_candidates), carried in harness_candidate.code as
 * (cfg, split, transposed, repack). */
static int tune_candidates(const gemm_problem *p, harness_candidate *out, int max) {
    static disp_choice c[DISP_MAX_CANDIDATES];
    const disp_device *d = current_device();
    int n = disp_candidates(p, d, c, DISP_MAX_CANDIDATES);
    if (n > DISP_MAX_CANDIDATES) n = DISP_MAX_CANDIDATES;
    if (n > max) n = max;
    disp_choice def;
    int line = 0, have_def = 0;
    char why[320];
    have_def = !disp_choose_tuned(p, d, &tuned_table, &def, &line, why, sizeof why);
    for (int i = 0; i < n; ++i) {
        memset(&out[i], 0, sizeof out[i]);
        disp_cand_name(p, &c[i], out[i].name, sizeof out[i].name);
        out[i].code[0] = c[i].cfg;
        out[i].code[1] = c[i].split;
        out[i].code[2] = c[i].transposed;
        out[i].code[3] = c[i].repack;
        if (have_def && disp_same_run(&c[i], &def)) {
            out[i].is_default = 1;
            if (line) snprintf(out[i].note, sizeof out[i].note, "tuned (%.60s line %d)", tuned_table.path,
                              line);
            else if (def.rule < 0) snprintf(out[i].note, sizeof out[i].note, "fallback");
            else snprintf(out[i].note, sizeof out[i].note, "rule %s%s", def.repack ? "R1 " : "",
                          disp_rules[def.rule].id);
        }
    }
    return n;
}
static disp_choice tune_choice(const harness_candidate *h) {
    disp_choice c;
    c.cfg = h->code[0];
    c.split = h->code[1];
    c.transposed = h->code[2];
    c.repack = h->code[3];
    c.rule = -1;
    return c;
}
static cudaError_t tune_launch(const gemm_problem *p, const harness_candidate *h, cudaStream_t s) {
    const disp_choice c = tune_choice(h);
    return run_choice(p, &c, s);
}
static int tune_entry(const gemm_problem *p, const harness_candidate *h, double ms, char *buf,
                      size_t len) {
    const disp_choice c = tune_choice(h);
    return disp_tuned_format(p, &c, ms, buf, len);
}
/* Reads FILE whole and checks it against the device (disp_tuned_load). */
static int tune_load(const char *path, char *err, size_t len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = (char *)malloc(cap);
    for (size_t r; text && (r = fread(text + n, 1, cap - n - 1, f)) > 0;) {
        n += r;
        if (n + 1 == cap) text = (char *)realloc(text, cap *= 2);
    }
    fclose(f);
    if (!text) {
        snprintf(err, len, "%s: out of memory", path);
        return -1;
    }
    text[n] = '\0';
    if (strlen(text) != n) {
        free(text);
        snprintf(err, len, "%s: not a text file (a NUL byte)", path);
        return -1;
    }
    const int r = disp_tuned_load(text, path, current_device(), &tuned_table, err, len);
    free(text);
    return r;
}
static const harness_tuner tuner = {tune_candidates, tune_launch, tune_entry, DISP_TUNED_HEADER,
                                    tune_load};

#define CHECK_LAUNCH(i)                                                                           \
    static const char *check_##i(const gemm_problem *p) { return check_cfg(i, p); }               \
    static cudaError_t launch_##i(const gemm_problem *p, cudaStream_t s) {                        \
        return launch_cfg_index(i, p, s);                                                         \
    }
CHECK_LAUNCH(0)
CHECK_LAUNCH(1)
CHECK_LAUNCH(2)
CHECK_LAUNCH(3)
CHECK_LAUNCH(4)
CHECK_LAUNCH(5)
CHECK_LAUNCH(6)
CHECK_LAUNCH(7)
CHECK_LAUNCH(8)
CHECK_LAUNCH(9)
CHECK_LAUNCH(10)
CHECK_LAUNCH(11)
#undef CHECK_LAUNCH
static const char *(*const cfg_checks[])(const gemm_problem *) = {
    check_0, check_1, check_2, check_3, check_4,  check_5,
    check_6, check_7, check_8, check_9, check_10, check_11};
static cudaError_t (*const cfg_launches[])(const gemm_problem *, cudaStream_t) = {
    launch_0, launch_1, launch_2, launch_3, launch_4, launch_5, launch_6, launch_7, launch_8,
    launch_9, launch_10, launch_11};

int main(int argc, char **argv) {
    static gemm_variant variants[1 + DISP_NCONFIGS];
    static_assert(sizeof cfg_kernels / sizeof cfg_kernels[0] == DISP_NCONFIGS &&
                      sizeof cfg_checks / sizeof cfg_checks[0] == DISP_NCONFIGS &&
                      sizeof cfg_launches / sizeof cfg_launches[0] == DISP_NCONFIGS,
                  "one kernel row per registry entry");
    unsigned dtypes = 0; /* the default variant computes what some configuration computes */
    for (int i = 0; i < DISP_NCONFIGS; ++i) dtypes |= disp_configs[i].dtypes;
    variants[0] = {"default", "the dispatcher: picks a configuration per problem (--explain says which)",
                   dtypes | DISP_EPI_CAPS, GEMM_LAYOUT_ALL, 1, check_default, launch_default};
    for (int i = 0; i < DISP_NCONFIGS; ++i) {
        const disp_config *c = &disp_configs[i];
        if (strcmp(c->name, cfg_kernels[i].name) != 0 ||
            c->fuses != (cfg_kernels[i].launch_epi != NULL)) {
            fprintf(stderr, "08_dispatch: registry row %d (%s, fuses %d) and its kernel row (%s) "
                    "disagree\n", i, c->name, c->fuses, cfg_kernels[i].name);
            return HARNESS_EXIT_CUDA;
        }
        /* every epilogue (fused or in the reduction); fp32 inputs: the fp32 output only */
        const unsigned caps = c->kind == DISP_SIMT ? DISP_EPI_CAPS & ~GEMM_OUT_ALL : DISP_EPI_CAPS;
        variants[1 + i] = {c->name, c->summary, c->dtypes | caps,
                           c->fast_only ? GEMM_LAYOUT_BIT(GEMM_TN) : GEMM_LAYOUT_ALL,
                           c->fast_only ? 8 : 1, cfg_checks[i], cfg_launches[i]};
    }
    static const gemm_lesson lesson = {"08_dispatch", "Dispatch: a registry of kernels, one pick per problem",
                                       1 + DISP_NCONFIGS, variants, GEMM_LAYOUT_BIT(GEMM_TN)};
    harness_set_explain(explain);
    harness_set_tuner(&tuner);
    return harness_main(argc, argv, &lesson);
}
