/* plans_tc.h - checks shared by the CPU tests of the Tensor Core lessons' plans
 * (tests/test_plans_05.c .. test_plans_08.c), Criterion. Include after the lesson's plan.h.
 *
 * A kernel configuration is described by tc_cfg: its tiled MMA, its smem tile layouts and the
 * shortcuts its kernel takes (the lesson's plan_smem_kstep, the constants of tile_plan). Each
 * check compares what the kernel computes -- the layouts evaluated once per thread plus
 * constants -- with the layouts evaluated directly at every (thread, value), and simulates the
 * instructions (ldmatrix, mma fragments, cp.async stores) on a tagged shared-memory tile.
 */
#ifndef TESTS_PLANS_TC_H
#define TESTS_PLANS_TC_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "../lessons/06_swizzle/bank_model.h"

typedef struct tc_cfg {
    int bm, bn, bk, warps_m, warps_n;
    lay_tiled_mma mma;
    lay_swizzled sA, sB; /* one stage of each operand tile, offsets in halves */
    lay_tiled_copy copy; /* the gmem -> smem copy of both operands */
    /* the lesson's plan_smem_kstep */
    unsigned (*kstep)(unsigned ob, int kk, unsigned kstep_b);
    unsigned kstep_b;   /* plan_smem_kstep_b(16, bk) */
    int a_atom, b_atom; /* plan_smem_rows(16, bk), plan_smem_rows(8, bk) (halves) */
} tc_cfg;

static inline int tc_nt(const tc_cfg *c) { return 32 * c->warps_m * c->warps_n; }
static inline int tc_mi(const tc_cfg *c) { return c->bm / c->warps_m / 16; }
static inline int tc_ni(const tc_cfg *c) { return c->bn / c->warps_n / 8; }

/* The A operand path of every thread: for each of its ldmatrix.x4 loads q = i + MI*kk, the row
 * address the kernel computes (layout at q = 0, then + i*a_atom and plan_smem_kstep) equals the
 * layout at q (lay_tiled_ldmatrix_a_crd, lay_swizzled_crd2idx2), is 16-byte aligned, every
 * 8-lane phase is conflict-free, and the simulated instruction delivers to each lane exactly
 * the elements of its MMA fragment (lay_tiled_mma_a_crd). sim_b: the same for B (x4 over
 * two n8 atoms, q = j/2 + (NI/2)*kk). */
static inline void tc_check_ldmatrix(const tc_cfg *c, int operand_b) {
    const int rows = operand_b ? c->bn : c->bm, bk = c->bk;
    const lay_swizzled S = operand_b ? c->sB : c->sA;
    const int size = (int)lay_crd2idx2(S.layout, rows, 0);
    int *cell = (int *)malloc(sizeof(int) * (size_t)size);
    cr_assert(cell);
    for (int i = 0; i < size; ++i) cell[i] = -1;
    for (int m = 0; m < rows; ++m)
        for (int k = 0; k < bk; ++k) {
            const int o = (int)lay_swizzled_crd2idx2(S, m, k);
            cr_assert(o >= 0 && o < size, "element (%d,%d) at %d outside the stage", m, k, o);
            cr_assert_eq(cell[o], -1, "two elements at offset %d", o);
            cell[o] = m * bk + k;
        }
    const int nq = operand_b ? tc_ni(c) / 2 * (bk / 16) : tc_mi(c) * (bk / 16);
    const int per_kk = operand_b ? tc_ni(c) / 2 : tc_mi(c);
    for (int w = 0; w < tc_nt(c) / 32; ++w)
        for (int q = 0; q < nq; ++q) {
            int addr[32], baddr[32];
            const int blk = q % per_kk, kk = q / per_kk;
            for (int l = 0; l < 32; ++l) {
                const int t = 32 * w + l;
                int m, k, m0, k0;
                if (operand_b) {
                    lay_tiled_ldmatrix_b_crd(&c->mma, 4, 0, t, q, &m, &k);
                    lay_tiled_ldmatrix_b_crd(&c->mma, 4, 0, t, 0, &m0, &k0);
                } else {
                    lay_tiled_ldmatrix_a_crd(&c->mma, 4, 0, t, q, &m, &k);
                    lay_tiled_ldmatrix_a_crd(&c->mma, 4, 0, t, 0, &m0, &k0);
                }
                addr[l] = (int)lay_swizzled_crd2idx2(S, m, k);
                const unsigned ob0 = 2u * (unsigned)lay_swizzled_crd2idx2(S, m0, k0);
                const int step = operand_b ? 2 * blk * c->b_atom : blk * c->a_atom;
                const int shortcut = (int)(c->kstep(ob0, kk, c->kstep_b) / 2u) + step;
                cr_assert_eq(shortcut, addr[l], "%s thread %d q %d: kernel address %d, layout %d",
                             operand_b ? "B" : "A", t, q, shortcut, addr[l]);
                cr_assert_eq(addr[l] % 8, 0, "16-byte aligned row address");
                baddr[l] = 2 * addr[l];
            }
            cr_assert_eq(bank_wavefronts(baddr), 4, "%s warp %d q %d: bank conflicts",
                         operand_b ? "B" : "A", w, q);
            /* ldmatrix (no .trans): register r of lane l = row l/4, halves 2(l%4)+{0,1} of the
             * 8x8 matrix whose rows lanes 8r..8r+7 supply; it is fragment values 2r, 2r+1 of
             * load q, i.e. values 8q + 2r + {0,1} of the thread */
            for (int l = 0; l < 32; ++l)
                for (int r = 0; r < 4; ++r)
                    for (int h = 0; h < 2; ++h) {
                        const int got = cell[addr[8 * r + l / 4] + 2 * (l % 4) + h];
                        int m, k;
                        if (operand_b)
                            lay_tiled_mma_b_crd(&c->mma, 32 * w + l, 8 * q + 2 * r + h, &m, &k);
                        else lay_tiled_mma_a_crd(&c->mma, 32 * w + l, 8 * q + 2 * r + h, &m, &k);
                        cr_assert_eq(got, m * bk + k,
                                     "%s thread %d q %d reg %d half %d: got %d, "
                                     "fragment wants (%d,%d)",
                                     operand_b ? "B" : "A", 32 * w + l, q, r, h, got, m, k);
                    }
        }
    free(cell);
}

