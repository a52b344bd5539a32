/* plan.h - lesson 08's choice of layouts, written with the layout library (common/layout.h),
 * shared by the kernel (gemm.cu) and the CPU tests (tests/test_plans_08.c).
 *
 * Every function returns a layout built from its (compile-time) arguments; the kernel
 * evaluates these layouts point by point (lay_tiled_mma_c_crd, lay_tiled_ldmatrix_a_crd,
 * lay_tiled_copy_crd, lay_swizzled_crd2idx2...), which nvcc folds to the index arithmetic one
 * would write by hand (tests/test_sass.sh counts the K loop's instructions).
 *
 *   plan_mma       the tiled MMA: the mma.sync m16n8k16 atom over WARPS_M x WARPS_N warps
 *   plan_smem      the smem tile of one stage, (rows, BK) K-major, swizzled
 *   plan_copy      the gmem -> smem copy: 16-byte chunks (8 halves), a row of chunks per
 *                  BK/8 threads
 *   plan_smem_*    what the kernel's address shortcuts rely on: the offset of a row block,
 *                  the stage size, and how a k-step moves a lane's ldmatrix address
 *   plan_cstage*   the epilogue's C staging block of one warp and its copy-out
 *   plan_raster    the order in which CTAs take the tiles of C
 *   plan_split     the K tiles of one split of a split-K launch
 *   plan_sk_*      stream-K: the last, partial round's K tiles spread evenly over the CTAs
 * What this lesson adds to lesson 07's plan: plan_raster, plan_persistent_*, plan_split,
 * plan_sk_*.
 */
#ifndef LESSON08_PLAN_H
#define LESSON08_PLAN_H

#include "layout.h"

/* plan_mma: the m16n8k16 atom (PTX ISA 9.7.14.5.8) over warps_m x warps_n warps, warp w at
 * (w / warps_n, w % warps_n), each owning a (bm/warps_m, bn/warps_n) warp tile of
 * (bm/warps_m/16) x (bn/warps_n/8) atoms, bk/16 k-steps per K tile.
 *   e.g. plan_mma(2, 4, 128, 256, 64): 8 warps of 64x64 = 4 x 8 atoms, 4 k-steps */
LAY_HD static inline lay_tiled_mma plan_mma(int warps_m, int warps_n, int bm, int bn, int bk) {
    return lay_make_tiled_mma(lay_mma_atom_m16n8k16(), lay_l2(warps_m, warps_n, warps_n, 1),
                              bm / warps_m / 16, bn / warps_n / 8, bk / 16);
}

/* plan_smem: the (rows, bk) K-major smem tile of halves of one stage, composed with the swizzle
 * of its row length (lay_swizzle_sw: 2*bk-byte rows): bk = 64 -> Sw<3,3,3> o (rows,64):(64,1)
 * (chunk ^= row % 8), bk = 32 -> Sw<2,3,3> o (rows,32):(32,1) (chunk ^= (row / 2) % 4). The 8
 * rows one ldmatrix phase reads, and the 8 chunks one 8-lane cp.async phase writes, land in 8
 * different 16-byte bank groups (tests/test_plans_06.c). Other bk: no swizzle. */
LAY_HD static inline lay_swizzled plan_smem(int rows, int bk) {
    lay_swizzle sw;
    if (lay_swizzle_sw(&sw, 2 * bk, 2) != LAY_OK) sw.b = sw.m = sw.s = 0; /* the identity */
    return lay_make_swizzled(sw, lay_l2(rows, bk, bk, 1));
}

/* plan_copy: the copy of a (rows, bk) tile of halves in 16-byte chunks (cp.async 16 B): value
 * layout (1,8) (8 halves along k), thread t at (t / (bk/8), t % (bk/8)) of an
 * (nt/(bk/8), bk/8)-chunk copy tile, which repeats down the tile (repeat r: rows + r*nt/(bk/8)).
 * bk/8 neighbouring threads read one whole row segment of gmem. */
