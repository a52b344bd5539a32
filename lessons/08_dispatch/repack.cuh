/* repack.cuh - a copy that makes any fp16/bf16 operand a fast-path operand.
 *
 * The 16-byte cp.async copy needs A and B K-major with lda, ldb multiples of 8 halves and
 * 16-byte aligned bases; anything else takes the generic path, which gathers 2-byte elements
 * (notes/perf.md: lesson 06's generic path ran 4093^3 at 73 TFLOP/s). Copying the operand
 * once, K-major with K zero-padded to a multiple of 8 (K8), costs a read and a write of it;
 * the GEMM then runs the fast path on the copies with K = K8, the kernel whose chunks are all
 * whole (no partial-chunk path). The pad is zero in both copies, so it adds 0 * 0 terms only.
 * The dispatcher does this (rule R1) when A and B fit the workspace (dispatch.h:
 * disp_repack_bytes, disp_repacked).
 *
 *   repack_kmajor    Y (rows,Kp):(ldy,1) = X (rows,K):(sx,sk), zeros in columns K..Kp-1;
 *                    16-bit elements, any strides
 *   repack_launch    its grid for one operand
 */

/* One 32x32 tile of X through smem: the threads read along X's contiguous mode (rows when
 * `along_rows`, i.e. X is M- or N-major; k otherwise), so the reads coalesce, and write along
 * k, so the writes do. The smem tile is (32 k, 32 rows) + 2 halves of pad per row. Columns
 * K <= k < Kp of Y get zeros (the fast path reads k < Kp of each row); columns at or past Kp
 * (ldy > Kp) and rows past `rows` are not written. K <= Kp <= ldy. */
__global__ void __launch_bounds__(256)
    repack_kmajor(const uint16_t *X, int rows, int K, int Kp, int sx, int sk, uint16_t *Y, int ldy,
                  int along_rows) {
    __shared__ uint16_t t[32][34];                  /* [k][row] */
    const lay_layout mX = lay_l2(rows, K, sx, sk);  /* (rows,K):(sx,sk) */
    const lay_layout mY = lay_l2(rows, Kp, ldy, 1); /* (rows,Kp):(ldy,1) */
    const int r0 = (int)blockIdx.y * 32, k0 = (int)blockIdx.x * 32;
    const int tx = (int)threadIdx.x % 32, ty = (int)threadIdx.x / 32; /* 8 rows of 32 */
#pragma unroll
    for (int i = ty; i < 32; i += 8) {
        const int rl = along_rows ? tx : i, kl = along_rows ? i : tx;
        const int r = r0 + rl, k = k0 + kl;
        t[kl][rl] = r < rows && k < K ? X[lay_crd2idx2(mX, r, k)] : (uint16_t)0;
    }
    __syncthreads();
#pragma unroll
    for (int i = ty; i < 32; i += 8) {
        const int r = r0 + i, k = k0 + tx;
        if (r < rows && k < Kp) Y[lay_crd2idx2(mY, r, k)] = t[tx][i]; /* 0 where k >= K */
    }
}

/* Copies operand X (rows, K) of 16-bit elements, K-major (kmajor: X[r*ld + k]) or not
 * (X[r + k*ld]), into Y (rows,Kp):(ldy,1), columns K..Kp-1 zero. K <= Kp <= ldy (rule R1:
 * Kp = ldy = disp_repack_k(K), at most 7 more than K); rows < 2^21 (the grid's y extent). */
static cudaError_t repack_launch(const void *X, int rows, int K, int Kp, long long ld, int kmajor,
                                 uint16_t *Y, int ldy, cudaStream_t s) {
    const dim3 grid((unsigned)((Kp + 31) / 32), (unsigned)((rows + 31) / 32));
    repack_kmajor<<<grid, 256, 0, s>>>((const uint16_t *)X, rows, K, Kp, kmajor ? (int)ld : 1,
                                       kmajor ? 1 : (int)ld, Y, ldy, !kmajor);
    return cudaGetLastError();
}
