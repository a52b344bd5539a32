/* test_exercise_03.c - lesson 03: the CPU grader of the assignment (lessons/03_tiled/exercise).
 *
 * It calls the learner's tiles.h, the very functions the kernel calls, on the CPU and checks
 * what the tensors must BE, not how they are built:
 *   smem       the smem layout (TODO 1) is a (BLK_X,BLK_K) tile with x contiguous that fits the
 *              arrays, sA and sB (TODO 3) are tensors over the arrays with it, and the K-major
 *              copy (the given thread layout) stores into 32 banks per warp;
 *   tiles      gA, gB, gC of CTA (bx,by) (TODO 2) are the elements of mA, mB, mC of that CTA's
 *              tiles, for every operand order, padded leading dimensions and ragged edges;
 *   partition  the copy partitions (TODO 4) write every element of sA / sB exactly once per
 *              k_tile, each from the right element of gA / gB, with the right coordinates in
 *              tAcA / tBcB; the compute partitions (TODO 5) give every element of the C tile one
 *              owner, with the right coordinates, and tCsA / tCsB deliver the rows and columns
 *              it needs;
 *   kloop      the k_tile count (TODO 6a) covers every k, and the copy's predicate (TODO 6b) is
 *              1 exactly for the elements inside A / B, on ragged M, N and K.
 * Each test feeds the learner's function correct inputs built here (the reference tiles,
 * smem tensors and identity partitions), so a mistake in one TODO fails only its own test.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade03, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles.h"

static float smemA[EX03_SMEM_A_FLOATS], smemB[EX03_SMEM_B_FLOATS];

/* ---- helpers ------------------------------------------------------------------------------ */

static lay_off at2(lay_tensor t, int i, int j) { return t.off + lay_crd2idx2(t.layout, i, j); }
static lay_off at3(lay_tensor t, int i, int j, int k) {
    return t.off + lay_crd2idx3(t.layout, i, j, k);
}

/* The extent of mode i of L (0 when L has no such mode). */
static int mode_size(lay_layout L, int i) {
    lay_layout m;
    if (i >= lay_rank(L) || lay_get(&m, L, i) != LAY_OK) return 0;
    return lay_size(m);
}

/* The learner's smem layout of a (blk_x, BLK_K) tile, checked to be one; and its inverse:
 * inv[offset] = x + blk_x * k, or -1 for an offset that holds no element (padding). */
static lay_layout smem_layout_checked(int blk_x, int cap) {
    lay_layout L = ex03_smem_layout(blk_x);
    cr_assert(lay_valid(L), "ex03_smem_layout(%d) is not a layout yet (TODO 1)", blk_x);
    cr_assert(lay_rank(L) == 2 && mode_size(L, 0) == blk_x && mode_size(L, 1) == EX03_BLK_K,
              "ex03_smem_layout(%d) must have the shape (%d,%d) (x, k)", blk_x, blk_x, EX03_BLK_K);
    cr_assert(lay_cosize(L) <= cap, "ex03_smem_layout(%d) needs %lld floats; the array has %d",
              blk_x, lay_cosize(L), cap);
    return L;
}

static int *smem_inverse(lay_layout L, int blk_x) {
    const int cos = (int)lay_cosize(L);
    int *inv = malloc(sizeof(int) * (size_t)cos);
    cr_assert(inv);
    for (int o = 0; o < cos; ++o) inv[o] = -1;
    for (int k = 0; k < EX03_BLK_K; ++k)
        for (int x = 0; x < blk_x; ++x) {
            const lay_off o = lay_crd2idx2(L, x, k);
            cr_assert(o >= 0 && o < cos, "smem layout: (%d,%d) at offset %lld", x, k, o);
            cr_assert(inv[o] < 0, "smem layout: (%d,%d) and (%d,%d) share offset %lld", x, k,
                      inv[o] % blk_x, inv[o] / blk_x, o);
            inv[o] = x + blk_x * k;
        }
    return inv;
}

/* One problem: extents, operand order and leading dimensions, as the harness sets them. */
typedef struct {
    int M, N, K, a_kmajor, b_kmajor, pad;
    long long lda, ldb, ldc;
} problem;

