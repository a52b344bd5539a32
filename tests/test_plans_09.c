/* test_plans_09.c - CPU proofs for lesson 09 (wgmma + TMA), Criterion.
 *
 * lessons/09_wgmma/plan.h holds the layouts the kernel uses; these tests check them against
 * the hardware's documented behaviour and against each other:
 *   - the accumulator TV layout equals the PTX ISA's wgmma D fragment formula for every
 *     (thread, value), covers the (64,256) slab exactly once, and the kernel's split into a
 *     thread part and a value part gives the same (m, n) as the whole layout;
 *   - the smem tile layout Sw<3,4,3> o (rows,64):(128,2) is the 128-byte swizzle TMA writes
 *     (CUDA driver API, CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk c of row r at c ^ (r % 8)),
 *     keeps every 16-byte chunk whole, stays inside its tile, and equals lesson 06's element
 *     swizzle Sw<3,3,3> in element units;
 *   - the K slices the descriptors address (32-byte steps) hold elements 16*kk .. 16*kk+15;
 *   - the grouped rasterization is a bijection over the tiles for any group size;
 *   - the persistent grid keeps the rounds of the largest grid on the fewest clusters, each
 *     walking the same number of items or one fewer;
 *   - the stmatrix epilogue: the stmatrix layouts of layout_tv.h are the PTX ISA's, every
 *     register half a warp stores lands where the wgmma fragment has the accumulator the
 *     kernel puts there, each box of the slab is written exactly once, without bank conflicts,
 *     each warp writes only the 16 rows its own TMA store reads, and the two staging boxes
 *     are never written while a TMA store may still read them;
 *   - ping-pong: over all persistent CTAs (clusters) and both consumers, every tile is
 *     computed exactly once and a CTA's items alternate between the consumers; the turn
 *     protocol, played through with the semantics of named barriers (bar.sync / bar.arrive on
 *     256 threads), never deadlocks, runs the main loops in item order, leaves no arrival
 *     pending and lets an item's epilogue overlap the next item's main loop.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* The PTX ISA figure for the m64nNk16 fp32 accumulator D, as a formula (independent of
 * plan.h): register i of thread t holds row 16*(t/32) + (t%32)/4 + 8*((i/2)%2) and column
 * 8*(i/4) + 2*(t%4) + i%2. */
static void ptx_d_fragment(int t, int i, int *row, int *col) {
    *row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
    *col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
}

Test(acc_fragment, tv_layout_is_the_ptx_figure) {
    const lay_layout tv = p9_tv_acc();
    cr_assert_eq(lay_valid(tv), 1);
    cr_assert_eq(lay_size(tv), 128 * 128);
    cr_assert_eq(lay_rank(tv), 2);
    for (int t = 0; t < 128; ++t)
        for (int v = 0; v < 128; ++v) {
            int r, c;
            ptx_d_fragment(t, v, &r, &c);
            const lay_off crd[2] = {t, v};
            const lay_off idx = lay_crd2idx_modes(tv, crd);
            cr_assert_eq(idx, r + 64 * c, "t=%d v=%d: layout %lld, figure (%d,%d)", t, v, idx, r,
                         c);
        }
}

Test(acc_fragment, covers_the_slab_once) {
    const lay_layout tv = p9_tv_acc();
    static int hits[64 * 256];
    for (int i = 0; i < 128 * 128; ++i) hits[lay_crd2idx(tv, i)]++;
    for (int i = 0; i < 64 * 256; ++i)
        cr_assert_eq(hits[i], 1, "element %d hit %d times", i, hits[i]);
    cr_assert_eq(lay_cosize(tv), 64 * 256);
}

Test(acc_fragment, thread_and_value_parts_add_up) {
    const lay_layout tv = p9_tv_acc();
    for (int t = 0; t < 128; ++t) {
        int mt, nt;
        p9_acc_thr_mn(t, &mt, &nt);
        for (int v = 0; v < 128; ++v) {
            int mv, nv;
            p9_acc_val_mn(v, &mv, &nv);
            const lay_off crd[2] = {t, v};
            const lay_off idx = lay_crd2idx_modes(tv, crd);
            cr_assert_eq(mt + mv, idx % 64, "t=%d v=%d", t, v);
            cr_assert_eq(nt + nv, idx / 64, "t=%d v=%d", t, v);
        }
    }
    /* and the pair the epilogue stores together: v, v+1 (v even) are columns n, n+1 */
    for (int v = 0; v < 128; v += 2) {
        int m0, n0, m1, n1;
        p9_acc_val_mn(v, &m0, &n0);
        p9_acc_val_mn(v + 1, &m1, &n1);
        cr_assert(m0 == m1 && n1 == n0 + 1 && n0 % 2 == 0, "v=%d", v);
    }
}

/* Step 12 multiplies the tile as two m64n128k16 on acc + 64 * h: the values 0..63 of every
 * thread are the (64,128) fragment of columns 0..127 and 64..127 the same fragment shifted
 * by 128 columns (PTX ISA 9.7.15.5.1: the D fragment does not depend on N). */
Test(acc_fragment, halves_are_the_n128_fragments) {
    for (int v = 0; v < 64; ++v) {
        int m0, n0, m1, n1;
        p9_acc_val_mn(v, &m0, &n0);
        p9_acc_val_mn(v + 64, &m1, &n1);
        cr_assert(n0 < 128 && m1 == m0 && n1 == n0 + 128, "v=%d: (%d,%d) (%d,%d)", v, m0, n0, m1,
                  n1);
    }
    for (int t = 0; t < 128; ++t) {
        int mt, nt;
        p9_acc_thr_mn(t, &mt, &nt);
        cr_assert(nt < 8, "t=%d starts at column %d", t, nt); /* the thread part stays in half 0 */
    }
}

/* TMA's 128-byte swizzle written out from the driver documentation's description. */
static long long tma_sw128(int r, int k) {
    const int chunk = (2 * k) / 16, within = (2 * k) % 16;
    return (long long)r * 128 + 16 * (chunk ^ (r % 8)) + within;
}

