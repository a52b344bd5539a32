/* tune.h - lesson 08's tuning: the candidates `--tune` times for a problem, and the table of
 * winners that `--tuned FILE` makes the `default` variant use. Host-only C (gcc and nvcc), on
 * top of dispatch.h, so that the CPU tests (tests/test_tune_08.c) check the very code that
 * gemm.cu runs.
 *
 *   disp_candidates      every way the registry can run a problem: each configuration that
 *                        accepts it, with its K splits and orientations (what --tune times)
 *   disp_cand_name       a candidate as words: "128x128x32_s4_splitk split 4 C"
 *   disp_tuned_format    one line of the table
 *   disp_tuned_parse     one line of the table back (a comment or blank line: no entry)
 *   disp_tuned_load      a whole table from text, every entry checked against its problem
 *   disp_tuned_find      the entry of a problem: exact match of dtype, layout, M, N, K,
 *                        epilogue and output type, or -1
 *   disp_choose_tuned    the table's entry for p when there is one, else the rules
 *   disp_explain_tuned   that choice as one line, "tuned (FILE line N)" or the rule
 *
 * THE TABLE: plain text, one entry per line, '#' starts a comment (to the end of the line):
 *     dtype layout M N K epilogue -> configuration split orientation operands ms
 * e.g. (MS: the measured time, a number)
 *     fp16 TN 512 512 512 none -> 128x128x32_s4_splitk 4 C direct MS
 *     fp16 TN 4096 4096 4096 bias_gelu:fp32 -> 128x256x64_s3_persistent 1 C direct MS
 * epilogue: its name (none, bias, relu, bias_relu, gelu, bias_gelu), and after a colon the
 * output type when it is not the inputs' own (--out);
 * orientation: C (the configuration computes C) or CT (it computes C^T = B*A^T, through the
 * workspace); operands: direct, or copied (A and B copied K-major into the workspace first,
 * rule R1's copy); ms: the winner's median time when it was measured (informational: the
 * dispatcher does not read it). Example: `./run --tune --tune-out t.txt --size 512x512x512`
 * writes such a table; `./run --tuned t.txt --explain --size 512x512x512` then says
 * "tuned (t.txt line 3)".
 */
#ifndef LESSON08_TUNE_H
#define LESSON08_TUNE_H

#include <errno.h>
#include <stdlib.h>

#include "dispatch.h"

/* ---- candidates ------------------------------------------------------------------------- */

#define DISP_MAX_CANDIDATES 128

/* The K splits a split-K configuration tries for a problem: the rule's split s0
 * (disp_split_for), half and double it, and 1, in that order, each once. Returns the count. */
static inline int disp_split_choices(int s0, int out[4]) {
    const int want[4] = {s0, s0 / 2, 2 * s0, 1};
    int n = 0;
    for (int i = 0; i < 4; ++i) {
        int dup = want[i] < 1;
        for (int j = 0; j < n; ++j) dup |= out[j] == want[i];
        if (!dup) out[n++] = want[i];
    }
    return n;
}

/* Whether configuration ci can run problem q (already repacked and/or transposed) with K split
 * s and `ws` bytes of workspace left for partial sums: the workspace room (a split, a
 * transposed run and an epilogue in the reduction go through the partial sums:
 * disp_pass_rows) and disp_refusal. */
static inline int disp_runs(int ci, const gemm_problem *q, int s, int transposed,
                            const disp_device *d, long long ws) {
    char why[256];
    if (!disp_pass_rows(&disp_configs[ci], q, s, transposed, ws)) return 0;
    return disp_refusal(&disp_configs[ci], q, s, d, why, sizeof why) == NULL;
}

/* Whether rule R1's K-major copies are possible for p: fp16/bf16 and both copies fit the
 * workspace. (The dispatcher copies only when A or B cannot take the 16-byte copy; the tuner
 * tries copies exactly then too.) */
static inline int disp_can_copy(const gemm_problem *p) {
    return p->dtype != GEMM_FP32 && disp_repack_bytes(p->m, p->n, p->k) <= DISP_WS_BYTES;
}

/* Every candidate for problem p on device d, into out (room for max; rule = -1 in each): for
 * the operands as they are and, when A or B cannot take the 16-byte copy (disp_fast_path) and
 * rule R1's copies fit, for the copies too; for every configuration of the registry that
 * accepts the problem, on C and (split-K configurations) on C^T, with every K split of
 * disp_split_choices (fixed-split configurations: their own; split 1 of a configuration with
 * an unsplit twin is the twin's, disp_unsplit_twin). Each candidate once; the rules' choice
 * (disp_choose) is always among them. Returns the count (more than max: the rest were
 * dropped). */
