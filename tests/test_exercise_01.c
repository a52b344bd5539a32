/* test_exercise_01.c - lesson 01: the CPU grader of the assignment (lessons/01_naive/exercise).
 *
 * Suite mapping: the learner's thread -> element mapping (exercise/mapping.h, the very
 * functions the kernel calls) covers every element of C exactly once for odd shapes and
 * several block shapes, puts a warp's 32 lanes along one row of C, and launches no CTA
 * without work.
 * Suite questions: the five questions of the exercise README (answers.c). Every expected
 * value is COMPUTED here from the question's inputs (counting FLOPs and bytes, or simulating
 * the 32 addresses of a warp's load), never written down; a wrong answer prints a hint.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade01, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "answers.h"
#include "mapping.h"

/* ---- mapping ----------------------------------------------------------------------------- */

static const int shapes[][2] = {{1, 1},    {127, 127}, {1000, 33}, {33, 1000},
                                {1, 4097}, {4097, 1},  {65, 31}};
static const int blocks[][2] = {{EX01_BLOCK_X, EX01_BLOCK_Y}, {32, 8}, {64, 4}};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])
#define NBLOCKS (int)(sizeof blocks / sizeof blocks[0])

/* ex01_thread_element written at all: some thread of CTA (0,0) of 32x32 threads gets an element
 * with m, n >= 0 (the skeleton gives every thread (-1,-1); every mapping that covers C gives
 * CTA (0,0) some element), else one line that says so instead of a hint about lanes. */
static void require_mapping_written(void) {
    for (int t = 0; t < 32 * 32; ++t) {
        int m = -1, n = -1;
        ex01_thread_element(0, 0, t % 32, t / 32, 32, 32, &m, &n);
        if (m >= 0 && n >= 0) return;
    }
    cr_assert_fail("ex01_thread_element: not written yet (no thread of CTA (0,0) gets an element "
                   "(m,n) with m, n >= 0: the TODO in mapping.h)");
}

/* The grid of the learner's ex01_grid, checked to be launchable at all. */
static void grid_of(int M, int N, int bdx, int bdy, int *gx, int *gy) {
    *gx = *gy = 0;
    ex01_grid(M, N, bdx, bdy, gx, gy);
    cr_assert(*gx >= 1 && *gy >= 1, "ex01_grid(M=%d, N=%d, block %dx%d) gives a %dx%d grid", M, N,
              bdx, bdy, *gx, *gy);
    cr_assert((long long)*gx * *gy * bdx * bdy <= 64LL * (M + 64) * (N + 64),
              "ex01_grid(M=%d, N=%d, block %dx%d) gives a %dx%d grid: far more threads than "
              "elements",
              M, N, bdx, bdy, *gx, *gy);
}

Test(mapping, every_element_once) {
    require_mapping_written();
    for (int s = 0; s < NSHAPES; ++s)
        for (int b = 0; b < NBLOCKS; ++b) {
            const int M = shapes[s][0], N = shapes[s][1], bdx = blocks[b][0], bdy = blocks[b][1];
            int gx, gy;
            grid_of(M, N, bdx, bdy, &gx, &gy);
            unsigned char *hits = calloc((size_t)M * N, 1);
            cr_assert(hits);
            for (int by = 0; by < gy; ++by)
                for (int bx = 0; bx < gx; ++bx)
                    for (int ty = 0; ty < bdy; ++ty)
                        for (int tx = 0; tx < bdx; ++tx) {
                            int m = -1, n = -1;
                            ex01_thread_element(bx, by, tx, ty, bdx, bdy, &m, &n);
                            if (m < 0 || m >= M || n < 0 || n >= N) continue;
                            cr_assert(hits[(size_t)m * N + n] == 0,
                                      "ex01_thread_element, C %dx%d, block %dx%d: element "
                                      "(%d,%d) has two threads (one is CTA (%d,%d) thread "
                                      "(%d,%d))",
                                      M, N, bdx, bdy, m, n, bx, by, tx, ty);
                            hits[(size_t)m * N + n] = 1;
                        }
            for (int m = 0; m < M; ++m)
                for (int n = 0; n < N; ++n)
                    cr_assert(hits[(size_t)m * N + n],
                              "C %dx%d, block %dx%d, grid %dx%d (ex01_grid): element (%d,%d) "
                              "has no thread (ex01_thread_element): is the grid too small, "
                              "or does the mapping skip it?",
                              M, N, bdx, bdy, gx, gy, m, n);
            free(hits);
        }
}

Test(mapping, lanes_walk_along_n) {
    require_mapping_written();
    const int M = 256, N = 256;
    for (int b = 0; b < NBLOCKS; ++b) {
        const int bdx = blocks[b][0], bdy = blocks[b][1];
        int gx, gy;
        grid_of(M, N, bdx, bdy, &gx, &gy);
        const int bx = gx > 1 ? 1 : 0, by = gy > 1 ? 1 : 0; /* a CTA away from the origin */
        for (int w = 0; w < bdx * bdy / 32; ++w) {
            int m0, n0;
            ex01_thread_element(bx, by, (32 * w) % bdx, (32 * w) / bdx, bdx, bdy, &m0, &n0);
            for (int lane = 1; lane < 32; ++lane) {
                const int tid = 32 * w + lane;
                int m, n;
                ex01_thread_element(bx, by, tid % bdx, tid / bdx, bdx, bdy, &m, &n);
                cr_assert(m == m0 && n == n0 + lane,
                          "ex01_thread_element, block %dx%d, CTA (%d,%d), warp %d: lane 0 "
                          "has (%d,%d) but lane %d "
                          "has (%d,%d), not (%d,%d): the lanes must walk along one row of C",
                          bdx, bdy, bx, by, w, m0, n0, lane, m, n, m0, n0 + lane);
            }
        }
    }
}

