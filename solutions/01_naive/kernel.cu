/* kernel.cu - lesson 01 assignment, part 2: the naive GEMM kernel, one thread per element of C.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
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
    /* 1: threads outside C (the last CTAs of a ragged edge) do nothing */
    if (m >= M || n >= N) return;
    /* 2: A(m,k) and B(n,k) for either majorness. The flags do not change inside the loop,
     * so nvcc moves the tests out of it (one loop per operand order, as in lesson 01). */
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        const float a = a_kmajor ? A[(long long)m * lda + k] : A[m + (long long)k * lda];
        const float b = b_kmajor ? B[(long long)n * ldb + k] : B[n + (long long)k * ldb];
        acc += a * b;
    }
    /* 3: C is read only when beta != 0, so a NaN/Inf-filled C cannot leak into the result */
    float *c = C + (long long)m * ldc + n;
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
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
