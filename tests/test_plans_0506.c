/* test_plans_0506.c - CPU proofs for lessons 05 (mma) and 06 (swizzle), Criterion.
 *
 *   (a) the mma.m16n8k16 fragment formulas in lessons/06_swizzle/plan.h equal the PTX ISA
 *       tables (9.7.14.5.8), written here independently in the ISA's own case form;
 *   (b) the ldmatrix.x4 lane -> row-address mapping the kernels use, simulated on the CPU over
 *       the real smem layouts (lesson 05 padded / unpadded, lesson 06 swizzled), delivers every
 *       element of the warp tile to exactly the register and half the MMA expects, from
 *       16-byte-aligned addresses; and the kernel's shortcut for those addresses (block offset
 *       + per-lane offset, XOR per k-step) equals the direct formula;
 *   (c) the swizzle is a bijection on the tile that keeps 16-byte chunks whole, and both the
 *       cp.async 16-byte stores and the ldmatrix reads are conflict-free through it, while the
 *       plain layout is not; the CTA rasterization is a bijection.
 *
 * Build: gcc -std=c11 -Wall -Wextra -O2 tests/test_plans_0506.c -lcriterion -o test_plans_0506
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../lessons/06_swizzle/plan.h"

/* ---- (a) fragment tables --------------------------------------------------------------- */

/* PTX ISA, fragments of mma.m16n8k16 for .f16/.bf16 A: groupID = lane >> 2,
 * threadID_in_group = lane % 4; row = groupID for a_i with 0 <= i < 2 || 4 <= i < 6, else
 * groupID + 8; col = threadID_in_group*2 + (i & 1) for i < 4, else that + 8. */
static int isa_a_row(int lane, int i) {
    return ((i >= 0 && i < 2) || (i >= 4 && i < 6)) ? (lane >> 2) : (lane >> 2) + 8;
}
static int isa_a_col(int lane, int i) {
    return i < 4 ? (lane % 4) * 2 + (i & 1) : (lane % 4) * 2 + (i & 1) + 8;
}
/* B (K x N): row = threadID_in_group*2 + (i & 1) for b_i, i < 2, else that + 8; col = groupID */
static int isa_b_row(int lane, int i) { return (lane % 4) * 2 + (i & 1) + (i < 2 ? 0 : 8); }
static int isa_b_col(int lane) { return lane >> 2; }
/* C/D: row = groupID for c_i, i < 2, else groupID + 8; col = threadID_in_group*2 + (i & 1) */
static int isa_c_row(int lane, int i) { return i < 2 ? (lane >> 2) : (lane >> 2) + 8; }
static int isa_c_col(int lane, int i) { return (lane % 4) * 2 + (i & 1); }

Test(mma_fragments, a_matches_isa_and_covers_16x16_once) {
    int seen[16][16];
    memset(seen, 0, sizeof seen);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 8; ++i) {
            cr_assert_eq(plan_mma_a_row(lane, i), isa_a_row(lane, i), "A row lane %d a%d", lane, i);
            cr_assert_eq(plan_mma_a_col(lane, i), isa_a_col(lane, i), "A col lane %d a%d", lane, i);
            seen[plan_mma_a_row(lane, i)][plan_mma_a_col(lane, i)]++;
        }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) cr_assert_eq(seen[r][c], 1, "A (%d,%d) held %d times", r, c, seen[r][c]);
}

Test(mma_fragments, a_lane0_and_lane_t) {
    static const int lane0[8][2] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}};
    for (int i = 0; i < 8; ++i) {
        cr_assert_eq(plan_mma_a_row(0, i), lane0[i][0]);
        cr_assert_eq(plan_mma_a_col(0, i), lane0[i][1]);
    }
    for (int t = 0; t < 32; ++t) { /* rows t/4, t/4+8; cols 2(t%4), 2(t%4)+1 and +8 */
        int rows[2] = {t / 4, t / 4 + 8}, cols[4] = {2 * (t % 4), 2 * (t % 4) + 1, 2 * (t % 4) + 8, 2 * (t % 4) + 9};
        for (int i = 0; i < 8; ++i) {
            int r = plan_mma_a_row(t, i), c = plan_mma_a_col(t, i);
            cr_assert(r == rows[0] || r == rows[1]);
            cr_assert(c == cols[0] || c == cols[1] || c == cols[2] || c == cols[3]);
        }
    }
}

