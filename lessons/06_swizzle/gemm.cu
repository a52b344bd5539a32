/* Lesson 06 - swizzled shared memory and a multi-stage cp.async pipeline.
 *
 * What this lesson shows: lesson 05's Tensor Core kernel with its remaining stalls removed.
 *  1. Bank conflicts. The 8 rows one ldmatrix phase reads are BLK_K halves apart; with
 *     BLK_K = 32 (64-byte rows) rows r and r+2 share banks (4-way conflict), with BLK_K = 64
 *     (128-byte rows) all 8 rows share them (8-way). Instead of padding (lesson 05), the smem
 *     tile is composed with a swizzle: the 16-byte chunk index inside a row is XORed with
 *     row bits (Swizzle<2,3,3> for BLK_K = 32, Swizzle<3,3,3> for BLK_K = 64, on offsets
 *     counted in half elements; see plan.h). Both the 16-byte cp.async stores and the
 *     ldmatrix reads are then conflict-free, with no wasted smem.
 *  2. Memory latency. STAGES K tiles are in flight at once (STAGES - 1 loading while one is
 *     computed), in dynamic shared memory; inside a K tile the ldmatrix fragments of k-step
 *     kk+1 are loaded while the MMAs of k-step kk run (register double buffering), and the
 *     cp.async copies of the next tile are spread over the k-steps between the MMAs. One
 *     __syncthreads per K tile.
 *  3. Instruction overhead. With only 8 warps per SM (each thread holds 128 fp32
 *     accumulators, ~240 registers) every non-MMA instruction delays the next MMA. Address
 *     math is hoisted: per K tile only a pointer moves, smem offsets are immediates, and
 *     while the tile being loaded lies wholly inside A and B the copies carry no predicates
 *     (one IMAD.WIDE + one LDGSTS each); only the last K tiles and edge CTAs take the
 *     predicated, zero-filling copies (the K loop exists twice, see K_TILE). The steady-state
 *     loop must carry no more live state than this: when it also carried the persistent
 *     loader's tile switch, ptxas bunched the ldmatrix loads (fewer free registers) and the
 *     kernel lost 11% (notes/perf.md, run 16).
 *  4. The epilogue. A warp's MMA results lie in registers as 8 rows x 4 lanes x 4 bytes per
 *     store: stored directly, every 128-byte line of C is written in 16-byte pieces. For full
 *     tiles with beta = 0 each warp stages its (64, 64) block in smem (rows padded by 16
 *     bytes: conflict-free both ways) and writes it out in 16-byte chunks, 128 contiguous
 *     bytes per row (whole lines when C's rows are 128-byte aligned, as at 4096^3). At
 *     4096^3 this alone took the kernel from 462 to 492 TFLOP/s (fp16).
 *  5. Persistent CTAs (the default): one CTA per SM walks tiles blockIdx.x, +gridDim.x, ...;
 *     the cp.async pipeline runs on across tiles, so the next tile's first K tiles load while
 *     this tile's last ones are computed and its epilogue runs (own C staging blocks, 216 KiB).
 * Plus: CTAs are launched in groups of RASTER_GROUP tile rows so that neighbours share their
 * A and B panels in L2 (plan_raster in plan.h).
 *
 * Tile configurations (the variants; the first is the default, picked by measurement; one
 * that needs more smem than the GPU allows is refused with the name of one that fits):
 *   128x256x64_s3_persistent  as 128x256x64_s3, one CTA per SM over all tiles, 216 KiB smem
 *   128x256x64_s3   8 warps (2 x 4), warp tile 64x64, 3 stages, 144 KiB smem, 1 CTA/SM
 *   128x128x64_s3   4 warps (2 x 2), warp tile 64x64, 3 stages,  96 KiB smem, 2 CTAs/SM
 *   128x128x32_s4   4 warps (2 x 2), warp tile 64x64, 4 stages,  64 KiB smem (Swizzle<2,3,3>)
 *
 * Every problem is accepted (fp16 and bf16, every layout, any M, N, K, any leading dimension,
 * any base offset). The fast path needs A and B K-major (layout TN), lda and ldb multiples of
 * 8 and 16-byte-aligned A and B: then every cp.async moves 16 aligned bytes, and a K that is
 * not a multiple of 8 only shortens the last chunk (src-size). Anything else takes the
 * generic path: the same kernel and pipeline, but each thread gathers its 8-element chunks
 * with predicated 2-byte loads (either majorness) and stores them to the swizzled tile
 * itself. It is correct everywhere and slow; the table's variant name stays the same, and
 * launch_cfg() chooses. The staged epilogue needs beta = 0, ldc % 8 == 0, C 16-byte aligned
 * and a full tile; otherwise the direct one stores element pairs when ldc is even and C
 * 4-byte aligned, single elements otherwise.
 *
 * Why templates: register arrays need compile-time sizes, the mma instruction (f16/bf16) must
 * be chosen at compile time, and the lesson wants several tile shapes from one source. The
 * template parameters are exactly the named constants of lesson 05; in plain C one would
 * stamp the kernels out with a macro.
 *
 * Build and run:   make lesson06 && ./run
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

/* Swizzled offset (halves) of tile element (row, col), rows BK halves long. */
#define SWZ(row, col, BK) plan_smem_offset((row), (col), (BK), 1, 0)

