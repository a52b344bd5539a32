/* harness.c - see harness.h. C11, compiled by gcc, linked with the nvcc-built lesson kernels,
 * harness_kernels.cu (seeded fills), the CUDA runtime and cuBLAS. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cublas_v2.h>

#include "check.h"
#include "harness_dev.h"
#include "harness_epilogue.h"

/* the commit of this build (harness_commit.c) */
extern const char harness_git_commit[];

/* ---- names ------------------------------------------------------------------------------ */

static const char *const dtype_names[GEMM_NDTYPES] = {"fp32", "fp16", "bf16"};
static const char *const layout_names[GEMM_NLAYOUTS] = {"TN", "NT", "NN", "TT"};

const char *harness_dtype_name(gemm_dtype d) {
    return (d >= 0 && d < GEMM_NDTYPES) ? dtype_names[d] : "?";
}
const char *harness_layout_name(gemm_layout l) {
    return (l >= 0 && l < GEMM_NLAYOUTS) ? layout_names[l] : "?";
}
size_t harness_dtype_size(gemm_dtype d) { return d == GEMM_FP32 ? 4 : 2; }

int harness_dtype_parse(const char *s) {
    for (int i = 0; i < GEMM_NDTYPES; ++i)
        if (strcmp(s, dtype_names[i]) == 0) return i;
    return -1;
}
int harness_layout_parse(const char *s) {
    for (int i = 0; i < GEMM_NLAYOUTS; ++i)
        if (strcmp(s, layout_names[i]) == 0) return i;
    return -1;
}

/* ---- options ---------------------------------------------------------------------------- */

static const int default_sweep[][3] = {
    {127, 127, 127},    /* smaller than most CTA tiles, odd everywhere */
    {1000, 1000, 1000}, /* not a multiple of 16, 32, 64 or 128 */
    {1021, 513, 2049},  /* M != N != K, all odd */
    {4093, 4093, 4093}, /* large and odd: every edge tile is partial */
    {4096, 4096, 4096}, /* the timing reference size */
};

int harness_default_sweep(harness_opts *o) {
    int n = (int)(sizeof default_sweep / sizeof default_sweep[0]);
    for (int i = 0; i < n; ++i) memcpy(o->sizes[i], default_sweep[i], sizeof o->sizes[i]);
    o->nsizes = n;
    return n;
}

/* The benchmark sweep (make bench, the charts): squares 256..8192 and non-square shapes. */
static int bench_sweep(harness_opts *o) {
    static const int extra[][3] = {{127, 127, 127},    {1000, 1000, 1000}, {4093, 4093, 4093},
                                   {4096, 4096, 1024}, {8192, 1024, 4096}, {1024, 8192, 4096}};
    int n = 0;
    for (int s = 256; s <= 8192; s *= 2, ++n) o->sizes[n][0] = o->sizes[n][1] = o->sizes[n][2] = s;
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i, ++n)
        memcpy(o->sizes[n], extra[i], sizeof o->sizes[n]);
    o->nsizes = n;
    return n;
}

/* set before harness_main by a lesson with a dispatcher (lesson 08); --help and --explain /
 * --tune read them */
static harness_explain_fn explain_fn; /* harness_set_explain */
static const harness_tuner *tuner;    /* harness_set_tuner */
void harness_set_explain(harness_explain_fn fn) { explain_fn = fn; }
void harness_set_tuner(const harness_tuner *t) { tuner = t; }

void harness_usage(FILE *f, const char *prog, const gemm_lesson *L) {
    /* the lesson's real defaults: its operand order(s), whether any variant has epilogues and
     * whether it has a dispatcher (without a lesson: the generic text, every option) */
    char lays[32] = "TN";
    int has_epi = !L, has_disp = !L || explain_fn || tuner;
    if (L && L->default_layouts) {
        size_t used = 0;
        for (int i = 0; i < GEMM_NLAYOUTS; ++i)
            if (L->default_layouts & GEMM_LAYOUT_BIT(i))
                used += (size_t)snprintf(lays + used, sizeof lays - used, "%s%s", used ? "," : "",
                                         layout_names[i]);
    }
    for (int i = 0; L && i < L->nvariants; ++i)
        if (L->variants[i].dtypes & (GEMM_EPI_ALL | GEMM_OUT_ALL)) has_epi = 1;
    fprintf(f,
            "usage: %s [options]\n"
            "Checks every kernel variant of this lesson against cuBLAS and times both.\n"
            "Without sizes it runs the default sweep (127^3, 1000^3, 1021x513x2049, 4093^3,\n"
            "4096^3); cases the kernels refuse there are skipped and named after the table.\n"
            "  --size MxNxK       problem size (repeatable, or comma-separated list);\n"
            "                     N alone means NxNxN (--size 4096); extents 1..65536\n"
            "  --m M --n N --k K  one problem size (an omitted extent equals the first given)\n"
            "  --sweep NAME       default | bench (squares 256..8192 plus odd/non-square)\n"
            "  --variant NAMES    variants, comma-separated (see --list; 'default' is the first),\n"
            "                     or 'all' (default: all; fp16-accumulating variants only when\n"
            "                     named)\n"
            "  --layout L         TN | NT | NN | TT | all, or a comma list (default here: %s)\n"
            "                     TN: A (M,K) and B (N,K) K-major, as x and W in F.linear(x, W);\n"
            "                     TT: A[M][K] and B[K][N] row-major (common/harness.h: all four)\n"
            "  --dtype D          fp32 | fp16 | bf16 | all, or a comma list\n"
            "                     (default: each variant's first supported type)\n"
            "  --alpha A --beta B scalars, applied in fp32 (default 1 and 0)\n"
            "  --iters N          timed runs, median reported (default 20)\n"
            "  --warmup N         untimed runs first (default 3)\n"
            "  --check-only       check, do not time\n"
            "  --pad P            add P elements to every leading dimension (default 0)\n"
            "  --offset E         offset A, B, C base pointers by E elements (default 0)\n"
            "  --init I           random | ones | int  operand values (default random)\n"
            "  --poison P         nan | inf  value C holds before a beta=0 run (default nan)\n"
            "  --seed S           random seed (default 1)\n"
            "  --csv FILE         append one row per result to FILE\n"
            "  --list             list the variants (the first is the default) and exit: name,\n"
            "                     input dtypes, operand orders, align N (lda, ldb, ldc and the\n"
            "                     A/B/C pointers must be multiples of N elements), summary\n"
            "  --help             this text\n",
            prog, lays);
    if (has_epi)
        fputs(
            "The epilogue: D = act(alpha*A*B^T + beta*C + bias), rounded once to the output\n"
            "dtype; checked against cuBLASLt's fused epilogue (or cuBLAS + a reference kernel)\n"
            "and timed against both, fused and unfused. The variants whose --list line says\n"
            "out: or epilogue: take these options:\n"
            "  --out D            output (and C) dtype: fp32 | fp16 | bf16 | all, or a comma list\n"
            "                     (default: fp32 for fp32 inputs, else the input dtype)\n"
            "  --epilogue E       none | bias | relu | bias_relu | gelu | bias_gelu | all, or a\n"
            "                     comma list (default none)\n"
            "  --bias-axis A      n (one bias per output column, as in F.linear) | m (one per\n"
            "                     row) | all (default n)\n"
            "  --gelu F           tanh (cuBLASLt's form, default) | erf\n"
            "  --bias-dtype D     fp32 | fp16 | bf16 (default: the output dtype)\n"
            "  --exact            every element must equal the references exactly (integer data:\n"
            "                     --init ones or int; the bias is then bias[i] = i)\n",
            f);
    else
        fputs("This lesson's variants have none of lesson 07's fused epilogues: its epilogue\n"
              "options (--out, --epilogue, ...: lesson 07's ./run --help) take only their\n"
              "defaults here.\n",
              f);
    if (has_disp)
        fputs("The dispatcher (lesson 08: the default variant picks a kernel per problem):\n"
              "  --explain          say which kernel the default variant picks for each case, and\n"
              "                     why; needs no GPU\n"
              "  --tune             time every candidate of the dispatcher for each case (each\n"
              "                     checked once): the winner, the runner-up, the default's pick\n"
              "  --tune-out FILE    with --tune: write the winners as a table for --tuned\n"
              "  --tuned FILE       the default variant runs FILE's entry for a problem it lists\n",
              f);
    else
        fputs("This lesson has no dispatcher: --explain, --tune and --tuned are lesson 08's.\n", f);
    fputs("Exit status: 0 all passed, 1 a check failed, 2 usage error or refused request,\n"
          "3 no usable CUDA device or a CUDA error.\n",
          f);
}

static int fail(char *err, size_t len, const char *fmt, const char *a, const char *b) {
    snprintf(err, len, fmt, a, b);
    return HARNESS_EXIT_USAGE;
}

/* Strict integer parse: the whole string, within [lo, hi]. */
static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_float(const char *s, float *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || fabs(v) > 3.0e38) return -1;
    *out = (float)v;
    return 0;
}

#define HARNESS_MAX_EXTENT 65536L

/* "MxNxK" -> three extents in [1, HARNESS_MAX_EXTENT]; a single extent "N" means NxNxN (as
 * --m N alone does). Two extents, four, an empty one ("4xx4") or anything else: -1. */
static int parse_size(const char *s, int out[3]) {
    char buf[96];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *tok = buf;; ++n) {
        char *x = strchr(tok, 'x');
        if (x) *x = '\0';
        long v;
        if (n == 3 || parse_int(tok, 1, HARNESS_MAX_EXTENT, &v)) return -1;
        out[n] = (int)v;
        if (!x) break;
        tok = x + 1;
    }
    if (n == 0) out[1] = out[2] = out[0];
    else if (n != 2) return -1;
    return 0;
}

/* Comma list of names -> bitmask through parse(); "all" -> all_mask. Sets *single when the
 * list names exactly one value. */
static int parse_mask(const char *s, int (*parse)(const char *), unsigned all_mask, unsigned *mask,
                      int *single, int *all) {
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    if (strcmp(s, "all") == 0) {
        *mask = all_mask;
        *single = 0;
        *all = 1;
        return 0;
    }
    strcpy(buf, s);
    unsigned m = 0;
    int count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int v = parse(tok);
        if (v < 0) return -1;
        m |= 1u << v;
        ++count;
    }
    if (!count) return -1;
    *mask = m;
    *single = (count == 1);
    *all = 0;
    return 0;
}

static int bias_axis_parse(const char *s) {
    return !strcmp(s, "n") ? GEMM_BIAS_N : !strcmp(s, "m") ? GEMM_BIAS_M : -1;
}

/* The epilogue's options (--out, --epilogue, --bias-axis, --gelu, --bias-dtype): -1 when name
 * is none of them, 0 when parsed, HARNESS_EXIT_USAGE with one line in err when val is bad. */
static int parse_epilogue_option(const char *name, const char *val, harness_opts *o, char *err,
                                 size_t errlen) {
    int single, all, d;
    if (!strcmp(name, "--out")) {
        if (parse_mask(val, harness_dtype_parse, GEMM_DT_ALL, &o->outs, &single, &o->out_all))
            return fail(err, errlen, "bad --out '%s': expected fp32, fp16, bf16 or all%s", val, "");
    } else if (!strcmp(name, "--epilogue")) {
        if (parse_mask(val, harness_epi_parse, (1u << GEMM_NEPIS) - 1u, &o->epis, &single,
                       &o->epi_all))
            return fail(err, errlen,
                        "bad --epilogue '%s': expected none, bias, relu, bias_relu, gelu, "
                        "bias_gelu or all%s",
                        val, "");
    } else if (!strcmp(name, "--bias-axis")) {
        if (parse_mask(val, bias_axis_parse, 3u, &o->bias_axes, &single, &all))
            return fail(err, errlen, "bad --bias-axis '%s': expected n, m or all%s", val, "");
    } else if (!strcmp(name, "--gelu")) {
        if (!strcmp(val, "tanh")) o->gelu = GEMM_GELU_TANH;
        else if (!strcmp(val, "erf")) o->gelu = GEMM_GELU_ERF;
        else return fail(err, errlen, "bad --gelu '%s': expected tanh or erf%s", val, "");
    } else if (!strcmp(name, "--bias-dtype")) {
        if ((d = harness_dtype_parse(val)) < 0)
            return fail(err, errlen, "bad --bias-dtype '%s': expected fp32, fp16 or bf16%s", val,
                        "");
        o->bias_dtype = d;
    } else {
        return -1;
    }
    return 0;
}