static problem make_problem(int M, int N, int K, int a_kmajor, int b_kmajor, int pad) {
    problem p = {M, N, K, a_kmajor, b_kmajor, pad, 0, 0, 0};
    p.lda = (a_kmajor ? K : M) + pad;
    p.ldb = (b_kmajor ? K : N) + pad;
    p.ldc = 4096; /* wider than any column a tile can reach: offsets invert to (m,n) */
    return p;
}

/* Offsets of element (m,k) of A, (n,k) of B, (m,n) of C in the problem's arrays. */
static lay_off offA(const problem *p, lay_off m, lay_off k) {
    return p->a_kmajor ? m * p->lda + k : m + k * p->lda;
}
static lay_off offB(const problem *p, lay_off n, lay_off k) {
    return p->b_kmajor ? n * p->ldb + k : n + k * p->ldb;
}
static lay_off offC(const problem *p, lay_off m, lay_off n) { return m * p->ldc + n; }

/* The operand order's two BLAS letters (common/harness.h). */
static const char *order_name(const problem *p) {
    return p->a_kmajor ? (p->b_kmajor ? "TN" : "TT") : (p->b_kmajor ? "NN" : "NT");
}

/* The full tensors of problem p, as kernel.cu builds them: mA (M,K), mB (N,K), mC (M,N). */
static void full_tensors(const problem *p, lay_tensor *mA, lay_tensor *mB, lay_tensor *mC) {
    *mA = lay_make_tensor(
        NULL, lay_l2(p->M, p->K, p->a_kmajor ? (int)p->lda : 1, p->a_kmajor ? 1 : (int)p->lda));
    *mB = lay_make_tensor(
        NULL, lay_l2(p->N, p->K, p->b_kmajor ? (int)p->ldb : 1, p->b_kmajor ? 1 : (int)p->ldb));
    *mC = lay_make_tensor(NULL, lay_l2(p->M, p->N, (int)p->ldc, 1));
}

/* The reference smem layout (the lesson's): (blk_x,BLK_K):(1,blk_x+4). */
static lay_layout ref_smem_layout(int blk_x) { return lay_l2(blk_x, EX03_BLK_K, 1, blk_x + 4); }

/* The reference tensors of CTA (bx,by), thread tid: the inputs each test gives the learner's
 * function under test (built with common/layout.h as the lesson's kernel builds them). */
static ex03_cta ref_cta(const problem *p, int bx, int by, int tid) {
    lay_tensor mA, mB, mC;
    full_tensors(p, &mA, &mB, &mC);
    const lay_tiler tiler = lay_tiler3(EX03_BLK_M, EX03_BLK_N, EX03_BLK_K);
    const int coord[3] = {bx, by, LAY_FREE};
    const lay_layout tA = ex03_copy_thr_layout(p->a_kmajor), tB = ex03_copy_thr_layout(p->b_kmajor);
    ex03_cta c;
    memset(&c, 0, sizeof c);
    int rc = lay_local_tile(&c.gA, mA, tiler, coord, 0x5u);
    if (rc == LAY_OK) rc = lay_local_tile(&c.gB, mB, tiler, coord, 0x6u);
    if (rc == LAY_OK) rc = lay_local_tile(&c.gC, mC, tiler, coord, 0x3u);
    c.sA = lay_make_tensor(smemA, ref_smem_layout(EX03_BLK_M));
    c.sB = lay_make_tensor(smemB, ref_smem_layout(EX03_BLK_N));
    const lay_tensor cA_m = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 1, 0));
    const lay_tensor cA_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 0, 1));
    const lay_tensor cB_n = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 1, 0));
    const lay_tensor cB_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 0, 1));
    if (rc == LAY_OK) rc = lay_local_partition(&c.tAcA_m, cA_m, tA, tid, LAY_PROJ_ALL);
    if (rc == LAY_OK) rc = lay_local_partition(&c.tAcA_k, cA_k, tA, tid, LAY_PROJ_ALL);
    if (rc == LAY_OK) rc = lay_local_partition(&c.tBcB_n, cB_n, tB, tid, LAY_PROJ_ALL);
    if (rc == LAY_OK) rc = lay_local_partition(&c.tBcB_k, cB_k, tB, tid, LAY_PROJ_ALL);
    cr_assert(rc == LAY_OK, "grader: the reference tensors failed (%s)", lay_strerror(rc));
    return c;
}

