/*
 * layout_tv.h -- thread/value (TV) layouts and the composites kernels index through:
 * tiled copy, the mma.sync m16n8k16 atom and a tiled MMA over warps, ldmatrix derived from the
 * MMA layout, swizzled shared-memory layouts. Part of common/layout.h (which includes this
 * file at its end; including either one gives everything).
 *
 * TV LAYOUT
 *   A TV layout maps (thread, value) -> the index of an element in a coordinate space, e.g.
 *   the mma A fragment ((4,8),(2,2,2)):((32,1),(16,8,128)) maps (lane, value) to m + 16*k of
 *   the column-major 16x16 (M,K) tile. Mode 0 is the thread, mode 1 the value; the 1-D index
 *   of (t, v) is t + size(mode 0)*v, so a TV layout is evaluated with the 1-D lay_crd2idx
 *   (or lay_crd2idx_i) at t + nthr*v, which folds for nested layouts too.
 *
 * HOW IT STAYS FREE ON THE GPU
 *   Host code builds derived layouts with the algebra (composition, right_inverse,
 *   raked_product: lay_tiled_copy_tv, lay_ldmatrix_retile, lay_tiled_mma_tv_*), for printing
 *   and for the tests. Kernels evaluate the same definitions point by point: a composition
 *   A o B at i is A(B(i)), a right inverse at e is lay_inverse_at(L, e). Every layout involved
 *   is a constant built by a by-value constructor (lay_l2, lay_tv_*), so nvcc folds each
 *   evaluation to shifts, masks and adds of the thread index (tests/test_zero_cost.sh,
 *   tests/test_sass.sh). tests/test_layout.c checks that the point-wise functions equal the
 *   layouts the algebra builds, and those equal the PTX ISA tables.
 *
 * UNITS
 *   Indices inside an atom, a copy tile or a CTA tile are 32-bit ints (a tile is far below
 *   2^31 elements); offsets into a whole matrix stay lay_off. Thread and value layouts of a
 *   tiled copy and the warp layout of a tiled MMA are flat (lay_l1 / lay_l2).
 *
 * Sources of the hardware facts: PTX ISA (9.x numbering) 9.7.14.5.8 "Matrix Fragments for
 * mma.m16n8k16 with floating point type" and 9.7.14.5.15 "Warp-level matrix load instruction:
 * ldmatrix".
 */
#ifndef LAY_LAYOUT_TV_H
#define LAY_LAYOUT_TV_H

#include "layout.h"

/* ======================================================================================
 * Point-wise evaluation
 * ====================================================================================== */

/* Quotient and remainder of non-negative ints as unsigned operations: thread and value indices
 * are never negative, and unsigned division by a power of two is a single shift/mask (signed
 * division needs a sign fix-up the compiler cannot always drop). */
LAY_HD static inline int lay__udiv(int a, int b) { return (int)((unsigned)a / (unsigned)b); }
LAY_HD static inline int lay__umod(int a, int b) { return (int)((unsigned)a % (unsigned)b); }

/* lay_crd2idx_i: lay_crd2idx in 32-bit int arithmetic, for indices inside a tile or atom
 * (size and cosize of L below 2^31; i >= 0).
 *   e.g. crd2idx_i(((4,8),(2,2)):((32,1),(16,8)), 9 + 32*1) == 32 + 2 + 16 == 50 */
LAY_HD static inline int lay_crd2idx_i(lay_layout L, int i) {
    int off = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            if (k == L.n - 1) {
                off += i * L.stride[k];
            } else {
                off += lay__umod(i, L.shape[k]) * L.stride[k];
                i = lay__udiv(i, L.shape[k]);
            }
        }
    return off;
}

/* lay_inverse_at: the 1-D index i < size(L) with L(i) == e, for e in the image of L: CuTe's
 * right_inverse(L) (equally left_inverse(L)) evaluated at the one point e, nothing built.
 * Leaf k of L gets coordinate (e / stride_k) % shape_k; i = sum over k of that coordinate
 * times the product of the shapes before leaf k. Stride-0 and size-1 leaves get 0.
 * Precondition (not checked): L injective and its strides chain, i.e. in stride order each
 * stride is a multiple of shape*stride of the leaf before it -- true of every TV layout, every
 * compact layout and every layout with a complement whose modes divide. e outside the image
 * gives an unspecified index < size(L).
 *   e.g. inverse_at(((4,8),(2,2)):((32,1),(16,8)), 50) == 41  (lane 9, value 1 of the C atom)
 *        inverse_at((64,2):(2,1), 5) == 2 + 64*1            (thread 5 sits at (2,1)) */
LAY_HD static inline int lay_inverse_at(lay_layout L, int e) {
    int i = 0, p = 1;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            if (L.stride[k] > 0 && L.shape[k] > 1)
                i += lay__umod(lay__udiv(e, L.stride[k]), L.shape[k]) * p;
            p *= L.shape[k];
        }
    return i;
}

/* lay_tv_crd2idx: a TV layout at (thread t, value v), its thread mode holding nthr threads:
 * lay_crd2idx_i(L, t + nthr*v) for 0 <= t < nthr, computed mode by mode (a leaf whose prefix
 * product is below nthr takes its coordinate from t, the others from v), so that a constant v
 * folds to an immediate while the thread part stays one expression of t.
 *   e.g. tv_crd2idx(((4,8),(2,2)):((32,1),(16,8)), 32, 9, 1) == 50 */
LAY_HD static inline int lay_tv_crd2idx(lay_layout L, int nthr, int t, int v) {
    int off = 0, p = 1;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            const int s = L.shape[k];
            if (p < nthr) off += lay__umod(lay__udiv(t, p), s) * L.stride[k];
            else if (k == L.n - 1) off += lay__udiv(v, p / nthr) * L.stride[k];
            else off += lay__umod(lay__udiv(v, p / nthr), s) * L.stride[k];
            p *= s;
        }
    return off;
}

/* ======================================================================================
 * Compact TV layouts (what kernels evaluate)
 * ====================================================================================== */

/* lay_tv: the leaves of a TV layout ((t0,..,t[nt-1]),(v0,..,v[nv-1])), thread leaves first,
 * in a small struct (at most LAY_TV_MAX leaves). The atoms below are stored this way so that
 * kernels, which evaluate them at every thread index, carry a few ints instead of a full
 * lay_layout; lay_tv_layout gives the layout itself (printing, the algebra). */
#define LAY_TV_MAX 8
typedef struct {
    int nt, nv;        /* thread leaves, value leaves */
    int s[LAY_TV_MAX]; /* shapes  */
    int d[LAY_TV_MAX]; /* strides */
} lay_tv;

/* lay_tv_at and lay_tv_inverse_at treat the LAY_TV_MAX leaves one by one with literal indices
 * (a helper per leaf, called for leaf 0..7) instead of a loop: nvcc then folds them as soon as
 * they are inlined, before loops are unrolled, which keeps big kernels quick to compile. (The
 * constructor keeps its loop: unrolled, it changed how ptxas allocated lesson 04's registers
 * and made it spill.) */
#define LAY__TV_EACH(F) F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7)

/* A lay_tv from literal leaves (nt + nv <= LAY_TV_MAX). */
LAY_HD static inline lay_tv lay__tv(int nt, int nv, const int *s, const int *d) {
    lay_tv t;
    t.nt = nt;
    t.nv = nv;
    LAY_UNROLL
    for (int i = 0; i < LAY_TV_MAX; ++i) {
        t.s[i] = i < nt + nv ? s[i] : 1;
        t.d[i] = i < nt + nv ? d[i] : 0;
    }
    return t;
}

/* lay_tv_nthr / lay_tv_nval: the sizes of the thread and value modes. */
LAY_HD static inline int lay_tv_nthr(const lay_tv *tv) {
    int p = 1;
#define LAY__TV_NT(i) \
    if (i < tv->nt) p *= tv->s[i];
    LAY__TV_EACH(LAY__TV_NT)
#undef LAY__TV_NT
    return p;
}
LAY_HD static inline int lay_tv_nval(const lay_tv *tv) {
    int p = 1;
#define LAY__TV_NV(i) \
    if (i >= tv->nt && i < tv->nt + tv->nv) p *= tv->s[i];
    LAY__TV_EACH(LAY__TV_NV)
#undef LAY__TV_NV
    return p;
}

