/* Lesson 01 - naive GEMM: one thread per element of C.
 *
 * What this lesson shows: the same arithmetic with two thread-to-element mappings.
 *   uncoalesced  threadIdx.x walks down a column of C (consecutive lanes -> consecutive m):
 *                the 32 lanes of a warp read 32 different rows of A and write 32 different
 *                rows of C, so every load/store instruction touches 32 separate 32-byte sectors.
 *   coalesced    threadIdx.x walks along a row of C (consecutive lanes -> consecutive n):
 *                all lanes read the same A element (one broadcast) and write 32 neighbouring
 *                floats of C (one 128-byte line).
 * Both support every operand order (TN, NT, NN, TT) and any leading dimension, fp32 only.
 * The lesson's default order is TT (see the descriptor at the end): B has N contiguous, so the
 * coalesced mapping's 32 lanes read 32 neighbouring B elements per k.
 *
 * Build and run:   make lesson01 && ./run
 *                  ./run --variant coalesced --size 4096x4096x4096
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include "harness.h"

/* Element (m,k) of A and (n,k) of B for either majorness; ld in elements. */
#define A_AT(A, m, k, lda, kmaj) ((kmaj) ? (A)[(long long)(m) * (lda) + (k)] : (A)[(m) + (long long)(k) * (lda)])
#define B_AT(B, n, k, ldb, kmaj) ((kmaj) ? (B)[(long long)(n) * (ldb) + (k)] : (B)[(n) + (long long)(k) * (ldb)])

/* C(m,n) = alpha * sum_k A(m,k) * B(n,k) + beta * C(m,n), one thread per (m,n).
 * Grid: (ceil(M/32), ceil(N/32)) CTAs of 32x32 threads; threadIdx.x -> m (uncoalesced).
 * Threads past the edge of C return before touching memory, so any M, N, K >= 1 works.
 * C is read only when beta != 0, so a NaN-filled C with beta == 0 gives a NaN-free result. */
__global__ void gemm_uncoalesced(int M, int N, int K, float alpha, const float *A, long long lda,
                                 int a_kmajor, const float *B, long long ldb, int b_kmajor,
                                 float beta, float *C, long long ldc) {
    const int m = blockIdx.x * blockDim.x + threadIdx.x; /* lanes differ in m: strided rows */
    const int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A_AT(A, m, k, lda, a_kmajor) * B_AT(B, n, k, ldb, b_kmajor);
    float *c = &C[(long long)m * ldc + n];
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

/* Same as gemm_uncoalesced but threadIdx.x -> n: the 32 lanes of a warp own 32 consecutive
 * elements of one row of C. Grid: (ceil(N/32), ceil(M/32)) CTAs of 32x32 threads. */
__global__ void gemm_coalesced(int M, int N, int K, float alpha, const float *A, long long lda,
                               int a_kmajor, const float *B, long long ldb, int b_kmajor,
                               float beta, float *C, long long ldc) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x; /* lanes differ in n: one row of C */
    const int m = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A_AT(A, m, k, lda, a_kmajor) * B_AT(B, n, k, ldb, b_kmajor);
    float *c = &C[(long long)m * ldc + n];
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

static cudaError_t launch_uncoalesced(const gemm_problem *p, cudaStream_t s) {
    dim3 block(32, 32);
    dim3 grid((p->m + 31) / 32, (p->n + 31) / 32);
    gemm_uncoalesced<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A,
                                            p->lda, p->a_kmajor, (const float *)p->B, p->ldb,
                                            p->b_kmajor, p->beta, (float *)p->C, p->ldc);
    return cudaGetLastError();
}

static cudaError_t launch_coalesced(const gemm_problem *p, cudaStream_t s) {
    dim3 block(32, 32);
    dim3 grid((p->n + 31) / 32, (p->m + 31) / 32);
    gemm_coalesced<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A,
                                          p->lda, p->a_kmajor, (const float *)p->B, p->ldb,
                                          p->b_kmajor, p->beta, (float *)p->C, p->ldc);
    return cudaGetLastError();
}

/* grid.y is limited to 65535 CTAs: refuse sizes that would need more. */
static const char *check_grid(const gemm_problem *p) {
    if ((p->m + 31) / 32 > 65535 || (p->n + 31) / 32 > 65535)
        return "M and N must be at most 2097120 (grid.y limit of 65535 CTAs of 32)";
    return NULL;
}

/* The first variant is the lesson's default (bench sweeps it over every size). */
static const gemm_variant variants[] = {
    {"coalesced", "one thread per C element, lanes along N (contiguous)", GEMM_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_ALL, 1, check_grid, launch_coalesced},
    {"uncoalesced", "one thread per C element, lanes along M (strided)", GEMM_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_ALL, 1, check_grid, launch_uncoalesced},
};

/* Default operand order TT: A row-major (M,K) and B stored as a row-major K x N matrix (N
 * contiguous), C row-major - the three arrays a C programmer would declare. Lanes along N then
 * read B contiguously; with TN (both operands K-major) neither mapping coalesces its operand
 * loads, which is why lesson 03 stages tiles through shared memory. */
static const gemm_lesson lesson = {"01_naive", "Naive GEMM: one thread per element of C", 2,
                                   variants, GEMM_LAYOUT_BIT(GEMM_TT)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }
