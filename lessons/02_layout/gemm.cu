/* Lesson 02 - layouts: lesson 01's coalesced kernel with every index computed by a layout.
 *
 * What changed vs lesson 01 (lessons/01_naive/gemm.cu, kernel gemm_coalesced):
 *   - lesson 01 indexes A and B with two macros that branch on the operand order
 *     (A_AT: a_kmajor ? A[m*lda + k] : A[m + k*lda]) and C with m*ldc + n;
 *   - here the operands are tensors, a pointer plus a layout (common/layout.h):
 *         mA (M,K):(lda,1) or (M,K):(1,lda)      mB (N,K):(ldb,1) or (N,K):(1,ldb)
 *         mC (M,N):(ldc,1)
 *     built once per thread by lessons/02_layout/plan.h, and the loop body only says
 *     mA(m,k) * mB(n,k). The strides carry the operand order (TN, NT, NN, TT) and the leading
 *     dimensions (padded or not); the base offset is in the pointer. One body for every order,
 *     and the compiler folds each access to m*s0 + k*s1 (build/02_layout/ptxas.txt: 0 bytes
 *     stack frame; the SASS has no local memory).
 *   - the thread mapping is unchanged: one thread per C element, threadIdx.x along N (lanes
 *     read neighbouring B elements in TT and write neighbouring C elements), 32x32 CTAs.
 * Variants:
 *   layout   the kernel above (default)
 *   hand     the same kernel with the index math written by hand (plan.h's p2_hand_*), so one
 *            run compares the two; `diff` the two kernels below to see all that changed.
 * Both: fp32, every operand order, any lda/ldb/ldc < 2^31, any M, N, K >= 1.
 *
 * Build and run:   make lesson02 && ./run                      (TT, the lesson default)
 *                  ./run --size 4096x4096x4096                 (compare with lesson 01)
 *                  ./run --check-only --layout all --pad 3 --offset 1 --size 127x129x131
 * Explore layouts without a GPU: make build/tools/layouts && build/tools/layouts show '(4,8):(8,1)'
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include <limits.h>
#include "harness.h"
#include "layout.h"
#include "plan.h"

/* C(m,n) = alpha * sum_k A(m,k) * B(n,k) + beta * C(m,n), one thread per (m,n), indexed
 * through layouts. The whole body: tensors, thread -> (m,n), loop, epilogue. */
static __device__ __forceinline__ void gemm02_body(int M, int N, int K, float alpha,
                                                   const float *A, int lda, const int a_kmajor,
                                                   const float *B, int ldb, const int b_kmajor,
                                                   float beta, float *C, int ldc) {
    const lay_tensor mA = lay_make_tensor((void *)A, p2_layout_A(M, K, lda, a_kmajor)); /* (M,K) */
    const lay_tensor mB = lay_make_tensor((void *)B, p2_layout_B(N, K, ldb, b_kmajor)); /* (N,K) */
    const lay_tensor mC = lay_make_tensor((void *)C, p2_layout_C(M, N, ldc));           /* (M,N) */
    const int n = blockIdx.x * P2_BLK + threadIdx.x; /* lanes differ in n: one row of C */
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
#pragma unroll 16
    for (int k = 0; k < K; ++k)
        acc += LAY_AT2(mA, const float, m, k) * LAY_AT2(mB, const float, n, k);
    float *c = &LAY_AT2(mC, float, m, n);
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}



/* Grid: (ceil(N/32), ceil(M/32)) CTAs of 32x32 threads; threadIdx.x -> n.
 * The body is called with the majorness as a compile-time constant, so each operand's unit
 * stride (the 1 in (lda,1) or (1,lda)) is a constant too and the contiguous operand is read
 * with immediate address offsets. nvcc does this by itself for lesson 01's `kmaj ? .. : ..`
 * macros (it unswitches the loop: four copies, see `cuobjdump -sass`), but not for a stride
 * chosen by `a_kmajor ? lda : 1`, which it evaluates once into a run-time value: a layout is
 * only as constant as what it is built from. With run-time strides the kernel is still
 * correct, with one more address add per k (try it: call gemm02_body(..., a_kmajor, ...,
 * b_kmajor, ...) once). The `#pragma unroll 16` in the body gives the k loop the unrolling
 * nvcc chose for lesson 01 (16 multiply-adds per trip); without it nvcc unrolls the layout
 * loop only 4 times (its heuristics see the inlined layout code before it folds). */
__global__ void gemm02_layout(int M, int N, int K, float alpha, const float *A, int lda,
                              int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                              float *C, int ldc) {
    if (a_kmajor && !b_kmajor)       /* TT */
        gemm02_body(M, N, K, alpha, A, lda, 1, B, ldb, 0, beta, C, ldc);
    else if (a_kmajor && b_kmajor)   /* TN */
        gemm02_body(M, N, K, alpha, A, lda, 1, B, ldb, 1, beta, C, ldc);
    else if (b_kmajor)               /* NN */
        gemm02_body(M, N, K, alpha, A, lda, 0, B, ldb, 1, beta, C, ldc);
    else                             /* NT */
        gemm02_body(M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc);
}

