/* test_layout.c -- Criterion suite for common/layout.h and common/layout_print.c.
 *
 * 1. The oracle: tests/data/layout_vectors.txt (known answers from NVIDIA's pycute / CuTe);
 *    every line is reproduced through the library and compared as a string; a failing line is
 *    printed with its line number and what the library gave. One test per op kind, plus a test
 *    that every line was checked and the per-op counts match the file's "# counts:" header.
 * 2. Hand cases: complement, coalesce, composition errors, construction errors, swizzle
 *    facts, slice, local_tile / local_partition ownership, blocked / raked product, inverses,
 *    parser and printer round trips, Tensor Core TV layouts against the PTX ISA formulas.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "layout_print.h"

#ifndef LAYOUT_VECTORS
#define LAYOUT_VECTORS "tests/data/layout_vectors.txt"
#endif

/* ------------------------------------------------------------------ growable string */
typedef struct {
    char *s;
    size_t len, cap;
} dstr;

static void ds_add(dstr *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[4096];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (d->len + (size_t)n + 1 > d->cap) {
        d->cap = (d->len + (size_t)n + 1) * 2;
        d->s = (char *)realloc(d->s, d->cap);
    }
    memcpy(d->s + d->len, tmp, (size_t)n + 1);
    d->len += (size_t)n;
}

static char *layout_str(lay_layout L) {
    int n = lay_sprint(NULL, 0, L);
    if (n < 0) return strdup("<invalid>");
    char *s = (char *)malloc((size_t)n + 1);
    lay_sprint(s, (size_t)n + 1, L);
    return s;
}

static char *err_str(const char *what, int rc) {
    dstr d = {0};
    ds_add(&d, "ERROR(%s: %s)", what, lay_strerror(rc));
    return d.s;
}

/* ------------------------------------------------------------------ oracle file */
typedef struct {
    int lineno;
    char *line; /* the whole line */
    char *op, *a, *b, *res;
} vcase;

static vcase *g_cases;
static int g_ncases;
static char g_counts[1024];

static char *trim(char *s) {
    while (*s == ' ') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = 0;
    return s;
}

static void load_vectors(void) {
    if (g_cases) return;
    FILE *f = fopen(LAYOUT_VECTORS, "rb");
    cr_assert_not_null(f, "cannot open %s", LAYOUT_VECTORS);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *all = (char *)malloc((size_t)sz + 1);
    cr_assert_eq(fread(all, 1, (size_t)sz, f), (size_t)sz);
    all[sz] = 0;
    fclose(f);
    int cap = 512;
    g_cases = (vcase *)calloc((size_t)cap, sizeof(vcase));
    int lineno = 0;
    char *p = all;
    while (*p) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        lineno++;
        char *line = p;
        p = nl ? nl + 1 : p + strlen(p);
        if (strncmp(line, "# counts:", 9) == 0) snprintf(g_counts, sizeof g_counts, "%s", line + 9);
        if (line[0] == '#' || trim(line)[0] == 0) continue;
        vcase c;
        c.lineno = lineno;
        c.line = strdup(line);
        char *fld[4];
        int nf = 0;
        char *q = line;
        while (nf < 4) {
            char *sep = strstr(q, " | ");
            fld[nf++] = q;
            if (!sep) break;
            *sep = 0;
            q = sep + 3;
        }
        cr_assert_eq(nf, 4, "line %d: expected 4 fields: %s", lineno, c.line);
        c.op = trim(fld[0]);
        c.a = trim(fld[1]);
        c.b = trim(fld[2]);
        c.res = trim(fld[3]);
        if (g_ncases == cap) {
            cap *= 2;
            g_cases = (vcase *)realloc(g_cases, sizeof(vcase) * (size_t)cap);
        }
        g_cases[g_ncases++] = c;
    }
}

static int parse_or_die(const char *s, lay_layout *L) {
    int rc = lay_parse(s, L);
    return rc;
}

