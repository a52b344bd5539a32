/* kernel.cu - lesson 05 assignment, part 2: the warp's fragments and its mma.sync loop.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE one k-step of a warp (TODO 3: ex05_kstep): the ldmatrix.x4 loads of its A and B
 * fragments from the rows of frag.h and the MI x NI mma.sync over them. Given: the gmem ->
 * smem copy into your smem tile, the 2-stage cp.async pipeline, the epilogue, the launch and
 * the harness descriptor.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C in fp16 or bf16 (fp32
 * accumulators, alpha and beta in fp32), A (M,K) and B (N,K) K-major (layout TN), C (M,N)
 * row-major; any M, N, K >= 1; leading dimensions and base pointers multiples of 8 elements
 * (16 bytes: every cp.async moves 16 aligned bytes). The harness fills shared memory with NaN
 * before every launch.
 *
 * Build, check, time:  make exercise05 && ./run --variant exercise --check-only --dtype all
 *                      ./run --variant padded,exercise --dtype all --size 4096x4096x4096
 * Grade:               make grade05
 */
#include <stdint.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "exercise.h"
#include "frag.h"
#include "ptx.h"

#define EX05_DEV static __device__ __forceinline__

/* The kernel's arguments (one struct, passed by value). */
typedef struct {
    int M, N, K;
    float alpha, beta;
    const uint16_t *A; /* (M,K) K-major: A[m*lda + k] */
    const uint16_t *B; /* (N,K) K-major: B[n*ldb + k] */
    uint16_t *C;       /* (M,N): C[m*ldc + n] */
    long long lda, ldb, ldc;
    int pair_ok; /* ldc even and C 4-byte aligned: two outputs stored as one word */
} ex05_args;

EX05_DEV float ex05_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
EX05_DEV uint16_t ex05_from_f32(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}

/* GIVEN. One K tile of one operand, (ROWS, BLK_K) rows `ld` apart from g, into the smem stage s
 * (your tile of TODO 1), in the 16-byte chunks of ex05_copy: copy r of thread t at
 * lay_tiled_copy_crd(cp, ROWS, BLK_K, t, 0, r). Chunks of rows past rows_left or of k past
 * k_left are zero-filled through cp.async's src-size operand (from a valid address, safe). */
template <int ROWS>
EX05_DEV void ex05_copy_tile(uint16_t *s, const uint16_t *g, long long ld, int rows_left,
                             int k_left, const uint16_t *safe) {
    enum { COPIES = ROWS * (EX05_BLK_K / 8) / EX05_NTHR }; /* lay_tiled_copy_reps(cp, ROWS, BLK_K) */
    const lay_tiled_copy cp = ex05_copy();
    const lay_swizzled S = ex05_smem_tile(ROWS);
#pragma unroll
    for (int r = 0; r < COPIES; ++r) {
        int row, col;
        lay_tiled_copy_crd(cp, ROWS, EX05_BLK_K, threadIdx.x, 0, r, &row, &col);
        int valid = k_left - col; /* halves of this chunk inside K */
        valid = valid < 0 ? 0 : (valid > 8 ? 8 : valid);
        if (row >= rows_left) valid = 0;
        const uint16_t *src = valid ? g + (long long)row * ld + col : safe;
        ptx_copy16_zfill(ptx_smem_u32(s + lay_swizzled_crd2idx2(S, row, col)), src, valid * 2);
    }
}

/* TODO 3. One k-step (16 of the K tile's 64 k) of this thread's warp, from the smem stages at
 * byte addresses sa (sA) and sb (sB; ldmatrix takes byte addresses, a half is 2 bytes): load
 * the A fragments of the MI atom rows (one ldmatrix.x4 each, common/ptx.h: ptx_ldmatrix_x4)
 * and the B fragments of the NI atoms (one ldmatrix.x4 per two atoms) from the rows of TODO 2
 * in your smem tile of TODO 1, then acc[i][j] += A atom i x B atom j for all MI x NI atoms
 * (ptx_mma_m16n8k16_f16, or _bf16 when BF16). acc[i][j][0..3] is the C fragment of atom
 * (i, j) (the epilogue stores it through lay_tiled_mma_c_crd). */
