/* layout_print.c -- see layout_print.h. Host only, C11. */
#include "layout_print.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---------- a tiny bounded string builder ---------- */
typedef struct {
    char *buf;
    size_t cap;
    size_t len; /* full length, may exceed cap */
} sbuf;

static void sb_putc(sbuf *b, char c) {
    if (b->buf && b->len + 1 < b->cap) b->buf[b->len] = c;
    b->len++;
}
static void sb_puts(sbuf *b, const char *s) {
    while (*s) sb_putc(b, *s++);
}
static void sb_putll(sbuf *b, long long v) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", v);
    sb_puts(b, tmp);
}
static int sb_end(sbuf *b) {
    if (b->buf && b->cap > 0) b->buf[b->len < b->cap ? b->len : b->cap - 1] = '\0';
    return (int)b->len;
}

/* Emit the nesting of L with leaf k printed as vals[k]. */
static void emit_tree(sbuf *b, const lay_layout *L, const long long *vals) {
    int leaf = 0;
    for (int k = 0; k < L->ntok; ++k) {
        int t = L->tok[k];
        if (t != LAY_TOK_CLOSE && k > 0 && L->tok[k - 1] != LAY_TOK_OPEN) sb_putc(b, ',');
        if (t == LAY_TOK_OPEN) sb_putc(b, '(');
        else if (t == LAY_TOK_CLOSE) sb_putc(b, ')');
        else sb_putll(b, vals[leaf++]);
    }
}

static void emit_layout(sbuf *b, const lay_layout *L) {
    long long v[LAY_MAX_LEAVES];
    for (int i = 0; i < L->n; ++i) v[i] = L->shape[i];
    emit_tree(b, L, v);
    sb_putc(b, ':');
    for (int i = 0; i < L->n; ++i) v[i] = L->stride[i];
    emit_tree(b, L, v);
}

int lay_sprint(char *buf, size_t n, lay_layout L) {
    sbuf b = {buf, n, 0};
    if (!lay_valid(L)) {
        sb_puts(&b, "<invalid>");
        sb_end(&b);
        return -1;
    }
    emit_layout(&b, &L);
    return sb_end(&b);
}

int lay_sprint_shape(char *buf, size_t n, lay_layout L) {
    sbuf b = {buf, n, 0};
    if (!lay_valid(L)) {
        sb_puts(&b, "<invalid>");
        sb_end(&b);
        return -1;
    }
    long long v[LAY_MAX_LEAVES];
    for (int i = 0; i < L.n; ++i) v[i] = L.shape[i];
    emit_tree(&b, &L, v);
    return sb_end(&b);
}

int lay_sprint_tiler(char *buf, size_t n, lay_tiler T) {
    sbuf b = {buf, n, 0};
    if (!lay_valid(T.l)) {
        sb_puts(&b, "<invalid>");
        sb_end(&b);
        return -1;
    }
    int r = lay_rank(T.l);
    sb_putc(&b, '<');
    for (int i = 0; i < r; ++i) {
        lay_layout m;
        if (lay_get(&m, T.l, i) != LAY_OK) return -1;
        if (i) sb_putc(&b, ',');
        emit_layout(&b, &m);
    }
    sb_putc(&b, '>');
    return sb_end(&b);
}

int lay_sprint_crd(char *buf, size_t n, lay_layout L, lay_off i) {
    sbuf b = {buf, n, 0};
    if (!lay_valid(L)) {
        sb_puts(&b, "<invalid>");
        sb_end(&b);
        return -1;
    }
    lay_off c[LAY_MAX_LEAVES];
    long long v[LAY_MAX_LEAVES];
    lay_idx2crd(L, i, c);
    for (int k = 0; k < L.n; ++k) v[k] = c[k];
    emit_tree(&b, &L, v);
    return sb_end(&b);
}

int lay_fprint(FILE *f, lay_layout L) {
    char tmp[1024];
    int len = lay_sprint(tmp, sizeof tmp, L);
    if (len < 0) return -1;
    if ((size_t)len >= sizeof tmp) {
        char *big = (char *)malloc((size_t)len + 1);
        if (!big) return -1;
        lay_sprint(big, (size_t)len + 1, L);
        fputs(big, f);
        free(big);
    } else {
        fputs(tmp, f);
    }
    return 0;
}

/* ---------- 2-D views ---------- */

