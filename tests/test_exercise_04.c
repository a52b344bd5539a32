/* test_exercise_04.c - lesson 04: the CPU grader of the assignment (lessons/04_copy/exercise).
 *
 * Suite tv: the learner's TV layouts of the tiled copy (exercise/copy.h, the very layouts the
 * kernel copies through), checked by what a copy must do, for the three copies the kernel
 * makes (4 bytes from a K-major operand, 4 bytes from an x-major one, 16 bytes from an x-major
 * one): every element of the (BLK_X,BLK_K) tile moved exactly once; a warp's global reads at
 * one value touch no more 32-byte sectors than its bytes need; its stores into the transposed
 * smem tile are free of bank conflicts; 16-byte vectors start 16-byte aligned.
 * Suite questions: the four questions of the exercise README (answers.c), each expected value
 * computed here from the configuration in copy.h.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade04, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "answers.h"
#include "copy.h"

#define TILE (EX04_BLK_X * EX04_BLK_K)
#define LD 1024 /* leading dimension of the operand in the coalescing test: rows 4096 B apart */

/* The three copies: which layout, how many floats per copy, how many values per thread. */
typedef struct {
    const char *name;
    int vec, kmajor, nv;
} copy_kind;
static const copy_kind kinds[3] = {{"4-byte K-major", 1, 1, EX04_NV4},
                                   {"4-byte x-major", 1, 0, EX04_NV4},
                                   {"16-byte x-major", 4, 0, EX04_NV16}};

static lay_layout tv_of(const copy_kind *c) {
    lay_layout L = c->vec == 4 ? ex04_tv_16byte() : ex04_tv_4byte(c->kmajor);
    cr_assert(lay_valid(L), "%s copy: the TV layout is not written yet (TODO 1)", c->name);
    cr_assert(lay_size(L) == EX04_NTHR * c->nv,
              "%s copy: the TV layout has size %d; it must map %d threads x %d values", c->name,
              lay_size(L), EX04_NTHR, c->nv);
    return L;
}

/* (x,k) of the first float of value v of thread t, checked to lie in the tile. */
static void coord(const copy_kind *c, lay_layout L, int t, int v, int *x, int *k) {
    const lay_off i = lay_crd2idx(L, t + (lay_off)EX04_NTHR * v);
    cr_assert(i >= 0 && i < TILE,
              "%s copy: thread %d value %d goes to tile index %lld, outside "
              "the %dx%d tile",
              c->name, t, v, i, EX04_BLK_X, EX04_BLK_K);
    ex04_tile_xk(i, x, k);
}

Test(tv, every_element_once) {
    for (int ci = 0; ci < 3; ++ci) {
        const copy_kind *c = &kinds[ci];
        const lay_layout L = tv_of(c);
        unsigned char hits[TILE];
        memset(hits, 0, sizeof hits);
        for (int t = 0; t < EX04_NTHR; ++t)
            for (int v = 0; v < c->nv; ++v) {
                int x, k;
                coord(c, L, t, v, &x, &k);
                cr_assert(x + c->vec <= EX04_BLK_X,
                          "%s copy: thread %d value %d at (%d,%d) runs "
                          "past the tile's %d x",
                          c->name, t, v, x, k, EX04_BLK_X);
                for (int j = 0; j < c->vec; ++j) {
                    cr_assert(!hits[(x + j) + EX04_BLK_X * k],
                              "%s copy: element (%d,%d) is "
                              "copied twice (once by thread %d value %d)",
                              c->name, x + j, k, t, v);
                    hits[(x + j) + EX04_BLK_X * k] = 1;
                }
            }
        for (int i = 0; i < TILE; ++i)
            cr_assert(hits[i], "%s copy: element (%d,%d) is never copied", c->name, i % EX04_BLK_X,
                      i / EX04_BLK_X);
    }
}

/* Distinct 32-byte sectors of the bytes [b, b + len) of the 32 lanes (base 256-byte aligned). */
static int sectors(const long long *b, int len) {
    long long seen[32 * 2];
    int n = 0;
    for (int l = 0; l < 32; ++l)
        for (long long s = b[l] / 32; s <= (b[l] + len - 1) / 32; ++s) {
            int dup = 0;
            for (int i = 0; i < n && !dup; ++i) dup = seen[i] == s;
            if (!dup) seen[n++] = s;
        }
    return n;
}