int harness_parse(int argc, char **argv, harness_opts *o, char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    o->bias_dtype = -1;
    o->alpha = 1.0f;
    o->beta = 0.0f;
    o->iters = 20;
    o->warmup = 3;
    o->seed = 1;
    int mnk[3] = {0, 0, 0};
    int sweep_given = 0;
    err[0] = '\0';
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        char name[64];
        const char *val = NULL;
        if (!strcmp(arg, "-h")) arg = "--help";
        if (strncmp(arg, "--", 2) != 0)
            return fail(err, errlen, "unexpected argument '%s' (options start with --)%s", arg, "");
        const char *eq = strchr(arg, '=');
        size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof name) return fail(err, errlen, "unknown option '%s'%s", arg, "");
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        /* options without a value */
        if (!strcmp(name, "--help") || !strcmp(name, "--check-only") || !strcmp(name, "--list") ||
            !strcmp(name, "--explain") || !strcmp(name, "--exact") || !strcmp(name, "--tune")) {
            if (eq) return fail(err, errlen, "option %s takes no value%s", name, "");
            if (!strcmp(name, "--help")) o->help = 1;
            else if (!strcmp(name, "--list")) o->list = 1;
            else if (!strcmp(name, "--explain")) o->explain = 1;
            else if (!strcmp(name, "--exact")) o->exact = 1;
            else if (!strcmp(name, "--tune")) o->tune = 1;
            else o->check_only = 1;
            continue;
        }
        static const char *const with_value[] = {
            "--size",      "--m",      "--n",          "--k",        "--sweep",
            "--variant",   "--layout", "--dtype",      "--alpha",    "--beta",
            "--iters",     "--warmup", "--pad",        "--offset",   "--init",
            "--poison",    "--seed",   "--csv",        "--out",      "--epilogue",
            "--bias-axis", "--gelu",   "--bias-dtype", "--tune-out", "--tuned"};
        int known = 0;
        for (size_t j = 0; j < sizeof with_value / sizeof with_value[0]; ++j)
            known |= !strcmp(name, with_value[j]);
        if (!known) return fail(err, errlen, "unknown option '%s'%s", name, "");
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return fail(err, errlen, "option %s needs a value%s", name, "");

        long v;
        int erc = parse_epilogue_option(name, val, o, err, errlen);
        if (erc >= 0) {
            if (erc) return erc;
        } else if (!strcmp(name, "--size")) {
            char buf[1024];
            if (strlen(val) >= sizeof buf) return fail(err, errlen, "bad --size '%s'%s", val, "");
            strcpy(buf, val);
            char *save = NULL;
            for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (o->nsizes >= HARNESS_MAX_SIZES)
                    return fail(err, errlen, "too many sizes (at most %s)%s", "64", "");
                if (parse_size(tok, o->sizes[o->nsizes]))
                    return fail(err, errlen,
                                "bad --size '%s': expected MxNxK, or N for NxNxN, each extent in "
                                "1..65536%s",
                                tok, "");
                ++o->nsizes;
            }
        } else if (!strcmp(name, "--m") || !strcmp(name, "--n") || !strcmp(name, "--k")) {
            if (parse_int(val, 1, HARNESS_MAX_EXTENT, &v))
                return fail(err, errlen, "bad %s '%s': expected an integer in 1..65536", name, val);
            mnk[name[2] == 'm' ? 0 : name[2] == 'n' ? 1 : 2] = (int)v;
        } else if (!strcmp(name, "--sweep")) {
            if (!strcmp(val, "default")) sweep_given = 1;
            else if (!strcmp(val, "bench")) sweep_given = 2;
            else return fail(err, errlen, "bad --sweep '%s': expected default or bench%s", val, "");
        } else if (!strcmp(name, "--variant")) {
            if (strlen(val) >= sizeof o->variant)
                return fail(err, errlen, "bad --variant '%s'%s", val, "");
            if (strcmp(val, "all") != 0) strcpy(o->variant, val);
        } else if (!strcmp(name, "--layout")) {
            if (parse_mask(val, harness_layout_parse, GEMM_LAYOUT_ALL, &o->layouts,
                           &o->explicit_layout, &o->layout_all))
                return fail(err, errlen, "bad --layout '%s': expected TN, NT, NN, TT or all%s", val,
                            "");
        } else if (!strcmp(name, "--dtype")) {
            if (parse_mask(val, harness_dtype_parse, GEMM_DT_ALL, &o->dtypes, &o->explicit_dtype,
                           &o->dtype_all))
                return fail(err, errlen, "bad --dtype '%s': expected fp32, fp16, bf16 or all%s",
                            val, "");
        } else if (!strcmp(name, "--alpha") || !strcmp(name, "--beta")) {
            float f;
            if (parse_float(val, &f))
                return fail(
                    err, errlen,
                    "bad %s '%s': expected a finite number within fp32's range (|x| <= 3e38)", name,
                    val);
            if (name[2] == 'a') o->alpha = f;
            else o->beta = f;
        } else if (!strcmp(name, "--iters") || !strcmp(name, "--warmup")) {
            long lo = name[2] == 'i' ? 1 : 0;
            if (parse_int(val, lo, 100000, &v))
                return fail(err, errlen,
                            lo ? "bad %s '%s': expected an integer in 1..100000"
                               : "bad %s '%s': expected an integer in 0..100000",
                            name, val);
            if (name[2] == 'i') o->iters = (int)v;
            else o->warmup = (int)v;
        } else if (!strcmp(name, "--pad") || !strcmp(name, "--offset")) {
            if (parse_int(val, 0, 4096, &v))
                return fail(err, errlen, "bad %s '%s': expected an integer in 0..4096", name, val);
            if (name[2] == 'p') o->pad = (int)v;
            else o->offset = (int)v;
        } else if (!strcmp(name, "--init")) {
            if (!strcmp(val, "random")) o->init = HARNESS_INIT_RANDOM;
            else if (!strcmp(val, "ones")) o->init = HARNESS_INIT_ONES;
            else if (!strcmp(val, "int")) o->init = HARNESS_INIT_INT;
            else
                return fail(err, errlen, "bad --init '%s': expected random, ones or int%s", val,
                            "");
        } else if (!strcmp(name, "--poison")) {
            if (!strcmp(val, "nan")) o->poison = HARNESS_POISON_NAN;
            else if (!strcmp(val, "inf")) o->poison = HARNESS_POISON_INF;
            else return fail(err, errlen, "bad --poison '%s': expected nan or inf%s", val, "");
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] == '-')
                return fail(err, errlen, "bad --seed '%s': expected a non-negative integer%s", val,
                            "");
            o->seed = s;
        } else if (!strcmp(name, "--tune-out") || !strcmp(name, "--tuned")) {
            char *dst = name[6] == '-' ? o->tune_out : o->tuned;
            if (!*val || strlen(val) >= sizeof o->tuned)
                return fail(err, errlen, "bad %s '%s': expected a file name", name, val);
            strcpy(dst, val);
        } else { /* --csv */
            if (!*val || strlen(val) >= sizeof o->csv)
                return fail(err, errlen, "bad --csv '%s': expected a file name%s", val, "");
            strcpy(o->csv, val);
        }
    }
    if (mnk[0] || mnk[1] || mnk[2]) {
        if (o->nsizes >= HARNESS_MAX_SIZES)
            return fail(err, errlen, "too many sizes (at most %s)%s", "64", "");
        int first = mnk[0] ? mnk[0] : mnk[1] ? mnk[1] : mnk[2];
        for (int j = 0; j < 3; ++j) o->sizes[o->nsizes][j] = mnk[j] ? mnk[j] : first;
        ++o->nsizes;
    }
    if (o->tune_out[0] && !o->tune) return fail(err, errlen, "--tune-out needs --tune%s%s", "", "");
    if (o->tune && (o->variant[0] || o->check_only || o->csv[0] || o->explain))
        return fail(err, errlen,
                    "--tune times the candidates of the default variant: it takes no --variant, "
                    "--check-only, --csv or --explain%s%s",
                    "", "");
    if (sweep_given && o->nsizes)
        return fail(err, errlen, "--sweep cannot be combined with --size or --m/--n/--k%s%s", "",
                    "");
    if (sweep_given == 2) bench_sweep(o);
    else if (!o->nsizes) {
        harness_default_sweep(o);
        o->default_sweep = !sweep_given;
    }
    return 0;
}

/* ---- refusal ---------------------------------------------------------------------------- */

/* The names of the bits set in mask (bit i = names[i]), joined by sep, into out (len bytes;
 * a list that does not fit is cut short). */
static void mask_names(char *out, size_t len, unsigned mask, const char *const *names, int count,
                       const char *sep) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count && used < len; ++i)
        if (mask & (1u << i)) {
            int w = snprintf(out + used, len - used, "%s%s", used ? sep : "", names[i]);
            used += w > 0 ? (size_t)w : 0;
        }
}

/* Whether variant v claims output c for inputs d, and epilogue e (GEMM_OUT_BIT, GEMM_EPI_BIT). */
static int variant_has_out(const gemm_variant *v, gemm_dtype d, gemm_dtype c) {
    return c == harness_default_out(d) || (((v->dtypes & GEMM_OUT_ALL) >> 4) & GEMM_DT_BIT(c));
}
static int variant_has_epi(const gemm_variant *v, gemm_epi e) {
    return e == GEMM_EPI_NONE || (((v->dtypes & GEMM_EPI_ALL) >> 8) & (1u << e));
}

/* The epilogue's part of harness_refusal: the output dtype, the epilogue, the bias dtype (what
 * the variant's GEMM_OUT_BIT / GEMM_EPI_BIT / GEMM_BIAS_DT_BIT bits claim), or NULL. */
static const char *epilogue_refusal(const gemm_variant *v, const gemm_problem *p, char *buf,
                                    size_t len) {
    char list[96];
    const unsigned outs = (v->dtypes & GEMM_OUT_ALL) >> 4;
    const gemm_dtype dflt = harness_default_out(p->dtype);
    if (!variant_has_out(v, p->dtype, p->c_dtype)) {
        mask_names(list, sizeof list, outs | GEMM_DT_BIT(dflt), dtype_names, GEMM_NDTYPES, ", ");
        snprintf(buf, len, "variant '%s' does not support output %s for %s inputs (supported: %s)",
                 v->name, dtype_names[p->c_dtype], dtype_names[p->dtype], list);
        return buf;
    }
    const unsigned epis = ((v->dtypes & GEMM_EPI_ALL) >> 8) | 1u;
    if (!variant_has_epi(v, p->epilogue)) {
        const char *names[GEMM_NEPIS];
        for (int e = 0; e < GEMM_NEPIS; ++e) names[e] = harness_epi_name((gemm_epi)e);
        mask_names(list, sizeof list, epis, names, GEMM_NEPIS, ", ");
        snprintf(buf, len, "variant '%s' does not support epilogue %s (supported: %s)", v->name,
                 harness_epi_name(p->epilogue), list);
        return buf;
    }
    const unsigned bdts = (v->dtypes & GEMM_BIAS_DT_ALL) >> 16;
    if (GEMM_EPI_HAS_BIAS(p->epilogue) && p->bias_dtype != p->c_dtype &&
        !(bdts & GEMM_DT_BIT(p->bias_dtype))) {
        mask_names(list, sizeof list, bdts | GEMM_DT_BIT(p->c_dtype), dtype_names, GEMM_NDTYPES,
                   ", ");
        snprintf(buf, len, "variant '%s' does not support a %s bias with %s output (supported: %s)",
                 v->name, dtype_names[p->bias_dtype], dtype_names[p->c_dtype], list);
        return buf;
    }
    return NULL;
}

const char *harness_refusal(const gemm_variant *v, const gemm_problem *p, int offset_elems,
                            char *buf, size_t len) {
    if (!(v->dtypes & GEMM_DT_BIT(p->dtype))) {
        char list[64];
        mask_names(list, sizeof list, v->dtypes, dtype_names, GEMM_NDTYPES, ", ");
        snprintf(buf, len, "variant '%s' does not support dtype %s (supported: %s)", v->name,
                 dtype_names[p->dtype], list);
        return buf;
    }
    if (!(v->layouts & GEMM_LAYOUT_BIT(p->layout))) {
        char list[64];
        mask_names(list, sizeof list, v->layouts, layout_names, GEMM_NLAYOUTS, ", ");
        snprintf(buf, len, "variant '%s' does not support layout %s (supported: %s)", v->name,
                 layout_names[p->layout], list);
        return buf;
    }
    if (epilogue_refusal(v, p, buf, len)) return buf;
    int a = v->align > 1 ? v->align : 1;
    if (p->lda % a || p->ldb % a || p->ldc % a || offset_elems % a) {
        snprintf(buf, len,
                 "variant '%s' needs lda, ldb, ldc and pointer offsets to be multiples of %d "
                 "elements (got lda=%lld ldb=%lld ldc=%lld offset=%d)",
                 v->name, a, p->lda, p->ldb, p->ldc, offset_elems);
        return buf;
    }
    if (v->check) {
        /* a planned problem has no buffers yet: the check sees stand-in addresses with the
         * request's alignment (256-byte aligned bases plus the offset), never dereferenced */
        gemm_problem q = *p;
        const uintptr_t off = (uintptr_t)offset_elems * harness_dtype_size(p->dtype);
        const uintptr_t offc = (uintptr_t)offset_elems * harness_dtype_size(p->c_dtype);
        if (!q.A) q.A = (const void *)((uintptr_t)0x100000 + off);
        if (!q.B) q.B = (const void *)((uintptr_t)0x200000 + off);
        if (!q.C) q.C = (void *)((uintptr_t)0x300000 + offc);
        const char *why = v->check(&q);
        if (why) {
            snprintf(buf, len, "variant '%s' refuses %dx%dx%d: %s", v->name, p->m, p->n, p->k, why);
            return buf;
        }
    }
    return NULL;
}

/* ---- fp16 / bf16 on the host ------------------------------------------------------------ */

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

float harness_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
    if (exp == 0x1F) return u2f(sign | 0x7F800000u | (man << 13)); /* Inf / NaN */
    if (exp == 0) {                                                /* zero / subnormal */
        float v = (float)man * 5.9604644775390625e-8f;             /* man * 2^-24 */
        return (sign ? -v : v);
    }
    return u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

float harness_bf16_to_float(uint16_t h) { return u2f((uint32_t)h << 16); }

uint16_t harness_float_to_bf16(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7FFFu + ((u >> 16) & 1u);                                           /* RNE */
    return (uint16_t)(u >> 16);
}

uint16_t harness_float_to_half(float f) {
    uint32_t u = f2u(f), sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);  /* NaN */
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds to >= 65520: Inf */
    if (a < 0x38800000u) {                                   /* below 2^-14: subnormal */
        float v = u2f(a) * 16777216.0f;                      /* in units of 2^-24 */
        return (uint16_t)(sign | (uint32_t)nearbyintf(v));   /* default mode: RNE */
    }
    uint32_t r = a + 0xFFFu + ((a >> 13) & 1u); /* RNE on the 13 dropped bits */
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

/* ---- tolerance and comparison ----------------------------------------------------------- */