Test(smem_tile, is_the_tma_128b_swizzle) {
    const int rows_list[] = {64, 128, 256};
    for (int ri = 0; ri < 3; ++ri) {
        const int rows = rows_list[ri];
        const lay_swizzled t = p9_smem_tile_bytes(rows);
        cr_assert_eq(lay_valid(t.layout), 1);
        char *hit = calloc((size_t)rows * 128, 1);
        cr_assert(hit);
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < 64; ++k) {
                const lay_off o = lay_swizzled_crd2idx2(t, r, k);
                cr_assert_eq(o, tma_sw128(r, k), "rows=%d r=%d k=%d", rows, r, k);
                cr_assert(o >= 0 && o < rows * 128);
                cr_assert_eq(o % 2, 0);
                hit[o] += 1;
                /* a 16-byte chunk (8 elements) stays whole and in order */
                if (k % 8) cr_assert_eq(o, lay_swizzled_crd2idx2(t, r, k - 1) + 2);
            }
        for (int i = 0; i < rows * 128; i += 2) cr_assert_eq(hit[i], 1, "byte %d", i);
        free(hit);
    }
}

Test(smem_tile, equals_lesson06_element_swizzle) {
    lay_swizzle sw333;
    cr_assert_eq(lay_swizzle_make(&sw333, 3, 3, 3), LAY_OK);
    const lay_swizzled t = p9_smem_tile_bytes(128);
    for (int r = 0; r < 128; ++r)
        for (int k = 0; k < 64; ++k)
            cr_assert_eq(lay_swizzled_crd2idx2(t, r, k), 2 * lay_swizzle_apply(sw333, 64 * r + k));
}

/* The wgmma descriptor of K slice kk starts 32*kk bytes into the tile; with the swizzle
 * applied by the hardware to (start + unswizzled offset), slice kk's element (r, j) is the
 * tile's element (r, 16*kk + j). Checked on the unswizzled offsets: the address the hardware
 * forms before swizzling is exactly the tile's unswizzled offset of (r, 16*kk + j). */
Test(smem_tile, k_slices_by_32_bytes) {
    const lay_swizzled t = p9_smem_tile_bytes(64);
    for (int kk = 0; kk < 4; ++kk)
        for (int r = 0; r < 64; ++r)
            for (int j = 0; j < 16; ++j) {
                const lay_off formed = 32 * kk + (lay_off)r * 128 + 2 * j; /* start + (r, j) */
                cr_assert_eq(lay_swizzle_apply(t.sw, formed),
                             lay_swizzled_crd2idx2(t, r, 16 * kk + j));
            }
}

typedef void (*raster_fn)(int tile, int tiles_m, int tiles_n, int group, int *tm, int *tn);

static void check_raster(raster_fn raster, int tiles_m, int tiles_n, int group) {
    const int n = tiles_m * tiles_n;
    char *seen = calloc((size_t)n, 1);
    cr_assert(seen);
    for (int tile = 0; tile < n; ++tile) {
        int tm, tn;
        raster(tile, tiles_m, tiles_n, group, &tm, &tn);
        cr_assert(tm >= 0 && tm < tiles_m && tn >= 0 && tn < tiles_n,
                  "%dx%d group %d: tile %d -> (%d,%d)", tiles_m, tiles_n, group, tile, tm, tn);
        cr_assert_eq(seen[tm * tiles_n + tn], 0);
        seen[tm * tiles_n + tn] = 1;
    }
    free(seen);
}

Test(raster, bijection) {
    const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {32, 16}, {33, 17}, {5, 3}, {64, 64}, {9, 100}};
    const int groups[] = {1, 2, 3, 8, 16, 100};
    for (int i = 0; i < 8; ++i)
        for (int g = 0; g < 6; ++g) {
            check_raster(p9_raster, sizes[i][0], sizes[i][1], groups[g]);
            check_raster(p9_raster_serpentine, sizes[i][0], sizes[i][1], groups[g]);
        }
}

Test(raster, groups_walk_down_then_across) {
    int tm, tn;
    p9_raster(0, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 0 && tn == 0);
    p9_raster(7, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 7 && tn == 0);
    p9_raster(8, 32, 16, 8, &tm, &tn);
    cr_assert(tm == 0 && tn == 1);
    p9_raster(128, 32, 16, 8, &tm, &tn); /* the second group starts at tile row 8 */
    cr_assert(tm == 8 && tn == 0);
    p9_raster(4 * 3 + 1, 5, 7, 4, &tm, &tn); /* 5 rows, group 4: column 3, row 1 */
    cr_assert(tm == 1 && tn == 3, "(%d,%d)", tm, tn);
    p9_raster(4 * 7, 5, 7, 4, &tm, &tn);
    cr_assert(tm == 4 && tn == 0);
    p9_raster(4 * 7 + 6, 5, 7, 4, &tm, &tn);
    cr_assert(tm == 4 && tn == 6);
}

/* Step 13: even groups are p9_raster's, odd groups its mirror image along N, and each group
 * starts on the column where the one before it ended. */
Test(raster, serpentine_groups_meet_on_a_column) {
    const int sizes[][2] = {{16, 16}, {33, 17}, {5, 3}, {9, 1}, {64, 7}};
    const int groups[] = {1, 2, 3, 8};
    for (int i = 0; i < 5; ++i)
        for (int gi = 0; gi < 4; ++gi) {
            const int tiles_m = sizes[i][0], tiles_n = sizes[i][1], group = groups[gi];
            const int per_group = group * tiles_n;
            for (int tile = 0; tile < tiles_m * tiles_n; ++tile) {
                int tm, tn, pm, pn;
                p9_raster_serpentine(tile, tiles_m, tiles_n, group, &tm, &tn);
                p9_raster(tile, tiles_m, tiles_n, group, &pm, &pn);
                const int odd = (tile / per_group) & 1;
                cr_assert(tm == pm && tn == (odd ? tiles_n - 1 - pn : pn),
                          "%dx%d group %d tile %d: (%d,%d), raster (%d,%d)", tiles_m, tiles_n,
                          group, tile, tm, tn, pm, pn);
                if (tile % per_group == 0 && tile > 0) { /* a group's first tile */
                    int qm, qn;
                    p9_raster_serpentine(tile - 1, tiles_m, tiles_n, group, &qm, &qn);
                    cr_assert_eq(tn, qn,
                                 "%dx%d group %d: group %d starts on column %d, the "
                                 "group before ended on %d",
                                 tiles_m, tiles_n, group, tile / per_group, tn, qn);
                }
            }
        }
    /* 4096^3 in clusters of 2: 16 cluster rows, 16 columns, groups of 8 */
    int tm, tn;
    p9_raster_serpentine(127, 16, 16, 8, &tm, &tn); /* round 2's last item */
    cr_assert(tm == 7 && tn == 15, "(%d,%d)", tm, tn);
    p9_raster_serpentine(128, 16, 16, 8, &tm, &tn); /* round 3's first */
    cr_assert(tm == 8 && tn == 15, "(%d,%d)", tm, tn);
    p9_raster_serpentine(255, 16, 16, 8, &tm, &tn);
    cr_assert(tm == 15 && tn == 0, "(%d,%d)", tm, tn);
}