LAY_HD static inline lay_tiled_copy plan_copy(int nt, int bk) {
    return lay_make_tiled_copy(lay_l2(nt / (bk / 8), bk / 8, bk / 8, 1), lay_l2(1, 8, 0, 1));
}

/* plan_smem_rows: the offset (halves) of row `rows` of the smem tile, column 0: of a block of
 * rows that starts a multiple of 8 rows down. The swizzle looks only at offset bits below
 * 8 rows, so S(r0 + r, k) = plan_smem_rows(r0) + S(r, k) for such r0 (tests check it): the
 * kernel adds warp, atom and copy row blocks as constants. plan_smem_stage is the size of one
 * stage of `rows` rows (the offset of the row just past it). */
LAY_HD static inline int plan_smem_rows(int rows, int bk) {
    return (int)lay_crd2idx2(plan_smem(rows + 1, bk).layout, rows, 0);
}
LAY_HD static inline int plan_smem_stage(int rows, int bk) { return plan_smem_rows(rows, bk); }

/* plan_smem_kstep: the byte offset of S(r, k + kk*dk) from ob = 2*S(r, k) (2 bytes per half),
 * for k a multiple of 8 with k % 16 < 8, dk = 16 and k + kk*dk < bk: a lane's ldmatrix address
 * at k-step kk. Moving along k by whole chunks flips only the chunk bits the swizzle XORs, so
 * S(r, k + kk*dk) = S(r, k) ^ kk*L(0, dk) (tests check it for every lane and k-step); kstep_b
 * = plan_smem_kstep_b(dk, bk) = 2*L(0, dk). In bytes because the kernel keeps byte addresses:
 * one XOR per k-step. */
LAY_HD static inline unsigned plan_smem_kstep_b(int dk, int bk) {
    return 2u * (unsigned)lay_crd2idx2(plan_smem(1, bk).layout, 0, dk);
}
LAY_HD static inline unsigned plan_smem_kstep(unsigned ob, int kk, unsigned kstep_b) {
    return ob ^ ((unsigned)kk * kstep_b);
}

/* plan_cstage: a warp's C staging block, (wtm, wtn) halves row-major with rows padded by 8
 * halves: (wtm,wtn):(wtn+8,1). A warp's 4-byte store of one MMA atom's C fragment covers rows
 * g = 0..7 and words t = 0..3; with rows of wtn + 8 halves (a multiple of 32 words plus 4)
 * row g starts 4g banks further on: all 32 words in different banks (without the pad all 8
 * rows start in the same bank: an 8-way conflict; tests/test_plans_07.c). */
LAY_HD static inline lay_layout plan_cstage(int wtm, int wtn) {
    return lay_l2(wtm, wtn, wtn + 8, 1);
}
/* plan_cstage_size: halves of one staging block (the offset of the row just past it). */
LAY_HD static inline int plan_cstage_size(int wtm, int wtn) {
    return (int)lay_crd2idx2(plan_cstage(wtm + 1, wtn), wtm, 0);
}
/* plan_cstage_copy: the copy-out of a staging block to C, 16-byte chunks (8 halves along n):
 * lane l at (l / (wtn/8), l % (wtn/8)) of a (32/(wtn/8), wtn/8)-chunk copy tile, which repeats
 * down the block. Each warp store writes 32/(wtn/8) whole rows of the warp tile (128 bytes
 * each for wtn = 64), and each 8-lane phase of the smem read is one row: conflict-free. */
LAY_HD static inline lay_tiled_copy plan_cstage_copy(int wtn) {
    return lay_make_tiled_copy(lay_l2(32 / (wtn / 8), wtn / 8, wtn / 8, 1), lay_l2(1, 8, 0, 1));
}

/* plan_raster: CTA rasterization, linear tile id -> (tile_m, tile_n). Tiles are taken in
 * groups of `group` tile rows: within a group the id walks down the group's rows first, then
 * across N, so the CTAs running at the same time share a few A row panels and a few B column
 * panels, which stay in L2. A bijection from [0, tiles_m*tiles_n) onto the tile grid (the
 * last group may be shorter; tests/test_plans_08.c). A schedule, not a layout: the short last
 * group makes it piecewise. */