/* rows/cols of a rank-1 or rank-2 layout */
static int dims2(lay_layout L, int *rows, int *cols) {
    if (!lay_valid(L)) return LAY_E_INVALID;
    int r = lay_rank(L);
    lay_layout m;
    if (r == 1) {
        *rows = lay_size(L);
        *cols = 1;
        return LAY_OK;
    }
    if (r != 2) return LAY_E_RANK;
    if (lay_get(&m, L, 0) != LAY_OK) return LAY_E_INVALID;
    *rows = lay_size(m);
    if (lay_get(&m, L, 1) != LAY_OK) return LAY_E_INVALID;
    *cols = lay_size(m);
    return LAY_OK;
}

static lay_off at2(lay_layout L, int i, int j) {
    if (lay_rank(L) == 1) return lay_crd2idx(L, i);
    return lay_crd2idx2(L, i, j);
}

int lay_print_cells(FILE *f, lay_layout L) {
    int rows, cols;
    int rc = dims2(L, &rows, &cols);
    if (rc != LAY_OK) return rc;
    int w = 1;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            char t[32];
            int len = snprintf(t, sizeof t, "%lld", at2(L, i, j));
            if (len > w) w = len;
        }
    char t[32];
    int rw = snprintf(t, sizeof t, "%d", rows - 1);
    fprintf(f, "%*s ", rw + 1, "");
    for (int j = 0; j < cols; ++j) fprintf(f, j + 1 < cols ? " %*d " : " %*d", w + 1, j);
    fputc('\n', f);
    for (int i = 0; i < rows; ++i) {
        fprintf(f, "%*s +", rw + 1, "");
        for (int j = 0; j < cols; ++j) {
            for (int k = 0; k < w + 2; ++k) fputc('-', f);
            fputc('+', f);
        }
        fputc('\n', f);
        fprintf(f, "%*d |", rw + 1, i);
        for (int j = 0; j < cols; ++j) fprintf(f, " %*lld |", w, at2(L, i, j));
        fputc('\n', f);
    }
    fprintf(f, "%*s +", rw + 1, "");
    for (int j = 0; j < cols; ++j) {
        for (int k = 0; k < w + 2; ++k) fputc('-', f);
        fputc('+', f);
    }
    fputc('\n', f);
    return 0;
}

int lay_print_table(FILE *f, lay_layout L) {
    int rows, cols;
    int rc = dims2(L, &rows, &cols);
    if (rc != LAY_OK) return rc;
    lay_fprint(f, L);
    fputc('\n', f);
    return lay_print_cells(f, L);
}

static int gnuplot_common(FILE *f, lay_layout L, const lay_swizzle *sw, lay_off base,
                          int bank_bytes) {
    int rows, cols;
    int rc = dims2(L, &rows, &cols);
    if (rc != LAY_OK) return rc;
    fputs("# ", f);
    if (sw) fprintf(f, "Sw<%d,%d,%d> o %lld o ", sw->b, sw->m, sw->s, base);
    lay_fprint(f, L);
    fprintf(f, "\n# row col %s\n", bank_bytes ? "bank" : "value");
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            lay_off v = base + at2(L, i, j);
            if (sw) v = lay_swizzle_apply(*sw, v);
            if (bank_bytes) v = (v * bank_bytes / 4) % 32;
            fprintf(f, "%d %d %lld\n", i, j, v);
        }
        fputc('\n', f);
    }
    return 0;
}

int lay_print_gnuplot(FILE *f, lay_layout L) { return gnuplot_common(f, L, NULL, 0, 0); }

int lay_print_swizzled_gnuplot(FILE *f, lay_swizzled S) {
    return gnuplot_common(f, S.layout, &S.sw, S.offset, 0);
}

int lay_print_bank_gnuplot(FILE *f, lay_layout L, const lay_swizzle *sw, int elem_bytes) {
    if (elem_bytes < 1) return LAY_E_ARG;
    return gnuplot_common(f, L, sw, 0, elem_bytes);
}

