/* splitk.cuh - parallel split-K: the pieces that gemm.cu's kernels and launches add for it.
 *
 * A split-K launch is a grid (tiles, splits): CTA (t, s) computes tile t of C over split s of
 * its K tiles (plan_split: a balanced partition, every K tile of every tile exactly once) and
 * writes its fp32 partial sum, without alpha, beta or any conversion, to slice s of the
 * workspace W (splits, M, N), (M,N):(N,1) per slice. A second kernel, splitk_reduce, then
 * applies the epilogue once per element of C, summing the slices in the fixed order
 * s = 0, 1, ..., splits-1 (deterministic: the same bits on every run):
 *     D(m,n) = act(alpha * (W[0](m,n) + W[1](m,n) + ... ) + beta * C(m,n) + bias)
 * (the bias and the activation: the problem's epilogue, epilogue.cuh). Any kernel run with a
 * workspace writes its partial sums the same way with one split, so the reduction applies
 * every epilogue that a configuration does not fuse (dispatch.h, disp_epi_where).
 * The same reduction also writes the result of a "transposed" launch, where a configuration
 * ran on C^T = B * A^T (dispatch.h): then W holds (N, M) slices and the reduction reads them
 * through the strides (1, M).
 *
 *   splitk_narrow    inside a split-K CTA: narrow the problem to its split's K tiles
 *   store_partial    the TC kernel's epilogue for a split: fp32 accumulators to W
 *   splitk_reduce    the reduction kernel, per output type (fp16, bf16, fp32) and activation
 */

/* Narrows the kernel's problem *p to the K tiles [kt0, kt1) of split blockIdx.y of gridDim.y
 * (plan_split): A and B start at K column kt0*BK, K becomes the split's length (the last
 * split ends at K itself). The rest of the kernel then runs unchanged on that sub-problem.
 * Moving A by whole K tiles keeps the fast path's 16-byte alignment (BK*2 bytes a tile). */
template <int BK> static __device__ __forceinline__ void splitk_narrow(kargs *p) {
    int kt0, kt1;
    plan_split((p->K + BK - 1) / BK, (int)gridDim.y, (int)blockIdx.y, &kt0, &kt1);
    const int k0 = kt0 * BK;
    p->A += p->a_kmajor ? (long long)k0 : (long long)k0 * p->lda; /* (M,K):(lda,1) or (1,lda) */
    p->B += p->b_kmajor ? (long long)k0 : (long long)k0 * p->ldb;
    p->K = (kt1 * BK < p->K ? kt1 * BK : p->K) - k0;
}

/* The TC kernel's epilogue for a split: this thread's accumulators, unscaled, into slice
 * blockIdx.y of the workspace, mW = (M,N):(N,1) floats. Coordinates as in store_c (the C
 * layout of the tiled MMA at c0 and c2 of atom (0, 0), moved by whole atoms); pairs (c0, c1)
 * and (c2, c3) are adjacent columns, stored as one 8-byte float2 when N is even (every pair
 * then starts at an even offset of an even-sized slice). */
template <int MI, int NI>
static __device__ __forceinline__ void store_partial(const float acc[MI][NI][4], const kargs *p,
                                                     lay_tiled_mma mma, int m0, int n0) {
    const lay_layout mW = lay_l2(p->M, p->N, p->N, 1);
    float *W = p->ws + (long long)blockIdx.y * p->M * p->N;
    const int pairs = p->N % 2 == 0;
    int mh[2], nh[2]; /* c0 and c2 of atom (0, 0) */
    c_frag_origin(&mma, threadIdx.x, mh, nh);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int m = m0 + mh[h] + i * mma.atom.m;
                const int n = n0 + nh[h] + j * mma.atom.n;
                if (m >= p->M || n >= p->N) continue;
                float *w = W + lay_crd2idx2(mW, m, n);
                if (pairs) {
                    *(float2 *)w = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                } else {
                    w[0] = acc[i][j][2 * h];
                    if (n + 1 < p->N) w[1] = acc[i][j][2 * h + 1];
                }
            }
}

/* ---- the reduction ------------------------------------------------------------------------ */

