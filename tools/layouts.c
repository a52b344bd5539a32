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
 *   layouts swizzle B M S [L]             Sw<B,M,S> table, or the table of Sw o L
 *   layouts draw A                        gnuplot data "row col offset"
 *   layouts draw-swizzle B M S A          gnuplot data of Sw<B,M,S> o A
 *   layouts banks A BYTES [B M S]         gnuplot data "row col bank" (optionally swizzled)
 *   layouts tv A|B|C|LDSM-SRC|LDSM-DST    thread/value map of an mma.m16n8k16 / ldmatrix.x4 TV
 *   layouts --help (or -h)                this list on stdout, exit status 0
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

static const char *const commands =
    "  show A                       text, size, cosize, rank, depth, 2-D table\n"
    "  compose A B                  A o B   (B a layout or a tiler '<L0,L1>')\n"
    "  divide A B                   logical/zipped/tiled divide (tiled needs a tiler)\n"
    "  product A B                  logical/zipped/tiled/blocked/raked product\n"
    "  complement A M               complement of A up to cotarget M\n"
    "  inverse A                    right and left inverse\n"
    "  coalesce A [PROFILE]         coalesce (by-mode with a profile such as '(1,1)')\n"
    "  filter A                     coalesce after dropping stride-0 and size-1 modes\n"
    "  swizzle B M S [L]            Sw<B,M,S> table, or the table of Sw o L\n"
    "  draw A                       gnuplot data \"row col offset\"\n"
    "  draw-swizzle B M S A         gnuplot data of Sw<B,M,S> o A\n"
    "  banks A BYTES [B M S]        gnuplot data \"row col bank\" (optionally swizzled)\n"
    "  tv A|B|C|LDSM-SRC|LDSM-DST   thread/value map of an mma.m16n8k16 / ldmatrix.x4 TV\n";

static void usage(void) {
  fputs("usage: layouts show|compose|divide|product|complement|inverse|coalesce|filter|"
        "swizzle|draw|draw-swizzle|banks|tv ARGS (layouts --help for the list)\n",
        stderr);
  exit(2);
}

static void help(void) {
  printf("usage: layouts COMMAND ARGS   (layouts as in '(4,8):(8,1)', tilers as in '<4:1,3:1>')\n"
         "%s"
         "Bad input: one line on stderr, exit status 2. Source and examples: tools/layouts.c,\n"
         "lessons/02_layout/README.md.\n",
         commands);
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
    if (lay_rank(L) <= 2 && lay_size(L) <= 4096) lay_print_table(stdout, L);
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
      for (long x = 0; x < n; ++x) printf("%ld%c", (long)lay_swizzle_apply(sw, x), x % 16 == 15 ? '\n' : ' ');
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
    if ((rc = lay_swizzled_make(&S, sw, 0, arg_layout(argv[5])))) die("bad layout %s", argv[5], rc);
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
  die("unknown command '%s'", cmd, 0);
  return 2;
}
