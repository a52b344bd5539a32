/* kernel.cu - lesson 01 assignment, part 2: the naive GEMM kernel, one thread per element of C.
 *
 * YOU WRITE the body of ex01_gemm (three TODOs). The thread -> element mapping comes from
 * mapping.h (part 1); the launch and the harness descriptor at the end are given.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C, A (M,K), B (N,K), C (M,N)
 * row-major with leading dimension ldc. The operand order is given by two flags:
 *     a_kmajor = 1: A(m,k) is A[m*lda + k]      a_kmajor = 0: A(m,k) is A[m + k*lda]
 *     b_kmajor = 1: B(n,k) is B[n*ldb + k]      b_kmajor = 0: B(n,k) is B[n + k*ldb]
 * and every operand order (TN, NT, NN, TT), any M, N, K >= 1 and any leading dimension must
 * work. Leading dimensions are long long: use 64-bit index arithmetic.
 *
 * Build, check, time:  make exercise01 && ./run --variant exercise --check-only --layout all
 *                      ./run --size 4096x4096x4096 --layout TT     (yours vs the lesson's)
 * Grade:               make grade01
 */
#include "exercise.h"
#include "mapping.h"

__global__ void ex01_gemm(int M, int N, int K, float alpha, const float *A, long long lda,
                          int a_kmajor, const float *B, long long ldb, int b_kmajor, float beta,
                          float *C, long long ldc) {
    int m, n;
    ex01_thread_element(blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y, blockDim.x,
                        blockDim.y, &m, &n);
    /* TODO 1: a thread whose (m,n) is outside C returns before touching memory. */

    /* TODO 2: acc = sum over k of A(m,k) * B(n,k), in fp32, for either majorness. */

    /* TODO 3: write C(m,n) = alpha * acc + beta * C(m,n). When beta == 0, do not read C:
     *         it may hold NaN or Inf (the harness fills it so), and 0 * NaN is NaN. */
}

static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    int gx, gy;
    ex01_grid(p->m, p->n, EX01_BLOCK_X, EX01_BLOCK_Y, &gx, &gy);
    dim3 block(EX01_BLOCK_X, EX01_BLOCK_Y);
    dim3 grid(gx, gy);
    ex01_gemm<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A, p->lda,
                                     p->a_kmajor, (const float *)p->B, p->ldb, p->b_kmajor,
                                     p->beta, (float *)p->C, p->ldc);
    return cudaGetLastError();
}

/* A grid has at most 2^31-1 CTAs along x and 65535 along y (CUDA C++ Programming Guide,
 * "Features and Technical Specifications"): refuse what the grid cannot launch. */
static const char *check(const gemm_problem *p) {
    int gx, gy;
    ex01_grid(p->m, p->n, EX01_BLOCK_X, EX01_BLOCK_Y, &gx, &gy);
    if (gx < 1 || gy < 1 || gy > 65535) return "the grid does not fit the launch limits";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "lesson 01 assignment: one thread per C element, lanes along N",
    GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check, launch};