template <int BF16>
EX05_DEV void ex05_kstep(float acc[EX05_MI][EX05_NI][4], const lay_tiled_mma *mma, uint32_t sa,
                         uint32_t sb, int kk) {
    const lay_swizzled sA = ex05_smem_tile(EX05_BLK_M), sB = ex05_smem_tile(EX05_BLK_N);
    const int tid = threadIdx.x;
    uint32_t ra[EX05_MI][4], rb[EX05_NI][2];
    /* i, j and kk are constants once the loops are unrolled, and the layouts are made of
     * constants: nvcc folds each address to one register (the thread's row for i = kk = 0)
     * plus an immediate */
#pragma unroll
    for (int i = 0; i < EX05_MI; ++i) {
        int m, k;
        ex05_ldsm_a_crd(mma, tid, i, kk, &m, &k);
        ptx_ldmatrix_x4(ra[i], sa + 2 * (uint32_t)lay_swizzled_crd2idx2(sA, m, k));
    }
#pragma unroll
    for (int j = 0; j < EX05_NI; j += 2) {
        int n, k;
        ex05_ldsm_b_crd(mma, tid, j, kk, &n, &k);
        uint32_t r[4]; /* matrices: atom j k 0-7, atom j k 8-15, atom j+1 k 0-7, k 8-15 */
        ptx_ldmatrix_x4(r, sb + 2 * (uint32_t)lay_swizzled_crd2idx2(sB, n, k));
        rb[j][0] = r[0]; rb[j][1] = r[1]; rb[j + 1][0] = r[2]; rb[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < EX05_MI; ++i)
#pragma unroll
        for (int j = 0; j < EX05_NI; ++j) {
            if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[i], rb[j]);
            else      ptx_mma_m16n8k16_f16(acc[i][j], ra[i], rb[j]);
        }
}

/* GIVEN. C = alpha * acc + beta * C from the accumulators: value c = 2h + v of atom (i, j) is
 * at (m, n) = lay_tiled_mma_c_crd(mma, tid, c + 4 (i + MI j)) of the CTA tile at (m0, n0)
 * (rows g and g + 8, columns 2t, 2t+1 of the atom). C is read only when beta != 0. */
template <int BF16>
EX05_DEV void ex05_store_c(float acc[EX05_MI][EX05_NI][4], const ex05_args *p,
                           const lay_tiled_mma *mma, int m0, int n0) {
#pragma unroll
    for (int i = 0; i < EX05_MI; ++i)
#pragma unroll
        for (int j = 0; j < EX05_NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int m, n;
                lay_tiled_mma_c_crd(mma, threadIdx.x, 2 * h + 4 * (i + EX05_MI * j), &m, &n);
                m += m0;
                n += n0;
                if (m >= p->M || n >= p->N) continue;
                uint16_t *c = p->C + (long long)m * p->ldc + n;
                const int two = n + 1 < p->N;
                float v0 = p->alpha * acc[i][j][2 * h], v1 = p->alpha * acc[i][j][2 * h + 1];
                if (p->beta != 0.0f) {
                    v0 += p->beta * ex05_to_f32(c[0], BF16);
                    if (two) v1 += p->beta * ex05_to_f32(c[1], BF16);
                }
                if (two && p->pair_ok) {
                    *(uint32_t *)c = (uint32_t)ex05_from_f32(v0, BF16) |
                                     ((uint32_t)ex05_from_f32(v1, BF16) << 16);
                } else {
                    c[0] = ex05_from_f32(v0, BF16);
                    if (two) c[1] = ex05_from_f32(v1, BF16);
                }
            }
}

/* One CTA per (BLK_M, BLK_N) tile of C at (blockIdx.y, blockIdx.x). Dynamic smem: sA
 * (BLK_M,BLK_K,stage) then sB (BLK_N,BLK_K,stage), stages ex05_stage_halves apart. */