Test(mma_fragments, b_matches_isa_and_covers_16x8_once) {
    int seen[16][8];
    memset(seen, 0, sizeof seen);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            cr_assert_eq(plan_mma_b_k(lane, i), isa_b_row(lane, i), "B k lane %d b%d", lane, i);
            cr_assert_eq(plan_mma_b_n(lane, i), isa_b_col(lane), "B n lane %d b%d", lane, i);
            seen[plan_mma_b_k(lane, i)][plan_mma_b_n(lane, i)]++;
        }
    for (int k = 0; k < 16; ++k)
        for (int n = 0; n < 8; ++n) cr_assert_eq(seen[k][n], 1);
    /* lane t: k = 2(t%4), 2(t%4)+1 (b0,b1) and +8 (b2,b3), n = t/4 */
    cr_assert_eq(plan_mma_b_k(5, 0), 2); cr_assert_eq(plan_mma_b_k(5, 1), 3);
    cr_assert_eq(plan_mma_b_k(5, 2), 10); cr_assert_eq(plan_mma_b_k(5, 3), 11);
    cr_assert_eq(plan_mma_b_n(5, 3), 1);
}

Test(mma_fragments, c_matches_isa_and_covers_16x8_once) {
    int seen[16][8];
    memset(seen, 0, sizeof seen);
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < 4; ++i) {
            cr_assert_eq(plan_mma_c_row(lane, i), isa_c_row(lane, i));
            cr_assert_eq(plan_mma_c_col(lane, i), isa_c_col(lane, i));
            seen[plan_mma_c_row(lane, i)][plan_mma_c_col(lane, i)]++;
        }
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 8; ++c) cr_assert_eq(seen[r][c], 1);
    /* lane t: rows t/4 (c0,c1) and t/4+8 (c2,c3), cols 2(t%4), 2(t%4)+1 */
    cr_assert_eq(plan_mma_c_row(13, 0), 3); cr_assert_eq(plan_mma_c_row(13, 2), 11);
    cr_assert_eq(plan_mma_c_col(13, 0), 2); cr_assert_eq(plan_mma_c_col(13, 3), 3);
}

/* ---- (b) ldmatrix simulation ----------------------------------------------------------- */

/* A simulated smem tile (rows, blk_k) through a layout: cell[offset] = element id row*blk_k+col.
 * layout: 0 plain, 1 padded (+8 halves per row, lesson 05), 2 swizzled (lesson 06). */
#define MAXCELLS (256 * 136) /* up to (256, 128) padded by 8 */
static int offset_of(int row, int col, int blk_k, int layout) {
    return plan_smem_offset(row, col, blk_k, layout == 2, layout == 1 ? 8 : 0);
}
static void fill_tile(int *cell, int rows, int blk_k, int layout) {
    for (int i = 0; i < MAXCELLS; ++i) cell[i] = -1;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < blk_k; ++c) {
            int o = offset_of(r, c, blk_k, layout);
            cr_assert(o >= 0 && o < MAXCELLS);
            cr_assert_eq(cell[o], -1, "two elements at offset %d", o);
            cell[o] = r * blk_k + c;
        }
}

/* ldmatrix (no .trans), .x4: addr[l] = offset (halves) supplied by lane l; out[l][q][j] = the
 * element id lane l receives in register q, half j: row l/4 of matrix q (rows supplied by lanes
 * 8q..8q+7), columns 2(l%4)+j. */
static void sim_ldmatrix_x4(const int *cell, const int addr[32], int out[32][4][2]) {
    for (int l = 0; l < 32; ++l)
        for (int q = 0; q < 4; ++q)
            for (int j = 0; j < 2; ++j)
                out[l][q][j] = cell[addr[8 * q + plan_ldsm_recv_row(l)] + plan_ldsm_recv_col(l, j)];
}

