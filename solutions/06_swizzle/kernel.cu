/* kernel.cu - lesson 06 assignment, part 2: the multi-stage cp.async pipeline.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE the pipeline of ex06_gemm (TODO 3): its prologue, its main loop over the stage ring
 * of ring.h and its drain. Given: the copy of one K tile into a stage of your swizzled tile
 * (ex06_copy_ktile), the ldmatrix + mma.sync of one stage (ex06_compute_stage), the wait
 * (ex06_cp_async_wait), the epilogue, the launch and the harness descriptor.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C in fp16 or bf16 (fp32
 * accumulators, alpha and beta in fp32), A (M,K) and B (N,K) K-major (layout TN), C (M,N)
 * row-major; any M, N, K >= 1; leading dimensions and base pointers multiples of 8 elements
 * (16 bytes: every cp.async moves 16 aligned bytes). The harness fills shared memory with NaN
 * before every launch.
 *
 * Build, check, time:  make exercise06 && ./run --variant exercise --check-only --dtype all
 *                      ./run --variant 128x128x64_s3,exercise --dtype all --size 4096x4096x4096
 * Grade:               make grade06
 */
#include <stdint.h>
#include <stdio.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "exercise.h"
#include "ptx.h"
#include "ring.h"

#define EX06_DEV static __device__ __forceinline__
/* the given helpers: "unused" keeps the skeleton, which does not call them yet, warning-free */
#define EX06_GIVEN static __device__ __forceinline__ __attribute__((unused))

/* The kernel's arguments (one struct, passed by value). */
typedef struct {
    int M, N, K;
    float alpha, beta;
    const uint16_t *A; /* (M,K) K-major: A[m*lda + k] */
    const uint16_t *B; /* (N,K) K-major: B[n*ldb + k] */
    uint16_t *C;       /* (M,N): C[m*ldc + n] */
    long long lda, ldb, ldc;
    int pair_ok; /* ldc even and C 4-byte aligned: two outputs stored as one word */
    int rows32;  /* BLK_M rows of A and BLK_N rows of B span < 2^31 bytes */
} ex06_args;

EX06_DEV float ex06_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
EX06_DEV uint16_t ex06_from_f32(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}

/* ---- gmem -> smem ------------------------------------------------------------------------
 * The copy plan of a thread (ex06_copy): copy r of A is the 16-byte chunk at row row0 + 16 r,
 * column col of the K tile; its smem offset is ex06_copy_offset(S, copy 0's, r), a constant
 * step; its gmem address copy 0's plus 16 r rows. Per K tile only the column moves (by BLK_K). */
enum { EX06_NA = EX06_BLK_M * EX06_BLK_K / 8 / EX06_NTHR, /* copies of A per K tile: 8 */
       EX06_NB = EX06_BLK_N * EX06_BLK_K / 8 / EX06_NTHR };
typedef struct {
    const uint16_t *a, *b;    /* copy-0 sources at k = 0 (read only where inside A / B) */
    long long a_step, b_step; /* 16 rows of A / B, in elements */
    uint32_t a_rowb, b_rowb;  /* the same in bytes (interior copies) */
    int a_rows, b_rows;       /* rows of A / B left from copy 0's row (<= 0: none) */
    int col;                  /* copy 0's column (halves) */
    uint32_t sa, sb;          /* smem byte addresses of copy 0 in stage 0 */
    uint32_t a_stage, b_stage; /* bytes of one stage of sA / sB */
    int kfull;                /* K tiles [0, kfull) lie inside A and B: no predicates */
} ex06_copy_plan;

