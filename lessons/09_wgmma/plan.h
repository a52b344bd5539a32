/* plan.h - lesson 09's tile constants and layouts, shared by the kernel (gemm.cu) and the CPU
 * test (tests/test_plans_09.c), so that the test checks the very layouts the kernel uses.
 * Plain C over common/layout.h: compiles with gcc (host) and nvcc (host + device).
 *
 *   CTA tile      (BLK_M,BLK_N,BLK_K) = (64*consumers, 256, 64): one 64 x 256 slab of C per
 *                 consumer warpgroup, one wgmma m64n256k16 per 16-wide k step
 *   smem tile     A: (BLK_M,64) and B: (256,64) 16-bit elements, K-major, rows of 128 bytes,
 *                 128-byte swizzle: Sw<3,4,3> on byte offsets = Sw<3,3,3> on element offsets
 *   accumulators  the wgmma D fragment: a TV layout (thread 128, value 128) -> (64,256)
 *   tile order    grouped rasterization: tile index -> (tile_m, tile_n); a cluster's CTAs
 *                 take vertically adjacent tiles of one work item
 *   ping-pong     a CTA's work items alternate between its two consumer warpgroups, whose
 *                 main loops take turns (p9_pp_*)
 *   stmatrix      the epilogue of step 9: which accumulators each stmatrix register holds,
 *                 the row each lane addresses, the two staging boxes and the rows each warp
 *                 stores (p9_stsm_*, p9_epi_*, P9_EPI_WARP_ROWS)
 *   stream-K      step 10: which K tiles of which work items each cluster computes, who
 *                 adds the partial sums (p9_sk_*, p9_walk_*)
 */
#ifndef LESSON09_PLAN_H
#define LESSON09_PLAN_H

#include "layout.h"

#define P9_WG_M 64        /* rows of C per consumer warpgroup (the wgmma M) */
#define P9_BLK_N 256      /* the wgmma N */
#define P9_BLK_K 64       /* one K tile: 64 16-bit elements = one 128-byte swizzled row */
#define P9_MMA_K 16       /* the wgmma K for 16-bit inputs */
#define P9_ROW_BYTES 128  /* bytes per smem row of A or B (BLK_K * 2) */

/* The wgmma accumulator fragment as a TV layout, for m64n256 with fp32 accumulators:
 *   ((4,8,4),(2,2,32)):((128,1,16),(64,8,512))     (thread t, value v) -> m + 64*n
 * thread modes: t%4 picks a column pair (n += 2), (t/4)%8 a row (m += 1), the warp t/32 a
 * block of 16 rows (m += 16); value modes: v%2 the second column of the pair (n += 1),
 * (v/2)%2 the row 8 below (m += 8), v/4 the 8-column block (n += 8). Source: PTX ISA
 * 9.7.15.5.1, figure "WGMMA .m64nNk16 register fragment layout for accumulator matrix D";
 * tests/test_plans_09.c checks every (t, v) against the figure's formula. Also the mma.sync
 * m16n8 C fragment (lay_tv_mma_m16n8k16_c) with one more thread mode (the warp) and one more
 * value mode (the 32 column blocks). */
LAY_HD static inline lay_layout p9_tv_acc_thr(void) { return lay_l3(4, 8, 4, 128, 1, 16); }
LAY_HD static inline lay_layout p9_tv_acc_val(void) { return lay_l3(2, 2, 32, 64, 8, 512); }
LAY_HD static inline lay_layout p9_tv_acc(void) {
    lay_layout tv;
    if (lay_make_layout2(&tv, p9_tv_acc_thr(), p9_tv_acc_val()) != LAY_OK) /* cannot fail */
        lay__clear(&tv);
    return tv;
}

/* (m, n) of the accumulator fragment in the warpgroup's (64,256) slab, split into the part
 * that depends on the thread (mode 0 of p9_tv_acc) and the part that depends on the value
 * (mode 1). Every leaf stride is either below 64 (it moves m) or a multiple of 64 (it moves
 * n), and the m parts add up to at most 63, so  m = idx % 64, n = idx / 64  can be taken of
 * each part alone and added (checked on the CPU for every (t, v)). The kernel calls the value
 * part with constant v, which folds to two constants; the thread part is computed once per
 * thread. (The kernel uses the two modes directly: nvcc folds the flat rank-3 layouts, not
 * the nested layout that lay_make_layout2 assembles at run time.) */