/* After a learner's function returned an error: the first of its outputs left unbuilt. */
static const char *first_unbuilt(const lay_tensor *const *outs, const char *const *names, int n) {
    for (int i = 0; i < n; ++i)
        if (!lay_valid(outs[i]->layout)) return names[i];
    return "(none: every output is a layout, but the function still returned an error)";
}

static void expect_ok(int rc, const char *fn, const char *todo, const problem *p, int bx, int by,
                      int tid, const lay_tensor *const *outs, const char *const *names, int n) {
    char thr[32] = "";
    if (tid >= 0) snprintf(thr, sizeof thr, ", thread %d", tid);
    cr_assert(rc == LAY_OK,
              "%s (%s), %s, CTA (%d,%d)%s, returned %d (%s): not written yet, or "
              "a layout operation failed; the first tensor not built is %s",
              fn, todo, order_name(p), bx, by, thr, rc, lay_strerror(rc),
              first_unbuilt(outs, names, n));
}

/* The learner's ex03_cta_tiles (TODO 2) for CTA (bx,by) of problem p; must succeed. */
static ex03_cta learner_tiles(const problem *p, int bx, int by) {
    lay_tensor mA, mB, mC;
    full_tensors(p, &mA, &mB, &mC);
    ex03_cta c;
    memset(&c, 0, sizeof c);
    const int rc = ex03_cta_tiles(&c, mA, mB, mC, bx, by);
    const lay_tensor *outs[] = {&c.gA, &c.gB, &c.gC};
    const char *names[] = {"gA", "gB", "gC"};
    expect_ok(rc, "ex03_cta_tiles", "TODO 2", p, bx, by, -1, outs, names, 3);
    return c;
}

/* The learner's ex03_copy_partitions (TODO 4), from the reference gA, gB, sA, sB. */
static ex03_cta learner_copy(const problem *p, int bx, int by, int tid) {
    ex03_cta r = ref_cta(p, bx, by, tid), c;
    memset(&c, 0, sizeof c);
    c.gA = r.gA;
    c.gB = r.gB;
    c.sA = r.sA;
    c.sB = r.sB;
    const int rc = ex03_copy_partitions(&c, p->a_kmajor, p->b_kmajor, tid);
    const lay_tensor *outs[] = {&c.tAgA, &c.tAsA, &c.tAcA_m, &c.tAcA_k,
                                &c.tBgB, &c.tBsB, &c.tBcB_n, &c.tBcB_k};
    const char *names[] = {"tAgA", "tAsA", "tAcA_m", "tAcA_k", "tBgB", "tBsB", "tBcB_n", "tBcB_k"};
    expect_ok(rc, "ex03_copy_partitions", "TODO 4", p, bx, by, tid, outs, names, 8);
    return c;
}

/* The learner's ex03_compute_partitions (TODO 5), from the reference sA, sB, gC. */
static ex03_cta learner_compute(const problem *p, int bx, int by, int tid) {
    ex03_cta r = ref_cta(p, bx, by, tid), c;
    memset(&c, 0, sizeof c);
    c.gC = r.gC;
    c.sA = r.sA;
    c.sB = r.sB;
    const int rc = ex03_compute_partitions(&c, tid);
    const lay_tensor *outs[] = {&c.tCsA, &c.tCsB, &c.tCgC, &c.tCcC_m, &c.tCcC_n};
    const char *names[] = {"tCsA", "tCsB", "tCgC", "tCcC_m", "tCcC_n"};
    expect_ok(rc, "ex03_compute_partitions", "TODO 5", p, bx, by, tid, outs, names, 5);
    return c;
}

/* The problems every partition test runs: 129 x 257 x 33 (two ragged CTA edges and a ragged
 * last k_tile) in the four operand orders, unpadded and padded by 3. */
#define NPROB 8
static problem problem_i(int i) {
    static const int order[4][2] = {{1, 1}, {0, 0}, {0, 1}, {1, 0}}; /* TN NT NN TT */
    return make_problem(129, 257, 33, order[i % 4][0], order[i % 4][1], i < 4 ? 0 : 3);
}
static const int ctas[][2] = {{0, 0}, {1, 2}, {1, 0}}; /* interior, both edges ragged, one */