/* The copy of a (rows, bk) operand tile: every 16-byte chunk is copied exactly once, copy i of
 * a thread is i*rstep rows below its copy 0 in smem (the kernel adds plan_smem_rows(i*rstep)
 * = row_step(i)), the per-thread count is ncopy, and every warp's 16-byte stores are
 * conflict-free. */
static inline void tc_check_copy(const tc_cfg *c, int rows, int ncopy, int (*row_step)(int, int)) {
    const lay_tiled_copy cp = c->copy;
    const lay_swizzled S = rows == c->bm ? c->sA : c->sB;
    const int bk = c->bk, nt = tc_nt(c), rstep = lay_tiled_copy_tile_m(cp);
    cr_assert_eq(lay_tiled_copy_nthr(cp), nt);
    cr_assert_eq(lay_tiled_copy_reps(cp, rows, bk), ncopy, "copies per thread");
    char *hit = (char *)calloc((size_t)rows * bk / 8, 1);
    cr_assert(hit);
    for (int i = 0; i < ncopy; ++i)
        for (int w = 0; w < nt / 32; ++w) {
            int addr[32];
            for (int l = 0; l < 32; ++l) {
                const int t = 32 * w + l;
                int m, k, m0, k0;
                lay_tiled_copy_crd(cp, rows, bk, t, 0, i, &m, &k);
                lay_tiled_copy_crd(cp, rows, bk, t, 0, 0, &m0, &k0);
                cr_assert(m < rows && k < bk && k % 8 == 0);
                cr_assert_eq(m, m0 + i * rstep);
                cr_assert_eq(k, k0);
                cr_assert_eq(hit[m * (bk / 8) + k / 8], 0, "chunk (%d,%d) copied twice", m, k);
                hit[m * (bk / 8) + k / 8] = 1;
                const int o = (int)lay_swizzled_crd2idx2(S, m, k);
                cr_assert_eq(o, (int)lay_swizzled_crd2idx2(S, m0, k0) + row_step(i * rstep, bk),
                             "copy %d of thread %d: smem offset", i, t);
                addr[l] = 2 * o;
            }
            cr_assert_eq(bank_wavefronts(addr), 4, "stores of warp %d copy %d conflict", w, i);
        }
    for (int x = 0; x < rows * bk / 8; ++x) cr_assert_eq(hit[x], 1);
    free(hit);
}

/* The epilogue's shortcut: accumulator c = 2h + v of atom (i, j) of thread t lies at
 * c_crd(t, 2h) + (16 i, 8 j + v), and the accumulators of the threads cover the CTA tile once. */
static inline void tc_check_c(const tc_cfg *c) {
    const int mi = tc_mi(c), ni = tc_ni(c);
    char *hit = (char *)calloc((size_t)c->bm * c->bn, 1);
    cr_assert(hit);
    for (int t = 0; t < tc_nt(c); ++t)
        for (int h = 0; h < 2; ++h) {
            int m0, n0;
            lay_tiled_mma_c_crd(&c->mma, t, 2 * h, &m0, &n0);
            for (int i = 0; i < mi; ++i)
                for (int j = 0; j < ni; ++j)
                    for (int v = 0; v < 2; ++v) {
                        int m, n;
                        lay_tiled_mma_c_crd(&c->mma, t, 2 * h + v + 4 * (i + mi * j), &m, &n);
                        cr_assert_eq(m, m0 + i * c->mma.atom.m, "thread %d atom (%d,%d)", t, i, j);
                        cr_assert_eq(n, n0 + j * c->mma.atom.n + v);
                        cr_assert(m < c->bm && n < c->bn);
                        cr_assert_eq(hit[m * c->bn + n], 0, "(%d,%d) held twice", m, n);
                        hit[m * c->bn + n] = 1;
                    }
        }
    for (int x = 0; x < c->bm * c->bn; ++x) cr_assert_eq(hit[x], 1);
    free(hit);
}

#endif /* TESTS_PLANS_TC_H */
