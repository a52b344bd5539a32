/* Lesson 05 - Tensor Cores: ldmatrix + mma.sync.m16n8k16, three levels of tiling.
 *
 * What this lesson shows: the same C = alpha*A*B^T + beta*C, now computed by the Tensor Cores
 * through the warp-wide instruction mma.sync.aligned.m16n8k16 (fp16 or bf16 inputs, fp32
 * accumulators). The work is split on three levels (first kernel, gemm_mma, variant padded):
 *   CTA tile   BLK_M x BLK_N x BLK_K = 128 x 128 x 64   one CTA of 4 warps per C tile
 *   warp tile  WARP_M x WARP_N        =  64 x  64        the 4 warps as a 2 x 2 grid
 *   MMA atom   16 x 8 x 16                               each warp: 4 x 8 atoms per k-step
 * Data path per K tile: gmem --cp.async 16 B--> smem (2 stages: load tile k+1 while computing
 * tile k) --ldmatrix.x4--> registers in the exact fragment order mma.sync wants --> HMMA.
 * With BLK_K = 64 a K tile is 4 k-steps of MMAs: the copy of the next tile has that long to
 * land, and there are half as many barriers per K as with BLK_K = 32.
 * Epilogue: alpha*acc + beta*C in fp32, rounded to the input type, stored with predication.
 *
 * The default (gemm_mma_db, variant padded_128x256x128) keeps the warp tile, the atoms, the
 * padded smem and the 2 stages, and changes three things (measured on the H200: the lean loop
 * alone gains nothing, the wide tile alone loses; together +3-4%, and BLK_K = 128 another +3%):
 *   - a 128 x 256 CTA tile of 8 warps (2 x 4): a quarter fewer copies per MMA, 1 CTA/SM;
 *   - a leaner K loop: one barrier per K tile, fragments double-buffered across k-steps,
 *     unpredicated copies while the tile lies inside A and B (SASS: 210 instructions per K
 *     tile of 64 and warp for its 128 HMMAs, against 449 in the first kernel);
 *   - BLK_K = 128: with only 2 stages, the copy of K tile t+1 has the 8 k-steps of tile t to
 *     land instead of 4, and there are half as many barriers per K (204 KiB of smem).
 *
 * Variants (the first is the default)
 *   padded_128x256x128  128x256x128 CTA, 8 warps (2x4) of 64x64, padded smem (204 KiB),
 *                   2 stages, the lean K loop of gemm_mma_db; 1 CTA/SM. sm_90 (227 KiB per
 *                   CTA) only: refused on GPUs that allow less, naming a variant that fits.
 *   padded_128x256  the same with BLK_K = 64 (108 KiB: sm_80 and sm_90).
 *   padded     the first kernel: every smem row is BLK_K + 8 halves long (144 B instead of
 *              128 B), so the 8 row addresses of one ldmatrix phase land in 8 different
 *              16-byte bank groups: conflict-free reads at the price of 12.5% more smem
 *              (73.7 KiB, so the buffer is dynamic shared memory; two CTAs fit on one SM).
 *   unpadded   rows of exactly 128 B: all 8 rows of an ldmatrix phase start on the same
 *              banks, an 8-way bank conflict. Kept to measure what lesson 06 fixes properly
 *              (with a swizzle instead of padding).
 *   padded_k32 the padded kernel with BLK_K = 32 (rows of 40 halves): the same work in K
 *              tiles half as long, to measure what the longer K tile buys.
 *
 * Limits (refused with a message by the harness, never a fault):
 *   layout TN only (A K-major, B K-major; other orders need ldmatrix.trans, see lesson 06);
 *   align = 8: lda, ldb, ldc and the A/B/C base pointers must be multiples of 8 elements
 *   (16 bytes), because every cp.async moves 16 aligned bytes. Any M, N, K >= 1 works: edge
 *   tiles are zero-filled through cp.async's src-size operand (a partial last 8-element chunk
 *   of K copies only its valid bytes), and the epilogue checks every row and column.
 *   Shared memory per CTA: the default needs 204 KiB (sm_90 only), padded_128x256 108 KiB
 *   (sm_80 and sm_90); on a GPU that allows less they are refused before any launch, with a
 *   message naming a variant that fits (check_smem; padded needs 72 KiB).
 *
 * Why a template: the fp16 and bf16 kernels differ only in the mma instruction and the
 * conversions, and the variants only in a padding constant, BLK_K and the CTA width. Register
 * arrays need compile-time sizes and the instruction must be chosen at compile time, so the
 * kernels take them as template parameters (in plain C one would stamp the kernels out with
 * a macro).
 *
 * Build and run:   make lesson05 && ./run
 *                  ./run --variant padded_128x256 --dtype fp16 --size 4096x4096x4096
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include <stdint.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "harness.h"
#include "ptx.h"

#define BLK_M 128
#define BLK_N 128
#define BLK_K 64                            /* the padded_k32 variant uses 32 (a template
                                               parameter BK in the kernel) */