LAY_HD static inline void plan_raster(int bid, int tiles_m, int tiles_n, int group, int *tm,
                                      int *tn) {
    const int per_group = group * tiles_n;
    const int first_m = (bid / per_group) * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int in = bid % per_group;
    *tm = first_m + in % rows;
    *tn = in / rows;
}

/* plan_persistent_ctas: the grid of a persistent launch over `tiles` tiles when at most `cap`
 * CTAs fit on the GPU at once (tiles >= 0, cap >= 1). The number of rounds stays that of
 * `cap` CTAs, ceil(tiles / cap), and the grid shrinks to the fewest CTAs that still finish in
 * that many rounds: the SMs left over idle for the whole kernel instead of in its last round,
 * and the power budget goes to the SMs that work (measured: run 20-4 in notes/perf.md).
 *   e.g. 512 tiles, cap 132: 4 rounds either way, 128 CTAs (not 132, 16 of them idle in the
 *   last round); 8192 tiles: 63 rounds, 131 CTAs; 100 tiles: 100 CTAs. */
LAY_HD static inline long long plan_persistent_ctas(long long tiles, long long cap) {
    if (tiles <= cap) return tiles;
    const long long rounds = (tiles + cap - 1) / cap;
    return (tiles + rounds - 1) / rounds;
}

/* plan_persistent_tile: the tile id (the input of plan_raster) that CTA b of a grid of g CTAs
 * computes in round t: slot (b + t*shift) mod g of round t's g tiles. With shift 0 that is
 * b + t*g, and when g is a multiple of a raster group's tiles (4095x4095 in 128x256 tiles:
 * groups of 8 x 16 tiles, 128 CTAs) CTA b takes the same tile column in every round: the 8
 * CTAs of a partial last column (N not a multiple of BN) walk only edge tiles and finish last
 * (4095x4095x4096: 8% slower, run 20-2 in notes/perf.md). shift = the raster group's rows
 * moves every CTA one tile column on per round. Round t of the grid
 * still runs tiles t*g .. t*g+g-1, the same tiles in L2 as shift 0. 0 <= b < g, t >= 0. */
LAY_HD static inline int plan_persistent_tile(int b, int t, int g, int shift) {
    return t * g + (b + (t % g) * shift) % g;
}

/* plan_persistent_count: how many tiles CTA b walks, i.e. the rounds t = 0 .. count-1 whose
 * plan_persistent_tile is < ntiles: every full round, plus the last, partial one when b's
 * slot in it is one of its ntiles % g tiles (a prefix of rounds: the kernel counts on it).
 * 0 <= b < g, ntiles >= 0. */
LAY_HD static inline int plan_persistent_count(int b, int g, int ntiles, int shift) {
    const int full = ntiles / g; /* rounds of g tiles; then b's slot in the partial one */
    return full + (plan_persistent_tile(b, full, g, shift) < ntiles ? 1 : 0);
}

/* plan_split: the K tiles [*kt0, *kt1) that split s (0 <= s < splits) of a split-K launch
 * computes, out of the ktiles K tiles of every tile of C: a balanced partition, split s
 * starting at floor(ktiles * s / splits). The splits of one tile are disjoint, their union is
 * [0, ktiles), and their sizes differ by at most one K tile, so none is empty when
 * splits <= ktiles (the configurations refuse more splits than K tiles; tests/
 * test_dispatch_08.c checks every (tile, K tile) pair is computed exactly once). Plain int
 * arithmetic: ktiles * splits < 2^31 for K <= 65536 and splits <= 16.
 *   e.g. plan_split(10, 4, s): [0,2) [2,5) [5,7) [7,10) */
LAY_HD static inline void plan_split(int ktiles, int splits, int s, int *kt0, int *kt1) {
    *kt0 = ktiles * s / splits;
    *kt1 = ktiles * (s + 1) / splits;
}

