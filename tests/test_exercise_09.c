/* test_exercise_09.c - lesson 09: the CPU grader of the assignment (lessons/09_wgmma/exercise).
 *
 * Suite ring: the learner's ring arithmetic (exercise/ring9.h, TODO 1) in a model of the
 * kernel's protocol (the scheme above TODO 1a): mbarriers with phases, arrival counts and
 * transaction bytes, try_wait.parity as the PTX ISA defines it (true while the current phase's
 * parity differs from the one asked for, so a waiter two phases behind is fooled exactly as on
 * the hardware), one producer, TMA copies that land whenever the scheduler likes, and
 * EX09_CONSUMERS consumer warpgroups whose wgmma read their stage from the issue until a
 * wgmma.wait_group retires the group and whose 4 warps arrive one by one. A seeded scheduler
 * gives every agent its own speed (some very slow) and plays 2 to 6 stages over 1 to 40 K
 * tiles: every K tile must be read only after its copy landed, no stage refilled while a
 * consumer still reads it or has not read its K tile yet, and the protocol must finish
 * (no deadlock) with every K tile read by every consumer.
 * Suite desc: the learner's wgmma descriptor (TODO 2), decoded as PTX ISA 9.7.15.5.1 says
 * the hardware does (start address, stride byte offset, swizzle mode 1: the 128-byte swizzle
 * of the formed address); the address of every (row, k) element of every k step of the
 * kernel's A slabs and B tiles must be the offset lesson 09's tile layout
 * (p9_smem_tile_bytes, plan.h: the tile TMA writes) gives it.
 * Suite questions: the four questions of the exercise README (answers.c), each expected value
 * computed here.
 * The rubric (exercise/rubric.txt) gives each test its points. Built by tests/exercise.mk with
 * the files of the source being graded (make grade09, make grade-solutions).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "answers.h"
#include "ring9.h"

/* ---- the ring: a model of the mbarriers and the agents ------------------------------------- */

#define MAX_STAGES 6
#define MAX_KT 40
#define WARPS 4 /* warps of a consumer warpgroup: each warp's lane 0 arrives on empty[s] */

typedef struct {
    int phase;   /* completed phases; the current one is phase number `phase` */
    int pending; /* arrivals the current phase still expects */
    int count;   /* arrivals per phase (mbarrier.init) */
    long tx;     /* transaction bytes the current phase still expects */
} mbar;

static void mb_init(mbar *b, int count) {
    b->phase = 0;
    b->pending = count;
    b->count = count;
    b->tx = 0;
}
/* mbarrier.try_wait.parity p: the phase of parity p before the current one has completed */
static int mb_done(const mbar *b, int parity) { return (b->phase & 1) != parity; }
static void mb_settle(mbar *b) {
    if (b->pending <= 0 && b->tx == 0) {
        b->phase++;
        b->pending = b->count;
    }
}
static void mb_arrive(mbar *b) {
    b->pending--;
    mb_settle(b);
}

enum { V_NONE, V_LANDED, V_REUSE, V_DEADLOCK, V_RANGE };
enum { C_WAIT_FULL, C_ARRIVE, C_DONE };

typedef struct {
    int stages, T, consumers;
    mbar full[MAX_STAGES], empty[MAX_STAGES];
    int content[MAX_STAGES];  /* K tile the stage holds (or is being loaded with), -1 none */
    int landed[MAX_STAGES];   /* its copy has landed */
    int inflight[MAX_STAGES]; /* a copy into the stage is in flight */
    int p_it;                 /* producer: next K-iteration */
    /* consumers */
    int c_it[EX09_CONSUMERS], c_state[EX09_CONSUMERS], c_arrivals[EX09_CONSUMERS],
        c_target[EX09_CONSUMERS];
    int c_read[EX09_CONSUMERS][2]; /* stages its groups in flight read (newest last), -1 */
    int c_nread[EX09_CONSUMERS];   /* K tiles it has issued the wgmma of */
    int kind;
    char why[400];
} ring_sim;

static unsigned rng_next(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xFFFFFF;
}