/* Step 13's K order: a permutation of the K tiles for every work item, the identity without
 * `reverse`, and with it every item starts on the K tile the item before it loaded last. */
Test(k_order, permutation_that_starts_where_the_last_item_ended) {
    const int ktiles_list[] = {1, 2, 3, 64, 1025};
    for (int i = 0; i < 5; ++i) {
        const int kt_n = ktiles_list[i];
        for (int j = 0; j < 6; ++j) {
            char seen[1025] = {0};
            for (int kt = 0; kt < kt_n; ++kt) {
                const int k = p9_k_tile(j, kt, kt_n, 1);
                cr_assert(k >= 0 && k < kt_n && !seen[k], "ktiles %d item %d: step %d -> %d", kt_n,
                          j, kt, k);
                seen[k] = 1;
                cr_assert_eq(p9_k_tile(j, kt, kt_n, 0), kt);
            }
            if (j > 0) cr_assert_eq(p9_k_tile(j, 0, kt_n, 1), p9_k_tile(j - 1, kt_n - 1, kt_n, 1));
        }
    }
    cr_assert_eq(p9_k_tile(0, 0, 64, 1), 0);
    cr_assert_eq(p9_k_tile(1, 0, 64, 1), 63);
    cr_assert_eq(p9_k_tile(2, 5, 64, 1), 5);
}

/* The persistent walk of step 13 (clusters b, +clusters, ...; p9_cluster_tile with the
 * serpentine raster) covers every tile once. */
Test(raster, serpentine_clusters_cover_every_tile_once) {
    const int sizes[][2] = {{32, 16}, {63, 16}, {1, 1}, {7, 1}, {61, 3}, {33, 17}};
    const int clusters_list[] = {1, 3, 64, 66, 200};
    for (int i = 0; i < 6; ++i)
        for (int cl = 1; cl <= 2; ++cl)
            for (int g = 0; g < 5; ++g) {
                const int tiles_m = sizes[i][0], tiles_n = sizes[i][1];
                const int rows = (tiles_m + cl - 1) / cl, nwork = rows * tiles_n;
                int *hits = calloc((size_t)tiles_m * tiles_n, sizeof *hits);
                cr_assert(hits);
                for (int b = 0; b < clusters_list[g]; ++b)
                    for (int rank = 0; rank < cl; ++rank)
                        for (int w = b; w < nwork; w += clusters_list[g]) {
                            int tm, tn;
                            p9_cluster_tile(w, rank, cl, tiles_m, tiles_n, 8, 1, &tm, &tn);
                            cr_assert(tn >= 0 && tn < tiles_n && tm >= 0 && tm < rows * cl);
                            if (tm < tiles_m) hits[tm * tiles_n + tn]++;
                        }
                for (int t = 0; t < tiles_m * tiles_n; ++t)
                    cr_assert_eq(hits[t], 1, "%dx%d tiles, cluster %d: tile %d %d times", tiles_m,
                                 tiles_n, cl, t, hits[t]);
                free(hits);
            }
}

/* ---- ping-pong tile assignment ---------------------------------------------------------- */

/* Walks every cluster b < clusters, every CTA rank and both consumers exactly as the kernel
 * does (p9_work_items, p9_pp_item, p9_cluster_tile) and counts the tiles. Returns the number
 * of CTAs whose consumers got unequal work (an odd item count). */
static int check_pp_tiles(int tiles_m, int tiles_n, int cluster, int clusters, int group) {
    const int rows = (tiles_m + cluster - 1) / cluster, nwork = rows * tiles_n;
    int *hits = calloc((size_t)tiles_m * tiles_n, sizeof *hits), odd = 0;
    cr_assert(hits);
    for (int b = 0; b < clusters; ++b)
        for (int rank = 0; rank < cluster; ++rank) {
            const int n = p9_work_items(nwork, b, clusters);
            cr_assert_eq(n, b < nwork ? (nwork - 1 - b) / clusters + 1 : 0);
            char *item_seen = calloc((size_t)n + 1, 1);
            cr_assert(item_seen);
            int count[2] = {0, 0};
            for (int c = 0; c < 2; ++c)
                for (int i = 0; p9_pp_item(c, i) < n; ++i) {
                    const int j = p9_pp_item(c, i);
                    cr_assert_eq(p9_pp_consumer(j), c, "item %d", j);
                    cr_assert_eq(item_seen[j], 0, "item %d twice", j);
                    item_seen[j] = 1;
                    count[c]++;
                    int tm, tn;
                    p9_cluster_tile(b + j * clusters, rank, cluster, tiles_m, tiles_n, group, 0,
                                    &tm, &tn);
                    cr_assert(tn >= 0 && tn < tiles_n && tm >= 0 && tm < rows * cluster);
                    if (tm >= tiles_m) { /* only a higher rank below an odd last cluster row */
                        cr_assert(rank > 0 && tiles_m % cluster != 0);
                        continue;
                    }
                    hits[tm * tiles_n + tn]++;
                }
            for (int j = 0; j < n; ++j) cr_assert_eq(item_seen[j], 1, "item %d missed", j);
            /* consumer 0 takes the extra item of an odd count */
            cr_assert(count[0] == count[1] || count[0] == count[1] + 1);
            odd += count[0] != count[1];
            free(item_seen);
        }
    for (int t = 0; t < tiles_m * tiles_n; ++t)
        cr_assert_eq(hits[t], 1,
                     "%dx%d tiles, cluster %d, %d clusters, group %d: tile (%d,%d) %d times",
                     tiles_m, tiles_n, cluster, clusters, group, t / tiles_n, t % tiles_n, hits[t]);
    free(hits);
    return odd;
}

