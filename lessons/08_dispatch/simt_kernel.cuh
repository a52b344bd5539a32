/* simt_kernel.cuh - lesson 04's register-staged fp32 kernel (its kernel_ldg.cuh), stamped out
 * once per tile configuration by simt_fp32.cuh: the including file defines K_NAME, K_BLK_M,
 * K_BLK_N, K_BLK_K, K_WARP_M, K_WARP_N, K_THR_M, K_THR_N, K_MINB (CTAs per SM promised to
 * __launch_bounds__), K_FRAG2 (1: fragment double buffering) and K_PEEL (1: the last two
 * k_tiles peeled off the main loop); this file #undefs them at the end.
 *
 * The kernel (lesson 04, unchanged but for the three steps of simt_fp32.cuh's header):
 *   1. Global -> registers -> shared: k_tile t+1 is loaded with LDG (LDG.128 of 4 consecutive
 *      k for a K-major operand) into registers at the top of k_tile t and stored into the
 *      other smem buffer (transposed: 4 STS.32 for K-major, one STS.128 for x-major) just
 *      before the last k of k_tile t. Two smem buffers, one __syncthreads() per k_tile.
 *   2. Fragment double buffering: the sA/sB fragments of k+1 are read from smem while the
 *      FFMAs of k run (frag[2][THR]), across the k_tile boundary too.
 *   3. Global addresses advance by one 64-bit add per operand per k_tile from one 32-bit
 *      offset per vector computed once per CTA (p4_copy_prep).
 * Copy modes (p4_ldg_mode): K16 (K-major, 16-byte aligned: LDG.128 along k), X16 (x-major,
 * aligned: LDG.128 along x), X4 (anything unaligned, either majorness: one float at a time).
 * Out-of-range elements are loaded as zeros (predicated loads, never an out-of-bounds
 * address).
 * Split-K (new in lesson 08): the grid is (tiles, splits); CTA (t, s) runs its k_tile loop
 * over split s of the k_tiles only (plan_split: [kt0, kt1), numbered from K's start, so K,
 * A and B stay kernel arguments) and, when a workspace W is given, writes its unscaled fp32
 * sum to slice s of W, (M,N):(N,1), instead of C: the launch passes W as C, with alpha = 1,
 * beta = 0 and the slice stride c_split (splitk.cuh reduces the slices). */

#define K_NTHR ((K_BLK_M / K_WARP_M) * (K_BLK_N / K_WARP_N) * 32) /* threads per CTA */
#define K_SA_PITCH (K_BLK_M + P4_PAD)
#define K_SB_PITCH (K_BLK_N + P4_PAD)
#define K_SA_SIZE (K_BLK_K * K_SA_PITCH) /* floats of sA per buffer */
#define K_SB_SIZE (K_BLK_K * K_SB_PITCH)
#define K_BUF (K_SA_SIZE + K_SB_SIZE)     /* one buffer: sA then sB */
#define K_RA (K_BLK_M * K_BLK_K / K_NTHR) /* floats of A staged in registers per thread */
#define K_RB (K_BLK_N * K_BLK_K / K_NTHR)

static_assert(K_THR_M % 4 == 0 && K_THR_N % 4 == 0, "thread tile is made of 4x4 chunks");
static_assert((K_WARP_M / K_THR_M) * (K_WARP_N / K_THR_N) == 32, "a warp tile has 32 lanes");
static_assert(K_BLK_M % K_WARP_M == 0 && K_BLK_N % K_WARP_N == 0, "warps tile the CTA tile");
static_assert(K_BLK_M % 32 == 0 && K_BLK_N % 32 == 0, "P4_PAD's bank argument needs 32 | BLK_X");
static_assert(K_BLK_K % 8 == 0, "BLK_K: a multiple of 8 (even, for the fragment ping-pong)");
static_assert(K_RA <= P4_MAXV && K_RB <= P4_MAXV, "a copy plan holds at most P4_MAXV vectors");
static_assert((K_BLK_M * K_BLK_K) % (4 * K_NTHR) == 0 && (K_BLK_N * K_BLK_K) % (4 * K_NTHR) == 0,
              "every thread moves the same number of float4s");