/* Checks the A operand path for a (128, blk_k) tile of warps_m warp rows of 64 rows. */
static void check_a_path(int blk_k, int layout) {
    static int cell[MAXCELLS];
    const int rows = 128, wtm = 64;
    fill_tile(cell, rows, blk_k, layout);
    for (int wm = 0; wm < rows / wtm; ++wm)
        for (int i = 0; i < wtm / 16; ++i)
            for (int kk = 0; kk < blk_k / 16; ++kk) {
                int addr[32], out[32][4][2];
                for (int l = 0; l < 32; ++l) {
                    const int row = wm * wtm + i * 16 + plan_ldsm_a_row(l);
                    const int col = kk * 16 + 8 * plan_ldsm_a_chunk(l);
                    addr[l] = offset_of(row, col, blk_k, layout);
                    cr_assert_eq((addr[l] * 2) % 16, 0, "lane %d address not 16-byte aligned", l);
                    if (layout == 2) { /* the kernel's shortcut: block + (lane part ^ kk*16) */
                        const int lane_part = offset_of(plan_ldsm_a_row(l), 8 * plan_ldsm_a_chunk(l), blk_k, 2);
                        cr_assert_eq(addr[l], (wm * wtm + i * 16) * blk_k + (lane_part ^ (kk * 16)));
                    }
                }
                sim_ldmatrix_x4(cell, addr, out);
                for (int l = 0; l < 32; ++l)
                    for (int v = 0; v < 8; ++v) { /* a_v is half v%2 of register v/2 */
                        const int r = wm * wtm + i * 16 + plan_mma_a_row(l, v);
                        const int c = kk * 16 + plan_mma_a_col(l, v);
                        cr_assert_eq(out[l][v / 2][v % 2], r * blk_k + c,
                                     "blk_k %d layout %d: lane %d a%d got element %d, wants (%d,%d)",
                                     blk_k, layout, l, v, out[l][v / 2][v % 2], r, c);
                    }
            }
}

/* Checks the B operand path for a (256, blk_k) tile (B stored (N,K)): one ldmatrix.x4 gives
 * atoms j and j+1: register 0,1 = b0b1,b2b3 of atom j; 2,3 = those of atom j+1. */
static void check_b_path(int blk_k, int layout) {
    static int cell[MAXCELLS];
    const int rows = 256, wtn = 64;
    fill_tile(cell, rows, blk_k, layout);
    for (int wn = 0; wn < rows / wtn; ++wn)
        for (int j = 0; j < wtn / 8; j += 2)
            for (int kk = 0; kk < blk_k / 16; ++kk) {
                int addr[32], out[32][4][2];
                for (int l = 0; l < 32; ++l) {
                    const int row = wn * wtn + j * 8 + plan_ldsm_b_row(l);
                    const int col = kk * 16 + 8 * plan_ldsm_b_chunk(l);
                    addr[l] = offset_of(row, col, blk_k, layout);
                    cr_assert_eq((addr[l] * 2) % 16, 0);
                    if (layout == 2) {
                        const int lane_part = offset_of(plan_ldsm_b_row(l), 8 * plan_ldsm_b_chunk(l), blk_k, 2);
                        cr_assert_eq(addr[l], (wn * wtn + j * 8) * blk_k + (lane_part ^ (kk * 16)));
                    }
                }
                sim_ldmatrix_x4(cell, addr, out);
                for (int l = 0; l < 32; ++l)
                    for (int atom = 0; atom < 2; ++atom)
                        for (int v = 0; v < 4; ++v) {
                            const int n = wn * wtn + (j + atom) * 8 + plan_mma_b_n(l, v);
                            const int k = kk * 16 + plan_mma_b_k(l, v);
                            cr_assert_eq(out[l][2 * atom + v / 2][v % 2], n * blk_k + k,
                                         "blk_k %d layout %d: lane %d atom %d b%d", blk_k, layout, l, atom, v);
                        }
            }
}