/* One leaf of lay_tv_at: leaf i takes its coordinate from t (thread leaves) or v. */
LAY_HD static inline void lay__tv_at_leaf(const lay_tv *tv, int i, int *t, int *v, int *off) {
    if (i < tv->nt) {
        *off += (i == tv->nt - 1 ? *t : lay__umod(*t, tv->s[i])) * tv->d[i];
        *t = lay__udiv(*t, tv->s[i]);
    } else if (i < tv->nt + tv->nv) {
        *off += (i == tv->nt + tv->nv - 1 ? *v : lay__umod(*v, tv->s[i])) * tv->d[i];
        *v = lay__udiv(*v, tv->s[i]);
    }
}

/* lay_tv_at: the TV layout at (thread t, value v), 0 <= t < nthr, mode by mode (the thread part
 * depends on t only, the value part on v only: a constant v folds to an immediate); the last
 * value leaf is unbounded, as in lay_crd2idx.  == lay_tv_crd2idx(lay_tv_layout(tv), nthr, t, v) */
LAY_HD static inline int lay_tv_at(const lay_tv *tv, int t, int v) {
    int off = 0;
#define LAY__TV_AT(i) lay__tv_at_leaf(tv, i, &t, &v, &off);
    LAY__TV_EACH(LAY__TV_AT)
#undef LAY__TV_AT
    return off;
}

/* One leaf of lay_tv_inverse_at. */
LAY_HD static inline void lay__tv_inv_leaf(const lay_tv *tv, int i, int e, int *t, int *v, int *pt,
                                           int *pv) {
    if (i < tv->nt + tv->nv) {
        const int c =
            (tv->d[i] > 0 && tv->s[i] > 1) ? lay__umod(lay__udiv(e, tv->d[i]), tv->s[i]) : 0;
        if (i < tv->nt) {
            *t += c * *pt;
            *pt *= tv->s[i];
        } else {
            *v += c * *pv;
            *pv *= tv->s[i];
        }
    }
}

/* lay_tv_inverse_at: (thread, value) of element e of the image: *t + nthr * *v is
 * lay_inverse_at(lay_tv_layout(tv), e) (same precondition). */
LAY_HD static inline void lay_tv_inverse_at(const lay_tv *tv, int e, int *t, int *v) {
    int pt = 1, pv = 1;
    *t = 0;
    *v = 0;
#define LAY__TV_INV(i) lay__tv_inv_leaf(tv, i, e, t, v, &pt, &pv);
    LAY__TV_EACH(LAY__TV_INV)
#undef LAY__TV_INV
}

/* lay_tv_layout: the lay_layout ((t0,..),(v0,..)) of a compact TV layout (a mode of one leaf is
 * not bracketed: ((4,8),2), (32,8)).  e.g. of the mma A atom: ((4,8),(2,2,2)):((32,1),(16,8,128)) */
LAY_HD static inline lay_layout lay_tv_layout(const lay_tv *tv) {
    lay_layout L = {0, 0, {0}, {0}, {0}};
    const int a = tv->nt, b = tv->nv;
    L.n = a + b;
    for (int i = 0; i < a + b && i < LAY_TV_MAX; ++i) {
        L.shape[i] = tv->s[i];
        L.stride[i] = tv->d[i];
    }
    int t = 0;
    L.tok[t++] = LAY_TOK_OPEN;
    if (a > 1) L.tok[t++] = LAY_TOK_OPEN;
    for (int i = 0; i < a; ++i) L.tok[t++] = LAY_TOK_LEAF;
    if (a > 1) L.tok[t++] = LAY_TOK_CLOSE;
    if (b > 1) L.tok[t++] = LAY_TOK_OPEN;
    for (int i = 0; i < b; ++i) L.tok[t++] = LAY_TOK_LEAF;
    if (b > 1) L.tok[t++] = LAY_TOK_CLOSE;
    L.tok[t++] = LAY_TOK_CLOSE;
    L.ntok = t;
    return L;
}

/* Extent and stride of leaf i (0 or 1) of a flat layout (a rank-1 layout is (s,1):(d,0)). */
LAY_HD static inline int lay__dim(lay_layout L, int i) { return i < L.n ? L.shape[i] : 1; }
LAY_HD static inline int lay__str(lay_layout L, int i) { return i < L.n ? L.stride[i] : 0; }

/* The coordinate (c0, c1) in a flat (s0,s1):(d0,d1) layout of element e of its image
 * (lay_inverse_at, mode by mode). The leaf with the larger stride holds the highest digit, which
 * needs no remainder for e in the image: so a thread index t < nthr of a thread layout (64,2):(2,1)
 * gives (t / 2, t % 2), exactly the arithmetic one would write. */
LAY_HD static inline void lay__crd2(int s0, int s1, int d0, int d1, int e, int *c0, int *c1) {
    const int u0 = d0 > 0 && s0 > 1, u1 = d1 > 0 && s1 > 1;
    const int top0 = u0 && (!u1 || d0 > d1); /* leaf 0 holds the highest digit of e */
    *c0 = u0 ? (top0 ? lay__udiv(e, d0) : lay__umod(lay__udiv(e, d0), s0)) : 0;
    *c1 = u1 ? (!top0 ? lay__udiv(e, d1) : lay__umod(lay__udiv(e, d1), s1)) : 0;
}

/* ======================================================================================
 * Tiled copy: a thread layout and a value layout over a tile (CuTe's make_tiled_copy)
 * ====================================================================================== */

/* lay_tiled_copy: how the threads of a CTA move one (BLK_M, BLK_N) tile (BLK_N is BLK_K for
 * an operand tile), one copy instruction per (thread, repeat):
 *   thr (TM,TN) -> thread index: thread t sits at coordinate thr^-1(t) of a TM x TN grid;
 *   val (VM,VN) -> value index: the VM x VN elements one instruction moves (1 float: a 4-byte
 *       copy; (1,4) or (4,1) floats: LDG.128 / cp.async 16 B; (1,8) halves: a 16-byte chunk).
 * The copy tile is (TM*VM, TN*VN): thread (tm,tn) owns elements (tm*VM + vm, tn*VN + vn)
 * (its values contiguous: CuTe's raked_product(thr, val)), and the copy tile repeats over the
 * CTA tile, (BLK_M/(TM*VM), BLK_N/(TN*VN)) times (CuTe's partition shape (CPY, CPY_M, CPY_N)).
 * thr and val are flat (rank 1 or 2), injective, with chaining strides (lay_inverse_at); the
 * struct keeps their extents and strides (lay_tiled_copy_thr / _val give the layouts back). */
typedef struct {
    int ts[2], td[2]; /* thr (TM,TN):(.,.) */
    int vs[2], vd[2]; /* val (VM,VN):(.,.) */
} lay_tiled_copy;

/* lay_make_tiled_copy: the tiled copy of thread layout thr and value layout val.
 *   e.g. lay_make_tiled_copy(lay_l2(64, 2, 2, 1), lay_l2(1, 4, 0, 1)): 128 threads, thread t
 *        at (t/2, t%2), each moving 4 floats along n (k) with one LDG.128: copy tile (64, 8) */
LAY_HD static inline lay_tiled_copy lay_make_tiled_copy(lay_layout thr, lay_layout val) {
    lay_tiled_copy c;
    c.ts[0] = lay__dim(thr, 0);
    c.ts[1] = lay__dim(thr, 1);
    c.td[0] = lay__str(thr, 0);
    c.td[1] = lay__str(thr, 1);
    c.vs[0] = lay__dim(val, 0);
    c.vs[1] = lay__dim(val, 1);
    c.vd[0] = lay__str(val, 0);
    c.vd[1] = lay__str(val, 1);
    return c;
}

/* lay_tiled_copy_thr / _val: the thread and value layouts, as flat rank-2 layouts. */
LAY_HD static inline lay_layout lay_tiled_copy_thr(lay_tiled_copy c) {
    return lay_l2(c.ts[0], c.ts[1], c.td[0], c.td[1]);
}
LAY_HD static inline lay_layout lay_tiled_copy_val(lay_tiled_copy c) {
    return lay_l2(c.vs[0], c.vs[1], c.vd[0], c.vd[1]);
}