static const int P4_CAT(K_NAME, _smem_bytes) = 2 * K_BUF * (int)sizeof(float);

static __device__ __forceinline__ void
P4_CAT(K_NAME, _body)(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
                      long long a_sk, const float *__restrict__ B, long long b_sx, long long b_sk,
                      float beta, float *__restrict__ C, long long ldc, int c_vec, const int a_mode,
                      const int b_mode, int c_split, int kt0, int kt1) {
    const int tid = threadIdx.x;

    /* which tile of C: grouped rasterization (plan.h) */
    const int tiles_m = (M + K_BLK_M - 1) / K_BLK_M;
    const int tiles_n = (N + K_BLK_N - 1) / K_BLK_N;
    int tile_m, tile_n;
    plan_raster((int)blockIdx.x, tiles_m, tiles_n, RASTER_GROUP, &tile_m, &tile_n);
    const int m0 = tile_m * K_BLK_M, n0 = tile_n * K_BLK_N;

    /* mA (M,K): (m,k) at A[m*a_sx + k*a_sk]; mB (N,K) likewise. gA_t / gB_t: origin of the
     * k_tile being loaded, (BLK_M,BLK_K) / (BLK_N,BLK_K), advanced by one k_tile at a time. */
    if (a_mode == P4_COPY_K16) a_sk = 1; /* known at compile time in these modes: frees */
    if (a_mode == P4_COPY_X16) a_sx = 1; /* registers and folds the address arithmetic */
    if (b_mode == P4_COPY_K16) b_sk = 1;
    if (b_mode == P4_COPY_X16) b_sx = 1;
    const long long a_step = K_BLK_K * a_sk, b_step = K_BLK_K * b_sk;
    const float *gA_t = A + m0 * a_sx + kt0 * a_step; /* this split's first k_tile, kt0 */
    const float *gB_t = B + n0 * b_sx + kt0 * b_step;

    /* Shared memory: 2 buffers, each sA (BLK_M,BLK_K) then sB (BLK_N,BLK_K), transposed. */
    extern __shared__ float4 p4_smem[];
    float *smem = (float *)p4_smem;

    /* ---- compute partition (plan.h: p4_mma, the FFMA atom tiled over the warps): A value v of
     * this thread is sA[tCsA + p4_frag_at(.., P4_FRAG_A, v)], the thread's base plus a constant;
     * v = p4_a_val(THR_M, 4c, k) is chunk c at k, read as one float4 with the next 3. B alike. */
    const p4_cfg cfg = {K_BLK_M, K_BLK_N, K_BLK_K, K_WARP_M, K_WARP_N, K_THR_M, K_THR_N};
    const lay_tiled_mma mma = p4_mma(cfg);
    const int tCsA = p4_frag_base(&mma, cfg, P4_FRAG_A, tid); /* sA offset of A value 0 */
    const int tCsB = p4_frag_base(&mma, cfg, P4_FRAG_B, tid); /* sB offset of B value 0 */

    float tCrC[K_THR_M][K_THR_N];
#pragma unroll
    for (int i = 0; i < K_THR_M; ++i)
#pragma unroll
        for (int j = 0; j < K_THR_N; ++j) tCrC[i][j] = 0.0f;

    /* the k_tiles [kt0, kt1) of this CTA's split, numbered from K's start: K itself and the
     * k of every test stay the kernel's (kt1 is the split's end where it was K's) */
    const int k_tiles = kt1;

    p4_copy_plan tAplan, tBplan;
    p4_view tAv, tBv; /* this thread's part of the tiled copies (gemm.cu: p4_view) */
    p4_view_make(&tAv, tid, a_sx, a_sk);
    p4_view_make(&tBv, tid, b_sx, b_sk);
    p4_copy_prep(&tAplan, &tAv, a_mode, K_BLK_M, K_BLK_K, K_NTHR, M - m0);
    p4_copy_prep(&tBplan, &tBv, b_mode, K_BLK_N, K_BLK_K, K_NTHR, N - n0);

    float tArA[K_RA], tBrB[K_RB]; /* the staged k_tile: this thread's part of gA_t / gB_t */

    /* Loads k_tile t (origin gA_t / gB_t) into registers; only the last k_tile tests k. */
#define K_LDG(t, may_be_last)                                                                   \
    do {                                                                                        \
        if (!(may_be_last) || (t) + 1 < k_tiles) {                                              \
            p4_ldg_tile(&tAplan, &tAv, a_mode, K_BLK_M, K_BLK_K, K_NTHR, 0, gA_t, 0, tArA);     \
            p4_ldg_tile(&tBplan, &tBv, b_mode, K_BLK_N, K_BLK_K, K_NTHR, 0, gB_t, 0, tBrB);     \
        } else {                                                                                \
            const int k_rem = K - (t)*K_BLK_K;                                                  \
            p4_ldg_tile(&tAplan, &tAv, a_mode, K_BLK_M, K_BLK_K, K_NTHR, 1, gA_t, k_rem, tArA); \
            p4_ldg_tile(&tBplan, &tBv, b_mode, K_BLK_N, K_BLK_K, K_NTHR, 1, gB_t, k_rem, tBrB); \
        }                                                                                       \
    } while (0)
#define K_STS(buf)                                                                           \
    do {                                                                                     \
        p4_sts_tile(&tAv, a_mode, K_BLK_M, K_BLK_K, K_NTHR, tArA, smem + (buf));             \
        p4_sts_tile(&tBv, b_mode, K_BLK_N, K_BLK_K, K_NTHR, tBrB, smem + (buf) + K_SA_SIZE); \
    } while (0)

    /* Fragments. K_FRAG2 = 1: ping-pong f = 0/1, the fragments of k+1 are read from smem while
     * the FFMAs of k run (across the k_tile boundary too). K_FRAG2 = 0: one set (THR_M + THR_N
     * registers fewer; the sm_80 build of ldg128_128x128x8_4w, whose double-buffered fragments
     * spilled at 255 registers); the compiler still hoists the loads. */
    float fA[1 + K_FRAG2][K_THR_M], fB[1 + K_FRAG2][K_THR_N];
#define K_LDS(f, buf, k)                                                                           \
    do {                                                                                           \
        _Pragma("unroll") for (int c = 0; c < K_THR_M / 4; ++c) {                                  \
            const int a_ = tCsA + p4_frag_at(&mma, cfg, P4_FRAG_A, p4_a_val(K_THR_M, 4 * c, (k))); \
            const float4 v = *(const float4 *)(smem + (buf) + a_);                                 \
            fA[f][4 * c] = v.x;                                                                    \
            fA[f][4 * c + 1] = v.y;                                                                \
            fA[f][4 * c + 2] = v.z;                                                                \
            fA[f][4 * c + 3] = v.w;                                                                \
        }                                                                                          \
        _Pragma("unroll") for (int c = 0; c < K_THR_N / 4; ++c) {                                  \
            const int b_ = tCsB + p4_frag_at(&mma, cfg, P4_FRAG_B, p4_b_val(K_THR_N, 4 * c, (k))); \
            const float4 v = *(const float4 *)(smem + K_SA_SIZE + (buf) + b_);                     \
            fB[f][4 * c] = v.x;                                                                    \
            fB[f][4 * c + 1] = v.y;                                                                \
            fB[f][4 * c + 2] = v.z;                                                                \
            fB[f][4 * c + 3] = v.w;                                                                \
        }                                                                                          \
    } while (0)
#define K_FFMA(f)                                                            \
    do {                                                                     \
        _Pragma("unroll") for (int i = 0; i < K_THR_M; ++i)                  \
            _Pragma("unroll") for (int j = 0; j < K_THR_N; ++j) tCrC[i][j] = \
                fmaf(fA[f][i], fB[f][j], tCrC[i][j]);                        \
    } while (0)

    /* Prologue: k_tile 0 -> registers -> buffer 0. */
    K_LDG(kt0, 1);
    K_STS(0);
    __syncthreads();
    int rbuf = 0; /* float offset of the buffer holding k_tile t: 0 or K_BUF */
#if K_FRAG2
    K_LDS(0, 0, 0);
#endif

    /* One k_tile t. hot = 1: not one of the last two k_tiles, so k_tile t+1 exists and is
     * full (no k test, no branch on `more`); the main loop runs only this version, and the
     * last two k_tiles run the general one (hot = 0), so the loop holds no cold code.
     * K_PEEL = 0 runs the general version for every k_tile (one copy of the unrolled FFMAs
     * instead of two: fewer live values, which the 128-register kernel needs to not spill). */
#if K_FRAG2
#define K_ITER(hot)                                                                              \
    do {                                                                                         \
        const int more = (hot) || t + 1 < k_tiles;                                               \
        if (more) { /* k_tile t+1 -> registers, in flight during the FFMAs below */              \
            gA_t += a_step;                                                                      \
            gB_t += b_step;                                                                      \
            K_LDG(t + 1, !(hot));                                                                \
        }                                                                                        \
        _Pragma("unroll") for (int k = 0; k < K_BLK_K; ++k) {                                    \
            if (k == K_BLK_K - 1 && more) {                                                      \
                /* k_tile t+1 -> the other buffer. Its last reader was k_tile t-1, and every   \
                 * thread passed the barrier below (end of k_tile t-1) after its last read of  \
                 * it; the barrier then publishes the stores: one barrier per k_tile. */ \
                K_STS(rbuf ^ K_BUF);                                                             \
                __syncthreads();                                                                 \
                rbuf ^= K_BUF;                                                                   \
            }                                                                                    \
            if (k + 1 < K_BLK_K || more) K_LDS((k + 1) & 1, rbuf, (k + 1) % K_BLK_K);            \
            K_FFMA(k & 1);                                                                       \
        }                                                                                        \
    } while (0)
#else
#define K_ITER(hot)                                                      \
    do {                                                                 \
        const int more = (hot) || t + 1 < k_tiles;                       \
        if (more) {                                                      \
            gA_t += a_step;                                              \
            gB_t += b_step;                                              \
            K_LDG(t + 1, !(hot));                                        \
        }                                                                \
        _Pragma("unroll") for (int k = 0; k < K_BLK_K; ++k) {            \
            K_LDS(0, rbuf, k);                                           \
            K_FFMA(0);                                                   \
        }                                                                \
        if (more) { /* same argument as above: one barrier per k_tile */ \
            K_STS(rbuf ^ K_BUF);                                         \
            __syncthreads();                                             \
            rbuf ^= K_BUF;                                               \
        }                                                                \
    } while (0)
#endif
    int t = kt0;
#if K_PEEL
    for (; t + 2 < k_tiles; ++t) K_ITER(1); /* the main loop */
#endif
    for (; t < k_tiles; ++t) K_ITER(0); /* the last two k_tiles (every k_tile if !K_PEEL) */
#undef K_ITER
#undef K_FFMA
#undef K_LDG
#undef K_STS
#undef K_LDS

    /* ---- epilogue: tCgC = alpha * tCrC + beta * tCgC (gemm.cu: p4_epilogue) ------------ */
    /* split s writes slice s of C: C + s * c_split (launch: a split launch passes the
     * workspace as C, (M,N):(N,1), alpha = 1 and beta = 0). One epilogue, no branch on it:
     * with a second copy for the workspace, ptxas spilled in the K loop (sm_90, 255 registers). */
    p4_epilogue(&tCrC[0][0], cfg, tid, m0, n0, M, N, C + (int)blockIdx.y * c_split, ldc, c_vec,
                alpha, beta);
}