Test(pingpong, every_tile_once) {
    /* tile counts of 64-row tiles: 4096^3 (64x16), odd rows (1000 rows: 16; 4093: 64), one
     * tile, one row, one column, more CTAs than items */
    const int sizes[][2] = {{64, 16}, {63, 16}, {1, 1}, {1, 7}, {7, 1}, {16, 4}, {61, 3}, {2, 2}};
    const int clusters_list[] = {1, 2, 3, 66, 132, 200};
    const int groups[] = {1, 8, 16};
    int odd = 0;
    for (int i = 0; i < 8; ++i)
        for (int cl = 1; cl <= 2; ++cl)
            for (int g = 0; g < 6; ++g)
                for (int gr = 0; gr < 3; ++gr)
                    odd +=
                        check_pp_tiles(sizes[i][0], sizes[i][1], cl, clusters_list[g], groups[gr]);
    cr_assert_gt(odd, 0, "no case gave the consumers unequal work");
    /* 4096^3 on an H200: 66 clusters of 2, 512 items: 50 clusters walk 8 items, 16 walk 7 */
    cr_assert_eq(p9_work_items(512, 0, 66), 8);
    cr_assert_eq(p9_work_items(512, 49, 66), 8);
    cr_assert_eq(p9_work_items(512, 50, 66), 7);
    cr_assert_eq(p9_work_items(5, 7, 66), 0);
}

/* The persistent grid: never more clusters than fit, the same number of rounds as with all of
 * them, and none to spare (one cluster fewer would need another round). */
Test(persistent, grid_keeps_the_rounds_on_the_fewest_clusters) {
    cr_assert_eq(p9_persistent_clusters(256, 66), 64); /* 4096^3: 4 rounds */
    cr_assert_eq(p9_persistent_clusters(448, 66), 64); /* 2048x14336: 7 rounds */
    cr_assert_eq(p9_persistent_clusters(64, 66), 64);  /* 2048^3: one round */
    cr_assert_eq(p9_persistent_clusters(67, 66), 34);  /* 2 rounds of 2 items */
    cr_assert_eq(p9_persistent_clusters(0, 66), 0);
    for (int max = 1; max <= 140; ++max)
        for (long long n = 1; n <= 3000; ++n) {
            const int c = p9_persistent_clusters(n, max);
            const long long rounds = (n + max - 1) / max;
            cr_assert(c >= 1 && c <= max && c <= n, "n %lld max %d: %d", n, max, c);
            cr_assert_eq((n + c - 1) / c, rounds, "n %lld max %d: %d", n, max, c);
            if (c > 1) cr_assert_gt((n + c - 2) / (c - 1), rounds, "n %lld max %d", n, max);
            /* the walk: the first cluster gets `rounds` items, the last at least rounds - 1 */
            cr_assert_eq(p9_work_items((int)n, 0, c), rounds, "n %lld c %d", n, c);
            cr_assert_geq(p9_work_items((int)n, c - 1, c), rounds - 1, "n %lld c %d", n, c);
        }
}

/* ---- the turn protocol, played through -------------------------------------------------
 * A model of one CTA's two consumer warpgroups. Consumer c's program, for each of its items j:
 *   [SYNC on barrier c, if waits(j)]  MAIN j  [ARRIVE on barrier 1-c, if hands(j, n)]  EPI j
 * A named barrier of 256 threads completes once two warpgroups (128 threads each) have
 * arrived; SYNC arrives and blocks until then, ARRIVE arrives and goes on. A warpgroup
 * arriving twice on one barrier before it completes would complete it with its own 256
 * threads: the model reports that as an error, and arrivals still pending at the end. */
typedef int (*pp_waits_fn)(int j);
typedef int (*pp_hands_fn)(int j, int n);

typedef struct pp_sim {
    int order[64], norder;   /* the items in the order their main loops ran */
    int epi_after_next_main; /* some item's epilogue ran after the next item's main loop */
    char err[160];
} pp_sim;

enum { PP_SYNC, PP_MAIN, PP_ARRIVE, PP_EPI, PP_NEXT, PP_DONE };

typedef struct pp_wg {
    int i, ph, blocked; /* its i-th item, the step it is at, 1 + the barrier it waits on */
} pp_wg;

/* Moves consumer c to its next step that does something (skips SYNC and ARRIVE when the
 * protocol leaves them out, and goes on to the next item). */
static void pp_advance(int c, pp_wg *g, int n, pp_waits_fn waits, pp_hands_fn hands) {
    for (;;) {
        const int j = p9_pp_item(c, g->i);
        if (j >= n) {
            g->ph = PP_DONE;
            return;
        }
        if (g->ph == PP_SYNC && !waits(j)) {
            g->ph = PP_MAIN;
            continue;
        }
        if (g->ph == PP_ARRIVE && !hands(j, n)) {
            g->ph = PP_EPI;
            continue;
        }
        if (g->ph == PP_NEXT) {
            g->i++;
            g->ph = PP_SYNC;
            continue;
        }
        return;
    }
}

/* One step of consumer c. Returns 0, or -1 with sim->err set. */
static int pp_step(int c, pp_wg g[2], int arrived[2][2], int n, int *main_done, pp_sim *sim,
                   pp_waits_fn waits, pp_hands_fn hands) {
    const int j = p9_pp_item(c, g[c].i);
    if (g[c].ph == PP_SYNC || g[c].ph == PP_ARRIVE) {
        const int bar = g[c].ph == PP_SYNC ? c : 1 - c;
        if (arrived[bar][c]) {
            snprintf(sim->err, sizeof sim->err, "consumer %d arrives twice on barrier %d", c, bar);
            return -1;
        }
        arrived[bar][c] = 1;
        if (g[c].ph == PP_SYNC) g[c].blocked = 1 + bar;
        if (arrived[bar][0] && arrived[bar][1]) { /* complete: its waiter goes on */
            arrived[bar][0] = arrived[bar][1] = 0;
            for (int k = 0; k < 2; ++k)
                if (g[k].blocked == 1 + bar) g[k].blocked = 0, g[k].ph = PP_MAIN;
        }
        if (g[c].ph == PP_SYNC || g[c].ph == PP_MAIN) return 0; /* blocked, or just released */
    } else if (g[c].ph == PP_MAIN) {
        if (j > 0 && !main_done[j - 1]) {
            snprintf(sim->err, sizeof sim->err, "main loop of item %d before item %d's", j, j - 1);
            return -1;
        }
        main_done[j] = 1;
        sim->order[sim->norder++] = j;
    } else if (g[c].ph == PP_EPI && j + 1 < n && main_done[j + 1]) {
        sim->epi_after_next_main = 1;
    }
    g[c].ph++;
    pp_advance(c, &g[c], n, waits, hands);
    return 0;
}