/* Reproduce one oracle case; returns a malloc'd string in the oracle's notation. */
static char *compute(const vcase *c) {
    lay_layout A, B, R;
    lay_tiler T;
    int rc;
    dstr d = {0};
    const char *op = c->op;
    int is_tiler = c->b[0] == '<';

    if (strcmp(op, "swizzle") == 0) {
        lay_swizzle sw;
        rc = lay_parse_swizzle(c->a, &sw);
        if (rc) return err_str("parse swizzle", rc);
        long n = strtol(c->b, NULL, 10);
        for (long x = 0; x < n; ++x) ds_add(&d, x ? " %lld" : "%lld", lay_swizzle_apply(sw, x));
        return d.s;
    }
    if (strcmp(op, "swizzle_layout") == 0) {
        lay_swizzled S;
        rc = lay_parse_swizzled(c->a, &S);
        if (rc) return err_str("parse swizzled", rc);
        int n = lay_size(S.layout);
        for (int i = 0; i < n; ++i) ds_add(&d, i ? " %lld" : "%lld", lay_swizzled_crd2idx(S, i));
        return d.s;
    }

    rc = parse_or_die(c->a, &A);
    if (rc) return err_str("parse a", rc);
    if (strcmp(c->b, "-") != 0 && strcmp(op, "complement") != 0 && strcmp(op, "coalesce") != 0) {
        if (is_tiler) rc = lay_parse_tiler(c->b, &T);
        else rc = parse_or_die(c->b, &B);
        if (rc) return err_str("parse b", rc);
    }

    if (strcmp(op, "size") == 0) {
        ds_add(&d, "%d", lay_size(A));
        return d.s;
    }
    if (strcmp(op, "cosize") == 0) {
        ds_add(&d, "%lld", lay_cosize(A));
        return d.s;
    }
    if (strcmp(op, "rank") == 0) {
        ds_add(&d, "%d", lay_rank(A));
        return d.s;
    }
    if (strcmp(op, "crd2idx") == 0) {
        int n = lay_size(A);
        for (int i = 0; i < n; ++i) ds_add(&d, i ? " %lld" : "%lld", lay_crd2idx(A, i));
        return d.s;
    }
    if (strcmp(op, "idx2crd") == 0) {
        int n = lay_size(A);
        for (int i = 0; i < n; ++i) {
            char buf[512];
            lay_sprint_crd(buf, sizeof buf, A, i);
            ds_add(&d, i ? " %s" : "%s", buf);
        }
        return d.s;
    }
    if (strcmp(op, "coalesce") == 0) {
        if (strcmp(c->b, "-") == 0) {
            rc = lay_coalesce(&R, A);
        } else {
            lay_layout P;
            rc = lay_parse_tuple(c->b, &P);
            if (rc) return err_str("parse profile", rc);
            rc = lay_coalesce_profile(&R, A, P);
        }
    } else if (strcmp(op, "filter") == 0) {
        rc = lay_filter(&R, A);
    } else if (strcmp(op, "composition") == 0) {
        rc = is_tiler ? lay_composition_tiler(&R, A, T) : lay_composition(&R, A, B);
    } else if (strcmp(op, "complement") == 0) {
        rc = lay_complement(&R, A, strtoll(c->b, NULL, 10));
    } else if (strcmp(op, "right_inverse") == 0) {
        rc = lay_right_inverse(&R, A);
    } else if (strcmp(op, "left_inverse") == 0) {
        rc = lay_left_inverse(&R, A);
    } else if (strcmp(op, "logical_divide") == 0) {
        rc = is_tiler ? lay_logical_divide_tiler(&R, A, T) : lay_logical_divide(&R, A, B);
    } else if (strcmp(op, "zipped_divide") == 0) {
        rc = is_tiler ? lay_zipped_divide(&R, A, T) : lay_zipped_divide_layout(&R, A, B);
    } else if (strcmp(op, "tiled_divide") == 0) {
        if (!is_tiler) return strdup("ERROR(tiled_divide needs a tiler)");
        rc = lay_tiled_divide(&R, A, T);
    } else if (strcmp(op, "logical_product") == 0) {
        rc = is_tiler ? lay_logical_product_tiler(&R, A, T) : lay_logical_product(&R, A, B);
    } else if (strcmp(op, "zipped_product") == 0) {
        rc = is_tiler ? lay_zipped_product(&R, A, T) : lay_zipped_product_layout(&R, A, B);
    } else if (strcmp(op, "tiled_product") == 0) {
        if (!is_tiler) return strdup("ERROR(tiled_product needs a tiler)");
        rc = lay_tiled_product(&R, A, T);
    } else {
        return strdup("ERROR(unknown op)");
    }
    if (rc) return err_str(op, rc);
    return layout_str(R);
}

/* Check every case of one op; print each failing line. Returns the number checked. */
static int g_checked_total;
static int check_op(const char *op) {
    load_vectors();
    int n = 0, bad = 0;
    for (int i = 0; i < g_ncases; ++i) {
        if (strcmp(g_cases[i].op, op) != 0) continue;
        n++;
        char *got = compute(&g_cases[i]);
        if (strcmp(got, g_cases[i].res) != 0) {
            bad++;
            cr_log_error("layout_vectors.txt:%d FAILED\n  line: %s\n  got:  %s", g_cases[i].lineno,
                         g_cases[i].line, got);
        }
        free(got);
    }
    cr_expect_eq(bad, 0, "%s: %d of %d oracle lines failed", op, bad, n);
    cr_expect_gt(n, 0, "no oracle lines for %s", op);
    return n;
}

