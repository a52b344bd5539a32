/* Lesson 05 - Tensor Cores: ldmatrix + mma.sync.m16n8k16, three levels of tiling.
 *
 * What this lesson shows: the same C = alpha*A*B^T + beta*C, now computed by the Tensor Cores
 * through the warp-wide instruction mma.sync.aligned.m16n8k16 (fp16 or bf16 inputs, fp32
 * accumulators). The work is split on three levels:
 *   CTA tile   BLK_M x BLK_N x BLK_K = 128 x 128 x 32   one CTA of 4 warps per C tile
 *   warp tile  WARP_M x WARP_N        =  64 x  64        the 4 warps as a 2 x 2 grid
 *   MMA atom   16 x 8 x 16                               each warp: 4 x 8 atoms per k-step
 * Data path per K tile: gmem --cp.async 16 B--> smem (2 stages: load tile k+1 while computing
 * tile k) --ldmatrix.x4--> registers in the exact fragment order mma.sync wants --> HMMA.
 * Epilogue: alpha*acc + beta*C in fp32, rounded to the input type, stored with predication.
 *
 * Variants
 *   padded    (default) every smem row is BLK_K + 8 halves long (80 B instead of 64 B), so
 *             the 8 row addresses of one ldmatrix phase land in 8 different 16-byte bank
 *             groups: conflict-free reads at the price of 25% more smem.
 *   unpadded  rows of exactly 64 B: rows r and r+2 fall on the same banks, so each ldmatrix
 *             phase is a 4-way bank conflict. Kept to measure what lesson 06 fixes properly
 *             (with a swizzle instead of padding).
 *
 * Limits (refused with a message by the harness, never a fault):
 *   layout TN only (A K-major, B K-major; other orders need ldmatrix.trans, see lesson 06);
 *   align = 8: lda, ldb, ldc and the A/B/C base pointers must be multiples of 8 elements
 *   (16 bytes), because every cp.async moves 16 aligned bytes. Any M, N, K >= 1 works: edge
 *   tiles are zero-filled through cp.async's src-size operand (a partial last 8-element chunk
 *   of K copies only its valid bytes), and the epilogue checks every row and column.
 *
 * Why a template: the fp16 and bf16 kernels differ only in the mma instruction and the
 * conversions, and the two variants only in a padding constant. Register arrays need
 * compile-time sizes and the instruction must be chosen at compile time, so the kernel takes
 * them as template parameters (in plain C one would stamp the kernels out with a macro).
 *
 * Build and run:   make lesson05 && ./run
 *                  ./run --variant padded --dtype fp16 --size 4096x4096x4096
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
#define BLK_K 32
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
#define KSTEPS (BLK_K / MMA_K)              /* 2 k-steps per K tile */
#define CHUNKS_PER_ROW (BLK_K / 8)          /* 4 chunks of 16 B per smem row */
#define STAGES 2
#define PAD_HALVES 8                        /* used by the "padded" variant */

/* ---- element conversions (BF16 is a compile-time constant: the other branch vanishes) --- */

static __device__ __forceinline__ float elem_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
static __device__ __forceinline__ uint16_t f32_to_elem(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}

/* ---- gmem -> smem: one K tile of A (BLK_M x BLK_K) or B (BLK_N x BLK_K) ----------------
 * The tile is ROWS rows of CHUNKS_PER_ROW 16-byte chunks; thread t copies chunks
 * t, t + NTHREADS, ... (row = idx / 4, chunk = idx % 4), so 8 neighbouring threads cover two
 * full 64-byte row segments. Rows past `rows_left` or columns past `k_left` are zero-filled. */
