/* test_layout_tv.c -- Criterion suite for common/layout_tv.h (part of layout.h): point-wise
 * inverse, complement with strides that do not divide, tiled copy, the mma.sync m16n8k16 atom
 * and tiled MMA, ldmatrix derived from the MMA layout, swizzled smem layouts.
 *
 * What is compared with what:
 *   - every point-wise function (the ones kernels call) with the layout the algebra builds on
 *     the host (lay_tiled_copy_tv_tile, lay_tiled_mma_tv_*, lay_ldmatrix_retile), at every
 *     (thread, value);
 *   - the atoms with the PTX ISA fragment tables (9.7.14.5.8, 9.7.14.5.15) and with the
 *     syllabus's worked tables (x1 lane 5, x4 thread 5);
 *   - ldmatrix end to end: a simulation of the instruction (rows supplied by lanes 8q..8q+7,
 *     lane l receives row l/4, cols 2(l%4)+{0,1} of matrix q; .trans the transpose) on a
 *     tagged shared-memory tile, with the row addresses the derivation gives, must deliver
 *     exactly the MMA fragment.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "layout_print.h"

static lay_layout P(const char *s) {
    lay_layout L;
    int rc = lay_parse(s, &L);
    cr_assert_eq(rc, LAY_OK, "parse %s", s);
    return L;
}

static void expect_layout(lay_layout L, const char *want) {
    char buf[512];
    lay_sprint(buf, sizeof buf, L);
    cr_expect_str_eq(buf, want);
}

/* ------------------------------------------------------------------ point-wise inverse */

Test(pointwise, inverse_at_inverts_tv_and_compact_layouts) {
    const char *ls[] = {"((4,8),(2,2,2)):((32,1),(16,8,128))",
                        "((4,8),(2,2)):((16,1),(8,64))",
                        "((4,8),(2,2)):((32,1),(16,8))",
                        "((4,8),(2,4)):((2,8),(1,64))",
                        "((4,8),(2,4)):((16,1),(8,64))",
                        "(64,2):(2,1)",
                        "(4,8):(8,1)",
                        "(3,(2,5)):(10,(1,2))",
                        "(2,4):(1,6)" /* injective with a gap */};
    for (size_t n = 0; n < sizeof ls / sizeof ls[0]; ++n) {
        lay_layout L = P(ls[n]);
        for (int i = 0; i < lay_size(L); ++i)
            cr_expect_eq(lay_inverse_at(L, lay_crd2idx_i(L, i)), i, "%s at %d", ls[n], i);
    }
    /* the docstring examples */
    cr_expect_eq(lay_crd2idx_i(P("((4,8),(2,2)):((32,1),(16,8))"), 9 + 32), 50);
    cr_expect_eq(lay_inverse_at(P("((4,8),(2,2)):((32,1),(16,8))"), 50), 41);
    cr_expect_eq(lay_inverse_at(P("(64,2):(2,1)"), 5), 2 + 64);
    /* stride-0 leaves get coordinate 0 */
    cr_expect_eq(lay_inverse_at(P("((8,4),8):((8,0),1)"), 8 * 5 + 3), 5 + 32 * 3);
}

/* ------------------------------------------------------------------ complement (CuTe rule) */

/* (A, C) is injective and covers [0, M): the defining property of complement(A, M). */
static void check_complement(const char *a, long long M, const char *want) {
    lay_layout A = P(a), C, AC;
    cr_assert_eq(lay_complement(&C, A, M), LAY_OK, "complement(%s, %lld)", a, M);
    expect_layout(C, want);
    cr_assert_eq(lay_make_layout2(&AC, A, C), LAY_OK);
    const int n = lay_size(AC);
    lay_off cos = lay_cosize(AC);
    char *seen = calloc((size_t)cos, 1);
    cr_assert(seen);
    for (int i = 0; i < n; ++i) {
        lay_off o = lay_crd2idx(AC, i);
        cr_assert(o >= 0 && o < cos);
        cr_expect_eq(seen[o], 0, "complement(%s, %lld): offset %lld twice", a, M, o);
        seen[o] = 1;
    }
    free(seen);
    /* C's outermost mode reaches the cotarget: shape*stride of its largest-stride leaf >= M */
    lay_off span = 0;
    for (int k = 0; k < C.n; ++k)
        if ((lay_off)C.shape[k] * C.stride[k] > span) span = (lay_off)C.shape[k] * C.stride[k];
    cr_expect_geq(span, M, "complement(%s, %lld) reaches only %lld", a, M, span);
}

Test(complement, strides_that_do_not_divide) {
    check_complement("(2,3):(1,5)", 30, "(2,2):(2,15)"); /* 5/2 rounds down to 2 */
    check_complement("3:2", 12, "(2,2):(1,6)");
    check_complement("(3,2):(1,4)", 16, "2:8"); /* 4/3 -> 1: the mode disappears */
    check_complement("(2,3):(1,7)", 42, "(3,2):(2,21)");
    check_complement("5:3", 30, "(3,2):(1,15)");
    /* the divisible cases keep their answers (the oracle has more) */
    check_complement("4:2", 24, "(2,3):(1,8)");
    check_complement("(2,2):(1,6)", 24, "(3,2):(2,12)");
}

