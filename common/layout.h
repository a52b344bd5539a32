/*
 * layout.h -- the CuTe layout algebra in plain C (C11 and CUDA C), header-only.
 *
 * WHAT A LAYOUT IS
 *   A layout is a function from a 1-D index (or a coordinate) to an offset, given by a
 *   hierarchical shape and a stride of the same structure, printed `(shape):(stride)`:
 *   `(4,8):(8,1)` is a row-major 4x8 matrix, `8:2` every other element of 16,
 *   `((4,8),(2,2,2)):((32,1),(16,8,128))` the mma.sync m16n8k16 A-fragment TV layout.
 *   Coordinates are colexicographic (CuTe's convention): a 1-D index i splits over the leaves
 *   left to right, i = c0 + s0*(c1 + s1*(c2 + ...)); the last leaf is unbounded, so evaluating
 *   at i >= size extends the last mode.
 *
 * REPRESENTATION (lay_layout)
 *   - the leaves, left to right, in two flat arrays shape[LAY_MAX_LEAVES] and
 *     stride[LAY_MAX_LEAVES] (n of them): size, cosize, crd2idx, idx2crd use only these;
 *   - the nesting as a bracket string tok[] of LAY_TOK_OPEN '(' / LAY_TOK_CLOSE ')' /
 *     LAY_TOK_LEAF 'x' (ntok of them). `8:2` is "x" (an integral shape, rank 1, depth 0),
 *     `(8):(2)` is "(x)" (a rank-1 tuple), `(3,(2,3)):(3,(12,1))` is "(x(xx))". Any depth fits
 *     as long as the tokens fit (LAY_MAX_TOK); the oracle reaches depth 3.
 *   - n == 0 marks an INVALID layout: what every failed operation writes to its output.
 *   Plain structs, passed by value, with fixed-size arrays: every loop runs over the fixed
 *   bound LAY_MAX_LEAVES / LAY_MAX_TOK with `#pragma unroll` under nvcc, so a layout built
 *   from constants folds to the index arithmetic one would write by hand (no local memory;
 *   tests/test_zero_cost.sh checks the SASS). In KERNELS use flat layouts (depth <= 1, e.g.
 *   lay_l2(M, K, lda, 1)), lay_crd2idx, lay_crd2idx2/3, LAY_AT/AT2/AT3, lay_local_tile with shape tilers
 *   (lay_tiler2/3) and lay_local_partition with flat thread layouts: these take a straight-line
 *   fast path that folds even with run-time M, N, K, ld, and compiles in seconds. Write tile
 *   coordinates as LAY_CRD(blockIdx.x) so nvcc can see they are not LAY_FREE. Index nested
 *   layouts (TV layouts) with the 1-D lay_crd2idx. Do the rest of the algebra (composition,
 *   divide, product, complement...) on the host or in constant-folded planning code; on the GPU
 *   local_tile/local_partition of nested layouts return LAY_E_LIMIT unless LAY_DEVICE_GENERIC
 *   is defined (correct but slow to compile and not free).
 *
 * UNITS AND TYPES
 *   shape and stride are `int`; every layout satisfies size <= INT_MAX and the algebra fails
 *   with LAY_E_LIMIT rather than overflow. Offsets (crd2idx, cosize) are `lay_off` (64-bit),
 *   so an 8192x8192 matrix times an element size never overflows. Offsets are in ELEMENTS of
 *   whatever the layout indexes; a swizzle acts on the unit its caller chooses:
 *   Sw<3,4,3> on BYTE offsets and Sw<3,2,3> on 4-byte-element offsets describe the same
 *   permutation of 16-byte chunks in 128-byte rows (Sw<3,2,3>(x)*4 == Sw<3,4,3>(4x)).
 *
 * ERRORS
 *   Operations that can fail return an int status, LAY_OK (0) or a negative LAY_E_* code, and
 *   write the result through the first (out) pointer. On failure *out is the INVALID layout
 *   (n == 0): lay_valid(L) is 0, its size is 0, and every status-returning operation rejects
 *   it with LAY_E_INVALID, so an unchecked error cannot silently flow into a wrong layout.
 *   Under GCC/Clang the status is __attribute__((warn_unused_result)). lay_strerror() names
 *   the codes. Infallible queries (size, rank, crd2idx...) return their value directly.
 *
 * LIMITS
 *   LAY_MAX_LEAVES (16) leaves, LAY_MAX_TOK (48) nesting tokens, LAY_MAX_RANK (8) top-level
 *   modes for tilers/slices/coordinates. Extents must be >= 1. The algebra (composition,
 *   complement, inverses, divide, product) needs strides >= 0 (LAY_E_STRIDE otherwise);
 *   crd2idx accepts negative strides.
 *
 * THREAD/VALUE LAYOUTS (common/layout_tv.h, included at the end of this file)
 *   Tiled copy, the mma.sync m16n8k16 and FFMA atoms, tiled MMA, ldmatrix derived from the MMA
 *   layout, swizzles per element size, and the base + constant forms kernels index through.
 *
 * CONVENTIONS MATCHED EXACTLY (tests/data/layout_vectors.txt, from pycute = static CuTe):
 *   results keep CuTe's structure, including size-1 modes that static CuTe keeps and drops;
 *   right_inverse skips stride-0 modes (as CuTe C++); composition with a tiler shorter than
 *   rank(a) keeps a's remaining modes (as pycute).
 */
#ifndef LAY_LAYOUT_H
#define LAY_LAYOUT_H

#include <limits.h>

#ifdef __CUDACC__
#define LAY_HD __host__ __device__
/* The unroll pragma and __noinline__ matter only in the device pass; in nvcc's host pass the
 * host compiler would warn about both (-Wunknown-pragmas, "inline function given attribute
 * noinline") under -Wall. */
#ifdef __CUDA_ARCH__
#define LAY_UNROLL _Pragma("unroll")
#define LAY_NOINLINE_DEV __noinline__
#else
#define LAY_UNROLL
#define LAY_NOINLINE_DEV
#endif
#else
#define LAY_NOINLINE_DEV
#define LAY_HD
#define LAY_UNROLL
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LAY_MUST_CHECK __attribute__((warn_unused_result))
#else
#define LAY_MUST_CHECK
#endif

#define LAY_MAX_LEAVES 16
#define LAY_MAX_TOK 48
#define LAY_MAX_RANK 8

#define LAY_TOK_OPEN '('
#define LAY_TOK_CLOSE ')'
#define LAY_TOK_LEAF 'x'

/* Status codes. */
#define LAY_OK 0
#define LAY_E_INVALID (-1) /* an operand is the invalid layout (an earlier error)        */
#define LAY_E_ARG (-2)     /* extent < 1, bad mode index, bad cotarget, NULL pointer      */
#define LAY_E_LIMIT (-3)   /* too many leaves/tokens/modes, or a value over INT_MAX       */
#define LAY_E_DIVIDE (-4)  /* stride/shape divisibility fails: no layout has that value   */
#define LAY_E_RANK (-5)    /* tiler/profile/coordinate rank does not fit the layout       */
#define LAY_E_NOINV (-6)   /* no left inverse: the layout is not injective                */
#define LAY_E_STRIDE (-7)  /* negative stride where the algebra needs strides >= 0        */
#define LAY_E_PARSE (-8)   /* text is not a layout in the oracle notation                 */

/* A coordinate entry meaning "keep this mode" (CuTe's `_`) in lay_slice/lay_local_tile. */
#define LAY_FREE (-1)
/* LAY_CRD(x): x as a tile/mode coordinate the compiler can see is never LAY_FREE (it masks the
 * sign bit). Whether a coordinate is `_` decides the structure of lay_local_tile's result; on
 * the GPU that must be known at compile time, so write e.g.
 *     int cta_coord[3] = {LAY_CRD(blockIdx.x), LAY_CRD(blockIdx.y), LAY_FREE};
 * With a plain (int)blockIdx.x nvcc cannot rule out -1 and keeps the layout in local memory. */
#define LAY_CRD(x) ((int)((unsigned)(x)&0x7fffffffu))
/* Projection mask keeping every mode (CuTe: no Step<> argument). Bit i keeps mode i. */
#define LAY_PROJ_ALL 0xFFFFFFFFu

typedef long long lay_off;

typedef struct {
    int n;    /* number of leaves; 0 = invalid layout */
    int ntok; /* number of nesting tokens */
    int shape[LAY_MAX_LEAVES];
    int stride[LAY_MAX_LEAVES];
    signed char tok[LAY_MAX_TOK];
} lay_layout;

/* A by-mode tiler <L0,L1,...>: mode k of a layout is handled by layout Lk. Stored as the
 * layout (L0,L1,...) whose top-level modes are the Lk. Shape tilers (CuTe's (BLK_M,BLK_K))
 * are tilers of BLK:1 layouts (lay_tiler2/3). */
typedef struct {
    lay_layout l;
} lay_tiler;

/* Swizzle<B,M,S>: y = x ^ ((x >> S) & (((1<<B)-1) << M)) for S >= 0,
 *                 y = x ^ ((x << -S) & (((1<<B)-1) << (M-S))) for S < 0. */
typedef struct {
    int b, m, s;
} lay_swizzle;

/* Swizzled layout Sw o offset o L: i -> Sw(offset + L(i)) (CuTe's ComposedLayout). */
typedef struct {
    lay_swizzle sw;
    lay_off offset;
    lay_layout layout;
} lay_swizzled;

/* Tensor view: element (i) lives at ((T*)ptr)[off + layout(i)]. */
typedef struct {
    void *ptr;
    lay_off off;
    lay_layout layout;
} lay_tensor;

/* LAY_TRY(expr): expr is a status (LAY_OK or an error code of a layout operation); when it is
 * not LAY_OK, return it from the enclosing function, which returns int.
 *   e.g. LAY_TRY(lay_local_tile(&gA, mA, tiler, coord, 0x5u)); */
#define LAY_TRY(expr)                                  \
    do {                                               \
        int lay_try_rc_ = (expr);                      \
        if (lay_try_rc_ != LAY_OK) return lay_try_rc_; \
    } while (0)

/* LAY_TRY_VOID(expr): the same check for a function that returns nothing, such as a __global__
 * kernel: on an error it returns at once, so nothing is computed from a wrong layout (a kernel
 * leaves its output unwritten, which the harness reports). With layouts built from constants
 * the operations cannot fail, and after inlining the checks fold away. */
#define LAY_TRY_VOID(expr)            \
    do {                              \
        if ((expr) != LAY_OK) return; \
    } while (0)

/* ======================================================================================
 * Internal helpers (lay__ prefix; not part of the API)
 * ====================================================================================== */

LAY_HD static inline void lay__clear(lay_layout *L) {
    L->n = 0;
    L->ntok = 0;
}