/* K_MINB = CTAs per SM promised to __launch_bounds__. The sm_80 build promises 1 CTA per SM
 * whatever K_MINB says (as in lesson 04: the H200 runs the sm_90 code). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define K_MINB_ARCH 1
#else
#define K_MINB_ARCH K_MINB
#endif
__global__ void __launch_bounds__(K_NTHR, K_MINB_ARCH)
    K_NAME(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
           long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx, long long b_sk,
           int b_mode, float beta, float *__restrict__ C, long long ldc, int c_vec, int c_split) {
    /* split blockIdx.y of gridDim.y: its k_tiles [kt0, kt1) only (plan_split; one split:
     * all of them) */
    int kt0, kt1;
    plan_split((K + K_BLK_K - 1) / K_BLK_K, (int)gridDim.y, (int)blockIdx.y, &kt0, &kt1);
#define K_CASE(am, bm)                                                                            \
    case (am)*P4_NCOPY + (bm):                                                                    \
        P4_CAT(K_NAME, _body)                                                                     \
        (M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, am, bm, c_split, kt0, \
         kt1);                                                                                    \
        break
    /* the mode pairs of the four operand orders, 16-byte aligned (TN, NT, NN, TT), and X4 for
     * anything else (launch: simt_modes) */
    switch (a_mode * P4_NCOPY + b_mode) {
        K_CASE(P4_COPY_K16, P4_COPY_K16);
        K_CASE(P4_COPY_X16, P4_COPY_X16);
        K_CASE(P4_COPY_X16, P4_COPY_K16);
        K_CASE(P4_COPY_K16, P4_COPY_X16);
        K_CASE(P4_COPY_X4, P4_COPY_X4);
        default: break; /* unreachable: simt_modes returns only these pairs */
    }
