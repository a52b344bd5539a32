/* kernel.cu - lesson 04 assignment, part 2: a predicated cp.async tiled copy and its pipeline.
 *
 * YOU WRITE the copy of one operand (TODO 2a: ex04_copy_prep, the plan of this thread's copies
 * from your TV layouts of copy.h, once per CTA; TODO 2b: ex04_copy_tile, the predicated
 * cp.async copy of one k_tile) and the main loop of ex04_body (TODO 3: the double-buffered
 * pipeline). Given: the CTA raster, the compute partition and the gemm of one stage, the
 * epilogue, the launch and the harness descriptor.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C with A (M,K), B (N,K),
 * C (M,N) row-major. Every operand order, any M, N, K >= 1, any leading dimension and base
 * pointer must work. The copy of an operand tile is, by its order and alignment:
 *   K-major (k contiguous in gmem):                 4-byte cp.async, transposing into smem
 *   x-major, ld % 4 == 0 and base 16-byte aligned:  16-byte cp.async (4 floats along x)
 *   x-major otherwise:                              4-byte cp.async
 * (a cp.async moves bytes unchanged, so only the x-major operand can use 16-byte vectors into
 * the x-contiguous smem tile). The harness fills shared memory with NaN before every launch.
 *
 * Build, check, time:  make exercise04 && ./run --variant exercise --check-only --layout all
 *                      ./run --variant cp_async_2stage,exercise --size 4096x4096x4096 --layout TN,NT
 * Grade:               make grade04
 */
#include <stdint.h>

#include "copy.h"
#include "exercise.h"
#include "ptx.h"

#define EX04_DEV static __device__ __forceinline__
/* the given helpers: "unused" keeps the skeleton, which does not call them yet, warning-free */
#define EX04_GIVEN static __device__ __forceinline__ __attribute__((unused))
#define EX04_THR_M 8   /* C rows per thread */
#define EX04_THR_N 8   /* C columns per thread */
#define EX04_WARP_M 32 /* warp tile: 4 x 2 warps of 32 x 64 */
#define EX04_WARP_N 64
#define EX04_GROUP_M 8 /* CTA raster: groups of 8 tile rows */

/* The copy plan of one operand for this thread: which copies it makes and where, computed once
 * per CTA (ex04_copy_prep) and used for every k_tile (ex04_copy_tile), so that the k loop
 * spends its instructions on copies and FMAs, not on index arithmetic. Entry v is copy v of
 * this thread (v < EX04_NV4 for 4-byte copies, v < EX04_NV16 for 16-byte ones). */
typedef struct {
    int soff[EX04_NV4];  /* smem offset (floats) of the copy's first element in a stage */
    int goff[EX04_NV4];  /* gmem offset (floats) of that element from the tile's origin */
    int bytes[EX04_NV4]; /* how many of the copy's bytes exist, when every k of the tile does */
    int k[EX04_NV4];     /* the copy's k in the tile (the last k_tile tests it) */
} ex04_plan;

/* TODO 2a. Fill this thread's plan for one operand, once per CTA.
 *   vec      1: 16-byte copies through ex04_tv_16byte (x-major operand, ld and base allow it)
 *            0: 4-byte copies through ex04_tv_4byte(kmajor)
 *   kmajor   1 when k is the operand's contiguous mode
 *   tid      this thread (0..255)
 *   sx, sk   element strides of x and k in gmem: element (x,k) of a tile is at offset
 *            x*sx + k*sk from the tile's origin (offsets inside a tile fit in an int: the
 *            launch refuses ld >= 2^22)
 *   x_rem    how many x of the tile exist (M - m0 for A, N - n0 for B; may exceed BLK_X)
 * Copy v of thread tid starts at the tile index lay_crd2idx(tv, tid + EX04_NTHR * v) of your
 * TV layout tv; ex04_tile_xk and ex04_smem_offset give (x,k) and its smem offset. A copy whose
 * x lie partly or wholly outside the operand has fewer (or no) bytes that exist. */
EX04_DEV void ex04_copy_prep(ex04_plan *pl, const int vec, const int kmajor, int tid, int sx,
                             int sk, int x_rem) {
    (void)pl; (void)vec; (void)kmajor; (void)tid; (void)sx; (void)sk; (void)x_rem; /* delete */
}

