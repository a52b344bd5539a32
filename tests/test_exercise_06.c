/* test_exercise_06.c - lesson 06: the CPU grader of the assignment (lessons/06_swizzle/exercise).
 *
 * Suite tile: the learner's swizzled smem tile (exercise/ring.h, TODO 1, the very layout the
 * kernel copies into and loads from): every element of the (128,64) tile at its own offset in
 * [0, 128*64) (no padding), 16-byte chunks contiguous and 16-byte aligned; the kernel's
 * ldmatrix.x4 rows (the tiled MMA's, reached through the given shortcut ex06_frag_offset) equal
 * the tile's offsets at every load, deliver the mma.sync fragments and are free of bank
 * conflicts; the given copy's 16-byte cp.async stores (ex06_copy_offset) likewise.
 * Suite ring: the learner's stage ring (TODO 2) in a simulation of the kernel's pipeline (the
 * scheme in ring.h) for 1 to 20 K tiles, where a copy lands only when a wait_group forces it:
 * every K tile has landed when it is computed, no copy overwrites a stage whose K tile is still
 * to be computed, and the ring is used fully: STAGES-1 K tiles in flight, and no wait_group
 * waits for more than it must.
 * Suite questions: the four questions of the exercise README (answers.c), each expected value
 * computed here.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade06, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lessons/06_swizzle/bank_model.h"
#include "answers.h"
#include "ring.h"

#define ROWS EX06_BLK_M /* BLK_M = BLK_N: one tile layout serves sA and sB */
#define BK EX06_BLK_K

static lay_swizzled tile_of(void) {
    const lay_swizzled S = ex06_smem_tile(ROWS);
    cr_assert(lay_valid(S.layout), "smem tile: ex06_smem_tile is not written yet (TODO 1)");
    return S;
}

static int off(lay_swizzled S, int m, int k) { return (int)lay_swizzled_crd2idx2(S, m, k); }

/* ---- the smem tile ------------------------------------------------------------------------ */

Test(tile, layout_fits) {
    const lay_swizzled S = tile_of();
    int *who = malloc(sizeof(int) * ROWS * BK);
    cr_assert(who);
    for (int i = 0; i < ROWS * BK; ++i) who[i] = -1;
    for (int m = 0; m < ROWS; ++m)
        for (int k = 0; k < BK; ++k) {
            const int o = off(S, m, k);
            cr_assert(o >= 0 && o < ROWS * BK,
                      "smem tile: element (%d,%d) at offset %d, outside "
                      "[0, %d): a swizzled tile needs no padding",
                      m, k, o, ROWS * BK);
            cr_assert(who[o] < 0, "smem tile: elements (%d,%d) and (%d,%d) share offset %d", m, k,
                      who[o] / BK, who[o] % BK, o);
            who[o] = m * BK + k;
            if (k % 8 == 0)
                cr_assert(o % 8 == 0,
                          "smem tile: the 16-byte chunk (%d,%d..%d) starts at offset "
                          "%d, not 16-byte aligned (ldmatrix rows and cp.async need it): does "
                          "the swizzle keep the 8 halves of a chunk together?",
                          m, k, k + 7, o);
            else
                cr_assert(o == off(S, m, k - 1) + 1,
                          "smem tile: (%d,%d) is not right after "
                          "(%d,%d): the 8 halves of a chunk along k must stay contiguous",
                          m, k, m, k - 1);
        }
    free(who);
    cr_assert(ex06_stage_halves(ROWS) == ROWS * BK, "smem tile: a stage takes %d halves, not %d",
              ex06_stage_halves(ROWS), ROWS * BK);
}

/* wavefronts of one warp-wide 16-byte access whose lane l starts at offset o[l] (halves) */
static int waves(const int *o) {
    int addr[32];
    for (int l = 0; l < 32; ++l) addr[l] = 2 * o[l];
    return bank_wavefronts(addr);
}

