/* plan.h - lesson 02: the layouts of the three operands, for the kernel AND the CPU test.
 *
 * One function per operand builds its (shape):(stride) layout from the problem's sizes, leading
 * dimension and majorness (common/harness.h, "THE GEMM CONVENTION"):
 *
 *     operand  shape   K-major ('T' for A, 'N' for B)     M/N-major ('N' for A, 'T' for B)
 *     mA       (M,K)   (M,K):(lda,1)                      (M,K):(1,lda)
 *     mB       (N,K)   (N,K):(ldb,1)                      (N,K):(1,ldb)
 *     mC       (M,N)   (M,N):(ldc,1)   (C is always row-major)
 *
 * So the four operand orders are four choices of two strides, and one kernel indexing
 * mA(m,k), mB(n,k), mC(m,n) through these layouts serves all of them:
 *
 *     order   mA              mB
 *     TN      (M,K):(lda,1)   (N,K):(ldb,1)      both K-major (the repository default)
 *     NT      (M,K):(1,lda)   (N,K):(1,ldb)      both K-strided
 *     NN      (M,K):(1,lda)   (N,K):(ldb,1)
 *     TT      (M,K):(lda,1)   (N,K):(1,ldb)      A[M][K], B[K][N]: lesson 01/02 default
 *
 * The p2_hand_* functions are the same offsets written by hand, as lesson 01 wrote them; the
 * kernel variant "hand" uses them, and tests/test_plans_02.c checks that the layouts give
 * exactly these offsets for every element of small padded problems.
 *
 * Host (gcc, C11) and device (nvcc): everything is LAY_HD static inline. The layouts are built
 * with lay_l2 by value, so their structure (2 leaves, flat) is a compile-time constant and
 * lay_crd2idx2 folds to m*s0 + k*s1 in the kernel. Strides are int: leading dimensions must be
 * below 2^31 (p2_check refuses larger ones); offsets are 64-bit (lay_off).
 */
#ifndef LESSON02_PLAN_H
#define LESSON02_PLAN_H

#include "layout.h"

/* mA: A as an (M,K) layout; a_kmajor = 1 when K is contiguous (A[m*lda + k]). */
LAY_HD static inline lay_layout p2_layout_A(int M, int K, int lda, int a_kmajor) {
    return lay_l2(M, K, a_kmajor ? lda : 1, a_kmajor ? 1 : lda);            /* (M,K) */
}

/* mB: B as an (N,K) layout; b_kmajor = 1 when K is contiguous (B[n*ldb + k]). */
LAY_HD static inline lay_layout p2_layout_B(int N, int K, int ldb, int b_kmajor) {
    return lay_l2(N, K, b_kmajor ? ldb : 1, b_kmajor ? 1 : ldb);            /* (N,K) */
}

/* mC: C as an (M,N) row-major layout with leading dimension ldc. */
LAY_HD static inline lay_layout p2_layout_C(int M, int N, int ldc) {
    return lay_l2(M, N, ldc, 1);                                            /* (M,N) */
}

/* The same offsets by hand (lesson 01's A_AT / B_AT / C indexing). */
LAY_HD static inline lay_off p2_hand_A(int m, int k, int lda, int a_kmajor) {
    return a_kmajor ? (lay_off)m * lda + k : m + (lay_off)k * lda;
}
LAY_HD static inline lay_off p2_hand_B(int n, int k, int ldb, int b_kmajor) {
    return b_kmajor ? (lay_off)n * ldb + k : n + (lay_off)k * ldb;
}
LAY_HD static inline lay_off p2_hand_C(int m, int n, int ldc) { return (lay_off)m * ldc + n; }

/* The CTA tile of C (lesson 01's mapping): 32x32 threads, threadIdx.x along N. */
#define P2_BLK 32

#endif /* LESSON02_PLAN_H */
