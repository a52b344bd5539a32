/* Lesson 05 - Tensor Cores: ldmatrix + mma.sync.m16n8k16, three levels of tiling.
 *
 * What this lesson shows: the same C = alpha*A*B^T + beta*C, now computed by the Tensor Cores
 * through the warp-wide instruction mma.sync.aligned.m16n8k16 (fp16 or bf16 inputs, fp32
 * accumulators). The work is split on three levels:
 *   CTA tile   BLK_M x BLK_N x BLK_K = 128 x 128 x 64   one CTA of 4 warps per C tile
 *   warp tile  WARP_M x WARP_N        =  64 x  64        the 4 warps as a 2 x 2 grid
 *   MMA atom   16 x 8 x 16                               each warp: 4 x 8 atoms per k-step
 * Data path per K tile: gmem --cp.async 16 B--> smem (2 stages: load tile k+1 while computing
 * tile k) --ldmatrix.x4--> registers in the exact fragment order mma.sync wants --> HMMA.
 * With BLK_K = 64 a K tile is 4 k-steps of MMAs: the copy of the next tile has that long to
 * land, and there are half as many barriers per K as with BLK_K = 32.
 * Epilogue: alpha*acc + beta*C in fp32, rounded to the input type, stored with predication.
 *
 * Variants
 *   padded     (default) every smem row is BLK_K + 8 halves long (144 B instead of 128 B),
 *              so the 8 row addresses of one ldmatrix phase land in 8 different 16-byte bank
 *              groups: conflict-free reads at the price of 12.5% more smem (73.7 KiB, so the
 *              buffer is dynamic shared memory; two CTAs still fit on one SM).
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
 *
 * Why a template: the fp16 and bf16 kernels differ only in the mma instruction and the
 * conversions, and the variants only in a padding constant and BLK_K. Register arrays need
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
#define PAD_HALVES 8                        /* used by the "padded" variant */

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

template <int BF16, int PAD, int BK>
static cudaError_t launch_one(const gemm_problem *p, cudaStream_t s) {
    const size_t smem = (size_t)STAGES * (BLK_M + BLK_N) * (BK + PAD) * 2;
    void (*kernel)(int, int, int, float, const uint16_t *, long long, const uint16_t *,
                   long long, float, uint16_t *, long long) = gemm_mma<BF16, PAD, BK>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    dim3 grid((p->n + BLK_N - 1) / BLK_N, (p->m + BLK_M - 1) / BLK_M);
    kernel<<<grid, dim3(NTHREADS), smem, s>>>(
        p->m, p->n, p->k, p->alpha, (const uint16_t *)p->A, p->lda, (const uint16_t *)p->B,
        p->ldb, p->beta, (uint16_t *)p->C, p->ldc);
    return cudaGetLastError();
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