/* lay_tiled_copy_nthr / _nval: threads of the copy, elements per copy instruction. */
LAY_HD static inline int lay_tiled_copy_nthr(lay_tiled_copy c) { return c.ts[0] * c.ts[1]; }
LAY_HD static inline int lay_tiled_copy_nval(lay_tiled_copy c) { return c.vs[0] * c.vs[1]; }

/* lay_tiled_copy_tile_m / _n: extent of the copy tile, TM*VM and TN*VN. */
LAY_HD static inline int lay_tiled_copy_tile_m(lay_tiled_copy c) { return c.ts[0] * c.vs[0]; }
LAY_HD static inline int lay_tiled_copy_tile_n(lay_tiled_copy c) { return c.ts[1] * c.vs[1]; }

/* lay_tiled_copy_reps: copy tiles in a (blk_m, blk_n) CTA tile = instructions per thread; 0
 * when the copy tile does not divide the CTA tile.  e.g. the example above over (128, 8): 2 */
LAY_HD static inline int lay_tiled_copy_reps(lay_tiled_copy c, int blk_m, int blk_n) {
    const int tm = lay_tiled_copy_tile_m(c), tn = lay_tiled_copy_tile_n(c);
    if (tm < 1 || tn < 1 || blk_m % tm != 0 || blk_n % tn != 0) return 0;
    return (blk_m / tm) * (blk_n / tn);
}

/* Digit of e in a leaf (s:d): (e / d) % s, without the remainder for the top digit, 0 for s = 1.
 * Signed arithmetic on purpose: it is what the hand-written copies of lesson 04 used, and
 * nvcc 13 schedules lesson 04's register-bound K loop better from it (tests/test_sass.sh
 * counts the instructions). */
LAY_HD static inline int lay__digit(int e, int s, int d, int top) {
    return s == 1 ? 0 : top ? e / d : (e / d) % s;
}

/* lay_tiled_copy_crd: (m, n) in the (blk_m, blk_n) CTA tile of value v (0..nval-1) of thread t
 * in repeat r (0..reps-1, colexicographic over (RM,RN) = (blk_m/(TM*VM), blk_n/(TN*VN))):
 *   (tm,tn) = thr^-1(t), (vm,vn) = val^-1(v), (rm,rn) = colex(r),
 *   m = (tm + TM*rm)*VM + vm,  n = (tn + TN*rn)*VN + vn.
 * Computed as CuTe would after coalescing: the vectors (thread, repeat) are numbered
 * e = t + nthr*r, and the vector coordinate along a mode is e's digit in the coalesced leaves
 * of that mode (the thread leaf (TM:stride) and the repeat leaf (RM:nthr) merge when
 * TM*stride == nthr); the highest digit needs no remainder. For the lesson-04 copy
 * (64,2):(2,1) x (1,4) over (128,8) that is m = e/2, n = 4*(e%2): the arithmetic one would
 * write by hand. Equals lay_tiled_copy_tv_tile evaluated at (t, v + nval*r); t < nthr,
 * r < reps.
 *   e.g. that copy: t = 5, v = 0, r = 1 -> (66, 4) */
LAY_HD static inline void lay_tiled_copy_crd(lay_tiled_copy c, int blk_m, int blk_n, int t, int v,
                                             int r, int *m, int *n) {
    const int TM = c.ts[0], TN = c.ts[1], VM = c.vs[0], VN = c.vs[1], nthr = TM * TN;
    const int RM = blk_m / (TM * VM), RN = blk_n / (TN * VN);
    const int dm = c.td[0], dn = c.td[1], e = t + nthr * r;
    /* the coalesced leaves of each mode: (sm0:dm0) (sm1:dm1) and (sn0:dn0) (sn1:dn1) */
    const int mm = TM * dm == nthr, mn = TN * dn == nthr * RM;
    const int sm0 = mm ? TM * RM : TM, sm1 = mm ? 1 : RM, dm1 = nthr;
    const int sn0 = mn ? TN * RN : TN, sn1 = mn ? 1 : RN, dn1 = nthr * RM;
    /* the top digit: the leaf of largest stride among those of extent > 1 */
    int top = 0, best = -1; /* 1..4: sm0 sm1 sn0 sn1 */
    if (sm0 > 1 && dm > best) {
        best = dm;
        top = 1;
    }
    if (sm1 > 1 && dm1 > best) {
        best = dm1;
        top = 2;
    }
    if (sn0 > 1 && dn > best) {
        best = dn;
        top = 3;
    }
    if (sn1 > 1 && dn1 > best) {
        best = dn1;
        top = 4;
    }
    const int xm = lay__digit(e, sm0, dm, top == 1) + TM * lay__digit(e, sm1, dm1, top == 2);
    const int xn = lay__digit(e, sn0, dn, top == 3) + TN * lay__digit(e, sn1, dn1, top == 4);
    int vm, vn;
    lay__crd2(VM, VN, c.vd[0], c.vd[1], v, &vm, &vn);
    *m = xm * VM + vm;
    *n = xn * VN + vn;
}

/* lay_tiled_copy_offset: offset of that element in the flat rank-2 tile layout `tile`
 * ((BLK_M,BLK_N):(s0,s1): a gmem tile lay_l2(BLK_M, BLK_K, ld, 1) with run-time ld, or an smem
 * tile lay_l2(BLK_M, BLK_K, 1, BLK_M + PAD)), i.e. tile(m, n) = m*s0 + n*s1. For a swizzled
 * smem tile use lay_tiled_copy_crd and lay_swizzled_crd2idx2. */
LAY_HD static inline lay_off lay_tiled_copy_offset(lay_tiled_copy c, lay_layout tile, int t, int v,
                                                   int r) {
    int m, n;
    lay_tiled_copy_crd(c, lay__dim(tile, 0), lay__dim(tile, 1), t, v, r, &m, &n);
    return lay_crd2idx2(tile, m, n);
}

/* lay_tiled_copy_base / lay_tiled_copy_at: thread t's part of a tile with strides (s0, s1),
 * split into the thread's base -- the offset of its element 0 -- and element i relative to it,
 * which is the same for every thread (a constant for a constant i). Element i is value
 * i % nval (colex in the VM x VN value tile) of repeat i / nval:
 *   base = tm*VM*s0 + tn*VN*s1,  at(i) = vm*s0 + vn*s1 + rm*TM*VM*s0 + rn*TN*VN*s1.
 * So base(t) + at(j + nval*r) is tile(lay_tiled_copy_crd(c, blk_m, t, val(j), r)), val(j) the
 * value index of the j-th element (j itself for a column-major value layout). Kernels keep the
 * base in a register and add at(i) as an immediate.
 *   e.g. copy (64,2):(2,1) x (1,4):(0,1), smem (128,8):(1,132): base(5) = 2 + 4*132,
 *        at(1 + 4*1) = 132 + 64 */
LAY_HD static inline lay_off lay_tiled_copy_base(lay_tiled_copy c, lay_off s0, lay_off s1, int t) {
    int tm, tn;
    lay__crd2(c.ts[0], c.ts[1], c.td[0], c.td[1], t, &tm, &tn);
    return (lay_off)(tm * c.vs[0]) * s0 + (lay_off)(tn * c.vs[1]) * s1;
}
LAY_HD static inline lay_off lay_tiled_copy_at(lay_tiled_copy c, int blk_m, lay_off s0, lay_off s1,
                                               int i) {
    const int VM = c.vs[0], nval = c.vs[0] * c.vs[1], tm = c.ts[0] * VM;
    const int j = lay__umod(i, nval), r = lay__udiv(i, nval), rm_n = blk_m / tm;
    return (lay_off)(lay__umod(j, VM) + tm * lay__umod(r, rm_n)) * s0 +
           (lay_off)(lay__udiv(j, VM) + c.ts[1] * c.vs[1] * lay__udiv(r, rm_n)) * s1;
}

/* Leaf strides of a flat rank-2 tile layout (rank 1: (d, 0)); 0 when it is not flat rank 2. */
LAY_HD static inline int lay__tile2(lay_layout L, int *s0, int *s1) {
    *s0 = lay__str(L, 0);
    *s1 = lay__str(L, 1);
    return lay__is_flat(&L) && L.n <= 2;
}

