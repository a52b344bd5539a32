/* kernel_ldg.cuh - lesson 04's register-staged kernel ("ldg128_*" variants), a template over the
 * tile configuration like kernel.cuh's: p4_ldg_cfg<BLK_M, BLK_N, BLK_K, WARP_M, WARP_N, THR_M,
 * THR_N, MINB, FRAG2, PEEL> (no STAGES: always 2 smem buffers; MINB = CTAs per SM promised to
 * __launch_bounds__; FRAG2 = 1 for fragment double buffering, PEEL = 1 to peel the last two
 * k_tiles off the main loop, see below). gemm.cu stamps one __global__ kernel per
 * configuration, whose body is p4_ldg_kernel<CFG>.
 *
 * What differs from kernel.cuh (the cp.async kernels):
 *   1. Global -> registers -> shared. k_tile t+1 is loaded with LDG (LDG.128 of 4 consecutive
 *      k for a K-major operand: one instruction where the 4-byte cp.async needs four) into
 *      registers at the top of k_tile t; the loads are in flight while k_tile t is computed,
 *      and are stored into the other smem buffer (transposed: 4 STS.32 for K-major, one
 *      STS.128 for x-major) just before the last k of k_tile t. Two smem buffers, one
 *      __syncthreads() per k_tile (the classic SIMT SGEMM pipeline of cuBLAS / CUTLASS).
 *   2. Fragment double buffering: the sA/sB fragments of k+1 are read from smem while the
 *      FFMAs of k run (frag[2][THR]), across the k_tile boundary too.
 *   3. Global addresses advance incrementally (one 64-bit add per operand per k_tile) from
 *      one 32-bit offset per vector computed once per CTA (p4_copy_prep): few address
 *      registers next to the accumulators (the 16x8-per-thread tile of ldg128_128x128x8_4w
 *      fits the 255 registers that 2 CTAs of 128 threads per SM leave each thread).
 * Copy modes (p4_ldg_launch: p4_ldg_mode): K16 (K-major, 16-byte aligned: LDG.128 along k), X16
 * (x-major, aligned: LDG.128 along x), X4 (anything unaligned, either majorness: one float at a
 * time, coordinates x = e % BLK_X, k = e / BLK_X, strides from the kernel arguments). Out-of-
 * range elements are loaded as zeros (predicated loads, never an out-of-bounds address).
 *
 * It defines:
 *   p4_ldg_cfg       the configuration and its derived constants
 *   p4_ldg_load      k_tile t of A and B -> registers (p4_ldg_store: registers -> a smem buffer)
 *   p4_ldg_ffma      the outer product of the fragments of one k
 *   p4_ldg_body      the whole GEMM of one CTA, for one pair of copy modes
 *   p4_ldg_kernel    the kernel's body: the p4_ldg_body of the problem's copy modes
 *   p4_ldg_launch    the launch function of the variant table
 * Two steps of the body stay macros, K_LDS (the fragments of one k from smem) and K_ITER (one
 * k_tile of the main loop). Written as inline functions, each made nvcc 13.0 compile the sm_90
 * main loops differently (up to 40 instructions more per loop) and give the kernel a stack
 * frame; K_LDS takes the k of an unrolled loop, which a function sees as a variable.
 * tests/sass_budget.txt holds the loops to their counts.
 */

