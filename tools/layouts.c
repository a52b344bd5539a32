/* tools/layouts.c -- explore CuTe-style layouts from the command line (host only).
 *
 *   layouts show '(4,8):(8,1)'            text, size, cosize, rank, depth, 2-D table
 *   layouts compose A B                   A o B   (B a layout or a tiler '<L0,L1>')
 *   layouts divide A B                    logical/zipped/tiled divide (tiled needs a tiler)
 *   layouts product A B                   logical/zipped/tiled/blocked/raked product
 *   layouts complement A M                complement of A up to cotarget M
 *   layouts inverse A                     right and left inverse
 *   layouts coalesce A [PROFILE]          coalesce (by-mode with a profile such as '(1,1)')
 *   layouts filter A
 *   layouts swizzle B M S [L]             Sw<B,M,S>(x) for the first offsets x, or the table of Sw o L
 *   layouts draw A                        gnuplot data "row col offset"
 *   layouts draw-swizzle B M S A          gnuplot data of Sw<B,M,S> o A
 *   layouts banks A BYTES [B M S]         gnuplot data "row col bank" (optionally swizzled)
 *   layouts bankmap A BYTES [B M S]       bank of each 16-byte chunk of a (rows, cols) smem tile, and
 *                                         the worst conflict of 8 rows reading one chunk column
 *   layouts tv A|B|C|LDSM-SRC|LDSM-DST    gnuplot thread/value map of an mma.m16n8k16 / ldmatrix.x4 TV
 *   layouts grid TV COORD                 a TV layout as a thread/value grid over COORD
 *   layouts mma A|B|C [--threads]         the mma.sync m16n8k16 fragment TV layouts, as grids
 *   layouts mma fma LM LN VM VN           the FFMA atom of lesson 04 (lanes LM x LN, VM x VN each)
 *   layouts ldmatrix x1|x2|x4 [trans] [A|B]   ldmatrix source/destination TV layouts; with A or B
 *                                         the rows each lane supplies, derived from that MMA operand
 *   layouts copy THR VAL BLK_M BLK_N      a tiled copy's TV layout (CuTe's make_tiled_copy) and grid
 *   layouts slice L CRD                   L(c0,_,..) with CRD like '(_,3)': the free modes and offset
 *   layouts --help (or -h)                this list and the notation on stdout, exit status 0
 *
 * Bad input (unknown command, too few or too many arguments, an unreadable layout): one line on
 * stderr, exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "layout_print.h"

static void die(const char *fmt, const char *arg, int rc) {
    fprintf(stderr, "layouts: ");
    fprintf(stderr, fmt, arg);
    if (rc) fprintf(stderr, ": %s", lay_strerror(rc));
    fputc('\n', stderr);
    exit(2);
}

static lay_layout arg_layout(const char *s) {
    lay_layout L;
    int rc = lay_parse(s, &L);
    if (rc) die("cannot read layout '%s'", s, rc);
    return L;
}

static long arg_int(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end != 0) die("not an integer: '%s'", s, 0);
    return v;
}

static void put(const char *label, lay_layout L) {
    printf("%-16s ", label);
    lay_fprint(stdout, L);
    putchar('\n');
}

static void result(const char *label, int rc, lay_layout L) {
    if (rc) printf("%-16s error: %s\n", label, lay_strerror(rc));
    else put(label, L);
}

static lay_swizzle arg_swizzle(const char *b, const char *m, const char *s) {
    lay_swizzle sw;
    char text[64];
    snprintf(text, sizeof text, "Sw<%s,%s,%s>", b, m, s);
    int rc = lay_swizzle_make(&sw, (int)arg_int(b), (int)arg_int(m), (int)arg_int(s));
    if (rc) die("bad swizzle %s", text, rc);
    return sw;
}

/* bankmap: the shared-memory bank map of the rank-2 (rows, cols) tile S of `bytes`-byte
 * elements (32 banks of 4 bytes: CUDA C++ Programming Guide, "Shared Memory"), one cell per
 * 16-byte chunk of a row (16/bytes consecutive columns, which must be contiguous in smem): the
 * first bank the chunk covers. Then the worst bank conflict of 8 consecutive rows (starting at
 * a multiple of 8) reading the same chunk column: one 8x8 matrix of ldmatrix, or one 8-lane
 * phase of a 16-byte-per-lane access; a phase costs as many wavefronts as the busiest bank has
 * distinct 4-byte words. Exits with status 2 on a tile it cannot map. */