#define WARPS_M 2
#define WARPS_N 2
#define NTHREADS (32 * WARPS_M * WARPS_N)  /* 128 */
#define WARP_M (BLK_M / WARPS_M)            /* 64 */
#define WARP_N (BLK_N / WARPS_N)            /* 64 */
#define MMA_M 16
#define MMA_N 8
#define MMA_K 16
#define MI (WARP_M / MMA_M)                 /* 4 atoms along M per warp */
#define NI (WARP_N / MMA_N)                 /* 8 atoms along N per warp */
#define STAGES 2
#define PAD_HALVES 8                        /* used by the "padded" variants */

/* ---- element conversions (BF16 is a compile-time constant: the other branch vanishes) --- */

static __device__ __forceinline__ float elem_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
static __device__ __forceinline__ uint16_t f32_to_elem(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}

/* ---- gmem -> smem: one K tile of A (BLK_M x BK) or B (BLK_N x BK) --------------------
 * The tile is ROWS rows of BK/8 16-byte chunks; thread t copies chunks t, t + NTHREADS, ...
 * (row = idx / (BK/8), chunk = idx % (BK/8)), so 8 neighbouring threads cover one full
 * 128-byte row segment (BK = 64). Rows past `rows_left` or columns past `k_left` are
 * zero-filled through cp.async's src-size operand. */
template <int ROWS, int SROW, int BK>
static __device__ __forceinline__ void load_tile(uint16_t *s,            /* (ROWS,SROW) */
                                                 const uint16_t *g,      /* (ROWS,K) at tile */
                                                 long long ld, int rows_left, int k_left,
                                                 const uint16_t *safe) {
    enum { CHUNKS_PER_ROW = BK / 8 };
#pragma unroll
    for (int i = 0; i < ROWS * CHUNKS_PER_ROW / NTHREADS; ++i) {
        const int idx = threadIdx.x + i * NTHREADS;
        const int row = idx / CHUNKS_PER_ROW;
        const int col = (idx % CHUNKS_PER_ROW) * 8;
        int valid = k_left - col;                     /* elements of this chunk inside K */
        valid = valid < 0 ? 0 : (valid > 8 ? 8 : valid);
        if (row >= rows_left) valid = 0;
        const uint16_t *src = valid ? g + (long long)row * ld + col : safe;
        ptx_cp_async_cg16(ptx_smem_u32(s + row * SROW + col), src, valid * 2);
    }
}

/* ---- epilogue: C = alpha*acc + beta*C for one warp tile at (wm0, wn0) ------------------
 * lane l holds rows g, g+8 and columns 2t, 2t+1 of each atom (g = l/4, t = l%4). */