/* The kernel's fragment loads through the tile (kernel.cu: ex06_frag_prep, ex06_load_frags):
 * the row of load (blk, kk) is ex06_frag_offset(S, offset of the load-0 row, blk, kk). It must
 * be the tile's offset of the row the tiled MMA needs, every phase conflict-free, and the
 * simulated ldmatrix.x4 must give every lane its fragment. */
static void check_frags(const lay_swizzled S, int operand_b) {
    const lay_tiled_mma mma = ex06_mma();
    const char *op = operand_b ? "B" : "A";
    const int nblk = operand_b ? EX06_NI / 2 : EX06_MI;
    int size = 0; /* one past the largest offset of the tile */
    for (int m = 0; m < ROWS; ++m)
        for (int k = 0; k < BK; ++k) {
            const int o = off(S, m, k);
            cr_assert(o >= 0, "smem tile: element (%d,%d) at offset %d", m, k, o);
            if (o >= size) size = o + 1;
        }
    int *cell = malloc(sizeof(int) * (size_t)size); /* which (m,k) each offset holds */
    cr_assert(cell);
    for (int i = 0; i < size; ++i) cell[i] = -1;
    for (int m = 0; m < ROWS; ++m)
        for (int k = 0; k < BK; ++k) cell[off(S, m, k)] = m * BK + k;
    for (int w = 0; w < EX06_NTHR / 32; ++w)
        for (int kk = 0; kk < EX06_KSTEPS; ++kk)
            for (int b = 0; b < nblk; ++b) {
                const int load = b + nblk * kk;
                int o[32];
                for (int l = 0; l < 32; ++l) {
                    const int t = 32 * w + l;
                    int m0, k0, m, k;
                    if (operand_b) {
                        lay_tiled_ldmatrix_b_crd(&mma, 4, 0, t, 0, &m0, &k0);
                        lay_tiled_ldmatrix_b_crd(&mma, 4, 0, t, load, &m, &k);
                    } else {
                        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, t, 0, &m0, &k0);
                        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, t, load, &m, &k);
                    }
                    o[l] = ex06_frag_offset(S, off(S, m0, k0), b, kk);
                    cr_assert(o[l] == off(S, m, k),
                              "%s load %d (k-step %d) of thread %d: the "
                              "kernel's shortcut reaches offset %d, your tile puts its row "
                              "(%d,%d) at %d",
                              op, b, kk, t, o[l], m, k, off(S, m, k));
                }
                const int n = waves(o);
                cr_assert(n == 4,
                          "smem tile: the ldmatrix.x4 of %s %s %d at k-step %d by warp %d "
                          "takes %d wavefronts where 4 would do (its rows 0..7 start in 16-byte "
                          "bank groups %d %d %d %d %d %d %d %d)",
                          op, operand_b ? "atom pair" : "atom row", b, kk, w, n, (o[0] / 8) % 8,
                          (o[1] / 8) % 8, (o[2] / 8) % 8, (o[3] / 8) % 8, (o[4] / 8) % 8,
                          (o[5] / 8) % 8, (o[6] / 8) % 8, (o[7] / 8) % 8);
                for (int l = 0; l < 32; ++l)
                    for (int q = 0; q < 4; ++q)
                        for (int h = 0; h < 2; ++h) {
                            const int at = o[8 * q + l / 4] + 2 * (l % 4) + h;
                            const int got = at < size ? cell[at] : -1;
                            int wm, wk;
                            if (operand_b)
                                lay_tiled_mma_b_crd(&mma, 32 * w + l, 8 * load + 2 * q + h, &wm,
                                                    &wk);
                            else
                                lay_tiled_mma_a_crd(&mma, 32 * w + l, 8 * load + 2 * q + h, &wm,
                                                    &wk);
                            cr_assert(got == wm * BK + wk,
                                      "%s load %d (k-step %d): lane %d of "
                                      "warp %d would get offset %d (element (%d,%d)) where "
                                      "mma.sync wants (%d,%d)",
                                      op, b, kk, l, w, at, got < 0 ? -1 : got / BK,
                                      got < 0 ? -1 : got % BK, wm, wk);
                        }
            }
    free(cell);
}