static void bankmap(lay_swizzled S, int bytes, const char *text) {
    lay_layout m0, m1;
    if (lay_rank(S.layout) != 2 || lay_get(&m0, S.layout, 0) || lay_get(&m1, S.layout, 1))
        die("bankmap: %s is not a rank-2 (rows, cols) tile", text, 0);
    const int rows = lay_size(m0), per = 16 / bytes, chunks = lay_size(m1) / per;
    if (lay_size(m1) % per || chunks > 64)
        die("bankmap: the rows of %s are not whole 16-byte chunks (at most 64)", text, 0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < chunks; ++c)
            for (int e = 1; e < per; ++e)
                if (lay_swizzled_crd2idx2(S, r, c * per + e) !=
                    lay_swizzled_crd2idx2(S, r, c * per) + e)
                    die("bankmap: a 16-byte chunk of %s is not contiguous in smem (see banks)",
                        text, 0);
    printf("bank map of ");
    if (S.sw.b) printf("Sw<%d,%d,%d> o 0 o ", S.sw.b, S.sw.m, S.sw.s);
    lay_fprint(stdout, S.layout);
    printf(", %d-byte elements: the first of the 4 banks each 16-byte chunk covers\n%s", bytes,
           "row\\chunk");
    for (int c = 0; c < chunks; ++c) printf(" %3d", c);
    putchar('\n');
    int worst = 1;
    for (int r = 0; r < rows; ++r) {
        printf("%9d", r);
        for (int c = 0; c < chunks; ++c) {
            printf(" %3lld", (lay_swizzled_crd2idx2(S, r, c * per) * bytes / 4) % 32);
        }
        putchar('\n');
    }
    for (int r0 = 0; r0 + 8 <= rows; r0 += 8)
        for (int c = 0; c < chunks; ++c) {
            long long words[32][32]; /* per bank, the distinct words the 8 chunks touch */
            int count[32] = {0};
            for (int r = r0; r < r0 + 8; ++r)
                for (int w = 0; w < 4; ++w) {
                    long long word = lay_swizzled_crd2idx2(S, r, c * per) * bytes / 4 + w;
                    int bank = (int)(word % 32), seen = 0;
                    for (int i = 0; i < count[bank]; ++i) seen |= words[bank][i] == word;
                    if (!seen) words[bank][count[bank]++] = word;
                    if (count[bank] > worst) worst = count[bank];
                }
        }
    if (rows < 8) printf("(fewer than 8 rows: no column read to check)\n");
    else if (worst == 1)
        printf("8 rows reading one chunk column (an ldmatrix matrix): conflict-free\n");
    else
        printf("8 rows reading one chunk column (an ldmatrix matrix): %d-way bank conflict\n",
               worst);
}