harness_tol harness_tolerance(gemm_dtype c_dtype, int k) {
    const double u32 = 5.960464477539063e-08; /* fp32 unit roundoff 2^-24 */
    /* relative spacing of the output type: two correct results may round to neighbours */
    double ulp_out = c_dtype == GEMM_FP32   ? 1.1920928955078125e-07 /* 2^-23 */
                     : c_dtype == GEMM_FP16 ? 9.765625e-04           /* 2^-10 */
                                            : 7.8125e-03;            /* 2^-7  */
    double acc = sqrt((double)(k > 0 ? k : 1)) * u32;
    /* Each of two correct results may be up to about one output ulp (at the scale of the
     * partial sums, hence the rms term in the element metric) from the exact value: cuBLAS may
     * split K and round partial sums to the output type. So two correct results differ by up
     * to two ulps per element: on an H200, cuBLAS at 705^3 fp16/bf16 with offset pointers
     * differs by 1.08 ulps from correct kernels that agree with each other (notes/perf.md). */
    harness_tol t;
    t.rel_fro = 1.0 * ulp_out + 8.0 * acc;
    t.elem = 2.0 * ulp_out + 32.0 * acc;
    return t;
}

int harness_compare(const float *out, long long ld_out, const float *ref, long long ld_ref,
                    long long rows, long long cols, harness_tol tol, harness_cmp *c) {
    memset(c, 0, sizeof *c);
    c->first_bad_row = c->first_bad_col = -1;
    c->worst_row = c->worst_col = -1;
    double sum_ref2 = 0.0, sum_d2 = 0.0;
    long long nfinite = 0;
    for (long long i = 0; i < rows; ++i)
        for (long long j = 0; j < cols; ++j) {
            double r = ref[i * ld_ref + j];
            if (!isfinite(r)) {
                ++c->ref_nonfinite;
                continue;
            }
            sum_ref2 += r * r;
            ++nfinite;
        }
    double rms = nfinite ? sqrt(sum_ref2 / (double)nfinite) : 0.0;
    for (long long i = 0; i < rows; ++i)
        for (long long j = 0; j < cols; ++j) {
            double o = out[i * ld_out + j], r = ref[i * ld_ref + j];
            if (!isfinite(o)) {
                if (c->nonfinite++ == 0) {
                    c->first_bad_row = i;
                    c->first_bad_col = j;
                }
                continue;
            }
            if (!isfinite(r)) continue;
            double d = fabs(o - r);
            sum_d2 += d * d;
            if (d > c->max_abs) c->max_abs = d;
            double denom = fabs(r) + rms;
            double s = denom > 0 ? d / denom : (d > 0 ? INFINITY : 0.0);
            if (s > c->worst_scaled || c->worst_row < 0) {
                c->worst_scaled = s;
                c->worst_row = i;
                c->worst_col = j;
            }
        }
    c->rel_fro = sum_ref2 > 0 ? sqrt(sum_d2 / sum_ref2) : (sum_d2 > 0 ? INFINITY : 0.0);
    if (c->ref_nonfinite)
        snprintf(c->reason, sizeof c->reason, "reference has %lld NaN/Inf values",
                 c->ref_nonfinite);
    else if (c->nonfinite)
        snprintf(c->reason, sizeof c->reason,
                 "%lld NaN/Inf outputs (unwritten?), first at (%lld,%lld)", c->nonfinite,
                 c->first_bad_row, c->first_bad_col);
    else if (c->worst_scaled > tol.elem)
        snprintf(c->reason, sizeof c->reason,
                 "element (%lld,%lld): got %.7g, want %.7g (scaled error %.3g > %.3g)",
                 c->worst_row, c->worst_col, (double)out[c->worst_row * ld_out + c->worst_col],
                 (double)ref[c->worst_row * ld_ref + c->worst_col], c->worst_scaled, tol.elem);
    else if (c->rel_fro > tol.rel_fro)
        snprintf(c->reason, sizeof c->reason, "relative error %.3g > %.3g", c->rel_fro,
                 tol.rel_fro);
    c->pass = c->reason[0] == '\0';
    return c->pass;
}

void harness_ref_f64(int m, int n, int k, double alpha, const float *A, long long lda, int a_kmajor,
                     const float *B, long long ldb, int b_kmajor, double beta, const float *C0,
                     long long ldc, int r0, int r1, double *out) {
    (void)m;
    for (int i = r0; i < r1; ++i)
        for (int j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int p = 0; p < k; ++p) {
                double a = a_kmajor ? A[(long long)i * lda + p] : A[i + (long long)p * lda];
                double b = b_kmajor ? B[(long long)j * ldb + p] : B[j + (long long)p * ldb];
                acc += a * b;
            }
            double v = alpha * acc;
            if (beta != 0.0) v += beta * (double)C0[(long long)i * ldc + j];
            out[(long long)(i - r0) * n + j] = v;
        }
}

/* ---- report ----------------------------------------------------------------------------- */

const char *harness_csv_header(void) {
    return "lesson,variant,dtype,layout,m,n,k,alpha,beta,ms,tflops,cublas_ms,cublas_tflops,"
           "pct_cublas,rel_err,max_err,status,device,cuda_runtime,cuda_driver,date,commit,"
           "out,epilogue,bias_axis,gelu,acc,lt_ms,unfused_ms,reference,f64_rel_err";
}

/* Copies s into d (size n) with commas and newlines replaced, for CSV fields. */
static void csv_clean(char *d, size_t n, const char *s) {
    size_t i = 0;
    for (; s && s[i] && i + 1 < n; ++i) d[i] = (s[i] == ',' || s[i] == '\n') ? ';' : s[i];
    d[i] = '\0';
}

/* The epilogue's columns of a CSV row (after commit), with their leading comma. */
static int csv_format_epilogue(char *buf, size_t len, const harness_row *r) {
    const int bias = GEMM_EPI_HAS_BIAS(r->epilogue),
              gelu = GEMM_EPI_ACT(r->epilogue) == GEMM_ACT_GELU;
    return snprintf(
        buf, len, ",%s,%s,%s,%s,%s,%.6f,%.6f,%s,%.3e", harness_dtype_name(r->out),
        harness_epi_name(r->epilogue), bias ? (r->bias_axis == GEMM_BIAS_M ? "m" : "n") : "-",
        gelu ? (r->gelu == GEMM_GELU_ERF ? "erf" : "tanh") : "-", r->acc16 ? "fp16" : "fp32",
        r->lt_ms, r->unfused_ms, r->reference ? r->reference : "-", r->f64_rel_err);
}

int harness_csv_format(char *buf, size_t len, const harness_row *r, const harness_env *e) {
    char dev[128], commit[64], variant[64];
    csv_clean(dev, sizeof dev, e->device);
    csv_clean(commit, sizeof commit, e->commit);
    csv_clean(variant, sizeof variant, r->variant);
    int n = snprintf(
        buf, len, "%s,%s,%s,%s,%d,%d,%d,%g,%g,%.6f,%.3f,%.6f,%.3f,%.2f,%.3e,%.3e,%s,%s,%d,%d,%s,%s",
        r->lesson, variant, harness_dtype_name(r->dtype), harness_layout_name(r->layout), r->m,
        r->n, r->k, (double)r->alpha, (double)r->beta, r->ms, r->tflops, r->cublas_ms,
        r->cublas_tflops, r->pct_cublas, r->rel_err, r->max_err, r->status, dev, e->cuda_runtime,
        e->cuda_driver, e->date, commit);
    if (n < 0 || (size_t)n >= len) return n;
    return n + csv_format_epilogue(buf + n, len - (size_t)n, r);
}

int harness_csv_append(const char *path, const harness_row *r, const harness_env *e) {
    FILE *f = fopen(path, "a+");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    int empty = ftell(f) == 0;
    char line[1024];
    harness_csv_format(line, sizeof line, r, e);
    int bad =
        (empty && fprintf(f, "%s\n", harness_csv_header()) < 0) || fprintf(f, "%s\n", line) < 0;
    if (fclose(f) != 0 || bad) return -1;
    return 0;
}

void harness_table_header(FILE *f) {
    fprintf(f, "%-24s %-5s %-3s %6s %6s %6s %10s %9s %10s %8s %10s %5s\n", "variant", "dtype", "op",
            "M", "N", "K", "ms", "TFLOP/s", "cuBLAS ms", "%cuBLAS", "rel.err", "check");
}

void harness_table_row(FILE *f, const harness_row *r) {
    char ms[16] = "-", tf[16] = "-", cms[16] = "-", pct[16] = "-";
    if (r->ms >= 0) {
        snprintf(ms, sizeof ms, "%.4f", r->ms);
        snprintf(tf, sizeof tf, "%.2f", r->tflops);
    }
    if (r->cublas_ms >= 0) snprintf(cms, sizeof cms, "%.4f", r->cublas_ms);
    if (r->pct_cublas >= 0) snprintf(pct, sizeof pct, "%.1f", r->pct_cublas);
    fprintf(f, "%-24s %-5s %-3s %6d %6d %6d %10s %9s %10s %8s %10.2e %5s\n", r->variant,
            harness_dtype_name(r->dtype), harness_layout_name(r->layout), r->m, r->n, r->k, ms, tf,
            cms, pct, r->rel_err, r->status);
    fflush(f);
}

void harness_table_header_epi(FILE *f) {
    fprintf(f, "%-20s %-5s %-5s %-16s %-3s %6s %6s %6s %9s %8s %9s %7s %9s %9s %9s %5s\n",
            "variant", "dtype", "out", "epilogue", "op", "M", "N", "K", "ms", "TFLOP/s",
            "cuBLAS ms", "%cuBLAS", "Lt fused", "unfused", "rel.err", "check");
}

void harness_table_row_epi(FILE *f, const harness_row *r) {
    char ms[16] = "-", tf[16] = "-", cms[16] = "-", pct[16] = "-", lt[16] = "-", un[16] = "-";
    char epi[32];
    if (r->ms >= 0) {
        snprintf(ms, sizeof ms, "%.4f", r->ms);
        snprintf(tf, sizeof tf, "%.2f", r->tflops);
    }
    if (r->cublas_ms >= 0) snprintf(cms, sizeof cms, "%.4f", r->cublas_ms);
    if (r->pct_cublas >= 0) snprintf(pct, sizeof pct, "%.1f", r->pct_cublas);
    if (r->lt_ms >= 0) snprintf(lt, sizeof lt, "%.4f", r->lt_ms);
    if (r->unfused_ms >= 0) snprintf(un, sizeof un, "%.4f", r->unfused_ms);
    harness_epi_label(epi, sizeof epi, r->epilogue, r->bias_axis, r->gelu);
    fprintf(f, "%-20s %-5s %-5s %-16s %-3s %6d %6d %6d %9s %8s %9s %7s %9s %9s %9.2e %5s\n",
            r->variant, harness_dtype_name(r->dtype), harness_dtype_name(r->out), epi,
            harness_layout_name(r->layout), r->m, r->n, r->k, ms, tf, cms, pct, lt, un, r->rel_err,
            r->status);
    fflush(f);
}

/* ---- the plan: every case of a request, before the GPU is touched ------------------------ */

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes)\n", n);
        exit(HARNESS_EXIT_CUDA);
    }
    return p;
}

int harness_select_variants(const gemm_lesson *L, const harness_opts *o, const gemm_variant **sel,
                            char *err, size_t errlen) {
    int nsel = 0;
    err[0] = '\0';
    if (!o->variant[0]) { /* every variant but the opt-in ones (fp16 accumulation) */
        for (int i = 0; i < L->nvariants && nsel < HARNESS_MAX_VARIANTS; ++i)
            if (!(L->variants[i].dtypes & GEMM_ACC_FP16)) sel[nsel++] = &L->variants[i];
        return nsel;
    }
    char names[sizeof o->variant];
    memcpy(names, o->variant, sizeof names);
    for (char *save = NULL, *tok = strtok_r(names, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < L->nvariants && !found; ++i)
            if (!strcmp(tok, L->variants[i].name) || (!strcmp(tok, "default") && i == 0)) {
                found = 1;
                if (nsel < HARNESS_MAX_VARIANTS) sel[nsel++] = &L->variants[i];
            }
        if (!found) {
            snprintf(err, errlen,
                     !strcmp(tok, "all") ? "lesson %s: --variant all stands alone, not in a list"
                                         : "lesson %s has no variant '%s' (see --list)",
                     L->id, tok);
            return 0;
        }
    }
    if (!nsel)
        snprintf(err, errlen, "bad --variant '%s': no variant named (see --list)", o->variant);
    return nsel;
}

/* The problem for one case, pointers still NULL (run_case allocates them). */
static void make_problem(gemm_problem *p, const harness_opts *o, gemm_dtype d, gemm_layout l,
                         const int mnk[3]) {
    memset(p, 0, sizeof *p);
    p->m = mnk[0];
    p->n = mnk[1];
    p->k = mnk[2];
    p->layout = l;
    p->dtype = d;
    p->c_dtype = d;
    p->alpha = o->alpha;
    p->beta = o->beta;
    p->a_kmajor = (l == GEMM_TN || l == GEMM_TT);
    p->b_kmajor = (l == GEMM_TN || l == GEMM_NN);
    p->lda = (p->a_kmajor ? p->k : p->m) + o->pad;
    p->ldb = (p->b_kmajor ? p->k : p->n) + o->pad;
    p->ldc = p->n + o->pad;
    p->epilogue = GEMM_EPI_NONE;
    p->bias_axis = GEMM_BIAS_N;
    p->gelu = o->gelu;
    p->bias_dtype = d;
}

/* The epilogue of one case: output dtype, epilogue, bias axis (and the bias dtype that follows
 * from them and --bias-dtype). */
static void set_epilogue(gemm_problem *p, const harness_opts *o, gemm_dtype out, gemm_epi e,
                         gemm_bias_axis axis) {
    p->c_dtype = out;
    p->epilogue = e;
    p->bias_axis = axis;
    p->bias_dtype = o->bias_dtype >= 0 ? (gemm_dtype)o->bias_dtype : out;
}

/* The operand orders a request runs: the ones asked for, else the lesson's default ones, else
 * TN. */