/* expected count of op from the "# counts:" header */
static int header_count(const char *op) {
    char key[64];
    snprintf(key, sizeof key, " %s=", op);
    const char *p = strstr(g_counts, key);
    if (!p) return -1;
    return atoi(p + strlen(key));
}

#define ORACLE_TEST(opname)                                                   \
    Test(oracle, opname) {                                                    \
        int n = check_op(#opname);                                            \
        cr_expect_eq(n, header_count(#opname), "count of %s lines", #opname); \
    }

ORACLE_TEST(size)
ORACLE_TEST(cosize)
ORACLE_TEST(rank)
ORACLE_TEST(crd2idx)
ORACLE_TEST(idx2crd)
ORACLE_TEST(coalesce)
ORACLE_TEST(filter)
ORACLE_TEST(composition)
ORACLE_TEST(complement)
ORACLE_TEST(right_inverse)
ORACLE_TEST(left_inverse)
ORACLE_TEST(logical_divide)
ORACLE_TEST(zipped_divide)
ORACLE_TEST(tiled_divide)
ORACLE_TEST(logical_product)
ORACLE_TEST(zipped_product)
ORACLE_TEST(tiled_product)
ORACLE_TEST(swizzle)
ORACLE_TEST(swizzle_layout)

/* Every line of the file belongs to a known op and all of them are checked. */
Test(oracle, every_line_checked) {
    load_vectors();
    static const char *ops[] = {
        "size",           "cosize",         "rank",          "crd2idx",       "idx2crd",
        "coalesce",       "filter",         "composition",   "complement",    "right_inverse",
        "left_inverse",   "logical_divide", "zipped_divide", "tiled_divide",  "logical_product",
        "zipped_product", "tiled_product",  "swizzle",       "swizzle_layout"};
    int known = 0;
    for (int i = 0; i < g_ncases; ++i) {
        int ok = 0;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k)
            if (strcmp(g_cases[i].op, ops[k]) == 0) ok = 1;
        if (!ok) cr_log_error("line %d: unknown op '%s'", g_cases[i].lineno, g_cases[i].op);
        known += ok;
    }
    cr_expect_eq(known, g_ncases);
    const char *t = strstr(g_counts, "total=");
    cr_assert_not_null(t);
    cr_expect_eq(g_ncases, atoi(t + 6), "lines %d vs header total", g_ncases);
    (void)g_checked_total;
}

/* Semantic cross-check of the layout results: same function as the expected string? (guards
 * against the parser/printer agreeing on a wrong thing) */
Test(oracle, results_parse_and_print_back) {
    load_vectors();
    for (int i = 0; i < g_ncases; ++i) {
        const char *r = g_cases[i].res;
        if (strchr(r, ':') == NULL) continue;
        lay_layout L;
        cr_expect_eq(lay_parse(r, &L), LAY_OK, "line %d result does not parse", g_cases[i].lineno);
        char *s = layout_str(L);
        cr_expect_str_eq(s, r, "line %d round trip", g_cases[i].lineno);
        free(s);
    }
}

/* ------------------------------------------------------------------ hand cases */
static lay_layout P(const char *s) {
    lay_layout L;
    int rc = lay_parse(s, &L);
    cr_assert_eq(rc, LAY_OK, "parse '%s': %s", s, lay_strerror(rc));
    return L;
}

static void expect_layout(lay_layout L, const char *want) {
    char *s = layout_str(L);
    cr_expect_str_eq(s, want);
    free(s);
}

Test(hand, complement) {
    lay_layout R;
    cr_assert_eq(lay_complement(&R, P("4:2"), 8), LAY_OK);
    expect_layout(R, "2:1");
    cr_assert_eq(lay_complement(&R, P("4:2"), 24), LAY_OK);
    expect_layout(R, "(2,3):(1,8)");
    cr_assert_eq(lay_complement(&R, P("(2,2):(1,6)"), 24), LAY_OK);
    expect_layout(R, "(3,2):(2,12)");
    /* overlapping layout: no complement (more in test_layout_tv.c) */
    cr_expect_eq(lay_complement(&R, P("(2,3):(3,2)"), 24), LAY_E_NOINV);
    cr_expect(!lay_valid(R));
    cr_expect_eq(lay_complement(&R, P("4:1"), 0), LAY_E_ARG);
}

Test(hand, coalesce) {
    lay_layout R;
    cr_assert_eq(lay_coalesce(&R, P("(2,1,6):(1,7,2)")), LAY_OK);
    expect_layout(R, "12:1");
    cr_assert_eq(lay_coalesce(&R, P("(4,6):(1,4)")), LAY_OK);
    expect_layout(R, "24:1");
}

Test(hand, composition) {
    lay_layout R;
    cr_assert_eq(lay_composition(&R, P("(6,2):(8,2)"), P("(4,3):(3,1)")), LAY_OK);
    expect_layout(R, "((2,2),3):((24,2),8)");
    cr_expect_eq(lay_composition(&R, P("(2,3):(4,1)"), P("(3,4):(3,1)")), LAY_E_DIVIDE);
    cr_expect(!lay_valid(R));
    cr_expect_eq(lay_size(R), 0);
    cr_expect_eq(lay_composition(&R, P("(3,4):(4,1)"), P("(3,4):(3,1)")), LAY_E_DIVIDE);
    cr_expect(!lay_valid(R));
    /* an invalid operand propagates as LAY_E_INVALID */
    lay_layout R2;
    cr_expect_eq(lay_composition(&R2, R, P("4:1")), LAY_E_INVALID);
    cr_expect_eq(lay_coalesce(&R2, R), LAY_E_INVALID);
    /* negative strides are refused by the algebra */
    cr_expect_eq(lay_composition(&R2, P("8:-1"), P("4:1")), LAY_E_STRIDE);
    /* tiler longer than the layout */
    lay_tiler T;
    cr_assert_eq(lay_parse_tiler("<2:1,2:1,2:1>", &T), LAY_OK);
    cr_expect_eq(lay_composition_tiler(&R2, P("(4,4):(1,4)"), T), LAY_E_RANK);
}

Test(hand, composition_is_function_composition) {
    const char *as[] = {"(6,2):(8,2)", "((2,4),(2,4)):((96,24),(1,6))", "(4,8):(8,1)",
                        "(128,32):(32,1)"};
    const char *bs[] = {"(4,3):(3,1)", "(4,(2,8)):(1,(32,4))", "(8,4):(4,1)", "(32,128):(1,32)"};
    for (int k = 0; k < 4; ++k) {
        lay_layout A = P(as[k]), B = P(bs[k]), R;
        int rc = lay_composition(&R, A, B);
        if (rc != LAY_OK) {
            cr_expect_eq(rc, LAY_E_DIVIDE);
            continue;
        }
        for (int i = 0; i < lay_size(B); ++i)
            cr_expect_eq(lay_crd2idx(R, i), lay_crd2idx(A, lay_crd2idx(B, i)), "%s o %s at %d",
                         as[k], bs[k], i);
    }
}

Test(hand, construction_errors) {
    lay_layout L;
    int s0[2] = {4, 0}, s1[2] = {4, -3}, d[2] = {1, 4};
    cr_expect_eq(lay_make(&L, 2, s0, d), LAY_E_ARG);
    cr_expect(!lay_valid(L));
    cr_expect_eq(lay_make(&L, 2, s1, d), LAY_E_ARG);
    cr_expect_eq(lay_make(&L, 0, s0, d), LAY_E_ARG);
    int big[LAY_MAX_LEAVES + 1];
    for (int i = 0; i <= LAY_MAX_LEAVES; ++i) big[i] = 1;
    cr_expect_eq(lay_make(&L, LAY_MAX_LEAVES + 1, big, NULL), LAY_E_LIMIT);
    int huge[2] = {65536, 65536};
    cr_expect_eq(lay_make(&L, 2, huge, NULL), LAY_E_LIMIT);
    cr_expect(!lay_valid(lay_l2(0, 4, 1, 1)));
    cr_expect(!lay_valid(lay_l1(-1, 1)));
    cr_expect_eq(lay_parse("(4,0):(1,4)", &L), LAY_E_ARG);
    cr_expect_eq(lay_parse("(4,8):(1)", &L), LAY_E_PARSE);
    cr_expect_eq(lay_parse("(4,8):(1,4", &L), LAY_E_PARSE);
    cr_expect_eq(lay_parse("(4,8):(1,4) junk", &L), LAY_E_PARSE);
    cr_expect_eq(lay_parse("(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)", &L), LAY_E_LIMIT);
    cr_expect(!lay_valid(L));
    int s[2] = {4, 8};
    cr_assert_eq(lay_make(&L, 2, s, NULL), LAY_OK);
    expect_layout(L, "(4,8):(1,4)");
    lay_layout M[2] = {P("4:1"), P("(2,3):(4,8)")};
    cr_assert_eq(lay_make_layout(&L, 2, M), LAY_OK);
    expect_layout(L, "(4,(2,3)):(1,(4,8))");
    cr_expect_eq(lay_get(&L, P("(4,8):(1,4)"), 2), LAY_E_ARG);
    cr_expect(!lay_valid(L));
}

/* LAY_TRY returns the first error from an int function, LAY_TRY_VOID returns from a void one:
 * the statements after a failed call do not run. */
static int try_two(int *reached, int rc1, int rc2) {
    LAY_TRY(rc1);
    *reached = 1;
    LAY_TRY(rc2);
    *reached = 2;
    return LAY_OK;
}
static void try_void(int *reached, int rc1) {
    LAY_TRY_VOID(rc1);
    *reached = 1;
}

Test(hand, lay_try) {
    int r = 0;
    cr_expect_eq(try_two(&r, LAY_OK, LAY_OK), LAY_OK);
    cr_expect_eq(r, 2);
    r = 0;
    cr_expect_eq(try_two(&r, LAY_OK, LAY_E_ARG), LAY_E_ARG);
    cr_expect_eq(r, 1);
    r = 0;
    cr_expect_eq(try_two(&r, LAY_E_DIVIDE, LAY_OK), LAY_E_DIVIDE);
    cr_expect_eq(r, 0);
    r = 0;
    try_void(&r, LAY_OK);
    cr_expect_eq(r, 1);
    r = 0;
    try_void(&r, LAY_E_ARG);
    cr_expect_eq(r, 0);
}

Test(hand, queries) {
    lay_layout L = P("(3,(2,3)):(3,(12,1))"), m;
    cr_expect_eq(lay_depth(L), 2);
    cr_expect_eq(lay_depth(P("8:2")), 0);
    cr_expect_eq(lay_depth(P("((2,2),(2,(2,2,2))):((96,24),(12,(48,1,6)))")), 3);
    cr_expect_eq(lay_rank(L), 2);
    cr_assert_eq(lay_get(&m, L, 1), LAY_OK);
    expect_layout(m, "(2,3):(12,1)");
    cr_assert_eq(lay_get(&m, P("8:2"), 0), LAY_OK);
    expect_layout(m, "8:2");
    lay_off c2[2] = {1, 5};
    cr_expect_eq(lay_crd2idx_modes(P("(4,(2,4)):(8,(1,2))"), c2), 8 + 1 + 4);
    lay_off c[2];
    cr_expect_eq(lay_idx2crd_modes(P("(4,8):(8,1)"), 13, c), 2);
    cr_expect_eq(c[0], 1);
    cr_expect_eq(c[1], 3);
    /* 64-bit offsets */
    lay_layout big = lay_l2(8192, 8192, 8192, 1);
    cr_expect_eq(lay_crd2idx2(big, 8191, 8191), 8191LL * 8192 + 8191);
    lay_layout wide = lay_l2(8192, 8192, 1 << 20, 1);
    cr_expect_eq(lay_crd2idx2(wide, 8191, 8191), 8191LL * (1 << 20) + 8191);
    cr_expect_eq(lay_crd2idx(wide, 8192LL * 8192 - 1), 8191LL * (1 << 20) + 8191);
}

Test(hand, slice) {
    lay_layout R;
    lay_off off;
    int c[2] = {LAY_FREE, 3};
    cr_assert_eq(lay_slice(&R, &off, P("(4,8):(8,1)"), c), LAY_OK);
    expect_layout(R, "(4):(8)");
    cr_expect_eq(off, 3);
    int c2[2] = {2, LAY_FREE};
    cr_assert_eq(lay_slice(&R, &off, P("((2,2),(4,2)):((1,8),(2,16))"), c2), LAY_OK);
    expect_layout(R, "((4,2)):((2,16))");
    cr_expect_eq(off, 8);
    int c3[2] = {4, LAY_FREE};
    cr_expect_eq(lay_slice(&R, &off, P("(4,8):(8,1)"), c3), LAY_E_ARG);
}

Test(hand, swizzle_facts) {
    lay_swizzle a, b;
    cr_assert_eq(lay_swizzle_make(&a, 3, 4, 3), LAY_OK);
    cr_assert_eq(lay_swizzle_make(&b, 3, 2, 3), LAY_OK);
    cr_expect_eq(lay_swizzle_apply(a, 32), 32);
    cr_expect_eq(lay_swizzle_apply(a, 128), 144);
    cr_expect_eq(lay_swizzle_apply(b, 32), 36);
    for (int x = 0; x < 256; ++x)
        cr_expect_eq(lay_swizzle_apply(b, x) * 4, lay_swizzle_apply(a, 4 * x), "x=%d", x);
    /* bijection on one tile */
    int seen[1024] = {0};
    for (int x = 0; x < 1024; ++x) seen[lay_swizzle_apply(a, x)]++;
    for (int x = 0; x < 1024; ++x) cr_expect_eq(seen[x], 1);
    /* negative S from the oracle notation */
    lay_swizzle n;
    cr_assert_eq(lay_parse_swizzle("Sw<2,2,-2>", &n), LAY_OK);
    cr_expect_eq(lay_swizzle_apply(n, 4), 20);
    cr_expect_eq(lay_swizzle_make(&n, -1, 0, 3), LAY_E_ARG);
}

/* 8x8 tensor, 4x4 tiles, 2x2 thread layout: every element owned by exactly one (tile, thread) */
Test(hand, local_tile_partition_ownership) {
    int data[64];
    for (int i = 0; i < 64; ++i) data[i] = i;
    lay_tensor t = lay_make_tensor(data, P("(8,8):(1,8)"));
    int owned[64] = {0};
    lay_tiler T = lay_tiler2(4, 4);
    lay_layout thr = P("(2,2):(1,2)");
    for (int bi = 0; bi < 2; ++bi)
        for (int bj = 0; bj < 2; ++bj) {
            int coord[2] = {bi, bj};
            lay_tensor g;
            cr_assert_eq(lay_local_tile(&g, t, T, coord, LAY_PROJ_ALL), LAY_OK);
            expect_layout(g.layout, "(4,4):(1,8)");
            cr_expect_eq(g.off, bi * 4 + bj * 32);
            for (int th = 0; th < 4; ++th) {
                lay_tensor p;
                cr_assert_eq(lay_local_partition(&p, g, thr, th, LAY_PROJ_ALL), LAY_OK);
                expect_layout(p.layout, "(2,2):(2,16)");
                /* thread th = (th%2, th/2) owns rows th%2 + 2i, cols th/2 + 2j of the tile */
                cr_expect_eq(p.off, g.off + (th % 2) + 8 * (th / 2));
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 2; ++j) owned[LAY_AT2(p, int, i, j)]++;
            }
        }
    for (int i = 0; i < 64; ++i)
        cr_expect_eq(owned[i], 1, "element %d owned %d times", i, owned[i]);
}

/* sgemm-tutorial shapes: local_tile with a projection and a free k mode */
Test(hand, local_tile_projection) {
    float A[1];
    int M = 256, K = 96, lda = 100;
    lay_tensor mA = lay_make_tensor(A, lay_l2(M, K, lda, 1));
    lay_tiler cta = lay_tiler3(128, 64, 32);
    int coord[3] = {1, 0, LAY_FREE};
    lay_tensor gA;
    cr_assert_eq(lay_local_tile(&gA, mA, cta, coord, 0x5u), LAY_OK);
    expect_layout(gA.layout, "(128,32,3):(100,1,32)");
    cr_expect_eq(gA.off, 128 * 100);
    /* thread layout (32,8) column-major; thread 37 -> (5,1) */
    lay_tensor tAgA;
    cr_assert_eq(lay_local_partition(&tAgA, gA, P("(32,8):(1,32)"), 37, LAY_PROJ_ALL), LAY_OK);
    expect_layout(tAgA.layout, "(4,4,3):(3200,8,32)");
    cr_expect_eq(tAgA.off, 128 * 100 + 5 * 100 + 1);
    /* projection Step<_1,X>: rows of a 16x16 thread grid (tC column-major) */
    lay_tensor sA = lay_make_tensor(A, P("(128,32):(1,128)")), tCsA;
    cr_assert_eq(lay_local_partition(&tCsA, sA, P("(16,16):(1,16)"), 37, 0x1u), LAY_OK);
    expect_layout(tCsA.layout, "(8,32):(16,128)");
    cr_expect_eq(tCsA.off, 37 % 16);
    lay_tensor bad;
    cr_expect_eq(lay_local_tile(&bad, mA, cta, coord, 0u), LAY_E_ARG);
}

Test(hand, blocked_raked_product) {
    lay_layout A = P("(2,5):(5,1)"), B = P("(3,4):(1,3)"), R;
    cr_assert_eq(lay_blocked_product(&R, A, B), LAY_OK);
    expect_layout(R, "(6,(5,4)):(5,(1,30))");
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 20; ++j)
            cr_expect_eq(lay_crd2idx2(R, i, j),
                         lay_crd2idx2(A, i % 2, j % 5) + 10 * lay_crd2idx2(B, i / 2, j / 5));
    cr_assert_eq(lay_raked_product(&R, A, B), LAY_OK);
    expect_layout(R, "((3,2),(4,5)):((10,5),(30,1))");
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 20; ++j)
            cr_expect_eq(lay_crd2idx2(R, i, j),
                         lay_crd2idx2(A, i / 3, j / 4) + 10 * lay_crd2idx2(B, i % 3, j % 4));
    /* rank padding: 1-D block times 2-D arrangement */
    cr_assert_eq(lay_blocked_product(&R, P("4:1"), P("(2,3):(1,2)")), LAY_OK);
    expect_layout(R, "(8,3):(1,8)");
}