static const char *const commands =
    "  show A                       text, size, cosize, rank, depth, 2-D table\n"
    "  compose A B                  A o B   (B a layout or a tiler '<L0,L1>')\n"
    "  divide A B                   logical/zipped/tiled divide (tiled needs a tiler)\n"
    "  product A B                  logical/zipped/tiled/blocked/raked product\n"
    "  complement A M               complement of A up to cotarget M\n"
    "  inverse A                    right and left inverse\n"
    "  coalesce A [PROFILE]         coalesce (by-mode with a profile such as '(1,1)')\n"
    "  filter A                     coalesce after dropping stride-0 and size-1 modes\n"
    "  swizzle B M S [L]            Sw<B,M,S>(x), 16 offsets x per row, or the table of Sw o L\n"
    "  draw A                       gnuplot data \"row col offset\"\n"
    "  draw-swizzle B M S A         gnuplot data of Sw<B,M,S> o A\n"
    "  banks A BYTES [B M S]        gnuplot data \"row col bank\" (optionally swizzled)\n"
    "  bankmap A BYTES [B M S]      the first bank of each 16-byte chunk of a (rows, cols) smem "
    "tile,\n"
    "                               and the worst conflict of 8 rows reading one chunk column\n"
    "  tv A|B|C|LDSM-SRC|LDSM-DST   gnuplot data \"row col thread value\" of an mma / ldmatrix.x4 "
    "TV\n"
    "  grid TV COORD                TV layout as a thread/value grid over COORD ((row,col) -> "
    "index)\n"
    "  mma A|B|C [--threads]        mma.sync m16n8k16 fragment TV layouts (PTX ISA 9.7.14.5.8) as "
    "grids;\n"
    "                               --threads lists each lane's values instead\n"
    "  mma fma LM LN VM VN          the FFMA atom: LM x LN lanes, VM x VN accumulators each "
    "(lesson 04)\n"
    "  ldmatrix x1|x2|x4 [trans] [A|B]  ldmatrix source and destination TV layouts (PTX ISA "
    "9.7.14.5.15);\n"
    "                               with A or B: the rows each lane supplies for that mma "
    "operand,\n"
    "                               op o right_inverse(dst) o src (CuTe's make_tiled_copy_A/B)\n"
    "  copy THR VAL BLK_M BLK_N     tiled copy: thread layout THR x value layout VAL over a tile\n"
    "  slice L CRD                  L at CRD, e.g. '(_,3)': the layout of the free modes and "
    "offset\n";

static const char *const notation =
    "Notation:\n"
    "  (4,8):(8,1)      shape (4,8), strides (8,1): coordinate (i,j) -> offset 8i + j; a 1-D "
    "index\n"
    "                   splits colexicographically, i = c0 + 4*c1 (leftmost mode fastest)\n"
    "  ((4,8),(2,2)):((32,1),(16,8))  nested modes; a TV layout has mode 0 = thread, mode 1 =\n"
    "                   value: (t, v) -> index of the element that thread t holds as value v\n"
    "  <4:1,3:1>        a by-mode tiler: mode i of a layout is handled by the i-th layout\n"
    "  Sw<B,M,S>        swizzle: x ^ ((x >> S) & (((1<<B)-1) << M)): B bits at [M+S, M+S+B) are\n"
    "                   XORed into [M, M+B); on element offsets, M = log2(elements per 16 bytes)\n"
    "  Sw<3,3,3> o 0 o L   i -> Sw(0 + L(i)): the layout L, then offset 0, then the swizzle "
    "(CuTe's\n"
    "                   ComposedLayout); Sw<3,3,3> on 2-byte elements = Sw<3,4,3> on bytes = "
    "16-byte\n"
    "                   chunks XORed with the row of 128 bytes, the 128-byte rule\n"
    "  A o B            composition: (A o B)(i) = A(B(i))\n"
    "  T5V1             in grids: thread 5, value 1 holds this element; '.' nobody\n";

static void usage(void) {
    fputs("usage: layouts show|compose|divide|product|complement|inverse|coalesce|filter|"
          "swizzle|draw|draw-swizzle|banks|bankmap|tv|grid|mma|ldmatrix|copy|slice ARGS (layouts "
          "--help)\n",
          stderr);
    exit(2);
}

static void help(void) {
    printf("usage: layouts COMMAND ARGS   (layouts as in '(4,8):(8,1)', tilers as in '<4:1,3:1>')\n"
           "%s"
           "%s"
           "Bad input: one line on stderr, exit status 2. Source and examples: tools/layouts.c,\n"
           "the READMEs of lessons/02_layout, 04_copy, 05_mma and 06_swizzle.\n",
           commands, notation);
    exit(0);
}