static unsigned request_layouts(const gemm_lesson *L, const harness_opts *o) {
    return o->layouts           ? o->layouts
           : L->default_layouts ? L->default_layouts
                                : GEMM_LAYOUT_BIT(GEMM_TN);
}

/* The output dtypes, epilogues and bias axes a request runs for inputs d: the ones asked for,
 * else the default output / none / n. */
static unsigned request_outs(const harness_opts *o, gemm_dtype d) {
    return o->outs ? o->outs : GEMM_DT_BIT(harness_default_out(d));
}
static unsigned request_epis(const harness_opts *o) {
    return o->epis ? o->epis : 1u << GEMM_EPI_NONE;
}
static unsigned request_axes(const harness_opts *o, gemm_epi e) {
    if (!GEMM_EPI_HAS_BIAS(e)) return 1u << GEMM_BIAS_N; /* no bias: the axis does not matter */
    return o->bias_axes ? o->bias_axes : 1u << GEMM_BIAS_N;
}
static int popcount(unsigned x) {
    int n = 0;
    for (; x; x &= x - 1) ++n;
    return n;
}

/* Every problem of a request, in the order a run takes them: input dtype (the bits of dts),
 * output dtype, epilogue, bias axis, operand order (the bits of layouts), size. fn gets each
 * problem with its extents, layout, dtypes and epilogue set (no pointers) and ctx. Planning
 * and --explain both walk this, so the two never list different problems. */
typedef void (*request_fn)(gemm_problem *p, void *ctx);
static void for_each_request_problem(const harness_opts *o, unsigned dts, unsigned layouts,
                                     request_fn fn, void *ctx) {
    for (int d = 0; d < GEMM_NDTYPES; ++d) {
        if (!(dts & GEMM_DT_BIT(d))) continue;
        for (int c = 0; c < GEMM_NDTYPES; ++c) {
            if (!(request_outs(o, (gemm_dtype)d) & GEMM_DT_BIT(c))) continue;
            for (int e = 0; e < GEMM_NEPIS; ++e) {
                if (!(request_epis(o) & (1u << e))) continue;
                for (int ax = 0; ax < 2; ++ax) {
                    if (!(request_axes(o, (gemm_epi)e) & (1u << ax))) continue;
                    for (int l = 0; l < GEMM_NLAYOUTS; ++l) {
                        if (!(layouts & GEMM_LAYOUT_BIT(l))) continue;
                        for (int s = 0; s < o->nsizes; ++s) {
                            gemm_problem p;
                            make_problem(&p, o, (gemm_dtype)d, (gemm_layout)l, o->sizes[s]);
                            set_epilogue(&p, o, (gemm_dtype)c, (gemm_epi)e, (gemm_bias_axis)ax);
                            fn(&p, ctx);
                        }
                    }
                }
            }
        }
    }
}

/* Refusals grouped by reason. A request over many variants and sizes can be refused many times
 * for one reason (lesson 05 and an odd leading dimension, every variant of a lesson and an
 * unsupported dtype). The reason is harness_refusal's text with the variant name and the
 * case-specific details "(got ...)" taken out. Adds one refusal of selected variant vi; returns
 * 0 when every group slot holds another reason. */
static int add_refusal(harness_plan *pl, int vi, const char *why, const gemm_problem *p) {
    char reason[200], detail[120] = "";
    char prefix[96];
    snprintf(prefix, sizeof prefix, "variant '%s' ", pl->sel[vi]->name);
    const char *r = why;
    if (!strncmp(r, prefix, strlen(prefix))) r += strlen(prefix);
    if (!strncmp(r, "refuses ", 8) && strstr(r, ": ")) r = strstr(r, ": ") + 2; /* check() */
    snprintf(reason, sizeof reason, "%s", r);
    char *got = strstr(reason, " (got ");
    if (got) { /* "(got lda=127 ...)": a detail of this case, not of the reason */
        snprintf(detail, sizeof detail, ", %s", got + 6);
        size_t dl = strlen(detail);
        if (dl && detail[dl - 1] == ')') detail[dl - 1] = '\0';
        *got = '\0';
    }
    harness_refusal_group *g = pl->groups;
    int i = 0;
    while (i < pl->ngroups && strcmp(g[i].reason, reason) != 0) ++i;
    if (i == pl->ngroups) {
        if (pl->ngroups == HARNESS_REFUSAL_GROUPS) return 0;
        memset(&g[i], 0, sizeof g[i]);
        snprintf(g[i].reason, sizeof g[i].reason, "%s", reason);
        snprintf(g[i].first, sizeof g[i].first, "%dx%dx%d %s %s%s", p->m, p->n, p->k,
                 harness_dtype_name(p->dtype), harness_layout_name(p->layout), detail);
        ++pl->ngroups;
    }
    ++g[i].count;
    g[i].variants |= 1u << vi;
    int s = 0, mnk[3] = {p->m, p->n, p->k};
    while (s < g[i].nsizes && s < HARNESS_GROUP_SIZES && memcmp(g[i].sizes[s], mnk, sizeof mnk))
        ++s;
    if (s == g[i].nsizes) {
        if (s < HARNESS_GROUP_SIZES) memcpy(g[i].sizes[s], mnk, sizeof mnk);
        ++g[i].nsizes;
    }
    return 1;
}

/* The dtypes a variant runs in a request: the ones asked for, else its first supported one. */
static unsigned request_dtypes(const harness_opts *o, const gemm_variant *v) {
    if (o->dtypes) return o->dtypes;
    for (int d = 0; d < GEMM_NDTYPES; ++d)
        if (v->dtypes & GEMM_DT_BIT(d)) return GEMM_DT_BIT(d);
    return 0;
}

/* Adds case p of selected variant vi to the plan, or its refusal. */
static void plan_one(harness_plan *pl, int vi, const gemm_problem *p, const harness_opts *o) {
    const gemm_variant *v = pl->sel[vi];
    char buf[320];
    const char *why = harness_refusal(v, p, o->offset, buf, sizeof buf);
    if (!why) {
        pl->cases[pl->ncases].v = v;
        pl->cases[pl->ncases].p = *p;
        ++pl->ncases;
        return;
    }
    /* with --dtype all / --layout all / --out all / --epilogue all, combinations the variant
     * does not claim are left out quietly; every other refusal is reported */
    int quiet = (o->dtype_all && !(v->dtypes & GEMM_DT_BIT(p->dtype))) ||
                (o->layout_all && !(v->layouts & GEMM_LAYOUT_BIT(p->layout))) ||
                (o->out_all && !variant_has_out(v, p->dtype, p->c_dtype)) ||
                (o->epi_all && !variant_has_epi(v, p->epilogue));
    if (quiet) return;
    ++pl->nrefused;
    if (!add_refusal(pl, vi, why, p)) ++pl->nlost;
}

/* harness_plan_cases's walk: each problem of the request, planned for variant vi */
typedef struct {
    harness_plan *pl;
    int vi;
    const harness_opts *o;
} plan_ctx;
static void plan_problem(gemm_problem *p, void *ctx) {
    const plan_ctx *c = (const plan_ctx *)ctx;
    plan_one(c->pl, c->vi, p, c->o);
}

int harness_plan_cases(const gemm_lesson *L, const harness_opts *o, harness_plan *pl, char *err,
                       size_t errlen) {
    memset(pl, 0, sizeof *pl);
    pl->nsel = harness_select_variants(L, o, pl->sel, err, errlen);
    if (!pl->nsel) return HARNESS_EXIT_USAGE;
    pl->default_request = o->default_sweep && !o->pad && !o->offset &&
                          (!o->dtypes || o->dtype_all) && (!o->layouts || o->layout_all) &&
                          (!o->outs || o->out_all) && (!o->epis || o->epi_all) && !o->bias_axes;
    pl->nsizes = o->nsizes;
    const unsigned layouts = request_layouts(L, o);
    int maxcases = pl->nsel * GEMM_NDTYPES * GEMM_NLAYOUTS * o->nsizes *
                   popcount(o->outs ? o->outs : 1u) * popcount(request_epis(o)) *
                   popcount(o->bias_axes ? o->bias_axes : 1u);
    pl->cases = (harness_case *)xmalloc(sizeof(harness_case) * (size_t)maxcases);
    for (int vi = 0; vi < pl->nsel; ++vi) {
        plan_ctx ctx = {pl, vi, o};
        for_each_request_problem(o, request_dtypes(o, pl->sel[vi]), layouts, plan_problem, &ctx);
    }
    return 0;
}

void harness_plan_free(harness_plan *pl) {
    free(pl->cases);
    pl->cases = NULL;
    pl->ncases = 0;
}

/* The names of the selected variants whose bits are set in mask. */
static void variant_names(char *out, size_t len, const harness_plan *pl, unsigned mask) {
    const char *names[HARNESS_MAX_VARIANTS];
    for (int vi = 0; vi < pl->nsel; ++vi) names[vi] = pl->sel[vi]->name;
    mask_names(out, len, mask, names, pl->nsel, ", ");
}

int harness_refusal_line(char *buf, size_t len, const char *lesson_id, const harness_plan *pl,
                         int gi) {
    const harness_refusal_group *g = &pl->groups[gi];
    char list[256];
    variant_names(list, sizeof list, pl, g->variants);
    int last_word = pl->ncases == 0 && pl->ngroups == 1 && !pl->nlost;
    return snprintf(buf, len, "%s: refused: %d case%s of %s: %s (first: %s)%s", lesson_id, g->count,
                    g->count == 1 ? "" : "s", list, g->reason, g->first,
                    last_word ? "; nothing to run" : "");
}

/* Appends printf-style text at buf + *used (never past len); *used counts what was needed. */
static void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + (*used < len ? *used : len), *used < len ? len - *used : 0, fmt, ap);
    va_end(ap);
    *used += w > 0 ? (size_t)w : 0;
}

int harness_skip_line(char *buf, size_t len, const char *lesson_id, const harness_plan *pl) {
    if (len) buf[0] = '\0';
    if (!pl->nrefused) return 0;
    size_t used = 0;
    appendf(buf, len, &used,
            "%s: the default sweep skipped %d case%s that the kernels refuse:", lesson_id,
            pl->nrefused, pl->nrefused == 1 ? "" : "s");
    unsigned all = pl->nsel >= 32 ? ~0u : (1u << pl->nsel) - 1u;
    for (int gi = 0; gi < pl->ngroups; ++gi) {
        const harness_refusal_group *g = &pl->groups[gi];
        char sizes[256] = "", vars[256];
        size_t su = 0;
        if (g->nsizes == pl->nsizes) appendf(sizes, sizeof sizes, &su, "every size");
        for (int s = 0; g->nsizes != pl->nsizes && s < g->nsizes && s < HARNESS_GROUP_SIZES; ++s)
            appendf(sizes, sizeof sizes, &su, "%s%dx%dx%d", s ? ", " : "", g->sizes[s][0],
                    g->sizes[s][1], g->sizes[s][2]);
        if (g->nsizes != pl->nsizes && g->nsizes > HARNESS_GROUP_SIZES)
            appendf(sizes, sizeof sizes, &su, ", ...");
        if (pl->nsel > 1 && g->variants == all) snprintf(vars, sizeof vars, "every variant");
        else variant_names(vars, sizeof vars, pl, g->variants);
        char count[32] = "";
        if (pl->ngroups > 1 || pl->nlost) snprintf(count, sizeof count, "%d: ", g->count);
        appendf(buf, len, &used, "%s %s (%s%s; %s)", gi ? ";" : "", g->reason, count, sizes, vars);
    }
    if (pl->nlost) appendf(buf, len, &used, "; %d more for other reasons", pl->nlost);
    return (int)used;
}

/* ---- the run: one context, then per case allocate/fill, reference, launch, compare, time,
 * report ----------------------------------------------------------------------------------- */

typedef struct run_ctx {
    const gemm_lesson *lesson;
    const harness_opts *o;
    harness_env env;
    cublasHandle_t blas;
    cublasLtHandle_t lt;
    void *lt_ws; /* cuBLASLt's workspace */
    size_t lt_ws_bytes;
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    void *flush;
    size_t flush_bytes;
    int epi_table; /* print the table with the epilogue's columns */
    int passed, failed, skipped;
} run_ctx;

static cudaDataType_t cuda_type(gemm_dtype d) {
    return d == GEMM_FP32 ? CUDA_R_32F : d == GEMM_FP16 ? CUDA_R_16F : CUDA_R_16BF;
}

/* Device buffer of `elems` elements of dtype, plus `offset` leading elements; *base is what
 * to free, the return value the (offset) pointer the GEMM sees. Exits 3 on out of memory. */
static void *dev_alloc(void **base, gemm_dtype dt, long long elems, int offset) {
    size_t bytes = (size_t)(elems + offset) * harness_dtype_size(dt);
    cudaError_t e = cudaMalloc(base, bytes);
    if (e != cudaSuccess) {
        fprintf(stderr, "error: cannot allocate %.1f MiB on the GPU (%s)\n",
                (double)bytes / 1048576.0, cudaGetErrorString(e));
        exit(HARNESS_EXIT_CUDA);
    }
    return (char *)*base + (size_t)offset * harness_dtype_size(dt);
}

/* Device buffer -> host floats. `raw` (optional) receives the raw bytes too. */
static void to_host_float(float *dst, const void *src, gemm_dtype dt, long long n, void *raw) {
    size_t es = harness_dtype_size(dt);
    void *tmp = raw ? raw : xmalloc((size_t)n * es);
    CUDA_CHECK(cudaMemcpy(tmp, src, (size_t)n * es, cudaMemcpyDeviceToHost));
    if (dt == GEMM_FP32) memcpy(dst, tmp, (size_t)n * 4);
    else {
        const uint16_t *h = (const uint16_t *)tmp;
        for (long long i = 0; i < n; ++i)
            dst[i] = dt == GEMM_FP16 ? harness_half_to_float(h[i]) : harness_bf16_to_float(h[i]);
    }
    if (!raw) free(tmp);
}