EX06_DEV void ex06_copy_prep(ex06_copy_plan *cs, const ex06_args *p, int m0, int n0,
                             uint32_t sA, uint32_t sB) {
    const lay_swizzled S = ex06_smem_tile(EX06_BLK_M); /* BLK_M = BLK_N: one tile layout */
    int row;
    lay_tiled_copy_crd(ex06_copy(), EX06_BLK_M, EX06_BLK_K, threadIdx.x, 0, 0, &row, &cs->col);
    const int rstep = lay_tiled_copy_tile_m(ex06_copy());
    cs->a_step = (long long)rstep * p->lda;
    cs->b_step = (long long)rstep * p->ldb;
    cs->a_rowb = (uint32_t)(2 * cs->a_step);
    cs->b_rowb = (uint32_t)(2 * cs->b_step);
    cs->a_rows = p->M - m0 - row;
    cs->b_rows = p->N - n0 - row;
    cs->a = p->A + (long long)(m0 + row) * p->lda + cs->col;
    cs->b = p->B + (long long)(n0 + row) * p->ldb + cs->col;
    const uint32_t o = 2 * (uint32_t)lay_swizzled_crd2idx2(S, row, cs->col);
    cs->sa = sA + o;
    cs->sb = sB + o;
    cs->a_stage = 2 * (uint32_t)ex06_stage_halves(EX06_BLK_M);
    cs->b_stage = 2 * (uint32_t)ex06_stage_halves(EX06_BLK_N);
    cs->kfull = p->rows32 && m0 + EX06_BLK_M <= p->M && n0 + EX06_BLK_N <= p->N
                    ? p->K / EX06_BLK_K
                    : 0;
}

/* GIVEN. Issues this thread's 16-byte cp.async of K tile kt of A and B into smem stage `stage`
 * (asynchronous: they are in flight until a commit_group + wait_group covers them). A K tile
 * that lies inside A and B (kt < kfull) is copied without predicates (one IMAD.WIDE + one
 * LDGSTS per copy); otherwise chunks outside A, B or K are zero-filled through cp.async's
 * src-size operand. */
EX06_GIVEN void ex06_copy_ktile(const ex06_copy_plan *cs, int stage, int kt, const ex06_args *p) {
    const lay_swizzled S = ex06_smem_tile(EX06_BLK_M);
    const uint32_t da = cs->sa + stage * cs->a_stage, db = cs->sb + stage * cs->b_stage;
    const uint16_t *pa = cs->a + kt * EX06_BLK_K, *pb = cs->b + kt * EX06_BLK_K;
    if (kt < cs->kfull) {
#pragma unroll
        for (int r = 0; r < EX06_NA; ++r)
            ptx_cp_async_cg16_row(2 * ex06_copy_offset(S, 0, r) + da, pa, cs->a_rowb, r);
#pragma unroll
        for (int r = 0; r < EX06_NB; ++r)
            ptx_cp_async_cg16_row(2 * ex06_copy_offset(S, 0, r) + db, pb, cs->b_rowb, r);
        return;
    }
    int kb = 2 * (p->K - kt * EX06_BLK_K - cs->col); /* bytes of this thread's chunk inside K */
    kb = kb < 0 ? 0 : (kb > 16 ? 16 : kb);
    const int rstep = lay_tiled_copy_tile_m(ex06_copy());
#pragma unroll
    for (int r = 0; r < EX06_NA; ++r) {
        const int n = r * rstep < cs->a_rows ? kb : 0;
        ptx_copy16_zfill(2 * ex06_copy_offset(S, 0, r) + da, n ? pa : p->A, n);
        pa += cs->a_step;
    }
#pragma unroll
    for (int r = 0; r < EX06_NB; ++r) {
        const int n = r * rstep < cs->b_rows ? kb : 0;
        ptx_copy16_zfill(2 * ex06_copy_offset(S, 0, r) + db, n ? pb : p->B, n);
        pb += cs->b_step;
    }
}

/* ---- smem -> registers -> Tensor Cores ---------------------------------------------------
 * A thread's ldmatrix rows: for A's load of atom row i at k-step kk, the row at
 * lay_tiled_ldmatrix_a_crd(mma, 4, 0, tid, i + MI*kk) of sA (lesson 05); for B's load of
 * atoms j, j+1, lay_tiled_ldmatrix_b_crd(..., j/2 + NI/2*kk). The kernel evaluates them for
 * i = j = kk = 0 only and reaches the others with ex06_frag_offset (ring.h). */