Test(hand, inverses) {
    lay_layout R;
    cr_assert_eq(lay_left_inverse(&R, P("4:2")), LAY_OK);
    for (int i = 0; i < 4; ++i) cr_expect_eq(lay_crd2idx(R, 2 * i), i);
    cr_expect_eq(lay_left_inverse(&R, P("(4,8):(0,1)")), LAY_E_NOINV);
    cr_expect(!lay_valid(R));
    cr_expect_eq(lay_left_inverse(&R, P("(2,3):(3,2)")), LAY_E_NOINV);
    /* right inverse skips stride-0 modes (CuTe C++) */
    cr_assert_eq(lay_right_inverse(&R, P("(4,8):(0,1)")), LAY_OK);
    expect_layout(R, "8:4");
    /* property on the mma A TV layout */
    lay_layout tv = lay_tv_mma_m16n8k16_a();
    cr_assert_eq(lay_right_inverse(&R, tv), LAY_OK);
    for (int i = 0; i < lay_size(R); ++i) cr_expect_eq(lay_crd2idx(tv, lay_crd2idx(R, i)), i);
}

Test(hand, printing) {
    char buf[256];
    lay_sprint(buf, sizeof buf, P("((4)):((3))"));
    cr_expect_str_eq(buf, "((4)):((3))");
    lay_sprint_crd(buf, sizeof buf, P("(3,(2,3)):(1,(3,6))"), 4);
    cr_expect_str_eq(buf, "(1,(1,0))");
    lay_tiler T;
    cr_assert_eq(lay_parse_tiler("< 3:3 , (2,4):(1,8) >", &T), LAY_OK);
    lay_sprint_tiler(buf, sizeof buf, T);
    cr_expect_str_eq(buf, "<3:3,(2,4):(1,8)>");
    cr_expect_eq(lay_sprint(buf, 4, P("(4,8):(8,1)")), 11);
    cr_expect_str_eq(buf, "(4,");
    lay_layout inval = lay_l1(0, 0);
    cr_expect_eq(lay_sprint(buf, sizeof buf, inval), -1);
    /* a 2-D table and gnuplot data */
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    cr_assert_eq(lay_print_table(f, P("(2,3):(3,1)")), 0);
    cr_assert_eq(lay_print_gnuplot(f, P("(2,3):(3,1)")), 0);
    fclose(f);
    cr_expect(strstr(mem, "| 0 | 1 | 2 |") != NULL, "%s", mem);
    cr_expect(strstr(mem, "1 2 5\n") != NULL, "%s", mem);
    cr_expect(strncmp(mem, "(2,3):(3,1)\n", 12) == 0, "the table's first line is the layout: %s",
              mem);
    free(mem);
    /* the cells alone: no title line; the column header has no trailing blank */
    f = open_memstream(&mem, &len);
    cr_assert_eq(lay_print_cells(f, P("(2,3):(3,1)")), 0);
    fclose(f);
    cr_expect(strstr(mem, "(2,3)") == NULL, "%s", mem);
    cr_expect(strncmp(mem, "     0   1   2\n   +---+---+---+\n 0 | 0 | 1 | 2 |\n", 46) == 0, "%s",
              mem);
    free(mem);
}