Test(tile, ldmatrix_rows) {
    const lay_swizzled S = tile_of();
    check_frags(S, 0);
    check_frags(S, 1);
}

Test(tile, copy_stores) {
    const lay_swizzled S = tile_of();
    const lay_tiled_copy cp = ex06_copy();
    const int reps = lay_tiled_copy_reps(cp, ROWS, BK);
    for (int r = 0; r < reps; ++r)
        for (int w = 0; w < EX06_NTHR / 32; ++w) {
            int o[32];
            for (int l = 0; l < 32; ++l) {
                int m0, k0, m, k;
                lay_tiled_copy_crd(cp, ROWS, BK, 32 * w + l, 0, 0, &m0, &k0);
                lay_tiled_copy_crd(cp, ROWS, BK, 32 * w + l, 0, r, &m, &k);
                o[l] = ex06_copy_offset(S, off(S, m0, k0), r);
                cr_assert(o[l] == off(S, m, k),
                          "copy %d of thread %d: the kernel's shortcut "
                          "reaches offset %d, your tile puts (%d,%d) at %d",
                          r, 32 * w + l, o[l], m, k, off(S, m, k));
            }
            const int n = waves(o);
            cr_assert(n == 4,
                      "smem tile: the 16-byte cp.async stores of warp %d, copy %d take %d "
                      "wavefronts where 4 would do",
                      w, r, n);
        }
}

/* ---- the stage ring -------------------------------------------------------------------------
 * The kernel's pipeline (ring.h) with P = ex06_prefetch(), N = ex06_wait_n(), on T K tiles. A
 * copy is in flight from its commit until a wait_group completes its group (the slowest the
 * hardware may be). Returns the first violation of the kind asked for, "" when none. */
enum { READY, STAGES_OK };

static const char *simulate(int T, int kind) {
    static char why[320];
    const int P = ex06_prefetch(), N = ex06_wait_n();
    int content[EX06_STAGES];        /* the K tile a stage holds, -1: none yet */
    int committed = 0, complete = 0; /* groups 0 .. complete-1 have landed */
    for (int s = 0; s < EX06_STAGES; ++s) content[s] = -1;
#define COPY(t, done)                                                                         \
    do {                                                                                      \
        const int s_ = ex06_stage_of(t);                                                      \
        if (s_ < 0 || s_ >= EX06_STAGES) {                                                    \
            snprintf(why, sizeof why, "ex06_stage_of(%d) = %d is not a stage (0..%d)", t, s_, \
                     EX06_STAGES - 1);                                                        \
            return kind == STAGES_OK ? why : "";                                              \
        }                                                                                     \
        if (kind == STAGES_OK && content[s_] >= (done)) {                                     \
            snprintf(why, sizeof why,                                                         \
                     "%d K tiles: K tile %d is copied into stage %d, which "                  \
                     "still holds K tile %d, not computed yet (%s)",                          \
                     T, t, s_, content[s_],                                                   \
                     (done) ? "the K tiles before it are" : "the prologue: none is");         \
            return why;                                                                       \
        }                                                                                     \
        content[s_] = t;                                                                      \
    } while (0)
    for (int t = 0; t < P; ++t) { /* prologue: nothing computed yet */
        if (t < T) COPY(t, 0);
        ++committed;
    }
    for (int kt = 0; kt < T; ++kt) {
        const int c = committed - N; /* wait_group N: at most N of the committed groups pending */
        if (c > complete) complete = c;
        if (kind == READY && kt >= complete) {
            snprintf(why, sizeof why,
                     "%d K tiles, iteration %d: wait_group %d with groups "
                     "0..%d committed leaves groups %d..%d pending; K tile %d (group %d) may not "
                     "have landed when it is computed",
                     T, kt, N, committed - 1, complete, committed - 1, kt, kt);
            return why;
        }
        /* __syncthreads: K tiles 0 .. kt-1 are computed by every thread */
        if (kt + P < T) COPY(kt + P, kt);
        ++committed;
        const int s = ex06_stage_of(kt);
        if (kind == STAGES_OK && (s < 0 || s >= EX06_STAGES || content[s] != kt)) {
            snprintf(why, sizeof why,
                     "%d K tiles, iteration %d: K tile %d is computed from "
                     "stage %d, which holds K tile %d",
                     T, kt, kt, s, s < 0 || s >= EX06_STAGES ? -1 : content[s]);
            return why;
        }
    }
#undef COPY
    return "";
}