Test(tv, global_reads_coalesced) {
    for (int ci = 0; ci < 3; ++ci) {
        const copy_kind *c = &kinds[ci];
        const lay_layout L = tv_of(c);
        const int need = 32 * 4 * c->vec / 32; /* the fewest sectors 32 lanes' bytes can take */
        for (int w = 0; w < EX04_NTHR / 32; ++w)
            for (int v = 0; v < c->nv; ++v) {
                long long b[32];
                for (int l = 0; l < 32; ++l) {
                    int x, k;
                    coord(c, L, 32 * w + l, v, &x, &k);
                    b[l] = 4LL * (c->kmajor ? (long long)x * LD + k : x + (long long)k * LD);
                }
                const int s = sectors(b, 4 * c->vec);
                cr_assert(s <= need,
                          "%s copy, warp %d, value %d: the 32 lanes read %d sectors "
                          "of 32 bytes where %d would do (ld = %d): do they walk the operand's "
                          "contiguous mode?",
                          c->name, w, v, s, need, LD);
            }
    }
}

/* Shared memory is served in 32 banks of 4 bytes; a 16-byte access is served a quarter warp
 * (8 lanes, 128 bytes) at a time (CUDA C++ Programming Guide, "Shared Memory"). A store is
 * conflict-free when, in each such phase, no two lanes touch different words of one bank. */
Test(tv, smem_stores_conflict_free) {
    for (int ci = 0; ci < 3; ++ci) {
        const copy_kind *c = &kinds[ci];
        const lay_layout L = tv_of(c);
        const int phase = c->vec == 4 ? 8 : 32;
        for (int w = 0; w < EX04_NTHR / 32; ++w)
            for (int v = 0; v < c->nv; ++v)
                for (int p0 = 0; p0 < 32; p0 += phase) {
                    long long word[32];
                    for (int b = 0; b < 32; ++b) word[b] = -1;
                    for (int l = p0; l < p0 + phase; ++l) {
                        int x, k;
                        coord(c, L, 32 * w + l, v, &x, &k);
                        for (int j = 0; j < c->vec; ++j) {
                            const long long o = ex04_smem_offset(x + j, k);
                            const int bank = (int)(o % 32);
                            cr_assert(word[bank] < 0 || word[bank] == o,
                                      "%s copy, warp %d, value %d: lane %d stores to bank %d, "
                                      "which another lane of its phase uses (smem offsets %lld "
                                      "and %lld)",
                                      c->name, w, v, l, bank, word[bank], o);
                            word[bank] = o;
                        }
                    }
                }
    }
}

Test(tv, vectors_aligned) {
    const copy_kind *c = &kinds[2];
    const lay_layout L = tv_of(c);
    for (int t = 0; t < EX04_NTHR; ++t)
        for (int v = 0; v < c->nv; ++v) {
            int x, k;
            coord(c, L, t, v, &x, &k);
            cr_assert(x % 4 == 0,
                      "16-byte copy: thread %d value %d starts at (%d,%d); a "
                      "16-byte vector must start at an x that is a multiple of 4",
                      t, v, x, k);
            cr_assert(ex04_smem_offset(x, k) % 4 == 0,
                      "16-byte copy: thread %d value %d: its "
                      "smem address is not 16-byte aligned",
                      t, v);
        }
}

/* ---- questions ----------------------------------------------------------------------------- */

static void check_count(const char *q, long got, long want, const char *hint) {
    cr_assert(got != EX04_TODO, "%s: not answered yet", q);
    cr_assert(got == want, "%s: %ld is not the answer (%s)", q, got, hint);
}

Test(questions, q1_smem_bytes) {
    check_count("Q1", ex04_q1_smem_bytes(),
                (long)EX04_STAGES * 2 * EX04_TILE_FLOATS * (long)sizeof(float),
                "count every stage of both tiles, padding included, in bytes");
}

/* A pipeline of S stages that starts S-1 k_tiles before the loop and commits one group per
 * iteration: at the wait of iteration t, groups 0 .. t+S-2 are committed, and k_tile t must
 * be complete while the S-2 newer ones may stay in flight. */
Test(questions, q2_wait_n_3stages) {
    const int stages = 3;
    const int committed = 0 + stages - 1; /* at t = 0: groups 0 .. stages-2 */
    check_count("Q2", ex04_q2_wait_n_3stages(), committed - 1,
                "how many groups newer than k_tile t's are committed when iteration t waits?");
}

static long cp_async_per_thread(int a_kmajor, int b_kmajor, long K) {
    const long k_tiles = (K + EX04_BLK_K - 1) / EX04_BLK_K;
    const long a = a_kmajor ? EX04_NV4 : EX04_NV16, b = b_kmajor ? EX04_NV4 : EX04_NV16;
    return (a + b) * k_tiles;
}

Test(questions, q3_cp_async_TN) {
    check_count("Q3", ex04_q3_cp_async_TN(), cp_async_per_thread(1, 1, 4096),
                "which copy does each operand take in TN, and how many per k_tile?");
}

Test(questions, q4_cp_async_NT) {
    check_count("Q4", ex04_q4_cp_async_NT(), cp_async_per_thread(0, 0, 4096),
                "which copy does each operand take in NT, and how many per k_tile?");
}