/* cublasGemmEx has the output dtype `out` for inputs `in` at compute type fp32 (the cuBLAS
 * documentation's table of cublasGemmEx: fp16 / bf16 inputs with their own or fp32 output,
 * fp32 with fp32). */
static int cublas_has_types(gemm_dtype in, gemm_dtype out) {
    return out == in || (out == GEMM_FP32 && in != GEMM_FP32);
}

/* The variant accumulates in fp16 (GEMM_ACC_FP16). */
static int is_acc16(const gemm_variant *v) { return (v->dtypes & GEMM_ACC_FP16) != 0; }

/* cuBLAS: C (out dtype `out`, leading dimension ldc_) = alpha * A * B^T + beta * C, beta taken
 * from `beta`; fp16 accumulation (CUBLAS_COMPUTE_16F, alpha and beta as fp16) when acc16. */
static void cublas_gemm_as(run_ctx *x, const gemm_problem *p, void *C, gemm_dtype out,
                           long long ldc_, float beta, int acc16) {
    /* Row-major C (M,N) is the column-major N x M matrix C^T = B * A^T. cuBLAS's first operand
     * is our B as an N x K matrix: K-major B is stored like a K x N column-major matrix, so
     * it needs OP_T; N-major B is N x K column-major already (OP_N). The second operand is
     * A^T (K x M): K-major A is exactly that (OP_N), M-major A is M x K (OP_T). */
    cublasOperation_t opB = p->b_kmajor ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opA = p->a_kmajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const uint16_t a16 = harness_float_to_half(p->alpha), b16 = harness_float_to_half(beta);
    const void *alpha = acc16 ? (const void *)&a16 : (const void *)&p->alpha;
    const void *bp = acc16 ? (const void *)&b16 : (const void *)&beta;
    CUBLAS_CHECK(cublasGemmEx(
        x->blas, opB, opA, p->n, p->m, p->k, alpha, p->B, cuda_type(p->dtype), (int)p->ldb, p->A,
        cuda_type(p->dtype), (int)p->lda, bp, C, cuda_type(out), (int)ldc_,
        acc16 ? CUBLAS_COMPUTE_16F : CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static void cublas_gemm(run_ctx *x, const gemm_problem *p, void *C, int acc16) {
    cublas_gemm_as(x, p, C, p->c_dtype, p->ldc, p->beta, acc16);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The buffers of one case. Device: A, B, C (the lesson's output) and R (the reference's), each
 * with its allocation base; the bias (exactly its length); for the epilogue's references the
 * fp32 product T, and for cuBLASLt with the bias along m its transposed C and D (Yc, Y); host:
 * the initial C (float and raw bytes, for the float64 reference and the padding check), the
 * bias, and after the launch the lesson's and the reference's outputs. */
typedef struct case_data {
    long long a_elems, b_elems, c_elems, bias_elems;
    void *a_base, *b_base, *c_base, *r_base, *bias_base;
    void *dA, *dB, *dC, *dR, *dBias;
    void *dT, *dY, *dYc; /* cudaMalloc'ed or NULL */
    unsigned long long seed;
    float *hC0, *hC, *hR, *hBias;
    unsigned char *rawC0, *rawC;
    int acc16;             /* the variant accumulates in fp16 */
    harness_lt_plan lt;    /* cuBLASLt's plan of this case (lt.ok = 0: none) */
    const char *reference; /* what computed R */
    double f64_rel;        /* the lesson's output against float64; < 0 when not checked */
} case_data;

/* The bias of a case (epilogues with a bias): allocated at exactly its length (N along n, M
 * along m) so that compute-sanitizer's memcheck sees any over-read; random in [-1, 1), or
 * bias[i] = i with --init ones / int (integer results, exact in fp32 and fp16). */
static void case_alloc_bias(run_ctx *x, gemm_problem *p, case_data *cd) {
    if (!GEMM_EPI_HAS_BIAS(p->epilogue)) return;
    cd->bias_elems = p->bias_axis == GEMM_BIAS_N ? p->n : p->m;
    cd->dBias = dev_alloc(&cd->bias_base, p->bias_dtype, cd->bias_elems, 0);
    if (x->o->init == HARNESS_INIT_RANDOM)
        CUDA_CHECK(harness_dev_fill(cd->dBias, p->bias_dtype, cd->bias_elems, cd->seed ^ 0xD,
                                    HARNESS_INIT_RANDOM, x->stream));
    else CUDA_CHECK(harness_dev_fill_index(cd->dBias, p->bias_dtype, cd->bias_elems, x->stream));
    cd->hBias = (float *)xmalloc((size_t)cd->bias_elems * sizeof(float));
    to_host_float(cd->hBias, cd->dBias, p->bias_dtype, cd->bias_elems, NULL);
    p->bias = cd->dBias;
}

/* Step 1: allocate A, B, C, R on the device (offset by `offset` elements) and fill them:
 * seeded random A and B; C random when beta != 0 (integers with --init ones / int), else
 * poisoned with NaN (or +Inf), so that a kernel that reads C at beta = 0 or leaves an element
 * unwritten fails; R = C; the bias. */
static void case_alloc_fill(run_ctx *x, gemm_problem *p, int offset, case_data *cd) {
    const harness_opts *o = x->o;
    const int M = p->m, N = p->n, K = p->k;
    const gemm_dtype dt = p->dtype, cdt = p->c_dtype;
    memset(cd, 0, sizeof *cd);
    cd->f64_rel = -1.0;
    /* extents of the stored operands: (outer, inner) with element (o,i) at o*ld + i */
    long long a_outer = p->a_kmajor ? M : K, b_outer = p->b_kmajor ? N : K;
    cd->a_elems = (a_outer - 1) * p->lda + (p->a_kmajor ? K : M);
    cd->b_elems = (b_outer - 1) * p->ldb + (p->b_kmajor ? K : N);
    cd->c_elems = (long long)(M - 1) * p->ldc + N;
    cd->dA = dev_alloc(&cd->a_base, dt, cd->a_elems, offset);
    cd->dB = dev_alloc(&cd->b_base, dt, cd->b_elems, offset);
    cd->dC = dev_alloc(&cd->c_base, cdt, cd->c_elems, offset);
    cd->dR = dev_alloc(&cd->r_base, cdt, cd->c_elems, 0);
    cd->seed = o->seed * 1000003ull + (unsigned long long)M * 31 + N * 7 + K;
    CUDA_CHECK(harness_dev_fill(cd->dA, dt, cd->a_elems, cd->seed ^ 0xA, o->init, x->stream));
    CUDA_CHECK(harness_dev_fill(cd->dB, dt, cd->b_elems, cd->seed ^ 0xB, o->init, x->stream));
    if (p->beta != 0.0f) /* integers in [-2, 2] with integer operands: exact results stay exact */
        CUDA_CHECK(harness_dev_fill(
            cd->dC, cdt, cd->c_elems, cd->seed ^ 0xC,
            o->init == HARNESS_INIT_RANDOM ? HARNESS_INIT_RANDOM : HARNESS_INIT_INT, x->stream));
    else
        CUDA_CHECK(harness_dev_fill_value(
            cd->dC, cdt, cd->c_elems, o->poison == HARNESS_POISON_INF ? INFINITY : NAN, x->stream));
    CUDA_CHECK(cudaMemcpyAsync(cd->dR, cd->dC, (size_t)cd->c_elems * harness_dtype_size(cdt),
                               cudaMemcpyDeviceToDevice, x->stream));
    case_alloc_bias(x, p, cd);
    CUDA_CHECK(cudaStreamSynchronize(x->stream));
    size_t ces = harness_dtype_size(cdt);
    cd->hC0 = (float *)xmalloc((size_t)cd->c_elems * sizeof(float));
    cd->rawC0 = (unsigned char *)xmalloc((size_t)cd->c_elems * ces);
    to_host_float(cd->hC0, cd->dC, cdt, cd->c_elems, cd->rawC0);
}

static void *dev_scratch(size_t bytes) {
    void *d = NULL;
    cudaError_t e = cudaMalloc(&d, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        fprintf(stderr, "error: cannot allocate %.1f MiB on the GPU (%s)\n",
                (double)bytes / 1048576.0, cudaGetErrorString(e));
        exit(HARNESS_EXIT_CUDA);
    }
    return d;
}

#define HARNESS_LT_WORKSPACE (32u << 20)
/* cuBLASLt's handle and workspace, made once; exits with HARNESS_EXIT_CUDA when the workspace
 * cannot be allocated (like every other device allocation of a case). */
static void ctx_lt(run_ctx *x) {
    if (x->lt) return;
    CUBLAS_CHECK(cublasLtCreate(&x->lt));
    x->lt_ws_bytes = HARNESS_LT_WORKSPACE;
    cudaError_t e = cudaMalloc(&x->lt_ws, x->lt_ws_bytes);
    if (e != cudaSuccess) {
        fprintf(stderr, "error: cannot allocate cuBLASLt's workspace (%s)\n",
                cudaGetErrorString(e));
        exit(HARNESS_EXIT_CUDA);
    }
}

/* cuBLASLt's plan of a case, for the reference and the "Lt fused" time: with the bias along n
 * it writes R in place (its C = R, which holds C0), along m it computes the transposed product
 * into Y from Yc (C0 transposed, when beta != 0). Not for fp16 accumulation. */
static void case_lt_plan(run_ctx *x, const gemm_problem *p, case_data *cd) {
    if (cd->acc16) {
        snprintf(cd->lt.why, sizeof cd->lt.why, "fp16 accumulation has no cuBLASLt reference");
        return;
    }
    ctx_lt(x);
    const int tr = GEMM_EPI_HAS_BIAS(p->epilogue) && p->bias_axis == GEMM_BIAS_M;
    if (!tr) {
        harness_lt_plan_make(&cd->lt, x->lt, p, 0, cd->dR, cd->dR, p->ldc, x->lt_ws_bytes);
        return;
    }
    const size_t bytes = (size_t)p->m * p->n * harness_dtype_size(p->c_dtype);
    cd->dY = dev_scratch(bytes);
    if (p->beta != 0.0f) cd->dYc = dev_scratch(bytes);
    harness_lt_plan_make(&cd->lt, x->lt, p, 1, cd->dYc ? cd->dYc : cd->dY, cd->dY, p->m,
                         x->lt_ws_bytes);
}

/* Runs cuBLASLt's plan into R (with the bias along m: C0 transposed into Yc, the product into
 * Y, Y transposed back into R). Returns 0, or 1 when cuBLASLt refused at run time. */
static int case_lt_reference(run_ctx *x, const gemm_problem *p, case_data *cd) {
    const size_t es = harness_dtype_size(p->c_dtype);
    if (cd->lt.transposed && cd->dYc) /* Yc(m, n) at m + n*M = C0(m, n) at m*ldc + n */
        CUDA_CHECK(harness_dev_transpose(cd->dYc, p->m, cd->dR, p->ldc, p->m, p->n, es, x->stream));
    if (harness_lt_run(&cd->lt, x->lt, x->lt_ws, x->lt_ws_bytes, x->stream) !=
        CUBLAS_STATUS_SUCCESS)
        return 1;
    if (cd->lt.transposed) /* R(m, n) at m*ldc + n = Y(m, n) at m + n*M */
        CUDA_CHECK(harness_dev_transpose(cd->dR, p->ldc, cd->dY, p->m, p->n, p->m, es, x->stream));
    return 0;
}

/* The fallback reference: cuBLAS at compute type fp32 with an fp32 output, T = alpha * A * B^T
 * (M x N, ld N), then the harness's kernel R = round(act(T + beta * C0 + bias)), one rounding. */
static void case_kernel_reference(run_ctx *x, const gemm_problem *p, case_data *cd) {
    cd->dT = dev_scratch((size_t)p->m * p->n * sizeof(float));
    cublas_gemm_as(x, p, cd->dT, GEMM_FP32, p->n, 0.0f, 0);
    CUDA_CHECK(harness_dev_epilogue(cd->dR, cd->dR, p->c_dtype, p->ldc, cd->dT, GEMM_FP32, p->n,
                                    p->m, p->n, p->beta, p->bias, p->bias_dtype, p->bias_axis,
                                    p->epilogue, p->gelu, x->stream));
}

/* Step 2: the reference into R. The plain GEMM (epilogue none, an output cuBLAS has): cuBLAS
 * at the same compute type (CUBLAS_COMPUTE_16F for fp16 accumulation). Otherwise cuBLASLt with
 * the matching CUBLASLT_EPILOGUE_*, or where it has none, cuBLAS + the reference kernel. */
static void case_reference(run_ctx *x, const gemm_variant *v, gemm_problem *p, case_data *cd) {
    p->A = cd->dA;
    p->B = cd->dB;
    p->C = cd->dR;
    cd->acc16 = is_acc16(v);
    const int plain =
        cd->acc16 || (p->epilogue == GEMM_EPI_NONE && cublas_has_types(p->dtype, p->c_dtype));
    if (x->epi_table || !plain) case_lt_plan(x, p, cd);
    if (plain) {
        cublas_gemm(x, p, cd->dR, cd->acc16);
        cd->reference = cd->acc16 ? "cublas16f" : "cublas";
    } else if (cd->lt.ok && !case_lt_reference(x, p, cd)) {
        cd->reference = "cublaslt";
    } else {
        case_kernel_reference(x, p, cd);
        cd->reference = "cublas+kernel";
    }
    CUDA_CHECK(cudaStreamSynchronize(x->stream));
    p->C = cd->dC;
}

/* Step 3: the lesson's kernel, once, into C, with every SM's shared memory full of NaN first
 * (a kernel that reads smem it did not write in this launch fails the check). */
static void case_launch(run_ctx *x, const gemm_variant *v, const gemm_problem *p) {
    CUDA_CHECK(harness_dev_poison_smem(x->stream));
    cudaError_t le = v->launch(p, x->stream);
    if (le != cudaSuccess) {
        fprintf(stderr, "error: launching %s/%s failed: %s\n", x->lesson->id, v->name,
                cudaGetErrorString(le));
        exit(HARNESS_EXIT_CUDA);
    }
    CUDA_CHECK(cudaStreamSynchronize(x->stream));
}

/* v rounded to dtype d (round to nearest even), as a float. */
static float round_to(gemm_dtype d, float v) {
    if (d == GEMM_FP16) return harness_half_to_float(harness_float_to_half(v));
    if (d == GEMM_BF16) return harness_bf16_to_float(harness_float_to_bf16(v));
    return v;
}

/* Largest problem (M*N*K) checked in full against the float64 CPU reference; above it a
 * sample of rows is checked. */
#define HARNESS_F64_FULL_MNK (1LL << 26)
#define HARNESS_F64_SAMPLE_ROWS 4

/* The float64 CPU reference of the whole expression (the epilogue included): all rows for small
 * problems, a few rows otherwise. It checks the reference as well as the lesson. Writes a
 * reason into reason on failure; cd->f64_rel gets the lesson's worst relative error. */
static void case_check_f64(const gemm_problem *p, case_data *cd, harness_tol tol, char *reason,
                           size_t rlen) {
    const int M = p->m, N = p->n, K = p->k;
    float *hA = (float *)xmalloc((size_t)cd->a_elems * sizeof(float));
    float *hB = (float *)xmalloc((size_t)cd->b_elems * sizeof(float));
    to_host_float(hA, cd->dA, p->dtype, cd->a_elems, NULL);
    to_host_float(hB, cd->dB, p->dtype, cd->b_elems, NULL);
    int full = (long long)M * N * K <= HARNESS_F64_FULL_MNK;
    int rows[HARNESS_F64_SAMPLE_ROWS] = {0, M - 1, M / 2, (int)((cd->seed >> 8) % (unsigned)M)};
    int nblocks = full ? 1 : HARNESS_F64_SAMPLE_ROWS;
    double *ref = (double *)xmalloc(sizeof(double) * (size_t)(full ? M : 1) * N);
    float *ref32 = (float *)xmalloc(sizeof(float) * (size_t)(full ? M : 1) * N);
    for (int bi = 0; bi < nblocks && !reason[0]; ++bi) {
        int r0 = full ? 0 : rows[bi], r1 = full ? M : rows[bi] + 1;
        harness_ref_f64(M, N, K, p->alpha, hA, p->lda, p->a_kmajor, hB, p->ldb, p->b_kmajor,
                        p->beta, cd->hC0, p->ldc, r0, r1, ref);
        harness_ref_epilogue_f64(ref, N, r0, r1, p->epilogue, p->gelu, cd->hBias, p->bias_axis);
        long long cnt = (long long)(r1 - r0) * N; /* rounded as the output is: a correct
                                                    * kernel rounds the exact value once */
        for (long long i = 0; i < cnt; ++i) ref32[i] = round_to(p->c_dtype, (float)ref[i]);
        harness_cmp c64;
        if (!harness_compare(cd->hR + (long long)r0 * p->ldc, p->ldc, ref32, N, r1 - r0, N, tol,
                             &c64))
            snprintf(reason, rlen, "the reference (%s) disagrees with float64 (rows %d..%d): %s",
                     cd->reference, r0, r1 - 1, c64.reason);
        else {
            int ok = harness_compare(cd->hC + (long long)r0 * p->ldc, p->ldc, ref32, N, r1 - r0, N,
                                     tol, &c64);
            if (c64.rel_fro > cd->f64_rel) cd->f64_rel = c64.rel_fro;
            if (!ok)
                snprintf(reason, rlen, "float64 check (rows %d..%d): %s", r0, r1 - 1, c64.reason);
        }
    }
    free(hA);
    free(hB);
    free(ref);
    free(ref32);
}

/* Step 4: compare. The lesson's output against the reference's (tolerance by precision, K, the
 * epilogue and the accumulator; NaN/Inf never pass), the padding of C between N and ldc (must
 * be untouched), then both against the float64 reference. Returns 1 when everything passed;
 * cmp gets the comparison with the reference. */
static int case_compare(const harness_opts *o, const gemm_problem *p, case_data *cd,
                        harness_cmp *cmp, char *reason, size_t rlen) {
    const int M = p->m, N = p->n;
    const gemm_dtype cdt = p->c_dtype;
    size_t ces = harness_dtype_size(cdt);
    cd->hC = (float *)xmalloc((size_t)cd->c_elems * sizeof(float));
    cd->hR = (float *)xmalloc((size_t)cd->c_elems * sizeof(float));
    cd->rawC = (unsigned char *)xmalloc((size_t)cd->c_elems * ces);
    to_host_float(cd->hC, cd->dC, cdt, cd->c_elems, cd->rawC);
    to_host_float(cd->hR, cd->dR, cdt, cd->c_elems, NULL);

    harness_tol tol = harness_tolerance_case(p, cd->acc16, o->exact);
    harness_compare(cd->hC, p->ldc, cd->hR, p->ldc, M, N, tol, cmp);
    snprintf(reason, rlen, "%s", cmp->reason);

    /* elements between N and ldc belong to nobody: they must be untouched */
    if (!reason[0] && p->ldc > N)
        for (long long i = 0; i < M - 1 && !reason[0]; ++i)
            if (memcmp(cd->rawC + (size_t)(i * p->ldc + N) * ces,
                       cd->rawC0 + (size_t)(i * p->ldc + N) * ces, (size_t)(p->ldc - N) * ces))
                snprintf(reason, rlen, "wrote into the padding of C after row %lld", i);

    if (!reason[0]) case_check_f64(p, cd, tol, reason, rlen);
    return reason[0] == '\0';
}

/* What one timed launch runs: the lesson's kernel, cuBLAS, cuBLASLt fused, or cuBLAS + the
 * separate bias/activation kernel (in place on cuBLAS's output). */
typedef enum { RUN_LESSON, RUN_CUBLAS, RUN_LT, RUN_UNFUSED, RUN_CANDIDATE } run_what;

typedef struct timed {
    run_ctx *x;
    const gemm_variant *v;
    const gemm_problem *p; /* p->C: the output of this run */
    case_data *cd;
    run_what what;
    const harness_candidate *cand; /* RUN_CANDIDATE: the tuner's candidate */
} timed;

static void timed_launch(const timed *t) {
    run_ctx *x = t->x;
    const gemm_problem *p = t->p;
    switch (t->what) {
        case RUN_LESSON: CUDA_CHECK(t->v->launch(p, x->stream)); break;
        case RUN_CUBLAS: cublas_gemm(x, p, p->C, t->cd->acc16); break;
        case RUN_CANDIDATE: CUDA_CHECK(tuner->launch(p, t->cand, x->stream)); break;
        case RUN_LT:
            CUBLAS_CHECK(harness_lt_run(&t->cd->lt, x->lt, x->lt_ws, x->lt_ws_bytes, x->stream));
            break;
        case RUN_UNFUSED:
            cublas_gemm(x, p, p->C, 0);
            CUDA_CHECK(harness_dev_epilogue(p->C, NULL, p->c_dtype, p->ldc, p->C, p->c_dtype,
                                            p->ldc, p->m, p->n, 0.0f, p->bias, p->bias_dtype,
                                            p->bias_axis, p->epilogue, p->gelu, x->stream));
            break;
    }
}

/* Median time in ms of `iters` runs, each after the L2 is overwritten by a memset of
 * flush_bytes (> 2x the L2). */
static double time_runs(const timed *t, int iters, int warmup) {
    run_ctx *x = t->x;
    for (int i = 0; i < warmup; ++i) timed_launch(t);
    CUDA_CHECK(cudaStreamSynchronize(x->stream));
    double *ts = (double *)xmalloc(sizeof(double) * (size_t)iters);
    for (int i = 0; i < iters; ++i) {
        CUDA_CHECK(cudaMemsetAsync(x->flush, i & 0xFF, x->flush_bytes, x->stream));
        CUDA_CHECK(cudaEventRecord(x->ev0, x->stream));
        timed_launch(t);
        CUDA_CHECK(cudaEventRecord(x->ev1, x->stream));
        CUDA_CHECK(cudaEventSynchronize(x->ev1));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, x->ev0, x->ev1));
        ts[i] = ms;
    }
    qsort(ts, (size_t)iters, sizeof *ts, cmp_double);
    double med = iters % 2 ? ts[iters / 2] : 0.5 * (ts[iters / 2 - 1] + ts[iters / 2]);
    free(ts);
    return med;
}

/* How many runs to time t with: one launch estimates its time, then --iters and --warmup,
 * fewer for slow kernels (about 2 s of timed runs, 1 s of warm-up at most). */
static void time_plan(const timed *t, int *iters, int *warmup) {
    run_ctx *x = t->x;
    CUDA_CHECK(cudaEventRecord(x->ev0, x->stream));
    timed_launch(t);
    CUDA_CHECK(cudaEventRecord(x->ev1, x->stream));
    CUDA_CHECK(cudaEventSynchronize(x->ev1));
    float est;
    CUDA_CHECK(cudaEventElapsedTime(&est, x->ev0, x->ev1));
    *iters = x->o->iters;
    *warmup = x->o->warmup;
    if (est > 0 && *iters * est > 2000.0)
        *iters = (int)(2000.0 / est) > 3 ? (int)(2000.0 / est) : 3;
    if (*warmup * est > 1000.0) *warmup = 1;
}

/* Step 5: time the lesson's kernel and cuBLAS on the same problem (median of o->iters runs,
 * each after an L2 flush), into the row's ms/TFLOP/s/% columns; with an epilogue (or another
 * output than the default) also cuBLASLt fused and cuBLAS + the separate kernel, where they
 * exist ("-" in the table otherwise). Slow kernels get fewer runs: about 2 s of timed runs per
 * kernel at most. */
static void case_time(run_ctx *x, const gemm_variant *v, gemm_problem *p, case_data *cd,
                      harness_row *row) {
    double flops = 2.0 * p->m * (double)p->n * p->k;
    timed t = {x, v, p, cd, RUN_LESSON, NULL};
    int iters, warmup;
    time_plan(&t, &iters, &warmup);
    row->ms = time_runs(&t, iters, warmup);
    row->tflops = flops / (row->ms * 1e9);
    p->C = cd->dR; /* the others write R */
    if (cd->acc16 || cublas_has_types(p->dtype, p->c_dtype)) {
        t.what = RUN_CUBLAS;
        row->cublas_ms = time_runs(&t, iters, warmup);
        row->cublas_tflops = flops / (row->cublas_ms * 1e9);
        row->pct_cublas = 100.0 * row->cublas_ms / row->ms;
    }
    if (x->epi_table && cd->lt.ok) {
        t.what = RUN_LT;
        row->lt_ms = time_runs(&t, iters, warmup);
    }
    if (p->epilogue != GEMM_EPI_NONE && !cd->acc16 && cublas_has_types(p->dtype, p->c_dtype)) {
        t.what = RUN_UNFUSED;
        row->unfused_ms = time_runs(&t, iters, warmup);
    }
    p->C = cd->dC;
}

/* The result row of a case before timing (times -1: not timed). */
static harness_row case_row(const run_ctx *x, const gemm_variant *v, const gemm_problem *p,
                            const case_data *cd, const harness_cmp *cmp, int pass) {
    harness_row row;
    memset(&row, 0, sizeof row);
    row.lesson = x->lesson->id;
    row.variant = v->name;
    row.dtype = p->dtype;
    row.layout = p->layout;
    row.m = p->m;
    row.n = p->n;
    row.k = p->k;
    row.alpha = p->alpha;
    row.beta = p->beta;
    row.ms = row.tflops = row.cublas_ms = row.cublas_tflops = row.pct_cublas = -1.0;
    row.lt_ms = row.unfused_ms = -1.0;
    row.rel_err = cmp->rel_fro;
    row.max_err = cmp->max_abs;
    row.status = pass ? "PASS" : "FAIL";
    row.out = p->c_dtype;
    row.epilogue = p->epilogue;
    row.bias_axis = p->bias_axis;
    row.gelu = p->gelu;
    row.acc16 = cd->acc16;
    row.reference = cd->reference;
    row.f64_rel_err = cd->f64_rel;
    return row;
}

/* Step 6: report: the table row, a FAIL line with the reason, the CSV row. For fp16
 * accumulation also the error against float64 (about the fp32-accumulated result's). */
static void case_report(const run_ctx *x, const gemm_variant *v, const harness_row *row,
                        const char *reason) {
    if (x->epi_table) harness_table_row_epi(stdout, row);
    else harness_table_row(stdout, row);
    if (strcmp(row->status, "PASS") != 0)
        printf("  FAIL %s/%s %s %s %dx%dx%d: %s\n", x->lesson->id, v->name,
               harness_dtype_name(row->dtype), harness_layout_name(row->layout), row->m, row->n,
               row->k, reason);
    else if (row->acc16 && row->f64_rel_err >= 0)
        printf("  %s: fp16 accumulation, error against float64 %.2e (rows checked: %s)\n", v->name,
               row->f64_rel_err,
               (long long)row->m * row->n * row->k <= HARNESS_F64_FULL_MNK ? "all" : "4 sampled");
    if (x->o->csv[0] && harness_csv_append(x->o->csv, row, &x->env) != 0) {
        fprintf(stderr, "error: cannot write %s: %s\n", x->o->csv, strerror(errno));
        exit(HARNESS_EXIT_USAGE);
    }
}

static void case_free(case_data *cd) {
    free(cd->hC0);
    free(cd->rawC0);
    free(cd->hC);
    free(cd->hR);
    free(cd->rawC);
    free(cd->hBias);
    harness_lt_plan_free(&cd->lt);
    CUDA_CHECK(cudaFree(cd->a_base));
    CUDA_CHECK(cudaFree(cd->b_base));
    CUDA_CHECK(cudaFree(cd->c_base));
    CUDA_CHECK(cudaFree(cd->r_base));
    if (cd->bias_base) CUDA_CHECK(cudaFree(cd->bias_base));
    if (cd->dT) CUDA_CHECK(cudaFree(cd->dT));
    if (cd->dY) CUDA_CHECK(cudaFree(cd->dY));
    if (cd->dYc) CUDA_CHECK(cudaFree(cd->dYc));
}

/* Runs one case through the steps; returns 0 pass, 1 fail. */
static int run_case(run_ctx *x, const gemm_variant *v, gemm_problem *p, int offset) {
    case_data cd;
    case_alloc_fill(x, p, offset, &cd);
    case_reference(x, v, p, &cd);
    case_launch(x, v, p);
    harness_cmp cmp;
    char reason[320];
    int pass = case_compare(x->o, p, &cd, &cmp, reason, sizeof reason);
    harness_row row = case_row(x, v, p, &cd, &cmp, pass);
    if (pass && !x->o->check_only) case_time(x, v, p, &cd, &row);
    case_report(x, v, &row, reason);
    case_free(&cd);
    return pass ? 0 : 1;
}

/* ---- the whole run ----------------------------------------------------------------------- */

static void fill_env(harness_env *e, const struct cudaDeviceProp *prop) {
    snprintf(e->device, sizeof e->device, "%.127s", prop->name);
    cudaRuntimeGetVersion(&e->cuda_runtime);
    cudaDriverGetVersion(&e->cuda_driver);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *c = getenv("GEMM_COMMIT");
    snprintf(e->commit, sizeof e->commit, "%s", c && *c ? c : harness_git_commit);
}

/* What a variant declares beyond the default, as --list shows it after the summary:
 * " (out:fp32|fp16|bf16 epilogue:all bias:fp32|fp16|bf16 acc:fp16)", or "". */
static void variant_caps(char *buf, size_t len, const gemm_variant *v) {
    char outs[64] = "", epis[96] = "", bias[64] = "";
    const char *names[GEMM_NEPIS];
    for (int e = 0; e < GEMM_NEPIS; ++e) names[e] = harness_epi_name((gemm_epi)e);
    mask_names(outs, sizeof outs, (v->dtypes & GEMM_OUT_ALL) >> 4, dtype_names, GEMM_NDTYPES, "|");
    unsigned em = (v->dtypes & GEMM_EPI_ALL) >> 8;
    if (em == 0x3Fu || em == 0x3Eu) snprintf(epis, sizeof epis, "all");
    else mask_names(epis, sizeof epis, em, names, GEMM_NEPIS, "|");
    mask_names(bias, sizeof bias, (v->dtypes & GEMM_BIAS_DT_ALL) >> 16, dtype_names, GEMM_NDTYPES,
               "|");
    buf[0] = '\0';
    if (!(v->dtypes & ~(unsigned)GEMM_DT_ALL)) return;
    snprintf(buf, len, " (%s%s%s%s%s%s%s)", outs[0] ? "out:" : "", outs,
             epis[0] ? (outs[0] ? " epilogue:" : "epilogue:") : "", epis, bias[0] ? " bias:" : "",
             bias,
             (v->dtypes & GEMM_ACC_FP16) ? (outs[0] || epis[0] ? " acc:fp16" : "acc:fp16") : "");
}

static void list_variants(const gemm_lesson *L) {
    printf("%s: %s\n", L->id, L->title);
    for (int i = 0; i < L->nvariants; ++i) {
        const gemm_variant *v = &L->variants[i];
        char dts[64], lays[64];
        mask_names(dts, sizeof dts, v->dtypes, dtype_names, GEMM_NDTYPES, ",");
        mask_names(lays, sizeof lays, v->layouts, layout_names, GEMM_NLAYOUTS, ",");
        char caps[160];
        variant_caps(caps, sizeof caps, v);
        printf("  %-24s %-15s %-12s align %-2d %s%s\n", v->name, dts, lays, v->align, v->summary,
               caps);
    }
}

/* explain_cases's walk: one line per problem, "MxNxK dtype layout[ -> out epilogue (axis)]:
 * the lesson's explain line", the output, epilogue and axis named when epi_words */
typedef struct {
    const harness_opts *o;
    int epi_words;
} explain_ctx;
static void explain_problem(gemm_problem *p, void *ctx) {
    const explain_ctx *c = (const explain_ctx *)ctx;
    /* stand-in addresses: 256-byte aligned bases plus the offset */
    const uintptr_t off = (uintptr_t)c->o->offset * harness_dtype_size(p->dtype);
    const uintptr_t offc = (uintptr_t)c->o->offset * harness_dtype_size(p->c_dtype);
    p->A = (const void *)((uintptr_t)0x100000 + off);
    p->B = (const void *)((uintptr_t)0x200000 + off);
    p->C = (void *)((uintptr_t)0x300000 + offc);
    if (GEMM_EPI_HAS_BIAS(p->epilogue)) p->bias = (const void *)0x400000;
    char line[512];
    explain_fn(p, line, sizeof line);
    char epi[64] = "";
    if (c->epi_words)
        snprintf(epi, sizeof epi, " -> %s %s%s", dtype_names[p->c_dtype],
                 harness_epi_name(p->epilogue),
                 !GEMM_EPI_HAS_BIAS(p->epilogue) ? ""
                 : p->bias_axis == GEMM_BIAS_M   ? " (bias along m)"
                                                 : " (bias along n)");
    printf("%dx%dx%d %s %s%s: %s\n", p->m, p->n, p->k, dtype_names[p->dtype],
           layout_names[p->layout], epi, line);
}

/* --explain: the lesson's explain line for every (dtype, output, epilogue, bias axis, layout,
 * size) of the request (the dtypes of its default variant when --dtype is not given; the
 * output, epilogue and axis named in the line only when the request gives --out, --epilogue or
 * --bias-axis), without the GPU. */
static int explain_cases(const gemm_lesson *L, const harness_opts *o, const char *prog) {
    if (!explain_fn) {
        fprintf(stderr, "%s: lesson %s has no dispatcher to explain (--explain is for lesson 08)\n",
                prog, L->id);
        return HARNESS_EXIT_USAGE;
    }
    const unsigned layouts = request_layouts(L, o);
    unsigned dts = o->dtypes ? o->dtypes : L->variants[0].dtypes;
    char line[512];
    line[0] = '\0';
    explain_fn(NULL, line, sizeof line);
    if (line[0]) printf("%s: %s\n", L->id, line);
    explain_ctx ctx = {o, o->outs || o->epis || o->bias_axes};
    for_each_request_problem(o, dts, layouts, explain_problem, &ctx);
    return HARNESS_EXIT_OK;
}

/* Refusals of an explicit request, one line per reason, before anything runs. Returns 1 when
 * nothing is left to run (the caller exits 2). A default request with something to run says
 * nothing here: its skips are one line after the table (harness_skip_line). */
static int report_refusals(const gemm_lesson *L, const harness_plan *pl, const char *prog) {
    if (pl->default_request && pl->ncases > 0) return 0;
    char line[1024];
    for (int g = 0; g < pl->ngroups; ++g) {
        harness_refusal_line(line, sizeof line, L->id, pl, g);
        fprintf(stderr, "%s\n", line);
    }
    if (pl->nlost)
        fprintf(stderr,
                "%s: refused: %d more cases for other reasons (narrow the request with "
                "--variant, --size, --dtype, --layout to see them)\n",
                L->id, pl->nlost);
    if (pl->ncases > 0) return 0;
    if (pl->ngroups != 1 || pl->nlost)
        fprintf(stderr, "%s: nothing to run: every requested case was refused\n", prog);
    return 1;
}

/* The CUDA device, or one sentence on stderr and HARNESS_EXIT_CUDA. */
static int open_device(const char *prog, struct cudaDeviceProp *prop) {
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        /* without an NVIDIA driver the runtime reports cudaErrorInsufficientDriver, whose text
         * ("driver version is insufficient") misleads on a machine that has no driver at all */
        const char *why = e == cudaSuccess                   ? "0 devices"
                          : e == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one older "
                                                               "than this CUDA runtime"
                          : e == cudaErrorNoDevice           ? "no NVIDIA GPU found"
                                                             : cudaGetErrorString(e);
        fprintf(stderr,
                "%s: no CUDA device is available (%s); this course needs an NVIDIA GPU "
                "of compute capability 8.0 or newer.\n",
                prog, why);
        return HARNESS_EXIT_CUDA;
    }
    CUDA_CHECK(cudaGetDeviceProperties(prop, 0));
    if (prop->major < 8) {
        fprintf(stderr,
                "%s: device 0 (%s) has compute capability %d.%d; this course needs 8.0 "
                "or newer.\n",
                prog, prop->name, prop->major, prop->minor);
        return HARNESS_EXIT_CUDA;
    }
    return 0;
}

/* A variant of the lesson declares more than the default (output dtypes, epilogues, fp16
 * accumulation: bits beyond the input dtypes in its dtypes mask). */
static int lesson_has_epilogue(const gemm_lesson *L) {
    for (int i = 0; i < L->nvariants; ++i)
        if (L->variants[i].dtypes & ~(unsigned)GEMM_DT_ALL) return 1;
    return 0;
}

/* Stream, events, cuBLAS and (when timing) the L2 flush buffer of 3x the L2. */
static int ctx_open(run_ctx *x, const gemm_lesson *L, const harness_opts *o,
                    const struct cudaDeviceProp *prop) {
    memset(x, 0, sizeof *x);
    x->lesson = L;
    x->o = o;
    fill_env(&x->env, prop);
    CUDA_CHECK(cudaStreamCreate(&x->stream));
    CUDA_CHECK(cudaEventCreate(&x->ev0));
    CUDA_CHECK(cudaEventCreate(&x->ev1));
    CUBLAS_CHECK(cublasCreate(&x->blas));
    CUBLAS_CHECK(cublasSetStream(x->blas, x->stream));
    /* the wide table (output, epilogue columns); cuBLASLt is made when a case needs it */
    x->epi_table = lesson_has_epilogue(L) || o->outs || o->epis || o->bias_axes;
    if (!o->check_only) { /* memset before each timed run evicts the operands from L2 */
        x->flush_bytes = (size_t)(prop->l2CacheSize > 0 ? prop->l2CacheSize : (64 << 20)) * 3;
        cudaError_t e = cudaMalloc(&x->flush, x->flush_bytes);
        if (e != cudaSuccess) {
            fprintf(stderr, "error: cannot allocate the L2 flush buffer (%s)\n",
                    cudaGetErrorString(e));
            return HARNESS_EXIT_CUDA;
        }
    }
    return 0;
}

static void ctx_close(run_ctx *x) {
    cublasDestroy(x->blas);
    if (x->lt) cublasLtDestroy(x->lt);
    if (x->lt_ws) cudaFree(x->lt_ws);
    if (x->flush) cudaFree(x->flush);
    cudaEventDestroy(x->ev0);
    cudaEventDestroy(x->ev1);
    cudaStreamDestroy(x->stream);
}

/* The two lines above the table: lesson, device, commit; the scalars and the checks' setup. */
static void print_run_header(const run_ctx *x, const struct cudaDeviceProp *prop) {
    const harness_opts *o = x->o;
    printf("%s: %s | %s, %d SMs, CUDA %d.%d | commit %s\n", x->lesson->id, x->lesson->title,
           x->env.device, prop->multiProcessorCount, x->env.cuda_runtime / 1000,
           (x->env.cuda_runtime % 1000) / 10, x->env.commit);
    const char *poison = o->beta != 0.0f                   ? ""
                         : o->poison == HARNESS_POISON_INF ? ", C prefilled with +Inf"
                                                           : ", C prefilled with NaN";
    const char *init = o->init == HARNESS_INIT_ONES  ? ", all-ones A and B"
                       : o->init == HARNESS_INIT_INT ? ", integer A and B"
                                                     : "";
    printf("alpha=%g beta=%g%s%s%s\n", (double)o->alpha, (double)o->beta, poison, init,
           o->check_only ? ", check only" : "");
}

/* Every planned case, one table row each (a progress line on a terminal). */
static void run_cases(run_ctx *x, const harness_plan *pl) {
    int tty = isatty(2);
    if (x->epi_table) harness_table_header_epi(stdout);
    else harness_table_header(stdout);
    for (int c = 0; c < pl->ncases; ++c) {
        harness_case cs = pl->cases[c];
        if (tty)
            fprintf(stderr, "[%d/%d] %s %s %s %dx%dx%d ...\r", c + 1, pl->ncases, cs.v->name,
                    dtype_names[cs.p.dtype], layout_names[cs.p.layout], cs.p.m, cs.p.n, cs.p.k);
        if (run_case(x, cs.v, &cs.p, x->o->offset)) ++x->failed;
        else ++x->passed;
    }
    if (tty) fprintf(stderr, "%60s\r", "");
}

/* ---- --tune: every candidate of the lesson's tuner, checked once and timed ---------------- */

/* One candidate's result. */
typedef struct tune_result {
    const harness_candidate *c;
    int pass;
    double ms; /* < 0: not timed (it failed) */
} tune_result;

/* The reference's root mean square over its finite elements and their count (the host copy
 * hR the full check made), for the device check of the other candidates. */
static double ref_rms(const gemm_problem *p, const case_data *cd, double *sum2) {
    long long n = 0;
    double s = 0.0;
    for (long long i = 0; i < p->m; ++i)
        for (long long j = 0; j < p->n; ++j) {
            const double r = cd->hR[i * p->ldc + j];
            if (isfinite(r)) {
                s += r * r;
                ++n;
            }
        }
    *sum2 = s;
    return n ? sqrt(s / (double)n) : 0.0;
}

/* The device check of one candidate's output C against R (harness_dev_compare, the same
 * verdicts as harness_compare plus the padding of C). Returns 1 on pass, else 0 with a
 * reason. */
static int tune_check_dev(run_ctx *x, const gemm_problem *p, case_data *cd, const void *dC0,
                          double rms, double sum_ref2, harness_dev_cmp_part *dparts, char *reason,
                          size_t rlen) {
    harness_dev_cmp_part parts[HARNESS_DEV_CMP_PARTS], a = {0.0, 0.0, 0.0, -1, 0, -1, 0};
    CUDA_CHECK(harness_dev_compare(cd->dC, cd->dR, dC0, p->c_dtype, p->ldc, p->m, p->n, rms, dparts,
                                   x->stream));
    CUDA_CHECK(cudaMemcpyAsync(parts, dparts, sizeof parts, cudaMemcpyDeviceToHost, x->stream));
    CUDA_CHECK(cudaStreamSynchronize(x->stream));
    for (int b = 0; b < HARNESS_DEV_CMP_PARTS; ++b) { /* in block order: a fixed sum */
        const harness_dev_cmp_part *q = &parts[b];
        a.sum_d2 += q->sum_d2;
        if (q->max_abs > a.max_abs) a.max_abs = q->max_abs;
        if (q->worst >= 0 && (a.worst < 0 || q->worst_scaled > a.worst_scaled ||
                              (q->worst_scaled == a.worst_scaled && q->worst < a.worst))) {
            a.worst_scaled = q->worst_scaled;
            a.worst = q->worst;
        }
        if (q->nonfinite && (a.first_bad < 0 || q->first_bad < a.first_bad))
            a.first_bad = q->first_bad;
        a.nonfinite += q->nonfinite;
        a.pad_diff += q->pad_diff;
    }
    const harness_tol tol = harness_tolerance_case(p, 0, x->o->exact);
    const double rel = sum_ref2 > 0 ? sqrt(a.sum_d2 / sum_ref2) : (a.sum_d2 > 0 ? INFINITY : 0.0);
    reason[0] = '\0';
    if (a.nonfinite)
        snprintf(reason, rlen, "%lld NaN/Inf outputs (unwritten?), first at (%lld,%lld)",
                 a.nonfinite, a.first_bad / p->n, a.first_bad % p->n);
    else if (a.worst_scaled > tol.elem)
        snprintf(reason, rlen, "element (%lld,%lld): scaled error %.3g > %.3g", a.worst / p->n,
                 a.worst % p->n, a.worst_scaled, tol.elem);
    else if (rel > tol.rel_fro)
        snprintf(reason, rlen, "relative error %.3g > %.3g", rel, tol.rel_fro);
    else if (a.pad_diff)
        snprintf(reason, rlen, "wrote %lld elements into the padding of C", a.pad_diff);
    return reason[0] == '\0';
}

static int cmp_result(const void *a, const void *b) {
    const tune_result *x = (const tune_result *)a, *y = (const tune_result *)b;
    if (x->pass != y->pass) return y->pass - x->pass; /* passing ones first */
    return (x->ms > y->ms) - (x->ms < y->ms);
}

/* " NAME 0.1234 ms 56.7 TFLOP/s" of one result into buf. */
static void tune_what(char *buf, size_t len, const tune_result *r, double flops) {
    snprintf(buf, len, "%s %.4f ms %.1f TFLOP/s", r->c->name, r->ms, flops / (r->ms * 1e9));
}

/* Tunes one case: allocate and fill, the reference, then every candidate: C restored from
 * its initial contents, shared memory poisoned, one launch, the check (the default's
 * candidate, or the first, against the reference and float64 as a variant is checked; the
 * others on the device against the reference), and the passing ones timed. Prints the line
 * and appends the winner to `table`. Returns the number of wrong candidates. */
static int tune_case(run_ctx *x, const gemm_variant *v, gemm_problem *p, FILE *table) {
    const harness_opts *o = x->o;
    case_data cd;
    case_alloc_fill(x, p, o->offset, &cd);
    case_reference(x, v, p, &cd);
    static harness_candidate cands[HARNESS_MAX_CANDIDATES];
    static tune_result res[HARNESS_MAX_CANDIDATES];
    const int n = tuner->candidates(p, cands, HARNESS_MAX_CANDIDATES);
    const size_t cbytes = (size_t)cd.c_elems * harness_dtype_size(p->c_dtype);
    void *dC0 = dev_scratch(cbytes);
    harness_dev_cmp_part *dparts =
        (harness_dev_cmp_part *)dev_scratch(sizeof(harness_dev_cmp_part) * HARNESS_DEV_CMP_PARTS);
    CUDA_CHECK(cudaMemcpyAsync(dC0, cd.dC, cbytes, cudaMemcpyDeviceToDevice, x->stream));
    int first = 0; /* the candidate checked in full: the default's */
    for (int i = 0; i < n; ++i)
        if (cands[i].is_default) first = i;
    double rms = 0.0, sum_ref2 = 0.0;
    int wrong = 0;
    const double flops = 2.0 * p->m * (double)p->n * p->k;
    char reason[320];
    for (int k = 0; k < n; ++k) {
        const int i = k == 0 ? first : (k <= first ? k - 1 : k); /* the full check first */
        tune_result *r = &res[k];
        r->c = &cands[i];
        r->ms = -1.0;
        CUDA_CHECK(cudaMemcpyAsync(cd.dC, dC0, cbytes, cudaMemcpyDeviceToDevice, x->stream));
        CUDA_CHECK(harness_dev_poison_smem(x->stream));
        cudaError_t le = tuner->launch(p, r->c, x->stream);
        if (le == cudaSuccess) le = cudaStreamSynchronize(x->stream);
        if (le != cudaSuccess) {
            fprintf(stderr, "error: launching %s/%s failed: %s\n", x->lesson->id, r->c->name,
                    cudaGetErrorString(le));
            exit(HARNESS_EXIT_CUDA);
        }
        if (k == 0) {
            harness_cmp cmp;
            r->pass = case_compare(o, p, &cd, &cmp, reason, sizeof reason);
            rms = ref_rms(p, &cd, &sum_ref2);
        } else {
            r->pass = tune_check_dev(x, p, &cd, dC0, rms, sum_ref2, dparts, reason, sizeof reason);
        }
        if (!r->pass) {
            ++wrong;
            printf("  FAIL %s %s %s %dx%dx%d: candidate %s: %s\n", x->lesson->id,
                   harness_dtype_name(p->dtype), harness_layout_name(p->layout), p->m, p->n, p->k,
                   r->c->name, reason);
            continue;
        }
        timed t = {x, v, p, &cd, RUN_CANDIDATE, r->c};
        int iters, warmup;
        time_plan(&t, &iters, &warmup);
        r->ms = time_runs(&t, iters, warmup);
    }
    /* cuBLAS on the same problem, into R */
    timed tb = {x, v, p, &cd, RUN_CUBLAS, NULL};
    p->C = cd.dR;
    int iters, warmup;
    time_plan(&tb, &iters, &warmup);
    const double cublas_ms = time_runs(&tb, iters, warmup);
    p->C = cd.dC;
    qsort(res, (size_t)n, sizeof res[0], cmp_result);
    char best[160], next[200] = "", dflt[512] = "";
    int ndef = -1;
    for (int k = 0; k < n; ++k)
        if (res[k].c->is_default) ndef = k;
    if (n > 0 && res[0].pass) {
        tune_what(best, sizeof best, &res[0], flops);
        if (n > 1 && res[1].pass) {
            char w[160];
            tune_what(w, sizeof w, &res[1], flops);
            snprintf(next, sizeof next, "; next %s", w);
        }
        if (ndef == 0) snprintf(dflt, sizeof dflt, "; default (%s) = best", res[0].c->note);
        else if (ndef > 0 && res[ndef].pass) {
            char w[160];
            tune_what(w, sizeof w, &res[ndef], flops);
            snprintf(dflt, sizeof dflt, "; default (%s) %s, %.2fx the best's time",
                     res[ndef].c->note, w, res[ndef].ms / res[0].ms);
        } else if (ndef > 0) {
            snprintf(dflt, sizeof dflt, "; default (%s) %s FAILED", res[ndef].c->note,
                     res[ndef].c->name);
        }
        printf("%dx%dx%d %s %s: best %s%s%s; cuBLAS %.4f ms (best at %.1f%%); %d candidates\n",
               p->m, p->n, p->k, harness_dtype_name(p->dtype), harness_layout_name(p->layout), best,
               next, dflt, cublas_ms, 100.0 * cublas_ms / res[0].ms, n);
        if (table) {
            char line[512];
            tuner->entry(p, res[0].c, res[0].ms, line, sizeof line);
            fprintf(table, "%s\n", line);
            fflush(table);
        }
    } else {
        printf("%dx%dx%d %s %s: no candidate passed (%d candidates)\n", p->m, p->n, p->k,
               harness_dtype_name(p->dtype), harness_layout_name(p->layout), n);
    }
    CUDA_CHECK(cudaFree(dC0));
    CUDA_CHECK(cudaFree(dparts));
    case_free(&cd);
    return wrong + (n == 0);
}

/* --tune: the request's cases of the default variant (planned and refused as a run would be),
 * each tuned (tune_case); the table to --tune-out. Returns the exit status: 1 when a candidate
 * was wrong. */
static int tune_cases(const gemm_lesson *L, const harness_opts *o, const char *prog) {
    if (!tuner) {
        fprintf(stderr, "%s: lesson %s has no dispatcher to tune (--tune is for lesson 08)\n", prog,
                L->id);
        return HARNESS_EXIT_USAGE;
    }
    harness_opts od = *o;
    strcpy(od.variant, "default");
    harness_plan plan;
    char err[256];
    if (harness_plan_cases(L, &od, &plan, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return HARNESS_EXIT_USAGE;
    }
    if (report_refusals(L, &plan, prog)) {
        harness_plan_free(&plan);
        return HARNESS_EXIT_USAGE;
    }
    struct cudaDeviceProp prop;
    run_ctx x;
    int rc = open_device(prog, &prop);
    if (!rc) rc = ctx_open(&x, L, &od, &prop);
    if (rc) {
        harness_plan_free(&plan);
        return rc;
    }
    FILE *table = NULL;
    if (o->tune_out[0]) {
        table = fopen(o->tune_out, "w");
        if (!table) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, o->tune_out, strerror(errno));
            harness_plan_free(&plan);
            ctx_close(&x);
            return HARNESS_EXIT_USAGE;
        }
        fprintf(table, "# %s --tune on %s, CUDA %d.%d, %s, commit %s; --iters %d --warmup %d\n",
                L->id, x.env.device, x.env.cuda_runtime / 1000, (x.env.cuda_runtime % 1000) / 10,
                x.env.date, x.env.commit, o->iters, o->warmup);
        fputs(tuner->header, table);
    }
    printf("%s: --tune | %s, %d SMs, CUDA %d.%d | commit %s | --iters %d --warmup %d\n", L->id,
           x.env.device, prop.multiProcessorCount, x.env.cuda_runtime / 1000,
           (x.env.cuda_runtime % 1000) / 10, x.env.commit, o->iters, o->warmup);
    int wrong = 0;
    for (int c = 0; c < plan.ncases; ++c) {
        harness_case cs = plan.cases[c];
        wrong += tune_case(&x, cs.v, &cs.p, table);
    }
    if (table && fclose(table) != 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, o->tune_out, strerror(errno));
        rc = HARNESS_EXIT_USAGE;
    }
    printf("%d problems tuned, %d wrong candidates%s%s\n", plan.ncases, wrong,
           o->tune_out[0] ? "; table: " : "", o->tune_out);
    harness_plan_free(&plan);
    ctx_close(&x);
    return rc ? rc : wrong ? HARNESS_EXIT_FAIL : HARNESS_EXIT_OK;
}