/* lay_tiled_copy_partition: the same as a tensor (CuTe's thr_copy.partition_S / partition_D):
 * thread tid's part of a (BLK_M,BLK_N) tile tensor, offset tile.off + base, flat layout
 *     (VM, VN, RM, RN) : (s0, s1, TM*VM*s0, TN*VN*s1)
 * whose element i is at(i). tile.layout must be flat rank 2 (run-time strides are fine, e.g. a
 * gmem tile lay_l2(BLK_M, BLK_K, ld, 1)); an identity tile (lay_l2(BLK_M, BLK_N, 1, 0)) gives
 * each element's row coordinate, (0, 1) its column (predicates, CuTe's identity tensors).
 * Errors: LAY_E_RANK (tile not flat rank 2), LAY_E_ARG (the copy tile does not divide it).
 *   e.g. the example above, smem tile (128,8):(1,132), tid 5
 *        -> (1,4,2,1):(1,132,64,1056) at offset 2 + 4*132 */
LAY_HD static inline LAY_MUST_CHECK int lay_tiled_copy_partition(lay_tensor *out, lay_tiled_copy c,
                                                                 lay_tensor tile, int tid) {
    if (!out) return LAY_E_ARG;
    int s0, s1;
    const int flat = lay__tile2(tile.layout, &s0, &s1);
    const int TM = c.ts[0], TN = c.ts[1], VM = c.vs[0], VN = c.vs[1];
    const int bm = lay__dim(tile.layout, 0), bn = lay__dim(tile.layout, 1);
    lay_layout R = lay_l2(VM, VN, s0, s1);
    R.n = 4;
    R.ntok = 6;
    R.shape[2] = bm / (TM * VM);
    R.stride[2] = TM * VM * s0;
    R.shape[3] = bn / (TN * VN);
    R.stride[3] = TN * VN * s1;
    R.tok[3] = LAY_TOK_LEAF;
    R.tok[4] = LAY_TOK_LEAF;
    R.tok[5] = LAY_TOK_CLOSE;
    out->ptr = tile.ptr;
    out->off = tile.off + lay_tiled_copy_base(c, s0, s1, tid);
    out->layout = R;
    if (!flat) return lay__fail(&out->layout, LAY_E_RANK);
    if (lay_tiled_copy_reps(c, bm, bn) < 1) return lay__fail(&out->layout, LAY_E_ARG);
    return LAY_OK;
}

/* ======================================================================================
 * The mma.sync m16n8k16 atom (f16/bf16 inputs, f32 accumulators) and the FFMA atom
 * ====================================================================================== */

/* The A, B, C fragments of mma.sync.m16n8k16 (PTX ISA 9.7.14.5.8), compact. */
LAY_HD static inline lay_tv lay__tv_mma_a(void) {
    const int s[5] = {4, 8, 2, 2, 2}, d[5] = {32, 1, 16, 8, 128};
    return lay__tv(2, 3, s, d);
}
LAY_HD static inline lay_tv lay__tv_mma_b(void) {
    const int s[4] = {4, 8, 2, 2}, d[4] = {16, 1, 8, 64};
    return lay__tv(2, 2, s, d);
}
LAY_HD static inline lay_tv lay__tv_mma_c(void) {
    const int s[4] = {4, 8, 2, 2}, d[4] = {32, 1, 16, 8};
    return lay__tv(2, 2, s, d);
}

/* lay_tv_mma_m16n8k16_a: A fragment of mma.sync.m16n8k16 (f16/bf16): (thread 32, value 8) ->
 * m + 16*k in the column-major 16x16 (M,K) tile: ((4,8),(2,2,2)):((32,1),(16,8,128)).
 * Lane t, value v (a0..a7; register v/2 holds values 2(v/2), 2(v/2)+1, low half first) holds
 * m = t/4 + 8*((v/2)%2), k = 2*(t%4) + v%2 + 8*(v/4) (PTX ISA 9.7.14.5.8).
 *   e.g. lane 0 values -> (0,0),(0,1),(8,0),(8,1),(0,8),(0,9),(8,8),(8,9) */
LAY_HD static inline lay_layout lay_tv_mma_m16n8k16_a(void) {
    const lay_tv t = lay__tv_mma_a();
    return lay_tv_layout(&t);
}

/* lay_tv_mma_m16n8k16_b: B fragment, B stored as (N,K) = 8x16 column-major (n + 8*k):
 * ((4,8),(2,2)):((16,1),(8,64)). Lane t, value v (b0..b3) holds n = t/4,
 * k = 2*(t%4) + v%2 + 8*(v/2). */
LAY_HD static inline lay_layout lay_tv_mma_m16n8k16_b(void) {
    const lay_tv t = lay__tv_mma_b();
    return lay_tv_layout(&t);
}

/* lay_tv_mma_m16n8k16_c: C/D fragment (f32 accumulators), (M,N) = 16x8 column-major
 * (m + 16*n): ((4,8),(2,2)):((32,1),(16,8)). Lane t, value v (c0..c3) holds
 * m = t/4 + 8*(v/2), n = 2*(t%4) + v%2. */
LAY_HD static inline lay_layout lay_tv_mma_m16n8k16_c(void) {
    const lay_tv t = lay__tv_mma_c();
    return lay_tv_layout(&t);
}

/* lay_mma_atom: one MMA instruction of a warp as its three TV layouts (32 lanes, values) ->
 * the column-major index of its A (M,K), B (N,K) and C (M,N) tiles, and its shape. Every
 * value leaf of an atom moves along rows only or along columns only (true of the Tensor Core
 * fragments and of the FFMA atom; tests/test_layout_tv.c checks it), which is what lets a
 * fragment be split into a per-thread base and per-value constants (lay_tiled_mma_base_*). */
typedef struct {
    lay_tv a, b, c;
    int m, n, k;    /* atom shape (M,N,K) */
    int na, nb, nc; /* values per lane of A, B, C */
} lay_mma_atom;

/* lay_mma_atom_m16n8k16: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16} (16, 8, 16),
 * 8 / 4 / 4 values per lane. */
LAY_HD static inline lay_mma_atom lay_mma_atom_m16n8k16(void) {
    lay_mma_atom a;
    a.a = lay__tv_mma_a();
    a.b = lay__tv_mma_b();
    a.c = lay__tv_mma_c();
    a.m = 16;
    a.n = 8;
    a.k = 16;
    a.na = 8;
    a.nb = 4;
    a.nc = 4;
    return a;
}

/* lay_mma_atom_fma: a warp of FFMA threads as one atom (CuTe: UniversalFMA tiled over a thread
 * layout): lanes (LM,LN) row-major (lane l at (l / LN, l % LN)), each lane a VM x VN block of C,
 * the outer product of VM values of A and VN values of B at one k. Atom tile
 * (AM, AN, 1) = (LM*VM, LN*VN, 1):
 *   A ((LN,LM),VM):((0,VM),1) -> m      B ((LN,LM),VN):((VN,0),1) -> n
 *   C ((LN,LM),(VM,VN)):((VN*AM,VM),(1,AM)) -> m + AM*n
 * lanes_m * lanes_n must be 32. e.g. lay_mma_atom_fma(4, 8, 4, 4): a 16x32 atom, lane 9 owns
 * rows 4..7 and columns 4..7 */
LAY_HD static inline lay_mma_atom lay_mma_atom_fma(int lanes_m, int lanes_n, int vm, int vn) {
    lay_mma_atom a;
    const int am = lanes_m * vm;
    const int sa[3] = {lanes_n, lanes_m, vm}, da[3] = {0, vm, 1};
    const int sb[3] = {lanes_n, lanes_m, vn}, db[3] = {vn, 0, 1};
    const int sc[4] = {lanes_n, lanes_m, vm, vn}, dc[4] = {vn * am, vm, 1, am};
    a.a = lay__tv(2, 1, sa, da);
    a.b = lay__tv(2, 1, sb, db);
    a.c = lay__tv(2, 2, sc, dc);
    a.m = am;
    a.n = lanes_n * vn;
    a.k = 1;
    a.na = vm;
    a.nb = vn;
    a.nc = vm * vn;
    return a;
}

/* ======================================================================================
 * Tiled MMA: the atom over a warp layout and over the warp tile
 * ====================================================================================== */