/* ---- gmem -> smem, fast path: 16-byte cp.async, zero-fill at the edges ------------------
 * The copy plan of one K tile, per thread: A is NA = BM*BK/8/NT copies, B is NB copies.
 * Copy i of A moves the 16-byte chunk idx = tid + i*NT of the (BM,BK) tile: row
 * row0 + i*RSTEP (RSTEP = NT/(BK/8)), the same chunk column for every i. Because NT*8 halves
 * is a multiple of the swizzle period (256 or 512 halves), swizzle(idx*8) = swizzle(tid*8) +
 * i*NT*8: the smem address of copy i is this thread's copy-0 address plus a constant, and
 * the gmem address is the copy-0 pointer plus i*RSTEP rows. Per K tile, only the pointer
 * moves (by BK), and one byte count covers the K edge for all copies (same column).
 * Copies are numbered c = 0 .. NA+NB-1 (A first); the main loop spreads them over the first
 * KSTEPS-1 k-steps of a tile so that they interleave with the MMAs. */
typedef struct copy_state {
    const uint16_t *a, *b;  /* copy-0 sources at k = 0 */
    long long a_step, b_step; /* RSTEP rows of A / B, in elements */
    int a_rows, b_rows;       /* rows left below this thread's copy-0 row (<= 0: none) */
    int col;                  /* this thread's chunk column (halves) */
    uint32_t a_rowb, b_rowb;  /* RSTEP rows of A / B in bytes (interior copies) */
    uint32_t sa, sb;          /* smem byte addresses of copy 0 in stage 0 */
} copy_state;

template <int BM, int BN, int BK, int NT, int STAGES>
static __device__ __forceinline__ void copy_range(const copy_state *cs, int lo, int hi, int st,
                                                  int kt, int K, const uint16_t *safe) {
    enum {
        RSTEP = NT / (BK / 8), NA = BM / RSTEP, NB = BN / RSTEP,
        A_STAGE_B = BM * BK * 2, B_STAGE_B = BN * BK * 2
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
            ptx_cp_async_cg16(da + c * NT * 16, n ? pa : safe, n);
            pa += cs->a_step;
        } else {
            const int i = c - NA;
            const int n = i * RSTEP < cs->b_rows ? kb : 0;
            ptx_cp_async_cg16(db + i * NT * 16, n ? pb : safe, n);
            pb += cs->b_step;
        }
    }
}

/* The same copies for a K tile that lies wholly inside A and B (no predication, no
 * zero-fill): one IMAD.WIDE + one LDGSTS per copy, the smem offsets are immediates. */
