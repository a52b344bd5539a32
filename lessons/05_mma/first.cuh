/* first.cuh - lesson 05's first Tensor Core kernel, the simplest one (included by gemm.cu,
 * after kargs, store_c and the conversions it uses).
 *
 *   CTA tile   128 x 128 x BK (BK = 64, or 32 for padded_k32)   4 warps (2 x 2) of 64 x 64
 *   per K tile wait for its copies, barrier, 4 (or 2) k-steps of ldmatrix + 32 MMAs per warp,
 *              barrier; the copy of K tile kt+1 is issued before tile kt is computed
 *   smem rows  BK + PAD halves long (PAD = 8: padded; 0: unpadded, 8-way bank conflicts)
 * The default kernel (gemm.cu) keeps the warp tile, the atoms and the 2 stages, and changes
 * the schedule: one barrier per K tile, double-buffered fragments, copies spread over the
 * k-steps, unpredicated interior copies, a 128 x 256 tile. */

/* gmem -> smem: one K tile of A (ROWS x BK) or B, the 16-byte chunks of plan_copy(128, BK):
 * copy i of thread t at (t / (BK/8), 8*(t % (BK/8))) + (i*128/(BK/8), 0), so 8 neighbouring
 * threads cover one 128-byte row segment (BK = 64). Rows past `rows_left` or columns past
 * `k_left` are zero-filled through cp.async's src-size operand. g: the tile in gmem, rows ld
 * apart; s: one stage of plan_smem_pad(ROWS, BK, PAD). KTAIL = 1 (the kernel for K % 8 != 0):
 * a chunk that ends its row partly goes through ptx_copy16_zfill's register path; with K % 8
 * == 0 a chunk is whole or empty and KTAIL = 0 keeps every copy one cp.async, in a separate
 * instantiation because the register path's code alone (never run there) changes how ptxas
 * allocates the K loop (gemm.cu, copy_range). */
template <int ROWS, int BK, int PAD, int KTAIL>
static __device__ __forceinline__ void first_load_tile(uint16_t *s, const uint16_t *g,
                                                       long long ld, int rows_left, int k_left,
                                                       const uint16_t *safe) {
    /* copies per thread: lay_tiled_copy_reps(cp, ROWS, BK), as a constant so that the loop
     * unrolls before anything else is optimized (tests/test_plans_05.c checks the two agree) */
    enum { COPIES = ROWS * (BK / 8) / 128 };
    const lay_tiled_copy cp = plan_copy(128, BK);
#pragma unroll
    for (int i = 0; i < COPIES; ++i) {
        int row, col;
        lay_tiled_copy_crd(cp, ROWS, BK, threadIdx.x, 0, i, &row, &col);
        int valid = k_left - col; /* elements of this chunk inside K */
        valid = valid < 0 ? 0 : (valid > 8 ? 8 : valid);
        if (row >= rows_left) valid = 0;
        const uint16_t *src = valid ? g + (long long)row * ld + col : safe;
        const int so = (int)lay_swizzled_crd2idx2(plan_smem_pad(ROWS, BK, PAD), row, col);
        if (KTAIL) ptx_copy16_zfill(ptx_smem_u32(s + so), src, valid * 2);
        else       ptx_cp_async_cg16(ptx_smem_u32(s + so), src, valid * 2);
    }
}

/* C tile (128, 128) at (blockIdx.y, blockIdx.x). Warp w owns the 64x64 block (w / 2, w % 2)
 * of it; acc[mi][ni][0..3] is the C fragment of atom (mi, ni). */
