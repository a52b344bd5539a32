/* test_exercise_05.c - lesson 05: the CPU grader of the assignment (lessons/05_mma/exercise).
 *
 * Suite tile: the learner's smem tile (exercise/frag.h, TODO 1, the very layout the kernel
 * copies into and loads from): every element of the (128,64) tile at its own offset inside the
 * stage, 16-byte chunks contiguous and 16-byte aligned, at most one chunk of padding per row;
 * the ldmatrix.x4 reads of the tiled MMA's fragments and the 16-byte cp.async stores of the
 * given copy free of bank conflicts (the bank model of lessons/06_swizzle/bank_model.h).
 * Suite frag: the learner's ldmatrix rows (TODO 2): a simulated ldmatrix.x4 (PTX ISA
 * 9.7.14.5.15: register q of lane l = row l/4, halves 2(l%4), 2(l%4)+1 of the matrix whose rows
 * lanes 8q..8q+7 supply) from the rows of every thread delivers to every lane exactly the
 * fragment values of the tiled MMA (lay_tiled_mma_a_crd / _b_crd, PTX ISA 9.7.14.5.8).
 * Suite questions: the four questions of the exercise README (answers.c), each expected value
 * computed here from the layouts.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade05, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lessons/06_swizzle/bank_model.h"
#include "answers.h"
#include "frag.h"

#define ROWS EX05_BLK_M /* BLK_M = BLK_N: one tile layout serves sA and sB */
#define BK EX05_BLK_K

static lay_swizzled tile_of(void) {
    const lay_swizzled S = ex05_smem_tile(ROWS);
    cr_assert(lay_valid(S.layout), "smem tile: ex05_smem_tile is not written yet (TODO 1)");
    return S;
}

static int off(lay_swizzled S, int m, int k) { return (int)lay_swizzled_crd2idx2(S, m, k); }

/* ---- the smem tile ------------------------------------------------------------------------ */

Test(tile, layout_fits) {
    const lay_swizzled S = tile_of();
    const int stage = ex05_stage_halves(ROWS);
    cr_assert(stage <= ROWS * (BK + 8),
              "smem tile: one stage takes %d halves, more than the "
              "%d of rows padded by one 16-byte chunk: pad less",
              stage, ROWS * (BK + 8));
    int *who = malloc(sizeof(int) * (size_t)stage);
    cr_assert(who);
    for (int i = 0; i < stage; ++i) who[i] = -1;
    for (int m = 0; m < ROWS; ++m)
        for (int k = 0; k < BK; ++k) {
            const int o = off(S, m, k);
            cr_assert(o >= 0 && o < stage,
                      "smem tile: element (%d,%d) at offset %d, outside "
                      "the stage of %d halves",
                      m, k, o, stage);
            cr_assert(who[o] < 0, "smem tile: elements (%d,%d) and (%d,%d) share offset %d", m, k,
                      who[o] / BK, who[o] % BK, o);
            who[o] = m * BK + k;
            if (k % 8 == 0)
                cr_assert(o % 8 == 0,
                          "smem tile: the 16-byte chunk (%d,%d..%d) starts at offset "
                          "%d, not 16-byte aligned (ldmatrix rows and cp.async need it)",
                          m, k, k + 7, o);
            else
                cr_assert(o == off(S, m, k - 1) + 1,
                          "smem tile: (%d,%d) is not right after "
                          "(%d,%d): the 8 halves of a chunk along k must be contiguous (K-major)",
                          m, k, m, k - 1);
        }
    free(who);
}

/* wavefronts of one warp-wide 16-byte access whose lane l starts at (m[l], k[l]) */
static int waves(lay_swizzled S, const int *m, const int *k) {
    int addr[32];
    for (int l = 0; l < 32; ++l) addr[l] = 2 * off(S, m[l], k[l]);
    return bank_wavefronts(addr);
}