/* Any failure: leave *out invalid and pass the code on. */
LAY_HD static inline int lay__fail(lay_layout *out, int rc) {
    if (out) lay__clear(out);
    return rc;
}

LAY_HD static inline int lay__put_tok(lay_layout *L, int t) {
    if (L->ntok >= LAY_MAX_TOK) return LAY_E_LIMIT;
    L->tok[L->ntok++] = (signed char)t;
    return LAY_OK;
}

LAY_HD static inline int lay__put_leaf(lay_layout *L, long long s, long long d) {
    if (L->n >= LAY_MAX_LEAVES) return LAY_E_LIMIT;
    if (s < 1) return LAY_E_ARG;
    if (s > INT_MAX || d > INT_MAX || d < INT_MIN) return LAY_E_LIMIT;
    L->shape[L->n] = (int)s;
    L->stride[L->n] = (int)d;
    L->n++;
    return lay__put_tok(L, LAY_TOK_LEAF);
}

/* Append the tokens [t0,t1) and leaves [l0,l1) of S to L. */
LAY_HD static inline int lay__put_span(lay_layout *L, const lay_layout *S, int t0, int t1, int l0,
                                       int l1) {
    if (L->ntok + (t1 - t0) > LAY_MAX_TOK) return LAY_E_LIMIT;
    if (L->n + (l1 - l0) > LAY_MAX_LEAVES) return LAY_E_LIMIT;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_TOK; ++k)
        if (k >= t0 && k < t1) L->tok[L->ntok++] = S->tok[k];
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k >= l0 && k < l1) {
            L->shape[L->n] = S->shape[k];
            L->stride[L->n] = S->stride[k];
            L->n++;
        }
    return LAY_OK;
}

/* Append a whole layout S as one element (mode) of the tuple being built in L. */
LAY_HD static inline int lay__put_sub(lay_layout *L, const lay_layout *S) {
    if (S->n < 1) return LAY_E_INVALID;
    return lay__put_span(L, S, 0, S->ntok, 0, S->n);
}

/* Layout from a flat leaf list: one leaf -> integral "s:d", several -> "(s0,s1,..):(d0,..)",
 * none -> 1:0. */
LAY_HD static inline int lay__from_leaves(lay_layout *out, int k, const long long *s,
                                          const long long *d) {
    lay__clear(out);
    int rc = LAY_OK;
    if (k == 0) {
        rc = lay__put_leaf(out, 1, 0);
    } else if (k == 1) {
        rc = lay__put_leaf(out, s[0], d[0]);
    } else {
        rc = lay__put_tok(out, LAY_TOK_OPEN);
        LAY_UNROLL
        for (int i = 0; i < LAY_MAX_LEAVES; ++i)
            if (i < k && rc == LAY_OK) rc = lay__put_leaf(out, s[i], d[i]);
        if (rc == LAY_OK) rc = lay__put_tok(out, LAY_TOK_CLOSE);
    }
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* Top-level mode i of L as token span [t0,t1) and leaf span [l0,l1). An integral layout
 * (tok "x") has one mode, itself. Returns LAY_E_ARG when i is out of range. */
LAY_HD static inline int lay__mode_span(const lay_layout *L, int i, int *t0, int *t1, int *l0,
                                        int *l1) {
    *t0 = -1;
    *t1 = -1;
    *l0 = 0;
    *l1 = 0;
    if (L->n < 1) return LAY_E_INVALID;
    if (L->tok[0] == LAY_TOK_LEAF) {
        if (i != 0) return LAY_E_ARG;
        *t0 = 0;
        *t1 = L->ntok;
        *l0 = 0;
        *l1 = L->n;
        return LAY_OK;
    }
    int depth = 0, child = -1, leaf = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_TOK; ++k) {
        if (k < L->ntok) {
            int t = L->tok[k];
            if (t == LAY_TOK_OPEN) {
                if (depth == 1) {
                    child++;
                    if (child == i) {
                        *t0 = k;
                        *l0 = leaf;
                    }
                }
                depth++;
            } else if (t == LAY_TOK_CLOSE) {
                depth--;
                if (depth == 1 && child == i && *t1 < 0) {
                    *t1 = k + 1;
                    *l1 = leaf;
                }
            } else {
                if (depth == 1) {
                    child++;
                    if (child == i) {
                        *t0 = k;
                        *t1 = k + 1;
                        *l0 = leaf;
                        *l1 = leaf + 1;
                    }
                }
                leaf++;
            }
        }
    }
    if (*t0 < 0 || *t1 < 0) return LAY_E_ARG;
    return LAY_OK;
}

/* Top-level mode of each leaf (leaf_mode[j]) and the number of top-level modes. */
/* Flat layout: an integral shape ("x") or one flat tuple ("(x...x)"); mode m is leaf m. */
LAY_HD static inline int lay__is_flat(const lay_layout *L) {
    return L->n >= 1 && (L->ntok == L->n + 2 || (L->n == 1 && L->ntok == 1));
}

LAY_HD static inline int lay__leaf_modes(const lay_layout *L, int *leaf_mode) {
    if (lay__is_flat(L) && L->ntok > 1) {
        LAY_UNROLL
        for (int j = 0; j < LAY_MAX_LEAVES; ++j) leaf_mode[j] = j;
        return L->n;
    }
    if (L->n >= 1 && L->tok[0] == LAY_TOK_LEAF) {
        LAY_UNROLL
        for (int j = 0; j < LAY_MAX_LEAVES; ++j) leaf_mode[j] = 0;
        return 1;
    }
    int depth = 0, child = -1, leaf = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_TOK; ++k) {
        if (k < L->ntok) {
            int t = L->tok[k];
            if (t == LAY_TOK_OPEN) {
                if (depth == 1) child++;
                depth++;
            } else if (t == LAY_TOK_CLOSE) {
                depth--;
            } else {
                if (depth == 1) child++;
                if (leaf < LAY_MAX_LEAVES) leaf_mode[leaf] = child;
                leaf++;
            }
        }
    }
    return child + 1;
}

LAY_HD static inline long long lay__ceil_div(long long a, long long b) { return (a + b - 1) / b; }

LAY_HD static inline int lay__check_nonneg(const lay_layout *L) {
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L->n && L->stride[i] < 0) return LAY_E_STRIDE;
    return LAY_OK;
}

/* ======================================================================================
 * Construction and queries
 * ====================================================================================== */

/* lay_strerror: a short English description of a status code.
 *   e.g. lay_strerror(LAY_E_DIVIDE) -> "stride/shape divisibility condition fails" */
LAY_HD static inline const char *lay_strerror(int rc) {
    switch (rc) {
        case LAY_OK: return "ok";
        case LAY_E_INVALID: return "operand is an invalid layout (result of an earlier error)";
        case LAY_E_ARG: return "bad argument (extent < 1, mode index or cotarget out of range)";
        case LAY_E_LIMIT: return "over a limit (leaves, nesting tokens, modes, or INT_MAX)";
        case LAY_E_DIVIDE: return "stride/shape divisibility condition fails: no such layout";
        case LAY_E_RANK: return "rank of tiler/profile/coordinate does not fit the layout";
        case LAY_E_NOINV: return "layout is not injective: no left inverse";
        case LAY_E_STRIDE: return "negative stride not supported by this operation";
        case LAY_E_PARSE: return "not a layout in (shape):(stride) notation";
        default: return "unknown error";
    }
}

/* lay_valid: 1 if L is a valid layout, 0 if it is the invalid layout an error left behind
 * (n == 0) or came from a by-value constructor given an extent < 1.
 *   e.g. lay_valid(lay_l1(8, 2)) == 1, lay_valid(lay_l1(0, 1)) == 0 */
LAY_HD static inline int lay_valid(lay_layout L) {
    if (L.n < 1 || L.n > LAY_MAX_LEAVES) return 0;
    int ok = 1;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L.n && L.shape[i] < 1) ok = 0;
    return ok;
}

/* lay_size: number of coordinates = product of the shape (0 for the invalid layout).
 *   e.g. size((4,8):(8,1)) == 32 */
LAY_HD static inline int lay_size(lay_layout L) {
    if (!lay_valid(L)) return 0; /* also covers extents < 1 */
    long long p = 1;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L.n) p *= L.shape[i];
    return (int)p;
}

/* lay_cosize: one past the largest offset, L(size-1)+1 for strides >= 0 (with negative
 * strides: max offset + 1). 0 for the invalid layout.
 *   e.g. cosize(8:2) == 15, cosize((4,8):(0,1)) == 8 */
LAY_HD static inline lay_off lay_cosize(lay_layout L) {
    if (!lay_valid(L)) return 0;
    lay_off m = 0;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L.n && L.stride[i] > 0) m += (lay_off)(L.shape[i] - 1) * L.stride[i];
    return m + 1;
}

/* lay_rank: number of top-level modes (1 for an integral shape such as 8:2).
 *   e.g. rank(((2,2),(4,2)):((1,8),(2,16))) == 2 */
LAY_HD static inline int lay_rank(lay_layout L) {
    int m[LAY_MAX_LEAVES];
    if (!lay_valid(L)) return 0;
    return lay__leaf_modes(&L, m);
}

/* lay_depth: nesting depth: 0 for an integral shape, 1 for a flat tuple, 2 for
 * ((..),..), ...   e.g. depth((3,(2,3)):(3,(12,1))) == 2 */
LAY_HD static inline int lay_depth(lay_layout L) {
    int d = 0, m = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_TOK; ++k)
        if (k < L.ntok) {
            if (L.tok[k] == LAY_TOK_OPEN) {
                d++;
                if (d > m) m = d;
            } else if (L.tok[k] == LAY_TOK_CLOSE) {
                d--;
            }
        }
    return m;
}

/* lay_make: flat layout from rank extents and strides; stride == NULL gives CuTe's default
 * compact column-major (LayoutLeft) strides. rank 1 gives an integral layout `s:d`.
 * Errors: LAY_E_ARG for rank < 1 or an extent < 1, LAY_E_LIMIT for rank > LAY_MAX_LEAVES
 * or size > INT_MAX.
 *   e.g. int s[2]={4,8}, d[2]={8,1}; lay_make(&L, 2, s, d) -> (4,8):(8,1) */
LAY_HD static inline LAY_MUST_CHECK int lay_make(lay_layout *out, int rank, const int *shape,
                                                 const int *stride) {
    if (!out) return LAY_E_ARG;
    lay__clear(out);
    if (rank < 1 || !shape) return LAY_E_ARG;
    if (rank > LAY_MAX_LEAVES) return LAY_E_LIMIT;
    long long s[LAY_MAX_LEAVES], d[LAY_MAX_LEAVES], p = 1;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < rank) {
            if (shape[i] < 1) return LAY_E_ARG;
            s[i] = shape[i];
            d[i] = stride ? stride[i] : p;
            p *= shape[i];
            if (p > INT_MAX) return LAY_E_LIMIT;
        }
    return lay__from_leaves(out, rank, s, d);
}