template <int BF16>
static __device__ __forceinline__ void store_c(const float acc[MI][NI][4], int M, int N,
                                               float alpha, float beta, uint16_t *C,
                                               long long ldc, int wm0, int wn0, int lane) {
    const int g = lane / 4, t = lane % 4;
    const int pair_ok = (ldc % 2 == 0) && (((uintptr_t)C & 3) == 0);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = wm0 + i * MMA_M + g + 8 * h;
                const int n = wn0 + j * MMA_N + 2 * t;
                if (m >= M || n >= N) continue;
                uint16_t *c = C + (long long)m * ldc + n;
                const int two = n + 1 < N;
                float v0 = alpha * acc[i][j][2 * h], v1 = alpha * acc[i][j][2 * h + 1];
                if (beta != 0.0f) {                    /* C is read only when beta != 0 */
                    v0 += beta * elem_to_f32(c[0], BF16);
                    if (two) v1 += beta * elem_to_f32(c[1], BF16);
                }
                if (two && pair_ok) {
                    *(uint32_t *)c = (uint32_t)f32_to_elem(v0, BF16) |
                                     ((uint32_t)f32_to_elem(v1, BF16) << 16);
                } else {
                    c[0] = f32_to_elem(v0, BF16);
                    if (two) c[1] = f32_to_elem(v1, BF16);
                }
            }
}

/* C tile (BLK_M, BLK_N) at (blockIdx.y, blockIdx.x). 4 warps, warp w owns the 64x64 block
 * (w / WARPS_N, w % WARPS_N) of it; acc[mi][ni][0..3] is the C fragment of atom (mi, ni). */
template <int BF16, int PAD, int BK>
__global__ void __launch_bounds__(NTHREADS)
gemm_mma(int M, int N, int K, float alpha, const uint16_t *__restrict__ A, long long lda,
         const uint16_t *__restrict__ B, long long ldb, float beta, uint16_t *C,
         long long ldc) {
    enum {
        KSTEPS = BK / MMA_K,                           /* k-steps per K tile (4 for BK = 64) */
        SROW = BK + PAD                                /* smem row length in halves */
    };
    /* 2 stages of (BLK_M + BLK_N) rows of SROW halves: more than the 48 KiB a static
     * __shared__ array may have, so the buffer is dynamic (size set at launch) */
    extern __shared__ __align__(16) uint16_t smem[];
    uint16_t(*sA)[BLK_M * SROW] = (uint16_t(*)[BLK_M * SROW])smem;          /* (BLK_M,BK,stage) */
    uint16_t(*sB)[BLK_N * SROW] = (uint16_t(*)[BLK_N * SROW])(smem + STAGES * BLK_M * SROW);

    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int m0 = blockIdx.y * BLK_M, n0 = blockIdx.x * BLK_N;
    const uint16_t *gA = A + (long long)m0 * lda;     /* (BLK_M,K) rows of this CTA */
    const uint16_t *gB = B + (long long)n0 * ldb;     /* (BLK_N,K) */
    const int ktiles = (K + BK - 1) / BK;

    float acc[MI][NI][4];                              /* (MI,NI) atoms x 4 values */
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    /* ldmatrix.x4 row addresses (element offsets inside one stage).
     * A: lane l reads row l%16 of the warp's 16-row block, 8-column half l/16, so the four
     *    8x8 matrices are (rows 0-7,k 0-7) (8-15,0-7) (0-7,8-15) (8-15,8-15) = a0a1..a6a7.
     * B: lane l reads row n = (l%8) + 8*(l/16), half (l/8)%2, so matrices are
     *    (n 0-7,k 0-7) (n 0-7,k 8-15) (n 8-15,k 0-7) (n 8-15,k 8-15) = b0b1,b2b3 of two atoms. */
    const int a_off = (wm * WARP_M + lane % 16) * SROW + (lane / 16) * 8;
    const int b_off = (wn * WARP_N + lane % 8 + 8 * (lane / 16)) * SROW + ((lane / 8) % 2) * 8;

    /* prologue: tile 0 into stage 0 */
    load_tile<BLK_M, SROW, BK>(sA[0], gA, lda, M - m0, K, A);
    load_tile<BLK_N, SROW, BK>(sB[0], gB, ldb, N - n0, K, B);
    ptx_cp_async_commit();

    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt % STAGES;
        if (kt + 1 < ktiles) {                         /* prefetch tile kt+1 into the other stage */
            const int k1 = (kt + 1) * BK;
            load_tile<BLK_M, SROW, BK>(sA[cur ^ 1], gA + k1, lda, M - m0, K - k1, A);
            load_tile<BLK_N, SROW, BK>(sB[cur ^ 1], gB + k1, ldb, N - n0, K - k1, B);
            ptx_cp_async_commit();
            PTX_CP_ASYNC_WAIT(1);                      /* tile kt has landed, kt+1 in flight */
        } else {
            PTX_CP_ASYNC_WAIT(0);
        }
        __syncthreads();                               /* everyone's copies of tile kt visible */

        const uint32_t sa = ptx_smem_u32(sA[cur]), sb = ptx_smem_u32(sB[cur]);
#pragma unroll
        for (int kk = 0; kk < KSTEPS; ++kk) {
            uint32_t ra[MI][4], rb[NI][2];             /* fragments of this k-step */
#pragma unroll
            for (int i = 0; i < MI; ++i)
                ptx_ldmatrix_x4(ra[i], sa + 2 * (a_off + i * MMA_M * SROW + kk * MMA_K));
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                uint32_t r[4];
                ptx_ldmatrix_x4(r, sb + 2 * (b_off + j * MMA_N * SROW + kk * MMA_K));
                rb[j][0] = r[0]; rb[j][1] = r[1]; rb[j + 1][0] = r[2]; rb[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
                for (int j = 0; j < NI; ++j) {
                    if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[i], rb[j]);
                    else      ptx_mma_m16n8k16_f16(acc[i][j], ra[i], rb[j]);
                }
        }
        __syncthreads();                               /* stage cur is free for tile kt+2 */
    }

    store_c<BF16>(acc, M, N, alpha, beta, C, ldc, m0 + wm * WARP_M, n0 + wn * WARP_N, lane);
}