static inline int disp_candidates(const gemm_problem *p, const disp_device *d, disp_choice *out,
                                  int max) {
    int n = 0;
    const int copies = !disp_fast_path(p) && disp_can_copy(p);
    for (int rp = 0; rp <= copies; ++rp) {
        const gemm_problem q = rp ? disp_repacked(p) : *p;
        const long long ws = DISP_WS_BYTES - (rp ? disp_repack_bytes(p->m, p->n, p->k) : 0);
        for (int ci = 0; ci < DISP_NCONFIGS; ++ci) {
            const disp_config *c = &disp_configs[ci];
            for (int t = 0; t <= (c->sched == DISP_SPLITK); ++t) {
                const gemm_problem qq = t ? disp_transpose(&q) : q;
                int splits[4], ns = 1;
                splits[0] = c->split ? c->split : 1;
                if (!c->split)
                    ns = disp_split_choices(disp_split_for(ci, qq.m, qq.n, qq.k, d, ws), splits);
                for (int i = 0; i < ns; ++i) {
                    /* split 1 of a split-K configuration with an unsplit twin: the twin's */
                    if (splits[i] == 1 && disp_unsplit_twin(ci) != ci) continue;
                    if (!disp_runs(ci, &qq, splits[i], t, d, ws)) continue;
                    if (n < max) {
                        out[n].cfg = ci;
                        out[n].split = splits[i];
                        out[n].transposed = t;
                        out[n].repack = rp;
                        out[n].rule = -1;
                    }
                    ++n;
                }
            }
        }
    }
    return n;
}

/* Whether two choices run the same thing (the rule that picked them aside). */
static inline int disp_same_run(const disp_choice *a, const disp_choice *b) {
    return a->cfg == b->cfg && a->split == b->split && a->transposed == b->transposed &&
           a->repack == b->repack;
}

/* A candidate of problem p as words, e.g. "128x128x32_s4_splitk split 4 C" or "... split 1 CT
 * copied"; for an epilogue beyond the plain one (disp_epi_plain), where it runs: "... fused"
 * (in the kernel's store) or "... reduce" (in splitk_reduce). */
static inline int disp_cand_name(const gemm_problem *p, const disp_choice *c, char *buf,
                                 size_t len) {
    const char *epi = "";
    if (!disp_epi_plain(p)) {
        const gemm_problem q = disp_choice_problem(p, c);
        epi = disp_epi_where(&disp_configs[c->cfg], &q, c->split, c->transposed) == DISP_EPI_KERNEL
                  ? " fused"
                  : " reduce";
    }
    return snprintf(buf, len, "%s split %d %s%s%s", disp_configs[c->cfg].name, c->split,
                    c->transposed ? "CT" : "C", c->repack ? " copied" : "", epi);
}

/* ---- the table ---------------------------------------------------------------------------- */

static inline int disp_word(const char *w, const char *const *words, int n) {
    for (int i = 0; i < n; ++i)
        if (!strcmp(w, words[i])) return i;
    return -1;
}

/* One entry: a problem (the lookup key) and what runs it. */
typedef struct disp_tuned_entry {
    gemm_dtype dtype;
    gemm_layout layout;
    int m, n, k;
    gemm_epi epilogue;
    gemm_dtype out;  /* the output type: the epilogue word's ":OUT", else the dtype's own */
    disp_choice run; /* cfg, split, transposed, repack (rule -1) */
    double ms;       /* the measured time, or a negative number when not given */
    int line;        /* the line of the file it came from (1-based) */
} disp_tuned_entry;

/* The table: entries in file order, and the file's name (for --explain). */
typedef struct disp_tuned {
    disp_tuned_entry *e;
    int n, cap;
    char path[256];
} disp_tuned;

/* The table's header comment: what its columns are. */
#define DISP_TUNED_HEADER                                                                         \
    "# dtype layout M N K epilogue -> configuration split orientation operands ms\n"              \
    "#   epilogue: none, bias, relu, bias_relu, gelu or bias_gelu, and :OUT for an output type\n" \
    "#   other than the inputs' own (bias_gelu:fp32); orientation: C, or CT (computed as\n"       \
    "#   C^T = B*A^T); operands: direct, or copied (A and B copied K-major first, rule R1);\n"    \
    "#   ms: the median time of the winner. Read by ./run --tuned FILE (lesson 08): an exact\n"   \
    "#   match of the problem runs this entry.\n"

