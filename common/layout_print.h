/*
 * layout_print.h -- host-only printing, drawing and parsing of layouts (C11).
 * Link common/layout_print.c. Text notation is the oracle's / CuTe's print notation without
 * spaces or '_' prefixes: `(4,8):(8,1)`, `8:2`, `((4,8),(2,2)):((32,1),(16,8))`; tilers
 * `<3:3,(2,4):(1,8)>`; swizzles `Sw<3,3,3>`; swizzled layouts `Sw<3,3,3> o 0 o (8,64):(64,1)`.
 * Parsers accept blanks anywhere and return LAY_OK or LAY_E_PARSE (or the construction error,
 * e.g. LAY_E_ARG for a zero extent, LAY_E_LIMIT for too many leaves); on error the output is
 * the invalid layout. Printers return the number of characters (snprintf style; -1 for an
 * invalid layout) or 0/-1 for FILE output.
 */
#ifndef LAY_LAYOUT_PRINT_H
#define LAY_LAYOUT_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "layout.h"

/* lay_sprint: `(shape):(stride)` text of L into buf (size n, always NUL-terminated when
 * n > 0); returns the full length (as snprintf), -1 for the invalid layout.
 *   e.g. "(4,8):(8,1)", "8:2", "((4,8),(2,2)):((32,1),(16,8))" */
int lay_sprint(char *buf, size_t n, lay_layout L);

/* lay_sprint_shape: only the shape, e.g. "(4,(2,2))". Same return convention. */
int lay_sprint_shape(char *buf, size_t n, lay_layout L);

/* lay_sprint_tiler: "<L0,L1,...>". Same return convention. */
int lay_sprint_tiler(char *buf, size_t n, lay_tiler T);

/* lay_sprint_crd: the natural coordinate of 1-D index i in shape(L) (lay_idx2crd), in the
 * shape's nesting: e.g. for (3,(2,3)) and i = 4: "(1,(1,0))". Same return convention. */
int lay_sprint_crd(char *buf, size_t n, lay_layout L, lay_off i);

/* lay_fprint: lay_sprint to a stream (no newline). Returns 0, or -1 (invalid layout). */
int lay_fprint(FILE *f, lay_layout L);

/* lay_print_table: rank-2 layout as a 2-D table of offsets (CuTe's print_layout): the
 * layout text, column indices, then one row per mode-0 coordinate, cells boxed with
 * +---+ lines. A rank-1 layout prints as one column. Returns 0, or LAY_E_RANK/E_INVALID.
 *   e.g. lay_print_table(stdout, (2,3):(3,1)) */
int lay_print_table(FILE *f, lay_layout L);

/* lay_print_cells: lay_print_table without its first line (the layout text), for a caller
 * that has printed the layout already (build/tools/layouts show). Same return convention. */
int lay_print_cells(FILE *f, lay_layout L);

/* lay_print_gnuplot: gnuplot-ready data for a drawing of the offsets of a rank-1/2 layout:
 * a comment line, then one line "row col value" per cell (row = mode-0 coordinate, col =
 * mode-1 coordinate), a blank line after each row (plot with `with image` or
 * `using 2:1:3 with labels`). Returns 0, or LAY_E_RANK/E_INVALID. */
int lay_print_gnuplot(FILE *f, lay_layout L);

/* lay_print_swizzled_gnuplot: the same for Sw(offset + L(row,col)). */
int lay_print_swizzled_gnuplot(FILE *f, lay_swizzled S);

/* lay_print_bank_gnuplot: shared-memory bank map of a rank-2 layout of elem_bytes-byte
 * elements (swizzle optional: pass NULL for none): "row col bank" with
 * bank = (offset * elem_bytes / 4) % 32. Returns 0, or LAY_E_RANK/E_INVALID/E_ARG. */
int lay_print_bank_gnuplot(FILE *f, lay_layout L, const lay_swizzle *sw, int elem_bytes);

/* lay_print_tv_gnuplot: thread/value map: for a TV layout tv ((thread, value) -> index) and a
 * rank-2 coordinate layout coord ((row, col) -> index, e.g. the column-major (16,16):(1,16)
 * of an (M,K) tile), one line "row col thread value" per (thread, value), ordered by thread
 * then value. Returns 0, LAY_E_RANK (tv not rank 2), LAY_E_ARG (an index tv reaches that
 * coord does not contain), LAY_E_INVALID. */
int lay_print_tv_gnuplot(FILE *f, lay_layout tv, lay_layout coord);

/* lay_print_tv_grid: a TV layout as a text grid over a rank-2 coordinate layout coord
 * ((row, col) -> index, e.g. (16,16):(1,16) for a column-major (M,K) tile): one line per row,
 * each cell "T<thread>V<value>" of the (thread, value) that holds it (the lowest thread when
 * several do, as the stride-0 lanes of ldmatrix.x1/x2 sources; "." when none), as CuTe's
 * print_latex tables. Returns 0, LAY_E_RANK (tv not rank 2, coord not rank 1/2), LAY_E_ARG
 * (an index tv reaches that coord does not contain), LAY_E_INVALID.
 *   e.g. the mma C atom over (16,8):(1,16): row 0 is "T0V0 T0V1 T1V0 T1V1 ..." */
int lay_print_tv_grid(FILE *f, lay_layout tv, lay_layout coord);

/* lay_print_tv_threads: the same per thread, threads first..first+count-1: one line
 * "T5: (1,2) (1,3) (9,2) ..." listing the (row, col) of each of its values in order.
 * Returns as lay_print_tv_grid, LAY_E_ARG for negative first/count. */
int lay_print_tv_threads(FILE *f, lay_layout tv, lay_layout coord, int first, int count);

/* lay_parse: a layout in the oracle notation, the whole string (blanks allowed):
 * "(4,8):(8,1)", "8:2", "((4)):((3))"; a bare shape "(4,8)" gets compact column-major
 * strides. Errors: LAY_E_PARSE (syntax, shape/stride structures differ, trailing text),
 * LAY_E_ARG (extent < 1), LAY_E_LIMIT.
 *   e.g. lay_parse("(3,(2,3)):(3,(12,1))", &L) */
int lay_parse(const char *s, lay_layout *out);

/* lay_parse_prefix: like lay_parse but parses a layout at *s and advances *s past it. */
int lay_parse_prefix(const char **s, lay_layout *out);

/* lay_parse_tuple: an integer tuple (a shape or profile such as "(1,1)" or "4") as a layout
 * with compact column-major strides (only its structure matters for profiles). */
int lay_parse_tuple(const char *s, lay_layout *out);

/* lay_parse_tiler: "<L0,L1,...>" (each Li a layout; a bare integer n means n:1). */
int lay_parse_tiler(const char *s, lay_tiler *out);

/* lay_parse_swizzle: "Sw<B,M,S>" (S may be negative). */
int lay_parse_swizzle(const char *s, lay_swizzle *out);

/* lay_parse_swizzled: "Sw<B,M,S> o OFFSET o LAYOUT". */
int lay_parse_swizzled(const char *s, lay_swizzled *out);

#endif /* LAY_LAYOUT_PRINT_H */