/* ---- smem ----------------------------------------------------------------------------------- */

Test(smem, layout_fits) {
    const int blks[2] = {EX03_BLK_M, EX03_BLK_N},
              caps[2] = {EX03_SMEM_A_FLOATS, EX03_SMEM_B_FLOATS};
    for (int b = 0; b < 2; ++b) {
        lay_layout L = smem_layout_checked(blks[b], caps[b]);
        free(smem_inverse(L, blks[b])); /* every element has its own offset */
        for (int k = 0; k < EX03_BLK_K; ++k)
            for (int x = 0; x + 1 < blks[b]; ++x)
                cr_assert(lay_crd2idx2(L, x + 1, k) == lay_crd2idx2(L, x, k) + 1,
                          "ex03_smem_layout(%d): x must be contiguous ((%d,%d) and (%d,%d) are "
                          "not neighbours)",
                          blks[b], x, k, x + 1, k);
    }
    /* TODO 3: sA, sB are tensors over smemA, smemB with that layout */
    ex03_cta c;
    memset(&c, 0, sizeof c);
    ex03_smem_tiles(&c, smemA, smemB);
    const lay_tensor *s[2] = {&c.sA, &c.sB};
    const float *arr[2] = {smemA, smemB};
    for (int b = 0; b < 2; ++b) {
        const char *X = b ? "B" : "A";
        const lay_layout L = ex03_smem_layout(blks[b]);
        cr_assert(s[b]->ptr == (const void *)arr[b] && s[b]->off == 0,
                  "ex03_smem_tiles (TODO 3): s%s must be a tensor over smem%s", X, X);
        cr_assert(lay_valid(s[b]->layout) && lay_rank(s[b]->layout) == 2,
                  "ex03_smem_tiles (TODO 3): s%s must have the layout ex03_smem_layout(%d)", X,
                  blks[b]);
        for (int k = 0; k < EX03_BLK_K; ++k)
            for (int x = 0; x < blks[b]; ++x)
                cr_assert(at2(*s[b], x, k) == lay_crd2idx2(L, x, k),
                          "ex03_smem_tiles (TODO 3): s%s(%d,%d) is at offset %lld, but "
                          "ex03_smem_layout(%d) puts it at %lld",
                          X, x, k, at2(*s[b], x, k), blks[b], lay_crd2idx2(L, x, k));
    }
}

/* The K-major copy: thread t stores the elements (x + 32 i, k) where (x,k) is t's place in the
 * given thread layout (32,8):(8,1). One store instruction of a warp (one value i) must hit 32
 * different banks. */
Test(smem, kmajor_copy_conflict_free) {
    lay_layout L = smem_layout_checked(EX03_BLK_M, EX03_SMEM_A_FLOATS);
    const lay_layout tA = ex03_copy_thr_layout(1);
    int tx[EX03_NTHR], tk[EX03_NTHR];
    for (int x = 0; x < 32; ++x)
        for (int k = 0; k < 8; ++k) {
            const int t = (int)lay_crd2idx2(tA, x, k);
            tx[t] = x;
            tk[t] = k;
        }
    for (int w = 0; w < EX03_NTHR / 32; ++w)
        for (int i = 0; i < EX03_BLK_M / 32; ++i) {
            int owner[32];
            for (int b = 0; b < 32; ++b) owner[b] = -1;
            for (int l = 0; l < 32; ++l) {
                const int t = 32 * w + l;
                const int bank = (int)(lay_crd2idx2(L, tx[t] + 32 * i, tk[t]) % 32);
                cr_assert(owner[bank] < 0,
                          "K-major copy, warp %d, value %d: lanes %d and %d "
                          "store into the same bank %d",
                          w, i, owner[bank], l, bank);
                owner[bank] = l;
            }
        }
}

/* ---- tiles ---------------------------------------------------------------------------------- */