/* lay_l1 / lay_l2 / lay_l3: by-value constructors for device code: s0:d0, (s0,s1):(d0,d1),
 * (s0,s1,s2):(d0,d1,d2). An extent < 1 gives an invalid layout (lay_valid is 0, size 0, and
 * the next status-returning operation reports LAY_E_INVALID). The structure (number of
 * leaves, nesting) never depends on the run-time values, so the compiler can fold it.
 *   e.g. lay_l2(M, K, lda, 1) is the row-major (M,K) matrix with leading dimension lda */
LAY_HD static inline lay_layout lay_l1(int s0, int d0) {
    lay_layout L;
    L.n = 0;
    L.ntok = 0;
    L.n = 1;
    L.ntok = 1;
    L.shape[0] = s0;
    L.stride[0] = d0;
    L.tok[0] = LAY_TOK_LEAF;
    return L;
}
LAY_HD static inline lay_layout lay_l2(int s0, int s1, int d0, int d1) {
    lay_layout L;
    L.n = 0;
    L.ntok = 0;
    L.n = 2;
    L.ntok = 4;
    L.shape[0] = s0;
    L.shape[1] = s1;
    L.stride[0] = d0;
    L.stride[1] = d1;
    L.tok[0] = LAY_TOK_OPEN;
    L.tok[1] = LAY_TOK_LEAF;
    L.tok[2] = LAY_TOK_LEAF;
    L.tok[3] = LAY_TOK_CLOSE;
    return L;
}
LAY_HD static inline lay_layout lay_l3(int s0, int s1, int s2, int d0, int d1, int d2) {
    lay_layout L;
    L.n = 0;
    L.ntok = 0;
    L.n = 3;
    L.ntok = 5;
    L.shape[0] = s0;
    L.shape[1] = s1;
    L.shape[2] = s2;
    L.stride[0] = d0;
    L.stride[1] = d1;
    L.stride[2] = d2;
    L.tok[0] = LAY_TOK_OPEN;
    L.tok[1] = LAY_TOK_LEAF;
    L.tok[2] = LAY_TOK_LEAF;
    L.tok[3] = LAY_TOK_LEAF;
    L.tok[4] = LAY_TOK_CLOSE;
    return L;
}

/* lay_make_layout: the tuple (M0,M1,...,Mk-1) of k layouts, CuTe's make_layout(L0, L1, ...):
 * mode i of the result is modes[i] (k == 1 gives a rank-1 tuple such as (8):(2)).
 * Errors: LAY_E_ARG (k < 1), LAY_E_INVALID (an invalid mode), LAY_E_LIMIT.
 *   e.g. make_layout(4:1, (2,3):(4,8)) -> (4,(2,3)):(1,(4,8)) */
LAY_HD static inline LAY_MUST_CHECK int lay_make_layout(lay_layout *out, int k,
                                                        const lay_layout *modes) {
    if (!out) return LAY_E_ARG;
    lay_layout R;
    lay__clear(&R);
    if (k < 1 || !modes) return lay__fail(out, LAY_E_ARG);
    int rc = lay__put_tok(&R, LAY_TOK_OPEN);
    for (int i = 0; i < k && rc == LAY_OK; ++i) rc = lay__put_sub(&R, &modes[i]);
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc == LAY_OK && lay_size(R) < 1) rc = LAY_E_LIMIT;
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* Two-mode make_layout, the common case. */
LAY_HD static inline LAY_MUST_CHECK int lay_make_layout2(lay_layout *out, lay_layout a,
                                                         lay_layout b) {
    lay_layout m[2];
    m[0] = a;
    m[1] = b;
    return lay_make_layout(out, 2, m);
}

/* lay_get: mode i of L (CuTe's layout<i>(L) / get<i>), with its nesting; mode 0 of an integral
 * layout is the layout itself. Errors: LAY_E_INVALID, LAY_E_ARG (i out of range).
 *   e.g. get((3,(2,3)):(3,(12,1)), 1) -> (2,3):(12,1) */
LAY_HD static inline LAY_MUST_CHECK int lay_get(lay_layout *out, lay_layout L, int i) {
    if (!out) return LAY_E_ARG;
    int t0, t1, l0, l1;
    int rc = lay__mode_span(&L, i, &t0, &t1, &l0, &l1);
    if (rc != LAY_OK) return lay__fail(out, rc);
    lay_layout R;
    lay__clear(&R);
    rc = lay__put_span(&R, &L, t0, t1, l0, l1);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* lay_crd2idx: L(i), the offset of 1-D index i (colexicographic over the leaves; the last
 * leaf absorbs i >= size). 64-bit result.
 *   e.g. crd2idx((4,8):(8,1), 5) == 9 */
LAY_HD static inline lay_off lay_crd2idx(lay_layout L, lay_off i) {
    lay_off off = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            if (k == L.n - 1) {
                off += i * L.stride[k];
            } else {
                off += (i % L.shape[k]) * L.stride[k];
                i /= L.shape[k];
            }
        }
    return off;
}

LAY_HD LAY_NOINLINE_DEV static inline lay_off lay__crd2idx_nested(lay_layout L, const lay_off *crd);

/* lay_crd2idx_modes: offset of a coordinate given one 1-D coordinate per top-level mode
 * (crd[m] indexes mode m colexicographically; the last leaf of each mode is unbounded).
 * crd must have rank(L) entries. On the GPU, flat layouts fold to a dot product; nested ones
 * go through an out-of-line helper (index those with the 1-D lay_crd2idx, which folds).
 *   e.g. crd2idx_modes((4,(2,4)):(8,(1,2)), {1,5}) == 8 + 1 + 4 == 13 */
LAY_HD static inline lay_off lay_crd2idx_modes(lay_layout L, const lay_off *crd) {
    if (lay__is_flat(&L)) {
        lay_off off = 0;
        LAY_UNROLL
        for (int k = 0; k < LAY_MAX_LEAVES; ++k)
            if (k < L.n) off += crd[k] * L.stride[k];
        return off;
    }
    return lay__crd2idx_nested(L, crd);
}

/* Nested layouts: the top-level mode of each leaf from the nesting tokens. Kept out of line on
 * the GPU so that the (common) flat case compiles quickly; nested layouts built from
 * constants fold only when the compiler inlines it, so prefer flat layouts in kernels. */
LAY_HD LAY_NOINLINE_DEV static inline lay_off lay__crd2idx_nested(lay_layout L,
                                                                  const lay_off *crd) {
    int mode[LAY_MAX_LEAVES];
    lay_off rest[LAY_MAX_RANK];
    int r = lay__leaf_modes(&L, mode);
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m) rest[m] = m < r ? crd[m] : 0;
    lay_off off = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            int m = mode[k];
            int last = (k == L.n - 1) || (mode[k + 1 < LAY_MAX_LEAVES ? k + 1 : k] != m);
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == m) {
                    if (last) {
                        off += rest[q] * L.stride[k];
                    } else {
                        off += (rest[q] % L.shape[k]) * L.stride[k];
                        rest[q] /= L.shape[k];
                    }
                }
        }
    return off;
}

/* lay_crd2idx2 / lay_crd2idx3: rank-2/rank-3 shorthands of lay_crd2idx_modes.
 *   e.g. crd2idx2((M,K):(lda,1), m, k) == m*lda + k */
LAY_HD static inline lay_off lay_crd2idx2(lay_layout L, lay_off c0, lay_off c1) {
    lay_off c[2];
    c[0] = c0;
    c[1] = c1;
    return lay_crd2idx_modes(L, c);
}
LAY_HD static inline lay_off lay_crd2idx3(lay_layout L, lay_off c0, lay_off c1, lay_off c2) {
    lay_off c[3];
    c[0] = c0;
    c[1] = c1;
    c[2] = c2;
    return lay_crd2idx_modes(L, c);
}

/* lay_idx2crd: the natural (hierarchical) coordinate of 1-D index i in shape(L), one entry
 * per leaf: crd[k] = (i / prod(shape[0..k-1])) % shape[k] (the last leaf unbounded).
 * Strides are ignored. Print it with lay_sprint_crd (layout_print.h).
 *   e.g. idx2crd((3,(2,3)), 4) -> leaves {1,1,0}, i.e. (1,(1,0)) */
LAY_HD static inline void lay_idx2crd(lay_layout L, lay_off i, lay_off *crd) {
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            if (k == L.n - 1) {
                crd[k] = i;
            } else {
                crd[k] = i % L.shape[k];
                i /= L.shape[k];
            }
        }
}

/* lay_idx2crd_modes: like lay_idx2crd but one 1-D coordinate per top-level mode
 * (crd[m] in [0, size(mode m))). Returns the rank.
 *   e.g. idx2crd_modes((4,8):(8,1), 13) -> {1, 3} */
LAY_HD static inline int lay_idx2crd_modes(lay_layout L, lay_off i, lay_off *crd) {
    int mode[LAY_MAX_LEAVES];
    int r = lay__leaf_modes(&L, mode);
    lay_off scale[LAY_MAX_RANK];
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m) {
        scale[m] = 1;
        if (m < r) crd[m] = 0;
    }
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            lay_off c;
            if (k == L.n - 1) {
                c = i;
            } else {
                c = i % L.shape[k];
                i /= L.shape[k];
            }
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == mode[k]) {
                    crd[q] += c * scale[q];
                    scale[q] *= L.shape[k];
                }
        }
    return r;
}

/* ======================================================================================
 * Slicing
 * ====================================================================================== */

/* lay_slice: fix some top-level modes, keep the free ones (CuTe's slice / L(c0,_,c2)):
 * crd has rank(L) entries, each a 1-D coordinate within its mode or LAY_FREE (`_`).
 * *out = (free modes, in order) as a tuple (one free mode gives a rank-1 tuple, as CuTe);
 * *offset = the offset contributed by the fixed modes. All modes fixed: *out = 1:0.
 * Errors: LAY_E_INVALID, LAY_E_ARG (a coordinate outside its mode), LAY_E_LIMIT.
 *   e.g. slice((4,8):(8,1), {_, 3}) -> (4):(8) with offset 3 */