LAY_HD static inline void p9_acc_thr_mn(int t, int *m, int *n) {
    const lay_off i = lay_crd2idx(p9_tv_acc_thr(), t);
    *m = (int)(i % P9_WG_M);
    *n = (int)(i / P9_WG_M);
}
LAY_HD static inline void p9_acc_val_mn(int v, int *m, int *n) {
    const lay_off i = lay_crd2idx(p9_tv_acc_val(), v);
    *m = (int)(i % P9_WG_M);
    *n = (int)(i / P9_WG_M);
}

/* The 128-byte swizzle the TMA unit applies (CU_TENSOR_MAP_SWIZZLE_128B) and wgmma undoes
 * (descriptor swizzle mode 1), as a layout-library swizzle on BYTE offsets inside a 1024-byte
 * aligned tile: the 16-byte chunk c of row r (rows 128 bytes apart) lands at chunk c ^ (r%8),
 * i.e. Sw<3,4,3>: bits [4,7) ^= bits [7,10). In element units (2 bytes) it is Sw<3,3,3>, the
 * swizzle lesson 06 chose by hand for the same 64-element rows. */
LAY_HD static inline lay_swizzle p9_sw128_bytes(void) {
    lay_swizzle sw;
    if (lay_swizzle_make(&sw, 3, 4, 3) != LAY_OK) sw.b = sw.m = sw.s = 0;
    return sw;
}

/* The smem tile of `rows` x 64 16-bit elements exactly as TMA writes it, on BYTE offsets:
 * Sw<3,4,3> o 0 o (rows,64):(128,2), element (r, k) at byte Sw(128*r + 2*k). */
LAY_HD static inline lay_swizzled p9_smem_tile_bytes(int rows) {
    lay_swizzled t;
    if (lay_swizzled_make(&t, p9_sw128_bytes(), 0, lay_l2(rows, P9_BLK_K, P9_ROW_BYTES, 2)) !=
        LAY_OK)
        t.layout.n = 0;
    return t;
}

/* Grouped rasterization: CTA tile index `tile` (0 .. tiles_m*tiles_n - 1) -> (tile_m, tile_n).
 * Tiles are numbered in groups of `group` tile rows: inside a group, down the column of
 * `group` tile rows first, then to the next column. Consecutive CTAs (which run at the same
 * time) then share B columns and a band of A rows, so those stay in L2. The last group may be
 * shorter. A bijection for any group >= 1 (tested on the CPU). */
LAY_HD static inline void p9_raster(int tile, int tiles_m, int tiles_n, int group, int *tm,
                                   int *tn) {
    const int per_group = group * tiles_n;
    const int g = tile / per_group, first_m = g * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int r = tile - g * per_group;
    *tm = first_m + r % rows;
    *tn = r / rows;
}

/* Step 13's serpentine raster: p9_raster with every odd group walking the columns backwards,
 * from tile column tiles_n - 1 to 0. Group g then ends on the column where group g + 1 starts:
 * 4096^3 on 64 clusters of 2 runs group 0's columns 0-7 in round 1 and 8-15 in round 2; round 3
 * starts group 1 on columns 15-8, the B panels round 2 has just read, where plain p9_raster
 * would start it on columns 0-7, read two rounds before. A bijection for any group >= 1 (tested
 * on the CPU). */
LAY_HD static inline void p9_raster_serpentine(int tile, int tiles_m, int tiles_n, int group,
                                              int *tm, int *tn) {
    p9_raster(tile, tiles_m, tiles_n, group, tm, tn);
    if ((tile / (group * tiles_n)) & 1) *tn = tiles_n - 1 - *tn;
}