/* The same kernel, slicing first (CuTe's mA(m,_)): the layouts give this thread's row of A,
 * row of B and element of C once, as an offset plus the stride of k, and the loop walks the
 * two 1-D slices. Every offset still comes from the layouts; what changes is that the loop
 * sees `k * stride` on a fixed base, which the compiler turns into one pointer increment per
 * operand, as in lesson 01. */
static __device__ __forceinline__ void gemm02_row_body(int M, int N, int K, float alpha,
                                                       const float *A, int lda, const int a_kmajor,
                                                       const float *B, int ldb, const int b_kmajor,
                                                       float beta, float *C, int ldc) {
    const lay_layout lA = p2_layout_A(M, K, lda, a_kmajor); /* (M,K) */
    const lay_layout lB = p2_layout_B(N, K, ldb, b_kmajor); /* (N,K) */
    const lay_layout lC = p2_layout_C(M, N, ldc);           /* (M,N) */
    const int n = blockIdx.x * P2_BLK + threadIdx.x;
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    const float *rowA = A + lay_crd2idx2(lA, m, 0);         /* mA(m,_): (K) */
    const float *rowB = B + lay_crd2idx2(lB, n, 0);         /* mB(n,_): (K) */
    const lay_off sAk = lay_crd2idx2(lA, 0, 1);             /* stride of k in mA */
    const lay_off sBk = lay_crd2idx2(lB, 0, 1);             /* stride of k in mB */
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += rowA[k * sAk] * rowB[k * sBk];
    float *c = C + lay_crd2idx2(lC, m, n);
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

__global__ void gemm02_row(int M, int N, int K, float alpha, const float *A, int lda,
                           int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                           float *C, int ldc) {
    gemm02_row_body(M, N, K, alpha, A, lda, a_kmajor, B, ldb, b_kmajor, beta, C, ldc);
}

/* The same kernel, index math by hand (what the layouts above fold to). Lesson 01 wrote it
 * this way; nvcc unswitches and unrolls this loop by itself. */
__global__ void gemm02_hand(int M, int N, int K, float alpha, const float *A, int lda,
                            int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                            float *C, int ldc) {
    const int n = blockIdx.x * P2_BLK + threadIdx.x; /* lanes differ in n: one row of C */
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[p2_hand_A(m, k, lda, a_kmajor)] * B[p2_hand_B(n, k, ldb, b_kmajor)];
    float *c = &C[p2_hand_C(m, n, ldc)];
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

typedef void (*gemm02_kernel)(int, int, int, float, const float *, int, int, const float *, int,
                              int, float, float *, int);

static cudaError_t launch_with(gemm02_kernel kernel, const gemm_problem *p, cudaStream_t s) {
    dim3 block(P2_BLK, P2_BLK);
    dim3 grid((p->n + P2_BLK - 1) / P2_BLK, (p->m + P2_BLK - 1) / P2_BLK);
    kernel<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A, (int)p->lda,
                                  p->a_kmajor, (const float *)p->B, (int)p->ldb, p->b_kmajor,
                                  p->beta, (float *)p->C, (int)p->ldc);
    return cudaGetLastError();
}

static cudaError_t launch_layout(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_layout, p, s);
}
static cudaError_t launch_row(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_row, p, s);
}
static cudaError_t launch_hand(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_hand, p, s);
}

/* Layout strides are int; grid.y is limited to 65535 CTAs. */
static const char *check02(const gemm_problem *p) {
    if (p->lda > INT_MAX || p->ldb > INT_MAX || p->ldc > INT_MAX)
        return "lda, ldb and ldc must be below 2^31 (layout strides are int)";
    if ((p->m + P2_BLK - 1) / P2_BLK > 65535)
        return "M must be at most 2097120 (grid.y limit of 65535 CTAs of 32)";
    return NULL;
}

static const gemm_variant variants[] = {
    {"layout", "lesson 01 coalesced kernel, indexing through layouts mA, mB, mC",
     GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check02, launch_layout},
    {"layout_row", "the same, slicing mA(m,_) and mB(n,_) once, then walking k by its stride",
     GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check02, launch_row},
    {"hand", "the same kernel with hand-written index math", GEMM_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_ALL, 1, check02, launch_hand},
};

/* Default operand order TT, as lesson 01, so that the two lessons compare directly. */
static const gemm_lesson lesson = {"02_layout", "Layouts: one kernel for every operand order", 3,
                                   variants, GEMM_LAYOUT_BIT(GEMM_TT)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