Test(complement, overlapping_modes_are_refused) {
    lay_layout R;
    cr_expect_eq(lay_complement(&R, P("(2,3):(3,2)"), 24), LAY_E_NOINV); /* 0,2,4 + 0,3 */
    cr_expect(!lay_valid(R));
    cr_expect_eq(lay_complement(&R, P("(2,2):(1,1)"), 8), LAY_E_NOINV);
    cr_expect_eq(lay_complement(&R, P("(3,2):(1,2)"), 12), LAY_E_NOINV); /* 2 in both */
    cr_expect_eq(lay_complement(&R, P("(2,2):(2,3)"), 12), LAY_E_NOINV); /* interleaved */
    cr_expect_eq(lay_left_inverse(&R, P("(2,3):(3,2)")), LAY_E_NOINV);
}

/* ------------------------------------------------------------------ tiled copy */

typedef struct {
    const char *what;
    lay_layout thr, val;
    int blk_m, blk_n;
} copy_case;

static void check_copy(const copy_case *cc) {
    lay_tiled_copy c = lay_make_tiled_copy(cc->thr, cc->val);
    const int nthr = lay_tiled_copy_nthr(c), nval = lay_tiled_copy_nval(c);
    const int reps = lay_tiled_copy_reps(c, cc->blk_m, cc->blk_n);
    cr_assert_gt(reps, 0, "%s", cc->what);
    cr_assert_eq(nthr * nval * reps, cc->blk_m * cc->blk_n, "%s", cc->what);
    lay_layout tv;
    cr_assert_eq(lay_tiled_copy_tv_tile(&tv, c, cc->blk_m, cc->blk_n), LAY_OK, "%s", cc->what);
    cr_assert_eq(lay_size(tv), cc->blk_m * cc->blk_n);
    int *hits = calloc((size_t)(cc->blk_m * cc->blk_n), sizeof(int));
    cr_assert(hits);
    const lay_layout smem = lay_l2(cc->blk_m, cc->blk_n, 1, cc->blk_m + 4);
    for (int t = 0; t < nthr; ++t)
        for (int r = 0; r < reps; ++r)
            for (int v = 0; v < nval; ++v) {
                int m, n;
                lay_tiled_copy_crd(c, cc->blk_m, cc->blk_n, t, v, r, &m, &n);
                cr_assert(m >= 0 && m < cc->blk_m && n >= 0 && n < cc->blk_n, "%s: (%d,%d)",
                          cc->what, m, n);
                /* the kernel's point-wise answer is the algebra's TV layout */
                cr_expect_eq(lay_crd2idx(tv, t + (lay_off)nthr * (v + nval * r)), m + cc->blk_m * n,
                             "%s t=%d v=%d r=%d", cc->what, t, v, r);
                cr_expect_eq(lay_tiled_copy_offset(c, smem, t, v, r), m + (cc->blk_m + 4) * n);
                hits[m + cc->blk_m * n]++;
            }
    for (int e = 0; e < cc->blk_m * cc->blk_n; ++e)
        cr_expect_eq(hits[e], 1, "%s: (%d,%d) moved %d times", cc->what, e % cc->blk_m,
                     e / cc->blk_m, hits[e]);
    free(hits);
    /* the partition (what kernels index) walks the same elements, in the value tile's colex order
   * (= the value index for a column-major value layout), in a tile with any strides */
    const int s0 = 3, s1 = 1000;
    const lay_tensor tile = lay_make_tensor(NULL, lay_l2(cc->blk_m, cc->blk_n, s0, s1));
    const int VM = cc->val.shape[0];
    for (int t = 0; t < nthr; ++t) {
        lay_tensor part;
        cr_assert_eq(lay_tiled_copy_partition(&part, c, tile, t), LAY_OK);
        cr_assert_eq(lay_size(part.layout), nval * reps);
        for (int r = 0; r < reps; ++r)
            for (int j = 0; j < nval; ++j) {
                /* element j of the value tile in colex order, (j % VM, j / VM), is value
         * val(j % VM, j / VM) of the instruction */
                int m, n;
                lay_tiled_copy_crd(c, cc->blk_m, cc->blk_n, t,
                                   (int)lay_crd2idx2(cc->val, j % VM, j / VM), r, &m, &n);
                cr_expect_eq(part.off + lay_crd2idx(part.layout, j + (lay_off)nval * r),
                             (lay_off)m * s0 + (lay_off)n * s1, "%s partition t=%d j=%d r=%d",
                             cc->what, t, j, r);
                cr_expect_eq(lay_tiled_copy_base(c, s0, s1, t) +
                                 lay_tiled_copy_at(c, cc->blk_m, s0, s1, j + nval * r),
                             (lay_off)m * s0 + (lay_off)n * s1);
            }
    }
}