/* Work item `w` -> its tile (tile_m, tile_n) for CTA `rank` of a cluster of `cluster` CTAs
 * along M. The raster (p9_raster, or p9_raster_serpentine when `serpentine`; groups of `group`
 * cluster rows) runs over cluster rows of `cluster` tile rows each; the CTAs of a cluster take
 * the tile rows rank 0, 1, ... of one cluster row (they need the same B tile). With tiles_m not
 * a multiple of `cluster`, the last cluster row's higher ranks get a tile_m >= tiles_m: such a
 * CTA stores nothing. */
LAY_HD static inline void p9_cluster_tile(int w, int rank, int cluster, int tiles_m, int tiles_n,
                                         int group, int serpentine, int *tm, int *tn) {
    const int rows = (tiles_m + cluster - 1) / cluster;
    if (serpentine)
        p9_raster_serpentine(w, rows, tiles_n, group, tm, tn);
    else
        p9_raster(w, rows, tiles_n, group, tm, tn);
    *tm = *tm * cluster + rank;
}

/* Step 13's K order: the K tile (0 .. ktiles - 1) that the kt-th load of a CTA's j-th work item
 * (j = 0, 1, ... in the CTA's own sequence) reads. With `reverse`, odd items walk K backwards:
 * every item after the first starts on the K columns that the round before, all CTAs roughly
 * in step, loaded last, the ones most likely still in L2 (the next round of a raster group
 * reads the same A panels, and with the serpentine raster the same B panels). A permutation of
 * 0 .. ktiles - 1 for every j (tested on the CPU); without `reverse` the identity. The order of
 * the K tiles changes only the order of the fp32 additions. */
LAY_HD static inline int p9_k_tile(int j, int kt, int ktiles, int reverse) {
    return reverse && (j & 1) ? ktiles - 1 - kt : kt;
}

/* The number of work items a persistent CTA (cluster) walks: w = first, first + step, ...
 * while w < nwork (0 when first >= nwork). */
LAY_HD static inline int p9_work_items(int nwork, int first, int step) {
    return first < nwork ? (nwork - first + step - 1) / step : 0;
}

/* The clusters a persistent launch starts for nwork work items when at most max_clusters fit
 * on the GPU at once (nwork >= 0, max_clusters >= 1): the number of rounds stays that of
 * max_clusters, ceil(nwork / max_clusters), and the grid shrinks to the fewest clusters that
 * still finish in that many rounds, so that every cluster walks the same number of items or
 * one fewer. 256 items on 66 clusters: 4 rounds either way, on 64 clusters of 4 items instead
 * of 58 of 4 and 8 of 3 (measured faster: run 18-2 in notes/perf.md). */
LAY_HD static inline int p9_persistent_clusters(long long nwork, int max_clusters) {
    if (nwork <= max_clusters) return (int)nwork;
    const long long rounds = (nwork + max_clusters - 1) / max_clusters;
    return (int)((nwork + rounds - 1) / rounds);
}

/* ---- the stmatrix epilogue (step 9) -------------------------------------------------------
 * One stmatrix.x4 stores a warp's 16 rows x 16 columns of the slab as four 8x8 matrices, the
 * "stack" of common/layout_tv.h (e = col + 8*row, row = 8q + row of matrix q). The stack is
 * placed in the block with matrix q on rows 8*(q%2).., columns 8*(q/2)..:
 *   (8,8,2,2):(64,1,8,512)      stack element e -> m + 64*n in the block
 * (col -> n+1, row -> m+1, q%2 -> m+8, q/2 -> n+8). The j-th stmatrix of a warp (j = 0..15)
 * stores columns 16j .. 16j+15 of its rows. With this placement the stmatrix register layout
 * (lay_tv_stmatrix_regs) picks the accumulators in their own order: the value whose slab
 * position a register half must hold is found by inverting the accumulator's value layout
 * (p9_stsm_acc_v); tests/test_plans_09.c checks every (thread, j, value) against p9_tv_acc and
 * the stmatrix semantics of PTX ISA 9.7.14.5.16. */