/* TODO 2b. Issue this thread's copies of one k_tile of one operand into the smem stage sX, with
 * cp.async (common/ptx.h: ptx_copy16_zfill for 16 bytes, which takes a partial chunk through
 * registers, ptx_cp_async_ca4 for 4, both in the "src-size" form; ptx_smem_u32 makes the shared
 * address), from the plan.
 *   check_k  0 promises that every k of this tile exists (any k_tile but the last), so the
 *            test on k folds away; 1 for the last k_tile, where k_rem may be below BLK_K
 *   gX       element (0,0) of this k_tile of the CTA's tile (always inside the operand)
 *   k_rem    how many k of the tile exist (may exceed BLK_K)
 * Predication: the part of a copy that lies outside the operand is zero-filled, never read:
 * cp.async gets the number of bytes that exist (0..16, or 0..4) and an address it may read. */
EX04_DEV void ex04_copy_tile(const ex04_plan *pl, const int vec, const int check_k,
                             const float *gX, int k_rem, float *sX) {
    (void)pl; (void)vec; (void)check_k; (void)gX; (void)k_rem; (void)sX; /* delete */
}

/* GIVEN. Copies k_tile t of A and of B into smem stage s (asynchronously: the copies are in
 * flight until a commit_group + wait_group covers them). */
EX04_DEV void ex04_copy_AB(const ex04_plan *pA, const ex04_plan *pB, const int a_vec,
                           const int b_vec, int t, int k_tiles, const float *gA, int a_sk,
                           const float *gB, int b_sk, int K, float *sA, float *sB) {
    const float *gA_t = gA + (long long)t * EX04_BLK_K * a_sk; /* (BLK_M,BLK_K) */
    const float *gB_t = gB + (long long)t * EX04_BLK_K * b_sk; /* (BLK_N,BLK_K) */
    const int k_rem = K - t * EX04_BLK_K;
    if (t + 1 < k_tiles) { /* a full k_tile */
        ex04_copy_tile(pA, a_vec, 0, gA_t, k_rem, sA);
        ex04_copy_tile(pB, b_vec, 0, gB_t, k_rem, sB);
    } else {               /* the last k_tile, maybe partial */
        ex04_copy_tile(pA, a_vec, 1, gA_t, k_rem, sA);
        ex04_copy_tile(pB, b_vec, 1, gB_t, k_rem, sB);
    }
}

/* GIVEN. tCrC += the products of one smem stage: at each of the BLK_K k's, the thread loads
 * its THR_M floats of A and THR_N floats of B as float4s (two 4x4 chunks each, 16 and 32
 * floats apart) and does their outer product. tCsA / tCsB: the thread's first m / n in the
 * tile (compute partition, see ex04_body). */