Test(tiled_copy, covers_the_tile_once_and_equals_the_algebra) {
    const copy_case cases[] = {
        /* lesson 04's copies (128 and 256 threads; x = m/n, k) */
        {"K-major LDG.128, 128 thr", lay_l2(64, 2, 2, 1), lay_l2(1, 4, 0, 1), 128, 8},
        {"K-major LDG.128, BLK_K 16", lay_l2(32, 4, 4, 1), lay_l2(1, 4, 0, 1), 128, 16},
        {"x-major LDG.128, 128 thr", lay_l2(32, 4, 1, 32), lay_l2(4, 1, 1, 0), 128, 8},
        {"x-major 4 B, 128 thr", lay_l2(128, 1, 1, 0), lay_l2(1, 1, 0, 0), 128, 8},
        {"K-major 4 B cp.async, 256 thr", lay_l2(32, 8, 8, 1), lay_l2(1, 1, 0, 0), 128, 8},
        {"x-major 4 B, 256 thr", lay_l2(128, 2, 1, 128), lay_l2(1, 1, 0, 0), 256, 8},
        /* a lesson-06-like copy: 16-byte chunks of halves, rows of 64 */
        {"cp.async 16 B halves", lay_l2(32, 8, 8, 1), lay_l2(1, 8, 0, 1), 128, 64},
        /* a value layout whose order is not column-major */
        {"2x2 values row-major", lay_l2(8, 4, 4, 1), lay_l2(2, 2, 2, 1), 32, 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_copy(&cases[i]);
}

Test(tiled_copy, literal_values) {
    lay_tiled_copy c = lay_make_tiled_copy(lay_l2(64, 2, 2, 1), lay_l2(1, 4, 0, 1));
    lay_layout tv;
    cr_assert_eq(lay_tiled_copy_tv(&tv, c), LAY_OK);
    expect_layout(tv, "((2,64),4):((256,1),64)"); /* m + 64*k of the (64,8) copy tile */
    cr_expect_eq(lay_tiled_copy_reps(c, 128, 8), 2);
    cr_expect_eq(lay_tiled_copy_reps(c, 100, 8), 0);
    int m, n;
    lay_tiled_copy_crd(c, 128, 8, 5, 0, 1, &m, &n);
    cr_expect(m == 66 && n == 4, "(%d,%d)", m, n);
    lay_tiled_copy_crd(c, 128, 8, 5, 3, 1, &m, &n);
    cr_expect(m == 66 && n == 7, "(%d,%d)", m, n);
    /* gmem offset with a run-time leading dimension */
    cr_expect_eq(lay_tiled_copy_offset(c, lay_l2(128, 8, 1000, 1), 5, 0, 1), 66 * 1000 + 4);
    lay_tensor p;
    cr_assert_eq(lay_tiled_copy_partition(&p, c, lay_make_tensor(NULL, lay_l2(128, 8, 1, 132)), 5),
                 LAY_OK);
    expect_layout(p.layout, "(1,4,2,1):(1,132,64,1056)");
    cr_expect_eq(p.off, 2 + 4 * 132);
    cr_expect_eq(lay_tiled_copy_partition(&p, c, lay_make_tensor(NULL, lay_l2(100, 8, 1, 132)), 5),
                 LAY_E_ARG);
    lay_layout nested;
    cr_assert_eq(lay_parse("((64,2),8):((1,64),128)", &nested), LAY_OK);
    cr_expect_eq(lay_tiled_copy_partition(&p, c, lay_make_tensor(NULL, nested), 5), LAY_E_RANK);
}

/* ------------------------------------------------------------------ MMA atom (PTX ISA) */

Test(mma_atom, fragments_equal_the_ptx_tables) {
    lay_mma_atom a = lay_mma_atom_m16n8k16();
    cr_expect(a.m == 16 && a.n == 8 && a.k == 16 && a.na == 8 && a.nb == 4 && a.nc == 4);
    expect_layout(lay_tv_layout(&a.a), "((4,8),(2,2,2)):((32,1),(16,8,128))");
    expect_layout(lay_tv_layout(&a.b), "((4,8),(2,2)):((16,1),(8,64))");
    expect_layout(lay_tv_layout(&a.c), "((4,8),(2,2)):((32,1),(16,8))");
    expect_layout(lay_tv_mma_m16n8k16_a(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        for (int v = 0; v < 8; ++v) { /* a0,a1: (g, 2t+{0,1}) a2,a3: g+8  a4..a7: cols +8 */
            int idx = lay_tv_at(&a.a, l, v);
            cr_expect_eq(idx % 16, g + 8 * ((v / 2) % 2));
            cr_expect_eq(idx / 16, 2 * t + v % 2 + 8 * (v / 4));
        }
        for (int v = 0; v < 4; ++v) { /* b0,b1: (k 2t+{0,1}, n g)  b2,b3: k + 8 */
            int idx = lay_tv_at(&a.b, l, v);
            cr_expect_eq(idx % 8, g);
            cr_expect_eq(idx / 8, 2 * t + v % 2 + 8 * (v / 2));
            idx = lay_tv_at(&a.c, l, v); /* c0,c1: (g, 2t+{0,1})  c2,c3: g+8 */
            cr_expect_eq(idx % 16, g + 8 * (v / 2));
            cr_expect_eq(idx / 16, 2 * t + v % 2);
        }
    }
    /* worked example: thread 5 holds A[1][2..3], A[9][2..3], A[1][10..11], A[9][10..11] */
    static const int t5[8][2] = {{1, 2},  {1, 3},  {9, 2},  {9, 3},
                                 {1, 10}, {1, 11}, {9, 10}, {9, 11}};
    for (int v = 0; v < 8; ++v) {
        int idx = lay_tv_at(&a.a, 5, v);
        cr_expect(idx % 16 == t5[v][0] && idx / 16 == t5[v][1], "thread 5 value %d", v);
    }
}

/* ------------------------------------------------------------------ tiled MMA */

typedef struct {
    lay_mma_atom atom;
    lay_layout warps;
    int rm, rn, rk;
} mma_case;

static void check_tiled_mma(const mma_case *mc) {
    const lay_mma_atom at = mc->atom;
    lay_tiled_mma t = lay_make_tiled_mma(at, mc->warps, mc->rm, mc->rn, mc->rk);
    const int WM = mc->warps.shape[0], WN = mc->warps.shape[1];
    const int BM = WM * at.m * mc->rm, BN = WN * at.n * mc->rn, BK = at.k * mc->rk;
    const int NT = 32 * WM * WN;
    lay_layout ta, tb, tc;
    cr_assert_eq(lay_tiled_mma_tv_a(&ta, &t), LAY_OK);
    cr_assert_eq(lay_tiled_mma_tv_b(&tb, &t), LAY_OK);
    cr_assert_eq(lay_tiled_mma_tv_c(&tc, &t), LAY_OK);
    int *hc = calloc((size_t)(BM * BN), sizeof(int)), *ha = calloc((size_t)(BM * BK), sizeof(int));
    int *hb = calloc((size_t)(BN * BK), sizeof(int));
    cr_assert(hc && ha && hb);
    for (int tid = 0; tid < NT; ++tid) {
        int w = lay_inverse_at(mc->warps, tid / 32), wm = w % WM, wn = w / WM;
        for (int v = 0; v < at.nc * mc->rm * mc->rn; ++v) {
            int m, n;
            lay_tiled_mma_c_crd(&t, tid, v, &m, &n);
            cr_assert(m >= 0 && m < BM && n >= 0 && n < BN);
            cr_expect_eq(lay_crd2idx(tc, tid + (lay_off)NT * v), m + BM * n, "C tid %d v %d", tid,
                         v);
            /* inside the warp's tile, in atom (i, j) */
            cr_expect_eq(m / (at.m * mc->rm), wm);
            cr_expect_eq(n / (at.n * mc->rn), wn);
            cr_expect_eq((m % (at.m * mc->rm)) / at.m, (v / at.nc) % mc->rm);
            cr_expect_eq((n % (at.n * mc->rn)) / at.n, (v / at.nc) / mc->rm);
            hc[m + BM * n]++;
        }
        for (int v = 0; v < at.na * mc->rm * mc->rk; ++v) {
            int m, k;
            lay_tiled_mma_a_crd(&t, tid, v, &m, &k);
            cr_assert(m >= 0 && m < BM && k >= 0 && k < BK);
            cr_expect_eq(lay_crd2idx(ta, tid + (lay_off)NT * v), m + BM * k, "A tid %d v %d", tid,
                         v);
            ha[m + BM * k]++;
        }
        for (int v = 0; v < at.nb * mc->rn * mc->rk; ++v) {
            int n, k;
            lay_tiled_mma_b_crd(&t, tid, v, &n, &k);
            cr_assert(n >= 0 && n < BN && k >= 0 && k < BK);
            cr_expect_eq(lay_crd2idx(tb, tid + (lay_off)NT * v), n + BN * k, "B tid %d v %d", tid,
                         v);
            hb[n + BN * k]++;
        }
    }
    /* C owned once; an A element is held by every thread whose C rows need it: the WN warps of
   * its row times the lanes of a lane row (at.n / at.nb of them: 1 for the Tensor Core atom,
   * whose B values are spread over lanes; LN for the FMA atom). Likewise for B. */
    const int share_a = WN * (at.k == 1 ? at.n / at.nb : 1);
    const int share_b = WM * (at.k == 1 ? at.m / at.na : 1);
    /* the partitions (what kernels index) agree with the coordinates, in tiles with any strides */
    const int s0 = 3, s1 = 1000;
    for (int tid = 0; tid < NT; ++tid) {
        lay_tensor pa, pb, pc;
        cr_assert_eq(
            lay_tiled_mma_partition_a(&pa, &t, lay_make_tensor(NULL, lay_l2(BM, BK, s0, s1)), tid),
            LAY_OK);
        cr_assert_eq(
            lay_tiled_mma_partition_b(&pb, &t, lay_make_tensor(NULL, lay_l2(BN, BK, s0, s1)), tid),
            LAY_OK);
        cr_assert_eq(
            lay_tiled_mma_partition_c(&pc, &t, lay_make_tensor(NULL, lay_l2(BM, BN, s0, s1)), tid),
            LAY_OK);
        cr_assert_eq(lay_size(pa.layout), at.na * mc->rm * mc->rk);
        cr_assert_eq(lay_size(pc.layout), at.nc * mc->rm * mc->rn);
        for (int v = 0; v < at.na * mc->rm * mc->rk; ++v) {
            int m, k;
            lay_tiled_mma_a_crd(&t, tid, v, &m, &k);
            cr_expect_eq(pa.off + lay_crd2idx(pa.layout, v), (lay_off)m * s0 + (lay_off)k * s1,
                         "partition A tid %d v %d", tid, v);
            cr_expect_eq(lay_tiled_mma_base_a(&t, s0, s1, tid) + lay_tiled_mma_at_a(&t, s0, s1, v),
                         (lay_off)m * s0 + (lay_off)k * s1);
        }
        for (int v = 0; v < at.nb * mc->rn * mc->rk; ++v) {
            int n, k;
            lay_tiled_mma_b_crd(&t, tid, v, &n, &k);
            cr_expect_eq(pb.off + lay_crd2idx(pb.layout, v), (lay_off)n * s0 + (lay_off)k * s1,
                         "partition B tid %d v %d", tid, v);
            cr_expect_eq(lay_tiled_mma_base_b(&t, s0, s1, tid) + lay_tiled_mma_at_b(&t, s0, s1, v),
                         (lay_off)n * s0 + (lay_off)k * s1);
        }
        for (int v = 0; v < at.nc * mc->rm * mc->rn; ++v) {
            int m, n;
            lay_tiled_mma_c_crd(&t, tid, v, &m, &n);
            cr_expect_eq(pc.off + lay_crd2idx(pc.layout, v), (lay_off)m * s0 + (lay_off)n * s1,
                         "partition C tid %d v %d", tid, v);
            cr_expect_eq(lay_tiled_mma_base_c(&t, s0, s1, tid) + lay_tiled_mma_at_c(&t, s0, s1, v),
                         (lay_off)m * s0 + (lay_off)n * s1);
        }
    }
    for (int e = 0; e < BM * BN; ++e) cr_expect_eq(hc[e], 1);
    for (int e = 0; e < BM * BK; ++e) cr_expect_eq(ha[e], share_a);
    for (int e = 0; e < BN * BK; ++e) cr_expect_eq(hb[e], share_b);
    free(hc);
    free(ha);
    free(hb);
}

Test(tiled_mma, fragments_cover_the_cta_tile_and_equal_the_algebra) {
    const lay_mma_atom hmma = lay_mma_atom_m16n8k16();
    const mma_case cases[] = {
        {hmma, lay_l2(2, 4, 4, 1), 4, 4,
         2}, /* 128x128x32, 8 warps of 64x32, warp w at (w/4, w%4) */
        {hmma, lay_l2(2, 2, 1, 2), 4, 8, 4}, /* 128x128x64, 4 warps of 64x64, column-major warps */
        {hmma, lay_l2(4, 2, 2, 1), 2, 8, 1}, /* 128x128x16, 8 warps of 32x64 */
        {hmma, lay_l2(1, 1, 1, 1), 1, 1, 1}, /* one atom */
        /* FFMA: lesson 04's 8 warps of 32x64 (lanes 4x8, 8x8 per thread) and 4 warps of 64x64
       * (lanes 4x8, 16x8 per thread) */
        {lay_mma_atom_fma(4, 8, 4, 4), lay_l2(4, 2, 2, 1), 2, 2, 8},
        {lay_mma_atom_fma(4, 8, 4, 4), lay_l2(2, 2, 2, 1), 4, 2, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_tiled_mma(&cases[i]);
}

Test(tiled_mma, fma_atom_is_lesson_04s_thread_tile) {
    lay_mma_atom a = lay_mma_atom_fma(4, 8, 4, 4);
    expect_layout(lay_tv_layout(&a.c), "((8,4),(4,4)):((64,4),(1,16))");
    cr_expect(a.m == 16 && a.n == 32 && a.k == 1 && a.na == 4 && a.nb == 4 && a.nc == 16);
    /* lane l at (l/8, l%8) owns rows 4(l/8)+0..3, columns 4(l%8)+0..3 */
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 16; ++v) {
            int idx = lay_tv_at(&a.c, l, v);
            cr_expect_eq(idx % 16, 4 * (l / 8) + v % 4);
            cr_expect_eq(idx / 16, 4 * (l % 8) + v / 4);
            if (v < 4) {
                cr_expect_eq(lay_tv_at(&a.a, l, v), 4 * (l / 8) + v);
                cr_expect_eq(lay_tv_at(&a.b, l, v), 4 * (l % 8) + v);
            }
        }
}

Test(pointwise, tv_crd2idx_is_crd2idx_mode_by_mode) {
    const lay_mma_atom as[2] = {lay_mma_atom_m16n8k16(), lay_mma_atom_fma(8, 4, 2, 4)};
    for (int i = 0; i < 2; ++i) {
        const lay_tv *ls[3] = {&as[i].a, &as[i].b, &as[i].c};
        const int nv[3] = {as[i].na, as[i].nb, as[i].nc};
        for (int j = 0; j < 3; ++j) {
            const lay_layout L = lay_tv_layout(ls[j]);
            cr_expect_eq(lay_tv_nthr(ls[j]), 32);
            cr_expect_eq(lay_tv_nval(ls[j]), nv[j]);
            for (int t = 0; t < 32; ++t)
                for (int v = 0; v < nv[j]; ++v) {
                    const int e = lay_crd2idx_i(L, t + 32 * v);
                    cr_expect_eq(lay_tv_crd2idx(L, 32, t, v), e);
                    cr_expect_eq(lay_tv_at(ls[j], t, v), e);
                    int tt, vv;
                    lay_tv_inverse_at(ls[j], e, &tt, &vv);
                    if (lay_tv_nval(ls[j]) * 32 == lay_size(L) && (j != 0 || i == 0) &&
                        (j != 1 || i == 0))
                        cr_expect(tt == t && vv == v, "inverse atom %d tv %d (%d,%d)", i, j, t, v);
                }
        }
    }
    for (int x = 1; x <= 4; x *= 2)
        for (int t = 0; t < 32; ++t)
            for (int v = 0; v < 8; ++v)
                cr_expect_eq(lay_tv_crd2idx(lay_tv_ldmatrix_src(x), 32, t, v),
                             lay_crd2idx_i(lay_tv_ldmatrix_src(x), t + 32 * v));
    cr_expect_eq(lay_tv_crd2idx(P("((4,8),(2,2)):((32,1),(16,8))"), 32, 9, 1), 50);
    /* a last value leaf is unbounded, as in lay_crd2idx */
    cr_expect_eq(lay_tv_crd2idx(P("(4,2):(1,4)"), 4, 3, 5), 3 + 20);
}

Test(tiled_mma, literal_values) {
    lay_tiled_mma t = lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 4, 4, 1), 4, 4, 2);
    int m, k, n;
    lay_tiled_mma_a_crd(&t, 37, 8 * (1 + 4 * 1) + 3, &m, &k); /* warp 1 = (0,1), lane 5, a3 */
    cr_expect(m == 25 && k == 19, "(%d,%d)", m, k);
    lay_tiled_mma_c_crd(&t, 32 * 6 + 9, 4 * (2 + 4 * 3) + 1, &m, &n); /* warp 6 = (1,2), lane 9 */
    cr_expect(m == 64 + 32 + 2 && n == 64 + 24 + 3, "(%d,%d)", m, n);
    lay_tiled_mma_b_crd(&t, 32 * 6 + 9, 4 * (3 + 4 * 1) + 2, &n, &k); /* b2 of atom (j 3, kk 1) */
    cr_expect(n == 64 + 24 + 2 && k == 16 + 2 + 8, "(%d,%d)", n, k);
    lay_tiled_mma f = lay_make_tiled_mma(lay_mma_atom_fma(4, 8, 4, 4), lay_l2(2, 2, 2, 1), 4, 2, 8);
    lay_tensor pa, pb;
    cr_assert_eq(
        lay_tiled_mma_partition_a(&pa, &f, lay_make_tensor(NULL, lay_l2(128, 8, 1, 132)), 37),
        LAY_OK);
    cr_assert_eq(
        lay_tiled_mma_partition_b(&pb, &f, lay_make_tensor(NULL, lay_l2(128, 8, 1, 132)), 37),
        LAY_OK);
    expect_layout(pa.layout, "(4,4,8):(1,16,132)");
    cr_expect(pa.off == 0 && pb.off == 64 + 20, "%lld %lld", pa.off, pb.off);
    lay_layout tc;
    cr_assert_eq(lay_tiled_mma_tv_c(&tc, &t), LAY_OK);
    expect_layout(tc, "(((4,8),(4,2)),((2,2),(4,4))):(((256,1),(4096,64)),((128,8),(16,1024)))");
}

/* ------------------------------------------------------------------ ldmatrix atoms */

Test(ldmatrix, atoms_equal_the_ptx_tables) {
    expect_layout(lay_tv_ldmatrix_src(1), "((8,4),8):((8,0),1)");
    expect_layout(lay_tv_ldmatrix_src(2), "((16,2),8):((8,0),1)");
    expect_layout(lay_tv_ldmatrix_src(4), "(32,8):(8,1)");
    expect_layout(lay_tv_ldmatrix_dst(1, 0), "((4,8),2):((2,8),1)");
    expect_layout(lay_tv_ldmatrix_dst(4, 0), "((4,8),(2,4)):((2,8),(1,64))");
    expect_layout(lay_tv_ldmatrix_dst(2, 1), "((4,8),(2,2)):((16,1),(8,64))");
    cr_expect(!lay_valid(lay_tv_ldmatrix_src(3)));
    cr_expect(!lay_valid(lay_tv_ldmatrix_dst(8, 0)));
    for (int x = 1; x <= 4; x *= 2)
        for (int tr = 0; tr < 2; ++tr) {
            lay_layout src = lay_tv_ldmatrix_src(x), dst = lay_tv_ldmatrix_dst(x, tr);
            for (int l = 0; l < 32; ++l) {
                for (int v = 0; v < 8;
                     ++v) { /* lane l supplies row l (mod 8x), 8 contiguous halves */
                    int e = lay_crd2idx_i(src, l + 32 * v);
                    cr_expect_eq(e, 8 * (l % (8 * x)) + v);
                }
                for (int v = 0; v < 2 * x; ++v) { /* register q = v/2 is matrix q */
                    int e = lay_crd2idx_i(dst, l + 32 * v), q = v / 2, j = v % 2;
                    int row = tr ? 2 * (l % 4) + j : l / 4, col = tr ? l / 4 : 2 * (l % 4) + j;
                    cr_expect_eq(e, col + 8 * (8 * q + row), "x%d trans %d lane %d v %d", x, tr, l,
                                 v);
                }
            }
        }
    /* worked example: .x1 lane 5 receives row 1, cols 2-3 */
    cr_expect_eq(lay_crd2idx_i(lay_tv_ldmatrix_dst(1, 0), 5), 8 * 1 + 2);
    cr_expect_eq(lay_crd2idx_i(lay_tv_ldmatrix_dst(1, 0), 5 + 32), 8 * 1 + 3);
    /* .x4 thread 5: d0..d3 = rows 1, 1 (matrix 1 = rows 8..15 of A: 9), ... (worked example) */
    for (int q = 0; q < 4; ++q)
        for (int j = 0; j < 2; ++j) {
            int e = lay_crd2idx_i(lay_tv_ldmatrix_dst(4, 0), 5 + 32 * (2 * q + j));
            cr_expect_eq(e, 8 * (8 * q + 1) + 2 + j);
        }
}

/* ------------------------------------------------------------------ ldmatrix derived */

/* Simulate one ldmatrix.x{x}[.trans] of a warp: addr[l] is the element offset in smem of the
 * row lane l supplies; out[l][v] receives the element of value v (half v%2 of register v/2).
 * The PTX ISA's description, written independently of the layouts under test. */
static void sim_ldmatrix(int x, int trans, const int *smem, const int addr[32], int out[32][8]) {
    for (int l = 0; l < 32; ++l)
        for (int q = 0; q < x; ++q)
            for (int j = 0; j < 2; ++j) {
                int row = trans ? 2 * (l % 4) + j : l / 4, col = trans ? l / 4 : 2 * (l % 4) + j;
                out[l][2 * q + j] = smem[addr[8 * q + row] + col];
            }
}

Test(ldmatrix, retile_equals_the_point_wise_derivation) {
    lay_layout k8;
    cr_assert_eq(lay_parse("((4,8),2):((16,1),8)", &k8), LAY_OK); /* B of m16n8k8: n + 8k */
    struct {
        int x, trans;
        lay_layout op;
        const char *want;
    } cs[] = {
        {4, 0, lay_tv_mma_m16n8k16_a(), "((16,2),8):((1,128),16)"},
        {4, 1, lay_tv_mma_m16n8k16_a(), "((8,2,2),8):((16,8,128),1)"},
        {2, 0, lay_tv_mma_m16n8k16_b(), "((8,2,2),8):((1,64,0),8)"},
        {2, 1, lay_tv_mma_m16n8k16_b(), "((16,2),8):((8,0),1)"},
        {1, 0, k8, "((8,4),8):((1,0),8)"},
        {1, 1, k8, "((8,4),8):((8,0),1)"},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; ++c) {
        lay_layout R;
        cr_assert_eq(lay_ldmatrix_retile(&R, cs[c].x, cs[c].trans, cs[c].op), LAY_OK);
        expect_layout(R, cs[c].want);
        for (int l = 0; l < 32; ++l)
            for (int v = 0; v < 8; ++v)
                cr_expect_eq(lay_ldmatrix_src_at(cs[c].x, cs[c].trans, cs[c].op, l, v),
                             lay_crd2idx_i(R, l + 32 * v), "case %zu lane %d v %d", c, l, v);
    }
    /* the syllabus's form: x4 for A is ((8,2,2),8):((1,8,128),16) as a function */
    lay_layout R, want = P("((8,2,2),8):((1,8,128),16)");
    cr_assert_eq(lay_ldmatrix_retile(&R, 4, 0, lay_tv_mma_m16n8k16_a()), LAY_OK);
    for (int i = 0; i < 256; ++i) cr_expect_eq(lay_crd2idx(R, i), lay_crd2idx(want, i));
    cr_expect_eq(lay_ldmatrix_retile(&R, 3, 0, lay_tv_mma_m16n8k16_a()), LAY_E_ARG);
}

/* End to end on one atom: smem holds the operand tile tagged with each element's operand
 * index; the derived rows, fed to the simulated instruction, must deliver op_tv exactly.
 * Non-trans: the operand tile is stored with its column mode (k) contiguous, rows of 8*.. ;
 * trans: with its row mode (m / n) contiguous. */
static void check_atom_ldsm(int x, int trans, lay_layout op, int rows, int cols) {
    int *smem = malloc(sizeof(int) * (size_t)(rows * cols));
    cr_assert(smem);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) smem[trans ? c * rows + r : r * cols + c] = r + rows * c;
    int addr[32], out[32][8];
    for (int l = 0; l < 32; ++l) {
        int idx = lay_ldmatrix_src_at(x, trans, op, l, 0), r = idx % rows, c = idx / rows;
        addr[l] = trans ? c * rows + r : r * cols + c;
        for (int v = 1; v < 8; ++v) /* the row is 8 contiguous halves of smem */
            cr_expect_eq(lay_ldmatrix_src_at(x, trans, op, l, v), idx + (trans ? v : rows * v));
    }
    sim_ldmatrix(x, trans, smem, addr, out);
    for (int l = 0; l < 32; ++l)
        for (int v = 0; v < 2 * x; ++v)
            cr_expect_eq(out[l][v], lay_crd2idx_i(op, l + 32 * v), "x%d trans %d lane %d v %d", x,
                         trans, l, v);
    free(smem);
}

Test(ldmatrix, derived_rows_deliver_the_mma_fragment) {
    lay_layout k8 = P("((4,8),2):((16,1),8)");
    for (int tr = 0; tr < 2; ++tr) {
        check_atom_ldsm(4, tr, lay_tv_mma_m16n8k16_a(), 16, 16);
        check_atom_ldsm(2, tr, lay_tv_mma_m16n8k16_b(), 8, 16);
        check_atom_ldsm(1, tr, k8, 8, 8);
    }
}

/* Over a tiled MMA: every warp, every q: the simulated ldmatrix with the rows
 * lay_tiled_ldmatrix_*_crd gives delivers fragment values [2x q, 2x q + 2x) of every lane. */
static void check_tiled_ldsm(lay_tiled_mma t, int x, int trans, int operand_b) {
    const int WM = t.ws[0], WN = t.ws[1];
    const int R = operand_b ? WN * 8 * t.rep_n : WM * 16 * t.rep_m, K = 16 * t.rep_k;
    const int nq = (operand_b ? 4 * t.rep_n : 8 * t.rep_m) * t.rep_k / (2 * x);
    int *smem = malloc(sizeof(int) * (size_t)(R * K));
    cr_assert(smem);
    for (int r = 0; r < R; ++r)
        for (int k = 0; k < K; ++k) smem[trans ? k * R + r : r * K + k] = r + R * k;
    for (int w = 0; w < WM * WN; ++w)
        for (int q = 0; q < nq; ++q) {
            int addr[32], out[32][8];
            for (int l = 0; l < 32; ++l) {
                int r, k;
                if (operand_b) lay_tiled_ldmatrix_b_crd(&t, x, trans, 32 * w + l, q, &r, &k);
                else lay_tiled_ldmatrix_a_crd(&t, x, trans, 32 * w + l, q, &r, &k);
                addr[l] = trans ? k * R + r : r * K + k;
                cr_assert(trans ? (r % 8 == 0) : (k % 8 == 0), "16-byte aligned rows");
            }
            sim_ldmatrix(x, trans, smem, addr, out);
            for (int l = 0; l < 32; ++l)
                for (int v = 0; v < 2 * x; ++v) {
                    int r, k;
                    if (operand_b) lay_tiled_mma_b_crd(&t, 32 * w + l, 2 * x * q + v, &r, &k);
                    else lay_tiled_mma_a_crd(&t, 32 * w + l, 2 * x * q + v, &r, &k);
                    cr_expect_eq(out[l][v], r + R * k, "%c x%d trans %d warp %d q %d lane %d v %d",
                                 operand_b ? 'B' : 'A', x, trans, w, q, l, v);
                }
        }
    free(smem);
}

Test(ldmatrix, tiled_over_the_mma_delivers_every_fragment) {
    lay_tiled_mma t = lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 4, 4, 1), 4, 4, 2);
    lay_tiled_mma u = lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 2, 1, 2), 2, 8, 4);
    for (int tr = 0; tr < 2; ++tr) {
        check_tiled_ldsm(t, 4, tr, 0);
        check_tiled_ldsm(t, 4, tr, 1);
        check_tiled_ldsm(t, 2, tr, 1);
        check_tiled_ldsm(u, 4, tr, 0);
        check_tiled_ldsm(u, 4, tr, 1);
    }
    int m, k;
    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 37, 0, &m, &k); /* warp 1 (wm 0), lane 5: row 5, k 0 */
    cr_expect(m == 5 && k == 0);
    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 32 + 21, 0, &m, &k);
    cr_expect(m == 5 && k == 8);
    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 4 * 32 + 10, 1 + 4 * 1, &m,
                             &k); /* warp 4: wm 1, i 1, kk 1 */
    cr_expect(m == 64 + 16 + 10 && k == 16, "(%d,%d)", m, k);
}