/* ------------------------------------------------------------------ Tensor Core TV layouts */
static void tv_mk(lay_layout tv, int rows, int t, int v, int *r, int *c) {
    lay_off idx = lay_crd2idx2(tv, t, v);
    *r = (int)(idx % rows);
    *c = (int)(idx / rows);
}

Test(tv, mma_a) {
    lay_layout tv = lay_tv_mma_m16n8k16_a();
    expect_layout(tv, "((4,8),(2,2,2)):((32,1),(16,8,128))");
    int seen[256] = {0};
    for (int t = 0; t < 32; ++t)
        for (int v = 0; v < 8; ++v) {
            int r, c;
            tv_mk(tv, 16, t, v, &r, &c);
            int er = t / 4 + 8 * ((v / 2) % 2), ec = 2 * (t % 4) + v % 2 + 8 * (v / 4);
            cr_expect(r == er && c == ec, "A t=%d v=%d: (%d,%d) want (%d,%d)", t, v, r, c, er, ec);
            seen[r + 16 * c]++;
        }
    for (int i = 0; i < 256; ++i) cr_expect_eq(seen[i], 1);
    static const int lane0[8][2] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}, {0, 8}, {0, 9}, {8, 8}, {8, 9}};
    for (int v = 0; v < 8; ++v) {
        int r, c;
        tv_mk(tv, 16, 0, v, &r, &c);
        cr_expect(r == lane0[v][0] && c == lane0[v][1]);
    }
}