template <int BF16>
__global__ void __launch_bounds__(EX05_NTHR) ex05_gemm(ex05_args p) {
    extern __shared__ __align__(128) uint16_t smem[];
    const int a_stage = ex05_stage_halves(EX05_BLK_M), b_stage = ex05_stage_halves(EX05_BLK_N);
    uint16_t *sA = smem, *sB = smem + EX05_STAGES * a_stage;
    const lay_tiled_mma mma = ex05_mma();

    const int m0 = blockIdx.y * EX05_BLK_M, n0 = blockIdx.x * EX05_BLK_N;
    const uint16_t *gA = p.A + (long long)m0 * p.lda; /* (BLK_M,K) rows of this CTA */
    const uint16_t *gB = p.B + (long long)n0 * p.ldb; /* (BLK_N,K) */
    const int ktiles = (p.K + EX05_BLK_K - 1) / EX05_BLK_K;

    float acc[EX05_MI][EX05_NI][4];
#pragma unroll
    for (int i = 0; i < EX05_MI; ++i)
#pragma unroll
        for (int j = 0; j < EX05_NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    /* the pipeline (given): K tile 0 into stage 0; in iteration kt, K tile kt+1 is copied into
     * the other stage while kt is computed */
    ex05_copy_tile<EX05_BLK_M>(sA, gA, p.lda, p.M - m0, p.K, p.A);
    ex05_copy_tile<EX05_BLK_N>(sB, gB, p.ldb, p.N - n0, p.K, p.B);
    ptx_cp_async_commit();
    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt % 2;
        if (kt + 1 < ktiles) {
            const int k1 = (kt + 1) * EX05_BLK_K;
            ex05_copy_tile<EX05_BLK_M>(sA + (cur ^ 1) * a_stage, gA + k1, p.lda, p.M - m0,
                                       p.K - k1, p.A);
            ex05_copy_tile<EX05_BLK_N>(sB + (cur ^ 1) * b_stage, gB + k1, p.ldb, p.N - n0,
                                       p.K - k1, p.B);
            ptx_cp_async_commit();
            PTX_CP_ASYNC_WAIT(1); /* K tile kt has landed, kt+1 may be in flight */
        } else {
            PTX_CP_ASYNC_WAIT(0);
        }
        __syncthreads(); /* every thread's copies of K tile kt are visible */
        const uint32_t sa = ptx_smem_u32(sA + cur * a_stage), sb = ptx_smem_u32(sB + cur * b_stage);
#pragma unroll
        for (int kk = 0; kk < EX05_KSTEPS; ++kk) ex05_kstep<BF16>(acc, &mma, sa, sb, kk);
        __syncthreads(); /* stage cur is free for K tile kt+2 */
    }

    ex05_store_c<BF16>(acc, &p, &mma, m0, n0);
}

static size_t ex05_smem_bytes(void) {
    return (size_t)EX05_STAGES * (ex05_stage_halves(EX05_BLK_M) + ex05_stage_halves(EX05_BLK_N)) * 2;
}

template <int BF16>
static cudaError_t ex05_launch_one(const ex05_args *a, cudaStream_t s) {
    const size_t smem = ex05_smem_bytes();
    cudaError_t e = cudaFuncSetAttribute(ex05_gemm<BF16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a->N + EX05_BLK_N - 1) / EX05_BLK_N),
                    (unsigned)((a->M + EX05_BLK_M - 1) / EX05_BLK_M));
    ex05_gemm<BF16><<<grid, EX05_NTHR, smem, s>>>(*a);
    return cudaGetLastError();
}

static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    ex05_args a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = (uint16_t *)p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    return p->dtype == GEMM_BF16 ? ex05_launch_one<1>(&a, s) : ex05_launch_one<0>(&a, s);
}

/* Beyond the harness's checks (dtype, layout TN, align 8): the smem tile of TODO 1 must exist,
 * and M must fit the grid's y dimension. */
static const char *check(const gemm_problem *p) {
    if (!lay_valid(ex05_smem_tile(EX05_BLK_M).layout))
        return "frag.h: ex05_smem_tile is not written yet (TODO 1)";
    if (ex05_smem_bytes() > 99 * 1024)
        return "frag.h: the smem tile of TODO 1 takes more shared memory than any sm_80+ GPU "
               "gives one CTA of this kernel (99 KiB): pad less";
    if ((p->m + EX05_BLK_M - 1) / EX05_BLK_M > 65535)
        return "M must be at most 8388480 (grid.y holds 65535 tiles of 128 rows)";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "lesson 05 assignment: 128x128x64, 4 warps of 64x64, padded smem, 2 stages",
    GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16), GEMM_LAYOUT_BIT(GEMM_TN), 8, check, launch};