/* ------------------------------------------------------------------ swizzle */

Test(swizzle, the_128_byte_rule_per_element_size) {
    lay_swizzle sw, sb;
    cr_assert_eq(lay_swizzle_sw(&sw, 128, 2), LAY_OK);
    cr_expect(sw.b == 3 && sw.m == 3 && sw.s == 3);
    cr_assert_eq(lay_swizzle_sw(&sw, 64, 2), LAY_OK);
    cr_expect(sw.b == 2 && sw.m == 3 && sw.s == 3);
    cr_assert_eq(lay_swizzle_sw(&sw, 32, 4), LAY_OK);
    cr_expect(sw.b == 1 && sw.m == 2 && sw.s == 3);
    cr_expect_eq(lay_swizzle_sw(&sw, 96, 2), LAY_E_ARG);
    cr_expect_eq(lay_swizzle_sw(&sw, 128, 3), LAY_E_ARG);
    cr_expect(sw.b == 0 && sw.m == 0 && sw.s == 0);
    /* the same permutation of bytes whatever the element size */
    cr_assert_eq(lay_swizzle_sw(&sb, 128, 1), LAY_OK);
    cr_expect(sb.b == 3 && sb.m == 4 && sb.s == 3);
    const int sizes[4] = {2, 4, 8, 16};
    for (int s = 0; s < 4; ++s) {
        cr_assert_eq(lay_swizzle_sw(&sw, 128, sizes[s]), LAY_OK);
        for (int x = 0; x < 4096; ++x)
            cr_expect_eq(lay_swizzle_apply(sw, x) * sizes[s], lay_swizzle_apply(sb, x * sizes[s]));
    }
}