int lay_print_tv_gnuplot(FILE *f, lay_layout tv, lay_layout coord) {
    int rows, cols, nthr, nval;
    if (!lay_valid(tv) || !lay_valid(coord)) return LAY_E_INVALID;
    int rc = dims2(coord, &rows, &cols);
    if (rc != LAY_OK) return rc;
    if (lay_rank(tv) != 2) return LAY_E_RANK;
    rc = dims2(tv, &nthr, &nval);
    if (rc != LAY_OK) return rc;
    lay_off cos = lay_cosize(coord);
    int *inv = (int *)malloc(sizeof(int) * (size_t)cos);
    if (!inv) return LAY_E_LIMIT;
    for (lay_off k = 0; k < cos; ++k) inv[k] = -1;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            lay_off idx = at2(coord, i, j);
            if (idx >= 0 && idx < cos) inv[idx] = i * cols + j;
        }
    fputs("# TV ", f);
    lay_fprint(f, tv);
    fputs(" over ", f);
    lay_fprint(f, coord);
    fputs("\n# row col thread value\n", f);
    for (int t = 0; t < nthr; ++t)
        for (int v = 0; v < nval; ++v) {
            lay_off idx = lay_crd2idx2(tv, t, v);
            if (idx < 0 || idx >= cos || inv[idx] < 0) {
                free(inv);
                return LAY_E_ARG;
            }
            fprintf(f, "%d %d %d %d\n", inv[idx] / cols, inv[idx] % cols, t, v);
        }
    free(inv);
    return 0;
}

/* ---------- parsing ---------- */

static void skip_ws(const char **p) {
    while (**p && isspace((unsigned char)**p)) (*p)++;
}

static int parse_int(const char **p, long long *v) {
    skip_ws(p);
    const char *s = *p;
    int neg = 0;
    if (*s == '-' || *s == '+') neg = (*s++ == '-');
    if (!isdigit((unsigned char)*s)) return LAY_E_PARSE;
    long long x = 0;
    while (isdigit((unsigned char)*s)) {
        x = x * 10 + (*s++ - '0');
        if (x > INT_MAX) return LAY_E_LIMIT;
    }
    *v = neg ? -x : x;
    *p = s;
    return LAY_OK;
}

typedef struct {
    signed char tok[LAY_MAX_TOK];
    int ntok;
    long long v[LAY_MAX_LEAVES];
    int n;
} itree;

static int tree_tok(itree *t, int c) {
    if (t->ntok >= LAY_MAX_TOK) return LAY_E_LIMIT;
    t->tok[t->ntok++] = (signed char)c;
    return LAY_OK;
}

/* int tuple: INT | '(' tuple {',' tuple} ')' */
static int parse_itree(const char **p, itree *t, int depth) {
    skip_ws(p);
    if (depth > 16) return LAY_E_LIMIT;
    if (**p == '(') {
        (*p)++;
        LAY_TRY(tree_tok(t, LAY_TOK_OPEN));
        for (;;) {
            LAY_TRY(parse_itree(p, t, depth + 1));
            skip_ws(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p == ')') {
                (*p)++;
                break;
            }
            return LAY_E_PARSE;
        }
        return tree_tok(t, LAY_TOK_CLOSE);
    }
    long long v;
    LAY_TRY(parse_int(p, &v));
    if (t->n >= LAY_MAX_LEAVES) return LAY_E_LIMIT;
    t->v[t->n++] = v;
    return tree_tok(t, LAY_TOK_LEAF);
}

static int build(lay_layout *out, const itree *sh, const long long *st) {
    lay__clear(out);
    long long p = 1;
    for (int i = 0; i < sh->n; ++i) {
        if (sh->v[i] < 1) return LAY_E_ARG;
        p *= sh->v[i];
        if (p > INT_MAX) return LAY_E_LIMIT;
        if (st[i] > INT_MAX || st[i] < INT_MIN) return LAY_E_LIMIT;
        out->shape[i] = (int)sh->v[i];
        out->stride[i] = (int)st[i];
    }
    for (int k = 0; k < sh->ntok; ++k) out->tok[k] = sh->tok[k];
    out->ntok = sh->ntok;
    out->n = sh->n;
    return LAY_OK;
}

static int parse_layout_at(const char **p, lay_layout *out, int need_stride) {
    itree sh, st;
    memset(&sh, 0, sizeof sh);
    memset(&st, 0, sizeof st);
    lay__clear(out);
    int rc = parse_itree(p, &sh, 0);
    if (rc != LAY_OK) return rc;
    skip_ws(p);
    long long strides[LAY_MAX_LEAVES];
    if (**p == ':') {
        (*p)++;
        rc = parse_itree(p, &st, 0);
        if (rc != LAY_OK) return rc;
        if (st.ntok != sh.ntok || memcmp(st.tok, sh.tok, (size_t)sh.ntok) != 0) return LAY_E_PARSE;
        for (int i = 0; i < sh.n; ++i) strides[i] = st.v[i];
    } else {
        if (need_stride) return LAY_E_PARSE;
        long long q = 1;
        for (int i = 0; i < sh.n; ++i) {
            strides[i] = q;
            q *= sh.v[i] > 0 ? sh.v[i] : 1;
            if (q > INT_MAX) return LAY_E_LIMIT;
        }
    }
    rc = build(out, &sh, strides);
    if (rc != LAY_OK) lay__clear(out);
    return rc;
}

