/* kernel.cuh - lesson 04's kernel with cp.async pipelines (or synchronous copies), a template
 * over the tile configuration.
 *
 * A configuration is a type, p4_cp_cfg<BLK_M, BLK_N, BLK_K, WARP_M, WARP_N, THR_M, THR_N,
 * STAGES, MINB>:
 *     BLK_M BLK_N BLK_K     CTA tile
 *     WARP_M WARP_N         warp tile
 *     THR_M THR_N           thread tile (multiples of 4)
 *     STAGES                1 = synchronous copy, >= 2 = cp.async pipeline
 *     MINB                  CTAs per SM promised to __launch_bounds__
 * gemm.cu names one per variant and stamps one __global__ kernel per configuration, whose body
 * is p4_cp_kernel<CFG>. Why a template: the tile sizes must be compile-time constants (the
 * accumulators are a THR_M x THR_N array that has to live in registers, which needs every
 * index known at compile time), and one source gives several tile shapes; in plain C this
 * file would be #included once per configuration under different macros.
 *
 * It defines:
 *   p4_cp_cfg      the configuration and its derived constants (threads, smem sizes)
 *   p4_cp_gemm     the outer products of the BLK_K k's of one smem stage
 *   p4_cp_body     the whole GEMM of one CTA, for one pair of copy modes
 *   p4_cp_kernel   the kernel's body: the p4_cp_body of the problem's copy modes
 *   p4_cp_launch   the launch function of the variant table
 * One step of the body stays a macro, K_COPY (the copy of one k_tile of A and B into a smem
 * stage; K_COPY_ANY: of any k_tile). Written as an inline function (with the same arguments
 * or with the addresses computed by the caller), it made nvcc 13.0 compile the sm_90 main
 * loops differently: up to 9 instructions more per loop, in the copies' 64-bit address
 * arithmetic. tests/sass_budget.txt holds the loops to their counts.
 */

template <int BLK_M_, int BLK_N_, int BLK_K_, int WARP_M_, int WARP_N_, int THR_M_, int THR_N_,
          int STAGES_, int MINB_>
struct p4_cp_cfg {
    enum {
        BLK_M = BLK_M_,
        BLK_N = BLK_N_,
        BLK_K = BLK_K_,
        WARP_M = WARP_M_,
        WARP_N = WARP_N_,
        THR_M = THR_M_,
        THR_N = THR_N_,
        STAGES = STAGES_,
        MINB = MINB_,
        NTHR = (BLK_M / WARP_M) * (BLK_N / WARP_N) * 32, /* threads per CTA */
        SA_PITCH = BLK_M + P4_PAD,                       /* floats per k row of sA */
        SB_PITCH = BLK_N + P4_PAD,                       /* floats per k row of sB */
        SA_SIZE = BLK_K * SA_PITCH,                      /* floats per stage of sA */
        SB_SIZE = BLK_K * SB_PITCH,
        NBUF = STAGES > 1 ? STAGES : 1,        /* smem buffers */
        PENDING = STAGES > 1 ? STAGES - 2 : 0, /* cp.async groups left in flight per k_tile */
        SMEM_BYTES = NBUF * (SA_SIZE + SB_SIZE) * (int)sizeof(float) /* dynamic smem */
    };
    static_assert(THR_M % 4 == 0 && THR_N % 4 == 0, "thread tile is made of 4x4 chunks");
    static_assert((WARP_M / THR_M) * (WARP_N / THR_N) == 32, "a warp tile has 32 lanes");
    static_assert(BLK_M % WARP_M == 0 && BLK_N % WARP_N == 0, "warps tile the CTA tile");
    static_assert(BLK_M % 32 == 0 && BLK_N % 32 == 0, "P4_PAD's bank argument needs 32 | BLK_X");
    static_assert(BLK_K % 8 == 0, "the K4 copy walks k in groups of 8");
    static_assert(BLK_M * BLK_K <= P4_MAXV * NTHR && BLK_N * BLK_K <= P4_MAXV * NTHR,
                  "a copy plan holds at most P4_MAXV vectors per thread");
    static_assert((BLK_M * BLK_K) % (4 * NTHR) == 0 && (BLK_N * BLK_K) % (4 * NTHR) == 0,
                  "every thread moves the same number of float4s");
};