/* Sw<3,3,3> o (128,64):(64,1) (a K-major fp16 tile, 128-byte rows): a bijection, and the 8
 * rows of every ldmatrix phase (8 lanes) fall in 8 different 16-byte bank groups. */
Test(swizzle, swizzled_tile_is_conflict_free_for_ldmatrix) {
    lay_swizzle sw;
    cr_assert_eq(lay_swizzle_sw(&sw, 128, 2), LAY_OK);
    lay_swizzled S = lay_make_swizzled(sw, lay_l2(128, 64, 64, 1));
    static char seen[128 * 64];
    memset(seen, 0, sizeof seen);
    for (int m = 0; m < 128; ++m)
        for (int k = 0; k < 64; ++k) {
            lay_off o = lay_swizzled_crd2idx2(S, m, k);
            cr_assert(o >= 0 && o < 128 * 64);
            cr_expect_eq(seen[o], 0);
            seen[o] = 1;
            if (k % 8 == 0) cr_expect_eq(o % 8, 0); /* 16-byte chunks stay whole */
        }
    lay_tiled_mma t = lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 4, 4, 1), 4, 4, 4);
    for (int w = 0; w < 8; ++w)
        for (int q = 0; q < 16; ++q)
            for (int phase = 0; phase < 4; ++phase) {
                int used = 0;
                for (int l = 8 * phase; l < 8 * phase + 8; ++l) {
                    int m, k;
                    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 32 * w + l, q, &m, &k);
                    int group = (int)((lay_swizzled_crd2idx2(S, m, k) * 2 / 16) % 8);
                    cr_expect_eq(used & (1 << group), 0, "warp %d q %d phase %d: group %d twice", w,
                                 q, phase, group);
                    used |= 1 << group;
                }
            }
    /* without the swizzle all 8 rows of a phase share one group */
    lay_layout plain = lay_l2(128, 64, 64, 1);
    int m0, k0, m1, k1;
    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 0, 0, &m0, &k0);
    lay_tiled_ldmatrix_a_crd(&t, 4, 0, 1, 0, &m1, &k1);
    cr_expect_eq((lay_crd2idx2(plain, m0, k0) * 2 / 16) % 8,
                 (lay_crd2idx2(plain, m1, k1) * 2 / 16) % 8);
}