template <int BM, int BN, int BK, int NT, int STAGES>
static __device__ __forceinline__ void copy_range_interior(const copy_state *cs, int lo, int hi,
                                                           int st, int kt) {
    enum { RSTEP = NT / (BK / 8), NA = BM / RSTEP, NB = BN / RSTEP,
           A_STAGE_B = BM * BK * 2, B_STAGE_B = BN * BK * 2 };
    const uint16_t *pa = cs->a + kt * BK, *pb = cs->b + kt * BK;
    const uint32_t da = cs->sa + st * A_STAGE_B, db = cs->sb + st * B_STAGE_B;
#pragma unroll
    for (int c = 0; c < NA + NB; ++c) {
        if (c < lo || c >= hi) continue; /* compile-time after unrolling */
        if (c < NA) ptx_cp_async_cg16_row(da + c * NT * 16, pa, cs->a_rowb, c);
        else        ptx_cp_async_cg16_row(db + (c - NA) * NT * 16, pb, cs->b_rowb, c - NA);
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
        *(uint4 *)(s + SWZ(row, col, BK)) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* A CTA computes the (BM, BN) tiles of C numbered blockIdx.x, blockIdx.x + gridDim.x, ...
 * (tile numbers go through plan_raster). With one CTA per tile (grid = tiles) that is one
 * tile; a persistent launch (grid = CTAs that fit on the GPU at once) walks several, and the
 * cp.async pipeline runs on across tile boundaries: the first K tiles of the next tile are in
 * flight while the last ones of this tile are computed and while its epilogue stores C.
 * Warp w owns the (WTM, WTN) = (BM/WARPS_M, BN/WARPS_N) block (w / WARPS_N, w % WARPS_N) of
 * each tile; acc[i][j][0..3] is the C fragment of MMA atom (i, j) of that block. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int PERSIST>
__global__ void __launch_bounds__(32 * WARPS_M * WARPS_N, 1) gemm_swizzle(kargs p) {
    enum {
        NT = 32 * WARPS_M * WARPS_N,
        WTM = BM / WARPS_M, WTN = BN / WARPS_N,
        MI = WTM / MMA_M, NI = WTN / MMA_N, /* atoms per warp along M and N */
        KSTEPS = BK / MMA_K,
        A_STAGE = BM * BK, B_STAGE = BN * BK, /* halves per stage */
        RSTEP = NT / (BK / 8), NCOPY = (BM + BN) / RSTEP, /* 16-byte copies per thread per tile */
        CPK = (NCOPY + KSTEPS - 2) / (KSTEPS - 1),         /* copies issued per k-step */
        C_PAD = 8,     /* halves added to each row of a warp's C staging block (plan.h, 7.) */
        C_LD = WTN + C_PAD, C_CH = WTN / 8 /* its row length; 16-byte chunks per row */
    };
    static_assert(NI % 2 == 0 && KSTEPS % 2 == 0, "B is loaded two atoms at a time");
    static_assert((16 * BK) % 256 == 0 && (NT * 8) % 512 == 0, "offsets must keep the swizzle");
    static_assert(BM % RSTEP == 0 && BN % RSTEP == 0, "copy plan must tile A and B");
    static_assert(32 % C_CH == 0 && (WTM * C_CH) % 32 == 0, "C staging: whole rows per pass");
    static_assert(PERSIST || NT / 32 * WTM * C_LD <= STAGES * (BM + BN) * BK,
                  "C staging must fit in the pipeline's smem");
    /* sA (BM,BK,STAGES), sB (BN,BK,STAGES), then (persistent) the C staging blocks */
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t *sA = smem;
    uint16_t *sB = smem + STAGES * A_STAGE;
    const uint32_t sA_u = ptx_smem_u32(sA), sB_u = ptx_smem_u32(sB);

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

    /* ldmatrix addresses, in bytes. The swizzle only looks at offset bits below 256 (BK = 32)
     * or 512 (BK = 64) halves, and the block offsets (warp, atom) are multiples of 16 rows =
     * 16*BK halves, so swizzle(block + lane part) = block + swizzle(lane part): the per-lane
     * part is computed once here. Moving to k-step kk flips only chunk bits, so lane
     * offset(kk) = lane offset(0) ^ kk*16 halves (plan.h's tests check both identities). */
    const uint32_t a_lane = 2 * SWZ(plan_ldsm_a_row(lane), 8 * plan_ldsm_a_chunk(lane), BK);
    const uint32_t b_lane = 2 * SWZ(plan_ldsm_b_row(lane), 8 * plan_ldsm_b_chunk(lane), BK);
    const uint32_t a_base = sA_u + 2 * (wm * WTM) * BK, b_base = sB_u + 2 * (wn * WTN) * BK;

    uint32_t ra[2][MI][4], rb[2][NI][2]; /* fragments, double-buffered over k-steps */

    /* fast-path copy plan of this thread (see copy_range); the tile-independent part */
    copy_state cs;
    const int crow = plan_copy_row(threadIdx.x, 0, NT, BK); /* this thread's copy-0 row */
    cs.col = plan_copy_chunk(threadIdx.x, 0, NT, BK) * 8;
    cs.a_step = (long long)RSTEP * p.lda;
    cs.b_step = (long long)RSTEP * p.ldb;
    cs.a_rowb = (uint32_t)(2 * cs.a_step);
    cs.b_rowb = (uint32_t)(2 * cs.b_step);
    {
        const uint32_t s0 = 2 * plan_swizzle(threadIdx.x * 8, plan_swizzle_bits(BK), 3, 3);
        cs.sa = sA_u + s0;
        cs.sb = sB_u + s0;
    }

    /* The loader: which K tile the copies issued now belong to. It runs STAGES-1 K tiles
     * ahead of the MMAs through this CTA's sequence of (tile, K tile) pairs. */
    int l_t = 0, l_kt = 0;  /* tile ordinal (>= l_end: nothing left to load) and K tile */
    int l_m0 = 0, l_n0 = 0; /* that tile's origin */
    int l_kfull = 0;        /* its K tiles [0, l_kfull) need no predication */
    const int l_end = ktiles > 0 ? mine : 0;
    /* point the copy plan at tile ordinal l_t (the per-tile part of copy_state) */
#define LOADER_TILE()                                                                          \
    do {                                                                                       \
        int tm_, tn_;                                                                          \
        plan_raster((int)blockIdx.x + l_t * (int)gridDim.x, tiles_m, tiles_n, RASTER_GROUP,    \
                    &tm_, &tn_);                                                               \
        l_m0 = tm_ * BM; l_n0 = tn_ * BN;                                                      \
        cs.a_rows = p.M - l_m0 - crow;                                                         \
        cs.b_rows = p.N - l_n0 - crow;                                                         \
        cs.a = p.A + (long long)(l_m0 + crow) * p.lda + cs.col; /* used only where in range */ \
        cs.b = p.B + (long long)(l_n0 + crow) * p.ldb + cs.col;                               \
        l_kfull = p.rows32 && l_m0 + BM <= p.M && l_n0 + BN <= p.N ? p.K / BK : 0;             \
    } while (0)
    /* after the copies of one K tile: on to the next K tile, or the next tile's first */
#define LOADER_NEXT()                                                                          \
    do {                                                                                       \
        if (++l_kt == ktiles) {                                                                \
            l_kt = 0;                                                                          \
            if (++l_t < l_end) LOADER_TILE(); else l_kfull = 0;                                \
        }                                                                                      \
    } while (0)
    if (l_end > 0) LOADER_TILE();

    /* copies [lo, hi) of the loader's K tile (ktl) into stage st. INTERIOR (a constant): the tile
     * is known to lie inside A and B; otherwise predicated (nothing once the loader is past
     * this CTA's last tile, zero-fill at the edges) */
#define COPIES(st, ktl, lo, hi, INTERIOR)                                                      \
    do {                                                                                       \
        if (INTERIOR) {                                                                        \
            copy_range_interior<BM, BN, BK, NT, STAGES>(&cs, (lo), (hi), (st), (ktl));          \
        } else if (l_t < l_end) {                                                              \
            if (GENERIC) {                                                                     \
                if ((lo) == 0) {                                                               \
                    load_tile_generic<BM, BK, NT>(sA + (st) * A_STAGE, p.A, p.lda, p.a_kmajor, \
                                                  l_m0, p.M, (ktl) * BK, p.K);                 \
                    load_tile_generic<BN, BK, NT>(sB + (st) * B_STAGE, p.B, p.ldb, p.b_kmajor, \
                                                  l_n0, p.N, (ktl) * BK, p.K);                 \
                }                                                                              \
            } else {                                                                           \
                copy_range<BM, BN, BK, NT, STAGES>(&cs, (lo), (hi), (st), (ktl), p.K, p.A);     \
            }                                                                                  \
        }                                                                                      \
    } while (0)

    /* fragments of k-step kk of stage st into buffer buf */
#define LOAD_FRAGS(buf, st, kk)                                                                \
    do {                                                                                       \
        const uint32_t sa_ = a_base + (st) * (2 * A_STAGE) + (a_lane ^ (kk) * 2 * MMA_K);     \
        const uint32_t sb_ = b_base + (st) * (2 * B_STAGE) + (b_lane ^ (kk) * 2 * MMA_K);     \
        _Pragma("unroll") for (int i_ = 0; i_ < MI; ++i_)                                      \
            ptx_ldmatrix_x4(ra[buf][i_], sa_ + 2 * i_ * MMA_M * BK);                           \
        _Pragma("unroll") for (int j_ = 0; j_ < NI; j_ += 2) {                                 \
            uint32_t r_[4];                                                                    \
            ptx_ldmatrix_x4(r_, sb_ + 2 * j_ * MMA_N * BK);                                    \
            rb[buf][j_][0] = r_[0]; rb[buf][j_][1] = r_[1];                                    \
            rb[buf][j_ + 1][0] = r_[2]; rb[buf][j_ + 1][1] = r_[3];                            \
        }                                                                                      \
    } while (0)

    /* prologue: the first STAGES-1 K tiles in flight, wait for the first, its fragments */
#pragma unroll
    for (int st = 0; st < STAGES - 1; ++st) {
        COPIES(st, l_kt, 0, NCOPY, 0);
        ptx_cp_async_commit();
        LOADER_NEXT();
    }
    PTX_CP_ASYNC_WAIT(STAGES - 2);
    __syncthreads();
    int rd = 0;          /* stage being computed */
    int wr = STAGES - 1; /* stage the loader fills next */
    if (l_end > 0) LOAD_FRAGS(0, 0, 0);

    /* main loop. Timeline of one K tile (KSTEPS k-steps):
     *   kk < KSTEPS-1   issue a share (CPK) of the cp.async copies of the loader's K tile
     *                   (STAGES-1 ahead) into stage wr (freed by the previous K tile's barrier)
     *   kk = KSTEPS-1   commit; wait until the next K tile has landed (wait_group STAGES-2);
     *                   barrier; move rd and wr on
     *   every kk        ldmatrix the fragments of k-step kk+1 (the next K tile's first when kk
     *                   is the last), then the MI x NI MMAs of k-step kk */
#define K_TILE(KTL, INTERIOR)                                                                  \
    _Pragma("unroll") for (int kk = 0; kk < KSTEPS; ++kk) {                                    \
        if (kk == KSTEPS - 1) {                                                                \
            ptx_cp_async_commit();                                                             \
            PTX_CP_ASYNC_WAIT(STAGES - 2);                                                     \
            __syncthreads();                                                                   \
            rd = rd + 1 == STAGES ? 0 : rd + 1;                                                \
            wr = wr + 1 == STAGES ? 0 : wr + 1;                                                \
        }                                                                                      \
        if (kk < KSTEPS - 1 || (INTERIOR) || more)                                             \
            LOAD_FRAGS((kk + 1) % 2, rd, (kk + 1) % KSTEPS);                                   \
        if (kk < KSTEPS - 1) COPIES(wr, (KTL), kk * CPK, (kk + 1) * CPK, INTERIOR);            \
        _Pragma("unroll") for (int i = 0; i < MI; ++i)                                         \
        _Pragma("unroll") for (int jj = 0; jj < NI; ++jj) {                                    \
            const int j = i % 2 ? NI - 1 - jj : jj; /* serpentine: reuse B at turns */         \
            if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);          \
            else      ptx_mma_m16n8k16_f16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);           \
        }                                                                                      \
    }
    for (int t = 0; t < mine; ++t) {
        /* While the K tile being loaded lies inside A and B its copies need no predication at
         * all (INTERIOR = 1; then a next K tile to compute surely exists too). This loop is
         * the steady state: at the start of a tile that has more than STAGES-1 K tiles the
         * loader is at its K tile STAGES-1, and it stays inside the tile, STAGES-1 ahead of
         * kt, so the loop carries no loader state but kt (few live registers: the compiler
         * then spreads the ldmatrix loads evenly between the MMAs). The last K tiles, the
         * ones of an edge tile, and the loads of the next tile's first K tiles take the
         * predicated copies in the second loop. */
        int kt = 0;
        if (!GENERIC && l_kt == STAGES - 1) {
            for (; kt + STAGES - 1 < l_kfull; ++kt) {
                const int more = 1;
                K_TILE(kt + STAGES - 1, 1)
            }
            if (kt > 0) {
                l_kt = kt + STAGES - 2;
                LOADER_NEXT(); /* the loader's position after the loop */
            }
        }
        for (; kt < ktiles; ++kt) {
            const int more = kt + 1 < ktiles || t + 1 < mine; /* another K tile follows */
            K_TILE(l_kt, 0)
            LOADER_NEXT();
        }

        /* epilogue of tile t. acc[i][j] holds rows g, g+8 and columns 2t, 2t+1 of atom (i, j)
         * in lane l = 4g + t (plan_mma_c_*): stored as they are, a warp's 4-byte stores hit 8
         * rows x 16 bytes, half sectors. For a full tile with beta == 0 the warp instead
         * writes its (WTM, WTN) block to its own smem block (rows padded by 16 bytes: the 8
         * rows of one store fall in 8 different bank groups), then copies it out in 16-byte
         * chunks, C_CH lanes per row: every warp store writes 4 rows of 128 contiguous bytes
         * (whole lines when C's rows start 128-byte aligned). */
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
            uint16_t *sC = smem + (PERSIST ? STAGES * (A_STAGE + B_STAGE) : 0) + warp * WTM * C_LD;
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int r = i * MMA_M + plan_mma_c_row(lane, 2 * h);
                        const int c = j * MMA_N + plan_mma_c_col(lane, 0);
                        *(uint32_t *)(sC + plan_cstage_offset(r, c, WTN, C_PAD)) = f32x2_to_pair(
                            p.alpha * acc[i][j][2 * h], p.alpha * acc[i][j][2 * h + 1], BF16);
                        acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
                    }
            __syncwarp(); /* every lane's pairs are in smem before any lane reads a row */
            uint16_t *gC = p.C + (long long)(m0 + wm * WTM) * p.ldc + n0 + wn * WTN;
#pragma unroll 4
            for (int it = 0; it < WTM * C_CH / 32; ++it) {
                const int r = plan_cstage_out_row(it, lane, WTN), c = plan_cstage_out_col(lane, WTN);
                *(uint4 *)(gC + (long long)r * p.ldc + c) =
                    *(const uint4 *)(sC + plan_cstage_offset(r, c, WTN, C_PAD));
            }
            __syncwarp(); /* all reads done before the next tile's pairs overwrite the block */
        } else {
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int m = m0 + wm * WTM + i * MMA_M + plan_mma_c_row(lane, 2 * h);
                        const int n = n0 + wn * WTN + j * MMA_N + plan_mma_c_col(lane, 0);
                        float v0 = p.alpha * acc[i][j][2 * h], v1 = p.alpha * acc[i][j][2 * h + 1];
                        acc[i][j][2 * h] = acc[i][j][2 * h + 1] = 0.0f; /* for the next tile */
                        if (m >= p.M || n >= p.N) continue;
                        uint16_t *c = p.C + (long long)m * p.ldc + n;
                        const int two = n + 1 < p.N;
                        if (p.beta != 0.0f) { /* C is read only when beta != 0 */
                            v0 += p.beta * elem_to_f32(c[0], BF16);
                            if (two) v1 += p.beta * elem_to_f32(c[1], BF16);
                        }
                        if (two && p.pair_ok) {
                            *(uint32_t *)c = f32x2_to_pair(v0, v1, BF16);
                        } else {
                            c[0] = f32_to_elem(v0, BF16);
                            if (two) c[1] = f32_to_elem(v1, BF16);
                        }
                    }
        }
    }