int lay_parse_prefix(const char **s, lay_layout *out) {
    if (!s || !*s || !out) return LAY_E_ARG;
    const char *p = *s;
    int rc = parse_layout_at(&p, out, 0);
    if (rc != LAY_OK) return rc;
    *s = p;
    return LAY_OK;
}

int lay_parse(const char *s, lay_layout *out) {
    if (!s || !out) return LAY_E_ARG;
    int rc = lay_parse_prefix(&s, out);
    if (rc != LAY_OK) return rc;
    skip_ws(&s);
    if (*s) {
        lay__clear(out);
        return LAY_E_PARSE;
    }
    return LAY_OK;
}

int lay_parse_tuple(const char *s, lay_layout *out) {
    if (!s || !out) return LAY_E_ARG;
    const char *p = s;
    int rc = parse_layout_at(&p, out, 0);
    if (rc != LAY_OK) return rc;
    skip_ws(&p);
    if (*p) {
        lay__clear(out);
        return LAY_E_PARSE;
    }
    return LAY_OK;
}

int lay_parse_tiler(const char *s, lay_tiler *out) {
    if (!s || !out) return LAY_E_ARG;
    lay_layout modes[LAY_MAX_RANK];
    int k = 0;
    lay__clear(&out->l);
    skip_ws(&s);
    if (*s != '<') return LAY_E_PARSE;
    s++;
    for (;;) {
        if (k >= LAY_MAX_RANK) return LAY_E_LIMIT;
        int rc = parse_layout_at(&s, &modes[k], 0);
        if (rc != LAY_OK) return rc;
        /* a bare integer n means n:1 (parse_layout_at already gives compact stride 1) */
        k++;
        skip_ws(&s);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '>') {
            s++;
            break;
        }
        return LAY_E_PARSE;
    }
    skip_ws(&s);
    if (*s) return LAY_E_PARSE;
    return lay_tiler_make(out, k, modes);
}

static int parse_sw_at(const char **p, lay_swizzle *out) {
    long long b, m, s;
    skip_ws(p);
    if (strncmp(*p, "Sw<", 3) != 0) return LAY_E_PARSE;
    *p += 3;
    LAY_TRY(parse_int(p, &b));
    skip_ws(p);
    if (**p != ',') return LAY_E_PARSE;
    (*p)++;
    LAY_TRY(parse_int(p, &m));
    skip_ws(p);
    if (**p != ',') return LAY_E_PARSE;
    (*p)++;
    LAY_TRY(parse_int(p, &s));
    skip_ws(p);
    if (**p != '>') return LAY_E_PARSE;
    (*p)++;
    return lay_swizzle_make(out, (int)b, (int)m, (int)s);
}

int lay_parse_swizzle(const char *s, lay_swizzle *out) {
    if (!s || !out) return LAY_E_ARG;
    int rc = parse_sw_at(&s, out);
    if (rc != LAY_OK) return rc;
    skip_ws(&s);
    return *s ? LAY_E_PARSE : LAY_OK;
}

int lay_parse_swizzled(const char *s, lay_swizzled *out) {
    if (!s || !out) return LAY_E_ARG;
    lay_swizzle sw;
    long long off;
    lay__clear(&out->layout);
    int rc = parse_sw_at(&s, &sw);
    if (rc != LAY_OK) return rc;
    skip_ws(&s);
    if (*s != 'o') return LAY_E_PARSE;
    s++;
    rc = parse_int(&s, &off);
    if (rc != LAY_OK) return rc;
    skip_ws(&s);
    if (*s != 'o') return LAY_E_PARSE;
    s++;
    lay_layout L;
    rc = lay_parse(s, &L);
    if (rc != LAY_OK) return rc;
    return lay_swizzled_make(out, sw, off, L);
}