LAY_HD static inline LAY_MUST_CHECK int lay_slice(lay_layout *out, lay_off *offset, lay_layout L,
                                                  const int *crd) {
    if (!out || !offset || !crd) return LAY_E_ARG;
    *offset = 0;
    if (!lay_valid(L)) return lay__fail(out, LAY_E_INVALID);
    int mode[LAY_MAX_LEAVES];
    int r = lay__leaf_modes(&L, mode);
    if (r > LAY_MAX_RANK) return lay__fail(out, LAY_E_LIMIT);
    lay_off c[LAY_MAX_RANK];
    int nfree = 0;
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m) {
        c[m] = 0;
        if (m < r) {
            if (crd[m] == LAY_FREE) nfree++;
            else if (crd[m] < 0) return lay__fail(out, LAY_E_ARG);
            else c[m] = crd[m];
        }
    }
    lay_layout R;
    lay__clear(&R);
    int rc = LAY_OK;
    if (nfree == 0) {
        rc = lay__put_leaf(&R, 1, 0);
    } else {
        rc = lay__put_tok(&R, LAY_TOK_OPEN);
        LAY_UNROLL
        for (int m = 0; m < LAY_MAX_RANK; ++m)
            if (m < r && crd[m] == LAY_FREE && rc == LAY_OK) {
                int t0, t1, l0, l1;
                rc = lay__mode_span(&L, m, &t0, &t1, &l0, &l1);
                if (rc == LAY_OK) rc = lay__put_span(&R, &L, t0, t1, l0, l1);
            }
        if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    }
    if (rc != LAY_OK) return lay__fail(out, rc);
    /* offset of the fixed modes: evaluate with free modes at 0; check bounds */
    lay_off off = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < L.n) {
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == mode[k] && crd[q] != LAY_FREE) {
                    off += (c[q] % L.shape[k]) * L.stride[k];
                    c[q] /= L.shape[k];
                }
        }
    LAY_UNROLL
    for (int q = 0; q < LAY_MAX_RANK; ++q)
        if (q < r && c[q] != 0) return lay__fail(out, LAY_E_ARG);
    *out = R;
    *offset = off;
    return LAY_OK;
}

/* ======================================================================================
 * Coalesce, filter
 * ====================================================================================== */

/* lay_coalesce: the same function [0,size) -> offsets with the fewest modes: drop size-1
 * leaves, merge neighbours with shape0*stride0 == stride1; result is flat (integral if one
 * mode is left; 1:0 if none).
 *   e.g. coalesce((2,1,6):(1,7,2)) -> 12:1, coalesce((4,8):(8,1)) -> (4,8):(8,1) */
LAY_HD static inline LAY_MUST_CHECK int lay_coalesce(lay_layout *out, lay_layout L) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(L)) return lay__fail(out, LAY_E_INVALID);
    long long rs[LAY_MAX_LEAVES], rd[LAY_MAX_LEAVES];
    int k = 1;
    rs[0] = 1;
    rd[0] = 0;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L.n) {
            long long s = L.shape[i], d = L.stride[i];
            if (s == 1) continue;
            if (rs[k - 1] == 1) {
                rs[k - 1] = s;
                rd[k - 1] = d;
            } else if (rs[k - 1] * rd[k - 1] == d) {
                rs[k - 1] *= s;
            } else {
                rs[k] = s;
                rd[k] = d;
                k++;
            }
        }
    return lay__from_leaves(out, k, rs, rd);
}

/* lay_coalesce_profile: by-mode coalesce (CuTe's coalesce(layout, profile)): for each
 * top-level mode i < rank(profile): if profile mode i is integral, coalesce mode i of L as a
 * whole; if it is a tuple, coalesce mode i by-mode one level further (profile leaves are
 * integral there). Modes of L past rank(profile) are kept. Only the structure of profile is
 * used (parse "(1,1)" with lay_parse_tuple).
 * Errors: LAY_E_INVALID, LAY_E_RANK (rank(profile) > rank(L) or profile deeper than 2).
 *   e.g. coalesce((2,(1,6)):(1,(6,2)), (1,1)) -> (2,6):(1,2) */
LAY_HD static inline LAY_MUST_CHECK int lay_coalesce_profile(lay_layout *out, lay_layout L,
                                                             lay_layout profile) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(L) || !lay_valid(profile)) return lay__fail(out, LAY_E_INVALID);
    if (profile.tok[0] == LAY_TOK_LEAF) return lay_coalesce(out, L);
    int rp = lay_rank(profile), rl = lay_rank(L);
    if (rp > rl) return lay__fail(out, LAY_E_RANK);
    lay_layout R;
    lay__clear(&R);
    int rc = lay__put_tok(&R, LAY_TOK_OPEN);
    for (int i = 0; i < rl && rc == LAY_OK; ++i) {
        lay_layout Li, Pi, Ci;
        rc = lay_get(&Li, L, i);
        if (rc != LAY_OK) break;
        if (i < rp) {
            rc = lay_get(&Pi, profile, i);
            if (rc != LAY_OK) break;
            if (Pi.tok[0] == LAY_TOK_LEAF) {
                rc = lay_coalesce(&Ci, Li);
            } else {
                /* one more level: Pi's modes must be integral */
                int rpi = lay_rank(Pi), rli = lay_rank(Li);
                if (lay_depth(Pi) > 1 || rpi > rli) {
                    rc = LAY_E_RANK;
                    break;
                }
                lay__clear(&Ci);
                rc = lay__put_tok(&Ci, LAY_TOK_OPEN);
                for (int j = 0; j < rli && rc == LAY_OK; ++j) {
                    lay_layout Lij, Cij;
                    rc = lay_get(&Lij, Li, j);
                    if (rc == LAY_OK) {
                        if (j < rpi) rc = lay_coalesce(&Cij, Lij);
                        else Cij = Lij;
                    }
                    if (rc == LAY_OK) rc = lay__put_sub(&Ci, &Cij);
                }
                if (rc == LAY_OK) rc = lay__put_tok(&Ci, LAY_TOK_CLOSE);
            }
            if (rc == LAY_OK) rc = lay__put_sub(&R, &Ci);
        } else {
            rc = lay__put_sub(&R, &Li);
        }
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* lay_filter: coalesce after dropping stride-0 and size-1 leaves (the distinct offsets of
 * L, compactly); 1:0 if nothing is left.
 *   e.g. filter((4,8):(0,1)) -> 8:1 */
LAY_HD static inline LAY_MUST_CHECK int lay_filter(lay_layout *out, lay_layout L) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(L)) return lay__fail(out, LAY_E_INVALID);
    lay_layout F;
    lay__clear(&F);
    long long s[LAY_MAX_LEAVES], d[LAY_MAX_LEAVES];
    int k = 0;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L.n && L.shape[i] != 1 && L.stride[i] != 0) {
            s[k] = L.shape[i];
            d[k] = L.stride[i];
            k++;
        }
    if (k == 0) return lay__from_leaves(out, 0, s, d);
    LAY_TRY(lay__from_leaves(&F, k, s, d));
    return lay_coalesce(out, F);
}

/* ======================================================================================
 * Composition
 * ====================================================================================== */

/* Compose the coalesced flat layout fa with the single leaf s:d and append the result to R
 * (one leaf, or a tuple of leaves). */
LAY_HD static inline int lay__compose_leaf(lay_layout *R, const lay_layout *fa, int s, int d) {
    if (d == 0) return lay__put_leaf(R, s, 0);
    if (d < 0) return LAY_E_STRIDE;
    long long rs[LAY_MAX_LEAVES], rd[LAY_MAX_LEAVES];
    int k = 0;
    long long rest_shape = s, rest_stride = d;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES - 1; ++i)
        if (i < fa->n - 1) {
            long long cs = fa->shape[i], cd = fa->stride[i];
            /* once B is used up (rest_shape == 1) only the stride of the size-1 tail is tracked */
            if (rest_shape != 1 && cs % rest_stride != 0 && rest_stride % cs != 0)
                return LAY_E_DIVIDE;
            long long q = cs / rest_stride;
            if (q < 1) q = 1;
            long long ns = q < rest_shape ? q : rest_shape;
            if (rest_shape % ns != 0) return LAY_E_DIVIDE;
            if (ns != 1) {
                rs[k] = ns;
                rd[k] = rest_stride * cd;
                k++;
            }
            rest_shape /= ns;
            rest_stride = lay__ceil_div(rest_stride, cs);
        }
    if (rest_shape != 1 || k == 0) {
        rs[k] = rest_shape;
        rd[k] = rest_stride * fa->stride[fa->n - 1];
        k++;
    }
    if (k == 1) return lay__put_leaf(R, rs[0], rd[0]);
    LAY_TRY(lay__put_tok(R, LAY_TOK_OPEN));
    for (int j = 0; j < k; ++j) LAY_TRY(lay__put_leaf(R, rs[j], rd[j]));
    return lay__put_tok(R, LAY_TOK_CLOSE);
}

/* lay_composition: R = A o B, R(i) = A(B(i)) for i < size(B); R has B's structure with each
 * leaf of B replaced by the modes of A it walks through (CuTe's composition).
 * Errors: LAY_E_DIVIDE when a stride of B does not divide (or is not a multiple of) a shape
 * of A it crosses, or a shape of B does not split evenly over A's modes (no layout has that
 * function); LAY_E_STRIDE for negative strides; LAY_E_INVALID; LAY_E_LIMIT.
 *   e.g. (6,2):(8,2) o (4,3):(3,1) -> ((2,2),3):((24,2),8); (2,3):(4,1) o (3,4):(3,1) fails */
LAY_HD static inline LAY_MUST_CHECK int lay_composition(lay_layout *out, lay_layout A,
                                                        lay_layout B) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(B)) return lay__fail(out, LAY_E_INVALID);
    int rc = lay__check_nonneg(&A);
    if (rc == LAY_OK) rc = lay__check_nonneg(&B);
    if (rc != LAY_OK) return lay__fail(out, rc);
    lay_layout fa, R;
    rc = lay_coalesce(&fa, A);
    if (rc != LAY_OK) return lay__fail(out, rc);
    lay__clear(&R);
    int leaf = 0;
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_TOK; ++k)
        if (k < B.ntok && rc == LAY_OK) {
            if (B.tok[k] == LAY_TOK_LEAF) {
                rc = lay__compose_leaf(&R, &fa, B.shape[leaf], B.stride[leaf]);
                leaf++;
            } else {
                rc = lay__put_tok(&R, B.tok[k]);
            }
        }
    if (rc == LAY_OK && lay_size(R) != lay_size(B)) rc = LAY_E_DIVIDE; /* paranoia */
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* lay_composition_tiler: by-mode composition A o <T0,T1,...>: mode i of the result is
 * A_i o T_i for i < rank(tiler), A_i itself past it (the result is always a tuple).
 * Errors: as lay_composition, plus LAY_E_RANK when rank(tiler) > rank(A).
 *   e.g. (12,(4,8)):(59,(13,1)) o <3:4,8:2> -> (3,(2,4)):(236,(26,1)) */