/* ---- stream-K over the last round (128x256x64_s3_streamk) ----------------------------------
 * A persistent grid of g CTAs walks `ntiles` tiles of `ktiles` K tiles each. Whole tiles, the
 * last round is partial when ntiles is not a multiple of g (4096^2 in 128x256 tiles: 512
 * tiles, 3 rounds of 132 and 116 tiles for 132 SMs: 3.88 rounds of work take 4). Stream-K
 * splits that round's K iterations instead:
 *   tiles [0, dp)       data-parallel, dp = (ntiles / g) * g: the full rounds, CTA b's round t
 *                       is tile plan_persistent_tile(b, t, g, shift), whole;
 *   tiles [dp, ntiles)  stream-K: their (ntiles - dp) * ktiles K iterations, numbered tile by
 *                       tile, cut into g contiguous ranges of (almost) equal length, range b =
 *                       [plan_sk_begin(b), plan_sk_begin(b + 1)) for CTA b, after its rounds.
 * A range cut inside a tile gives that tile several pieces (segments). The segment that holds
 * the tile's K tile 0 is the last of its CTA's range: that CTA, the tile's OWNER, adds the
 * others' partial sums and stores the tile. Every other piece is the FIRST segment of its
 * CTA's range (later segments start on tile boundaries), so a CTA writes at most one partial
 * sum (one workspace slot per CTA), and it writes it before it waits for anything: the owner
 * waits only for pieces their CTAs compute first, so no cycle of waits exists (all CTAs of
 * the grid must be resident at once). When the last round's iterations would give a range
 * fewer than `min_iters` K tiles (a piece that short costs more in partial sums than it
 * saves), and with K = 0, nothing is split: every tile is data-parallel, the partial round as
 * plan_persistent_count walks it. tests/test_plans_08.c checks that every (tile, K tile) is
 * computed exactly once, that each tile has one owner, that each contributor's piece is its
 * CTA's first segment and the owner's its last. */
typedef struct plan_sk {
    int ntiles, ktiles; /* tiles of C, K tiles per tile */
    int g, shift;       /* CTAs of the grid; the data-parallel rounds' plan_persistent_tile shift */
    int dp;             /* tiles [0, dp) data-parallel, [dp, ntiles) stream-K */
} plan_sk;

/* The schedule of ntiles tiles of ktiles K tiles on g CTAs (ntiles, ktiles >= 0, g >= 1,
 * min_iters >= 1). When it splits, every range holds at least min_iters >= 1 K tiles, so no
 * range is empty; the last round's iterations then fit an int (else it does not split). */
LAY_HD static inline plan_sk plan_sk_make(int ntiles, int ktiles, int g, int shift,
                                          int min_iters) {
    plan_sk s;
    s.ntiles = ntiles;
    s.ktiles = ktiles;
    s.g = g;
    s.shift = shift;
    const int rest = ntiles % g; /* the last round's tiles */
    const long long iters = (long long)rest * ktiles;
    s.dp = ktiles > 0 && iters >= (long long)g * min_iters && iters < (1LL << 31) ? ntiles - rest
                                                                                   : ntiles;
    return s;
}

/* The grid of a stream-K launch: all `cap` CTAs that fit at once when there are at least as
 * many tiles; with fewer, one per min_iters K iterations (every range that long), at least
 * one per tile and at most cap.
 *   e.g. 512 tiles of 64 K tiles, cap 132: 132; 32 tiles of 64: 132 (15.5 K tiles a range
 *   for min_iters 8); 4 tiles of 4: 4 (no split) */
LAY_HD static inline int plan_sk_ctas(int ntiles, int ktiles, int cap, int min_iters) {
    if (ntiles >= cap) return cap;
    const long long g = (long long)ntiles * ktiles / min_iters;
    return g > cap ? cap : g > ntiles ? (int)g : ntiles > 0 ? ntiles : 1;
}