Test(ldmatrix_plan, a_fragment_lesson05_padded) { check_a_path(32, 1); }
Test(ldmatrix_plan, a_fragment_lesson05_unpadded) { check_a_path(32, 0); }
Test(ldmatrix_plan, a_fragment_swizzled_bk32) { check_a_path(32, 2); }
Test(ldmatrix_plan, a_fragment_swizzled_bk64) { check_a_path(64, 2); }
Test(ldmatrix_plan, b_fragment_lesson05_padded) { check_b_path(32, 1); }
/* lesson 05's padded BLK_K = 64 tiles (padded, padded_128x256) and BLK_K = 128 (padded_128x256x128) */
Test(ldmatrix_plan, a_fragment_lesson05_padded_bk64) { check_a_path(64, 1); }
Test(ldmatrix_plan, b_fragment_lesson05_padded_bk64) { check_b_path(64, 1); }
Test(ldmatrix_plan, a_fragment_lesson05_padded_bk128) { check_a_path(128, 1); }
Test(ldmatrix_plan, b_fragment_lesson05_padded_bk128) { check_b_path(128, 1); }
Test(ldmatrix_plan, b_fragment_swizzled_bk32) { check_b_path(32, 2); }
Test(ldmatrix_plan, b_fragment_swizzled_bk64) { check_b_path(64, 2); }

/* ---- (c) swizzle, bank conflicts, rasterization --------------------------------------- */

static void check_bijection(int rows, int blk_k) {
    static char hit[256 * 64];
    memset(hit, 0, sizeof hit);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < blk_k; ++c) {
            const int o = offset_of(r, c, blk_k, 2);
            cr_assert(o >= 0 && o < rows * blk_k, "offset %d outside the tile", o);
            cr_assert_eq(hit[o], 0, "offset %d hit twice", o);
            hit[o] = 1;
            /* 16-byte chunks stay whole: element c%8 of a chunk keeps its place */
            cr_assert_eq(o % 8, c % 8);
            /* the swizzle only permutes chunks within the row */
            cr_assert_eq(o / blk_k, r);
        }
}
Test(swizzle, bijection_bk32) { check_bijection(128, 32); check_bijection(256, 32); }
Test(swizzle, bijection_bk64) { check_bijection(128, 64); check_bijection(256, 64); }

Test(swizzle, is_swizzle_333_and_233) {
    /* Swizzle<3,3,3> on a 64-wide tile: chunk ^= row % 8; Swizzle<2,3,3> on 32-wide: chunk ^= (row/2) % 4 */
    for (int r = 0; r < 64; ++r)
        for (int ch = 0; ch < 8; ++ch) {
            cr_assert_eq(offset_of(r, ch * 8, 64, 2), r * 64 + ((ch ^ (r % 8)) * 8));
            if (ch < 4) cr_assert_eq(offset_of(r, ch * 8, 32, 2), r * 32 + ((ch ^ ((r / 2) % 4)) * 8));
        }
}

/* extra wavefronts of the cp.async store pattern of warp w of an nt-thread CTA, copy i */
static int store_wavefronts(int blk_k, int nt, int w, int i, int layout) {
    int addr[32];
    for (int l = 0; l < 32; ++l) {
        const int t = 32 * w + l;
        addr[l] = 2 * offset_of(plan_copy_row(t, i, nt, blk_k), 8 * plan_copy_chunk(t, i, nt, blk_k), blk_k, layout);
    }
    return plan_wavefronts(addr);
}
static int ldsm_a_wavefronts(int blk_k, int i, int kk, int layout) {
    int addr[32];
    for (int l = 0; l < 32; ++l)
        addr[l] = 2 * offset_of(i * 16 + plan_ldsm_a_row(l), kk * 16 + 8 * plan_ldsm_a_chunk(l), blk_k, layout);
    return plan_wavefronts(addr);
}
static int ldsm_b_wavefronts(int blk_k, int j, int kk, int layout) {
    int addr[32];
    for (int l = 0; l < 32; ++l)
        addr[l] = 2 * offset_of(j * 8 + plan_ldsm_b_row(l), kk * 16 + 8 * plan_ldsm_b_chunk(l), blk_k, layout);
    return plan_wavefronts(addr);
}