/* Plays n items (n <= 64) through; `seed` picks which runnable consumer steps next (seed 0:
 * consumer 0 whenever it can). Returns 0, or -1 with sim->err set. */
static int pp_play(int n, unsigned seed, pp_waits_fn waits, pp_hands_fn hands, pp_sim *sim) {
    pp_wg g[2] = {{0, PP_SYNC, 0}, {0, PP_SYNC, 0}};
    int arrived[2][2] = {{0, 0}, {0, 0}}; /* [barrier][warpgroup]: arrival pending */
    int main_done[64] = {0};
    memset(sim, 0, sizeof *sim);
    for (int c = 0; c < 2; ++c) pp_advance(c, &g[c], n, waits, hands);
    for (int steps = 0; steps < 100000; ++steps) {
        int run[2], nrun = 0;
        for (int c = 0; c < 2; ++c)
            if (g[c].ph != PP_DONE && !g[c].blocked) run[nrun++] = c;
        if (nrun == 0) {
            if (g[0].ph != PP_DONE || g[1].ph != PP_DONE) {
                snprintf(sim->err, sizeof sim->err, "deadlock at items %d and %d",
                         p9_pp_item(0, g[0].i), p9_pp_item(1, g[1].i));
                return -1;
            }
            for (int b = 0; b < 2; ++b)
                if (arrived[b][0] || arrived[b][1]) {
                    snprintf(sim->err, sizeof sim->err, "an arrival left pending on barrier %d", b);
                    return -1;
                }
            return 0;
        }
        int pick = 0;
        if (seed) {
            seed = seed * 1103515245u + 12345u;
            pick = (int)((seed >> 16) % (unsigned)nrun);
        }
        if (pp_step(run[pick], g, arrived, n, main_done, sim, waits, hands)) return -1;
    }
    snprintf(sim->err, sizeof sim->err, "did not finish");
    return -1;
}

Test(pingpong, turns_alternate) {
    for (int n = 0; n <= 33; ++n) {
        int overlap = 0;
        for (unsigned seed = 0; seed < 200; ++seed) {
            pp_sim sim;
            const int r = pp_play(n, seed, p9_pp_waits_turn, p9_pp_hands_turn, &sim);
            cr_assert_eq(r, 0, "%d items, seed %u: %s", n, seed, sim.err);
            cr_assert_eq(sim.norder, n);
            for (int k = 0; k < n; ++k) cr_assert_eq(sim.order[k], k, "%d items, seed %u", n, seed);
            overlap |= sim.epi_after_next_main;
        }
        /* the hand-over comes before the epilogue: under some schedule item j's epilogue
         * runs after item j+1's main loop */
        if (n >= 2) cr_assert(overlap, "%d items: no epilogue overlapped the next main loop", n);
    }
}

/* The model catches broken protocols (so that the test above can fail). */
static int pp_always(int j, int n) {
    (void)j;
    (void)n;
    return 1;
}
static int pp_never_waits(int j) {
    (void)j;
    return 0;
}
static int pp_waits_all(int j) {
    (void)j;
    return 1;
}

Test(pingpong, model_catches_broken_protocols) {
    pp_sim sim;
    /* the last item hands the turn on: an arrival is left pending at exit */
    cr_assert_eq(pp_play(3, 0, p9_pp_waits_turn, pp_always, &sim), -1);
    cr_assert(strstr(sim.err, "pending"), "%s", sim.err);
    /* nobody waits: consumer 1 runs item 1 before item 0 for some schedule */
    int bad = 0;
    for (unsigned seed = 1; seed < 50; ++seed)
        bad |= pp_play(4, seed, pp_never_waits, p9_pp_hands_turn, &sim) != 0;
    cr_assert(bad);
    /* item 0 waits too: nobody ever gives it the turn */
    cr_assert_eq(pp_play(2, 0, pp_waits_all, p9_pp_hands_turn, &sim), -1);
    cr_assert(strstr(sim.err, "deadlock"), "%s", sim.err);
}

/* ---- the stmatrix epilogue (step 9) ---------------------------------------------------- */

/* PTX ISA 9.7.14.5.16 (stmatrix, .m8n8, .b16), written out: lane l addresses row l%8 of matrix
 * l/8; half h of register q of lane l is element (l/4, 2(l%4)+h) of matrix q. As stack
 * elements e = col + 8*row, row = 8q + row of matrix q. */
static int ptx_stsm_row_elem(int lane, int col) { return col + 8 * (8 * (lane / 8) + lane % 8); }
static int ptx_stsm_reg_elem(int lane, int vv) {
    return 2 * (lane % 4) + vv % 2 + 8 * (8 * (vv / 2) + lane / 4);
}

Test(stsm_epilogue, layouts_are_the_ptx_description) {
    const lay_tv rows = lay_tv_stmatrix_rows(4), regs = lay_tv_stmatrix_regs(4);
    for (int l = 0; l < 32; ++l) {
        for (int c = 0; c < 8; ++c) cr_assert_eq(lay_tv_at(&rows, l, c), ptx_stsm_row_elem(l, c));
        for (int vv = 0; vv < 8; ++vv)
            cr_assert_eq(lay_tv_at(&regs, l, vv), ptx_stsm_reg_elem(l, vv), "l=%d vv=%d", l, vv);
    }
}

/* Where stmatrix j of thread t's warp writes stack element e: the row address that lane e/8
 * gives (found through the rows layout), e%8 columns on. */