Test(tile, conflict_free) {
    const lay_swizzled S = tile_of();
    const lay_tiled_mma mma = ex05_mma();
    for (int w = 0; w < EX05_NTHR / 32; ++w) {
        for (int q = 0; q < EX05_MI * EX05_KSTEPS; ++q) {
            int m[32], k[32];
            for (int l = 0; l < 32; ++l)
                lay_tiled_ldmatrix_a_crd(&mma, 4, 0, 32 * w + l, q, &m[l], &k[l]);
            const int n = waves(S, m, k);
            cr_assert(n == 4,
                      "smem tile: the ldmatrix.x4 of A atom row %d, k-step %d by warp %d "
                      "takes %d wavefronts where 4 would do (rows %d and %d of a phase start %d "
                      "bytes apart: how far apart, modulo 128 bytes, should they start?)",
                      q % EX05_MI, q / EX05_MI, w, n, m[0], m[1],
                      2 * (off(S, m[1], k[1]) - off(S, m[0], k[0])));
        }
        for (int q = 0; q < EX05_NI / 2 * EX05_KSTEPS; ++q) {
            int n_[32], k[32];
            for (int l = 0; l < 32; ++l)
                lay_tiled_ldmatrix_b_crd(&mma, 4, 0, 32 * w + l, q, &n_[l], &k[l]);
            const int n = waves(S, n_, k);
            cr_assert(n == 4,
                      "smem tile: the ldmatrix.x4 of B atoms %d, %d, k-step %d by warp %d "
                      "takes %d wavefronts where 4 would do",
                      2 * (q % (EX05_NI / 2)), 2 * (q % (EX05_NI / 2)) + 1, q / (EX05_NI / 2), w,
                      n);
        }
    }
    const lay_tiled_copy cp = ex05_copy();
    const int reps = lay_tiled_copy_reps(cp, ROWS, BK);
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < EX05_NTHR / 32; ++w) {
            int m[32], k[32];
            for (int l = 0; l < 32; ++l)
                lay_tiled_copy_crd(cp, ROWS, BK, 32 * w + l, 0, r, &m[l], &k[l]);
            const int n = waves(S, m, k);
            cr_assert(n == 4,
                      "smem tile: the 16-byte cp.async stores of warp %d, copy %d take %d "
                      "wavefronts where 4 would do",
                      w, r, n);
        }
}

/* ---- the ldmatrix rows ---------------------------------------------------------------------- */

/* One ldmatrix.x4 per (warp, load): rows[l] = (r0[l], k[l]) the row lane l supplies; register q
 * of lane l gets halves 2(l%4), 2(l%4)+1 of row l/4 of matrix q (the rows of lanes 8q..8q+7),
 * which must be fragment values 8 load + 2q + {0,1} of the lane's thread. */