template <int BF16, int PAD, int BK, int KTAIL>
__global__ void __launch_bounds__(128) gemm_mma_first(kargs p) {
    enum {
        BM = 128, BN = 128, MI = 4, NI = 8,
        KSTEPS = BK / MMA_K /* k-steps per K tile (4 for BK = 64) */
    };
    /* 2 stages of (BM + BN) padded rows: more than the 48 KiB a static __shared__ array may
     * have, so the buffer is dynamic (size set at launch) */
    extern __shared__ __align__(128) uint16_t smem[];
    const lay_swizzled sL = plan_smem_pad(BM, BK, PAD); /* one stage of sA or sB (BM = BN) */
    const int stage = (int)lay_crd2idx2(sL.layout, BM, 0);    /* halves per stage */
    uint16_t *sA = smem, *sB = smem + 2 * stage;              /* (BM,BK,stage), (BN,BK,stage) */
    const lay_tiled_mma mma = plan_mma(2, 2, BM, BN, BK);     /* 4 warps of 64x64 */

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const uint16_t *gA = p.A + (long long)m0 * p.lda; /* (BM,K) rows of this CTA */
    const uint16_t *gB = p.B + (long long)n0 * p.ldb; /* (BN,K) */
    const int ktiles = (p.K + BK - 1) / BK;

    float acc[MI][NI][4]; /* (MI,NI) atoms x 4 values */
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[i][j][v] = 0.0f;

    /* ldmatrix.x4 row addresses (element offsets inside one stage) of this thread's first A
     * and B loads (lay_tiled_ldmatrix_*_crd, q = 0); atom i / atom pair j and k-step kk are
     * whole rows and 16 halves further on (a padded row: plain offsets) */
    int a_off, b_off;
    {
        int m, n, k;
        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, threadIdx.x, 0, &m, &k);
        a_off = (int)lay_swizzled_crd2idx2(sL, m, k);
        lay_tiled_ldmatrix_b_crd(&mma, 4, 0, threadIdx.x, 0, &n, &k);
        b_off = (int)lay_swizzled_crd2idx2(sL, n, k);
    }
    const int atom_a = (int)lay_crd2idx2(sL.layout, MMA_M, 0), atom_b = (int)lay_crd2idx2(sL.layout, MMA_N, 0);
    const int kstep = (int)lay_crd2idx2(sL.layout, 0, MMA_K);

    /* prologue: tile 0 into stage 0 */
    first_load_tile<BM, BK, PAD, KTAIL>(sA, gA, p.lda, p.M - m0, p.K, p.A);
    first_load_tile<BN, BK, PAD, KTAIL>(sB, gB, p.ldb, p.N - n0, p.K, p.B);
    ptx_cp_async_commit();

    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt % 2;
        if (kt + 1 < ktiles) { /* prefetch tile kt+1 into the other stage */
            const int k1 = (kt + 1) * BK;
            first_load_tile<BM, BK, PAD, KTAIL>(sA + (cur ^ 1) * stage, gA + k1, p.lda, p.M - m0,
                                         p.K - k1, p.A);
            first_load_tile<BN, BK, PAD, KTAIL>(sB + (cur ^ 1) * stage, gB + k1, p.ldb, p.N - n0,
                                         p.K - k1, p.B);
            ptx_cp_async_commit();
            PTX_CP_ASYNC_WAIT(1); /* tile kt has landed, kt+1 in flight */
        } else {
            PTX_CP_ASYNC_WAIT(0);
        }
        __syncthreads(); /* everyone's copies of tile kt visible */

        const uint32_t sa = ptx_smem_u32(sA + cur * stage), sb = ptx_smem_u32(sB + cur * stage);
#pragma unroll
        for (int kk = 0; kk < KSTEPS; ++kk) {
            uint32_t ra[MI][4], rb[NI][2]; /* fragments of this k-step */
#pragma unroll
            for (int i = 0; i < MI; ++i)
                ptx_ldmatrix_x4(ra[i], sa + 2 * (a_off + i * atom_a + kk * kstep));
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                uint32_t r[4];
                ptx_ldmatrix_x4(r, sb + 2 * (b_off + j * atom_b + kk * kstep));
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
        __syncthreads(); /* stage cur is free for tile kt+2 */
    }

    store_c<BF16, MI, NI>(acc, &p, mma, m0, n0);
}

/* Dynamic smem of gemm_mma_first<*, pad, bk>: 2 stages of sA and sB, 128 padded rows each. */
static size_t first_smem_bytes(int pad, int bk) {
    return (size_t)2 * 2 * lay_crd2idx2(plan_smem_pad(128, bk, pad).layout, 128, 0) * 2;
}

template <int BF16, int PAD, int BK, int KTAIL>
static cudaError_t launch_first_one(const kargs *a, cudaStream_t s) {
    const size_t smem = first_smem_bytes(PAD, BK);
    void (*kernel)(kargs) = gemm_mma_first<BF16, PAD, BK, KTAIL>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem);
    if (e != cudaSuccess) return e;
    const dim3 grid((unsigned)((a->N + 127) / 128), (unsigned)((a->M + 127) / 128));
    kernel<<<grid, dim3(128), smem, s>>>(*a);
    return cudaGetLastError();
}

template <int PAD, int BK>
static cudaError_t launch_first(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.alpha = p->alpha; a.beta = p->beta;
    a.A = (const uint16_t *)p->A; a.B = (const uint16_t *)p->B; a.C = (uint16_t *)p->C;
    a.lda = p->lda; a.ldb = p->ldb; a.ldc = p->ldc;
    a.pair_ok = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    a.rows32 = 0; /* unused */
    /* K % 8 != 0: the instantiation whose copies take a row's partial last chunk (as
     * gemm.cu's launch_cfg) */
    if (p->k % 8)
        return p->dtype == GEMM_BF16 ? launch_first_one<1, PAD, BK, 1>(&a, s)
                                     : launch_first_one<0, PAD, BK, 1>(&a, s);
    return p->dtype == GEMM_BF16 ? launch_first_one<1, PAD, BK, 0>(&a, s)
                                 : launch_first_one<0, PAD, BK, 0>(&a, s);
}

static cudaError_t launch_padded(const gemm_problem *p, cudaStream_t s) {
    return launch_first<PLAN_PAD, 64>(p, s);
}
static cudaError_t launch_unpadded(const gemm_problem *p, cudaStream_t s) {
    return launch_first<0, 64>(p, s);
}
static cudaError_t launch_padded_k32(const gemm_problem *p, cudaStream_t s) {
    return launch_first<PLAN_PAD, 32>(p, s);
}