/* lay_tiled_mma: warps (WM,WN) -> warp index places warp w at (wm,wn) = warps^-1(w); warp
 * (wm,wn) owns the warp tile (WARP_M,WARP_N) = (atom.m*rep_m, atom.n*rep_n) at
 * (wm*WARP_M, wn*WARP_N) of the CTA tile, rep_m x rep_n atoms in it, atom (i,j) at
 * (i*atom.m, j*atom.n); rep_k atoms along BLK_K (k-step kk at kk*atom.k). CTA tile
 * (BLK_M, BLK_N, BLK_K) = (WM*WARP_M, WN*WARP_N, rep_k*atom.k), 32*WM*WN threads.
 * Functions take it by const pointer (a few hundred bytes: build it once, pass &t). */
typedef struct {
    lay_mma_atom atom;
    int ws[2], wd[2]; /* warps (WM,WN):(.,.) */
    int rep_m, rep_n, rep_k;
} lay_tiled_mma;

/* lay_make_tiled_mma: e.g. lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(2, 4, 4, 1),
 * 4, 4, 2): 8 warps, warp w at (w/4, w%4), warp tile 64x32, CTA tile 128x128x32. warps must be
 * flat (rank 1 or 2). */
LAY_HD static inline lay_tiled_mma lay_make_tiled_mma(lay_mma_atom atom, lay_layout warps,
                                                      int rep_m, int rep_n, int rep_k) {
    lay_tiled_mma t;
    t.atom = atom;
    t.ws[0] = lay__dim(warps, 0);
    t.ws[1] = lay__dim(warps, 1);
    t.wd[0] = lay__str(warps, 0);
    t.wd[1] = lay__str(warps, 1);
    t.rep_m = rep_m;
    t.rep_n = rep_n;
    t.rep_k = rep_k;
    return t;
}

/* lay_tiled_mma_warps: the warp layout back, flat rank 2. */
LAY_HD static inline lay_layout lay_tiled_mma_warps(const lay_tiled_mma *t) {
    return lay_l2(t->ws[0], t->ws[1], t->wd[0], t->wd[1]);
}

/* Warp tile origin of thread tid: (wm*WARP_M, wn*WARP_N). */
LAY_HD static inline void lay__mma_warp(const lay_tiled_mma *t, int tid, int *m0, int *n0) {
    int wm, wn;
    lay__crd2(t->ws[0], t->ws[1], t->wd[0], t->wd[1], lay__udiv(tid, 32), &wm, &wn);
    *m0 = wm * t->atom.m * t->rep_m;
    *n0 = wn * t->atom.n * t->rep_n;
}

/* One operand: atom TV `tv` with `na` values and `rows` rows in its index space; the thread's
 * warp origin (r0, c0); repeats rep_r (step: the atom's rows) and rep_c (step: its columns).
 * Fragment value v -> (row, col) in the CTA tile. */
LAY_HD static inline void lay__mma_crd(const lay_tv *tv, int na, int rows, int cols, int rep_r,
                                       int r0, int c0, int tid, int v, int *r, int *c) {
    const int idx = lay_tv_at(tv, lay__umod(tid, 32), lay__umod(v, na));
    const int rest = lay__udiv(v, na);
    *r = r0 + lay__umod(rest, rep_r) * rows + lay__umod(idx, rows);
    *c = c0 + lay__udiv(rest, rep_r) * cols + lay__udiv(idx, rows);
}

/* lay_tiled_mma_a_crd: (m, k) in the (BLK_M, BLK_K) CTA tile of A-fragment value v of thread
 * tid, v colexicographic over (atom value 0..na-1, i < rep_m, kk < rep_k): value v%na of the
 * atom TV A at lane tid%32, in atom (i, kk) of the thread's warp tile.
 *   e.g. 2x4 warps, rep (4,4,2): tid 37 (warp 1, lane 5), v = 8*(1 + 4*1) + 3 -> (25, 19) */
LAY_HD static inline void lay_tiled_mma_a_crd(const lay_tiled_mma *t, int tid, int v, int *m,
                                              int *k) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    lay__mma_crd(&t->atom.a, t->atom.na, t->atom.m, t->atom.k, t->rep_m, m0, 0, tid, v, m, k);
}

/* lay_tiled_mma_b_crd: (n, k) in the (BLK_N, BLK_K) CTA tile of B-fragment value v, v colex
 * over (atom value 0..nb-1, j < rep_n, kk < rep_k). */
LAY_HD static inline void lay_tiled_mma_b_crd(const lay_tiled_mma *t, int tid, int v, int *n,
                                              int *k) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    lay__mma_crd(&t->atom.b, t->atom.nb, t->atom.n, t->atom.k, t->rep_n, n0, 0, tid, v, n, k);
}

/* lay_tiled_mma_c_crd: (m, n) in the (BLK_M, BLK_N) CTA tile of accumulator value v, v colex
 * over (atom value 0..nc-1, i < rep_m, j < rep_n): c0..c3 of atom (i, j) are
 * v = 4*(i + rep_m*j) + 0..3. */
LAY_HD static inline void lay_tiled_mma_c_crd(const lay_tiled_mma *t, int tid, int v, int *m,
                                              int *n) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    lay__mma_crd(&t->atom.c, t->atom.nc, t->atom.m, t->atom.n, t->rep_m, m0, n0, tid, v, m, n);
}

/* lay_tiled_mma_base_a / _b / _c and lay_tiled_mma_at_a / _b / _c: thread tid's fragment of a
 * tile with strides (s0, s1) -- A (BLK_M,BLK_K), B (BLK_N,BLK_K), C (BLK_M,BLK_N) -- split into
 * the thread's base (the offset of its value 0) and value v relative to it, the same for
 * every thread (a constant for a constant v), so that
 *   base(tid) + at(v) == r*s0 + c*s1 with (r, c) = lay_tiled_mma_*_crd(t, tid, v)
 * (exact because every value leaf of an atom moves along rows only or columns only).
 * Kernels keep the base in a register and add at(v) as an immediate.
 *   e.g. FMA atom (4x8 lanes, 4x4), 2x2 warps, rep (4,2,8), sA (128,8):(1,132): tid 37
 *        (warp 1 = (0,1), lane 5 = (0,5)): base_a 0, base_b 64 + 20; at_a(4*(1 + 4*2)) = 16 + 264 */
LAY_HD static inline lay_off lay__mma_base(const lay_tv *tv, int rows, int r0, int c0, int tid,
                                           lay_off s0, lay_off s1) {
    const int it = lay_tv_at(tv, lay__umod(tid, 32), 0);
    return (lay_off)(r0 + lay__umod(it, rows)) * s0 + (lay_off)(c0 + lay__udiv(it, rows)) * s1;
}
/* (v >= 0.) Signed / and % here on purpose, not lay__udiv / lay__umod: nvcc 13.0 folded the
 * unsigned form wrongly where one unrolled k loop reads both the A and the B fragment of the
 * FFMA atom (lesson 04's kernel.cuh): B value 4 (chunk 1 at k = 0) got the offset of value 12
 * (chunk 1 at k = 1), so that load was merged with the k = 1 one and the kernels summed a
 * wrong k. The signed form folds right; tests/test_sass.sh checks every fragment offset of
 * lesson 04's kernels in their machine code (tests/frag_offsets_04.c). */