/* tCrC += tCsA * tCsB^T over the BLK_K k's of stage s: at each k, load THR_M floats of A
 * and THR_N floats of B (as float4s) into registers, then THR_M*THR_N FFMAs: the outer
 * product. 16 FFMA per LDS.128 for an 8x8 thread tile. tCsA / tCsB: the thread's sA / sB
 * offsets of its value 0 (p4_frag_base); the value offsets come from the compute partition
 * (p4_mma), constants here. */
template <class CFG>
static __device__ __forceinline__ void p4_cp_gemm(float (*tCrC)[CFG::THR_N], const float *sA,
                                                  const float *sB, int s, int tCsA, int tCsB) {
    const p4_cfg cfg = {CFG::BLK_M,  CFG::BLK_N, CFG::BLK_K, CFG::WARP_M,
                        CFG::WARP_N, CFG::THR_M, CFG::THR_N};
    const lay_tiled_mma mma = p4_mma(cfg);
    const float *sa_ = sA + s * CFG::SA_SIZE; /* (BLK_M,BLK_K) */
    const float *sb_ = sB + s * CFG::SB_SIZE; /* (BLK_N,BLK_K) */
#pragma unroll
    for (int k = 0; k < CFG::BLK_K; ++k) {
        float rA[CFG::THR_M], rB[CFG::THR_N]; /* (THR_M) and (THR_N) at this k */
#pragma unroll
        for (int c = 0; c < CFG::THR_M / 4; ++c) {
            const float4 v =
                *(const float4 *)(sa_ + tCsA +
                                  p4_frag_at(&mma, cfg, P4_FRAG_A, p4_a_val(CFG::THR_M, 4 * c, k)));
            rA[4 * c] = v.x;
            rA[4 * c + 1] = v.y;
            rA[4 * c + 2] = v.z;
            rA[4 * c + 3] = v.w;
        }
#pragma unroll
        for (int c = 0; c < CFG::THR_N / 4; ++c) {
            const float4 v =
                *(const float4 *)(sb_ + tCsB +
                                  p4_frag_at(&mma, cfg, P4_FRAG_B, p4_b_val(CFG::THR_N, 4 * c, k)));
            rB[4 * c] = v.x;
            rB[4 * c + 1] = v.y;
            rB[4 * c + 2] = v.z;
            rB[4 * c + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < CFG::THR_M; ++i)
#pragma unroll
            for (int j = 0; j < CFG::THR_N; ++j) tCrC[i][j] = fmaf(rA[i], rB[j], tCrC[i][j]);
    }
}

/* The whole GEMM for one CTA, with the copy modes as (after inlining) compile-time constants. */
template <class CFG>
static __device__ __forceinline__ void
p4_cp_body(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
           const float *__restrict__ B, long long ldb, float beta, float *__restrict__ C,
           long long ldc, int c_vec, const int a_mode, const int b_mode) {
    const int tid = threadIdx.x;

    /* ---- which tile of C: grouped rasterization ----------------------------------------
     * CTA ids run down P4_GROUP_M tile rows before moving one tile column right, so the
     * CTAs resident at one time read a few rows of A and a few columns of B, which stay in L2
     * (a plain row-by-row order would stream all of B for every tile row). */
    const int tiles_m = (M + CFG::BLK_M - 1) / CFG::BLK_M;
    const int tiles_n = (N + CFG::BLK_N - 1) / CFG::BLK_N;
    int tile_m, tile_n;
    p4_tile_coord((int)blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
    const int m0 = tile_m * CFG::BLK_M, n0 = tile_n * CFG::BLK_N;

    /* ---- the tensors --------------------------------------------------------------------
     * mA (M,K): element (m,k) at A[m*a_sx + k*a_sk]; K-major modes have a_sx = lda, a_sk = 1,
     * x-major modes a_sx = 1, a_sk = lda. Same for mB (N,K). */
    const long long a_sx = (a_mode == P4_COPY_K4 || a_mode == P4_COPY_K16) ? lda : 1;
    const long long a_sk = (a_mode == P4_COPY_K4 || a_mode == P4_COPY_K16) ? 1 : lda;
    const long long b_sx = (b_mode == P4_COPY_K4 || b_mode == P4_COPY_K16) ? ldb : 1;
    const long long b_sk = (b_mode == P4_COPY_K4 || b_mode == P4_COPY_K16) ? 1 : ldb;
    const float *gA = A + m0 * a_sx; /* (BLK_M,BLK_K,k): k_tile t starts at gA + t*BLK_K*a_sk */
    const float *gB = B + n0 * b_sx; /* (BLK_N,BLK_K,k) */

    /* Shared memory: NBUF stages of sA then NBUF stages of sB, each transposed. */
    extern __shared__ float4 p4_smem[];
    float *sA = (float *)p4_smem; /* (BLK_M,BLK_K,stage) at sA[s*SA_SIZE + k*SA_PITCH + m] */
    float *sB = sA + CFG::NBUF * CFG::SA_SIZE; /* (BLK_N,BLK_K,stage) */

    /* ---- compute partition (plan.h: p4_mma, the FFMA atom tiled over the warps): A value v of
     * this thread is sA[tCsA + p4_frag_at(.., P4_FRAG_A, v)], the thread's base plus a constant;
     * v = p4_a_val(THR_M, 4c, k) is chunk c at k, read as one float4 with the next 3. B alike. */
    const p4_cfg cfg = {CFG::BLK_M,  CFG::BLK_N, CFG::BLK_K, CFG::WARP_M,
                        CFG::WARP_N, CFG::THR_M, CFG::THR_N};
    const lay_tiled_mma mma = p4_mma(cfg);
    const int tCsA = p4_frag_base(&mma, cfg, P4_FRAG_A, tid); /* sA offset of A value 0 */
    const int tCsB = p4_frag_base(&mma, cfg, P4_FRAG_B, tid); /* sB offset of B value 0 */

    float tCrC[CFG::THR_M][CFG::THR_N]; /* (THR_M,THR_N) accumulators, in registers */
#pragma unroll
    for (int i = 0; i < CFG::THR_M; ++i)
#pragma unroll
        for (int j = 0; j < CFG::THR_N; ++j) tCrC[i][j] = 0.0f;

    const int k_tiles = (K + CFG::BLK_K - 1) / CFG::BLK_K;

    /* Copy plans (tAgA -> tAsA, tBgB -> tBsB for every full k_tile): computed once. */
    p4_copy_plan tAplan, tBplan;
    p4_view tAv, tBv; /* this thread's part of the tiled copies (gemm.cu: p4_view) */
    p4_view_make(&tAv, tid, a_sx, a_sk);
    p4_view_make(&tBv, tid, b_sx, b_sk);
    p4_copy_prep(&tAplan, &tAv, a_mode, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, M - m0);
    p4_copy_prep(&tBplan, &tBv, b_mode, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, N - n0);

    /* K_COPY(s, t, check_k): copies k_tile t of A and B into stage s (asynchronously when
     * STAGES > 1). Vectors outside (M,K) / (N,K) are zero-filled, so the edge tiles need no
     * other special case. check_k = 0 (a constant) promises a full k_tile: the copy plans, no
     * k tests. K_COPY_ANY(s, t): the last k_tile may be partial (K % BLK_K != 0), only its copy
     * tests k. */
#define K_COPY(s, t, check_k)                                                                 \
    do {                                                                                      \
        const float *gA_t = gA + (long long)(t)*CFG::BLK_K * a_sk; /* (BLK_M,BLK_K) */        \
        const float *gB_t = gB + (long long)(t)*CFG::BLK_K * b_sk; /* (BLK_N,BLK_K) */        \
        if (check_k) {                                                                        \
            p4_copy_tile(&tAv, a_mode, CFG::STAGES > 1, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, 1, \
                         gA_t, M - m0, K - (t)*CFG::BLK_K, sA + (s)*CFG::SA_SIZE);            \
            p4_copy_tile(&tBv, b_mode, CFG::STAGES > 1, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, 1, \
                         gB_t, N - n0, K - (t)*CFG::BLK_K, sB + (s)*CFG::SB_SIZE);            \
        } else {                                                                              \
            p4_copy_issue(&tAplan, &tAv, a_mode, CFG::STAGES > 1, CFG::BLK_M, CFG::BLK_K,     \
                          CFG::NTHR, gA_t, sA + (s)*CFG::SA_SIZE);                            \
            p4_copy_issue(&tBplan, &tBv, b_mode, CFG::STAGES > 1, CFG::BLK_N, CFG::BLK_K,     \
                          CFG::NTHR, gB_t, sB + (s)*CFG::SB_SIZE);                            \
        }                                                                                     \
    } while (0)
#define K_COPY_ANY(s, t)                        \
    do {                                        \
        if ((t) + 1 < k_tiles) K_COPY(s, t, 0); \
        else K_COPY(s, t, 1);                   \
    } while (0)

    if (CFG::STAGES == 1) {
        /* Synchronous main loop (lesson 03's structure, with vector copies):
         *   copy -> barrier (the tile is complete in smem) -> gemm -> barrier (everyone is done
         *   reading before the next copy overwrites it). */
        for (int t = 0; t < k_tiles; ++t) {
            K_COPY_ANY(0, t);
            __syncthreads();
            p4_cp_gemm<CFG>(tCrC, sA, sB, 0, tCsA, tCsB);
            __syncthreads();
        }
    } else {
        /* cp.async pipeline with STAGES buffers.
         * Every thread commits exactly one group per k_tile (possibly empty), so "group g"
         * means "k_tile g" for every thread, and cp.async.wait_group N means "all but my N
         * newest groups have landed in smem".
         * Prologue: start k_tiles 0 .. STAGES-2. */
#pragma unroll
        for (int s = 0; s < CFG::STAGES - 1; ++s) {
            if (s < k_tiles) K_COPY_ANY(s, s);
            ptx_cp_async_commit();
        }
        int read_s = 0;                /* stage holding k_tile t */
        int write_s = CFG::STAGES - 1; /* stage that receives k_tile t + STAGES-1 */
        for (int t = 0; t < k_tiles; ++t) {
            /* Groups committed so far: t + STAGES-1. Allowing STAGES-2 pending leaves k_tile t
             * complete -- for this thread's own copies only. */
            PTX_CP_ASYNC_WAIT((int)CFG::PENDING); /* an "n" operand: an int constant */
            /* The barrier does two jobs: (1) after it every thread's copies of k_tile t are
             * visible to every thread; (2) every thread has finished p4_cp_gemm of k_tile t-1,
             * whose stage (== write_s) can now be overwritten. One barrier per k_tile. */
            __syncthreads();
            if (t + CFG::STAGES - 1 < k_tiles) K_COPY_ANY(write_s, t + CFG::STAGES - 1);
            ptx_cp_async_commit(); /* always commit, so the group count stays = k_tile count */
            /* overlaps with the copies in flight */
            p4_cp_gemm<CFG>(tCrC, sA, sB, read_s, tCsA, tCsB);
            read_s = (read_s + 1 == CFG::STAGES) ? 0 : read_s + 1;
            write_s = (write_s + 1 == CFG::STAGES) ? 0 : write_s + 1;
        }
        PTX_CP_ASYNC_WAIT(0); /* nothing may be in flight into smem when the CTA exits */
    }
#undef K_COPY
#undef K_COPY_ANY

    /* ---- epilogue: tCgC = alpha * tCrC + beta * tCgC (gemm.cu: p4_epilogue) ------------ */
    p4_epilogue(&tCrC[0][0], cfg, tid, m0, n0, M, N, C, ldc, c_vec, alpha, beta);
}

/* The kernel's body: pick the p4_cp_body specialised for this problem's copy modes. The switch
 * is on kernel arguments (uniform across the grid) and happens once, outside every loop. */
template <class CFG>
static __device__ __forceinline__ void
p4_cp_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, long long lda,
             int a_mode, const float *__restrict__ B, long long ldb, int b_mode, float beta,
             float *__restrict__ C, long long ldc, int c_vec) {
    enum { K4 = P4_COPY_K4, K16 = P4_COPY_K16, X16 = P4_COPY_X16, X4 = P4_COPY_X4 };
    /* Two switches, one per kind of kernel, so that each holds only the cases its kernels get
     * (the pipelined ones never K16, see p4_mode): one switch with cases that cannot happen
     * compiles the pipelined kernels' loops differently. */
    if (CFG::STAGES == 1) {
        switch (p4_modes(a_mode, b_mode)) {
            case p4_modes(K4, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, K4);
                break;
            case p4_modes(K4, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, X16);
                break;
            case p4_modes(K4, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, X4);
                break;
            case p4_modes(X16, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, K4);
                break;
            case p4_modes(X16, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, X16);
                break;
            case p4_modes(X16, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, X4);
                break;
            case p4_modes(X4, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, K4);
                break;
            case p4_modes(X4, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, X16);
                break;
            case p4_modes(X4, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, X4);
                break;
            /* LDG.128 along k then four scalar stores: only the synchronous copy can transpose */
            case p4_modes(K16, K16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K16, K16);
                break;
            case p4_modes(K16, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K16, K4);
                break;
            case p4_modes(K16, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K16, X16);
                break;
            case p4_modes(K16, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K16, X4);
                break;
            case p4_modes(K4, K16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, K16);
                break;
            case p4_modes(X16, K16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, K16);
                break;
            case p4_modes(X4, K16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, K16);
                break;
            default: break; /* unreachable: the launch function only passes the modes listed */
        }
    } else {
        switch (p4_modes(a_mode, b_mode)) {
            case p4_modes(K4, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, K4);
                break;
            case p4_modes(K4, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, X16);
                break;
            case p4_modes(K4, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, K4, X4);
                break;
            case p4_modes(X16, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, K4);
                break;
            case p4_modes(X16, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, X16);
                break;
            case p4_modes(X16, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X16, X4);
                break;
            case p4_modes(X4, K4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, K4);
                break;
            case p4_modes(X4, X16):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, X16);
                break;
            case p4_modes(X4, X4):
                p4_cp_body<CFG>(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, c_vec, X4, X4);
                break;
            default: break; /* unreachable: the launch function only passes the modes listed */
        }
    }
}