/* MINB: the sm_80 build promises 1 CTA per SM whatever the configuration says (written for a
 * removed 256-thread 8x8 variant, which MINB = 2 capped at 128 registers and sm_80's ptxas
 * spilled; the H200 runs the sm_90 code). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define P4_LDG_SM80 1
#else
#define P4_LDG_SM80 0
#endif
template <int BLK_M_, int BLK_N_, int BLK_K_, int WARP_M_, int WARP_N_, int THR_M_, int THR_N_,
          int MINB_, int FRAG2_, int PEEL_>
struct p4_ldg_cfg {
    enum {
        BLK_M = BLK_M_,
        BLK_N = BLK_N_,
        BLK_K = BLK_K_,
        WARP_M = WARP_M_,
        WARP_N = WARP_N_,
        THR_M = THR_M_,
        THR_N = THR_N_,
        MINB = P4_LDG_SM80 ? 1 : MINB_, /* CTAs per SM promised to __launch_bounds__ */
        FRAG2 = FRAG2_,                 /* 1: fragment double buffering */
        PEEL = PEEL_,                   /* 1: the last two k_tiles peeled off the main loop */
        NTHR = (BLK_M / WARP_M) * (BLK_N / WARP_N) * 32, /* threads per CTA */
        SA_PITCH = BLK_M + P4_PAD,
        SB_PITCH = BLK_N + P4_PAD,
        SA_SIZE = BLK_K * SA_PITCH, /* floats of sA per buffer */
        SB_SIZE = BLK_K * SB_PITCH,
        BUF = SA_SIZE + SB_SIZE,   /* one buffer: sA then sB */
        RA = BLK_M * BLK_K / NTHR, /* floats of A staged in registers per thread */
        RB = BLK_N * BLK_K / NTHR,
        SMEM_BYTES = 2 * BUF * (int)sizeof(float) /* dynamic smem */
    };
    static_assert(THR_M % 4 == 0 && THR_N % 4 == 0, "thread tile is made of 4x4 chunks");
    static_assert((WARP_M / THR_M) * (WARP_N / THR_N) == 32, "a warp tile has 32 lanes");
    static_assert(BLK_M % WARP_M == 0 && BLK_N % WARP_N == 0, "warps tile the CTA tile");
    static_assert(BLK_M % 32 == 0 && BLK_N % 32 == 0, "P4_PAD's bank argument needs 32 | BLK_X");
    static_assert(BLK_K % 8 == 0, "BLK_K: a multiple of 8 (even, for the fragment ping-pong)");
    static_assert(RA <= P4_MAXV && RB <= P4_MAXV, "a copy plan holds at most P4_MAXV vectors");
    static_assert((BLK_M * BLK_K) % (4 * NTHR) == 0 && (BLK_N * BLK_K) % (4 * NTHR) == 0,
                  "every thread moves the same number of float4s");
};

/* Loads k_tile t (origin gA_t / gB_t) into registers tArA / tBrB. MAY_BE_LAST = 0 promises a
 * full k_tile; else only the last k_tile (t + 1 == k_tiles) tests k. */
template <class CFG, int MAY_BE_LAST>
static __device__ __forceinline__ void
p4_ldg_load(const p4_copy_plan *tAplan, const p4_copy_plan *tBplan, const p4_view *tAv,
            const p4_view *tBv, const int a_mode, const int b_mode, const float *gA_t,
            const float *gB_t, float *tArA, float *tBrB, int t, int k_tiles, int K) {
    if (!MAY_BE_LAST || t + 1 < k_tiles) {
        p4_ldg_tile(tAplan, tAv, a_mode, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, 0, gA_t, 0, tArA);
        p4_ldg_tile(tBplan, tBv, b_mode, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, 0, gB_t, 0, tBrB);
    } else {
        const int k_rem = K - t * CFG::BLK_K;
        p4_ldg_tile(tAplan, tAv, a_mode, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, 1, gA_t, k_rem, tArA);
        p4_ldg_tile(tBplan, tBv, b_mode, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, 1, gB_t, k_rem, tBrB);
    }
}

/* Stores the staged k_tile into the smem buffer at float offset buf (0 or BUF): sA there, sB
 * SA_SIZE floats after it, both transposed. */
template <class CFG>
static __device__ __forceinline__ void
p4_ldg_store(const p4_view *tAv, const p4_view *tBv, const int a_mode, const int b_mode,
             const float *tArA, const float *tBrB, float *smem, int buf) {
    p4_sts_tile(tAv, a_mode, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, tArA, smem + buf);
    p4_sts_tile(tBv, b_mode, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, tBrB, smem + buf + CFG::SA_SIZE);
}

/* tCrC += fA * fB^T: THR_M*THR_N FFMAs, the outer product of the fragments of one k. */
template <class CFG>
static __device__ __forceinline__ void p4_ldg_ffma(float (*tCrC)[CFG::THR_N], const float *fA,
                                                   const float *fB) {
#pragma unroll
    for (int i = 0; i < CFG::THR_M; ++i)
#pragma unroll
        for (int j = 0; j < CFG::THR_N; ++j) tCrC[i][j] = fmaf(fA[i], fB[j], tCrC[i][j]);
}