/* ---------- thread/value grids ---------- */

/* Owner (thread, value) of every cell of coord: inv[cell] = t + nthr*v of the first (lowest
 * thread, then value) pair that reaches it, -1 if none. */
static int tv_owners(lay_layout tv, lay_layout coord, int *rows, int *cols, int *nthr, int *nval,
                     int **own) {
    if (!lay_valid(tv) || !lay_valid(coord)) return LAY_E_INVALID;
    int rc = dims2(coord, rows, cols);
    if (rc != LAY_OK) return rc;
    if (lay_rank(tv) != 2) return LAY_E_RANK;
    rc = dims2(tv, nthr, nval);
    if (rc != LAY_OK) return rc;
    lay_off cos = lay_cosize(coord);
    int *cell = (int *)malloc(sizeof(int) * (size_t)cos);
    int *o = (int *)malloc(sizeof(int) * (size_t)(*rows) * (size_t)(*cols));
    if (!cell || !o) {
        free(cell);
        free(o);
        return LAY_E_LIMIT;
    }
    for (lay_off k = 0; k < cos; ++k) cell[k] = -1;
    for (int i = 0; i < *rows; ++i)
        for (int j = 0; j < *cols; ++j) {
            lay_off idx = at2(coord, i, j);
            if (idx >= 0 && idx < cos) cell[idx] = i * *cols + j;
            o[i * *cols + j] = -1;
        }
    for (int v = 0; v < *nval; ++v)
        for (int t = 0; t < *nthr; ++t) {
            lay_off idx = lay_crd2idx2(tv, t, v);
            if (idx < 0 || idx >= cos || cell[idx] < 0) {
                free(cell);
                free(o);
                return LAY_E_ARG;
            }
            int c = cell[idx];
            if (o[c] < 0 || (o[c] % *nthr) > t) o[c] = t + *nthr * v;
        }
    free(cell);
    *own = o;
    return LAY_OK;
}

int lay_print_tv_grid(FILE *f, lay_layout tv, lay_layout coord) {
    int rows, cols, nthr, nval, *own = NULL;
    int rc = tv_owners(tv, coord, &rows, &cols, &nthr, &nval, &own);
    if (rc != LAY_OK) return rc;
    char t[32];
    int w = snprintf(t, sizeof t, "T%dV%d", nthr - 1, nval - 1);
    int rw = snprintf(t, sizeof t, "%d", rows - 1);
    fputs("TV ", f);
    lay_fprint(f, tv);
    fputs(" over ", f);
    lay_fprint(f, coord);
    fputs("   (cell: thread T, value V)\n", f);
    fprintf(f, "%*s ", rw, "");
    for (int j = 0; j < cols; ++j) fprintf(f, " %*d", w, j);
    fputc('\n', f);
    for (int i = 0; i < rows; ++i) {
        fprintf(f, "%*d ", rw, i);
        for (int j = 0; j < cols; ++j) {
            int o = own[i * cols + j];
            if (o < 0) {
                fprintf(f, " %*s", w, ".");
            } else {
                snprintf(t, sizeof t, "T%dV%d", o % nthr, o / nthr);
                fprintf(f, " %*s", w, t);
            }
        }
        fputc('\n', f);
    }
    free(own);
    return 0;
}

int lay_print_tv_threads(FILE *f, lay_layout tv, lay_layout coord, int first, int count) {
    int rows, cols, nthr, nval, *own = NULL;
    int rc = tv_owners(tv, coord, &rows, &cols, &nthr, &nval, &own);
    if (rc != LAY_OK) return rc;
    free(own);
    if (first < 0 || count < 0) return LAY_E_ARG;
    lay_off cos = lay_cosize(coord);
    int *cell = (int *)malloc(sizeof(int) * (size_t)cos);
    if (!cell) return LAY_E_LIMIT;
    for (lay_off k = 0; k < cos; ++k) cell[k] = -1;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            lay_off idx = at2(coord, i, j);
            if (idx >= 0 && idx < cos) cell[idx] = i * cols + j;
        }
    for (int t = first; t < first + count && t < nthr; ++t) {
        fprintf(f, "T%d:", t);
        for (int v = 0; v < nval; ++v) {
            int c = cell[lay_crd2idx2(tv, t, v)];
            fprintf(f, " (%d,%d)", c / cols, c % cols);
        }
        fputc('\n', f);
    }
    free(cell);
    return 0;
}