template <int ROWS, int SROW>
static __device__ __forceinline__ void load_tile(uint16_t *s,            /* (ROWS,SROW) */
                                                 const uint16_t *g,      /* (ROWS,K) at tile */
                                                 long long ld, int rows_left, int k_left,
                                                 const uint16_t *safe) {
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

/* C tile (BLK_M, BLK_N) at (blockIdx.y, blockIdx.x). 4 warps, warp w owns the 64x64 block
 * (w / WARPS_N, w % WARPS_N) of it; acc[mi][ni][0..3] is the C fragment of atom (mi, ni). */
template <int BF16, int PAD>
__global__ void __launch_bounds__(NTHREADS)
gemm_mma(int M, int N, int K, float alpha, const uint16_t *__restrict__ A, long long lda,
         const uint16_t *__restrict__ B, long long ldb, float beta, uint16_t *C,
         long long ldc) {
    enum { SROW = BLK_K + PAD };                       /* smem row length in halves */
    __shared__ __align__(16) uint16_t sA[STAGES][BLK_M * SROW]; /* (BLK_M,BLK_K,stage) */
    __shared__ __align__(16) uint16_t sB[STAGES][BLK_N * SROW]; /* (BLK_N,BLK_K,stage) */

    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int m0 = blockIdx.y * BLK_M, n0 = blockIdx.x * BLK_N;
    const uint16_t *gA = A + (long long)m0 * lda;     /* (BLK_M,K) rows of this CTA */
    const uint16_t *gB = B + (long long)n0 * ldb;     /* (BLK_N,K) */
    const int ktiles = (K + BLK_K - 1) / BLK_K;

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
    load_tile<BLK_M, SROW>(sA[0], gA, lda, M - m0, K, A);
    load_tile<BLK_N, SROW>(sB[0], gB, ldb, N - n0, K, B);
    ptx_cp_async_commit();

    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt % STAGES;
        if (kt + 1 < ktiles) {                         /* prefetch tile kt+1 into the other stage */
            const int k1 = (kt + 1) * BLK_K;
            load_tile<BLK_M, SROW>(sA[cur ^ 1], gA + k1, lda, M - m0, K - k1, A);
            load_tile<BLK_N, SROW>(sB[cur ^ 1], gB + k1, ldb, N - n0, K - k1, B);
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

    /* epilogue: lane l holds rows g, g+8 and columns 2t, 2t+1 of each atom (g = l/4, t = l%4) */
    const int g = lane / 4, t = lane % 4;
    const int pair_ok = (ldc % 2 == 0) && (((uintptr_t)C & 3) == 0);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + wm * WARP_M + i * MMA_M + g + 8 * h;
                const int n = n0 + wn * WARP_N + j * MMA_N + 2 * t;
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

template <int PAD>
static cudaError_t launch_mma(const gemm_problem *p, cudaStream_t s) {
    dim3 block(NTHREADS);
    dim3 grid((p->n + BLK_N - 1) / BLK_N, (p->m + BLK_M - 1) / BLK_M);
    if (p->dtype == GEMM_BF16)
        gemm_mma<1, PAD><<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha,
                                                (const uint16_t *)p->A, p->lda,
                                                (const uint16_t *)p->B, p->ldb, p->beta,
                                                (uint16_t *)p->C, p->ldc);
    else
        gemm_mma<0, PAD><<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha,
                                                (const uint16_t *)p->A, p->lda,
                                                (const uint16_t *)p->B, p->ldb, p->beta,
                                                (uint16_t *)p->C, p->ldc);
    return cudaGetLastError();
}

static cudaError_t launch_padded(const gemm_problem *p, cudaStream_t s) {
    return launch_mma<PAD_HALVES>(p, s);
}
static cudaError_t launch_unpadded(const gemm_problem *p, cudaStream_t s) {
    return launch_mma<0>(p, s);
}

/* Beyond the harness's own checks (dtype, layout, align = 8). */
static const char *check_mma(const gemm_problem *p) {
    if (!p->a_kmajor || !p->b_kmajor)
        return "lesson 05 needs A and B K-major (layout TN); lesson 06 takes every layout";
    if ((p->m + BLK_M - 1) / BLK_M > 65535)
        return "M must be at most 8388480 (grid.y limit of 65535 CTAs of 128 rows)";
    return NULL;
}

#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))

static const gemm_variant variants[] = {
    {"padded", "128x128x32 CTA, 2x2 warps of 64x64, 2-stage cp.async, smem rows padded by 8",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_mma, launch_padded},
    {"unpadded", "same kernel without padding: 4-way bank conflicts on every ldmatrix",
     DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 8, check_mma, launch_unpadded},
};

static const gemm_lesson lesson = {"05_mma", "Tensor Cores: ldmatrix + mma.sync m16n8k16", 2,
                                   variants, GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