typedef struct {
    uint32_t sa, sb;           /* smem byte addresses of sA, sB (stage 0) */
    int a0, b0;                /* offsets (halves) in a stage of the thread's rows for load 0 */
    uint32_t a_stage, b_stage; /* bytes of one stage */
} ex06_frag_plan;

EX06_DEV void ex06_frag_prep(ex06_frag_plan *fp, const lay_tiled_mma *mma, uint32_t sA,
                             uint32_t sB) {
    const lay_swizzled S = ex06_smem_tile(EX06_BLK_M);
    int m, n, k;
    lay_tiled_ldmatrix_a_crd(mma, 4, 0, threadIdx.x, 0, &m, &k);
    fp->a0 = (int)lay_swizzled_crd2idx2(S, m, k);
    lay_tiled_ldmatrix_b_crd(mma, 4, 0, threadIdx.x, 0, &n, &k);
    fp->b0 = (int)lay_swizzled_crd2idx2(S, n, k);
    fp->sa = sA;
    fp->sb = sB;
    fp->a_stage = 2 * (uint32_t)ex06_stage_halves(EX06_BLK_M);
    fp->b_stage = 2 * (uint32_t)ex06_stage_halves(EX06_BLK_N);
}

/* The fragments of k-step kk from the stage at byte addresses sa, sb: ra[i] = A atom row i,
 * rb[j], rb[j+1] = B atoms j, j+1 (one ldmatrix.x4 each), at the rows ex06_frag_offset gives
 * (the same function the CPU grader checks against your tile). */
EX06_GIVEN void ex06_load_frags(uint32_t ra[EX06_MI][4], uint32_t rb[EX06_NI][2],
                                const ex06_frag_plan *fp, uint32_t sa, uint32_t sb, int kk) {
    const lay_swizzled S = ex06_smem_tile(EX06_BLK_M);
#pragma unroll
    for (int i = 0; i < EX06_MI; ++i)
        ptx_ldmatrix_x4(ra[i], sa + 2 * (uint32_t)ex06_frag_offset(S, fp->a0, i, kk));
#pragma unroll
    for (int j = 0; j < EX06_NI; j += 2) {
        uint32_t r[4];
        ptx_ldmatrix_x4(r, sb + 2 * (uint32_t)ex06_frag_offset(S, fp->b0, j / 2, kk));
        rb[j][0] = r[0]; rb[j][1] = r[1]; rb[j + 1][0] = r[2]; rb[j + 1][1] = r[3];
    }
}

/* GIVEN. acc += the products of the K tile in smem stage `stage`: 4 k-steps of MI x NI
 * mma.sync, the fragments of k-step kk+1 loaded while the MMAs of kk run (double-buffered),
 * in serpentine order (row i even: j up, odd: j down) so a B fragment is reused at each turn. */
template <int BF16>
EX06_GIVEN void ex06_compute_stage(float acc[EX06_MI][EX06_NI][4], const ex06_frag_plan *fp,
                                   int stage) {
    const uint32_t sa = fp->sa + stage * fp->a_stage, sb = fp->sb + stage * fp->b_stage;
    uint32_t ra[2][EX06_MI][4], rb[2][EX06_NI][2];
    ex06_load_frags(ra[0], rb[0], fp, sa, sb, 0);
#pragma unroll
    for (int kk = 0; kk < EX06_KSTEPS; ++kk) {
        if (kk + 1 < EX06_KSTEPS) ex06_load_frags(ra[(kk + 1) % 2], rb[(kk + 1) % 2], fp, sa, sb, kk + 1);
#pragma unroll
        for (int i = 0; i < EX06_MI; ++i)
#pragma unroll
            for (int jj = 0; jj < EX06_NI; ++jj) {
                const int j = i % 2 ? EX06_NI - 1 - jj : jj;
                if (BF16) ptx_mma_m16n8k16_bf16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);
                else      ptx_mma_m16n8k16_f16(acc[i][j], ra[kk % 2][i], rb[kk % 2][j]);
            }
    }
}