typedef struct reduce_args {
    const float *W; /* splits slices of split_stride floats */
    long long split_stride;
    int splits;
    int M, N;   /* of C */
    int wm, wn; /* C's (m, n) in a slice: W[m*wm + n*wn]: (N, 1), transposed (1, M) */
    void *C;    /* (M,N):(ldc,1) of OUT */
    int ldc;
    float alpha, beta;
    const void *bias; /* NULL, or N values (bias_axis 0) / M values (1) of bias_dtype */
    int bias_axis, bias_dtype;
} reduce_args;

/* One thread per element of C (grid-stride), consecutive threads along n: C's stores and
 * (not transposed) W's loads coalesce. The epilogue, once per element, after the fixed-order
 * sum of the splits: D = act(alpha * sum + beta * C + bias) (epilogue.cuh, epi_value), so the
 * bias is added once whatever the number of splits. C is read only when beta != 0. OUT and
 * ACT are template parameters (3 x 4 small kernels); the bias is a run-time pointer. M*N <
 * 2^31 (the workspace holds at most DISP_WS_BYTES / 4 floats per slice). */
template <int OUT, int ACT> __global__ void __launch_bounds__(256) splitk_reduce(reduce_args r) {
    const lay_layout mW = lay_l2(r.M, r.N, r.wm, r.wn);
    const lay_layout mC = lay_l2(r.M, r.N, r.ldc, 1);
    const int total = r.M * r.N;
    for (int e = blockIdx.x * 256 + threadIdx.x; e < total; e += gridDim.x * 256) {
        const int m = e / r.N, n = e % r.N;
        const float *w = r.W + lay_crd2idx2(mW, m, n);
        float sum = 0.0f;
        for (int s = 0; s < r.splits; ++s) sum += w[s * r.split_stride]; /* fixed order */
        const long long c = lay_crd2idx2(mC, m, n);
        const float cv = r.beta != 0.0f ? out_load<OUT>(r.C, c) : 0.0f;
        const float b = r.bias ? load_bias(r.bias, r.bias_dtype, r.bias_axis ? m : n) : 0.0f;
        float v;
        if (r.bias) v = epi_value<ACT, 1>(r.alpha * sum, r.beta, cv, b);
        else v = epi_value<ACT, 0>(r.alpha * sum, r.beta, cv, b);
        out_store<OUT>(r.C, c, v);
    }
}

/* The kernel of output type OUT and activation act (ACT_*). */
template <int OUT> static void (*reduce_kernel(int act))(reduce_args) {
    switch (act) {
        case ACT_RELU: return splitk_reduce<OUT, ACT_RELU>;
        case ACT_GELU_TANH: return splitk_reduce<OUT, ACT_GELU_TANH>;
        case ACT_GELU_ERF: return splitk_reduce<OUT, ACT_GELU_ERF>;
        default: return splitk_reduce<OUT, ACT_NONE>;
    }
}

/* Launches the reduction of `splits` slices of W into p's C with p's epilogue (transposed: W
 * holds the (N, M) slices of C^T). */
static cudaError_t splitk_reduce_launch(const float *W, int splits, const gemm_problem *p,
                                        int transposed, int sms, cudaStream_t s) {
    reduce_args r;
    r.W = W;
    r.split_stride = (long long)p->m * p->n;
    r.splits = splits;
    r.M = p->m;
    r.N = p->n;
    r.wm = transposed ? 1 : p->n;
    r.wn = transposed ? p->m : 1;
    r.C = p->C;
    r.ldc = (int)p->ldc;
    r.alpha = p->alpha;
    r.beta = p->beta;
    r.bias = GEMM_EPI_HAS_BIAS(p->epilogue) ? p->bias : NULL;
    r.bias_axis = p->bias_axis == GEMM_BIAS_M;
    r.bias_dtype = p->bias_dtype;
    long long blocks = ((long long)p->m * p->n + 255) / 256;
    if (blocks > 8LL * sms) blocks = 8LL * sms;
    const int act = act_of(p);
    void (*kernel)(reduce_args) = p->c_dtype == GEMM_FP32   ? reduce_kernel<GEMM_FP32>(act)
                                  : p->c_dtype == GEMM_BF16 ? reduce_kernel<GEMM_BF16>(act)
                                                            : reduce_kernel<GEMM_FP16>(act);
    kernel<<<(unsigned)blocks, 256, 0, s>>>(r);
    return cudaGetLastError();
}