template <class CFG>
static __device__ __forceinline__ void
p4_ldg_body(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
            long long a_sk, const float *__restrict__ B, long long b_sx, long long b_sk, float beta,
            float *__restrict__ C, long long ldc, int c_vec, const int a_mode, const int b_mode) {
    const int tid = threadIdx.x;

    /* which tile of C: grouped rasterization (plan.h) */
    const int tiles_m = (M + CFG::BLK_M - 1) / CFG::BLK_M;
    const int tiles_n = (N + CFG::BLK_N - 1) / CFG::BLK_N;
    int tile_m, tile_n;
    p4_tile_coord((int)blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
    const int m0 = tile_m * CFG::BLK_M, n0 = tile_n * CFG::BLK_N;

    /* mA (M,K): (m,k) at A[m*a_sx + k*a_sk]; mB (N,K) likewise. gA_t / gB_t: origin of the
     * k_tile being loaded, (BLK_M,BLK_K) / (BLK_N,BLK_K), advanced by one k_tile at a time. */
    if (a_mode == P4_COPY_K16) a_sk = 1; /* known at compile time in these modes: frees */
    if (a_mode == P4_COPY_X16) a_sx = 1; /* registers and folds the address arithmetic */
    if (b_mode == P4_COPY_K16) b_sk = 1;
    if (b_mode == P4_COPY_X16) b_sx = 1;
    const float *gA_t = A + m0 * a_sx;
    const float *gB_t = B + n0 * b_sx;
    const long long a_step = CFG::BLK_K * a_sk, b_step = CFG::BLK_K * b_sk;

    /* Shared memory: 2 buffers, each sA (BLK_M,BLK_K) then sB (BLK_N,BLK_K), transposed. */
    extern __shared__ float4 p4_smem[];
    float *smem = (float *)p4_smem;

    /* ---- compute partition (plan.h: p4_mma, the FFMA atom tiled over the warps): A value v of
     * this thread is sA[tCsA + p4_frag_at(.., P4_FRAG_A, v)], the thread's base plus a constant;
     * v = p4_a_val(THR_M, 4c, k) is chunk c at k, read as one float4 with the next 3. B alike. */
    const p4_cfg cfg = {CFG::BLK_M,  CFG::BLK_N, CFG::BLK_K, CFG::WARP_M,
                        CFG::WARP_N, CFG::THR_M, CFG::THR_N};
    const lay_tiled_mma mma = p4_mma(cfg);
    const int tCsA = p4_frag_base(&mma, cfg, P4_FRAG_A, tid); /* sA offset of A value 0 */
    const int tCsB = p4_frag_base(&mma, cfg, P4_FRAG_B, tid); /* sB offset of B value 0 */

    float tCrC[CFG::THR_M][CFG::THR_N];
#pragma unroll
    for (int i = 0; i < CFG::THR_M; ++i)
#pragma unroll
        for (int j = 0; j < CFG::THR_N; ++j) tCrC[i][j] = 0.0f;

    const int k_tiles = (K + CFG::BLK_K - 1) / CFG::BLK_K;

    p4_copy_plan tAplan, tBplan;
    p4_view tAv, tBv; /* this thread's part of the tiled copies (gemm.cu: p4_view) */
    p4_view_make(&tAv, tid, a_sx, a_sk);
    p4_view_make(&tBv, tid, b_sx, b_sk);
    p4_copy_prep(&tAplan, &tAv, a_mode, CFG::BLK_M, CFG::BLK_K, CFG::NTHR, M - m0);
    p4_copy_prep(&tBplan, &tBv, b_mode, CFG::BLK_N, CFG::BLK_K, CFG::NTHR, N - n0);

    float tArA[CFG::RA], tBrB[CFG::RB]; /* the staged k_tile: this thread's part of gA_t / gB_t */

    /* Fragments. FRAG2 = 1: ping-pong f = 0/1, the fragments of k+1 are read from smem while
     * the FFMAs of k run (across the k_tile boundary too). FRAG2 = 0: one set (THR_M + THR_N
     * registers fewer; the sm_80 build of ldg128_128x128x8_4w, whose double-buffered fragments
     * spilled at 255 registers); the compiler still hoists the loads.
     * K_LDS(f, buf, k): the fragments of k from the buffer at float offset buf into fA[f],
     * fB[f] (THR_M and THR_N floats, as float4s). */
    float fA[1 + CFG::FRAG2][CFG::THR_M], fB[1 + CFG::FRAG2][CFG::THR_N];
#define K_LDS(f, buf, k)                                                                   \
    do {                                                                                   \
        _Pragma("unroll") for (int c = 0; c < CFG::THR_M / 4; ++c) {                       \
            const int a_ =                                                                 \
                tCsA + p4_frag_at(&mma, cfg, P4_FRAG_A, p4_a_val(CFG::THR_M, 4 * c, (k))); \
            const float4 v = *(const float4 *)(smem + (buf) + a_);                         \
            fA[f][4 * c] = v.x;                                                            \
            fA[f][4 * c + 1] = v.y;                                                        \
            fA[f][4 * c + 2] = v.z;                                                        \
            fA[f][4 * c + 3] = v.w;                                                        \
        }                                                                                  \
        _Pragma("unroll") for (int c = 0; c < CFG::THR_N / 4; ++c) {                       \
            const int b_ =                                                                 \
                tCsB + p4_frag_at(&mma, cfg, P4_FRAG_B, p4_b_val(CFG::THR_N, 4 * c, (k))); \
            const float4 v = *(const float4 *)(smem + CFG::SA_SIZE + (buf) + b_);          \
            fB[f][4 * c] = v.x;                                                            \
            fB[f][4 * c + 1] = v.y;                                                        \
            fB[f][4 * c + 2] = v.z;                                                        \
            fB[f][4 * c + 3] = v.w;                                                        \
        }                                                                                  \
    } while (0)

    /* Prologue: k_tile 0 -> registers -> buffer 0. */
    p4_ldg_load<CFG, 1>(&tAplan, &tBplan, &tAv, &tBv, a_mode, b_mode, gA_t, gB_t, tArA, tBrB, 0,
                        k_tiles, K);
    p4_ldg_store<CFG>(&tAv, &tBv, a_mode, b_mode, tArA, tBrB, smem, 0);
    __syncthreads();
    int rbuf = 0; /* float offset of the buffer holding k_tile t: 0 or BUF */
    if (CFG::FRAG2) { K_LDS(0, 0, 0); /* k = 0 of k_tile 0 */ }

    /* K_ITER(hot): one k_tile t. hot = 1: not one of the last two k_tiles, so k_tile t+1
     * exists and is full (no k test, no branch on `more`); the main loop runs only this
     * version, and the last two k_tiles run the general one (hot = 0), so the loop holds no
     * cold code. PEEL = 0 runs the general version for every k_tile (one copy of the unrolled
     * FFMAs instead of two: fewer live values, which the 128-register kernel needs to not
     * spill). With FRAG2 the stores of k_tile t+1 and the barrier come before the last k
     * (whose FFMAs overlap the first fragment loads of k_tile t+1), without it after it. */
#define K_ITER(hot)                                                                                \
    do {                                                                                           \
        const int more = (hot) || t + 1 < k_tiles;                                                 \
        if (more) { /* k_tile t+1 -> registers, in flight during the FFMAs below */                \
            gA_t += a_step;                                                                        \
            gB_t += b_step;                                                                        \
            p4_ldg_load<CFG, !(hot)>(&tAplan, &tBplan, &tAv, &tBv, a_mode, b_mode, gA_t, gB_t,     \
                                     tArA, tBrB, t + 1, k_tiles, K);                               \
        }                                                                                          \
        if (CFG::FRAG2) {                                                                          \
            _Pragma("unroll") for (int k = 0; k < CFG::BLK_K; ++k) {                               \
                if (k == CFG::BLK_K - 1 && more) {                                                 \
                    /* k_tile t+1 -> the other buffer. Its last reader was k_tile t-1, and every \
                     * thread passed the barrier below (end of k_tile t-1) after its last read \
                     * of it; the barrier then publishes the stores: one barrier per k_tile. */ \
                    p4_ldg_store<CFG>(&tAv, &tBv, a_mode, b_mode, tArA, tBrB, smem,                \
                                      rbuf ^ CFG::BUF);                                            \
                    __syncthreads();                                                               \
                    rbuf ^= CFG::BUF;                                                              \
                }                                                                                  \
                if (k + 1 < CFG::BLK_K || more) K_LDS((k + 1) & 1, rbuf, (k + 1) % CFG::BLK_K);    \
                p4_ldg_ffma<CFG>(tCrC, fA[k & 1], fB[k & 1]);                                      \
            }                                                                                      \
        } else {                                                                                   \
            _Pragma("unroll") for (int k = 0; k < CFG::BLK_K; ++k) {                               \
                K_LDS(0, rbuf, k);                                                                 \
                p4_ldg_ffma<CFG>(tCrC, fA[0], fB[0]);                                              \
            }                                                                                      \
            if (more) { /* same argument as above: one barrier per k_tile */                       \
                p4_ldg_store<CFG>(&tAv, &tBv, a_mode, b_mode, tArA, tBrB, smem, rbuf ^ CFG::BUF);  \
                __syncthreads();                                                                   \
                rbuf ^= CFG::BUF;                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    int t = 0;
    if (CFG::PEEL)
        for (; t + 2 < k_tiles; ++t) K_ITER(1); /* the main loop */
    for (; t < k_tiles; ++t) K_ITER(0);         /* the last two k_tiles (every k_tile if !PEEL) */
#undef K_ITER
#undef K_LDS

    /* ---- epilogue: tCgC = alpha * tCrC + beta * tCgC (gemm.cu: p4_epilogue) ------------ */
    p4_epilogue(&tCrC[0][0], cfg, tid, m0, n0, M, N, C, ldc, c_vec, alpha, beta);
}

/* The kernel's body: pick the p4_ldg_body specialised for this problem's copy modes (once,
 * outside every loop: the modes are kernel arguments). */
template <class CFG>
static __device__ __forceinline__ void
p4_ldg_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, long long a_sx,
              long long a_sk, int a_mode, const float *__restrict__ B, long long b_sx,
              long long b_sk, int b_mode, float beta, float *__restrict__ C, long long ldc,
              int c_vec) {
    enum { K16 = P4_COPY_K16, X16 = P4_COPY_X16, X4 = P4_COPY_X4 };
    switch (p4_modes(a_mode, b_mode)) {
        case p4_modes(K16, K16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, K16,
                             K16);
            break;
        case p4_modes(K16, X16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, K16,
                             X16);
            break;
        case p4_modes(K16, X4):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, K16,
                             X4);
            break;
        case p4_modes(X16, K16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X16,
                             K16);
            break;
        case p4_modes(X16, X16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X16,
                             X16);
            break;
        case p4_modes(X16, X4):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X16,
                             X4);
            break;
        case p4_modes(X4, K16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X4,
                             K16);
            break;
        case p4_modes(X4, X16):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X4,
                             X16);
            break;
        case p4_modes(X4, X4):
            p4_ldg_body<CFG>(M, N, K, alpha, A, a_sx, a_sk, B, b_sx, b_sk, beta, C, ldc, c_vec, X4,
                             X4);
            break;
        default: break; /* unreachable: p4_ldg_mode returns only these three modes */
    }
}