/* ---- the default (padded_128x256x128; also padded_128x256): a wider CTA tile, a tighter loop
 * Same warp tile and atoms, same padded smem, same 2 stages as gemm_mma; the CTA tile is
 * BLK_M x (WN * WARP_N) with WARPS_M x WN warps (WN = 4: 128 x 256, 8 warps), and the schedule
 * changes:
 *  1. One __syncthreads per K tile (at its last k-step) instead of two. The barrier says both
 *     "tile kt+1 has landed everywhere" and "every warp has finished reading stage kt%2", so
 *     the copies of tile kt+2 go into stage kt%2 right after it: they have a whole K tile of
 *     MMAs to land in, as in the simple kernel.
 *  2. Fragments double-buffered: the ldmatrix of k-step kk+1 are issued before the MMAs of
 *     k-step kk (at the last k-step, those of the next tile's k-step 0), so no MMA waits for
 *     shared memory. Costs 64 registers (two fragment buffers).
 *  3. The K loop is unrolled by the 2 stages: stage offsets become immediates.
 *  4. While the tile being copied lies wholly inside A and B, its copies take no predicates:
 *     one pointer per operand and a 32-bit row step (the predicated copies of load_tile cost
 *     ~15 instructions each). The loop exists twice: interior, and edge/last tiles.
 * The MMAs of a k-step run in serpentine order (row i even: j up, odd: j down), so the B
 * fragment at each turn is reused at once.
 * BK = 128 (the default, padded_128x256x128) gives the copies of a K tile 8 k-steps to land
 * instead of 4 and halves the barriers per K; BK = 64 is the step before it (padded_128x256). */