/* One line of the table for problem p (without a newline), the time ms with 6 significant
 * digits, e.g. "fp16 TN 512 512 512 none -> 128x128x32_s4_splitk 4 C direct 0.25" for 0.25,
 * "fp16 TN 512 512 512 bias:fp32 -> ..." for a bias epilogue with an fp32 output. */
static inline int disp_tuned_format(const gemm_problem *p, const disp_choice *c, double ms,
                                    char *buf, size_t len) {
    char out[8] = "";
    if (p->c_dtype != p->dtype) /* not the inputs' own output type */
        snprintf(out, sizeof out, ":%s", disp_dtype_words[p->c_dtype]);
    return snprintf(buf, len, "%s %s %d %d %d %s%s -> %s %d %s %s %.6g", disp_dtype_words[p->dtype],
                    disp_layout_words[p->layout], p->m, p->n, p->k, disp_epi_words[p->epilogue],
                    out, disp_configs[c->cfg].name, c->split, c->transposed ? "CT" : "C",
                    c->repack ? "copied" : "direct", ms);
}

/* An integer word in [lo, hi]. */
static inline int disp_int_word(const char *w, long lo, long hi, int *out) {
    char *end;
    errno = 0;
    const long v = strtol(w, &end, 10);
    if (errno || end == w || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Parses one line of the table into *e. Returns 1 (an entry), 0 (a blank or comment line) or
 * -1 with one line in err (what is wrong, without the line number): a wrong number of words, an
 * unknown dtype, layout, epilogue or configuration name, an extent outside 1..65536, a split
 * outside 1..16, an orientation other than C / CT, operands other than direct / copied, a time
 * that is not a number. Checks only the words; disp_tuned_load checks the entry against its
 * problem. */
static inline int disp_tuned_parse(const char *line, disp_tuned_entry *e, char *err, size_t len) {
    char buf[512], *w[16];
    int nw = 0;
    if (strlen(line) >= sizeof buf) {
        snprintf(err, len, "line longer than %d characters", (int)sizeof buf - 1);
        return -1;
    }
    strcpy(buf, line);
    char *hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    for (char *c = buf; *c && nw < 16;) { /* words: runs of non-blanks, cut in place */
        while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') ++c;
        if (!*c) break;
        w[nw++] = c;
        while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '\n') ++c;
        if (*c) *c++ = '\0';
    }
    if (nw == 0) return 0;
    if (nw != 12 || strcmp(w[6], "->")) {
        snprintf(err, len,
                 "expected 'dtype layout M N K epilogue -> configuration split orientation "
                 "operands ms' (12 words), got %d word%s",
                 nw, nw == 1 ? "" : "s");
        return -1;
    }
    memset(e, 0, sizeof *e);
    int v;
    if ((v = disp_word(w[0], disp_dtype_words, 3)) < 0) {
        snprintf(err, len, "unknown dtype '%s' (fp32, fp16 or bf16)", w[0]);
        return -1;
    }
    e->dtype = (gemm_dtype)v;
    if ((v = disp_word(w[1], disp_layout_words, 4)) < 0) {
        snprintf(err, len, "unknown layout '%s' (TN, NT, NN or TT)", w[1]);
        return -1;
    }
    e->layout = (gemm_layout)v;
    int *ext[3] = {&e->m, &e->n, &e->k};
    for (int i = 0; i < 3; ++i)
        if (disp_int_word(w[2 + i], 1, 65536, ext[i])) {
            snprintf(err, len, "bad extent '%s' (an integer in 1..65536)", w[2 + i]);
            return -1;
        }
    char *colon = strchr(w[5], ':'); /* epilogue[:out] */
    if (colon) *colon = '\0';
    if ((v = disp_word(w[5], disp_epi_words, 6)) < 0) {
        snprintf(err, len, "unknown epilogue '%s'", w[5]);
        return -1;
    }
    e->epilogue = (gemm_epi)v;
    e->out = e->dtype;
    if (colon && (v = disp_word(colon + 1, disp_dtype_words, 3)) < 0) {
        snprintf(err, len, "unknown output type '%s' after '%s:' (fp32, fp16 or bf16)", colon + 1,
                 w[5]);
        return -1;
    }
    if (colon) e->out = (gemm_dtype)v;
    if ((e->run.cfg = disp_find(w[7])) < 0) {
        snprintf(err, len, "unknown configuration '%s' (./run --list names them)", w[7]);
        return -1;
    }
    if (disp_int_word(w[8], 1, DISP_MAX_SPLIT, &e->run.split)) {
        snprintf(err, len, "bad split '%s' (an integer in 1..%d)", w[8], DISP_MAX_SPLIT);
        return -1;
    }
    if (strcmp(w[9], "C") && strcmp(w[9], "CT")) {
        snprintf(err, len, "bad orientation '%s' (C or CT)", w[9]);
        return -1;
    }
    e->run.transposed = !strcmp(w[9], "CT");
    if (strcmp(w[10], "direct") && strcmp(w[10], "copied")) {
        snprintf(err, len, "bad operands '%s' (direct or copied)", w[10]);
        return -1;
    }
    e->run.repack = !strcmp(w[10], "copied");
    e->run.rule = -1;
    char *end;
    errno = 0;
    e->ms = strtod(w[11], &end);
    if (errno || end == w[11] || *end || !(e->ms >= 0.0) || e->ms > 1e9) {
        snprintf(err, len, "bad time '%s' (milliseconds, a non-negative number)", w[11]);
        return -1;
    }
    return 1;
}

/* The problem an entry is the answer for, as the harness makes it without --pad / --offset:
 * leading dimensions the stored extents, aligned bases (NULL), alpha 1, beta 0. */
static inline gemm_problem disp_tuned_problem(const disp_tuned_entry *e) {
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = e->m;
    p.n = e->n;
    p.k = e->k;
    p.layout = e->layout;
    p.dtype = e->dtype;
    p.alpha = 1.0f;
    p.a_kmajor = e->layout == GEMM_TN || e->layout == GEMM_TT;
    p.b_kmajor = e->layout == GEMM_TN || e->layout == GEMM_NN;
    p.lda = p.a_kmajor ? e->k : e->m;
    p.ldb = p.b_kmajor ? e->k : e->n;
    p.ldc = e->n;
    p.epilogue = e->epilogue;
    p.c_dtype = e->out;
    p.bias_dtype = e->out;
    return p;
}

/* Why choice c cannot run problem p on device d (one line into buf), or NULL: copies only for
 * fp16/bf16 when they fit, then the configuration's own refusal of the problem as it would run
 * it (copied and/or transposed; its epilogue included) and the workspace room. */
static inline const char *disp_choice_refusal(const disp_choice *c, const gemm_problem *p,
                                              const disp_device *d, char *buf, size_t len) {
    if (c->repack && !disp_can_copy(p)) {
        snprintf(buf, len, "copied operands need fp16/bf16 and %lld MiB of workspace (%lld MiB)",
                 disp_repack_bytes(p->m, p->n, p->k) >> 20, DISP_WS_BYTES >> 20);
        return buf;
    }
    const gemm_problem q = disp_choice_problem(p, c);
    const long long ws = DISP_WS_BYTES - (c->repack ? disp_repack_bytes(p->m, p->n, p->k) : 0);
    if (c->transposed && disp_configs[c->cfg].sched != DISP_SPLITK) {
        snprintf(buf, len, "computes C only (CT needs a split-K configuration)");
        return buf;
    }
    if (disp_refusal(&disp_configs[c->cfg], &q, c->split, d, buf, len)) return buf;
    if (!disp_pass_rows(&disp_configs[c->cfg], &q, c->split, c->transposed, ws)) {
        /* whole (a split, CT) or at least one panel of BLK_M rows (disp_pass_rows) */
        const int rows = c->split > 1 || c->transposed ? q.m : disp_configs[c->cfg].bm;
        snprintf(buf, len, "split %d of %dx%d needs %lld MiB of workspace, %lld MiB are left",
                 c->split, q.m, q.n, (4LL * c->split * rows * q.n) >> 20, ws >> 20);
        return buf;
    }
    return NULL;
}

static inline void disp_tuned_free(disp_tuned *t) {
    free(t->e);
    memset(t, 0, sizeof *t);
}

/* The entry of problem p: the one whose dtype, layout, M, N, K, epilogue and output type equal
 * p's, or -1. */
static inline int disp_tuned_find(const disp_tuned *t, const gemm_problem *p) {
    for (int i = 0; t && i < t->n; ++i) {
        const disp_tuned_entry *e = &t->e[i];
        if (e->dtype == p->dtype && e->layout == p->layout && e->m == p->m && e->n == p->n &&
            e->k == p->k && e->epilogue == p->epilogue && e->out == p->c_dtype)
            return i;
    }
    return -1;
}

/* Reads a whole table from `text` (the file's contents; `path` names it in messages and
 * --explain) into *t. Every line must parse (disp_tuned_parse), no problem may appear twice,
 * and every entry's configuration must accept the entry's own problem (disp_tuned_problem) on
 * device d. Returns 0, or -1 with one line in err ("t.txt line 4: unknown configuration 'x'")
 * and *t empty. */
static inline int disp_tuned_load(const char *text, const char *path, const disp_device *d,
                                  disp_tuned *t, char *err, size_t len) {
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    char why[256], line[600];
    int ln = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        const size_t l = nl ? (size_t)(nl - s) : strlen(s);
        ++ln;
        if (l >= sizeof line) {
            snprintf(err, len, "%s line %d: line longer than %d characters", path, ln,
                     (int)sizeof line - 1);
            goto bad;
        }
        memcpy(line, s, l);
        line[l] = '\0';
        s += l + (nl != NULL);
        disp_tuned_entry e;
        const int r = disp_tuned_parse(line, &e, why, sizeof why);
        if (r < 0) {
            snprintf(err, len, "%s line %d: %s", path, ln, why);
            goto bad;
        }
        if (r == 0) continue;
        e.line = ln;
        const gemm_problem p = disp_tuned_problem(&e);
        const int dup = disp_tuned_find(t, &p);
        if (dup >= 0) {
            snprintf(err, len, "%s line %d: the same problem as line %d", path, ln, t->e[dup].line);
            goto bad;
        }
        if (disp_choice_refusal(&e.run, &p, d, why, sizeof why)) {
            snprintf(err, len, "%s line %d: %s refuses %dx%dx%d %s %s: %s", path, ln,
                     disp_configs[e.run.cfg].name, e.m, e.n, e.k, disp_dtype_words[e.dtype],
                     disp_layout_words[e.layout], why);
            goto bad;
        }
        if (t->n == t->cap) {
            const int cap = t->cap ? 2 * t->cap : 64;
            disp_tuned_entry *ne = (disp_tuned_entry *)realloc(t->e, (size_t)cap * sizeof *ne);
            if (!ne) {
                snprintf(err, len, "%s: out of memory", path);
                goto bad;
            }
            t->e = ne;
            t->cap = cap;
        }
        t->e[t->n++] = e;
    }
    return 0;
bad:
    disp_tuned_free(t);
    return -1;
}