LAY_HD static inline LAY_MUST_CHECK int lay_composition_tiler(lay_layout *out, lay_layout A,
                                                              lay_tiler T) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(T.l)) return lay__fail(out, LAY_E_INVALID);
    int ra = lay_rank(A), rt = lay_rank(T.l);
    if (rt > ra) return lay__fail(out, LAY_E_RANK);
    lay_layout R;
    lay__clear(&R);
    int rc = lay__put_tok(&R, LAY_TOK_OPEN);
    for (int i = 0; i < ra && rc == LAY_OK; ++i) {
        lay_layout Ai, Ti, Ci;
        rc = lay_get(&Ai, A, i);
        if (rc == LAY_OK && i < rt) {
            rc = lay_get(&Ti, T.l, i);
            if (rc == LAY_OK) rc = lay_composition(&Ci, Ai, Ti);
        } else {
            Ci = Ai;
        }
        if (rc == LAY_OK) rc = lay__put_sub(&R, &Ci);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* ======================================================================================
 * Complement and inverses
 * ====================================================================================== */

/* Leaves sorted ascending by (stride, shape, prefix product of shape), stable. */
LAY_HD static inline void lay__sorted(const lay_layout *L, long long *d, long long *s,
                                      long long *r) {
    long long p = 1;
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < L->n) {
            d[i] = L->stride[i];
            s[i] = L->shape[i];
            r[i] = p;
            p *= L->shape[i];
        }
    for (int i = 1; i < L->n; ++i) {
        long long kd = d[i], ks = s[i], kr = r[i];
        int j = i - 1;
        while (j >= 0 && (d[j] > kd || (d[j] == kd && (s[j] > ks || (s[j] == ks && r[j] > kr))))) {
            d[j + 1] = d[j];
            s[j + 1] = s[j];
            r[j + 1] = r[j];
            j--;
        }
        d[j + 1] = kd;
        s[j + 1] = ks;
        r[j + 1] = kr;
    }
}

/* lay_complement: the layout C (CuTe's complement(A, M)) of the offsets "between and after"
 * A's image: (A, C) is injective and C covers up to cotarget M (its last mode is
 * ceil(M / (largest stride*shape))). Result coalesced. Stride-0 and size-1 leaves of A are
 * ignored. CuTe's rule: walking A's leaves in stride order with `current` = span so far
 * (shape*stride of the previous leaf, 1 at the start), each leaf adds the mode
 * (stride / current rounded down) : current; strides need not divide. Only overlapping modes
 * are refused: a stride below `current` means A's modes overlap (A is not injective, or its
 * modes interleave), LAY_E_NOINV. Other errors: LAY_E_ARG for M < 1, LAY_E_STRIDE,
 * LAY_E_INVALID, LAY_E_LIMIT.
 *   e.g. complement(4:2, 24) -> (2,3):(1,8); complement((2,2):(1,6), 24) -> (3,2):(2,12);
 *        complement((2,3):(1,5), 30) -> (2,2):(2,15); complement((2,3):(3,2), 24) fails */
LAY_HD static inline LAY_MUST_CHECK int lay_complement(lay_layout *out, lay_layout A, long long M) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A)) return lay__fail(out, LAY_E_INVALID);
    if (M < 1) return lay__fail(out, LAY_E_ARG);
    int rc = lay__check_nonneg(&A);
    if (rc != LAY_OK) return lay__fail(out, rc);
    long long d[LAY_MAX_LEAVES], s[LAY_MAX_LEAVES], r[LAY_MAX_LEAVES];
    long long rs[LAY_MAX_LEAVES + 1], rd[LAY_MAX_LEAVES + 1];
    lay__sorted(&A, d, s, r);
    long long cur = 1;
    int k = 0;
    for (int i = 0; i < A.n; ++i) {
        if (d[i] == 0 || s[i] == 1) continue;
        if (d[i] < cur) return lay__fail(out, LAY_E_NOINV); /* the modes overlap */
        rs[k] = d[i] / cur;                                 /* rounded down, as CuTe */
        rd[k] = cur;
        k++;
        cur = s[i] * d[i];
        if (cur > INT_MAX) return lay__fail(out, LAY_E_LIMIT);
    }
    rs[k] = lay__ceil_div(M, cur);
    rd[k] = cur;
    k++;
    /* drop size-1 entries up front (coalesce would) so k fits the leaf limit */
    int j = 0;
    for (int i = 0; i < k; ++i)
        if (rs[i] != 1) {
            rs[j] = rs[i];
            rd[j] = rd[i];
            j++;
        }
    lay_layout C;
    rc = lay__from_leaves(&C, j, rs, rd);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return lay_coalesce(out, C);
}

/* lay_right_inverse: R with A(R(i)) == i for i < size(R), the largest such compact R
 * (CuTe's right_inverse): follows A's leaves in stride order from stride 1 while they chain.
 * Stride-0 leaves are skipped (as CuTe C++); 1:0 when no leaf has stride 1.
 * Errors: LAY_E_STRIDE, LAY_E_INVALID.
 *   e.g. right_inverse((4,8):(8,1)) -> (8,4):(4,1); right_inverse(8:2) -> 1:0 */
LAY_HD static inline LAY_MUST_CHECK int lay_right_inverse(lay_layout *out, lay_layout A) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A)) return lay__fail(out, LAY_E_INVALID);
    int rc = lay__check_nonneg(&A);
    if (rc != LAY_OK) return lay__fail(out, rc);
    long long d[LAY_MAX_LEAVES], s[LAY_MAX_LEAVES], r[LAY_MAX_LEAVES];
    long long rs[LAY_MAX_LEAVES], rd[LAY_MAX_LEAVES];
    lay__sorted(&A, d, s, r);
    long long cur = 1;
    int k = 0;
    for (int i = 0; i < A.n; ++i) {
        if (s[i] == 1 || d[i] == 0) continue;
        if (d[i] != cur) break;
        rs[k] = s[i];
        rd[k] = r[i];
        k++;
        cur = s[i] * d[i];
    }
    lay_layout R;
    rc = lay__from_leaves(&R, k, rs, rd);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return lay_coalesce(out, R);
}

/* lay_left_inverse: R with R(A(i)) == i for all i < size(A) (CuTe's left_inverse =
 * right_inverse of (A, complement(A))). Errors: LAY_E_NOINV when A is not injective (no
 * left inverse exists), LAY_E_DIVIDE/LAY_E_STRIDE/LAY_E_INVALID.
 *   e.g. left_inverse((4,8):(8,1)) -> (8,4):(4,1); left_inverse(4:2) -> (2,4):(4,1) */
LAY_HD static inline LAY_MUST_CHECK int lay_left_inverse(lay_layout *out, lay_layout A) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A)) return lay__fail(out, LAY_E_INVALID);
    lay_layout C, AC, R;
    int rc = lay_complement(&C, A, 1);
    if (rc == LAY_E_DIVIDE) rc = LAY_E_NOINV;
    if (rc == LAY_OK) rc = lay_make_layout2(&AC, A, C);
    if (rc == LAY_OK) rc = lay_right_inverse(&R, AC);
    if (rc == LAY_OK && lay_size(R) != lay_size(AC)) rc = LAY_E_NOINV;
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* ======================================================================================
 * Divide
 * ====================================================================================== */

/* lay_logical_divide: A / B = A o (B, complement(B, size(A))): mode 0 walks one tile B,
 * mode 1 walks the tiles. Result rank 2 with B's structure in mode 0.
 * Errors: those of lay_complement and lay_composition.
 *   e.g. logical_divide(24:1, 4:1) -> (4,6):(1,4) */
LAY_HD static inline LAY_MUST_CHECK int lay_logical_divide(lay_layout *out, lay_layout A,
                                                           lay_layout B) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(B)) return lay__fail(out, LAY_E_INVALID);
    lay_layout C, BC;
    int rc = lay_complement(&C, B, lay_size(A));
    if (rc == LAY_OK) rc = lay_make_layout2(&BC, B, C);
    if (rc == LAY_OK) rc = lay_composition(out, A, BC);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* Shared by the tiler forms: splitter 0 = logical_divide, 1 = logical_product. */
LAY_HD static inline int lay__logical_product(lay_layout *out, lay_layout A, lay_layout B);
LAY_HD static inline int lay__split(lay_layout *out, lay_layout A, lay_layout B, int which) {
    if (which == 0) return lay_logical_divide(out, A, B);
    return lay__logical_product(out, A, B);
}

/* By-mode split: (split(A0,T0), split(A1,T1), ..., A_r, ...) */
LAY_HD static inline int lay__bymode(lay_layout *out, lay_layout A, lay_tiler T, int which) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(T.l)) return lay__fail(out, LAY_E_INVALID);
    int ra = lay_rank(A), rt = lay_rank(T.l);
    if (rt > ra) return lay__fail(out, LAY_E_RANK);
    lay_layout R;
    lay__clear(&R);
    int rc = lay__put_tok(&R, LAY_TOK_OPEN);
    for (int i = 0; i < ra && rc == LAY_OK; ++i) {
        lay_layout Ai, Ti, Ci;
        rc = lay_get(&Ai, A, i);
        if (rc == LAY_OK && i < rt) {
            rc = lay_get(&Ti, T.l, i);
            if (rc == LAY_OK) rc = lay__split(&Ci, Ai, Ti, which);
        } else {
            Ci = Ai;
        }
        if (rc == LAY_OK) rc = lay__put_sub(&R, &Ci);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* Zipped by-mode split: ((split_i[0] ...), (split_i[1] ..., A_r ...)) */
LAY_HD static inline int lay__zipped(lay_layout *out, lay_layout A, lay_tiler T, int which) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(T.l)) return lay__fail(out, LAY_E_INVALID);
    int ra = lay_rank(A), rt = lay_rank(T.l);
    if (rt > ra) return lay__fail(out, LAY_E_RANK);
    lay_layout tile, rest, R;
    lay__clear(&tile);
    lay__clear(&rest);
    int rc = lay__put_tok(&tile, LAY_TOK_OPEN);
    if (rc == LAY_OK) rc = lay__put_tok(&rest, LAY_TOK_OPEN);
    for (int i = 0; i < ra && rc == LAY_OK; ++i) {
        lay_layout Ai, Ti, S, S0, S1;
        rc = lay_get(&Ai, A, i);
        if (rc != LAY_OK) break;
        if (i < rt) {
            rc = lay_get(&Ti, T.l, i);
            if (rc == LAY_OK) rc = lay__split(&S, Ai, Ti, which);
            if (rc == LAY_OK) rc = lay_get(&S0, S, 0);
            if (rc == LAY_OK) rc = lay_get(&S1, S, 1);
            if (rc == LAY_OK) rc = lay__put_sub(&tile, &S0);
            if (rc == LAY_OK) rc = lay__put_sub(&rest, &S1);
        } else {
            rc = lay__put_sub(&rest, &Ai);
        }
    }
    if (rc == LAY_OK) rc = lay__put_tok(&tile, LAY_TOK_CLOSE);
    if (rc == LAY_OK) rc = lay__put_tok(&rest, LAY_TOK_CLOSE);
    if (rc == LAY_OK) rc = lay_make_layout2(&R, tile, rest);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* Unpack mode 1 of a zipped result at top level: (r0, r1_0, r1_1, ...) */