template <int BF16, int WN, int BK>
__global__ void __launch_bounds__(32 * WARPS_M * WN)
gemm_mma_db(int M, int N, int K, float alpha, const uint16_t *__restrict__ A, long long lda,
            const uint16_t *__restrict__ B, long long ldb, float beta, uint16_t *C,
            long long ldc) {
    enum {
        BN = WN * WARP_N, NT = 32 * WARPS_M * WN,         /* CTA tile BLK_M x BN, NT threads */
        KSTEPS = BK / MMA_K, SROW = BK + PAD_HALVES,
        A_STAGE = BLK_M * SROW, B_STAGE = BN * SROW,   /* halves per stage */
        RSTEP = NT / (BK / 8),                            /* rows between a thread's copies */
        NA = BLK_M / RSTEP, NB = BN / RSTEP               /* copies per thread and tile */
    };
    static_assert(KSTEPS % 2 == 0, "the fragment buffer of k-step 0 must be buffer 0");
    static_assert(NT % (BK / 8) == 0 && BLK_M % RSTEP == 0 && BN % RSTEP == 0,
                  "the copy plan must tile A and B");
    extern __shared__ __align__(16) uint16_t smem[];
    uint16_t *sA = smem;                                   /* (BLK_M,SROW,stage) */
    uint16_t *sB = smem + STAGES * A_STAGE;                /* (BN,SROW,stage) */
    const uint32_t sA_u = ptx_smem_u32(sA), sB_u = ptx_smem_u32(sB);

    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int wm = warp / WN, wn = warp % WN;
    const int tm = blockIdx.y, tn = blockIdx.x;            /* this CTA's tile of C */
    const int m0 = tm * BLK_M, n0 = tn * BN;
    const uint16_t *gA = A + (long long)m0 * lda;          /* (BLK_M,K) */
    const uint16_t *gB = B + (long long)n0 * ldb;          /* (BN,K) */
    const int ktiles = (K + BK - 1) / BK;

    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    /* ldmatrix row addresses in bytes, stage 0, k-step 0 (same lanes as gemm_mma) */
    const uint32_t a_frag = sA_u + 2 * ((wm * WARP_M + lane % 16) * SROW + (lane / 16) * 8);
    const uint32_t b_frag =
        sB_u + 2 * ((wn * WARP_N + lane % 8 + 8 * (lane / 16)) * SROW + ((lane / 8) % 2) * 8);
    uint32_t ra[2][MI][4], rb[2][NI][2];                   /* fragments, two k-steps */

    /* copy plan: copy i of this thread is row crow + i*RSTEP, chunk column ccol (the chunk
     * load_tile numbers idx = tid + i*NT); the smem offsets of copies i differ by
     * constants, the gmem ones by i row steps */
    const int crow = threadIdx.x / (BK / 8), ccol = (threadIdx.x % (BK / 8)) * 8;
    const uint16_t *ca = gA + (long long)crow * lda + ccol;
    const uint16_t *cb = gB + (long long)crow * ldb + ccol;
    const uint32_t ca_rowb = (uint32_t)(RSTEP * lda * 2), cb_rowb = (uint32_t)(RSTEP * ldb * 2);
    const uint32_t cs_a = sA_u + 2 * (crow * SROW + ccol), cs_b = sB_u + 2 * (crow * SROW + ccol);
    /* predicated copies: rows left below copy 0 (copy i is valid if i*RSTEP < rows), steps */
    const int a_rows = M - m0 - crow, b_rows = N - n0 - crow;
    const long long a_step = RSTEP * lda, b_step = RSTEP * ldb;
    /* tiles [0, kfull) lie inside A and B for this CTA (and row offsets fit 32 bits) */
    const int kfull = m0 + BLK_M <= M && n0 + BN <= N &&
                              (long long)BLK_M * lda < (1LL << 30) &&
                              (long long)BN * ldb < (1LL << 30)
                          ? K / BK : 0;

/* fragments of k-step kk of stage st into buffer buf */
#define DB_FRAGS(buf, st, kk)                                                                  \
    do {                                                                                       \
        const uint32_t a_ = a_frag + (st) * (2 * A_STAGE) + (kk) * (2 * MMA_K);               \
        const uint32_t b_ = b_frag + (st) * (2 * B_STAGE) + (kk) * (2 * MMA_K);               \
        _Pragma("unroll") for (int i_ = 0; i_ < MI; ++i_)                                      \
            ptx_ldmatrix_x4(ra[buf][i_], a_ + i_ * (2 * MMA_M * SROW));                        \
        _Pragma("unroll") for (int j_ = 0; j_ < NI; j_ += 2) {                                 \
            uint32_t r_[4];                                                                    \
            ptx_ldmatrix_x4(r_, b_ + j_ * (2 * MMA_N * SROW));                                 \
            rb[buf][j_][0] = r_[0]; rb[buf][j_][1] = r_[1];                                    \
            rb[buf][j_ + 1][0] = r_[2]; rb[buf][j_ + 1][1] = r_[3];                            \
        }                                                                                      \
    } while (0)
/* all copies of K tile kt into stage st, then commit (an empty group past the end of K) */
#define DB_COPIES(st, kt, INT)                                                                 \
    do {                                                                                       \
        if (INT) {                                                                             \
            const uint16_t *pa_ = ca + (kt) * BK, *pb_ = cb + (kt) * BK;                       \
            _Pragma("unroll") for (int i_ = 0; i_ < NA; ++i_)                                  \
                ptx_cp_async_cg16_row(cs_a + (st) * (2 * A_STAGE) + i_ * (2 * RSTEP * SROW),   \
                                      pa_, ca_rowb, i_);                                       \
            _Pragma("unroll") for (int i_ = 0; i_ < NB; ++i_)                                  \
                ptx_cp_async_cg16_row(cs_b + (st) * (2 * B_STAGE) + i_ * (2 * RSTEP * SROW),   \
                                      pb_, cb_rowb, i_);                                       \
        } else if ((kt) < ktiles) {                                                            \
            int kb_ = 2 * (K - (kt) * BK - ccol); /* bytes of this chunk inside K */           \
            kb_ = kb_ < 0 ? 0 : (kb_ > 16 ? 16 : kb_);                                         \
            const uint16_t *pa_ = ca + (kt) * BK, *pb_ = cb + (kt) * BK;                       \
            _Pragma("unroll") for (int i_ = 0; i_ < NA; ++i_) {                                \
                const int n_ = i_ * RSTEP < a_rows ? kb_ : 0;                                  \
                ptx_cp_async_cg16(cs_a + (st) * (2 * A_STAGE) + i_ * (2 * RSTEP * SROW),       \
                                  n_ ? pa_ : A, n_);                                           \
                pa_ += a_step;                                                                 \
            }                                                                                  \
            _Pragma("unroll") for (int i_ = 0; i_ < NB; ++i_) {                                \
                const int n_ = i_ * RSTEP < b_rows ? kb_ : 0;                                  \
                ptx_cp_async_cg16(cs_b + (st) * (2 * B_STAGE) + i_ * (2 * RSTEP * SROW),       \
                                  n_ ? pb_ : B, n_);                                           \
                pb_ += b_step;                                                                 \
            }                                                                                  \
        }                                                                                      \
        ptx_cp_async_commit();                                                                 \
    } while (0)
/* K tile kt from stage cur (a constant). INT: the copies of tile kt+2 are interior. At the
 * last k-step: wait for tile kt+1, barrier, its first fragments, copies of kt+2 into cur. */
#define DB_K_TILE(cur, INT)                                                                    \
    _Pragma("unroll") for (int kk = 0; kk < KSTEPS; ++kk) {                                    \
        if (kk < KSTEPS - 1) {                                                                 \
            DB_FRAGS((kk + 1) % 2, cur, kk + 1);                                               \
        } else if ((INT) || kt + 1 < ktiles) {                                                 \
            PTX_CP_ASYNC_WAIT(0);                                                              \
            __syncthreads();                                                                   \
            DB_FRAGS(0, (cur) ^ 1, 0);                                                         \
            DB_COPIES(cur, kt + 2, INT);                                                       \
        }                                                                                      \
        _Pragma("unroll") for (int i = 0; i < MI; ++i)                                         \
        _Pragma("unroll") for (int jj = 0; jj < NI; ++jj) {                                    \
            const int j = i % 2 ? NI - 1 - jj : jj;                                            \
            if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);          \
            else      ptx_mma_m16n8k16_f16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);           \
        }                                                                                      \
    }

    /* prologue: tiles 0 and 1 in flight, wait for tile 0, its first fragments */
    DB_COPIES(0, 0, 0);
    DB_COPIES(1, 1, 0);
    PTX_CP_ASYNC_WAIT(1);
    __syncthreads();
    DB_FRAGS(0, 0, 0);

    int kt = 0;
    for (; kt + 3 < kfull; kt += 2) { /* while tiles kt+2 and kt+3 (copied here) are interior */
        DB_K_TILE(0, 1)
        ++kt;
        DB_K_TILE(1, 1)
        --kt;
    }
    for (; kt + 1 < ktiles; kt += 2) {
        DB_K_TILE(0, 0)
        ++kt;
        DB_K_TILE(1, 0)
        --kt;
    }
    if (kt < ktiles) { DB_K_TILE(0, 0) }