/* GIVEN. cp.async.wait_group n (common/ptx.h: PTX_CP_ASYNC_WAIT needs a compile-time constant;
 * with n from ring.h the switch folds to the one instruction). n < 0 or n > 7: wait for all. */
EX06_GIVEN void ex06_cp_async_wait(const int n) {
    switch (n) {
    case 1: PTX_CP_ASYNC_WAIT(1); break;
    case 2: PTX_CP_ASYNC_WAIT(2); break;
    case 3: PTX_CP_ASYNC_WAIT(3); break;
    case 4: PTX_CP_ASYNC_WAIT(4); break;
    case 5: PTX_CP_ASYNC_WAIT(5); break;
    case 6: PTX_CP_ASYNC_WAIT(6); break;
    case 7: PTX_CP_ASYNC_WAIT(7); break;
    default: PTX_CP_ASYNC_WAIT(0); break;
    }
}

/* GIVEN. C = alpha * acc + beta * C from the accumulators: value c = 2h + v of atom (i, j) is
 * at (m, n) = lay_tiled_mma_c_crd(mma, tid, c + 4 (i + MI j)) of the CTA tile at (m0, n0).
 * C is read only when beta != 0. */
template <int BF16>
EX06_DEV void ex06_store_c(float acc[EX06_MI][EX06_NI][4], const ex06_args *p,
                           const lay_tiled_mma *mma, int m0, int n0) {
#pragma unroll
    for (int i = 0; i < EX06_MI; ++i)
#pragma unroll
        for (int j = 0; j < EX06_NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int m, n;
                lay_tiled_mma_c_crd(mma, threadIdx.x, 2 * h + 4 * (i + EX06_MI * j), &m, &n);
                m += m0;
                n += n0;
                if (m >= p->M || n >= p->N) continue;
                uint16_t *c = p->C + (long long)m * p->ldc + n;
                const int two = n + 1 < p->N;
                float v0 = p->alpha * acc[i][j][2 * h], v1 = p->alpha * acc[i][j][2 * h + 1];
                if (p->beta != 0.0f) {
                    v0 += p->beta * ex06_to_f32(c[0], BF16);
                    if (two) v1 += p->beta * ex06_to_f32(c[1], BF16);
                }
                if (two && p->pair_ok) {
                    *(uint32_t *)c = (uint32_t)ex06_from_f32(v0, BF16) |
                                     ((uint32_t)ex06_from_f32(v1, BF16) << 16);
                } else {
                    c[0] = ex06_from_f32(v0, BF16);
                    if (two) c[1] = ex06_from_f32(v1, BF16);
                }
            }
}

/* One CTA per (BLK_M, BLK_N) tile of C at (blockIdx.y, blockIdx.x). Dynamic smem: the STAGES
 * stages of sA, then those of sB, each ex06_stage_halves of your tile. */