/* The launch function of configuration CFG, whose __global__ kernel (gemm.cu) is `kernel`:
 * one CTA per (BLK_M,BLK_N) tile of C on a 1-D grid (p4_tile_coord), CFG::NTHR threads,
 * CFG::SMEM_BYTES of dynamic smem, the copy modes picked once for the problem (p4_mode).
 * Returns the first CUDA error. */
typedef void (*p4_cp_kernel_fn)(int, int, int, float, const float *, long long, int, const float *,
                                long long, int, float, float *, long long, int);
template <class CFG>
static cudaError_t p4_cp_launch(const gemm_problem *p, cudaStream_t stream,
                                p4_cp_kernel_fn kernel) {
    const int smem = CFG::SMEM_BYTES;
    if (smem > 48 * 1024) { /* above 48 KB, dynamic smem must be opted into per kernel */
        cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e != cudaSuccess) return e;
    }
    const long long tiles =
        (long long)((p->m + CFG::BLK_M - 1) / CFG::BLK_M) * ((p->n + CFG::BLK_N - 1) / CFG::BLK_N);
    const int async = CFG::STAGES > 1;
    const int a_mode = p4_mode(p->a_kmajor, p->A, p->lda, async);
    const int b_mode = p4_mode(p->b_kmajor, p->B, p->ldb, async);
    const int c_vec = p->ldc % 4 == 0 && (uintptr_t)p->C % 16 == 0;
    kernel<<<(unsigned)tiles, CFG::NTHR, smem, stream>>>(
        p->m, p->n, p->k, p->alpha, (const float *)p->A, p->lda, a_mode, (const float *)p->B,
        p->ldb, b_mode, p->beta, (float *)p->C, p->ldc, c_vec);
    return cudaGetLastError();
}