/* ---- the choice with a table --------------------------------------------------------------- */

/* The choice for p: the table's entry when there is one (*line = its line), else the rules
 * (disp_choose; *line = 0). Returns 0; -1 when no configuration accepts p; -2 when the entry's
 * choice refuses p (the request differs from the entry's problem in alignment, say: --offset),
 * with one line in why. */
static inline int disp_choose_tuned(const gemm_problem *p, const disp_device *d,
                                    const disp_tuned *t, disp_choice *out, int *line, char *why,
                                    size_t len) {
    const int i = disp_tuned_find(t, p);
    *line = 0;
    if (i < 0) return disp_choose(p, d, out);
    if (disp_choice_refusal(&t->e[i].run, p, d, why, len)) {
        char r[200];
        snprintf(r, sizeof r, "%.199s", why);
        const int w = snprintf(why, len,
                               "the tuned entry (%.100s line %d) runs %s, which refuses "
                               "this problem: ",
                               t->path, t->e[i].line, disp_configs[t->e[i].run.cfg].name);
        if (w > 0 && (size_t)w < len) snprintf(why + w, len - (size_t)w, "%s", r);
        return -2;
    }
    *out = t->e[i].run;
    *line = t->e[i].line;
    return 0;
}

/* disp_explain with a table: "tuned (FILE line N)" for a problem the table has, e.g.
 *   "128x128x32_s4_splitk, K split 4 (tuned (t.txt line 3))", else disp_explain's line. */
static inline int disp_explain_tuned(const gemm_problem *p, const disp_device *d,
                                     const disp_tuned *t, char *buf, size_t len) {
    disp_choice c;
    int line;
    char why[320];
    const int r = disp_choose_tuned(p, d, t, &c, &line, why, sizeof why);
    if (r == -2) return snprintf(buf, len, "refused: %s", why);
    if (r || !line) return disp_explain(p, d, buf, len);
    char split[48] = "", pad[48], rp[80] = "";
    if (c.split > 1) snprintf(split, sizeof split, ", K split %d", c.split);
    if (c.repack)
        snprintf(rp, sizeof rp, "A and B copied K-major%s, then ",
                 disp_repack_pad_words(p, pad, sizeof pad));
    return snprintf(buf, len, "%s%s%s%s (tuned (%.200s line %d))", rp, disp_configs[c.cfg].name,
                    split, c.transposed ? ", on C^T = B*A^T" : "", t->path, line);
}

#endif /* LESSON08_TUNE_H */