LAY_HD static inline lay_tv p9_stsm_stack(void) {
    const int s[4] = {8, 8, 2, 2}, d[4] = {64, 1, 8, 512};
    return lay__tv(4, 0, s, d);
}
/* stack element e -> its offset m + 64*n in the warp's (16,16) block of stmatrix j = 0 */
LAY_HD static inline int p9_stsm_block(int e) {
    const lay_tv st = p9_stsm_stack();
    return lay_tv_at(&st, e, 0);
}
/* (m, n) in the warpgroup's (64,256) slab of the row whose address thread t (0..127) gives to
 * the warp's stmatrix j = 0 (stmatrix j: column n + 16j): the warp's origin from the
 * accumulator's thread layout (its lane 0), plus the row of the stack the lane addresses. */
LAY_HD static inline void p9_stsm_thr_mn(int t, int *m, int *n) {
    const lay_tv rows = lay_tv_stmatrix_rows(4);
    p9_acc_thr_mn(t - t % 32, m, n);
    const int b = p9_stsm_block(lay_tv_at(&rows, t % 32, 0));
    *m += b % P9_WG_M;
    *n += b / P9_WG_M;
}
/* The accumulator value (index into the 128 of p9_tv_acc) that half vv % 2 of register vv / 2
 * of the warp's stmatrix j holds: the register layout's value part (vv; thread 0) placed in
 * the block, moved to columns 16j.., and inverted through the accumulator's value layout. With
 * constant j and vv it folds to a constant. */
LAY_HD static inline int p9_stsm_acc_v(int j, int vv) {
    const lay_tv regs = lay_tv_stmatrix_regs(4);
    const lay_layout val = p9_tv_acc_val();
    const lay_tv accv = lay__tv(0, 3, val.shape, val.stride);
    const int off = p9_stsm_block(lay_tv_at(&regs, 0, vv)) + P9_WG_M * 16 * j;
    int t, v;
    lay_tv_inverse_at(&accv, off, &t, &v);
    return v;
}

/* The slab leaves in P9_EPI_CHUNKS chunks of (64,64) (columns 64q .. 64q+63: stmatrix j =
 * 4q .. 4q+3), one TMA store per warp each (four per chunk, 16 rows x 64 columns each),
 * through `bufs` staging boxes used in turn: chunk q is written into box p9_epi_buf(q, bufs).
 * Step 9 has P9_EPI_BUFS (2) boxes: chunk q is written while the stores of chunk q-1 still
 * read the other one. Each warp writes and stores only its own P9_EPI_WARP_ROWS rows of a box
 * (the accumulator rows it holds), so the protocol is a warp's, for its lane 0, which issues
 * the warp's stores (the other lanes only write and meet at __syncwarp); no warp's store
 * reads rows another warp wrote, so the warps do not wait for each other in the epilogue:
 *   wait_read 0; syncwarp;        the warp's rows of every box free (its last pass's stores read)
 *   for q: [q >= bufs: wait_read bufs-1 (its store of chunk q-bufs, the box's last, has read
 *          its rows; the later ones may read on); syncwarp];
 *          the warp's lanes write its rows of chunk q into box q % bufs; fence.proxy.async;
 *          syncwarp; lane 0 stores the warp's rows of chunk q, commits
 * so a warp writes its rows of a box only after its own store that last read them has
 * finished reading, and no store waits for the one before it to finish reading. Step 11
 * stages the whole slab (bufs = P9_EPI_CHUNKS): every chunk has its own box and the loop
 * waits for no store. Step 12 stores each half of the slab on its own, chunks 2h and 2h+1
 * into boxes 0 and 1 (chunk q into box p9_epi_buf(q - 2h, bufs)), one wait_read before the
 * pair and none inside (tests/test_plans_09.c plays all three through). */
#define P9_EPI_CHUNKS 4
#define P9_EPI_BUFS 2
#define P9_EPI_BOX_BYTES (P9_WG_M * P9_ROW_BYTES) /* one (64,64) 16-bit box: 8 KiB */
#define P9_EPI_WARP_ROWS (P9_WG_M / 4) /* rows of a box one warp writes and stores: 2 KiB */
LAY_HD static inline int p9_epi_buf(int q, int bufs) { return q % bufs; }
/* Whether lane 0 waits before the warp writes chunk q of a pass: only when chunk q reuses a box
 * of the pass (q >= bufs), and then for the store of chunk q - bufs alone: wait_read bufs - 1
 * lets the stores of chunks q - bufs + 1 .. q - 1 go on reading. */