LAY_HD static inline lay_off lay__mma_at(const lay_tv *tv, int na, int rows, int cols, int rep_r,
                                         lay_off s0, lay_off s1, int v) {
    const int iv = lay_tv_at(tv, 0, v % na); /* the value part (thread 0 adds 0) */
    const int rest = v / na;
    return (lay_off)((rest % rep_r) * rows + iv % rows) * s0 +
           (lay_off)((rest / rep_r) * cols + iv / rows) * s1;
}
LAY_HD static inline lay_off lay_tiled_mma_base_a(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                  int tid) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    return lay__mma_base(&t->atom.a, t->atom.m, m0, 0, tid, s0, s1);
}
LAY_HD static inline lay_off lay_tiled_mma_base_b(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                  int tid) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    return lay__mma_base(&t->atom.b, t->atom.n, n0, 0, tid, s0, s1);
}
LAY_HD static inline lay_off lay_tiled_mma_base_c(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                  int tid) {
    int m0, n0;
    lay__mma_warp(t, tid, &m0, &n0);
    return lay__mma_base(&t->atom.c, t->atom.m, m0, n0, tid, s0, s1);
}
LAY_HD static inline lay_off lay_tiled_mma_at_a(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                int v) {
    return lay__mma_at(&t->atom.a, t->atom.na, t->atom.m, t->atom.k, t->rep_m, s0, s1, v);
}
LAY_HD static inline lay_off lay_tiled_mma_at_b(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                int v) {
    return lay__mma_at(&t->atom.b, t->atom.nb, t->atom.n, t->atom.k, t->rep_n, s0, s1, v);
}
LAY_HD static inline lay_off lay_tiled_mma_at_c(const lay_tiled_mma *t, lay_off s0, lay_off s1,
                                                int v) {
    return lay__mma_at(&t->atom.c, t->atom.nc, t->atom.m, t->atom.n, t->rep_m, s0, s1, v);
}

/* The flat layout of one operand's fragment in a tile with strides (s0,s1): the atom's value
 * leaves re-strided into the tile, then the two repeat modes. */
LAY_HD static inline int lay__mma_partition(lay_tensor *out, const lay_tensor *tile,
                                            const lay_tv *tv, int rows, int rep_r, int step_r,
                                            int rep_c, int step_c, lay_off base) {
    int s0, s1;
    const int flat = lay__tile2(tile->layout, &s0, &s1);
    lay_layout R = {0, 0, {0}, {0}, {0}};
    int n = 0;
    for (int i = tv->nt; i < tv->nt + tv->nv && i < LAY_TV_MAX; ++i, ++n) {
        R.shape[n] = tv->s[i];
        R.stride[n] = lay__umod(tv->d[i], rows) * s0 + lay__udiv(tv->d[i], rows) * s1;
    }
    R.shape[n] = rep_r;
    R.stride[n] = step_r * s0;
    R.shape[n + 1] = rep_c;
    R.stride[n + 1] = step_c * s1;
    n += 2;
    R.n = n;
    R.ntok = n + 2;
    R.tok[0] = LAY_TOK_OPEN;
    for (int i = 1; i <= n; ++i) R.tok[i] = LAY_TOK_LEAF;
    R.tok[n + 1] = LAY_TOK_CLOSE;
    out->ptr = tile->ptr;
    out->off = tile->off + base;
    out->layout = R;
    if (!flat) return lay__fail(&out->layout, LAY_E_RANK);
    return LAY_OK;
}

/* lay_tiled_mma_partition_a / _b / _c: the same as tensors (CuTe's thr_mma.partition_A / B / C):
 * thread tid's fragment of a flat rank-2 CTA tile tensor, offset tile.off + base, flat layout
 * (atom value leaves re-strided into the tile, rep_m : atom.m*s0, rep_k : atom.k*s1) for A
 * (likewise B, C) whose element v is at(v). Errors: LAY_E_RANK (tile not flat rank 2).
 *   e.g. the example above -> A (4,4,8):(1,16,132) at 0 */
LAY_HD static inline LAY_MUST_CHECK int
lay_tiled_mma_partition_a(lay_tensor *out, const lay_tiled_mma *t, lay_tensor tile, int tid) {
    if (!out) return LAY_E_ARG;
    int s0, s1;
    lay__tile2(tile.layout, &s0, &s1);
    return lay__mma_partition(out, &tile, &t->atom.a, t->atom.m, t->rep_m, t->atom.m, t->rep_k,
                              t->atom.k, lay_tiled_mma_base_a(t, s0, s1, tid));
}
LAY_HD static inline LAY_MUST_CHECK int
lay_tiled_mma_partition_b(lay_tensor *out, const lay_tiled_mma *t, lay_tensor tile, int tid) {
    if (!out) return LAY_E_ARG;
    int s0, s1;
    lay__tile2(tile.layout, &s0, &s1);
    return lay__mma_partition(out, &tile, &t->atom.b, t->atom.n, t->rep_n, t->atom.n, t->rep_k,
                              t->atom.k, lay_tiled_mma_base_b(t, s0, s1, tid));
}
LAY_HD static inline LAY_MUST_CHECK int
lay_tiled_mma_partition_c(lay_tensor *out, const lay_tiled_mma *t, lay_tensor tile, int tid) {
    if (!out) return LAY_E_ARG;
    int s0, s1;
    lay__tile2(tile.layout, &s0, &s1);
    return lay__mma_partition(out, &tile, &t->atom.c, t->atom.m, t->rep_m, t->atom.m, t->rep_n,
                              t->atom.n, lay_tiled_mma_base_c(t, s0, s1, tid));
}

/* ======================================================================================
 * ldmatrix: a copy whose destination is an MMA fragment
 * ====================================================================================== */

/* Compact forms of the two layouts below. */
LAY_HD static inline lay_tv lay__tv_ldsm_src(int x) {
    const int s1[3] = {8, 4, 8}, d1[3] = {8, 0, 1};
    const int s2[3] = {16, 2, 8}, d2[3] = {8, 0, 1};
    const int s4[2] = {32, 8}, d4[2] = {8, 1};
    if (x == 1) return lay__tv(2, 1, s1, d1);
    if (x == 2) return lay__tv(2, 1, s2, d2);
    return lay__tv(1, 1, s4, d4);
}
LAY_HD static inline lay_tv lay__tv_ldsm_dst(int x, int trans) {
    const int s1[3] = {4, 8, 2}, d1[3] = {2, 8, 1}, t1[3] = {16, 1, 8};
    const int s2[4] = {4, 8, 2, 2}, d2[4] = {2, 8, 1, 64}, t2[4] = {16, 1, 8, 64};
    const int s4[4] = {4, 8, 2, 4}, d4[4] = {2, 8, 1, 64}, t4[4] = {16, 1, 8, 64};
    if (x == 1) return lay__tv(2, 1, s1, trans ? t1 : d1);
    if (x == 2) return lay__tv(2, 2, s2, trans ? t2 : d2);
    return lay__tv(2, 2, s4, trans ? t4 : d4);
}

/* lay_tv_ldmatrix_src: which rows ldmatrix.sync.aligned.m8n8.x{1,2,4}.b16 reads, as a TV layout
 * (32 lanes, 8 halves) -> e = col + 8*row in the stack of x 8x8 matrices (row = 8q + row of
 * matrix q): lane l supplies the address of row l, 16 contiguous bytes. For x1/x2 the lanes
 * past 8x repeat the rows of lanes 0..8x-1 (stride 0): the hardware ignores their addresses,
 * but every lane must execute the instruction and should hold a valid one (PTX ISA 9.7.14.5.15).
 *   x1 ((8,4),8):((8,0),1)   x2 ((16,2),8):((8,0),1)   x4 (32,8):(8,1)
 * Any other x gives the invalid layout. */
LAY_HD static inline lay_layout lay_tv_ldmatrix_src(int x) {
    if (x != 1 && x != 2 && x != 4) return lay_l1(0, 0);
    const lay_tv t = lay__tv_ldsm_src(x);
    return lay_tv_layout(&t);
}

/* lay_tv_ldmatrix_dst: what each lane receives, (32 lanes, 2x halves) -> e in the same space;
 * value v is half v%2 of register v/2 (register q holds matrix q, low half first):
 *   no .trans: lane l gets row l/4, cols 2(l%4), 2(l%4)+1 of matrix q
 *        x1 ((4,8),2):((2,8),1)   x2 ((4,8),(2,2)):((2,8),(1,64))   x4 ((4,8),(2,4)):((2,8),(1,64))
 *   .trans: lane l gets col l/4, rows 2(l%4), 2(l%4)+1 of matrix q as stored (a row of its
 *        transpose): x1 ((4,8),2):((16,1),8)   x2/x4 ((4,8),(2,x)):((16,1),(8,64))
 *   e.g. x1: lane 5 receives row 1, cols 2, 3 (e = 10, 11).
 * Any other x gives the invalid layout. */
LAY_HD static inline lay_layout lay_tv_ldmatrix_dst(int x, int trans) {
    if (x != 1 && x != 2 && x != 4) return lay_l1(0, 0);
    const lay_tv t = lay__tv_ldsm_dst(x, trans);
    return lay_tv_layout(&t);
}

