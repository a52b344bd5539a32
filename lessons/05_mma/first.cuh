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

/* gmem -> smem: one K tile of A (ROWS x BK) or B. The tile is ROWS rows of BK/8 16-byte
 * chunks; thread t copies chunks t, t + 128, ... (row = idx / (BK/8), chunk = idx % (BK/8),
 * plan_copy_row/chunk), so 8 neighbouring threads cover one 128-byte row segment (BK = 64).
 * Rows past `rows_left` or columns past `k_left` are zero-filled through cp.async's src-size
 * operand. */
template <int ROWS, int SROW_, int BK>
static __device__ __forceinline__ void first_load_tile(uint16_t *s,       /* (ROWS,SROW_) */
                                                       const uint16_t *g, /* (ROWS,K) at tile */
                                                       long long ld, int rows_left, int k_left,
                                                       const uint16_t *safe) {
#pragma unroll
    for (int i = 0; i < ROWS * (BK / 8) / 128; ++i) {
        const int row = plan_copy_row(threadIdx.x, i, 128, BK);
        const int col = plan_copy_chunk(threadIdx.x, i, 128, BK) * 8;
        int valid = k_left - col; /* elements of this chunk inside K */
        valid = valid < 0 ? 0 : (valid > 8 ? 8 : valid);
        if (row >= rows_left) valid = 0;
        const uint16_t *src = valid ? g + (long long)row * ld + col : safe;
        ptx_cp_async_cg16(ptx_smem_u32(s + row * SROW_ + col), src, valid * 2);
    }
}

/* C tile (128, 128) at (blockIdx.y, blockIdx.x). Warp w owns the 64x64 block (w / 2, w % 2)
 * of it; acc[mi][ni][0..3] is the C fragment of atom (mi, ni). */
template <int BF16, int PAD, int BK>
__global__ void __launch_bounds__(128) gemm_mma_first(kargs p) {
    enum {
        BM = 128, BN = 128, MI = 4, NI = 8,
        KSTEPS = BK / MMA_K, /* k-steps per K tile (4 for BK = 64) */
        SROW_ = BK + PAD     /* smem row length in halves */
    };
    /* 2 stages of (BM + BN) rows of SROW_ halves: more than the 48 KiB a static __shared__
     * array may have, so the buffer is dynamic (size set at launch) */
    extern __shared__ __align__(128) uint16_t smem[];
    uint16_t(*sA)[BM * SROW_] = (uint16_t(*)[BM * SROW_])smem;           /* (BM,BK,stage) */
    uint16_t(*sB)[BN * SROW_] = (uint16_t(*)[BN * SROW_])(smem + 2 * BM * SROW_);

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm = warp / 2, wn = warp % 2;
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

    /* ldmatrix.x4 row addresses (element offsets inside one stage), plan_ldsm_*: A lane l
     * reads row l%16 of the warp's 16-row block, 8-column half l/16; B lane l reads row
     * (l%8) + 8*(l/16), half (l/8)%2 (two n8 atoms per instruction) */
    const int a_off = (wm * 64 + plan_ldsm_a_row(lane)) * SROW_ + 8 * plan_ldsm_a_chunk(lane);
    const int b_off = (wn * 64 + plan_ldsm_b_row(lane)) * SROW_ + 8 * plan_ldsm_b_chunk(lane);

    /* prologue: tile 0 into stage 0 */
    first_load_tile<BM, SROW_, BK>(sA[0], gA, p.lda, p.M - m0, p.K, p.A);
    first_load_tile<BN, SROW_, BK>(sB[0], gB, p.ldb, p.N - n0, p.K, p.B);
    ptx_cp_async_commit();

    for (int kt = 0; kt < ktiles; ++kt) {
        const int cur = kt % 2;
        if (kt + 1 < ktiles) { /* prefetch tile kt+1 into the other stage */
            const int k1 = (kt + 1) * BK;
            first_load_tile<BM, SROW_, BK>(sA[cur ^ 1], gA + k1, p.lda, p.M - m0, p.K - k1, p.A);
            first_load_tile<BN, SROW_, BK>(sB[cur ^ 1], gB + k1, p.ldb, p.N - n0, p.K - k1, p.B);
            ptx_cp_async_commit();
            PTX_CP_ASYNC_WAIT(1); /* tile kt has landed, kt+1 in flight */
        } else {
            PTX_CP_ASYNC_WAIT(0);
        }
        __syncthreads(); /* everyone's copies of tile kt visible */

        const uint32_t sa = ptx_smem_u32(sA[cur]), sb = ptx_smem_u32(sB[cur]);
#pragma unroll
        for (int kk = 0; kk < KSTEPS; ++kk) {
            uint32_t ra[MI][4], rb[NI][2]; /* fragments of this k-step */
#pragma unroll
            for (int i = 0; i < MI; ++i)
                ptx_ldmatrix_x4(ra[i], sa + 2 * (a_off + i * MMA_M * SROW_ + kk * MMA_K));
#pragma unroll
            for (int j = 0; j < NI; j += 2) {
                uint32_t r[4];
                ptx_ldmatrix_x4(r, sb + 2 * (b_off + j * MMA_N * SROW_ + kk * MMA_K));
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

    store_c<BF16, MI, NI>(acc, &p, m0 + wm * 64, n0 + wn * 64, lane);
}

/* Dynamic smem of gemm_mma_first<*, pad, bk>: 2 stages of (128 + 128) rows of bk + pad. */
static size_t first_smem_bytes(int pad, int bk) { return (size_t)2 * 256 * (bk + pad) * 2; }

template <int BF16, int PAD, int BK>
static cudaError_t launch_first_one(const kargs *a, cudaStream_t s) {
    const size_t smem = first_smem_bytes(PAD, BK);
    void (*kernel)(kargs) = gemm_mma_first<BF16, PAD, BK>;
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
    return p->dtype == GEMM_BF16 ? launch_first_one<1, PAD, BK>(&a, s)
                                 : launch_first_one<0, PAD, BK>(&a, s);
}

static cudaError_t launch_padded(const gemm_problem *p, cudaStream_t s) {
    return launch_first<PAD_HALVES, 64>(p, s);
}
static cudaError_t launch_unpadded(const gemm_problem *p, cudaStream_t s) {
    return launch_first<0, 64>(p, s);
}
static cudaError_t launch_padded_k32(const gemm_problem *p, cudaStream_t s) {
    return launch_first<PAD_HALVES, 32>(p, s);
}