/* argc must lie in [lo, hi]: too few -> usage, too many -> one line naming the first extra one. */
static void need(int argc, char **argv, int lo, int hi) {
    if (argc < lo) usage();
    if (argc > hi) {
        fprintf(stderr, "layouts: unexpected argument '%s' after %s (layouts --help)\n", argv[hi],
                argv[1]);
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) help();
    const char *cmd = argv[1];
    int rc;
    lay_layout R;
    if (strcmp(cmd, "show") == 0) {
        need(argc, argv, 3, 3);
        lay_layout L = arg_layout(argv[2]);
        put("layout", L);
        printf("size %d  cosize %lld  rank %d  depth %d\n", lay_size(L), lay_cosize(L), lay_rank(L),
               lay_depth(L));
        /* the table without its title line: the layout's text is the first line already */
        if (lay_rank(L) <= 2 && lay_size(L) <= 4096) lay_print_cells(stdout, L);
        return 0;
    }
    if (strcmp(cmd, "compose") == 0) {
        need(argc, argv, 4, 4);
        lay_layout A = arg_layout(argv[2]);
        if (argv[3][0] == '<') {
            lay_tiler T;
            if ((rc = lay_parse_tiler(argv[3], &T))) die("cannot read tiler '%s'", argv[3], rc);
            rc = lay_composition_tiler(&R, A, T);
        } else {
            rc = lay_composition(&R, A, arg_layout(argv[3]));
        }
        if (rc) die("composition has no result (%s)", argv[3], rc);
        put("A o B", R);
        return 0;
    }
    if (strcmp(cmd, "divide") == 0 || strcmp(cmd, "product") == 0) {
        need(argc, argv, 4, 4);
        int div = cmd[0] == 'd';
        lay_layout A = arg_layout(argv[2]);
        if (argv[3][0] == '<') {
            lay_tiler T;
            if ((rc = lay_parse_tiler(argv[3], &T))) die("cannot read tiler '%s'", argv[3], rc);
            rc = div ? lay_logical_divide_tiler(&R, A, T) : lay_logical_product_tiler(&R, A, T);
            if (rc) die("no result for B = %s", argv[3], rc);
            result(div ? "logical_divide" : "logical_product", rc, R);
            rc = div ? lay_zipped_divide(&R, A, T) : lay_zipped_product(&R, A, T);
            result(div ? "zipped_divide" : "zipped_product", rc, R);
            rc = div ? lay_tiled_divide(&R, A, T) : lay_tiled_product(&R, A, T);
            result(div ? "tiled_divide" : "tiled_product", rc, R);
        } else {
            lay_layout B = arg_layout(argv[3]);
            rc = div ? lay_logical_divide(&R, A, B) : lay_logical_product(&R, A, B);
            if (rc) die("no result for B = %s", argv[3], rc);
            result(div ? "logical_divide" : "logical_product", rc, R);
            if (!div) {
                rc = lay_blocked_product(&R, A, B);
                result("blocked_product", rc, R);
                rc = lay_raked_product(&R, A, B);
                result("raked_product", rc, R);
            }
        }
        return 0;
    }
    if (strcmp(cmd, "complement") == 0) {
        need(argc, argv, 4, 4);
        lay_layout A = arg_layout(argv[2]);
        rc = lay_complement(&R, A, arg_int(argv[3]));
        if (rc) die("no complement (cotarget %s)", argv[3], rc);
        put("complement", R);
        return 0;
    }
    if (strcmp(cmd, "inverse") == 0) {
        need(argc, argv, 3, 3);
        lay_layout A = arg_layout(argv[2]);
        rc = lay_right_inverse(&R, A);
        result("right_inverse", rc, R);
        rc = lay_left_inverse(&R, A);
        result("left_inverse", rc, R);
        return 0;
    }
    if (strcmp(cmd, "coalesce") == 0) {
        need(argc, argv, 3, 4);
        lay_layout A = arg_layout(argv[2]);
        if (argc > 3) {
            lay_layout P;
            if ((rc = lay_parse_tuple(argv[3], &P))) die("cannot read profile '%s'", argv[3], rc);
            rc = lay_coalesce_profile(&R, A, P);
        } else {
            rc = lay_coalesce(&R, A);
        }
        if (rc) die("cannot coalesce %s", argv[2], rc);
        put("coalesce", R);
        return 0;
    }
    if (strcmp(cmd, "filter") == 0) {
        need(argc, argv, 3, 3);
        rc = lay_filter(&R, arg_layout(argv[2]));
        if (rc) die("cannot filter %s", argv[2], rc);
        put("filter", R);
        return 0;
    }
    if (strcmp(cmd, "swizzle") == 0) {
        need(argc, argv, 5, 6);
        lay_swizzle sw = arg_swizzle(argv[2], argv[3], argv[4]);
        if (argc > 5) {
            lay_layout L = arg_layout(argv[5]);
            lay_swizzled S;
            if ((rc = lay_swizzled_make(&S, sw, 0, L))) die("bad layout %s", argv[5], rc);
            if (lay_rank(L) > 2) die("swizzle table needs a rank-1/2 layout, got %s", argv[5], 0);
            int rows = lay_rank(L) == 1 ? lay_size(L) : 0, cols = 1;
            if (lay_rank(L) == 2) {
                lay_layout m;
                if (lay_get(&m, L, 0) == LAY_OK) rows = lay_size(m);
                if (lay_get(&m, L, 1) == LAY_OK) cols = lay_size(m);
            }
            printf("Sw<%d,%d,%d> o 0 o ", sw.b, sw.m, sw.s);
            lay_fprint(stdout, L);
            putchar('\n');
            for (int i = 0; i < rows; ++i) {
                for (int j = 0; j < cols; ++j)
                    printf(" %5lld", lay_rank(L) == 1 ? lay_swizzled_crd2idx(S, i)
                                                      : lay_swizzled_crd2idx2(S, i, j));
                putchar('\n');
            }
        } else {
            long n = 8L << (sw.m + (sw.s > 0 ? sw.s : 0) + sw.b);
            if (n > 4096) n = 4096;
            printf("Sw<%d,%d,%d>(x) for x = 0..%ld, 16 per row\n", sw.b, sw.m, sw.s, n - 1);
            for (long x = 0; x < n; ++x)
                printf("%ld%c", (long)lay_swizzle_apply(sw, x), x % 16 == 15 ? '\n' : ' ');
        }
        return 0;
    }
    if (strcmp(cmd, "draw") == 0) {
        need(argc, argv, 3, 3);
        rc = lay_print_gnuplot(stdout, arg_layout(argv[2]));
        if (rc) die("cannot draw %s (rank 1 or 2 only)", argv[2], rc);
        return 0;
    }
    if (strcmp(cmd, "draw-swizzle") == 0) {
        need(argc, argv, 6, 6);
        lay_swizzle sw = arg_swizzle(argv[2], argv[3], argv[4]);
        lay_swizzled S;
        if ((rc = lay_swizzled_make(&S, sw, 0, arg_layout(argv[5]))))
            die("bad layout %s", argv[5], rc);
        rc = lay_print_swizzled_gnuplot(stdout, S);
        if (rc) die("cannot draw %s (rank 1 or 2 only)", argv[5], rc);
        return 0;
    }
    if (strcmp(cmd, "banks") == 0) {
        need(argc, argv, 4, 7);
        lay_layout L = arg_layout(argv[2]);
        long bytes = arg_int(argv[3]);
        if (bytes < 1) die("element size must be >= 1, got %s", argv[3], 0);
        lay_swizzle sw, *psw = NULL;
        if (argc == 5 || argc == 6)
            die("banks: a swizzle needs all three of B M S, got %s", argc == 5 ? "B" : "B M", 0);
        if (argc == 7) {
            sw = arg_swizzle(argv[4], argv[5], argv[6]);
            psw = &sw;
        }
        rc = lay_print_bank_gnuplot(stdout, L, psw, (int)bytes);
        if (rc) die("cannot draw banks of %s", argv[2], rc);
        return 0;
    }
    if (strcmp(cmd, "bankmap") == 0) {
        need(argc, argv, 4, 7);
        lay_swizzled S;
        long bytes = arg_int(argv[3]);
        if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
            die("bankmap: element size must be 1, 2, 4, 8 or 16 bytes, got %s", argv[3], 0);
        if (argc == 5 || argc == 6)
            die("bankmap: a swizzle needs all three of B M S, got %s", argc == 5 ? "B" : "B M", 0);
        lay_swizzle sw =
            argc == 7 ? arg_swizzle(argv[4], argv[5], argv[6]) : arg_swizzle("0", "0", "0");
        if ((rc = lay_swizzled_make(&S, sw, 0, arg_layout(argv[2]))))
            die("bad layout %s", argv[2], rc);
        bankmap(S, (int)bytes, argv[2]);
        return 0;
    }
    if (strcmp(cmd, "tv") == 0) {
        need(argc, argv, 3, 3);
        const char *w = argv[2];
        lay_layout tv, coord;
        if (strcmp(w, "A") == 0 || strcmp(w, "LDSM-DST") == 0) {
            tv = lay_tv_mma_m16n8k16_a();
            coord = lay_l2(16, 16, 1, 16);
        } else if (strcmp(w, "LDSM-SRC") == 0) {
            if ((rc = lay_ldmatrix_retile(&tv, 4, 0, lay_tv_mma_m16n8k16_a())))
                die("cannot derive %s", w, rc);
            coord = lay_l2(16, 16, 1, 16);
        } else if (strcmp(w, "B") == 0) {
            tv = lay_tv_mma_m16n8k16_b();
            coord = lay_l2(8, 16, 1, 8);
        } else if (strcmp(w, "C") == 0) {
            tv = lay_tv_mma_m16n8k16_c();
            coord = lay_l2(16, 8, 1, 16);
        } else {
            die("unknown TV layout '%s' (A, B, C, LDSM-SRC, LDSM-DST)", w, 0);
            return 2;
        }
        rc = lay_print_tv_gnuplot(stdout, tv, coord);
        if (rc) die("cannot draw TV layout %s", w, rc);
        return 0;
    }
    if (strcmp(cmd, "grid") == 0) {
        need(argc, argv, 4, 4);
        lay_layout tv = arg_layout(argv[2]), coord = arg_layout(argv[3]);
        rc = lay_print_tv_grid(stdout, tv, coord);
        if (rc) die("cannot draw %s over that coordinate layout", argv[2], rc);
        return 0;
    }
    if (strcmp(cmd, "mma") == 0 && argc > 2 && strcmp(argv[2], "fma") == 0) {
        need(argc, argv, 7, 7);
        long lm = arg_int(argv[3]), ln = arg_int(argv[4]), vm = arg_int(argv[5]),
             vn = arg_int(argv[6]);
        if (lm < 1 || ln < 1 || lm * ln != 32 || vm < 1 || vn < 1 || vm * vn > 64)
            die("mma fma: need LANES_M * LANES_N = 32 and small VM, VN (got %s ...)", argv[3], 0);
        lay_mma_atom a = lay_mma_atom_fma((int)lm, (int)ln, (int)vm, (int)vn);
        printf("FFMA atom: lanes (%ld,%ld) row-major, %ldx%ld accumulators each: C tile (%d,%d)\n",
               lm, ln, vm, vn, a.m, a.n);
        rc = lay_print_tv_grid(stdout, lay_tv_layout(&a.c), lay_l2(a.m, a.n, 1, a.m));
        if (rc) die("cannot draw the FFMA atom %s", argv[3], rc);
        return 0;
    }
    if (strcmp(cmd, "mma") == 0) {
        need(argc, argv, 3, 4);
        const char *w = argv[2];
        int threads = argc == 4 && strcmp(argv[3], "--threads") == 0;
        if (argc == 4 && !threads) die("mma: unexpected argument '%s' (--threads)", argv[3], 0);
        lay_layout tv, coord;
        const char *what;
        if (strcmp(w, "A") == 0) {
            tv = lay_tv_mma_m16n8k16_a();
            coord = lay_l2(16, 16, 1, 16);
            what = "A fragment, rows m, columns k: (16,16) column-major (M,K)";
        } else if (strcmp(w, "B") == 0) {
            tv = lay_tv_mma_m16n8k16_b();
            coord = lay_l2(8, 16, 1, 8);
            what = "B fragment, rows n, columns k: (8,16) column-major (N,K)";
        } else if (strcmp(w, "C") == 0) {
            tv = lay_tv_mma_m16n8k16_c();
            coord = lay_l2(16, 8, 1, 16);
            what = "C/D fragment, rows m, columns n: (16,8) column-major (M,N)";
        } else {
            die("mma: unknown operand '%s' (A, B or C)", w, 0);
            return 2;
        }
        printf("mma.sync.m16n8k16 %s\n", what);
        rc = threads ? lay_print_tv_threads(stdout, tv, coord, 0, 32)
                     : lay_print_tv_grid(stdout, tv, coord);
        if (rc) die("cannot draw mma %s", w, rc);
        return 0;
    }
    if (strcmp(cmd, "ldmatrix") == 0) {
        need(argc, argv, 3, 5);
        int x = strcmp(argv[2], "x1") == 0   ? 1
                : strcmp(argv[2], "x2") == 0 ? 2
                : strcmp(argv[2], "x4") == 0 ? 4
                                             : 0;
        if (!x) die("ldmatrix: '%s' is not x1, x2 or x4", argv[2], 0);
        int trans = 0;
        const char *op = NULL;
        for (int i = 3; i < argc; ++i) {
            if (strcmp(argv[i], "trans") == 0 && !trans) trans = 1;
            else if ((strcmp(argv[i], "A") == 0 || strcmp(argv[i], "B") == 0) && !op) op = argv[i];
            else die("ldmatrix: unexpected argument '%s' (trans, A or B)", argv[i], 0);
        }
        /* the stack of x 8x8 matrices: row 8q + r of matrix q, element e = col + 8*row */
        lay_layout stack = lay_l2(8 * x, 8, 8, 1);
        if (x == 1)
            printf(
                "ldmatrix.sync.aligned.m8n8.x1%s.b16: rows are the 8 rows of the matrix, columns "
                "the 8 halves of a row\n",
                trans ? ".trans" : "");
        else
            printf("ldmatrix.sync.aligned.m8n8.x%d%s.b16: rows are the 8 rows of each of the %d "
                   "matrices\nstacked (row 8q+r = row r of matrix q), columns the 8 halves of a "
                   "row\n",
                   x, trans ? ".trans" : "", x);
        printf("\nsource: lane T supplies the address of the row it holds (V = half 0..7 of it)\n");
        if ((rc = lay_print_tv_grid(stdout, lay_tv_ldmatrix_src(x), stack)))
            die("ldmatrix %s", argv[2], rc);
        printf("\ndestination: lane T receives value V (register V/2, half V%%2)\n");
        if ((rc = lay_print_tv_grid(stdout, lay_tv_ldmatrix_dst(x, trans), stack)))
            die("ldmatrix %s", argv[2], rc);
        if (op) {
            lay_layout optv, coord, R;
            const char *what;
            if (op[0] == 'A') {
                if (x != 4) die("ldmatrix A: the m16n8k16 A fragment takes x4, not %s", argv[2], 0);
                optv = lay_tv_mma_m16n8k16_a();
                coord = lay_l2(16, 16, 1, 16);
                what = "A (16,16) (M,K): rows m, columns k";
            } else if (x == 4) { /* two n8 atoms: b0..b3 of atom 0, then of atom 1 */
                if ((rc = lay_parse("((4,8),(2,2,2)):((32,1),(16,128,8))", &optv)))
                    die("%s", "B", rc);
                coord = lay_l2(16, 16, 1, 16);
                what = "B of two n8 atoms (16,16) (N,K): rows n, columns k";
            } else if (x == 2) {
                optv = lay_tv_mma_m16n8k16_b();
                coord = lay_l2(8, 16, 1, 8);
                what = "B (8,16) (N,K): rows n, columns k";
            } else {
                if ((rc = lay_parse("((4,8),2):((16,1),8)", &optv))) die("%s", "B", rc);
                coord = lay_l2(8, 8, 1, 8);
                what = "B of m16n8k8 (8,8) (N,K): rows n, columns k";
            }
            if ((rc = lay_ldmatrix_retile(&R, x, trans, optv)))
                die("cannot derive the rows for %s", op, rc);
            printf("\nrows each lane supplies for the mma %s\n", what);
            printf("op o right_inverse(dst) o src = ");
            lay_fprint(stdout, R);
            printf("  (op = ");
            lay_fprint(stdout, optv);
            printf(")\n");
            if ((rc = lay_print_tv_grid(stdout, R, coord))) die("cannot draw %s", op, rc);
        }
        return 0;
    }
    if (strcmp(cmd, "copy") == 0) {
        need(argc, argv, 6, 6);
        lay_layout thr = arg_layout(argv[2]), val = arg_layout(argv[3]), tv;
        long bm = arg_int(argv[4]), bn = arg_int(argv[5]);
        if (lay_depth(thr) > 1 || lay_rank(thr) > 2 || lay_depth(val) > 1 || lay_rank(val) > 2)
            die("copy: thread and value layouts must be flat, rank 1 or 2 (got %s)", argv[2], 0);
        lay_tiled_copy c = lay_make_tiled_copy(thr, val);
        if (bm < 1 || bn < 1 || lay_tiled_copy_reps(c, (int)bm, (int)bn) < 1)
            die("copy: the copy tile does not divide the tile %s", argv[4], 0);
        if ((rc = lay_tiled_copy_tv(&tv, c)))
            die("copy: no TV layout for thread layout %s", argv[2], rc);
        printf(
            "tiled copy: %d threads x %d values, copy tile (%d,%d), %d per thread over (%ld,%ld)\n",
            lay_tiled_copy_nthr(c), lay_tiled_copy_nval(c), lay_tiled_copy_tile_m(c),
            lay_tiled_copy_tile_n(c), lay_tiled_copy_reps(c, (int)bm, (int)bn), bm, bn);
        put("copy tile TV", tv);
        if ((rc = lay_tiled_copy_tv_tile(&tv, c, (int)bm, (int)bn))) die("copy %s", argv[2], rc);
        put("tile TV", tv);
        rc = lay_print_tv_grid(stdout, tv, lay_l2((int)bm, (int)bn, 1, (int)bm));
        if (rc) die("cannot draw the copy of %s", argv[2], rc);
        return 0;
    }
    if (strcmp(cmd, "slice") == 0) {
        need(argc, argv, 4, 4);
        lay_layout L = arg_layout(argv[2]);
        int crd[LAY_MAX_RANK], k = 0;
        const char *p = argv[3];
        while (*p == ' ') p++;
        int paren = *p == '(';
        if (paren) p++;
        for (;;) {
            while (*p == ' ') p++;
            if (k >= LAY_MAX_RANK) die("slice: too many coordinates in '%s'", argv[3], 0);
            if (*p == '_') {
                crd[k++] = LAY_FREE;
                p++;
            } else {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p || v < 0)
                    die("slice: bad coordinate list '%s' (like '(_,3)')", argv[3], 0);
                crd[k++] = (int)v;
                p = end;
            }
            while (*p == ' ') p++;
            if (*p == ',') {
                p++;
                continue;
            }
            break;
        }
        if (paren && *p++ != ')') die("slice: bad coordinate list '%s' (like '(_,3)')", argv[3], 0);
        if (*p) die("slice: bad coordinate list '%s' (like '(_,3)')", argv[3], 0);
        if (k != lay_rank(L)) die("slice: need one coordinate per mode of %s", argv[2], LAY_E_RANK);
        lay_off off;
        if ((rc = lay_slice(&R, &off, L, crd))) die("cannot slice %s", argv[2], rc);
        put("slice", R);
        printf("%-16s %lld\n", "offset", off);
        return 0;
    }
    die("unknown command '%s'", cmd, 0);
    return 2;
}