Test(tiles, cta_tiles) {
    for (int pi = 0; pi < NPROB; ++pi) {
        const problem p = problem_i(pi);
        const int ktiles = (p.K + EX03_BLK_K - 1) / EX03_BLK_K;
        for (size_t ci = 0; ci < sizeof ctas / sizeof ctas[0]; ++ci) {
            const int bx = ctas[ci][0], by = ctas[ci][1];
            const ex03_cta c = learner_tiles(&p, bx, by);
            const lay_off m0 = (lay_off)bx * EX03_BLK_M, n0 = (lay_off)by * EX03_BLK_N;
            cr_assert(lay_rank(c.gA.layout) == 3 && lay_rank(c.gB.layout) == 3 &&
                          lay_rank(c.gC.layout) == 2,
                      "gA and gB must be (BLK,BLK_K,k) and gC (BLK_M,BLK_N): ranks %d %d %d",
                      lay_rank(c.gA.layout), lay_rank(c.gB.layout), lay_rank(c.gC.layout));
            for (int kt = 0; kt < ktiles; ++kt)
                for (int k = 0; k < EX03_BLK_K; ++k) {
                    const lay_off gk = (lay_off)kt * EX03_BLK_K + k;
                    for (int x = 0; x < EX03_BLK_M; ++x)
                        cr_assert(at3(c.gA, x, k, kt) == offA(&p, m0 + x, gk),
                                  "%s pad %d, CTA (%d,%d): gA(%d,%d,%d) is not element "
                                  "(%lld,%lld) of A",
                                  order_name(&p), p.pad, bx, by, x, k, kt, m0 + x, gk);
                    for (int x = 0; x < EX03_BLK_N; ++x)
                        cr_assert(at3(c.gB, x, k, kt) == offB(&p, n0 + x, gk),
                                  "%s pad %d, CTA (%d,%d): gB(%d,%d,%d) is not element "
                                  "(%lld,%lld) of B",
                                  order_name(&p), p.pad, bx, by, x, k, kt, n0 + x, gk);
                }
            for (int m = 0; m < EX03_BLK_M; ++m)
                for (int n = 0; n < EX03_BLK_N; ++n)
                    cr_assert(at2(c.gC, m, n) == offC(&p, m0 + m, n0 + n),
                              "CTA (%d,%d): gC(%d,%d) is not element (%lld,%lld) of C", bx, by, m,
                              n, m0 + m, n0 + n);
        }
    }
}

/* ---- partitions ----------------------------------------------------------------------------- */

/* One operand's copy partition over all threads of CTA (bx,by): tXsX(i,j) is an element (x,k)
 * of sX, each element exactly once; tXcX_x / tXcX_k give x and k; tXgX(i,j,kt) is element
 * (x0 + x, kt*BLK_K + k) of the operand. which = 0 for A, 1 for B. */
static void check_copy(const problem *p, int bx, int by, int which) {
    const int blk = which ? EX03_BLK_N : EX03_BLK_M;
    const char *X = which ? "B" : "A";
    lay_layout L = ref_smem_layout(blk); /* the reference sA / sB are the inputs */
    int *inv = smem_inverse(L, blk);
    unsigned char *hits = calloc((size_t)blk * EX03_BLK_K, 1);
    cr_assert(hits);
    const lay_off x0 = which ? (lay_off)by * EX03_BLK_N : (lay_off)bx * EX03_BLK_M;
    const int ktiles = (p->K + EX03_BLK_K - 1) / EX03_BLK_K;
    for (int t = 0; t < EX03_NTHR; ++t) {
        const ex03_cta c = learner_copy(p, bx, by, t);
        const lay_tensor g = which ? c.tBgB : c.tAgA, s = which ? c.tBsB : c.tAsA;
        const lay_tensor cx = which ? c.tBcB_n : c.tAcA_m, ck = which ? c.tBcB_k : c.tAcA_k;
        cr_assert(s.ptr == (which ? (void *)smemB : (void *)smemA),
                  "t%ss%s must be a partition of s%s (over smem%s)", X, X, X, X);
        for (int i = 0; i < blk / 32; ++i)
            for (int j = 0; j < EX03_BLK_K / 8; ++j) {
                const lay_off o = at2(s, i, j);
                cr_assert(o >= 0 && o < lay_cosize(L) && inv[o] >= 0,
                          "thread %d: t%ss%s(%d,%d) is at smem offset %lld, which is no element "
                          "of s%s",
                          t, X, X, i, j, o, X);
                const int x = inv[o] % blk, k = inv[o] / blk;
                cr_assert(!hits[inv[o]], "s%s(%d,%d) is written by two threads (one is thread %d)",
                          X, x, k, t);
                hits[inv[o]] = 1;
                cr_assert(at2(cx, i, j) == x && at2(ck, i, j) == k,
                          "thread %d: t%sc%s(%d,%d) says (%lld,%lld) but t%ss%s(%d,%d) is (%d,%d)",
                          t, X, X, i, j, at2(cx, i, j), at2(ck, i, j), X, X, i, j, x, k);
                for (int kt = 0; kt < ktiles; ++kt) {
                    const lay_off want = which ? offB(p, x0 + x, (lay_off)kt * EX03_BLK_K + k)
                                               : offA(p, x0 + x, (lay_off)kt * EX03_BLK_K + k);
                    cr_assert(at3(g, i, j, kt) == want,
                              "%s pad %d, CTA (%d,%d), thread %d: t%sg%s(%d,%d,%d) is not the "
                              "element of %s that goes to s%s(%d,%d)",
                              order_name(p), p->pad, bx, by, t, X, X, i, j, kt, X, X, x, k);
                }
            }
    }
    for (int e = 0; e < blk * EX03_BLK_K; ++e)
        cr_assert(hits[e], "s%s(%d,%d) is written by no thread", X, e % blk, e / blk);
    free(hits);
    free(inv);
}

