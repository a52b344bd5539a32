/* kernel.cuh - the body of lesson 04's kernel, stamped out once per tile configuration.
 *
 * gemm.cu includes this file several times. Before each #include it defines
 *     K_NAME                                    the kernel's name (e.g. gemm04_fast)
 *     K_BLK_M K_BLK_N K_BLK_K                   CTA tile
 *     K_WARP_M K_WARP_N                         warp tile
 *     K_THR_M K_THR_N                           thread tile (multiples of 4)
 *     K_STAGES                                  1 = synchronous copy, >= 2 = cp.async pipeline
 *     K_MINB                                    CTAs per SM promised to __launch_bounds__
 * and this file #undefs them at the end. (C has no templates; including a body under
 * different macros is the C way to get several compile-time tile shapes. The tile sizes must be
 * compile-time constants: the accumulators are a THR_M x THR_N array that has to live in
 * registers, which needs every index known at compile time.)
 *
 * It defines:
 *   K_NAME                  the __global__ kernel (one CTA per (BLK_M,BLK_N) tile of C)
 *   K_NAME##_body           the kernel body, one inlined copy per pair of copy modes
 *   K_NAME##_smem_bytes     the dynamic shared memory it needs
 *   launch_##K_NAME         the launch function of the variant table
 */

#define K_NTHR ((K_BLK_M / K_WARP_M) * (K_BLK_N / K_WARP_N) * 32) /* threads per CTA */
#define K_SA_PITCH (K_BLK_M + P4_PAD)                             /* floats per k row of sA */
#define K_SB_PITCH (K_BLK_N + P4_PAD)                             /* floats per k row of sB */
#define K_SA_SIZE (K_BLK_K * K_SA_PITCH)                          /* floats per stage of sA */
#define K_SB_SIZE (K_BLK_K * K_SB_PITCH)
#define K_NBUF (K_STAGES > 1 ? K_STAGES : 1) /* smem buffers */

static_assert(K_THR_M % 4 == 0 && K_THR_N % 4 == 0, "thread tile is made of 4x4 chunks");
static_assert((K_WARP_M / K_THR_M) * (K_WARP_N / K_THR_N) == 32, "a warp tile has 32 lanes");
static_assert(K_BLK_M % K_WARP_M == 0 && K_BLK_N % K_WARP_N == 0, "warps tile the CTA tile");
static_assert(K_BLK_M % 32 == 0 && K_BLK_N % 32 == 0, "P4_PAD's bank argument needs 32 | BLK_X");
static_assert(K_BLK_K % 8 == 0, "the K4 copy walks k in groups of 8");
static_assert(K_BLK_M * K_BLK_K <= P4_MAXV * K_NTHR && K_BLK_N * K_BLK_K <= P4_MAXV * K_NTHR,
              "a copy plan holds at most P4_MAXV vectors per thread");
static_assert((K_BLK_M * K_BLK_K) % (4 * K_NTHR) == 0 && (K_BLK_N * K_BLK_K) % (4 * K_NTHR) == 0,
              "every thread moves the same number of float4s");

static const int P4_CAT(K_NAME, _smem_bytes) = K_NBUF * (K_SA_SIZE + K_SB_SIZE) *
                                               (int)sizeof(float);