#undef K_CASE
}

/* Launches the configuration on p: grid (tiles, split); W = NULL writes C (split must then
 * be 1, the epilogue the plain one), else split s writes its unscaled partial sum to slice s
 * of W, (M,N):(N,1) (splitk.cuh reduces the slices and applies the epilogue). */
static cudaError_t P4_CAT(launch_, K_NAME)(const gemm_problem *p, int split, float *W,
                                           cudaStream_t stream) {
    const int smem = P4_CAT(K_NAME, _smem_bytes);
    if (smem > 48 * 1024) {
        cudaError_t e =
            cudaFuncSetAttribute(K_NAME, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e != cudaSuccess) return e;
    }
    const long long tiles =
        (long long)((p->m + K_BLK_M - 1) / K_BLK_M) * ((p->n + K_BLK_N - 1) / K_BLK_N);
    int a_mode, b_mode;
    simt_modes(p, &a_mode, &b_mode);
    /* without a workspace: one split and the plain epilogue (splitk_reduce applies any other) */
    if (!W && (split != 1 || !disp_epi_plain(p))) return cudaErrorInvalidValue;
    float *C = W ? W : (float *)p->C;
    const long long ldc = W ? p->n : p->ldc;
    const int c_vec = ldc % 4 == 0 && (uintptr_t)C % 16 == 0;
    K_NAME<<<dim3((unsigned)tiles, (unsigned)split), K_NTHR, smem, stream>>>(
        p->m, p->n, p->k, W ? 1.0f : p->alpha, (const float *)p->A, p->a_kmajor ? p->lda : 1,
        p->a_kmajor ? 1 : p->lda, a_mode, (const float *)p->B, p->b_kmajor ? p->ldb : 1,
        p->b_kmajor ? 1 : p->ldb, b_mode, W ? 0.0f : p->beta, C, ldc, c_vec, W ? p->m * p->n : 0);
    return cudaGetLastError();
}

/* CTAs of this configuration one SM holds, or -1. */
static int P4_CAT(occupancy_, K_NAME)(void) {
    int n = -1;
    const int smem = P4_CAT(K_NAME, _smem_bytes);
    if (smem > 48 * 1024 &&
        cudaFuncSetAttribute(K_NAME, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) !=
            cudaSuccess)
        return -1;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, K_NAME, K_NTHR, smem) != cudaSuccess)
        return -1;
    return n;
}

#undef K_NTHR
#undef K_SA_PITCH
#undef K_SB_PITCH
#undef K_SA_SIZE
#undef K_SB_SIZE
#undef K_BUF
#undef K_RA
#undef K_RB
#undef K_NAME
#undef K_BLK_M
#undef K_BLK_N
#undef K_BLK_K
#undef K_WARP_M
#undef K_WARP_N
#undef K_THR_M
#undef K_THR_N
#undef K_MINB
#undef K_MINB_ARCH
#undef K_FRAG2
#undef K_PEEL