static void stsm_dest_mn(int t, int j, int e, int *m, int *n) {
    const lay_tv rows = lay_tv_stmatrix_rows(4);
    for (int l = 0; l < 32; ++l)
        for (int c = 0; c < 8; ++c)
            if (lay_tv_at(&rows, l, c) == e) {
                p9_stsm_thr_mn(32 * (t / 32) + l, m, n);
                *n += 16 * j + c;
                return;
            }
    *m = *n = -1;
}

Test(stsm_epilogue, registers_land_on_their_accumulators) {
    const lay_layout tv = p9_tv_acc();
    const lay_tv regs = lay_tv_stmatrix_regs(4);
    for (int t = 0; t < 128; ++t) {
        int seen[128] = {0};
        for (int j = 0; j < 16; ++j)
            for (int vv = 0; vv < 8; ++vv) {
                const int v = p9_stsm_acc_v(j, vv);
                cr_assert(v >= 0 && v < 128, "j=%d vv=%d: v=%d", j, vv, v);
                seen[v]++;
                /* the register pair is a column pair of one row: add_beta_c and pack2 */
                if (vv % 2 == 0) {
                    cr_assert_eq(v % 2, 0);
                    cr_assert_eq(p9_stsm_acc_v(j, vv + 1), v + 1);
                }
                int m, n;
                stsm_dest_mn(t, j, lay_tv_at(&regs, t % 32, vv), &m, &n);
                const lay_off crd[2] = {t, v};
                cr_assert_eq(lay_crd2idx_modes(tv, crd), m + 64 * n,
                             "t=%d j=%d vv=%d: acc v=%d at %lld, stmatrix writes (%d,%d)", t, j, vv,
                             v, lay_crd2idx_modes(tv, crd), m, n);
            }
        for (int v = 0; v < 128; ++v)
            cr_assert_eq(seen[v], 1, "t=%d: value %d stored %d times", t, v, seen[v]);
    }
}

Test(stsm_epilogue, boxes_written_once_without_bank_conflicts) {
    const lay_swizzled box = p9_smem_tile_bytes(P9_WG_M);
    static unsigned char hit[P9_EPI_CHUNKS][P9_EPI_BOX_BYTES];
    memset(hit, 0, sizeof hit);
    for (int w = 0; w < 4; ++w) { /* epilogue_stsm's mw: lane 0's fragment origin */
        int m, n;
        p9_acc_thr_mn(32 * w, &m, &n);
        cr_assert(m == P9_EPI_WARP_ROWS * w && n == 0, "w=%d: origin (%d,%d)", w, m, n);
    }
    for (int w = 0; w < 4; ++w)
        for (int j = 0; j < 16; ++j)
            for (int mat = 0; mat < 4; ++mat) {
                int groups = 0;
                for (int r = 0; r < 8; ++r) {
                    const int t = 32 * w + 8 * mat + r;
                    int m, n;
                    p9_stsm_thr_mn(t, &m, &n);
                    n += 16 * j;
                    cr_assert(m >= 0 && m < 64 && n >= 0 && n < 256 && n % 8 == 0);
                    cr_assert_eq(n / 64, j / 4, "stmatrix %d leaves its chunk", j);
                    /* warp w writes only rows P9_EPI_WARP_ROWS * w .. of the box: the rows its
                     * own TMA store reads (stage_chunk: no warp waits for another) */
                    cr_assert_eq(m / P9_EPI_WARP_ROWS, w, "w=%d writes row %d", w, m);
                    const lay_off o = lay_swizzled_crd2idx2(box, m, n % 64);
                    cr_assert(o % 16 == 0 && o >= 0 && o + 16 <= P9_EPI_BOX_BYTES);
                    for (int b = 0; b < 16; ++b) hit[j / 4][o + b]++;
                    groups |= 1 << ((o / 16) % 8);
                }
                /* the 8 rows of one 8x8 matrix cover all 32 banks: one wavefront */
                cr_assert_eq(groups, 0xFF, "w=%d j=%d matrix %d: bank groups %x", w, j, mat,
                             groups);
            }
    for (int q = 0; q < P9_EPI_CHUNKS; ++q)
        for (int b = 0; b < P9_EPI_BOX_BYTES; ++b)
            cr_assert_eq(hit[q][b], 1, "chunk %d byte %d written %d times", q, b, hit[q][b]);
}

/* The staging protocol of epilogue_stsm (gemm.cu) for one warp (its lane 0 issues the stores
 * and waits; a box here is the warp's 16 rows of it, which no other warp touches), played
 * through over several passes of `chunks` chunks each (a tile in steps 9 and 11, a half tile
 * in step 12) with the latest completion a TMA store may have: its read of a box ends only
 * when the issuing thread waits for it. Before each chunk q that p9_epi_waits_before names,
 * lane 0 waits with wait_group.read `keep` (all but its `keep` latest stores have read);
 * keep < 0 plays a protocol without that wait. Returns -1 if a box is written while a store
 * may read it; counts the chunks written while an earlier chunk's store may still read
 * (*overlap) and the waits that make a store wait for the one just before it (*serial). */
static int epi_play(int passes, int chunks, int bufs, int keep, int *overlap, int *serial) {
    int box_of[P9_EPI_CHUNKS] = {0}; /* the boxes of the stores not waited for, oldest first */
    int pending = 0;
    *overlap = *serial = 0;
    for (int pass = 0; pass < passes; ++pass) {
        pending = 0; /* lane 0: wait_read 0; __syncwarp */
        for (int q = 0; q < chunks; ++q) {
            const int b = p9_epi_buf(q, bufs);
            if (keep >= 0 && p9_epi_waits_before(q, bufs) && pending > keep) {
                *serial += keep == 0; /* the store of chunk q-1 must finish reading first */
                for (int i = 0; i < keep; ++i) box_of[i] = box_of[pending - keep + i];
                pending = keep; /* wait_read keep; __syncwarp */
            }
            for (int i = 0; i < pending; ++i)
                if (box_of[i] == b) return -1; /* written while a store may read it */
            *overlap += pending > 0;
            cr_assert(pending < P9_EPI_CHUNKS);
            box_of[pending++] = b; /* lane 0 stores the warp's rows of chunk q, commits */
        }
    }
    return 0;
}