static void ring_answered(void) {
    cr_assert(ex06_prefetch() != EX06_TODO, "ring: ex06_prefetch is not answered yet (TODO 2a)");
    cr_assert(ex06_wait_n() != EX06_TODO, "ring: ex06_wait_n is not answered yet (TODO 2b)");
    cr_assert(ex06_prefetch() >= 1,
              "ring: ex06_prefetch() = %d: with no K tile ahead nothing "
              "is in flight while a K tile is computed",
              ex06_prefetch());
    cr_assert(ex06_wait_n() >= 0, "ring: ex06_wait_n() = %d is not an N of wait_group",
              ex06_wait_n());
}

Test(ring, ready_before_compute) {
    ring_answered();
    for (int T = 1; T <= 20; ++T) {
        const char *why = simulate(T, READY);
        cr_assert(!*why, "ring: %s", why);
    }
}

Test(ring, no_overwrite) {
    ring_answered();
    for (int T = 1; T <= 20; ++T) {
        const char *why = simulate(T, STAGES_OK);
        cr_assert(!*why, "ring: %s", why);
    }
}

Test(ring, depth) {
    ring_answered();
    cr_assert(ex06_prefetch() == EX06_STAGES - 1,
              "ring: %d K tiles ahead with %d stages: while "
              "one stage is computed, how many can be in flight?",
              ex06_prefetch(), EX06_STAGES);
    cr_assert(ex06_wait_n() == EX06_STAGES - 2, "ring: wait_group %d %s", ex06_wait_n(),
              ex06_wait_n() < EX06_STAGES - 2
                  ? "waits for K tiles newer than the one computed next: a larger N is still safe"
                  : "does not wait for the K tile computed next");
}

/* ---- questions ----------------------------------------------------------------------------- */

static void check_answer(const char *q, long got, long want, const char *hint) {
    cr_assert(got != EX06_TODO_ANSWER, "%s: not answered yet", q);
    cr_assert(got == want, "%s: %ld is not the answer (%s)", q, got, hint);
}

Test(questions, q1_swizzled_offset) {
    lay_swizzle sw;
    cr_assert(lay_swizzle_sw(&sw, 128, 2) == LAY_OK);
    const lay_swizzled S = lay_make_swizzled(sw, lay_l2(ROWS, BK, BK, 1));
    check_answer("Q1", ex06_q1_swizzled_offset(), off(S, 13, 42),
                 "which chunk of row 13 holds k = 42, and what does the swizzle XOR it with?");
}

Test(questions, q2_bytes_saved) {
    check_answer("Q2", ex06_q2_bytes_saved(), (long)EX06_STAGES * (EX06_BLK_M + EX06_BLK_N) * 16,
                 "how many rows do all the stages of sA and sB have?");
}

/* A ring of S stages, S-1 K tiles ahead: at the wait of iteration kt the groups up to kt+S-2
 * are committed; K tile kt's must be complete, the S-2 newer ones may stay in flight. */
Test(questions, q3_wait_n_5stages) {
    check_answer("Q3", ex06_q3_wait_n_5stages(), 5 - 2,
                 "how many groups newer than K tile kt's are committed when iteration kt waits?");
}

Test(questions, q4_stages_fit) {
    const long stage = (long)(EX06_BLK_M + EX06_BLK_N) * EX06_BLK_K * 2;
    check_answer("Q4", ex06_q4_stages_fit(), 227L * 1024 / stage,
                 "how many bytes does one stage of sA and sB take?");
}