#undef DB_K_TILE
#undef DB_COPIES
#undef DB_FRAGS
    ptx_cp_async_wait_all(); /* only empty groups can be left */

    store_c<BF16>(acc, M, N, alpha, beta, C, ldc, m0 + wm * WARP_M, n0 + wn * WARP_N, lane);
}

typedef void (*mma_kernel)(int, int, int, float, const uint16_t *, long long, const uint16_t *,
                           long long, float, uint16_t *, long long);

/* Launches `kernel` with one CTA of `threads` threads per bm x bn tile of C (grid
 * (ceil(N/bn), ceil(M/bm))) and `smem` bytes of dynamic shared memory, opted in first (more
 * than 48 KiB needs cudaFuncAttributeMaxDynamicSharedMemorySize; CUDA C++ Programming Guide,
 * "Shared Memory"). Returns the first CUDA error. */
static cudaError_t launch_tiles(mma_kernel kernel, int bm, int bn, int threads, size_t smem,
                                const gemm_problem *p, cudaStream_t s) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((p->n + bn - 1) / bn), (unsigned)((p->m + bm - 1) / bm));
    kernel<<<grid, dim3(threads), smem, s>>>(p->m, p->n, p->k, p->alpha, (const uint16_t *)p->A,
                                              p->lda, (const uint16_t *)p->B, p->ldb, p->beta,
                                              (uint16_t *)p->C, p->ldc);
    return cudaGetLastError();
}