Test(tv, mma_b) {
    lay_layout tv = lay_tv_mma_m16n8k16_b();
    int seen[128] = {0};
    for (int t = 0; t < 32; ++t)
        for (int v = 0; v < 4; ++v) {
            int n, k;
            tv_mk(tv, 8, t, v, &n, &k); /* (N,K) column-major: n + 8k */
            int ek = 2 * (t % 4) + v % 2 + 8 * (v / 2), en = t / 4;
            cr_expect(n == en && k == ek, "B t=%d v=%d: (n%d,k%d) want (n%d,k%d)", t, v, n, k, en,
                      ek);
            seen[n + 8 * k]++;
        }
    for (int i = 0; i < 128; ++i) cr_expect_eq(seen[i], 1);
}

Test(tv, mma_c) {
    lay_layout tv = lay_tv_mma_m16n8k16_c();
    int seen[128] = {0};
    for (int t = 0; t < 32; ++t)
        for (int v = 0; v < 4; ++v) {
            int m, n;
            tv_mk(tv, 16, t, v, &m, &n);
            int em = t / 4 + 8 * (v / 2), en = 2 * (t % 4) + v % 2;
            cr_expect(m == em && n == en, "C t=%d v=%d: (%d,%d) want (%d,%d)", t, v, m, n, em, en);
            seen[m + 16 * n]++;
        }
    for (int i = 0; i < 128; ++i) cr_expect_eq(seen[i], 1);
}