Test(mapping, no_cta_without_work) {
    require_mapping_written();
    for (int s = 0; s < NSHAPES; ++s)
        for (int b = 0; b < NBLOCKS; ++b) {
            const int M = shapes[s][0], N = shapes[s][1], bdx = blocks[b][0], bdy = blocks[b][1];
            int gx, gy;
            grid_of(M, N, bdx, bdy, &gx, &gy);
            for (int by = 0; by < gy; ++by)
                for (int bx = 0; bx < gx; ++bx) {
                    int work = 0;
                    for (int t = 0; t < bdx * bdy && !work; ++t) {
                        int m, n;
                        ex01_thread_element(bx, by, t % bdx, t / bdx, bdx, bdy, &m, &n);
                        work = m >= 0 && m < M && n >= 0 && n < N;
                    }
                    cr_assert(work,
                              "ex01_grid, C %dx%d, block %dx%d, grid %dx%d: CTA (%d,%d) "
                              "has no element of C (with ex01_thread_element's mapping)",
                              M, N, bdx, bdy, gx, gy, bx, by);
                }
        }
}

/* ---- questions --------------------------------------------------------------------------- */

/* Distinct 32-byte sectors touched by the 4-byte loads at float offsets off[0..31] from a
 * base aligned to 256 bytes (what cudaMalloc returns). */
static int sectors(const long long *off) {
    long long seen[32];
    int n = 0;
    for (int l = 0; l < 32; ++l) {
        const long long s = (off[l] * 4) / 32;
        int dup = 0;
        for (int i = 0; i < n; ++i) dup |= seen[i] == s;
        if (!dup) seen[n++] = s;
    }
    return n;
}

static void check_number(const char *q, double got, double want, double rel, const char *hint) {
    cr_assert(got != EX01_TODO, "%s: not answered yet", q);
    if (fabs(got - want) <= rel * fabs(want)) return;
    const double r = got / want;
    if (fabs(r - 2.0) < 0.02 || fabs(r - 0.5) < 0.01)
        cr_assert_fail("%s: %g is off by a factor of 2 (%s)", q, got, hint);
    else if (fabs(r - 4.0) < 0.04 || fabs(r - 0.25) < 0.0025)
        cr_assert_fail("%s: %g is off by a factor of 4: bytes or elements? (%s)", q, got, hint);
    cr_assert_fail("%s: %g is not the answer (%s)", q, got, hint);
}

/* The questions' problem: M = N = K = 4096, fp32, lda = ldb = ldc = 4096 (unpadded). */
enum { QM = 4096, QN = 4096, QK = 4096 };

Test(questions, q1_intensity_ideal) {
    const double flops = 2.0 * QM * QN * QK; /* one multiply and one add per (m,n,k) */
    const double bytes = 4.0 * ((double)QM * QK + (double)QN * QK + (double)QM * QN);
    check_number("Q1", ex01_q1_intensity_ideal(), flops / bytes, 0.005,
                 "count 2 FLOPs per multiply-add and 4 bytes per float of A, B and C");
}

Test(questions, q2_intensity_naive) {
    const double flops = 2.0 * QM * QN * QK;
    const double bytes = (double)QM * QN * (2.0 * QK * 4); /* each thread: K of A, K of B */
    check_number("Q2", ex01_q2_intensity_naive(), flops / bytes, 0.01,
                 "each thread loads its own row of A and row of B; count FLOPs and bytes per k");
}

/* Warp of 32 lanes, lanes along m (uncoalesced) or n (coalesced), starting at a multiple of
 * 32, all at the same k (here k = 5). */
Test(questions, q3_sectors_uncoalesced_A_TT) {
    long long off[32];
    for (int l = 0; l < 32; ++l)
        off[l] = (long long)(32 + l) * QK + 5; /* TT: A(m,k) at m*lda + k */
    check_number("Q3", ex01_q3_sectors_uncoalesced_A_TT(), sectors(off), 0.0,
                 "a sector is 32 aligned bytes: in how many do the 32 lanes' addresses fall?");
}

Test(questions, q4_sectors_coalesced_B_TT) {
    long long off[32];
    for (int l = 0; l < 32; ++l) off[l] = (32 + l) + 5LL * QN; /* TT: B(n,k) at n + k*ldb */
    check_number("Q4", ex01_q4_sectors_coalesced_B_TT(), sectors(off), 0.0,
                 "in TT, B(n,k) is at B[n + k*ldb]; a sector is 32 aligned bytes");
}

Test(questions, q5_sectors_coalesced_B_TN) {
    long long off[32];
    for (int l = 0; l < 32; ++l)
        off[l] = (long long)(32 + l) * QK + 5; /* TN: B(n,k) at n*ldb + k */
    check_number("Q5", ex01_q5_sectors_coalesced_B_TN(), sectors(off), 0.0,
                 "in TN, B(n,k) is at B[n*ldb + k]; a sector is 32 aligned bytes");
}