Test(stsm_epilogue, staging_protocol) {
    int overlap, serial;
    /* step 9: two boxes, the kernel's wait (wait_read 1 before chunks 2 and 3) */
    cr_assert(!p9_epi_waits_before(0, P9_EPI_BUFS) && !p9_epi_waits_before(1, P9_EPI_BUFS));
    cr_assert(p9_epi_waits_before(2, P9_EPI_BUFS) && p9_epi_waits_before(3, P9_EPI_BUFS));
    for (int tiles = 1; tiles <= 5; ++tiles) {
        cr_assert_eq(
            epi_play(tiles, P9_EPI_CHUNKS, P9_EPI_BUFS, P9_EPI_BUFS - 1, &overlap, &serial), 0,
            "%d tiles", tiles);
        /* each chunk after the first of a tile is written while its predecessor's store reads,
         * and no store waits for its predecessor */
        cr_assert_eq(overlap, tiles * (P9_EPI_CHUNKS - 1), "%d tiles: overlap %d", tiles, overlap);
        cr_assert_eq(serial, 0);
    }
    /* waiting for every store (wait_read 0) is safe too, but serializes the stores: chunks 2
     * and 3 wait for the store just before them */
    cr_assert_eq(epi_play(1, P9_EPI_CHUNKS, P9_EPI_BUFS, 0, &overlap, &serial), 0);
    cr_assert_eq(serial, 2);
    /* the model catches a broken protocol: no wait, a wait that keeps too many stores, one box */
    cr_assert_eq(epi_play(1, P9_EPI_CHUNKS, P9_EPI_BUFS, -1, &overlap, &serial), -1);
    cr_assert_eq(epi_play(1, P9_EPI_CHUNKS, P9_EPI_BUFS, P9_EPI_BUFS, &overlap, &serial), -1);
    cr_assert_eq(epi_play(1, P9_EPI_CHUNKS, 1, 0, &overlap, &serial), 0); /* one box: serial */
    cr_assert_eq(epi_play(1, P9_EPI_CHUNKS, 1, -1, &overlap, &serial), -1);
    cr_assert_eq(epi_play(2, P9_EPI_CHUNKS, 3, -1, &overlap, &serial), -1); /* 3 boxes, no wait */
    /* step 11: a box per chunk, and the kernel's rule waits for no store in the loop; chunk q
     * is written while the stores of the q chunks before it may still read */
    for (int q = 0; q < P9_EPI_CHUNKS; ++q) cr_assert(!p9_epi_waits_before(q, P9_EPI_CHUNKS));
    for (int tiles = 1; tiles <= 5; ++tiles) {
        cr_assert_eq(epi_play(tiles, P9_EPI_CHUNKS, P9_EPI_CHUNKS, -1, &overlap, &serial), 0,
                     "%d tiles", tiles);
        cr_assert_eq(overlap, tiles * (P9_EPI_CHUNKS - 1), "%d tiles: overlap %d", tiles, overlap);
    }
    /* step 12: two passes per tile, each a half (two chunks) through step 9's two boxes, no
     * wait inside a pass; the second chunk of each pass is written while the first's store
     * may read */
    for (int q = 0; q < P9_EPI_CHUNKS / 2; ++q) cr_assert(!p9_epi_waits_before(q, P9_EPI_BUFS));
    for (int tiles = 1; tiles <= 5; ++tiles) {
        cr_assert_eq(epi_play(2 * tiles, P9_EPI_CHUNKS / 2, P9_EPI_BUFS, -1, &overlap, &serial), 0,
                     "%d tiles", tiles);
        cr_assert_eq(overlap, 2 * tiles, "%d tiles: overlap %d", tiles, overlap);
    }
    cr_assert_eq(epi_play(2, P9_EPI_CHUNKS / 2, 1, -1, &overlap, &serial), -1); /* one box */
    cr_assert_eq(P9_EPI_CHUNKS * P9_EPI_BOX_BYTES, 64 * 256 * 2);               /* the whole slab */
    cr_assert_eq(P9_EPI_BUFS * P9_EPI_BOX_BYTES, P9_WG_M * 128 * 2); /* one C staging tile */
}

/* ---- stream-K (step 10) ------------------------------------------------------------------ */

/* Plays the kernel's walk for every cluster of the schedule and checks: each (item, K tile)
 * is computed exactly once; each item has one owner (the segment with K tile 0) and, when it
 * is not whole, that segment is the last of the owner's walk; every other piece is the first
 * segment of its cluster's stream-K range and its cluster is one of the owner's contributors
 * (p9_sk_last_contributor), so one workspace slot per cluster holds it; and the owner's
 * contributors are exactly the clusters with a piece of the item. Returns the schedule. */