Test(partition, copy_partitions) {
    for (int pi = 0; pi < NPROB; ++pi) {
        const problem p = problem_i(pi);
        for (size_t ci = 0; ci < sizeof ctas / sizeof ctas[0]; ++ci) {
            check_copy(&p, ctas[ci][0], ctas[ci][1], 0);
            check_copy(&p, ctas[ci][0], ctas[ci][1], 1);
        }
    }
}

Test(partition, compute_partitions) {
    const lay_layout LA = ref_smem_layout(EX03_BLK_M), LB = ref_smem_layout(EX03_BLK_N);
    for (int pi = 0; pi < 4; ++pi) {
        const problem p = problem_i(pi);
        const int bx = 1, by = 2;
        const lay_off m0 = (lay_off)bx * EX03_BLK_M, n0 = (lay_off)by * EX03_BLK_N;
        static unsigned char owned[EX03_BLK_M * EX03_BLK_N];
        memset(owned, 0, sizeof owned);
        for (int t = 0; t < EX03_NTHR; ++t) {
            const ex03_cta c = learner_compute(&p, bx, by, t);
            cr_assert(c.tCsA.ptr == (void *)smemA && c.tCsB.ptr == (void *)smemB,
                      "tCsA / tCsB must be partitions of sA / sB");
            for (int i = 0; i < EX03_THR_M; ++i)
                for (int j = 0; j < EX03_THR_N; ++j) {
                    const lay_off o = at2(c.tCgC, i, j) - offC(&p, m0, n0);
                    const lay_off m = o / p.ldc, n = o % p.ldc;
                    cr_assert(o >= 0 && m < EX03_BLK_M && n < EX03_BLK_N,
                              "thread %d: tCgC(%d,%d) is outside this CTA's tile of C", t, i, j);
                    cr_assert(!owned[m * EX03_BLK_N + n],
                              "C tile element (%lld,%lld) has two "
                              "owners (one is thread %d)",
                              m, n, t);
                    owned[m * EX03_BLK_N + n] = 1;
                    cr_assert(at2(c.tCcC_m, i, j) == m && at2(c.tCcC_n, i, j) == n,
                              "thread %d: tCcC(%d,%d) says (%lld,%lld) but tCgC(%d,%d) is "
                              "(%lld,%lld)",
                              t, i, j, at2(c.tCcC_m, i, j), at2(c.tCcC_n, i, j), i, j, m, n);
                    for (int k = 0; k < EX03_BLK_K; ++k) {
                        cr_assert(at2(c.tCsA, i, k) == lay_crd2idx2(LA, (int)m, k),
                                  "thread %d: tCsA(%d,%d) must be sA(%lld,%d), the A element "
                                  "that C(%lld,%lld) needs at k = %d",
                                  t, i, k, m, k, m, n, k);
                        cr_assert(at2(c.tCsB, j, k) == lay_crd2idx2(LB, (int)n, k),
                                  "thread %d: tCsB(%d,%d) must be sB(%lld,%d), the B element "
                                  "that C(%lld,%lld) needs at k = %d",
                                  t, j, k, n, k, m, n, k);
                    }
                }
        }
        for (int e = 0; e < EX03_BLK_M * EX03_BLK_N; ++e)
            cr_assert(owned[e], "C tile element (%d,%d) has no owner", e / EX03_BLK_N,
                      e % EX03_BLK_N);
    }
}