LAY_HD static inline int lay__tiled(lay_layout *out, lay_layout Z) {
    lay_layout R, Z0, Z1, Z1j;
    int rc = lay_get(&Z0, Z, 0);
    if (rc == LAY_OK) rc = lay_get(&Z1, Z, 1);
    if (rc != LAY_OK) return lay__fail(out, rc);
    lay__clear(&R);
    rc = lay__put_tok(&R, LAY_TOK_OPEN);
    if (rc == LAY_OK) rc = lay__put_sub(&R, &Z0);
    int r1 = lay_rank(Z1);
    for (int j = 0; j < r1 && rc == LAY_OK; ++j) {
        rc = lay_get(&Z1j, Z1, j);
        if (rc == LAY_OK) rc = lay__put_sub(&R, &Z1j);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* lay_logical_divide_tiler: by-mode logical divide A / <T0,T1,...>: mode i of the result is
 * logical_divide(A_i, T_i) = (tile_i, rest_i); modes past rank(tiler) are kept.
 * Errors: those of lay_logical_divide, LAY_E_RANK when rank(tiler) > rank(A).
 *   e.g. (8,24):(1,8) / <4:1,8:1> -> ((4,2),(8,3)):((1,4),(8,64)) */
LAY_HD static inline LAY_MUST_CHECK int lay_logical_divide_tiler(lay_layout *out, lay_layout A,
                                                                 lay_tiler T) {
    return lay__bymode(out, A, T, 0);
}

/* lay_zipped_divide: logical divide with the tile modes gathered in mode 0 and the rest
 * modes (and A's modes past the tiler) in mode 1: ((tiles...),(rests...)). With a plain
 * layout B (lay_zipped_divide_layout) it equals lay_logical_divide.
 *   e.g. zipped_divide((8,24):(1,8), <4:1,8:1>) -> ((4,8),(2,3)):((1,8),(4,64)) */
LAY_HD static inline LAY_MUST_CHECK int lay_zipped_divide(lay_layout *out, lay_layout A,
                                                          lay_tiler T) {
    return lay__zipped(out, A, T, 0);
}
LAY_HD static inline LAY_MUST_CHECK int lay_zipped_divide_layout(lay_layout *out, lay_layout A,
                                                                 lay_layout B) {
    return lay_logical_divide(out, A, B);
}

/* lay_tiled_divide: zipped_divide with the rest modes unpacked at top level:
 * ((tiles...), rest0, rest1, ...).
 *   e.g. tiled_divide((8,24):(1,8), <4:1,8:1>) -> ((4,8),2,3):((1,8),4,64) */
LAY_HD static inline LAY_MUST_CHECK int lay_tiled_divide(lay_layout *out, lay_layout A,
                                                         lay_tiler T) {
    lay_layout Z;
    int rc = lay_zipped_divide(&Z, A, T);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return lay__tiled(out, Z);
}

/* ======================================================================================
 * Product
 * ====================================================================================== */

LAY_HD static inline int lay__logical_product(lay_layout *out, lay_layout A, lay_layout B) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(B)) return lay__fail(out, LAY_E_INVALID);
    int rc = lay__check_nonneg(&B);
    if (rc != LAY_OK) return lay__fail(out, rc);
    long long M = (long long)lay_size(A) * lay_cosize(B);
    if (M > INT_MAX) return lay__fail(out, LAY_E_LIMIT);
    lay_layout C, P;
    rc = lay_complement(&C, A, M);
    if (rc == LAY_OK) rc = lay_composition(&P, C, B);
    if (rc == LAY_OK) rc = lay_make_layout2(out, A, P);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return LAY_OK;
}

/* lay_logical_product: A x B = (A, complement(A, size(A)*cosize(B)) o B): mode 0 is one A,
 * mode 1 repeats it in the pattern of B. Errors: those of complement/composition,
 * LAY_E_LIMIT.
 *   e.g. logical_product((2,2):(4,1), 6:1) -> ((2,2),(2,3)):((4,1),(2,8)) */
LAY_HD static inline LAY_MUST_CHECK int lay_logical_product(lay_layout *out, lay_layout A,
                                                            lay_layout B) {
    return lay__logical_product(out, A, B);
}

/* lay_logical_product_tiler: by-mode logical product, mode i = logical_product(A_i, T_i).
 *   e.g. (2,5):(5,1) x <3:5,4:6> -> ((2,3),(5,4)):((5,10),(1,30)) */
LAY_HD static inline LAY_MUST_CHECK int lay_logical_product_tiler(lay_layout *out, lay_layout A,
                                                                  lay_tiler T) {
    return lay__bymode(out, A, T, 1);
}

/* lay_zipped_product: by-mode product regrouped ((A modes...),(repeat modes...)); with a
 * plain layout B (lay_zipped_product_layout) it equals lay_logical_product.
 *   e.g. zipped_product((2,5):(5,1), <3:5,4:6>) -> ((2,5),(3,4)):((5,1),(10,30)) */
LAY_HD static inline LAY_MUST_CHECK int lay_zipped_product(lay_layout *out, lay_layout A,
                                                           lay_tiler T) {
    return lay__zipped(out, A, T, 1);
}
LAY_HD static inline LAY_MUST_CHECK int lay_zipped_product_layout(lay_layout *out, lay_layout A,
                                                                  lay_layout B) {
    return lay__logical_product(out, A, B);
}

/* lay_tiled_product: zipped_product with the repeat modes unpacked at top level.
 *   e.g. tiled_product((2,5):(5,1), <3:5,4:6>) -> ((2,5),3,4):((5,1),10,30) */
LAY_HD static inline LAY_MUST_CHECK int lay_tiled_product(lay_layout *out, lay_layout A,
                                                          lay_tiler T) {
    lay_layout Z;
    int rc = lay_zipped_product(&Z, A, T);
    if (rc != LAY_OK) return lay__fail(out, rc);
    return lay__tiled(out, Z);
}

