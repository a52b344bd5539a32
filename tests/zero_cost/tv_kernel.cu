/* tests/zero_cost/tv_kernel.cu -- the thread/value layouts of common/layout_tv.h in a kernel:
 * a tiled copy (LDG.128 along k, transposed into padded smem), the accumulator coordinates of
 * a tiled MMA (2x4 warps of 64x32, m16n8k16 atoms), and the ldmatrix row addresses derived
 * from the MMA's A layout into a Sw<3,3,3>-swizzled (128,64) fp16 tile. Every index comes from
 * constant layouts evaluated point-wise at threadIdx.x; tests/test_zero_cost.sh compiles it and
 * fails on any stack frame, spill or local-memory instruction. Compile-only: never launched. */
#include "layout.h"

extern "C" __global__ void __launch_bounds__(256)
    tv_layouts(const float *A, int lda, float *C, int ldc, unsigned *addr) {
    __shared__ float sA[8 * (128 + 4)];
    const int tid = (int)threadIdx.x;

    /* tiled copy: 256 threads as (128,2) over (BLK_M,BLK_K) = (128,8), 4 floats along k each */
    const lay_tiled_copy cA = lay_make_tiled_copy(lay_l2(128, 2, 2, 1), lay_l2(1, 4, 0, 1));
    const lay_layout gA = lay_l2(128, 8, lda, 1);   /* (BLK_M,BLK_K) in gmem, run-time lda */
    const lay_layout tAsA = lay_l2(128, 8, 1, 132); /* (BLK_M,BLK_K) transposed, padded   */
    const float *gA_blk = A + (long long)blockIdx.x * 128 * lda;
#pragma unroll
    for (int r = 0; r < lay_tiled_copy_reps(cA, 128, 8); ++r) {
        const float4 v = *(const float4 *)(gA_blk + lay_tiled_copy_offset(cA, gA, tid, 0, r));
        const int s = (int)lay_tiled_copy_offset(cA, tAsA, tid, 0, r);
        sA[s] = v.x;
        sA[s + 132] = v.y;
        sA[s + 2 * 132] = v.z;
        sA[s + 3 * 132] = v.w;
    }
    __syncthreads();

    /* tiled MMA: every accumulator of this thread -> C(m, n) */
    const lay_tiled_mma mma =
        lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 4, 4, 1), 4, 4, 4);
#pragma unroll
    for (int v = 0; v < 4 * 4 * 4; ++v) {
        int m, n;
        lay_tiled_mma_c_crd(&mma, tid, v, &m, &n);
        C[(long long)m * ldc + n] = sA[(m % 8) * 132 + n % 128];
    }

    /* ldmatrix.x4 rows of the A fragment in a swizzled (128,64) fp16 tile, in bytes */
    lay_swizzle sw;
    if (lay_swizzle_sw(&sw, 128, 2) != LAY_OK) return;
    const lay_swizzled sA16 = lay_make_swizzled(sw, lay_l2(128, 64, 64, 1));
#pragma unroll
    for (int q = 0; q < 4 * 4; ++q) {
        int m, k;
        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, tid, q, &m, &k);
        addr[q * 256 + tid] = 2u * (unsigned)lay_swizzled_crd2idx2(sA16, m, k);
    }
}