/* lay_ldmatrix_src_at: point-wise derivation of the rows an ldmatrix must read so that its
 * registers are the operand fragment op_tv (a TV layout (32 lanes, 2x values) -> operand
 * index, e.g. lay_tv_mma_m16n8k16_a() for x4): element e = src(lane, v) of the stack lands in
 * lane/value dst^-1(e), which the MMA wants to be operand element op_tv(dst^-1(e)). Returns
 * that operand index: op_tv(inverse_at(dst, src(lane, v))) -- CuTe's make_tiled_copy_A, the
 * composition op_tv o right_inverse(dst) o src at one point (lay_ldmatrix_retile builds it).
 *   e.g. x4, mma A: lane 9, v 0 -> 9 (m 9, k 0); lane 16 -> 128 (m 0, k 8) */
LAY_HD static inline int lay_ldmatrix_src_at(int x, int trans, lay_layout op_tv, int lane, int v) {
    const lay_tv src = lay__tv_ldsm_src(x), dst = lay__tv_ldsm_dst(x, trans);
    int t, w;
    lay_tv_inverse_at(&dst, lay_tv_at(&src, lane, v), &t, &w);
    return lay_tv_crd2idx(op_tv, 32, t, w);
}

/* stmatrix.sync.aligned.m8n8.x{1,2,4}.b16 (PTX ISA 9.7.14.5.16, sm_90) is ldmatrix run the
 * other way: lane l supplies the address of row l of the stack of x 8x8 matrices, and its
 * registers hold the elements ldmatrix (no .trans) would have loaded into them. So its two TV
 * layouts are ldmatrix's, in the compact form kernels evaluate (lay_tv_at, lay_tv_inverse_at):
 *   lay_tv_stmatrix_rows(x)  (32 lanes, 8 halves) -> e: the row each lane addresses
 *                            (= lay_tv_ldmatrix_src(x); x4: (32,8):(8,1))
 *   lay_tv_stmatrix_regs(x)  (32 lanes, 2x halves) -> e: what each lane's registers hold, value v
 *                            = half v%2 of register v/2 (= lay_tv_ldmatrix_dst(x, 0);
 *                            x4: ((4,8),(2,4)):((2,8),(1,64)))
 * e = col + 8*row, row = 8q + row of matrix q. */
LAY_HD static inline lay_tv lay_tv_stmatrix_rows(int x) { return lay__tv_ldsm_src(x); }
LAY_HD static inline lay_tv lay_tv_stmatrix_regs(int x) { return lay__tv_ldsm_dst(x, 0); }

/* lay_tiled_ldmatrix_a_crd: the row address of the q-th ldmatrix.x{x}[.trans] of thread tid's
 * A fragment, as the (m, k) in the (BLK_M, BLK_K) CTA tile of the first of the 8 halves that
 * lane tid%32 supplies. The q-th load fills fragment values [2x*q, 2x*(q+1)) in the colex
 * order of lay_tiled_mma_a_crd (x4: the whole atom (i, kk) with q = i + rep_m*kk). Derived
 * point-wise: the first half goes to lane' value' = dst^-1(src(lane, 0)), which is fragment
 * value 2x*q + value' of thread (warp, lane'). Without .trans the 8 halves run along k (the
 * tile is K-major in smem), with .trans along m (M-major); tests/test_layout_tv.c checks both.
 *   e.g. x4, 2x4 warps rep (4,4,2), tid 37 (warp 1, lane 5), q 0 -> (5, 0); lane 21 -> (5, 8) */
LAY_HD static inline void lay_tiled_ldmatrix_a_crd(const lay_tiled_mma *t, int x, int trans,
                                                   int tid, int q, int *m, int *k) {
    const lay_tv src = lay__tv_ldsm_src(x), dst = lay__tv_ldsm_dst(x, trans);
    int l, w;
    lay_tv_inverse_at(&dst, lay_tv_at(&src, lay__umod(tid, 32), 0), &l, &w);
    lay_tiled_mma_a_crd(t, tid - lay__umod(tid, 32) + l, 2 * x * q + w, m, k);
}

/* lay_tiled_ldmatrix_b_crd: the same for the B fragment: (n, k) in the (BLK_N, BLK_K) CTA tile;
 * q-th load = fragment values [2x*q, 2x*(q+1)) in the colex order of lay_tiled_mma_b_crd
 * (x2: atom (j, kk) with q = j + rep_n*kk; x4: atoms j, j+1 with q = j/2 + (rep_n/2)*kk). */
LAY_HD static inline void lay_tiled_ldmatrix_b_crd(const lay_tiled_mma *t, int x, int trans,
                                                   int tid, int q, int *n, int *k) {
    const lay_tv src = lay__tv_ldsm_src(x), dst = lay__tv_ldsm_dst(x, trans);
    int l, w;
    lay_tv_inverse_at(&dst, lay_tv_at(&src, lay__umod(tid, 32), 0), &l, &w);
    lay_tiled_mma_b_crd(t, tid - lay__umod(tid, 32) + l, 2 * x * q + w, n, k);
}

/* ======================================================================================
 * Swizzled shared-memory layouts
 * ====================================================================================== */

/* lay_swizzle_sw: the swizzle for XOR rows of sw_bytes (32, 64 or 128) acting on offsets in
 * ELEMENTS of elem_bytes (1, 2, 4, 8 or 16) bytes: Sw<B, M, 3> with B = log2(sw_bytes/16) and
 * M = log2(16/elem_bytes). A 16-byte chunk (2^M elements) keeps its order; the chunk index
 * inside each sw_bytes-wide row is XORed with bits [M+3, M+3+B) of the offset, i.e. with the
 * index of the 128-byte line (mod 2^B). CuTe's 128-byte rule: Sw<3,4,3> on bytes is
 * Sw<3,3,3> on 2-byte and Sw<3,2,3> on 4-byte element offsets (Sw<3,3,3>(x)*2 ==
 * Sw<3,4,3>(2x)). Errors: LAY_E_ARG (other sizes; *out is then Sw<0,0,0>, the identity).
 *   e.g. lay_swizzle_sw(&sw, 128, 2) -> Sw<3,3,3>; (64, 2) -> Sw<2,3,3>; (128, 4) -> Sw<3,2,3> */
LAY_HD static inline LAY_MUST_CHECK int lay_swizzle_sw(lay_swizzle *out, int sw_bytes,
                                                       int elem_bytes) {
    if (!out) return LAY_E_ARG;
    out->b = 0;
    out->m = 0;
    out->s = 0;
    const int b = sw_bytes == 32 ? 1 : sw_bytes == 64 ? 2 : sw_bytes == 128 ? 3 : -1;
    const int m = elem_bytes == 1    ? 4
                  : elem_bytes == 2  ? 3
                  : elem_bytes == 4  ? 2
                  : elem_bytes == 8  ? 1
                  : elem_bytes == 16 ? 0
                                     : -1;
    if (b < 0 || m < 0) return LAY_E_ARG;
    out->b = b;
    out->m = m;
    out->s = 3;
    return LAY_OK;
}

/* lay_make_swizzled: Sw o 0 o L by value (no status; an invalid L stays invalid inside), for
 * kernels: index with lay_swizzled_crd2idx / lay_swizzled_crd2idx2.
 *   e.g. Sw<3,3,3> o 0 o (128,64):(64,1): a K-major (128, 64) tile of halves, 128-byte rows */
LAY_HD static inline lay_swizzled lay_make_swizzled(lay_swizzle sw, lay_layout L) {
    lay_swizzled S;
    S.sw = sw;
    S.offset = 0;
    S.layout = L;
    return S;
}

/* ======================================================================================
 * Host: the derived layouts, built with the algebra (printing, tests)
 * ====================================================================================== */
#ifndef __CUDA_ARCH__

/* lay_tiled_copy_tv: the TV layout of one copy tile, (thread, value) -> m + (TM*VM)*n, built
 * as CuTe's make_tiled_copy does: right_inverse(raked_product(thr, val)) composed with
 * (nthr, nval):(1, nthr). Errors: those of the algebra (e.g. LAY_E_DIVIDE when thr/val are not
 * compact), LAY_E_ARG.
 *   e.g. thr (64,2):(2,1), val (1,4):(0,1) -> ((2,64),4):((64,1),128) */