static int violate(ring_sim *r, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int violate(ring_sim *r, int kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    r->kind = kind;
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return 0;
}

static int stage_ok(ring_sim *r, const char *fn, int it, int s) {
    if (s >= 0 && s < r->stages) return 1;
    return violate(r, V_RANGE, "%s(%d, %d) = %d is not a stage (0..%d)", fn, it, r->stages, s,
                   r->stages - 1);
}

/* The producer's iteration r->p_it, once empty[s] lets it through: arrive.expect_tx on full[s],
 * then the TMA copies (in flight until the scheduler lands them). */
static int produce(ring_sim *r) {
    const int it = r->p_it, s = ex09_stage(it, r->stages);
    for (int c = 0; c < r->consumers; ++c) {
        for (int g = 0; g < 2; ++g)
            if (r->c_read[c][g] == s)
                return violate(r, V_REUSE,
                               "%d stages, %d K tiles: the producer refills stage %d with K tile "
                               "%d while consumer %d's wgmma still read it (K tile %d; they are "
                               "done only after its wgmma.wait_group)",
                               r->stages, r->T, s, it, c, r->content[s]);
        if (r->content[s] >= 0 && r->c_nread[c] <= r->content[s])
            return violate(r, V_REUSE,
                           "%d stages, %d K tiles: the producer refills stage %d with K tile %d "
                           "while it holds K tile %d, which consumer %d has not read yet",
                           r->stages, r->T, s, it, r->content[s], c);
    }
    if (r->inflight[s])
        return violate(r, V_REUSE,
                       "%d stages, %d K tiles: the producer loads K tile %d into stage %d while "
                       "the copy of K tile %d into it is still in flight",
                       r->stages, r->T, it, s, r->content[s]);
    r->full[s].tx += EX09_STAGE_BYTES;
    mb_arrive(&r->full[s]);
    r->content[s] = it;
    r->landed[s] = 0;
    r->inflight[s] = 1;
    r->p_it++;
    return 1;
}

/* Consumer c waits on full[s] for its K-iteration; once through, it issues the wgmma of the
 * stage, then wgmma.wait_group 1 retires its previous group and its warps release a stage. */
static int consume(ring_sim *r, int c) {
    const int it = r->c_it[c], s = ex09_stage(it, r->stages);
    if (!r->landed[s] || r->content[s] != it)
        return violate(r, V_LANDED,
                       "%d stages, %d K tiles: consumer %d passes its wait on full[%d] (parity "
                       "%d) in iteration %d and reads the stage, which %s",
                       r->stages, r->T, c, s, ex09_full_parity(it, r->stages), it,
                       r->content[s] == it  ? "is still being loaded: its copy has not landed"
                       : r->content[s] < 0  ? "holds no K tile yet"
                       : r->content[s] < it ? "still holds an older K tile"
                                            : "is being loaded with a later K tile");
    r->c_read[c][0] = -1; /* wait_group 1 retires the older group */
    r->c_read[c][1] = s;  /* and leaves the new one in flight */
    r->c_nread[c] = it + 1;
    if (it > 0) {
        const int rs = ex09_release_stage(it, r->stages);
        if (!stage_ok(r, "ex09_release_stage", it, rs)) return 0;
        r->c_target[c] = rs;
        r->c_arrivals[c] = WARPS;
        r->c_state[c] = C_ARRIVE;
    } else if (++r->c_it[c] == r->T) {
        r->c_read[c][1] = -1; /* the drain: wait_group 0, release the last stage */
        r->c_target[c] = ex09_stage(r->T - 1, r->stages);
        r->c_arrivals[c] = WARPS;
        r->c_state[c] = C_ARRIVE;
    }
    return 1;
}

/* One warp of consumer c arrives on the stage it releases. */
static void consumer_arrive(ring_sim *r, int c) {
    mb_arrive(&r->empty[r->c_target[c]]);
    if (--r->c_arrivals[c] > 0) return;
    if (r->c_it[c] >= r->T) { /* the drain's releases are done */
        r->c_state[c] = C_DONE;
        return;
    }
    if (++r->c_it[c] < r->T) {
        r->c_state[c] = C_WAIT_FULL;
        return;
    }
    r->c_read[c][1] = -1; /* the drain: wait_group 0, release the last K tile's stage */
    r->c_target[c] = ex09_stage(r->T - 1, r->stages);
    r->c_arrivals[c] = WARPS;
    r->c_state[c] = C_ARRIVE;
}

/* Plays the protocol for `stages` stages and T K tiles under the schedule of `seed`; r->kind
 * says how it ended (V_NONE: every K tile read by every consumer, nothing wrong). */
static void ring_play(ring_sim *r, int stages, int T, unsigned seed) {
    memset(r, 0, sizeof *r);
    r->stages = stages;
    r->T = T;
    r->consumers = EX09_CONSUMERS;
    for (int s = 0; s < stages; ++s) {
        mb_init(&r->full[s], 1);
        mb_init(&r->empty[s], ex09_empty_arrivals(EX09_CONSUMERS));
        r->content[s] = -1;
    }
    for (int c = 0; c < r->consumers; ++c) {
        r->c_read[c][0] = r->c_read[c][1] = -1;
        r->c_state[c] = C_WAIT_FULL;
    }
    /* every agent's speed: a weight 1..64 (seed 0: all equal) */
    unsigned rs = seed * 2654435761u + 1;
    int weight[3 + EX09_CONSUMERS];
    for (int a = 0; a < 3 + EX09_CONSUMERS; ++a)
        weight[a] = seed == 0 ? 1 : 1 + (int)(rng_next(&rs) % 64);
    for (int step = 0; step < 100000; ++step) {
        /* agents: 0 producer, 1 the TMA unit, 2.. the consumers */
        int can[2 + EX09_CONSUMERS], total = 0;
        for (int a = 0; a < 2 + EX09_CONSUMERS; ++a) can[a] = 0;
        if (r->p_it < T) {
            const int it = r->p_it, s = ex09_stage(it, stages);
            if (!stage_ok(r, "ex09_stage", it, s)) return;
            can[0] = mb_done(&r->empty[s], ex09_empty_parity(it, stages));
        }
        for (int s = 0; s < stages; ++s) can[1] |= r->inflight[s];
        for (int c = 0; c < r->consumers; ++c) {
            if (r->c_state[c] == C_ARRIVE) can[2 + c] = 1;
            else if (r->c_state[c] == C_WAIT_FULL) {
                const int it = r->c_it[c], s = ex09_stage(it, stages);
                if (!stage_ok(r, "ex09_stage", it, s)) return;
                can[2 + c] = mb_done(&r->full[s], ex09_full_parity(it, stages));
            }
        }
        for (int a = 0; a < 2 + EX09_CONSUMERS; ++a) total += can[a] ? weight[a] : 0;
        if (total == 0) {
            int done = r->p_it == T;
            for (int c = 0; c < r->consumers; ++c) done &= r->c_state[c] == C_DONE;
            if (done) {
                r->kind = V_NONE;
                return;
            }
            char w[300];
            int n = snprintf(w, sizeof w, "the producer %s", r->p_it < T ? "" : "is done");
            if (r->p_it < T) {
                const int s = ex09_stage(r->p_it, stages);
                n += snprintf(w + n, sizeof w - n,
                              "waits on empty[%d] for parity %d in iteration %d (the barrier "
                              "has completed %d phases)",
                              s, ex09_empty_parity(r->p_it, stages), r->p_it, r->empty[s].phase);
            }
            for (int c = 0; c < r->consumers && n < (int)sizeof w; ++c)
                if (r->c_state[c] == C_WAIT_FULL) {
                    const int s = ex09_stage(r->c_it[c], stages);
                    n += snprintf(w + n, sizeof w - n,
                                  "; consumer %d waits on full[%d] for parity %d in iteration %d "
                                  "(%d phases completed)",
                                  c, s, ex09_full_parity(r->c_it[c], stages), r->c_it[c],
                                  r->full[s].phase);
                }
            violate(r, V_DEADLOCK, "%d stages, %d K tiles: deadlock: %s", stages, T, w);
            return;
        }
        int pick = (int)(rng_next(&rs) % (unsigned)total), a = 0;
        for (;; ++a)
            if (can[a]) {
                if (pick < weight[a]) break;
                pick -= weight[a];
            }
        if (a == 0) {
            if (!produce(r)) return;
        } else if (a == 1) { /* the TMA unit lands one of the copies in flight */
            int s = (int)(rng_next(&rs) % (unsigned)stages);
            while (!r->inflight[s]) s = (s + 1) % stages;
            r->inflight[s] = 0;
            r->landed[s] = 1;
            r->full[s].tx -= EX09_STAGE_BYTES;
            mb_settle(&r->full[s]);
        } else {
            const int c = a - 2;
            if (r->c_state[c] == C_ARRIVE) consumer_arrive(r, c);
            else if (!consume(r, c)) return;
        }
    }
    violate(r, V_DEADLOCK, "%d stages, %d K tiles: the protocol did not finish in 100000 steps",
            stages, T);
}

static void ring_answered(void) {
    cr_assert(ex09_stage(1, 4) != EX09_TODO, "ring: ex09_stage is not answered yet (TODO 1a)");
    cr_assert(ex09_full_parity(1, 4) != EX09_TODO,
              "ring: ex09_full_parity is not answered yet (TODO 1b)");
    cr_assert(ex09_empty_parity(1, 4) != EX09_TODO,
              "ring: ex09_empty_parity is not answered yet (TODO 1c)");
    cr_assert(ex09_release_stage(1, 4) != EX09_TODO,
              "ring: ex09_release_stage is not answered yet (TODO 1d)");
    cr_assert(ex09_empty_arrivals(EX09_CONSUMERS) != EX09_TODO,
              "ring: ex09_empty_arrivals is not answered yet (TODO 1e)");
}

/* Every schedule for 2..6 stages and 1..40 K tiles; fails on the first violation of `kind`
 * (a ring that goes wrong in another way first is judged by that test). */
static void ring_check(int kind) {
    ring_answered();
    ring_sim r;
    for (int stages = 2; stages <= MAX_STAGES; ++stages)
        for (int T = 1; T <= MAX_KT; ++T)
            for (unsigned seed = 0; seed < 40; ++seed) {
                ring_play(&r, stages, T, seed);
                cr_assert(r.kind != V_RANGE, "ring: %s", r.why);
                cr_assert(r.kind != kind, "ring: %s (schedule %u)", r.why, seed);
            }
}

Test(ring, read_after_landed) { ring_check(V_LANDED); }
Test(ring, no_early_refill) { ring_check(V_REUSE); }
Test(ring, no_deadlock) { ring_check(V_DEADLOCK); }

/* ---- the descriptor ---------------------------------------------------------------------- */

/* The byte address the hardware reads for row r (0 .. rows-1) and byte b (0 .. 31) of the
 * 16-element K slice that descriptor d describes (PTX ISA 9.7.15.5.1: start address and stride
 * byte offset in 16-byte units; swizzle mode 1, the 128-byte swizzle: 8 rows of 128 bytes form
 * a 1024-byte atom, and address bits [4,7) are XORed with bits [7,10) of the address formed). */
static long long desc_addr(uint64_t d, int r, int b) {
    const long long start = (long long)(d & 0x3FFF) << 4, sbo = (long long)((d >> 32) & 0x3FFF)
                                                                << 4;
    const long long formed = start + 128 * (r % 8) + sbo * (r / 8) + b;
    return formed ^ (((formed >> 7) & 7) << 4);
}

/* The kernel's tiles (kernel.cu): a 1024-aligned base, STAGES x [A (128,64) | B (256,64)]; a
 * consumer's A slab is rows 64c.. of the A tile. */
static uint32_t tile_a(uint32_t base, int s) { return base + (uint32_t)(s * EX09_STAGE_BYTES); }
static uint32_t tile_b(uint32_t base, int s) { return tile_a(base, s) + EX09_A_BYTES; }
static const uint32_t bases[] = {1024, 2048, 7168};

static void desc_answered(void) {
    cr_assert(ex09_desc_sw128(1024) != 0,
              "descriptor: ex09_desc_sw128 is not written yet (TODO 2a)");
}

Test(desc, fields) {
    desc_answered();
    for (int bi = 0; bi < 3; ++bi)
        for (int s = 0; s < EX09_STAGES; ++s)
            for (int op = 0; op < 1 + EX09_CONSUMERS; ++op) {
                const uint32_t addr =
                    op == 0 ? tile_b(bases[bi], s)
                            : tile_a(bases[bi], s) + (uint32_t)((op - 1) * P9_WG_M * P9_ROW_BYTES);
                const uint64_t d = ex09_desc_sw128(addr);
                cr_assert((d & 0x3FFF) == (addr & 0x3FFFF) >> 4,
                          "descriptor of the tile at byte %u: start address field %llu, not the "
                          "address >> 4 (%u)",
                          addr, (unsigned long long)(d & 0x3FFF), (addr & 0x3FFFF) >> 4);
                cr_assert(d >> 62 == 1,
                          "descriptor: swizzle mode (bits 62-63) %llu; the 128-byte swizzle TMA "
                          "wrote is mode 1",
                          (unsigned long long)(d >> 62));
                cr_assert(((d >> 49) & 7) == 0,
                          "descriptor: base offset (bits 49-51) %llu: the tiles start on 1024-byte "
                          "boundaries, where it is 0",
                          (unsigned long long)((d >> 49) & 7));
                const uint64_t reserved =
                    (3ull << 14) | (3ull << 30) | (7ull << 46) | (0x3FFull << 52);
                cr_assert((d & reserved) == 0,
                          "descriptor 0x%016llx: bits outside the fields (14-15, 30-31, 46-48, "
                          "52-61) must be 0",
                          (unsigned long long)d);
            }
}

/* Every (row, k) of k steps kk0 .. kk1-1 of the kernel's A slabs and B tiles. */
static void check_tiles(int kk0, int kk1) {
    const lay_swizzled ta = p9_smem_tile_bytes(EX09_BLK_M), tb = p9_smem_tile_bytes(EX09_BLK_N);
    cr_assert(lay_valid(ta.layout) && lay_valid(tb.layout));
    for (int bi = 0; bi < 3; ++bi)
        for (int s = 0; s < EX09_STAGES; ++s)
            for (int op = 0; op < 1 + EX09_CONSUMERS; ++op) {
                const int is_b = op == 0, c = op - 1, rows = is_b ? EX09_BLK_N : P9_WG_M;
                const uint32_t tile = is_b ? tile_b(bases[bi], s) : tile_a(bases[bi], s);
                const uint32_t addr = is_b ? tile : tile + (uint32_t)(c * P9_WG_M * P9_ROW_BYTES);
                const uint64_t d0 = ex09_desc_sw128(addr);
                for (int kk = kk0; kk < kk1; ++kk) {
                    const uint64_t d = d0 + (uint64_t)kk * (uint64_t)ex09_desc_kstep();
                    for (int r = 0; r < rows; ++r)
                        for (int j = 0; j < P9_MMA_K; ++j) {
                            const long long got = desc_addr(d, r, 2 * j);
                            const long long want =
                                tile + (is_b ? lay_swizzled_crd2idx2(tb, r, P9_MMA_K * kk + j)
                                             : lay_swizzled_crd2idx2(ta, P9_WG_M * c + r,
                                                                     P9_MMA_K * kk + j));
                            cr_assert(got == want,
                                      "descriptor of %s%s (stage %d, at byte %u), k step %d: its "
                                      "row %d, k %d is read at byte %lld, but TMA wrote that "
                                      "element at byte %lld (row %d of the tile, byte %lld of it)",
                                      is_b ? "the B tile" : "consumer ",
                                      is_b ? "" : (c ? "1's A slab" : "0's A slab"), s, addr, kk, r,
                                      P9_MMA_K * kk + j, got, want, is_b ? r : P9_WG_M * c + r,
                                      want - tile);
                        }
                }
            }
}

Test(desc, addresses_match_tile) {
    desc_answered();
    check_tiles(0, 1);
}

Test(desc, k_steps) {
    desc_answered();
    cr_assert(ex09_desc_kstep() != EX09_TODO,
              "descriptor: ex09_desc_kstep is not answered yet (TODO 2b)");
    check_tiles(1, EX09_BLK_K / P9_MMA_K);
}

/* ---- questions ----------------------------------------------------------------------------- */

static void check_answer(const char *q, long got, long want, const char *hint) {
    cr_assert(got != EX09_TODO_ANSWER, "%s: not answered yet", q);
    cr_assert(got == want, "%s: %ld is not the answer (%s)", q, got, hint);
}

/* Iteration 22 is use 22 / STAGES of its stage; the producer needs the release of the previous
 * use, which completed empty's phase (use - 1): its parity. */
Test(questions, q1_empty_parity) {
    const int use = 22 / EX09_STAGES;
    check_answer("Q1", ex09_q1_empty_parity(), (use - 1) & 1,
                 "which use of its stage is iteration 22, and which phase of empty[s] completed "
                 "when the consumers released the use before it?");
}

Test(questions, q2_stage_bytes) {
    check_answer("Q2", ex09_q2_stage_bytes(), (long)(EX09_BLK_M + EX09_BLK_N) * EX09_BLK_K * 2,
                 "how many rows do the A and B tiles of a stage have, and how long is a row?");
}

Test(questions, q3_stages_fit) {
    long n = 0;
    while (1024 + (n + 1) * (EX09_STAGE_BYTES + 16) <= 227L * 1024) ++n;
    check_answer("Q3", ex09_q3_stages_fit(), n,
                 "227 KiB less the alignment slack, divided by a stage and its two barriers");
}

Test(questions, q4_sbo_field) {
    check_answer("Q4", ex09_q4_sbo_field(), 8L * P9_ROW_BYTES / 16,
                 "how many bytes lie between row 0 and row 8 of the tile, in which unit?");
}