/* First K iteration (counted over the stream-K tiles' iterations) of CTA b's range, b = 0..g. */
LAY_HD static inline long long plan_sk_begin(const plan_sk *s, int b) {
    return (long long)(s->ntiles - s->dp) * s->ktiles * b / s->g;
}

/* For the owner b of stream-K tile id `tile` (its segment holds K tile 0 and ends before
 * ktiles): the CTAs whose partial sums it adds are b+1 .. plan_sk_last_contributor, those whose
 * ranges begin inside the tile. Returns b when there are none. */
LAY_HD static inline int plan_sk_last_contributor(const plan_sk *s, int b, int tile) {
    const long long end = (long long)(tile - s->dp + 1) * s->ktiles;
    int last = b;
    while (last + 1 < s->g && plan_sk_begin(s, last + 1) < end) ++last;
    return last;
}

/* CTA b's part of the schedule, in ints: what its kernel works out once, at its start (its
 * loops then need no 64-bit arithmetic and keep it in smem, not in registers). */
typedef struct plan_sk_cta {
    int whole;   /* its data-parallel tiles (rounds) */
    int dp;      /* the first stream-K tile id */
    int x, e;    /* its range [x, e) of stream-K iterations */
    int i0;      /* the stream-K tile (0: tile dp) where the range begins: x / ktiles */
    int last;    /* the last CTA whose partial sum it adds (b: none) */
} plan_sk_cta;

/* Segment i (0 <= i < plan_sk_segments) of a CTA: tile id *tile (the input of plan_raster), K
 * tiles [*k0, *k1), never empty. Its first `whole` segments are its rounds' tiles
 * plan_persistent_tile(b, i, g, shift), whole. */
LAY_HD static inline void plan_sk_segment(const plan_sk_cta *c, int ktiles, int b, int g,
                                          int shift, int i, int *tile, int *k0, int *k1) {
    if (i < c->whole) {
        *tile = plan_persistent_tile(b, i, g, shift);
        *k0 = 0;
        *k1 = ktiles;
        return;
    }
    const int t = c->i0 + (i - c->whole), first = t * ktiles;
    *tile = c->dp + t;
    *k0 = c->x > first ? c->x - first : 0;
    *k1 = c->e - first < ktiles ? c->e - first : ktiles;
}

/* CTA b's segments: its data-parallel tiles, then one per tile its range touches. */
LAY_HD static inline int plan_sk_segments(const plan_sk_cta *c, int ktiles) {
    return c->whole + (c->e > c->x ? (c->e - 1) / ktiles - c->i0 + 1 : 0);
}

LAY_HD static inline plan_sk_cta plan_sk_cta_of(const plan_sk *s, int b) {
    plan_sk_cta c;
    c.whole = plan_persistent_count(b, s->g, s->dp, s->shift);
    c.dp = s->dp;
    c.x = (int)plan_sk_begin(s, b);
    c.e = (int)plan_sk_begin(s, b + 1);
    c.i0 = s->ktiles > 0 ? c.x / s->ktiles : 0;
    c.last = b;
    const int n = plan_sk_segments(&c, s->ktiles);
    if (n > c.whole) { /* its last segment: an owner with contributors when it ends early */
        int tile, k0, k1;
        plan_sk_segment(&c, s->ktiles, b, s->g, s->shift, n - 1, &tile, &k0, &k1);
        if (k0 == 0 && k1 < s->ktiles) c.last = plan_sk_last_contributor(s, b, tile);
    }
    return c;
}

/* plan_sk_slot: where a thread's accumulators go in its CTA's workspace slot, in float4s:
 * (nt, n4):(1, nt), thread t's float4 q at t + q*nt (n4 = float4s per thread: MI*NI), so each
 * q is one coalesced row of nt float4s. The writer of a piece and the owner that adds it are
 * the same thread of the same tile shape, so the slot needs no coordinates of C. */
LAY_HD static inline lay_layout plan_sk_slot(int nt, int n4) { return lay_l2(nt, n4, 1, nt); }

#endif /* LESSON08_PLAN_H */