/* blocked (raked = 0) or raked (raked = 1) product, CuTe's definition. */
LAY_HD static inline int lay__block_rake(lay_layout *out, lay_layout A, lay_layout B, int raked) {
    if (!out) return LAY_E_ARG;
    if (!lay_valid(A) || !lay_valid(B)) return lay__fail(out, LAY_E_INVALID);
    int ra = lay_rank(A), rb = lay_rank(B);
    int R = ra > rb ? ra : rb;
    if (R > LAY_MAX_RANK) return lay__fail(out, LAY_E_LIMIT);
    lay_layout Ap, Bp, P, Res, one = lay_l1(1, 0);
    lay__clear(&Ap);
    lay__clear(&Bp);
    int rc = lay__put_tok(&Ap, LAY_TOK_OPEN);
    if (rc == LAY_OK) rc = lay__put_tok(&Bp, LAY_TOK_OPEN);
    for (int i = 0; i < R && rc == LAY_OK; ++i) {
        lay_layout m;
        if (i < ra) rc = lay_get(&m, A, i);
        else m = one;
        if (rc == LAY_OK) rc = lay__put_sub(&Ap, &m);
        if (rc == LAY_OK) {
            if (i < rb) rc = lay_get(&m, B, i);
            else m = one;
        }
        if (rc == LAY_OK) rc = lay__put_sub(&Bp, &m);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&Ap, LAY_TOK_CLOSE);
    if (rc == LAY_OK) rc = lay__put_tok(&Bp, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    long long M = (long long)lay_size(Ap) * lay_cosize(Bp);
    if (M > INT_MAX) return lay__fail(out, LAY_E_LIMIT);
    lay_layout C;
    rc = lay_complement(&C, Ap, M);
    if (rc == LAY_OK) rc = lay_composition(&P, C, Bp);
    if (rc != LAY_OK) return lay__fail(out, rc);
    lay__clear(&Res);
    rc = lay__put_tok(&Res, LAY_TOK_OPEN);
    for (int i = 0; i < R && rc == LAY_OK; ++i) {
        lay_layout ai, pi, z, cz;
        rc = lay_get(&ai, Ap, i);
        if (rc == LAY_OK) rc = lay_get(&pi, P, i);
        if (rc == LAY_OK) rc = raked ? lay_make_layout2(&z, pi, ai) : lay_make_layout2(&z, ai, pi);
        if (rc == LAY_OK) rc = lay_coalesce(&cz, z);
        if (rc == LAY_OK) rc = lay__put_sub(&Res, &cz);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&Res, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = Res;
    return LAY_OK;
}

/* lay_blocked_product: CuTe's blocked_product(A, B): B copies of the block A, A contiguous
 * within each block: mode i = coalesce((A_i, P_i)) where P = complement(A, ..) o B (both
 * padded with 1:0 to the larger rank). For rank 2: result(i,j) = A(i%a0, j%a1) +
 * size(A)*B(i/a0, j/a1) (a = shape of A).
 *   e.g. blocked_product((2,5):(5,1), (3,4):(1,3)) -> (6,(5,4)):(5,(1,30)) */
LAY_HD static inline LAY_MUST_CHECK int lay_blocked_product(lay_layout *out, lay_layout A,
                                                            lay_layout B) {
    return lay__block_rake(out, A, B, 0);
}

/* lay_raked_product: CuTe's raked_product(A, B): like blocked_product but interleaved (B's
 * coordinate varies fastest): mode i = coalesce((P_i, A_i)); for rank 2:
 * result(i,j) = A(i/b0, j/b1) + size(A)*B(i%b0, j%b1) (b = shape of B).
 *   e.g. raked_product((2,5):(5,1), (3,4):(1,3)) -> ((3,2),(4,5)):((10,5),(30,1)) */
LAY_HD static inline LAY_MUST_CHECK int lay_raked_product(lay_layout *out, lay_layout A,
                                                          lay_layout B) {
    return lay__block_rake(out, A, B, 1);
}

/* ======================================================================================
 * Tilers
 * ====================================================================================== */

/* lay_tiler_make: the by-mode tiler <modes[0], ..., modes[k-1]>.
 * Errors: LAY_E_ARG (k < 1), LAY_E_INVALID, LAY_E_LIMIT.
 *   e.g. modes {3:3, (2,4):(1,8)} -> <3:3,(2,4):(1,8)> */
LAY_HD static inline LAY_MUST_CHECK int lay_tiler_make(lay_tiler *out, int k,
                                                       const lay_layout *modes) {
    if (!out) return LAY_E_ARG;
    return lay_make_layout(&out->l, k, modes);
}

/* lay_tiler2 / lay_tiler3: shape tilers <t0:1,t1:1> / <t0:1,t1:1,t2:1> (CuTe's
 * make_shape(BLK_M, BLK_K)); an extent < 1 gives an invalid tiler.
 *   e.g. lay_tiler2(128, 32) = <128:1,32:1> */
LAY_HD static inline lay_tiler lay_tiler2(int t0, int t1) {
    lay_tiler T;
    T.l = lay_l2(t0, t1, 1, 1);
    return T;
}
LAY_HD static inline lay_tiler lay_tiler3(int t0, int t1, int t2) {
    lay_tiler T;
    T.l = lay_l3(t0, t1, t2, 1, 1, 1);
    return T;
}

/* ======================================================================================
 * Swizzle
 * ====================================================================================== */

/* lay_swizzle_make: Swizzle<B,M,S> (B bits of mask, M base bits kept, shift S; S may be
 * negative). Errors: LAY_E_ARG for B < 0, M < 0, or a mask outside 0..30 bits.
 *   e.g. lay_swizzle_make(&sw, 3, 3, 3) */
LAY_HD static inline LAY_MUST_CHECK int lay_swizzle_make(lay_swizzle *out, int b, int m, int s) {
    if (!out) return LAY_E_ARG;
    out->b = 0;
    out->m = 0;
    out->s = 0;
    int lo = s >= 0 ? m : m - s; /* lowest bit of the source field */
    int hi = (s >= 0 ? m + s : m) + b;
    if (b < 0 || m < 0 || lo < 0 || hi > 30 || (s < 0 && -s > 30)) return LAY_E_ARG;
    out->b = b;
    out->m = m;
    out->s = s;
    return LAY_OK;
}

/* lay_swizzle_apply: Sw<B,M,S>(x): x ^ ((x >> S) & (((1<<B)-1) << M)) for S >= 0, and
 * x ^ ((x << -S) & (((1<<B)-1) << (M-S))) for S < 0 (oracle notation). Bits of x are in
 * whatever unit the caller indexes (bytes, 2- or 4-byte elements).
 *   e.g. Sw<3,4,3>(128) == 144, Sw<3,2,3>(32) == 36 */
LAY_HD static inline lay_off lay_swizzle_apply(lay_swizzle sw, lay_off x) {
    lay_off mask = (((lay_off)1 << sw.b) - 1);
    if (sw.s >= 0) return x ^ ((x >> sw.s) & (mask << sw.m));
    return x ^ ((x << -sw.s) & (mask << (sw.m - sw.s)));
}

/* lay_swizzled_make: the composed layout Sw o offset o L, i -> Sw(offset + L(i)).
 * Errors: LAY_E_INVALID.  e.g. Sw<3,3,3> o 0 o (8,64):(64,1) */
LAY_HD static inline LAY_MUST_CHECK int lay_swizzled_make(lay_swizzled *out, lay_swizzle sw,
                                                          lay_off offset, lay_layout L) {
    if (!out) return LAY_E_ARG;
    out->sw = sw;
    out->offset = offset;
    out->layout = L;
    if (!lay_valid(L)) return LAY_E_INVALID;
    return LAY_OK;
}

/* lay_swizzled_crd2idx: Sw(offset + L(i)).
 *   e.g. (Sw<3,3,3> o 0 o (8,64):(64,1))(1) == 72 */
LAY_HD static inline lay_off lay_swizzled_crd2idx(lay_swizzled S, lay_off i) {
    return lay_swizzle_apply(S.sw, S.offset + lay_crd2idx(S.layout, i));
}

/* lay_swizzled_crd2idx2: Sw(offset + L(c0, c1)) for a rank-2 L. */
LAY_HD static inline lay_off lay_swizzled_crd2idx2(lay_swizzled S, lay_off c0, lay_off c1) {
    return lay_swizzle_apply(S.sw, S.offset + lay_crd2idx2(S.layout, c0, c1));
}

/* ======================================================================================
 * Tensors: pointer + layout, local_tile, local_partition
 * ====================================================================================== */

/* lay_make_tensor: view of ptr through L: element i is ((T*)ptr)[L(i)].
 *   e.g. lay_make_tensor(A, lay_l2(M, K, lda, 1)) */
LAY_HD static inline lay_tensor lay_make_tensor(void *ptr, lay_layout L) {
    lay_tensor t;
    t.ptr = ptr;
    t.off = 0;
    t.layout = L;
    return t;
}

/* LAY_AT / LAY_AT2 / LAY_AT3: the element of tensor t (element type T) at 1-D index i, or at
 * mode coordinates (i,j) / (i,j,k). */
#define LAY_AT(t, T, i) (((T *)(t).ptr)[(t).off + lay_crd2idx((t).layout, (i))])
#define LAY_AT2(t, T, i, j) (((T *)(t).ptr)[(t).off + lay_crd2idx2((t).layout, (i), (j))])
#define LAY_AT3(t, T, i, j, k) (((T *)(t).ptr)[(t).off + lay_crd2idx3((t).layout, (i), (j), (k))])

/* Keep the modes of L whose bit is set in proj (CuTe's dice with a Step<>); always a tuple. */
LAY_HD static inline int lay__dice(lay_layout *out, lay_layout L, unsigned proj) {
    int r = lay_rank(L);
    lay_layout R;
    lay__clear(&R);
    int rc = lay__put_tok(&R, LAY_TOK_OPEN), kept = 0;
    for (int i = 0; i < r && rc == LAY_OK; ++i)
        if (i < 32 && ((proj >> i) & 1u)) {
            lay_layout m;
            rc = lay_get(&m, L, i);
            if (rc == LAY_OK) rc = lay__put_sub(&R, &m);
            kept++;
        }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc == LAY_OK && kept == 0) rc = LAY_E_ARG;
    if (rc != LAY_OK) return lay__fail(out, rc);
    *out = R;
    return LAY_OK;
}

/* Generic local_tile (any nesting): zipped_divide, then slice the rest mode. */
LAY_HD static inline int lay__local_tile_generic(lay_tensor *out, lay_tensor t, lay_tiler tiler,
                                                 const int *coord, unsigned proj) {
    if (!out || !coord) return LAY_E_ARG;
    out->ptr = t.ptr;
    out->off = t.off;
    lay_tiler T;
    lay_layout Z, Z0, Z1, rest, R;
    int rc = lay__dice(&T.l, tiler.l, proj);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    int rt = lay_rank(tiler.l), k = 0;
    int c[LAY_MAX_RANK];
    for (int i = 0; i < rt && i < 32; ++i)
        if ((proj >> i) & 1u) c[k++] = coord[i];
    rc = lay_zipped_divide(&Z, t.layout, T);
    if (rc == LAY_OK) rc = lay_get(&Z0, Z, 0);
    if (rc == LAY_OK) rc = lay_get(&Z1, Z, 1);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    int r1 = lay_rank(Z1);
    if (r1 > LAY_MAX_RANK) return lay__fail(&out->layout, LAY_E_LIMIT);
    for (int i = k; i < r1; ++i) c[i] = LAY_FREE;
    lay_off off = 0;
    rc = lay_slice(&rest, &off, Z1, c);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    /* result: (tile modes..., free rest modes...) */
    lay__clear(&R);
    rc = lay__put_tok(&R, LAY_TOK_OPEN);
    int r0 = lay_rank(Z0);
    for (int i = 0; i < r0 && rc == LAY_OK; ++i) {
        lay_layout m;
        rc = lay_get(&m, Z0, i);
        if (rc == LAY_OK) rc = lay__put_sub(&R, &m);
    }
    int nfree = 0;
    for (int i = 0; i < r1; ++i) nfree += (c[i] == LAY_FREE);
    if (nfree > 0) {
        int rr = lay_rank(rest);
        for (int i = 0; i < rr && rc == LAY_OK; ++i) {
            lay_layout m;
            rc = lay_get(&m, rest, i);
            if (rc == LAY_OK) rc = lay__put_sub(&R, &m);
        }
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    out->layout = R;
    out->off = t.off + off;
    return LAY_OK;
}

/* Generic local_partition (any nesting): zipped_divide, then slice the tile mode. */
LAY_HD static inline int lay__local_partition_generic(lay_tensor *out, lay_tensor t, lay_layout thr,
                                                      int thr_idx, unsigned proj) {
    if (!out) return LAY_E_ARG;
    out->ptr = t.ptr;
    out->off = t.off;
    if (thr_idx < 0) return lay__fail(&out->layout, LAY_E_ARG);
    lay_layout D, Z, Z0, Z1, R;
    int rc = lay__dice(&D, thr, proj);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    int mode[LAY_MAX_LEAVES];
    int r = lay__leaf_modes(&D, mode);
    if (r > LAY_MAX_RANK) return lay__fail(&out->layout, LAY_E_LIMIT);
    lay_off c[LAY_MAX_RANK], place[LAY_MAX_RANK];
    long long tsz[LAY_MAX_RANK];
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m) {
        c[m] = 0;
        place[m] = 1;
        tsz[m] = 1;
    }
    LAY_UNROLL
    for (int k = 0; k < LAY_MAX_LEAVES; ++k)
        if (k < D.n) {
            lay_off ck = D.stride[k] == 0 ? 0 : ((lay_off)thr_idx / D.stride[k]) % D.shape[k];
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == mode[k]) {
                    c[q] += ck * place[q];
                    place[q] *= D.shape[k];
                    tsz[q] *= D.shape[k];
                }
        }
    lay_tiler T;
    lay__clear(&T.l);
    rc = lay__put_tok(&T.l, LAY_TOK_OPEN);
    for (int m = 0; m < r && rc == LAY_OK; ++m) rc = lay__put_leaf(&T.l, tsz[m], 1);
    if (rc == LAY_OK) rc = lay__put_tok(&T.l, LAY_TOK_CLOSE);
    if (rc == LAY_OK) rc = lay_zipped_divide(&Z, t.layout, T);
    if (rc == LAY_OK) rc = lay_get(&Z0, Z, 0);
    if (rc == LAY_OK) rc = lay_get(&Z1, Z, 1);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    /* offset of this thread inside the tile: mode m of Z0 at c[m] */
    lay_off off = lay_crd2idx_modes(Z0, c);
    /* result: the rest modes, as a tuple */
    lay__clear(&R);
    rc = lay__put_tok(&R, LAY_TOK_OPEN);
    int r1 = lay_rank(Z1);
    for (int i = 0; i < r1 && rc == LAY_OK; ++i) {
        lay_layout m;
        rc = lay_get(&m, Z1, i);
        if (rc == LAY_OK) rc = lay__put_sub(&R, &m);
    }
    if (rc == LAY_OK) rc = lay__put_tok(&R, LAY_TOK_CLOSE);
    if (rc != LAY_OK) return lay__fail(&out->layout, rc);
    out->layout = R;
    out->off = t.off + off;
    return LAY_OK;
}

/* Fast path for flat tensors and shape tilers (every diced tiler mode a single t:1 leaf):
 * the same result as the generic path (tests/test_layout.c compares them), computed with
 * straight-line code so that it folds on the GPU and compiles quickly. Returns 1 when it
 * handled the case (status in *rc), 0 when the generic path is needed. */