template <int BF16, int PAD, int BK>
static cudaError_t launch_one(const gemm_problem *p, cudaStream_t s) {
    const size_t smem = (size_t)STAGES * (BLK_M + BLK_N) * (BK + PAD) * 2;
    return launch_tiles(gemm_mma<BF16, PAD, BK>, BLK_M, BLK_N, NTHREADS, smem, p, s);
}

template <int PAD, int BK>
static cudaError_t launch_mma(const gemm_problem *p, cudaStream_t s) {
    return p->dtype == GEMM_BF16 ? launch_one<1, PAD, BK>(p, s) : launch_one<0, PAD, BK>(p, s);
}

static cudaError_t launch_padded(const gemm_problem *p, cudaStream_t s) {
    return launch_mma<PAD_HALVES, BLK_K>(p, s);
}
static cudaError_t launch_unpadded(const gemm_problem *p, cudaStream_t s) {
    return launch_mma<0, BLK_K>(p, s);
}
static cudaError_t launch_padded_k32(const gemm_problem *p, cudaStream_t s) {
    return launch_mma<PAD_HALVES, 32>(p, s);
}

/* Dynamic shared memory of gemm_mma_db<*, WN, BK>: STAGES x (BLK_M + WN*WARP_N) padded rows. */
static size_t db_smem_bytes(int wn, int bk) {
    return (size_t)STAGES * (BLK_M + wn * WARP_N) * (bk + PAD_HALVES) * 2;
}

