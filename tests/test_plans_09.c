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
 *   - the grouped rasterization is a bijection over the tiles for any group size.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

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

static void check_raster(int tiles_m, int tiles_n, int group) {
    const int n = tiles_m * tiles_n;
    char *seen = calloc((size_t)n, 1);
    cr_assert(seen);
    for (int tile = 0; tile < n; ++tile) {
        int tm, tn;
        p9_raster(tile, tiles_m, tiles_n, group, &tm, &tn);
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
        for (int g = 0; g < 6; ++g) check_raster(sizes[i][0], sizes[i][1], groups[g]);
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