static inline LAY_MUST_CHECK int lay_tiled_copy_tv(lay_layout *out, lay_tiled_copy c) {
    if (!out) return LAY_E_ARG;
    lay_layout thr = lay_tiled_copy_thr(c), val = lay_tiled_copy_val(c), R, RI;
    const int nthr = lay_tiled_copy_nthr(c), nval = lay_tiled_copy_nval(c);
    int rc = lay_raked_product(&R, thr, val);
    if (rc == LAY_OK) rc = lay_right_inverse(&RI, R);
    if (rc == LAY_OK && lay_size(RI) != nthr * nval) rc = LAY_E_DIVIDE;
    lay_layout TV;
    if (rc == LAY_OK) rc = lay_composition(&TV, RI, lay_l2(nthr, nval, 1, nthr));
    if (rc == LAY_OK) rc = lay_coalesce_profile(out, TV, lay_l2(1, 1, 1, 1));
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* lay_tiled_copy_tv_tile: the TV layout of the whole (blk_m, blk_n) CTA tile,
 * (thread, (value, (rm, rn))) -> m + blk_m*n: the copy tile's TV layout re-indexed into the
 * CTA tile, values followed by the repeats. Errors: LAY_E_ARG (the copy tile does not divide
 * the CTA tile), those of lay_tiled_copy_tv.
 *   e.g. the copy above over (128, 8): ((2,64),(4,(2,1))):((128,1),(128*... see the tests */
static inline LAY_MUST_CHECK int lay_tiled_copy_tv_tile(lay_layout *out, lay_tiled_copy c,
                                                        int blk_m, int blk_n) {
    if (!out) return LAY_E_ARG;
    if (lay_tiled_copy_reps(c, blk_m, blk_n) < 1) return lay__fail(out, LAY_E_ARG);
    const int tm = lay_tiled_copy_tile_m(c), tn = lay_tiled_copy_tile_n(c);
    lay_layout tv, T, V, T2, V2, rest, vr;
    int rc = lay_tiled_copy_tv(&tv, c);
    if (rc == LAY_OK) rc = lay_get(&T, tv, 0);
    if (rc == LAY_OK) rc = lay_get(&V, tv, 1);
    /* copy-tile index m + tm*n -> CTA-tile index m + blk_m*n */
    const lay_layout reindex = lay_l2(tm, tn, 1, blk_m);
    if (rc == LAY_OK) rc = lay_composition(&T2, reindex, T);
    if (rc == LAY_OK) rc = lay_composition(&V2, reindex, V);
    rest = lay_l2(blk_m / tm, blk_n / tn, tm, blk_m * tn);
    if (rc == LAY_OK) rc = lay_make_layout2(&vr, V2, rest);
    if (rc == LAY_OK) rc = lay_make_layout2(out, T2, vr);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* lay_ldmatrix_retile: op_tv o right_inverse(dst) o src: the rows ldmatrix.x{x}[.trans] must
 * read, as a TV layout (32 lanes, 8 halves) -> operand index of op_tv (32 lanes, 2x values).
 * Errors: LAY_E_ARG (x not 1, 2, 4), those of the algebra.
 *   e.g. x4, mma A -> ((8,2,2),8):((1,8,128),16): lane l reads row m = l%8 + 8((l/8)%2) from
 *        k = 8(l/16), 8 halves along k */
static inline LAY_MUST_CHECK int lay_ldmatrix_retile(lay_layout *out, int x, int trans,
                                                     lay_layout op_tv) {
    if (!out) return LAY_E_ARG;
    lay_layout src = lay_tv_ldmatrix_src(x), dst = lay_tv_ldmatrix_dst(x, trans), RI, E;
    if (!lay_valid(src)) return lay__fail(out, LAY_E_ARG);
    int rc = lay_right_inverse(&RI, dst);
    if (rc == LAY_OK) rc = lay_composition(&E, RI, src);
    lay_layout TV;
    if (rc == LAY_OK) rc = lay_composition(&TV, op_tv, E);
    if (rc == LAY_OK) rc = lay_coalesce_profile(out, TV, lay_l2(1, 1, 1, 1)); /* by mode */
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* CTA-level TV layout of one operand: ((lane, warp), (atom value, (rep_r, rep_c))) ->
 * r + rows*c. The atom TV is re-indexed from the atom tile (r + atom_r*c) into the CTA tile;
 * the warp mode is place o right_inverse(warps), place (WM,WN):(pm,pn) giving each warp's tile
 * origin as an index; the repeats step by atom_r rows and atom_c columns. */
static inline int lay__tiled_mma_tv(lay_layout *out, const lay_tiled_mma *t, const lay_tv *atv,
                                    int atom_r, int atom_c, int rep_r, int rep_c, int rows, int pm,
                                    int pn) {
    const lay_layout atom_tv = lay_tv_layout(atv);
    const lay_layout reindex = lay_l2(atom_r, atom_c, 1, rows);
    const lay_layout place = lay_l2(t->ws[0], t->ws[1], pm, pn);
    const lay_layout rep = lay_l2(rep_r, rep_c, atom_r, rows * atom_c);
    lay_layout T, V, T2, V2, RIw, W, thr, val;
    int rc = lay_get(&T, atom_tv, 0);
    if (rc == LAY_OK) rc = lay_get(&V, atom_tv, 1);
    if (rc == LAY_OK) rc = lay_composition(&T2, reindex, T);
    if (rc == LAY_OK) rc = lay_composition(&V2, reindex, V);
    if (rc == LAY_OK) rc = lay_right_inverse(&RIw, lay_tiled_mma_warps(t));
    if (rc == LAY_OK) rc = lay_composition(&W, place, RIw);
    if (rc == LAY_OK) rc = lay_make_layout2(&thr, T2, W);
    if (rc == LAY_OK) rc = lay_make_layout2(&val, V2, rep);
    if (rc == LAY_OK) rc = lay_make_layout2(out, thr, val);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* lay_tiled_mma_tv_a / _b / _c: the CTA-level TV layouts of a tiled MMA, (thread, value) ->
 * m + BLK_M*k (A), n + BLK_N*k (B), m + BLK_M*n (C), with the thread mode (lane, warp) and the
 * value mode (atom value, repeats) in the colex order of lay_tiled_mma_*_crd, so that
 * crd2idx(tv, tid + nthreads*v) agrees with them (tests/test_layout_tv.c).
 *   e.g. m16n8k16, warps (2,4):(4,1), rep (4,4,2), C:
 *        (((4,8),(4,2)),((2,2),(4,4))):(((256,1),(4096,64)),((128,8),(16,1024))) */
static inline LAY_MUST_CHECK int lay_tiled_mma_tv_a(lay_layout *out, const lay_tiled_mma *t) {
    if (!out) return LAY_E_ARG;
    const int warp_m = t->atom.m * t->rep_m;
    return lay__tiled_mma_tv(out, t, &t->atom.a, t->atom.m, t->atom.k, t->rep_m, t->rep_k,
                             t->ws[0] * warp_m, warp_m, 0);
}
static inline LAY_MUST_CHECK int lay_tiled_mma_tv_b(lay_layout *out, const lay_tiled_mma *t) {
    if (!out) return LAY_E_ARG;
    const int warp_n = t->atom.n * t->rep_n;
    return lay__tiled_mma_tv(out, t, &t->atom.b, t->atom.n, t->atom.k, t->rep_n, t->rep_k,
                             t->ws[1] * warp_n, 0, warp_n);
}
static inline LAY_MUST_CHECK int lay_tiled_mma_tv_c(lay_layout *out, const lay_tiled_mma *t) {
    if (!out) return LAY_E_ARG;
    const int warp_m = t->atom.m * t->rep_m, warp_n = t->atom.n * t->rep_n;
    return lay__tiled_mma_tv(out, t, &t->atom.c, t->atom.m, t->atom.n, t->rep_m, t->rep_n,
                             t->ws[0] * warp_m, warp_m, t->ws[0] * warp_m * warp_n);
}

#endif /* !__CUDA_ARCH__ */

#endif /* LAY_LAYOUT_TV_H */