/* Write leaf pos of a flat result with literal indices only (every array index is an unrolled
 * loop counter), so that the struct stays in registers on the GPU. */
LAY_HD static inline void lay__flat_set(lay_layout *R, int pos, int s, int d) {
    LAY_UNROLL
    for (int q = 0; q < LAY_MAX_LEAVES; ++q)
        if (q == pos) {
            R->shape[q] = s;
            R->stride[q] = d;
        }
}

/* Finish a flat tuple of n leaves: tokens "(x...x)". */
LAY_HD static inline void lay__flat_finish(lay_layout *R, int n) {
    R->n = n;
    R->ntok = n + 2;
    LAY_UNROLL
    for (int q = 0; q < LAY_MAX_TOK; ++q)
        if (q <= n + 1)
            R->tok[q] = q == 0 ? LAY_TOK_OPEN : q == n + 1 ? LAY_TOK_CLOSE : LAY_TOK_LEAF;
}

LAY_HD static inline int lay__local_tile_flat(lay_tensor *out, lay_tensor t, lay_tiler tiler,
                                              const int *coord, unsigned proj, int *rc) {
    const lay_layout *A = &t.layout, *T = &tiler.l;
    if (!lay__is_flat(A) || !lay__is_flat(T)) return 0;
    /* errors below keep the (compile-time) structure and mark the result invalid through an
   * extent of 0, so that the folding on the GPU never depends on run-time values */
    int invalid = !lay_valid(*A) || !lay_valid(*T);
    int tsz[LAY_MAX_RANK], c[LAY_MAX_RANK], k = 0;
    LAY_UNROLL
    for (int q = 0; q < LAY_MAX_RANK; ++q) {
        tsz[q] = 1;
        c[q] = 0;
    }
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < T->n && i < 32 && ((proj >> i) & 1u)) {
            if (T->stride[i] != 1 && T->shape[i] != 1) return 0;
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == k) {
                    tsz[q] = T->shape[i];
                    c[q] = coord[i];
                }
            k++;
        }
    if (k > LAY_MAX_RANK) return 0;
    if (k == 0) {
        *rc = lay__fail(&out->layout, LAY_E_ARG);
        return 1;
    }
    if (k > A->n) {
        *rc = lay__fail(&out->layout, LAY_E_RANK);
        return 1;
    }
    lay_layout R;
    lay_off off = 0;
    int pos = 0, bad = 0;
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m)
        if (m < k) { /* tile mode m: t:d (stride 0 on an extent-1 mode, as the algebra gives) */
            lay__flat_set(&R, pos, tsz[m], A->shape[m] == 1 ? 0 : A->stride[m]);
            pos++;
        }
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_RANK; ++m)
        if (m < k) { /* rest mode m: ceil(s/t) : t*d, or 1:0 */
            int ce = tsz[m] > 0 ? (A->shape[m] + tsz[m] - 1) / tsz[m] : 0;
            lay_off rs = ce == 1 ? 0 : (lay_off)tsz[m] * A->stride[m];
            if (rs > INT_MAX || rs < INT_MIN) bad = 1;
            if (c[m] == LAY_FREE) {
                if (pos >= LAY_MAX_LEAVES) return 0;
                lay__flat_set(&R, pos, ce, (int)rs);
                pos++;
            } else {
                if (c[m] < 0 || c[m] >= ce) bad = 2;
                off += (lay_off)c[m] * rs;
            }
        }
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_LEAVES; ++m)
        if (m >= k && m < A->n) { /* tensor modes past the tiler */
            if (pos >= LAY_MAX_LEAVES) return 0;
            lay__flat_set(&R, pos, A->shape[m], A->stride[m]);
            pos++;
        }
    lay__flat_finish(&R, pos);
    *rc = invalid ? LAY_E_INVALID : bad == 1 ? LAY_E_LIMIT : bad ? LAY_E_ARG : LAY_OK;
    if (*rc != LAY_OK) R.shape[0] = 0;
    out->ptr = t.ptr;
    out->layout = R;
    out->off = t.off + off;
    return 1;
}

LAY_HD static inline int lay__local_partition_flat(lay_tensor *out, lay_tensor t, lay_layout thr,
                                                   int thr_idx, unsigned proj, int *rc) {
    const lay_layout *A = &t.layout;
    if (!lay__is_flat(A) || !lay__is_flat(&thr)) return 0;
    int invalid = !lay_valid(*A) || !lay_valid(thr);
    int tsz[LAY_MAX_RANK], k = 0;
    lay_off c[LAY_MAX_RANK];
    LAY_UNROLL
    for (int q = 0; q < LAY_MAX_RANK; ++q) {
        tsz[q] = 1;
        c[q] = 0;
    }
    LAY_UNROLL
    for (int i = 0; i < LAY_MAX_LEAVES; ++i)
        if (i < thr.n && i < 32 && ((proj >> i) & 1u)) {
            LAY_UNROLL
            for (int q = 0; q < LAY_MAX_RANK; ++q)
                if (q == k) {
                    tsz[q] = thr.shape[i];
                    c[q] = (thr.stride[i] == 0 || thr.shape[i] < 1)
                               ? 0
                               : ((lay_off)thr_idx / thr.stride[i]) % thr.shape[i];
                }
            k++;
        }
    if (k > LAY_MAX_RANK) return 0;
    if (k == 0) {
        *rc = lay__fail(&out->layout, LAY_E_ARG);
        return 1;
    }
    if (k > A->n) {
        *rc = lay__fail(&out->layout, LAY_E_RANK);
        return 1;
    }
    lay_layout R;
    lay_off off = 0;
    int bad = 0;
    LAY_UNROLL
    for (int m = 0; m < LAY_MAX_LEAVES; ++m)
        if (m < A->n) {
            if (m < k && m < LAY_MAX_RANK) {
                LAY_UNROLL
                for (int q = 0; q < LAY_MAX_RANK; ++q)
                    if (q == m) {
                        int ce = tsz[q] > 0 ? (A->shape[m] + tsz[q] - 1) / tsz[q] : 0;
                        lay_off rs = ce == 1 ? 0 : (lay_off)tsz[q] * A->stride[m];
                        off += c[q] * (A->shape[m] == 1 ? 0 : A->stride[m]);
                        if (rs > INT_MAX || rs < INT_MIN) bad = 1;
                        R.shape[m] = ce;
                        R.stride[m] = (int)rs;
                    }
            } else {
                R.shape[m] = A->shape[m];
                R.stride[m] = A->stride[m];
            }
        }
    lay__flat_finish(&R, A->n);
    *rc = invalid ? LAY_E_INVALID : thr_idx < 0 ? LAY_E_ARG : bad ? LAY_E_LIMIT : LAY_OK;
    if (*rc != LAY_OK) R.shape[0] = 0;
    out->ptr = t.ptr;
    out->layout = R;
    out->off = t.off + off;
    return 1;
}

/* lay_local_tile: CuTe's local_tile(tensor, tiler, coord, proj) as in the sgemm tutorial:
 * keep the tiler modes (and coord entries) selected by proj (bit i keeps mode i; LAY_PROJ_ALL
 * keeps all), zipped_divide the tensor by that tiler, then take the tile at coord: the
 * result's modes are the tile modes followed by the rest modes whose coord entry is LAY_FREE
 * (`_`) and the tensor modes past the tiler. coord has rank(tiler) entries (before proj),
 * each a tile index in its rest mode or LAY_FREE. A rest mode of extent 1 has stride 0.
 * Errors: those of lay_zipped_divide and lay_slice; LAY_E_ARG (proj keeps nothing, or a
 * coordinate outside its rest mode); LAY_E_RANK.
 * Device code: flat tensors (depth <= 1) and shape tilers only (the case that folds to
 * index arithmetic); anything else returns LAY_E_LIMIT on the GPU unless LAY_DEVICE_GENERIC
 * is defined (slow to compile). Host code handles every case.
 *   e.g. mA (M,K):(lda,1), tiler <BM,BN,BK>, coord {bx,by,_}, proj 0b101
 *        -> gA (BM,BK,k):(lda,1,BK) at offset bx*BM*lda */
LAY_HD static inline LAY_MUST_CHECK int
lay_local_tile(lay_tensor *out, lay_tensor t, lay_tiler tiler, const int *coord, unsigned proj) {
    if (!out || !coord) return LAY_E_ARG;
    int rc = LAY_OK;
    if (lay__local_tile_flat(out, t, tiler, coord, proj, &rc)) return rc;
#if defined(__CUDA_ARCH__) && !defined(LAY_DEVICE_GENERIC)
    out->ptr = t.ptr;
    out->off = t.off;
    return lay__fail(&out->layout, LAY_E_LIMIT);
#else
    return lay__local_tile_generic(out, t, tiler, coord, proj);
#endif
}

/* lay_local_partition: CuTe's local_partition(tensor, thr_layout, thr_idx, proj): keep the
 * thread-layout modes selected by proj, find thread thr_idx's coordinate in it (per leaf
 * (thr_idx / stride) % shape, combined per mode: CuTe's get_flat_coord), divide the tensor by
 * the tiler <size(thr mode m):1 ...>, and keep that thread's elements: the result is the rest
 * modes (one per tensor mode), every element owned by exactly one thread. A tensor with more
 * modes than the thread layout keeps the extra modes whole, after the partitioned ones: a
 * (BLK_M,BLK_K,k) tile over a 2-mode thread layout gives (BLK_M/thr_m, BLK_K/thr_k, k).
 * Errors: those of lay_zipped_divide; LAY_E_ARG (thr_idx < 0, proj keeps nothing);
 * LAY_E_RANK. Device code: flat tensor and thread layouts only (else LAY_E_LIMIT unless
 * LAY_DEVICE_GENERIC), as lay_local_tile.
 *   e.g. an 8x8 tile (8,8):(1,8) over thread layout (2,2):(1,2), thread 3
 *        -> (4,4):(2,16) at offset 1 + 8 */
LAY_HD static inline LAY_MUST_CHECK int
lay_local_partition(lay_tensor *out, lay_tensor t, lay_layout thr, int thr_idx, unsigned proj) {
    if (!out) return LAY_E_ARG;
    int rc = LAY_OK;
    if (lay__local_partition_flat(out, t, thr, thr_idx, proj, &rc)) return rc;
#if defined(__CUDA_ARCH__) && !defined(LAY_DEVICE_GENERIC)
    out->ptr = t.ptr;
    out->off = t.off;
    return lay__fail(&out->layout, LAY_E_LIMIT);
#else
    return lay__local_partition_generic(out, t, thr, thr_idx, proj);
#endif
}

/* Tiled copy, tiled MMA, ldmatrix, swizzled smem layouts and the Tensor Core TV layouts. */
#include "layout_tv.h"

#endif /* LAY_LAYOUT_H */