/* The launch function of configuration CFG, whose __global__ kernel (gemm.cu) is `kernel`:
 * one CTA per (BLK_M,BLK_N) tile of C on a 1-D grid, CFG::NTHR threads, CFG::SMEM_BYTES of
 * dynamic smem, the copy modes picked once for the problem (p4_ldg_mode). Returns the first
 * CUDA error. */
typedef void (*p4_ldg_kernel_fn)(int, int, int, float, const float *, long long, long long, int,
                                 const float *, long long, long long, int, float, float *,
                                 long long, int);
template <class CFG>
static cudaError_t p4_ldg_launch(const gemm_problem *p, cudaStream_t stream,
                                 p4_ldg_kernel_fn kernel) {
    const int smem = CFG::SMEM_BYTES;
    if (smem > 48 * 1024) {
        cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        if (e != cudaSuccess) return e;
    }
    const long long tiles =
        (long long)((p->m + CFG::BLK_M - 1) / CFG::BLK_M) * ((p->n + CFG::BLK_N - 1) / CFG::BLK_N);
    const int a_mode = p4_ldg_mode(p->a_kmajor, p->A, p->lda);
    const int b_mode = p4_ldg_mode(p->b_kmajor, p->B, p->ldb);
    const int c_vec = p->ldc % 4 == 0 && (uintptr_t)p->C % 16 == 0;
    kernel<<<(unsigned)tiles, CFG::NTHR, smem, stream>>>(
        p->m, p->n, p->k, p->alpha, (const float *)p->A, p->a_kmajor ? p->lda : 1,
        p->a_kmajor ? 1 : p->lda, a_mode, (const float *)p->B, p->b_kmajor ? p->ldb : 1,
        p->b_kmajor ? 1 : p->ldb, b_mode, p->beta, (float *)p->C, p->ldc, c_vec);
    return cudaGetLastError();
}