Test(tv, ldmatrix_x4) {
    /* dst of ldmatrix.x4 (in its own matrices' space), taken through the algebra into the A
   * operand's (M,K) space, is the mma A fragment; the source rows (test_layout_tv.c derives
   * them) are lane t -> row t%8 of matrix t/8, 8 elements along k */
    lay_layout src;
    cr_assert_eq(lay_ldmatrix_retile(&src, 4, 0, lay_tv_mma_m16n8k16_a()), LAY_OK);
    int seen[256] = {0};
    for (int t = 0; t < 32; ++t)
        for (int v = 0; v < 8; ++v) {
            int m, k, j = t / 8;
            tv_mk(src, 16, t, v, &m, &k);
            int em = 8 * (j % 2) + t % 8, ek = 8 * (j / 2) + v;
            cr_expect(m == em && k == ek, "ldsm src t=%d v=%d", t, v);
            seen[m + 16 * k]++;
        }
    for (int i = 0; i < 256; ++i) cr_expect_eq(seen[i], 1);
}

/* The flat fast path of local_tile / local_partition (the one the GPU uses) gives exactly the
 * generic algebra's answer. */
Test(hand, local_tile_partition_fast_equals_generic) {
    unsigned seed = 12345;
#define RND(n) ((int)((seed = seed * 1103515245u + 12345u) >> 16) % (n))
    int checked = 0;
    for (int it = 0; it < 400; ++it) {
        int r = 1 + RND(3);
        int s[3], d[3];
        for (int i = 0; i < r; ++i) {
            s[i] = 1 + RND(40);
            d[i] = RND(3) == 0 ? 0 : 1 + RND(100);
        }
        lay_layout A;
        cr_assert_eq(lay_make(&A, r, s, d), LAY_OK);
        lay_tensor t = lay_make_tensor(NULL, A);
        int rt = 1 + RND(3);
        lay_layout tm[3];
        int coord[3];
        for (int i = 0; i < rt; ++i) {
            tm[i] = lay_l1(1 + RND(9), 1);
            coord[i] = RND(3) == 0 ? LAY_FREE : RND(4);
        }
        lay_tiler T;
        cr_assert_eq(lay_tiler_make(&T, rt, tm), LAY_OK);
        unsigned proj = (unsigned)(1 + RND(7));
        lay_tensor f, g;
        int rcf = 0, rcg;
        int handled = lay__local_tile_flat(&f, t, T, coord, proj, &rcf);
        rcg = lay__local_tile_generic(&g, t, T, coord, proj);
        if (handled) {
            cr_expect_eq(rcf, rcg, "tile it %d: fast %d generic %d", it, rcf, rcg);
            if (rcf == LAY_OK && rcg == LAY_OK) {
                char *a = layout_str(f.layout), *b = layout_str(g.layout);
                cr_expect_str_eq(a, b, "tile it %d", it);
                cr_expect_eq(f.off, g.off, "tile it %d", it);
                free(a);
                free(b);
                checked++;
            }
        }
        int ts[3], td[3];
        int rth = 1 + RND(3);
        for (int i = 0; i < rth; ++i) {
            ts[i] = 1 + RND(6);
            td[i] = RND(4);
        }
        lay_layout thr;
        cr_assert_eq(lay_make(&thr, rth, ts, td), LAY_OK);
        int idx = RND(50);
        handled = lay__local_partition_flat(&f, t, thr, idx, proj, &rcf);
        rcg = lay__local_partition_generic(&g, t, thr, idx, proj);
        if (handled) {
            cr_expect_eq(rcf, rcg, "partition it %d: fast %d generic %d", it, rcf, rcg);
            if (rcf == LAY_OK && rcg == LAY_OK) {
                char *a = layout_str(f.layout), *b = layout_str(g.layout);
                cr_expect_str_eq(a, b, "partition it %d", it);
                cr_expect_eq(f.off, g.off, "partition it %d", it);
                free(a);
                free(b);
                checked++;
            }
        }
    }
    cr_expect_gt(checked, 200);
#undef RND
}