LAY_HD static inline int p9_epi_waits_before(int q, int bufs) { return q >= bufs; }

/* ---- ping-pong: the CTA's work items, j = 0 .. n-1 in the producer's order, alternate
 * between the two consumer warpgroups. Item j (work item first + j*step) is computed by
 * consumer j % 2 as its (j / 2)-th; consumer c takes j = c, c + 2, c + 4, ...
 * The main loops (the wgmma of all K tiles of one item) run one at a time, in item order:
 * the consumer of item j waits for its turn when j > 0 and, once it has issued its last wgmma,
 * hands the turn to the consumer of item j + 1 when there is one. Each hand-over is one use
 * of a named barrier of 256 threads: the giver's 128 threads bar.arrive, the taker's 128
 * bar.sync (tests/test_plans_09.c plays the protocol through for every count of items). */
LAY_HD static inline int p9_pp_consumer(int j) { return j % 2; }
LAY_HD static inline int p9_pp_item(int c, int i) { return 2 * i + c; }
LAY_HD static inline int p9_pp_waits_turn(int j) { return j > 0; }
LAY_HD static inline int p9_pp_hands_turn(int j, int n) { return j + 1 < n; }

/* ---- stream-K (step 10): the last wave's work split evenly over the clusters --------------
 * A persistent grid of `groups` clusters walks `nwork` work items of `ktiles` K tiles each.
 * Walking them whole, round robin (steps 5-9), the last wave leaves clusters idle when nwork is
 * not a multiple of groups (4096^2 in 128x256 tiles, clusters of 2: 256 items for 66 clusters,
 * 3.88 waves). Stream-K splits the K iterations instead:
 *   items [0, dp)      data-parallel: cluster g computes items g, g + groups, ... whole;
 *   items [dp, nwork)  stream-K: their (nwork - dp) * ktiles K iterations, numbered item by
 *                      item, are cut into `groups` contiguous ranges of (almost) equal length,
 *                      range g = [begin(g), begin(g+1)) for cluster g, after its dp items.
 * A range cut inside an item gives that item several pieces (segments). The segment that holds
 * the item's K tile 0 is the last of its cluster's range: that cluster, the item's OWNER, adds
 * the others' partial sums and stores the tile. Every other piece is the FIRST segment of its
 * cluster's range (later segments start on item boundaries), so a cluster writes at most one
 * partial sum: one workspace slot per cluster. The owner waits only for pieces that their
 * clusters compute first, so no cycle of waits exists (all clusters must be resident at once).
 * p9_sk_plan chooses dp: the whole items of all full waves but the last, and the last full
 * wave plus the remainder as stream-K (one wave alone would leave ranges shorter than an item
 * whose partial sums would cost more than they save); no stream-K when the items fill the
 * waves exactly. tests/test_plans_09.c checks that every (item, K tile) is computed exactly
 * once, that each item has one owner and that each contributor's piece is its cluster's first. */
typedef struct p9_sk {
    int nwork, ktiles; /* work items, K tiles per item */
    int groups;        /* clusters of the grid */
    int dp;            /* items [0, dp) data-parallel, [dp, nwork) stream-K */
} p9_sk;

/* The schedule for nwork items of ktiles K tiles on at most max_groups clusters, with stream-K
 * (sk = 1) or without (sk = 0: round robin, as steps 5-9). With fewer items than clusters,
 * every item is stream-K and the grid shrinks so that each range holds at least `min_iters`
 * K iterations (a piece shorter than that costs more in partial sums than it saves), but never
 * below one cluster per item. Precondition: nwork >= 1, ktiles >= 1, max_groups >= 1. */
LAY_HD static inline p9_sk p9_sk_plan(int nwork, int ktiles, int max_groups, int sk, int min_iters) {
    p9_sk s;
    s.nwork = nwork;
    s.ktiles = ktiles;
    s.groups = nwork < max_groups ? nwork : max_groups;
    s.dp = nwork;
    if (!sk || nwork % max_groups == 0) return s;
    if (nwork > max_groups) {
        s.dp = nwork - max_groups - nwork % max_groups;
        return s;
    }
    const long long iters = (long long)nwork * ktiles;
    long long g = iters / (min_iters > 0 ? min_iters : 1);
    if (g > max_groups) g = max_groups;
    if (g > nwork) s.groups = (int)g;
    s.dp = s.groups == nwork ? nwork : 0; /* one cluster per item: round robin is the same */
    return s;
}