/* The whole GEMM for one CTA, with the copy modes as (after inlining) compile-time constants. */
static __device__ __forceinline__ void
P4_CAT(K_NAME, _body)(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
                      const float *__restrict__ B, long long ldb, float beta, float *__restrict__ C,
                      long long ldc, int c_vec, const int a_mode, const int b_mode) {
    const int tid = threadIdx.x;

    /* ---- which tile of C: grouped rasterization ----------------------------------------
     * CTA ids run down P4_GROUP_M tile rows before moving one tile column right, so the
     * CTAs resident at one time read a few rows of A and a few columns of B, which stay in L2
     * (a plain row-by-row order would stream all of B for every tile row). */
    const int tiles_m = (M + K_BLK_M - 1) / K_BLK_M;
    const int tiles_n = (N + K_BLK_N - 1) / K_BLK_N;
    int tile_m, tile_n;
    p4_tile_coord((int)blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
    const int m0 = tile_m * K_BLK_M, n0 = tile_n * K_BLK_N;

    /* ---- the tensors --------------------------------------------------------------------
     * mA (M,K): element (m,k) at A[m*a_sx + k*a_sk]; K-major modes have a_sx = lda, a_sk = 1,
     * x-major modes a_sx = 1, a_sk = lda. Same for mB (N,K). */
    const long long a_sx = (a_mode == P4_COPY_K4 || a_mode == P4_COPY_K16) ? lda : 1;
    const long long a_sk = (a_mode == P4_COPY_K4 || a_mode == P4_COPY_K16) ? 1 : lda;
    const long long b_sx = (b_mode == P4_COPY_K4 || b_mode == P4_COPY_K16) ? ldb : 1;
    const long long b_sk = (b_mode == P4_COPY_K4 || b_mode == P4_COPY_K16) ? 1 : ldb;
    const float *gA = A + m0 * a_sx; /* (BLK_M,BLK_K,k): k_tile t starts at gA + t*BLK_K*a_sk */
    const float *gB = B + n0 * b_sx; /* (BLK_N,BLK_K,k) */

    /* Shared memory: K_NBUF stages of sA then K_NBUF stages of sB, each transposed. */
    extern __shared__ float4 p4_smem[];
    float *sA = (float *)p4_smem;        /* (BLK_M,BLK_K,stage) at sA[s*SA_SIZE + k*SA_PITCH + m] */
    float *sB = sA + K_NBUF * K_SA_SIZE; /* (BLK_N,BLK_K,stage) */

    /* ---- compute partition (plan.h: p4_mma, the FFMA atom tiled over the warps): A value v of
     * this thread is sA[tCsA + p4_frag_at(.., P4_FRAG_A, v)], the thread's base plus a constant;
     * v = p4_a_val(THR_M, 4c, k) is chunk c at k, read as one float4 with the next 3. B alike. */
    const p4_cfg cfg = {K_BLK_M, K_BLK_N, K_BLK_K, K_WARP_M, K_WARP_N, K_THR_M, K_THR_N};
    const lay_tiled_mma mma = p4_mma(cfg);
    const int tCsA = p4_frag_base(&mma, cfg, P4_FRAG_A, tid); /* sA offset of A value 0 */
    const int tCsB = p4_frag_base(&mma, cfg, P4_FRAG_B, tid); /* sB offset of B value 0 */

    float tCrC[K_THR_M][K_THR_N]; /* (THR_M,THR_N) accumulators, in registers */
#pragma unroll
    for (int i = 0; i < K_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < K_THR_N; ++j) tCrC[i][j] = 0.0f;

    const int k_tiles = (K + K_BLK_K - 1) / K_BLK_K;

    /* Copy plans (tAgA -> tAsA, tBgB -> tBsB for every full k_tile): computed once. */
    p4_copy_plan tAplan, tBplan;
    p4_view tAv, tBv; /* this thread's part of the tiled copies (gemm.cu: p4_view) */
    p4_view_make(&tAv, tid, a_sx, a_sk);
    p4_view_make(&tBv, tid, b_sx, b_sk);
    p4_copy_prep(&tAplan, &tAv, a_mode, K_BLK_M, K_BLK_K, K_NTHR, M - m0);
    p4_copy_prep(&tBplan, &tBv, b_mode, K_BLK_N, K_BLK_K, K_NTHR, N - n0);

    /* Copies k_tile t of A and B into stage s (asynchronously when K_STAGES > 1). Vectors
     * outside (M,K) / (N,K) are zero-filled, so the edge tiles need no other special case. */
#define K_COPY(s, t, check_k)                                                                   \
    do {                                                                                        \
        const float *gA_t = gA + (long long)(t)*K_BLK_K * a_sk; /* (BLK_M,BLK_K) */             \
        const float *gB_t = gB + (long long)(t)*K_BLK_K * b_sk; /* (BLK_N,BLK_K) */             \
        if (check_k) {                                                                          \
            p4_copy_tile(&tAv, a_mode, K_STAGES > 1, K_BLK_M, K_BLK_K, K_NTHR, 1, gA_t, M - m0, \
                         K - (t)*K_BLK_K, sA + (s)*K_SA_SIZE);                                  \
            p4_copy_tile(&tBv, b_mode, K_STAGES > 1, K_BLK_N, K_BLK_K, K_NTHR, 1, gB_t, N - n0, \
                         K - (t)*K_BLK_K, sB + (s)*K_SB_SIZE);                                  \
        } else {                                                                                \
            p4_copy_issue(&tAplan, &tAv, a_mode, K_STAGES > 1, K_BLK_M, K_BLK_K, K_NTHR, gA_t,  \
                          sA + (s)*K_SA_SIZE);                                                  \
            p4_copy_issue(&tBplan, &tBv, b_mode, K_STAGES > 1, K_BLK_N, K_BLK_K, K_NTHR, gB_t,  \
                          sB + (s)*K_SB_SIZE);                                                  \
        }                                                                                       \
    } while (0)
    /* The last k_tile may be partial (K % BLK_K != 0): only its copy tests k. */
#define K_COPY_ANY(s, t)                        \
    do {                                        \
        if ((t) + 1 < k_tiles) K_COPY(s, t, 0); \
        else K_COPY(s, t, 1);                   \
    } while (0)

    /* tCrC += tCsA * tCsB^T over the BLK_K k's of stage s: at each k, load THR_M floats of A
     * and THR_N floats of B (as float4s) into registers, then THR_M*THR_N FFMAs: the outer
     * product. 16 FFMA per LDS.128 for an 8x8 thread tile. */
#define K_GEMM(s)                                                                            \
    do {                                                                                     \
        const float *sa_ = sA + (s)*K_SA_SIZE;                                               \
        const float *sb_ = sB + (s)*K_SB_SIZE;                                               \
        _Pragma("unroll") for (int k = 0; k < K_BLK_K; ++k) {                                \
            float rA[K_THR_M], rB[K_THR_N]; /* (THR_M) and (THR_N) at this k */              \
            _Pragma("unroll") for (int c = 0; c < K_THR_M / 4; ++c) {                        \
                const float4 v = *(const float4 *)(sa_ + tCsA +                              \
                                                   p4_frag_at(&mma, cfg, P4_FRAG_A,          \
                                                              p4_a_val(K_THR_M, 4 * c, k))); \
                rA[4 * c] = v.x;                                                             \
                rA[4 * c + 1] = v.y;                                                         \
                rA[4 * c + 2] = v.z;                                                         \
                rA[4 * c + 3] = v.w;                                                         \
            }                                                                                \
            _Pragma("unroll") for (int c = 0; c < K_THR_N / 4; ++c) {                        \
                const float4 v = *(const float4 *)(sb_ + tCsB +                              \
                                                   p4_frag_at(&mma, cfg, P4_FRAG_B,          \
                                                              p4_b_val(K_THR_N, 4 * c, k))); \
                rB[4 * c] = v.x;                                                             \
                rB[4 * c + 1] = v.y;                                                         \
                rB[4 * c + 2] = v.z;                                                         \
                rB[4 * c + 3] = v.w;                                                         \
            }                                                                                \
            _Pragma("unroll") for (int i = 0; i < K_THR_M; ++i)                              \
                _Pragma("unroll") for (int j = 0; j < K_THR_N; ++j) tCrC[i][j] =             \
                    fmaf(rA[i], rB[j], tCrC[i][j]);                                          \
        }                                                                                    \
    } while (0)

#if K_STAGES == 1
    /* Synchronous main loop (lesson 03's structure, with vector copies):
     *   copy -> barrier (the tile is complete in smem) -> gemm -> barrier (everyone is done
     *   reading before the next copy overwrites it). */
    for (int t = 0; t < k_tiles; ++t) {
        K_COPY_ANY(0, t);
        __syncthreads();
        K_GEMM(0);
        __syncthreads();
    }
#else
    /* cp.async pipeline with K_STAGES buffers.
     * Every thread commits exactly one group per k_tile (possibly empty), so "group g" means
     * "k_tile g" for every thread, and cp.async.wait_group N means "all but my N newest
     * groups have landed in smem".
     * Prologue: start k_tiles 0 .. STAGES-2. */
#pragma unroll
    for (int s = 0; s < K_STAGES - 1; ++s) {
        if (s < k_tiles) K_COPY_ANY(s, s);
        ptx_cp_async_commit();
    }
    int read_s = 0;             /* stage holding k_tile t */
    int write_s = K_STAGES - 1; /* stage that receives k_tile t + STAGES-1 */
    for (int t = 0; t < k_tiles; ++t) {
        /* Groups committed so far: t + STAGES-1. Allowing STAGES-2 pending leaves k_tile t
         * complete -- for this thread's own copies only. */
        PTX_CP_ASYNC_WAIT(K_STAGES - 2);
        /* The barrier does two jobs: (1) after it every thread's copies of k_tile t are
         * visible to every thread; (2) every thread has finished K_GEMM of k_tile t-1, whose
         * stage (== write_s) can now be overwritten. One barrier per k_tile. */
        __syncthreads();
        if (t + K_STAGES - 1 < k_tiles) K_COPY_ANY(write_s, t + K_STAGES - 1);
        ptx_cp_async_commit(); /* always commit, so the group count stays = k_tile count */
        K_GEMM(read_s);        /* overlaps with the copies in flight */
        read_s = (read_s + 1 == K_STAGES) ? 0 : read_s + 1;
        write_s = (write_s + 1 == K_STAGES) ? 0 : write_s + 1;
    }
    PTX_CP_ASYNC_WAIT(0); /* nothing may be in flight into smem when the CTA exits */
#endif
#undef K_COPY
#undef K_COPY_ANY
#undef K_GEMM

    /* ---- epilogue: tCgC = alpha * tCrC + beta * tCgC (gemm.cu: p4_epilogue) ------------ */
    p4_epilogue(&tCrC[0][0], cfg, tid, m0, n0, M, N, C, ldc, c_vec, alpha, beta);
}

/* The kernel: pick the body specialised for this problem's copy modes. The switch is on
 * kernel arguments (uniform across the grid) and happens once, outside every loop. */
__global__ void __launch_bounds__(K_NTHR, K_MINB)
    K_NAME(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda, int a_mode,
           const float *__restrict__ B, long long ldb, int b_mode, float beta,
           float *__restrict__ C, long long ldc, int c_vec) {
#define K_CASE(am, bm)                                                                      \
    case (am)*P4_NCOPY + (bm):                                                              \
        P4_CAT(K_NAME, _body)(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, am, bm); \
        break
    switch (a_mode * P4_NCOPY + b_mode) {
        K_CASE(P4_COPY_K4, P4_COPY_K4);
        K_CASE(P4_COPY_K4, P4_COPY_X16);
        K_CASE(P4_COPY_K4, P4_COPY_X4);
        K_CASE(P4_COPY_X16, P4_COPY_K4);
        K_CASE(P4_COPY_X16, P4_COPY_X16);
        K_CASE(P4_COPY_X16, P4_COPY_X4);
        K_CASE(P4_COPY_X4, P4_COPY_K4);
        K_CASE(P4_COPY_X4, P4_COPY_X16);
        K_CASE(P4_COPY_X4, P4_COPY_X4);
#if K_STAGES == 1
        /* LDG.128 along k then four scalar stores: only the synchronous copy can transpose */
        K_CASE(P4_COPY_K16, P4_COPY_K16);
        K_CASE(P4_COPY_K16, P4_COPY_K4);
        K_CASE(P4_COPY_K16, P4_COPY_X16);
        K_CASE(P4_COPY_K16, P4_COPY_X4);
        K_CASE(P4_COPY_K4, P4_COPY_K16);
        K_CASE(P4_COPY_X16, P4_COPY_K16);
        K_CASE(P4_COPY_X4, P4_COPY_K16);
#endif
        default: break; /* unreachable: the launch function only passes the modes listed above */
    }
#undef K_CASE
}

static cudaError_t P4_CAT(launch_, K_NAME)(const gemm_problem *p, cudaStream_t stream) {
    const int smem = P4_CAT(K_NAME, _smem_bytes);
    if (smem > 48 * 1024) { /* above 48 KB, dynamic smem must be opted into per kernel */
        cudaError_t e =
            cudaFuncSetAttribute(K_NAME, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e != cudaSuccess) return e;
    }
    const long long tiles =
        (long long)((p->m + K_BLK_M - 1) / K_BLK_M) * ((p->n + K_BLK_N - 1) / K_BLK_N);
    const int async = K_STAGES > 1;
    const int a_mode = p4_mode(p->a_kmajor, p->A, p->lda, async);
    const int b_mode = p4_mode(p->b_kmajor, p->B, p->ldb, async);
    const int c_vec = p->ldc % 4 == 0 && (uintptr_t)p->C % 16 == 0;
    K_NAME<<<(unsigned)tiles, K_NTHR, smem, stream>>>(
        p->m, p->n, p->k, p->alpha, (const float *)p->A, p->lda, a_mode, (const float *)p->B,
        p->ldb, b_mode, p->beta, (float *)p->C, p->ldc, c_vec);
    return cudaGetLastError();
}

#undef K_NTHR
#undef K_SA_PITCH
#undef K_SB_PITCH
#undef K_SA_SIZE
#undef K_SB_SIZE
#undef K_NBUF
#undef K_NAME
#undef K_BLK_M
#undef K_BLK_N
#undef K_BLK_K
#undef K_WARP_M
#undef K_WARP_N
#undef K_THR_M
#undef K_THR_N
#undef K_STAGES
#undef K_MINB