Test(bank_conflicts, swizzled_is_conflict_free) {
    const int bks[2] = {32, 64};
    for (int b = 0; b < 2; ++b) {
        const int bk = bks[b];
        for (int nt = 128; nt <= 256; nt *= 2)
            for (int w = 0; w < nt / 32; ++w)
                for (int i = 0; i < 256 * (bk / 8) / nt; ++i)
                    cr_assert_eq(store_wavefronts(bk, nt, w, i, 2), 4, "bk %d store w %d i %d", bk, w, i);
        for (int i = 0; i < 8; ++i)
            for (int kk = 0; kk < bk / 16; ++kk) {
                cr_assert_eq(ldsm_a_wavefronts(bk, i, kk, 2), 4, "bk %d ldsm A i %d kk %d", bk, i, kk);
                cr_assert_eq(ldsm_b_wavefronts(bk, 2 * i, kk, 2), 4, "bk %d ldsm B", bk);
            }
    }
}

Test(bank_conflicts, plain_layout_conflicts_on_ldmatrix) {
    /* 64-byte rows: 4-way per phase (16 wavefronts); 128-byte rows: 8-way (32) */
    cr_assert_eq(ldsm_a_wavefronts(32, 0, 0, 0), 16);
    cr_assert_eq(ldsm_a_wavefronts(64, 0, 0, 0), 32);
    cr_assert_eq(ldsm_b_wavefronts(32, 0, 0, 0), 16);
    /* the stores of whole rows are fine even without a swizzle */
    cr_assert_eq(store_wavefronts(32, 128, 0, 0, 0), 4);
}

Test(bank_conflicts, padded_reads_free_stores_not) {
    cr_assert_eq(ldsm_a_wavefronts(32, 0, 0, 1), 4);
    cr_assert_eq(ldsm_b_wavefronts(32, 0, 1, 1), 4);
    cr_assert_gt(store_wavefronts(32, 128, 0, 0, 1), 4);
}

Test(bank_conflicts, padded_bk64_bk128_conflict_free) {
    /* rows of 144 or 272 bytes: the 8 rows of an ldmatrix phase start 16 bytes apart modulo
     * 128, and the 8 lanes of a store phase write 128 contiguous bytes of one row */
    const int bks[2] = {64, 128};
    for (int b = 0; b < 2; ++b) {
        const int bk = bks[b];
        for (int i = 0; i < 8; ++i)
            for (int kk = 0; kk < bk / 16; ++kk) {
                cr_assert_eq(ldsm_a_wavefronts(bk, i, kk, 1), 4, "bk %d ldsm A i %d kk %d", bk, i, kk);
                cr_assert_eq(ldsm_b_wavefronts(bk, 2 * i, kk, 1), 4, "bk %d ldsm B", bk);
            }
        for (int nt = 128; nt <= 256; nt *= 2)
            for (int w = 0; w < nt / 32; ++w)
                for (int i = 0; i < 128 * (bk / 8) / nt; ++i)
                    cr_assert_eq(store_wavefronts(bk, nt, w, i, 1), 4, "bk %d store w %d i %d", bk, w, i);
    }
}

Test(raster, bijection) {
    static const int shapes[][3] = {{1, 1, 8}, {32, 32, 8}, {33, 17, 8}, {7, 5, 8}, {9, 3, 4}, {100, 1, 8}};
    for (unsigned s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int tm_n = shapes[s][0], tn_n = shapes[s][1], g = shapes[s][2];
        static char hit[100 * 100];
        memset(hit, 0, sizeof hit);
        for (int b = 0; b < tm_n * tn_n; ++b) {
            int tm, tn;
            plan_raster(b, tm_n, tn_n, g, &tm, &tn);
            cr_assert(tm >= 0 && tm < tm_n && tn >= 0 && tn < tn_n, "shape %u bid %d -> (%d,%d)", s, b, tm, tn);
            cr_assert_eq(hit[tm * tn_n + tn], 0);
            hit[tm * tn_n + tn] = 1;
        }
    }
}

