/* test_plans_02.c - lesson 02's plan.h: the layouts mA, mB, mC that lessons/02_layout/gemm.cu
 * builds give exactly the hand-written offsets of common/harness.h's convention for every
 * element of small problems, in all four operand orders, with and without padded leading
 * dimensions, and fit in the arrays the harness allocates. Criterion, CPU only (make test).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "layout.h"
#include "plan.h"

static void must(int rc, const char *what) {
    cr_assert_eq(rc, LAY_OK, "%s failed: %s", what, lay_strerror(rc));
}

/* The operand orders as common/harness.c derives them: K-major A for TN/TT, K-major B for
 * TN/NN. */
static const struct {
    const char *name;
    int a_kmajor, b_kmajor;
} orders[] = {{"TN", 1, 1}, {"NT", 0, 0}, {"NN", 0, 1}, {"TT", 1, 0}};

/* Hand-written offsets straight from common/harness.h's table (independent of plan.h). */
static lay_off doc_A(int m, int k, int lda, int kmaj) {
    return kmaj ? (lay_off)m * lda + k : m + (lay_off)k * lda;
}
static lay_off doc_B(int n, int k, int ldb, int kmaj) {
    return kmaj ? (lay_off)n * ldb + k : n + (lay_off)k * ldb;
}

Test(lesson02_plan, layouts_give_the_hand_written_offsets) {
    const int sizes[][3] = {{5, 7, 3}, {1, 9, 4}, {8, 1, 1}, {13, 6, 11}};
    for (int o = 0; o < 4; ++o)
        for (int s = 0; s < 4; ++s)
            for (int pad = 0; pad <= 3; pad += 3) {
                const int M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];
                const int ak = orders[o].a_kmajor, bk = orders[o].b_kmajor;
                /* leading dimensions as the harness sets them (--pad adds to each) */
                const int lda = (ak ? K : M) + pad, ldb = (bk ? K : N) + pad, ldc = N + pad;
                lay_layout mA = p2_layout_A(M, K, lda, ak); /* (M,K) */
                lay_layout mB = p2_layout_B(N, K, ldb, bk); /* (N,K) */
                lay_layout mC = p2_layout_C(M, N, ldc);     /* (M,N) */
                cr_assert(lay_valid(mA) && lay_valid(mB) && lay_valid(mC));
                cr_assert_eq(lay_size(mA), M * K);
                cr_assert_eq(lay_size(mB), N * K);
                cr_assert_eq(lay_size(mC), M * N);
                for (int m = 0; m < M; ++m)
                    for (int k = 0; k < K; ++k) {
                        lay_off got = lay_crd2idx2(mA, m, k);
                        cr_assert_eq(got, doc_A(m, k, lda, ak), "%s A(%d,%d) pad %d",
                                     orders[o].name, m, k, pad);
                        cr_assert_eq(got, p2_hand_A(m, k, lda, ak));
                        /* the 1-D index m + M*k (colexicographic) names the same element */
                        cr_assert_eq(lay_crd2idx(mA, m + (lay_off)M * k), got);
                    }
                for (int n = 0; n < N; ++n)
                    for (int k = 0; k < K; ++k) {
                        lay_off got = lay_crd2idx2(mB, n, k);
                        cr_assert_eq(got, doc_B(n, k, ldb, bk), "%s B(%d,%d) pad %d",
                                     orders[o].name, n, k, pad);
                        cr_assert_eq(got, p2_hand_B(n, k, ldb, bk));
                    }
                for (int m = 0; m < M; ++m)
                    for (int n = 0; n < N; ++n) {
                        lay_off got = lay_crd2idx2(mC, m, n);
                        cr_assert_eq(got, (lay_off)m * ldc + n);
                        cr_assert_eq(got, p2_hand_C(m, n, ldc));
                    }
                /* each layout stays inside the array the harness allocates:
                 * (outer - 1) * ld + inner elements */
                lay_off a_elems = (lay_off)((ak ? M : K) - 1) * lda + (ak ? K : M);
                lay_off b_elems = (lay_off)((bk ? N : K) - 1) * ldb + (bk ? K : N);
                lay_off c_elems = (lay_off)(M - 1) * ldc + N;
                cr_assert_eq(lay_cosize(mA), a_elems, "%s pad %d", orders[o].name, pad);
                cr_assert_eq(lay_cosize(mB), b_elems, "%s pad %d", orders[o].name, pad);
                cr_assert_eq(lay_cosize(mC), c_elems);
            }
}

/* coalesce follows the colexicographic order (mode 0 fastest): an unpadded M-major A,
 * (M,K):(1,M), walks memory 0,1,2,... and coalesces to one mode M*K:1; a K-major A,
 * (M,K):(K,1), is just as contiguous but not in that order (index 1 is offset K) and stays two
 * modes. Padding (lda > M) breaks the M-major merge too. */
Test(lesson02_plan, coalesce_follows_colexicographic_order) {
    const int M = 6, K = 4;
    lay_layout R;
    must(lay_coalesce(&R, p2_layout_A(M, K, M, 0)), "coalesce");
    cr_assert(R.n == 1 && R.shape[0] == M * K && R.stride[0] == 1);
    must(lay_coalesce(&R, p2_layout_A(M, K, M + 3, 0)), "coalesce");
    cr_assert_eq(R.n, 2);
    must(lay_coalesce(&R, p2_layout_A(M, K, K, 1)), "coalesce");
    cr_assert_eq(R.n, 2);
}

/* A small GEMM through the layouts equals the same GEMM through hand-written offsets, bit for
 * bit, in every order with padding: the arithmetic the kernel does, on the CPU. */
Test(lesson02_plan, cpu_gemm_through_layouts) {
    enum { M = 7, N = 5, K = 6, PAD = 2, CAP = 128 };
    float A[CAP], B[CAP], C1[CAP], C2[CAP];
    for (int i = 0; i < CAP; ++i) {
        A[i] = (float)((i * 7) % 11) - 5.0f;
        B[i] = (float)((i * 5) % 13) - 6.0f;
    }
    for (int o = 0; o < 4; ++o) {
        const int ak = orders[o].a_kmajor, bk = orders[o].b_kmajor;
        const int lda = (ak ? K : M) + PAD, ldb = (bk ? K : N) + PAD, ldc = N + PAD;
        lay_tensor mA = lay_make_tensor(A, p2_layout_A(M, K, lda, ak)); /* (M,K) */
        lay_tensor mB = lay_make_tensor(B, p2_layout_B(N, K, ldb, bk)); /* (N,K) */
        lay_tensor mC = lay_make_tensor(C1, p2_layout_C(M, N, ldc));    /* (M,N) */
        cr_assert(lay_cosize(mA.layout) <= CAP && lay_cosize(mB.layout) <= CAP &&
                  lay_cosize(mC.layout) <= CAP);
        for (int i = 0; i < CAP; ++i) C1[i] = C2[i] = -1.0f;
        for (int m = 0; m < M; ++m)
            for (int n = 0; n < N; ++n) {
                float acc1 = 0.0f, acc2 = 0.0f;
                for (int k = 0; k < K; ++k) {
                    acc1 += LAY_AT2(mA, float, m, k) * LAY_AT2(mB, float, n, k);
                    acc2 += A[doc_A(m, k, lda, ak)] * B[doc_B(n, k, ldb, bk)];
                }
                LAY_AT2(mC, float, m, n) = acc1;
                C2[(lay_off)m * ldc + n] = acc2;
            }
        cr_assert(memcmp(C1, C2, sizeof C1) == 0, "%s: results differ", orders[o].name);
    }
}