static void check_rows(int operand_b) {
    const lay_tiled_mma mma = ex05_mma();
    const char *op = operand_b ? "B" : "A";
    const int nblk = operand_b ? EX05_NI / 2 : EX05_MI; /* x4 loads per k-step */
    const int rows = operand_b ? EX05_BLK_N : EX05_BLK_M;
    for (int w = 0; w < EX05_NTHR / 32; ++w)
        for (int kk = 0; kk < EX05_KSTEPS; ++kk)
            for (int b = 0; b < nblk; ++b) {
                const int load =
                    b + nblk * kk; /* the fragment values it fills: [8 load, 8 load + 8) */
                int r0[32], k0[32];
                char what[64];
                if (operand_b)
                    snprintf(what, sizeof what, "atoms %d, %d at k-step %d", 2 * b, 2 * b + 1, kk);
                else snprintf(what, sizeof what, "atom row %d at k-step %d", b, kk);
                for (int l = 0; l < 32; ++l) {
                    const int t = 32 * w + l;
                    r0[l] = k0[l] = -1;
                    if (operand_b) ex05_ldsm_b_crd(&mma, t, 2 * b, kk, &r0[l], &k0[l]);
                    else ex05_ldsm_a_crd(&mma, t, b, kk, &r0[l], &k0[l]);
                    cr_assert(r0[l] >= 0 && r0[l] < rows && k0[l] >= 0 && k0[l] + 8 <= BK &&
                                  k0[l] % 8 == 0,
                              "%s, %s: thread %d supplies the row at (%d,%d), "
                              "which is not the start of a 16-byte chunk of the (%d,%d) tile",
                              op, what, t, r0[l], k0[l], rows, BK);
                }
                for (int l = 0; l < 32; ++l)
                    for (int q = 0; q < 4; ++q)
                        for (int h = 0; h < 2; ++h) {
                            const int src = 8 * q + l / 4; /* the lane whose row it reads */
                            const int gm = r0[src], gk = k0[src] + 2 * (l % 4) + h;
                            int wm, wk;
                            if (operand_b)
                                lay_tiled_mma_b_crd(&mma, 32 * w + l, 8 * load + 2 * q + h, &wm,
                                                    &wk);
                            else
                                lay_tiled_mma_a_crd(&mma, 32 * w + l, 8 * load + 2 * q + h, &wm,
                                                    &wk);
                            cr_assert(gm == wm && gk == wk,
                                      "%s, %s: lane %d of warp %d would get "
                                      "(%d,%d) in half %d of register %d (from the row lane %d "
                                      "supplies), where mma.sync wants (%d,%d) (%s)",
                                      op, what, l, w, gm, gk, h, q, src, wm, wk,
                                      gm == 0 && gk == 0
                                          ? "TODO 2 not written yet?"
                                          : "the right atom, k-step and 8x8 matrix?");
                        }
            }
}

Test(frag, a_rows) { check_rows(0); }
Test(frag, b_rows) { check_rows(1); }

/* ---- questions ----------------------------------------------------------------------------- */

static void check_answer(const char *q, long got, long want, const char *hint) {
    cr_assert(got != EX05_TODO, "%s: not answered yet", q);
    cr_assert(got == want, "%s: %ld is not the answer (%s)", q, got, hint);
}

Test(questions, q1_a_row) {
    const lay_tiled_mma mma = ex05_mma();
    int m, k;
    lay_tiled_ldmatrix_a_crd(&mma, 4, 0, 117, 2 + EX05_MI * 1, &m, &k);
    check_answer("Q1 (m)", ex05_q1_m(), m,
                 "which warp, which of the four 8x8 matrices, which atom row?");
    check_answer("Q1 (k)", ex05_q1_k(), k, "which half of the atom's 16 k, which k-step?");
}

Test(questions, q2_b_row) {
    const lay_tiled_mma mma = ex05_mma();
    int n, k;
    lay_tiled_ldmatrix_b_crd(&mma, 4, 0, 117, 1 + EX05_NI / 2 * 2, &n, &k);
    check_answer("Q2 (n)", ex05_q2_n(), n,
                 "which of the two atoms does matrix 2 of the x4 belong to?");
    check_answer("Q2 (k)", ex05_q2_k(), k, "which half of the atom's 16 k, which k-step?");
}

Test(questions, q3_wavefronts_unpadded) {
    lay_swizzle none = {0, 0, 0};
    const lay_swizzled S = lay_make_swizzled(none, lay_l2(ROWS, BK, BK, 1));
    const lay_tiled_mma mma = ex05_mma();
    int m[32], k[32];
    for (int l = 0; l < 32; ++l) lay_tiled_ldmatrix_a_crd(&mma, 4, 0, l, 0, &m[l], &k[l]);
    check_answer("Q3", ex05_q3_wavefronts_unpadded(), waves(S, m, k),
                 "4 phases of 8 rows; which banks does each row start on?");
}

Test(questions, q4_ldmatrix_bytes) {
    const long loads = (long)(EX05_MI + EX05_NI / 2) * EX05_KSTEPS;
    check_answer("Q4", ex05_q4_ldmatrix_bytes(), loads * 32 * 16,
                 "how many x4 loads per k-step, and how many bytes does one move?");
}