Test(copy_plan, covers_tile_once) {
    const int bks[2] = {32, 64};
    for (int b = 0; b < 2; ++b)
        for (int nt = 128; nt <= 256; nt *= 2)
            for (int rows = 128; rows <= 256; rows *= 2) {
                const int bk = bks[b], chunks = rows * bk / 8;
                static char hit[256 * 8];
                memset(hit, 0, sizeof hit);
                for (int t = 0; t < nt; ++t)
                    for (int i = 0; i < chunks / nt; ++i) {
                        const int r = plan_copy_row(t, i, nt, bk), c = plan_copy_chunk(t, i, nt, bk);
                        cr_assert(r < rows && c < bk / 8);
                        cr_assert_eq(hit[r * (bk / 8) + c], 0);
                        hit[r * (bk / 8) + c] = 1;
                        /* the kernel's shortcut: swizzle(idx*8) = swizzle(t*8) + i*nt*8 */
                        cr_assert_eq(offset_of(r, 8 * c, bk, 2),
                                     plan_swizzle(t * 8, plan_swizzle_bits(bk), 3, 3) + i * nt * 8);
                    }
            }
}

/* ---- epilogue C staging (plan.h, 7.) ------------------------------------------------- */

/* Every C fragment store of the kernel's epilogue (atom i, j of a 64x64 warp tile, half h):
 * lane l writes the 4-byte pair at (i*16 + row(l, 2h), j*8 + col(l, 0)). */
static int cstage_store_wavefronts(int wtn, int pad, int i, int j, int h) {
    int addr[32];
    for (int l = 0; l < 32; ++l)
        addr[l] = 2 * plan_cstage_offset(i * 16 + plan_mma_c_row(l, 2 * h),
                                         j * 8 + plan_mma_c_col(l, 0), wtn, pad);
    return plan_wavefronts32(addr);
}

Test(cstage, padded_stores_conflict_free_unpadded_8way) {
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
            for (int h = 0; h < 2; ++h) {
                cr_assert_eq(cstage_store_wavefronts(64, 8, i, j, h), 1, "atom %d,%d h %d", i, j, h);
                cr_assert_eq(cstage_store_wavefronts(64, 0, i, j, h), 8, "atom %d,%d h %d", i, j, h);
            }
}

Test(cstage, copy_out_reads_conflict_free_and_cover_block_once) {
    enum { WTM = 64, WTN = 64, PAD = 8 };
    static int seen[WTM][WTN];
    memset(seen, 0, sizeof seen);
    for (int it = 0; it < WTM * (WTN / 8) / 32; ++it) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
            const int r = plan_cstage_out_row(it, l, WTN), c = plan_cstage_out_col(l, WTN);
            cr_assert(r >= 0 && r < WTM && c >= 0 && c + 8 <= WTN && c % 8 == 0);
            for (int e = 0; e < 8; ++e) seen[r][c + e]++;
            addr[l] = 2 * plan_cstage_offset(r, c, WTN, PAD);
            cr_assert_eq(addr[l] % 16, 0, "16-byte aligned chunk");
        }
        cr_assert_eq(plan_wavefronts(addr), 4, "pass %d: one wavefront per 8-lane phase", it);
    }
    for (int r = 0; r < WTM; ++r)
        for (int c = 0; c < WTN; ++c) cr_assert_eq(seen[r][c], 1, "(%d,%d) copied once", r, c);
}

Test(cstage, fragment_stores_cover_block_once) {
    enum { WTN = 64, PAD = 8 };
    static int seen[64 * (WTN + PAD)];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
            for (int h = 0; h < 2; ++h)
                for (int l = 0; l < 32; ++l)
                    for (int v = 0; v < 2; ++v) {
                        const int r = i * 16 + plan_mma_c_row(l, 2 * h + v);
                        const int c = j * 8 + plan_mma_c_col(l, 2 * h + v);
                        cr_assert_eq(c, j * 8 + plan_mma_c_col(l, 0) + v, "pairs are adjacent");
                        seen[plan_cstage_offset(r, c, WTN, PAD)]++;
                    }
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < WTN + PAD; ++c)
            cr_assert_eq(seen[r * (WTN + PAD) + c], c < WTN ? 1 : 0, "(%d,%d)", r, c);
}