template <int BF16, int WN, int BK>
static cudaError_t launch_db_one(const gemm_problem *p, cudaStream_t s) {
    const size_t smem = db_smem_bytes(WN, BK);
    return launch_tiles(gemm_mma_db<BF16, WN, BK>, BLK_M, WN * WARP_N, 32 * WARPS_M * WN, smem,
                        p, s);
}
template <int WN, int BK>
static cudaError_t launch_db(const gemm_problem *p, cudaStream_t s) {
    return p->dtype == GEMM_BF16 ? launch_db_one<1, WN, BK>(p, s) : launch_db_one<0, WN, BK>(p, s);
}
static cudaError_t launch_padded_128x256x128(const gemm_problem *p, cudaStream_t s) {
    return launch_db<4, 128>(p, s);
}
static cudaError_t launch_padded_128x256(const gemm_problem *p, cudaStream_t s) {
    return launch_db<4, BLK_K>(p, s);
}

/* Beyond the harness's own checks (dtype, layout, align = 8). */
static const char *check_mma(const gemm_problem *p) {
    if (!p->a_kmajor || !p->b_kmajor)
        return "lesson 05 needs A and B K-major (layout TN); lesson 06 takes every layout";
    if ((p->m + BLK_M - 1) / BLK_M > 65535)
        return "M must be at most 8388480 (grid.y limit of 65535 CTAs of 128 rows)";
    return NULL;
}
/* The 128x256 kernels take more shared memory per CTA than some GPUs allow (cudaDevAttr-
 * MaxSharedMemoryPerBlockOptin: 227 KiB on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89;
 * CUDA C++ Programming Guide, "Features and Technical Specifications"). Refuse there, naming
 * a variant that fits. Without a usable device the query fails and the harness reports that. */
static const char *check_smem(const gemm_problem *p, size_t bytes, const char *why) {
    int dev, optin;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) ==
            cudaSuccess &&
        (size_t)optin < bytes)
        return why;
    return check_mma(p);
}
static const char *check_128x256x128(const gemm_problem *p) {
    return check_smem(p, db_smem_bytes(4, 128), /* 208,896 B */
                      "needs 204 KiB of shared memory per CTA, more than this GPU allows; "
                      "try --variant padded_128x256 or padded");
}
static const char *check_128x256(const gemm_problem *p) {
    return check_smem(p, db_smem_bytes(4, BLK_K), /* 110,592 B */
                      "needs 108 KiB of shared memory per CTA, more than this GPU allows; "
                      "try --variant padded");
}

#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))

static const gemm_variant variants[] = {
    {"padded_128x256x128", "128x256x128 CTA, 2x4 warps of 64x64, padded, 2 stages, 1 barrier/K "
                           "tile, fragments double-buffered, unpredicated interior copies",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_128x256x128, launch_padded_128x256x128},
    {"padded_128x256", "as padded_128x256x128 with BLK_K = 64 (108 KiB smem)",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_128x256, launch_padded_128x256},
    {"padded", "128x128x64 CTA, 2x2 warps of 64x64, 2-stage cp.async, smem rows padded by 8",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_mma, launch_padded},
    {"unpadded", "same kernel without padding: 8-way bank conflicts on every ldmatrix",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_mma, launch_unpadded},
    {"padded_k32", "128x128x32 CTA (BLK_K = 32), otherwise as padded",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_mma, launch_padded_k32},
};

static const gemm_lesson lesson = {"05_mma", "Tensor Cores: ldmatrix + mma.sync m16n8k16",
                                   (int)(sizeof variants / sizeof variants[0]), variants,
                                   GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