/* First K iteration (counted over the stream-K items) of cluster g's range, g = 0 .. groups. */
LAY_HD static inline long long p9_sk_begin(const p9_sk *s, int g) {
    return (long long)(s->nwork - s->dp) * s->ktiles * g / s->groups;
}

/* A cluster's walk over its segments: work item w, K tiles [k0, k1). */
typedef struct p9_walk {
    int w;          /* next data-parallel item */
    long long x, e; /* next stream-K iteration, end of the range */
} p9_walk;

LAY_HD static inline void p9_walk_init(p9_walk *k, const p9_sk *s, int g) {
    k->w = g;
    k->x = p9_sk_begin(s, g);
    k->e = p9_sk_begin(s, g + 1);
}

/* The next segment of the walk: returns 0 when there is none, else 1 with the item and its K
 * tiles [*k0, *k1). The data-parallel items come first, then the stream-K range. */
LAY_HD static inline int p9_walk_next(p9_walk *k, const p9_sk *s, int *w, int *k0, int *k1) {
    if (k->w < s->dp) {
        *w = k->w;
        *k0 = 0;
        *k1 = s->ktiles;
        k->w += s->groups;
        return 1;
    }
    if (k->x >= k->e) return 0;
    const long long i = k->x / s->ktiles, first = i * s->ktiles;
    *w = s->dp + (int)i;
    *k0 = (int)(k->x - first);
    *k1 = k->e - first < s->ktiles ? (int)(k->e - first) : s->ktiles;
    k->x = first + *k1;
    return 1;
}

/* The stream-K workspace: one slot per consumer warpgroup of the grid, (cluster g, CTA rank r,
 * consumer c) -> slot (g * cluster + r) * consumers + c, i.e. the layout
 *   (groups,cluster,consumers):(cluster*consumers,consumers,1)
 * and inside a slot, fragment-native float4s: value 4j..4j+3 of thread t (of p9_tv_acc) at
 *   (128,32):(1,128)      (t, j) -> float4 offset
 * so each j is one coalesced 2 KiB row of the slot (P9_SK_SLOT_FLOAT4 float4s). The layout is
 * flat, so p9_sk_ws_off(t, j) = p9_sk_ws_off(t, 0) + p9_sk_ws_off(0, j): the kernel takes the
 * thread's part once and each j's as a constant (checked on the CPU). A piece's
 * contributor writes and the tile's owner reads the same (t, j) of the same slot; the owner
 * of (g, r, c) reads the slots (h, r, c), h = g + 1 .. p9_sk_last_contributor. */
#define P9_SK_SLOT_FLOAT4 (P9_WG_M * P9_BLK_N / 4)
LAY_HD static inline int p9_sk_slot(const p9_sk *s, int g, int rank, int c, int cluster,
                                    int consumers) {
    const lay_layout slots =
        lay_l3(s->groups, cluster, consumers, cluster * consumers, consumers, 1);
    return (int)lay_crd2idx3(slots, g, rank, c);
}
LAY_HD static inline int p9_sk_ws_off(int t, int j) {
    return (int)lay_crd2idx2(lay_l2(128, 32, 1, 128), t, j);
}

/* For the owner g of stream-K item w (its segment holds K tile 0): the clusters whose pieces
 * it adds are g + 1 .. p9_sk_last_contributor(s, g, w), those whose ranges begin inside the
 * item (none when the result is g). */
LAY_HD static inline int p9_sk_last_contributor(const p9_sk *s, int g, int w) {
    const long long end = (long long)(w - s->dp + 1) * s->ktiles;
    int last = g;
    while (last + 1 < s->groups && p9_sk_begin(s, last + 1) < end) ++last;
    return last;
}

#endif /* LESSON09_PLAN_H */