#undef K_TILE
    ptx_cp_async_wait_all(); /* only empty groups can be left; leave nothing in flight */
#undef COPIES
#undef LOAD_FRAGS
#undef LOADER_TILE
#undef LOADER_NEXT
}

/* Dynamic smem of one CTA in bytes: the pipeline stages, plus (persistent) one C staging
 * block of (WTM, WTN + 8) halves per warp. */
static size_t smem_bytes(int bm, int bn, int bk, int warps_m, int warps_n, int stages,
                         int persist) {
    const size_t stages_b = (size_t)stages * (bm + bn) * bk * 2;
    return stages_b + (persist ? (size_t)warps_m * warps_n * (bm / warps_m) * (bn / warps_n + 8) * 2 : 0);
}

/* Sets the dynamic smem limit (checked) and launches one instantiation: one CTA per tile,
 * or (PERSIST) as many CTAs as fit on the GPU at once, never more than there are tiles; the
 * persistent kernel has its own C staging blocks after the pipeline stages. */
template <int BF16, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int GENERIC,
          int PERSIST>
static cudaError_t launch_one(const kargs *a, cudaStream_t s) {
    const int threads = 32 * WARPS_M * WARPS_N;
    const size_t smem = smem_bytes(BM, BN, BK, WARPS_M, WARPS_N, STAGES, PERSIST);
    void (*kernel)(kargs) =
        gemm_swizzle<BF16, BM, BN, BK, WARPS_M, WARPS_N, STAGES, GENERIC, PERSIST>;
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

/* The 1-D grid holds at most 2^31 - 1 CTAs; tile indices must fit an int. A variant whose CTA
 * needs more shared memory than this GPU gives one block (cudaDevAttrMaxSharedMemoryPerBlockOptin:
 * 227 KiB on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89) is refused before launch, naming
 * the largest variant that fits, instead of failing in cudaFuncSetAttribute. */
/* every variant's dynamic smem (the one table of it; its configurations are those of the
 * launch_* functions above), largest first */
static const struct { const char *name; size_t smem; } by_smem[] = {
    {"128x256x64_s3_persistent", smem_bytes(128, 256, 64, 2, 4, 3, 1)}, /* 221,184 B */
    {"128x256x64_s3", smem_bytes(128, 256, 64, 2, 4, 3, 0)},            /* 147,456 B */
    {"128x128x64_s3", smem_bytes(128, 128, 64, 2, 2, 3, 0)},            /*  98,304 B */
    {"128x128x32_s4", smem_bytes(128, 128, 32, 2, 2, 4, 0)}};           /*  65,536 B */
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
    V(128x256x64_s3, "8 warps (2x4) of 64x64, 3-stage cp.async, Swizzle<3,3,3>, 144 KiB smem"),
    V(128x128x64_s3, "4 warps (2x2) of 64x64, 3-stage cp.async, Swizzle<3,3,3>, 96 KiB smem"),
    V(128x128x32_s4, "4 warps (2x2) of 64x64, 4-stage cp.async, Swizzle<2,3,3>, 64 KiB smem"),
};

static const gemm_lesson lesson = {"06_swizzle", "Swizzled smem + multi-stage cp.async pipeline",
                                   (int)(sizeof variants / sizeof variants[0]), variants, GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