static p9_sk check_sk(int nwork, int ktiles, int max_groups, int sk, int min_iters) {
    const p9_sk s = p9_sk_plan(nwork, ktiles, max_groups, sk, min_iters);
    cr_assert(s.groups >= 1 && s.groups <= max_groups && s.dp >= 0 && s.dp <= nwork);
    cr_assert(s.dp == nwork || s.dp % s.groups == 0, "dp %d groups %d", s.dp, s.groups);
    int *hits = calloc((size_t)nwork * ktiles, sizeof *hits);
    int *owner = malloc((size_t)nwork * sizeof *owner);
    int *pieces = calloc((size_t)nwork, sizeof *pieces); /* pieces other than the owner's */
    cr_assert(hits && owner && pieces);
    for (int w = 0; w < nwork; ++w) owner[w] = -1;
    for (int g = 0; g < s.groups; ++g) {
        p9_walk k;
        p9_walk_init(&k, &s, g);
        int w, k0, k1, seg = 0, sk_seg = 0, last_w = -1, last_k0 = -1, last_k1 = -1;
        cr_assert(p9_sk_begin(&s, g) < p9_sk_begin(&s, g + 1) || s.dp == nwork,
                  "cluster %d has an empty stream-K range", g);
        while (p9_walk_next(&k, &s, &w, &k0, &k1)) {
            cr_assert(w >= 0 && w < nwork && k0 >= 0 && k0 < k1 && k1 <= ktiles);
            if (w < s.dp) cr_assert(k0 == 0 && k1 == ktiles && sk_seg == 0);
            for (int kt = k0; kt < k1; ++kt) hits[w * ktiles + kt]++;
            if (k0 == 0) {
                cr_assert_eq(owner[w], -1);
                owner[w] = g;
            } else {
                cr_assert(w >= s.dp && sk_seg == 0, "a piece that is not its cluster's first");
                pieces[w]++;
            }
            sk_seg += w >= s.dp;
            last_w = w, last_k0 = k0, last_k1 = k1;
            ++seg;
            cr_assert(seg <= nwork + 1);
        }
        /* an owner's unfinished item is its walk's last segment */
        if (last_w >= 0 && last_k0 == 0 && last_k1 < ktiles) cr_assert(last_w >= s.dp);
    }
    for (int i = 0; i < nwork * ktiles; ++i)
        cr_assert_eq(hits[i], 1, "nwork %d ktiles %d groups %d: iteration %d computed %d times",
                     nwork, ktiles, s.groups, i, hits[i]);
    for (int w = 0; w < nwork; ++w) {
        cr_assert(owner[w] >= 0);
        const int last = w >= s.dp ? p9_sk_last_contributor(&s, owner[w], w) : owner[w];
        cr_assert_eq(last - owner[w], pieces[w], "item %d: %d contributors, %d pieces", w,
                     last - owner[w], pieces[w]);
        /* each contributor's first segment is its piece of this item */
        for (int g = owner[w] + 1; g <= last; ++g) {
            p9_walk k;
            p9_walk_init(&k, &s, g);
            int w2, k0, k1;
            for (int i = 0; i < s.dp / s.groups; ++i)
                cr_assert(p9_walk_next(&k, &s, &w2, &k0, &k1));
            cr_assert(p9_walk_next(&k, &s, &w2, &k0, &k1));
            cr_assert(w2 == w && k0 > 0, "cluster %d: first stream-K piece (%d,%d)", g, w2, k0);
        }
    }
    free(hits);
    free(owner);
    free(pieces);
    return s;
}

Test(streamk, every_iteration_once) {
    /* (items, K tiles): 4096^3 and 8192^3 in 256x256 cluster items (64 K tiles of 64; 128),
     * 2048^3 (64 items: fewer than clusters), 4096x4096x1024, odd counts, one item, one K tile */
    const int cases[][2] = {{256, 64}, {1024, 128}, {64, 32}, {256, 16}, {1, 1},   {1, 64},
                            {67, 3},   {65, 1},     {133, 7}, {66, 10},  {200, 2}, {7, 1000}};
    for (int i = 0; i < 12; ++i)
        for (int sk = 0; sk < 2; ++sk)
            for (int mi = 1; mi <= 8; mi *= 8) check_sk(cases[i][0], cases[i][1], 66, sk, mi);
    for (int g = 1; g <= 9; ++g) check_sk(17, 5, g, 1, 1);
}

Test(streamk, plan_splits_the_last_waves) {
    /* 4096^3 on 66 clusters: 256 items = 3 full waves + 58; the last full wave and the 58 go
     * stream-K: 124 items of 64 K tiles over 66 ranges of 120 or 121 */
    p9_sk s = p9_sk_plan(256, 64, 66, 1, 8);
    cr_assert(s.groups == 66 && s.dp == 132);
    for (int g = 0; g < 66; ++g) {
        const long long len = p9_sk_begin(&s, g + 1) - p9_sk_begin(&s, g);
        cr_assert(len == 120 || len == 121, "range %d: %lld", g, len);
    }
    /* one range is shorter than two items, so an item has at most one contributor */
    for (int w = s.dp; w < 256; ++w) {
        int g = 0; /* the owner: its range holds the item's first K iteration */
        while (g + 1 < 66 && p9_sk_begin(&s, g + 1) <= (long long)(w - s.dp) * 64) ++g;
        cr_assert(p9_sk_last_contributor(&s, g, w) <= g + 1);
    }
    s = p9_sk_plan(256, 64, 66, 0, 8); /* without stream-K: round robin */
    cr_assert(s.groups == 66 && s.dp == 256);
    s = p9_sk_plan(264, 64, 66, 1, 8); /* 4 full waves: nothing to split */
    cr_assert(s.dp == 264);
    s = p9_sk_plan(64, 32, 66, 1, 8); /* 2048^3: 64 items, all stream-K on 66 clusters */
    cr_assert(s.groups == 66 && s.dp == 0);
    s = p9_sk_plan(16, 4, 66, 1, 8); /* 64 iterations: ranges of 8 need 8 clusters < 16 items */
    cr_assert(s.groups == 16 && s.dp == 16);
    s = p9_sk_plan(4, 16, 66, 1, 8); /* 64 iterations of 4 items: 8 clusters of 8 */
    cr_assert(s.groups == 8 && s.dp == 0);
}

Test(streamk, workspace_slots_and_offsets_are_bijections) {
    /* every (cluster, rank, consumer) of the grid its own slot, 0 .. slots-1; inside a slot
     * every (thread, j) its own float4, thread-contiguous per j (coalesced rows) */
    const p9_sk s = p9_sk_plan(256, 64, 66, 1, 8);
    const int cluster = 2, consumers = 2, slots = s.groups * cluster * consumers;
    char *seen = calloc((size_t)slots, 1);
    cr_assert(seen);
    for (int g = 0; g < s.groups; ++g)
        for (int r = 0; r < cluster; ++r)
            for (int c = 0; c < consumers; ++c) {
                const int i = p9_sk_slot(&s, g, r, c, cluster, consumers);
                cr_assert(i >= 0 && i < slots && !seen[i], "(%d,%d,%d) -> %d", g, r, c, i);
                seen[i] = 1;
            }
    free(seen);
    char used[P9_SK_SLOT_FLOAT4] = {0};
    for (int j = 0; j < 32; ++j)
        for (int t = 0; t < 128; ++t) {
            const int o = p9_sk_ws_off(t, j);
            cr_assert(o >= 0 && o < P9_SK_SLOT_FLOAT4 && !used[o]);
            used[o] = 1;
            if (t > 0) cr_assert_eq(o, p9_sk_ws_off(t - 1, j) + 1);
            cr_assert_eq(o, p9_sk_ws_off(t, 0) + p9_sk_ws_off(0, j)); /* the kernel's split */
        }
}