template <int BF16>
__global__ void __launch_bounds__(EX06_NTHR) ex06_gemm(ex06_args p) {
    extern __shared__ __align__(1024) uint16_t smem[];
    const uint32_t sA = ptx_smem_u32(smem);
    const uint32_t sB = ptx_smem_u32(smem + EX06_STAGES * ex06_stage_halves(EX06_BLK_M));
    const lay_tiled_mma mma = ex06_mma();
    const int m0 = blockIdx.y * EX06_BLK_M, n0 = blockIdx.x * EX06_BLK_N;
    const int ktiles = (p.K + EX06_BLK_K - 1) / EX06_BLK_K;

    float acc[EX06_MI][EX06_NI][4];
#pragma unroll
    for (int i = 0; i < EX06_MI; ++i)
#pragma unroll
        for (int j = 0; j < EX06_NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    ex06_copy_plan cs;
    ex06_copy_prep(&cs, &p, m0, n0, sA, sB);
    ex06_frag_plan fp;
    ex06_frag_prep(&fp, &mma, sA, sB);

    /* 3. The pipeline on the stage ring of ring.h. */
    const int P = ex06_prefetch();
    /* prologue: K tiles 0 .. P-1 in flight, one group each (empty past the end of K) */
#pragma unroll
    for (int t = 0; t < P; ++t) {
        if (t < ktiles) ex06_copy_ktile(&cs, ex06_stage_of(t), t, &p);
        ptx_cp_async_commit();
    }
    for (int kt = 0; kt < ktiles; ++kt) {
        /* groups 0 .. kt+P-1 are committed; K tile kt's (group kt) must be complete */
        ex06_cp_async_wait(ex06_wait_n());
        /* one barrier: every thread's copies of K tile kt are visible, and every thread has
         * finished computing K tile kt-1, whose stage the copy below overwrites */
        __syncthreads();
        if (kt + P < ktiles) ex06_copy_ktile(&cs, ex06_stage_of(kt + P), kt + P, &p);
        ptx_cp_async_commit(); /* always: group g = K tile g, maybe empty */
        ex06_compute_stage<BF16>(acc, &fp, ex06_stage_of(kt));
    }
    ptx_cp_async_wait_all(); /* only empty groups are left; nothing in flight at exit */

    ex06_store_c<BF16>(acc, &p, &mma, m0, n0);
}

static size_t ex06_smem_bytes(void) {
    return (size_t)EX06_STAGES * (ex06_stage_halves(EX06_BLK_M) + ex06_stage_halves(EX06_BLK_N)) * 2;
}

template <int BF16>
static cudaError_t ex06_launch_one(const ex06_args *a, cudaStream_t s) {
    const size_t smem = ex06_smem_bytes();
    cudaError_t e = cudaFuncSetAttribute(ex06_gemm<BF16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a->N + EX06_BLK_N - 1) / EX06_BLK_N),
                    (unsigned)((a->M + EX06_BLK_M - 1) / EX06_BLK_M));
    ex06_gemm<BF16><<<grid, EX06_NTHR, smem, s>>>(*a);
    return cudaGetLastError();
}

static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    ex06_args a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = (uint16_t *)p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    a.rows32 = (long long)EX06_BLK_M * p->lda * 2 < (1LL << 31) &&
               (long long)EX06_BLK_N * p->ldb * 2 < (1LL << 31);
    return p->dtype == GEMM_BF16 ? ex06_launch_one<1>(&a, s) : ex06_launch_one<0>(&a, s);
}

/* Beyond the harness's checks (dtype, layout TN, align 8): the tile of TODO 1 and the ring of
 * TODO 2 must be written (an unwritten ring would copy outside A and B or outside the smem
 * stages), and M must fit the grid's y dimension. */
static const char *check(const gemm_problem *p) {
    static char why[160];
    if (!lay_valid(ex06_smem_tile(EX06_BLK_M).layout))
        return "ring.h: ex06_smem_tile is not written yet (TODO 1)";
    if (ex06_smem_bytes() > 160 * 1024)
        return "ring.h: the stages of the tile of TODO 1 take more shared memory than an sm_80 "
               "GPU gives a CTA (163 KiB)";
    if (ex06_prefetch() < 1 || ex06_prefetch() > 7 || ex06_wait_n() == EX06_TODO)
        return "ring.h: ex06_prefetch or ex06_wait_n is not answered yet (TODO 2)";
    for (int t = 0; t < 64; ++t)
        if (ex06_stage_of(t) < 0 || ex06_stage_of(t) >= EX06_STAGES) {
            snprintf(why, sizeof why, "ring.h: ex06_stage_of(%d) = %d is not a stage (0..%d)", t,
                     ex06_stage_of(t), EX06_STAGES - 1);
            return why;
        }
    if ((p->m + EX06_BLK_M - 1) / EX06_BLK_M > 65535)
        return "M must be at most 8388480 (grid.y holds 65535 tiles of 128 rows)";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "lesson 06 assignment: 128x128x64, 4 warps of 64x64, swizzled smem, 3 stages",
    GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16), GEMM_LAYOUT_BIT(GEMM_TN), 8, check, launch};