int harness_main(int argc, char **argv, const gemm_lesson *lesson) {
    const char *prog = argc > 0 ? argv[0] : "run";
    harness_opts o;
    char err[256];
    if (harness_parse(argc, argv, &o, err, sizeof err)) {
        fprintf(stderr, "%s: %s (see --help)\n", prog, err);
        return HARNESS_EXIT_USAGE;
    }
    if (o.help) {
        harness_usage(stdout, prog, lesson);
        return HARNESS_EXIT_OK;
    }
    if (o.list) {
        list_variants(lesson);
        return HARNESS_EXIT_OK;
    }
    if (o.tuned[0] || o.tune) {
        if (!tuner) {
            fprintf(stderr, "%s: lesson %s has no dispatcher to tune (--tune%s is for lesson 08)\n",
                    prog, lesson->id, o.tune ? "" : "d");
            return HARNESS_EXIT_USAGE;
        }
        if (o.tuned[0] && tuner->load(o.tuned, err, sizeof err)) {
            fprintf(stderr, "%s: --tuned: %s\n", prog, err);
            return HARNESS_EXIT_USAGE;
        }
    }
    if (o.explain) return explain_cases(lesson, &o, prog);
    if (o.tune) return tune_cases(lesson, &o, prog);

    /* Plan every (variant, dtype, layout, size) first, so that refusals are reported, and a
     * request with nothing runnable is a usage error, before the GPU is touched. */
    harness_plan plan;
    if (harness_plan_cases(lesson, &o, &plan, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return HARNESS_EXIT_USAGE;
    }
    if (report_refusals(lesson, &plan, prog)) {
        harness_plan_free(&plan);
        return HARNESS_EXIT_USAGE;
    }

    struct cudaDeviceProp prop;
    run_ctx x;
    int rc = open_device(prog, &prop);
    if (!rc) rc = ctx_open(&x, lesson, &o, &prop);
    if (rc) {
        harness_plan_free(&plan);
        return rc;
    }
    x.skipped = plan.nrefused;
    print_run_header(&x, &prop);
    run_cases(&x, &plan);
    if (plan.default_request && plan.nrefused) {
        char line[2048];
        harness_skip_line(line, sizeof line, lesson->id, &plan);
        printf("%s\n", line);
    }
    printf("%d passed, %d failed, %d skipped\n", x.passed, x.failed, x.skipped);
    harness_plan_free(&plan);
    ctx_close(&x);
    return x.failed ? HARNESS_EXIT_FAIL : HARNESS_EXIT_OK;
}