/* ---- the k_tile loop's index logic -------------------------------------------------------- */

Test(kloop, k_tile_count) {
    const int Ks[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 127, 1000, 4093, 4096, 4097};
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; ++i) {
        const int K = Ks[i], want = (K + EX03_BLK_K - 1) / EX03_BLK_K, got = ex03_k_tile_count(K);
        cr_assert(got == want,
                  "ex03_k_tile_count(%d) (TODO 6a) is %d; the k_tiles must hold "
                  "k = 0 .. %d, %d k per k_tile: %d k_tile%s",
                  K, got, K - 1, EX03_BLK_K, want, want == 1 ? "" : "s");
    }
}

/* Every thread's copy predicate, for every k_tile, against where its element really is: thread
 * t sits at (tx,tk) of the given copy thread layout, so element (i,j) of its partition is the
 * tile element (tx + 32 i, tk + 8 j). The inputs are the reference identity partitions. */
static void check_pred(const problem *p, int bx, int by, int which) {
    const char *X = which ? "B" : "A";
    const int rows = which ? p->N : p->M, x0 = which ? by * EX03_BLK_N : bx * EX03_BLK_M;
    const int cpy_x = which ? EX03_CPY_N : EX03_CPY_M;
    const lay_layout thr = ex03_copy_thr_layout(which ? p->b_kmajor : p->a_kmajor);
    const int ktiles = (p->K + EX03_BLK_K - 1) / EX03_BLK_K;
    int tx[EX03_NTHR], tk[EX03_NTHR];
    for (int x = 0; x < 32; ++x)
        for (int k = 0; k < 8; ++k) {
            const int t = (int)lay_crd2idx2(thr, x, k);
            tx[t] = x;
            tk[t] = k;
        }
    for (int t = 0; t < EX03_NTHR; ++t) {
        const ex03_cta r = ref_cta(p, bx, by, t);
        const lay_tensor cx = which ? r.tBcB_n : r.tAcA_m, ck = which ? r.tBcB_k : r.tAcA_k;
        for (int kt = 0; kt < ktiles; ++kt)
            for (int i = 0; i < cpy_x; ++i)
                for (int j = 0; j < EX03_CPY_K; ++j) {
                    const int x = tx[t] + 32 * i, k = tk[t] + 8 * j;
                    const int gx = x0 + x, gk = kt * EX03_BLK_K + k;
                    const int want = gx < rows && gk < p->K;
                    const int got = ex03_copy_pred(cx, ck, i, j, rows - x0, p->K, kt) != 0;
                    cr_assert(got == want,
                              "ex03_copy_pred (TODO 6b), %s (%d x %d x %d), CTA "
                              "(%d,%d), thread %d, k_tile %d, element (%d,%d) = tile element "
                              "(%d,%d) = %s(%d,%d): returned %d, but that element is %s %s",
                              order_name(p), p->M, p->N, p->K, bx, by, t, kt, i, j, x, k, X, gx, gk,
                              got, want ? "inside" : "outside", X);
                }
    }
}

Test(kloop, copy_predicate) {
    const int Ks[] = {33, 1, 8, 7};
    for (int pi = 0; pi < 4; ++pi)
        for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ++ki) {
            problem p = problem_i(pi);
            p = make_problem(p.M, p.N, Ks[ki], p.a_kmajor, p.b_kmajor, 0);
            for (size_t ci = 0; ci < sizeof ctas / sizeof ctas[0]; ++ci) {
                check_pred(&p, ctas[ci][0], ctas[ci][1], 0);
                check_pred(&p, ctas[ci][0], ctas[ci][1], 1);
            }
        }
}