EX04_GIVEN void ex04_gemm_stage(const float *sA, const float *sB, int tCsA, int tCsB,
                              float tCrC[EX04_THR_M][EX04_THR_N]) {
#pragma unroll
    for (int k = 0; k < EX04_BLK_K; ++k) {
        float rA[EX04_THR_M], rB[EX04_THR_N];
#pragma unroll
        for (int c = 0; c < EX04_THR_M / 4; ++c) {
            const float4 v = *(const float4 *)(sA + k * EX04_PITCH + tCsA + 16 * c);
            rA[4 * c] = v.x; rA[4 * c + 1] = v.y; rA[4 * c + 2] = v.z; rA[4 * c + 3] = v.w;
        }
#pragma unroll
        for (int c = 0; c < EX04_THR_N / 4; ++c) {
            const float4 v = *(const float4 *)(sB + k * EX04_PITCH + tCsB + 32 * c);
            rB[4 * c] = v.x; rB[4 * c + 1] = v.y; rB[4 * c + 2] = v.z; rB[4 * c + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < EX04_THR_M; ++i)
#pragma unroll
            for (int j = 0; j < EX04_THR_N; ++j) tCrC[i][j] = fmaf(rA[i], rB[j], tCrC[i][j]);
    }
}

/* GIVEN. C(m, n..n+3) = alpha * acc + beta * C for one run of 4 outputs of row m (inside M):
 * one float4 when C allows it and the run is inside N, else element by element. C is read only
 * when beta != 0. */
EX04_DEV void ex04_store4(float *c, const float *acc, int n, int N, int c_vec, float alpha,
                          float beta) {
    float r[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) r[j] = alpha * acc[j];
    if (c_vec && n + 3 < N) {
        if (beta != 0.0f) {
            const float4 o = *(const float4 *)c;
            r[0] = fmaf(beta, o.x, r[0]); r[1] = fmaf(beta, o.y, r[1]);
            r[2] = fmaf(beta, o.z, r[2]); r[3] = fmaf(beta, o.w, r[3]);
        }
        *(float4 *)c = make_float4(r[0], r[1], r[2], r[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (n + j < N) c[j] = (beta != 0.0f) ? fmaf(beta, c[j], r[j]) : r[j];
    }
}

/* The whole CTA, with the copy kinds of A and B as (after inlining) constants. */
EX04_DEV void ex04_body(const int a_vec, const int b_vec, int M, int N, int K, float alpha,
                        const float *__restrict__ A, int lda, int a_kmajor,
                        const float *__restrict__ B, int ldb, int b_kmajor, float beta,
                        float *__restrict__ C, long long ldc, int c_vec) {
    __shared__ __align__(16) float sA[EX04_STAGES][EX04_TILE_FLOATS]; /* (BLK_M,BLK_K,stage) */
    __shared__ __align__(16) float sB[EX04_STAGES][EX04_TILE_FLOATS]; /* (BLK_N,BLK_K,stage) */
    const int tid = (int)threadIdx.x;

    /* which tile of C: CTA ids run down groups of GROUP_M tile rows (they share B in L2) */
    const int tiles_m = (M + EX04_BLK_M - 1) / EX04_BLK_M, tiles_n = (N + EX04_BLK_N - 1) / EX04_BLK_N;
    const int id = (int)blockIdx.x, per_group = EX04_GROUP_M * tiles_n;
    const int first_m = (id / per_group) * EX04_GROUP_M;
    const int group_m = min(EX04_GROUP_M, tiles_m - first_m);
    const int m0 = (first_m + (id % per_group) % group_m) * EX04_BLK_M;
    const int n0 = ((id % per_group) / group_m) * EX04_BLK_N;

    /* the CTA's tiles in gmem: element (x,k) of k_tile t at gX[t*BLK_K*sk + x*sx + k*sk] */
    const int a_sx = a_kmajor ? lda : 1, a_sk = a_kmajor ? 1 : lda;
    const int b_sx = b_kmajor ? ldb : 1, b_sk = b_kmajor ? 1 : ldb;
    const float *gA = A + (long long)m0 * a_sx; /* (BLK_M,BLK_K,k) */
    const float *gB = B + (long long)n0 * b_sx; /* (BLK_N,BLK_K,k) */
    const int m_rem = M - m0, n_rem = N - n0;

    /* compute partition: warp (wm,wn) of 4 x 2, lane (lm,ln) of 4 x 8; the thread owns the
     * rows tCsA + {0..3, 16..19} and the columns tCsB + {0..3, 32..35} of the C tile */
    const int warp = tid / 32, lane = tid % 32;
    const int tCsA = (warp / 2) * EX04_WARP_M + (lane / 8) * 4;
    const int tCsB = (warp % 2) * EX04_WARP_N + (lane % 8) * 4;
    float tCrC[EX04_THR_M][EX04_THR_N];
#pragma unroll
    for (int i = 0; i < EX04_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < EX04_THR_N; ++j) tCrC[i][j] = 0.0f;

    const int k_tiles = (K + EX04_BLK_K - 1) / EX04_BLK_K;

    /* the copy plans of A and B (your ex04_copy_prep), once per CTA */
    ex04_plan pA = {}, pB = {};
    ex04_copy_prep(&pA, a_vec, a_kmajor, tid, a_sx, a_sk, m_rem);
    ex04_copy_prep(&pB, b_vec, b_kmajor, tid, b_sx, b_sk, n_rem);

    /* The pipeline's prologue (given): k_tile 0 into stage 0; its group is group 0. */
    ex04_copy_AB(&pA, &pB, a_vec, b_vec, 0, k_tiles, gA, a_sk, gB, b_sk, K, sA[0], sB[0]);
    ptx_cp_async_commit();

    /* TODO 3. The double-buffered main loop over the k_tiles. In iteration t:
     *   - wait until k_tile t has landed (ptx.h: PTX_CP_ASYNC_WAIT(N) waits until at most N of
     *     this thread's committed groups are pending);
     *   - ONE __syncthreads(), which must make every thread's copies of k_tile t visible to all
     *     AND guarantee that the other stage is no longer being read;
     *   - start k_tile t+1, if there is one, into the other stage (ex04_copy_AB), and commit a
     *     group: in every iteration, even an empty one, so that "group g" is "k_tile g" for
     *     every thread and the N of wait_group keeps one meaning;
     *   - ex04_gemm_stage on stage t % 2, while the copy of k_tile t+1 is in flight.
     * After the loop nothing may be in flight into smem when the CTA exits. */

    /* epilogue (given): row i of the thread tile is C row m0 + tCsA + (i/4)*16 + i%4; its 8
     * columns are two runs of 4 */
#pragma unroll
    for (int i = 0; i < EX04_THR_M; ++i) {
        const int m = m0 + tCsA + (i / 4) * 16 + i % 4;
        if (m >= M) continue;
#pragma unroll
        for (int c = 0; c < EX04_THR_N / 4; ++c) {
            const int n = n0 + tCsB + 32 * c;
            ex04_store4(C + (long long)m * ldc + n, &tCrC[i][4 * c], n, N, c_vec, alpha, beta);
        }
    }
}

__global__ void __launch_bounds__(EX04_NTHR)
    ex04_gemm(int M, int N, int K, float alpha, const float *__restrict__ A, int lda,
              int a_kmajor, int a_vec, const float *__restrict__ B, int ldb, int b_kmajor,
              int b_vec, float beta, float *__restrict__ C, long long ldc, int c_vec) {
    /* one inlined body per pair of copy kinds; the switch is uniform, outside every loop */
    switch (2 * a_vec + b_vec) {
    case 0: ex04_body(0, 0, M, N, K, alpha, A, lda, a_kmajor, B, ldb, b_kmajor, beta, C, ldc, c_vec); break;
    case 1: ex04_body(0, 1, M, N, K, alpha, A, lda, a_kmajor, B, ldb, b_kmajor, beta, C, ldc, c_vec); break;
    case 2: ex04_body(1, 0, M, N, K, alpha, A, lda, a_kmajor, B, ldb, b_kmajor, beta, C, ldc, c_vec); break;
    default: ex04_body(1, 1, M, N, K, alpha, A, lda, a_kmajor, B, ldb, b_kmajor, beta, C, ldc, c_vec); break;
    }
}

/* 16-byte copies need an x-major operand, ld % 4 == 0 and a 16-byte aligned base. */
static int vec_ok(int kmajor, const void *p, long long ld) {
    return !kmajor && ld % 4 == 0 && (uintptr_t)p % 16 == 0;
}

static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    const long long tiles = (long long)((p->m + EX04_BLK_M - 1) / EX04_BLK_M) *
                            ((p->n + EX04_BLK_N - 1) / EX04_BLK_N);
    const int c_vec = p->ldc % 4 == 0 && (uintptr_t)p->C % 16 == 0;
    ex04_gemm<<<(unsigned)tiles, EX04_NTHR, 0, s>>>(
        p->m, p->n, p->k, p->alpha, (const float *)p->A, (int)p->lda, p->a_kmajor,
        vec_ok(p->a_kmajor, p->A, p->lda), (const float *)p->B, (int)p->ldb, p->b_kmajor,
        vec_ok(p->b_kmajor, p->B, p->ldb), p->beta, (float *)p->C, p->ldc, c_vec);
    return cudaGetLastError();
}

/* the grid is 1-D (at most 2^31-1 CTAs); offsets inside a tile are ints */
static const char *check(const gemm_problem *p) {
    if ((long long)((p->m + EX04_BLK_M - 1) / EX04_BLK_M) * ((p->n + EX04_BLK_N - 1) / EX04_BLK_N) >
        2147483647LL)
        return "too many tiles of C for one grid (limit 2^31-1 CTAs)";
    if (p->lda >= (1LL << 22) || p->ldb >= (1LL << 22))
        return "lda and ldb must be below 2^22 (32-bit offsets inside a tile)";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "lesson 04 assignment: 128x128x8, cp.async double buffering, 8x8/thread",
    GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check, launch};
