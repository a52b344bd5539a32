#!/usr/bin/env python3
"""plotdata.py - reduce a bench CSV (+ its probe CSV) to gnuplot-ready files.

Python 3 standard library only (no pandas/matplotlib), so `make plots` runs anywhere.

    python3 plots/plotdata.py BENCH.csv PROBE.csv DATDIR [--defaults FILE] [--journey FILE]
                              [--epilogue EPI.csv] [--shapes SHAPES.csv --suite shapes.txt]

writes into DATDIR, for plots/*.gp:
    journey.meta.gp, journey_p<i>.dat  every step in learning order at 4096^3, a panel per dtype
    glance.meta.gp, glance_p1.dat      each lesson's default at 4096^3, every dtype
    steps_<lesson>.meta.gp, _p1.dat    every variant of a lesson (lessons with several)
    sizes_<dtype>.dat / .meta.gp       TFLOP/s vs square size, one column per lesson + cuBLAS
    roofline.dat / roofline.meta.gp    kernels at their modelled intensity, probe ceilings
    epilogue.meta.gp, epilogue_p<i>.dat  lesson 07's fused epilogues against cuBLASLt fused and
                                       cuBLAS + a separate kernel, per shape (with --epilogue)
    shapes.meta.gp, shapes_p<i>.dat    % of cuBLAS per shape of the suite, the dispatcher
                                       against one kernel, a panel per dtype (with --shapes)
    charts.txt                         "<script> <name>" per chart, for plots/plots.sh

The learning order, each step's name and its traffic model come from plots/data/journey.txt
(see that file); what it does not list is drawn anyway (journey_steps).

Which variant stands for a lesson (its "default"): the harness runs variants in `--list` order,
so the first variant of a lesson in the CSV is the lesson's default (the first listed by
`./run --list`). plots/data/defaults.txt ("lesson variant" per line, # comments) pins another
variant for a lesson. If the chosen variant has no PASS timed row at 4096^3 for a dtype, the
next variant in list order that has one is used (with a warning). Layout: TN when the lesson
has TN rows, else the lesson's first layout in the CSV (lesson 01's default is TT).

scripts/readme_results.py imports this module for the README table, so chart and table come
from the same selection.
"""
import csv
import math
import os
import re
import statistics
import sys

REF = (4096, 4096, 4096)                      # the size of the at-a-glance chart and table
DTYPES = ("fp32", "fp16", "bf16")
DT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
DT_COLOR = {"fp32": "#1f77b4", "fp16": "#e6550d", "bf16": "#31a354"}

NUMERIC = ("m", "n", "k", "alpha", "beta", "ms", "tflops", "cublas_ms", "cublas_tflops",
           "pct_cublas", "rel_err", "max_err")
BENCH_COLUMNS = ("lesson,variant,dtype,layout,m,n,k,alpha,beta,ms,tflops,cublas_ms,"
                 "cublas_tflops,pct_cublas,rel_err,max_err,status,device,cuda_runtime,"
                 "cuda_driver,date,commit").split(",")
EPI_COLUMNS = BENCH_COLUMNS + "out,epilogue,bias_axis,lt_ms,unfused_ms".split(",")
PROBE_COLUMNS = "kind,name,value,unit,device,cuda_runtime,cuda_driver,date,commit".split(",")


class DataError(Exception):
    pass


# ---- reading ---------------------------------------------------------------------------------

def _read(path, columns):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        if not rows:
            raise DataError("%s: no data rows" % path)
        missing = [c for c in columns if c not in rows[0]]
        if missing:
            raise DataError("%s: missing columns %s" % (path, ", ".join(missing)))
    return rows


def read_bench(path, columns=BENCH_COLUMNS):
    """The rows of a bench CSV, numbers parsed (also lt_ms and unfused_ms when `columns` are
    EPI_COLUMNS, the epilogue CSV's); DataError when a column is missing or a number is bad."""
    rows = []
    numeric = NUMERIC + tuple(c for c in ("lt_ms", "unfused_ms") if c in columns)
    for i, r in enumerate(_read(path, columns)):
        try:
            for c in numeric:
                r[c] = float(r[c])
            for c in ("m", "n", "k"):
                r[c] = int(r[c])
        except ValueError as e:
            raise DataError("%s: row %d: %s" % (path, i + 2, e))
        r["order"] = i
        rows.append(r)
    return rows


def read_probe(path):
    rows = _read(path, PROBE_COLUMNS)
    vals = {r["name"]: float(r["value"]) for r in rows}
    need = ("ffma", "mma_sync_f16_f32", "hbm_copy")
    missing = [n for n in need if n not in vals]
    if missing:
        raise DataError("%s: missing probe rows %s" % (path, ", ".join(missing)))
    return vals, rows


def read_defaults(path):
    pins = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.split("#", 1)[0].split()
                if len(w) >= 2:
                    pins[w[0]] = w[1]
    return pins


# ---- selection -------------------------------------------------------------------------------

def timed_pass(r):
    return r["status"] == "PASS" and r["ms"] > 0 and r["tflops"] > 0


def lessons_in_order(rows):
    seen = []
    for r in rows:
        if r["lesson"] not in seen:
            seen.append(r["lesson"])
    return sorted(seen)


def variants_in_order(rows, lesson):
    seen = []
    for r in rows:
        if r["lesson"] == lesson and r["variant"] not in seen:
            seen.append(r["variant"])
    return seen


def lesson_layout(rows, lesson):
    lays = [r["layout"] for r in rows if r["lesson"] == lesson]
    return "TN" if "TN" in lays else (lays[0] if lays else "TN")


def at(rows, lesson, variant, dtype, layout, size):
    """The row of (lesson, variant, dtype, layout, size); the last one if repeated."""
    hit = None
    for r in rows:
        if (r["lesson"], r["variant"], r["dtype"], r["layout"], (r["m"], r["n"], r["k"])) == \
                (lesson, variant, dtype, layout, size):
            hit = r
    return hit


def select(rows, pins=None, warn=sys.stderr):
    """[(lesson, dtype) entries] with the row at 4096^3 of the variant that stands for it."""
    pins = pins or {}
    out = []
    for lesson in lessons_in_order(rows):
        layout = lesson_layout(rows, lesson)
        order = variants_in_order(rows, lesson)
        if lesson in pins:
            if pins[lesson] in order:
                order = [pins[lesson]] + [v for v in order if v != pins[lesson]]
            elif warn:
                print("plotdata: defaults.txt names %s %s, which is not in the CSV"
                      % (lesson, pins[lesson]), file=warn)
        for dt in DTYPES:
            cands = [v for v in order if any(r["lesson"] == lesson and r["variant"] == v and
                                             r["dtype"] == dt for r in rows)]
            if not cands:
                continue
            chosen = None
            for v in cands:
                r = at(rows, lesson, v, dt, layout, REF)
                if r and timed_pass(r):
                    chosen = (v, r)
                    break
            if chosen is None:
                if warn:
                    print("plotdata: %s %s: no PASS timed row at %dx%dx%d %s; left out"
                          % (lesson, dt, REF[0], REF[1], REF[2], layout), file=warn)
                continue
            if chosen[0] != cands[0] and warn:
                print("plotdata: %s %s: %s has no PASS timed row at 4096^3; using %s"
                      % (lesson, dt, cands[0], chosen[0]), file=warn)
            out.append({"lesson": lesson, "dtype": dt, "layout": layout, "variant": chosen[0],
                        "default": chosen[0] == order[0], "row": chosen[1]})
    return out


def cublas_at(rows, dtype, size, layout="TN"):
    """Median cuBLAS TFLOP/s over every run of (dtype, size), layout preferred, else any."""
    def vals(lay):
        return [r["cublas_tflops"] for r in rows if r["dtype"] == dtype and r["cublas_tflops"] > 0
                and (r["m"], r["n"], r["k"]) == size and (lay is None or r["layout"] == lay)]
    v = vals(layout) or vals(None)
    return statistics.median(v) if v else None


def square_sizes(rows, lesson, variant, dtype, layout):
    return {r["m"] for r in rows if (r["lesson"], r["variant"], r["dtype"], r["layout"]) ==
            (lesson, variant, dtype, layout) and r["m"] == r["n"] == r["k"] and timed_pass(r)}


def sweep_variant(rows, e):
    """The entry for a size-sweep line: the selected variant if it was run over the sweep, else
    the first variant (list order) that was (make bench sweeps only the default variant)."""
    if len(square_sizes(rows, e["lesson"], e["variant"], e["dtype"], e["layout"])) >= 3:
        return e
    for v in variants_in_order(rows, e["lesson"]):
        if len(square_sizes(rows, e["lesson"], v, e["dtype"], e["layout"])) >= 3:
            return dict(e, variant=v)
    return e


def intensity(dtype, m, n, k):
    """FLOPs per minimum DRAM byte: A and B read once, C read once and written once."""
    e = DT_BYTES[dtype]
    return 2.0 * m * n * k / (e * (m * k + n * k + 2 * m * n))


# ---- provenance -------------------------------------------------------------------------------

def _version(v):
    try:
        v = int(v)
        return "%d.%d" % (v // 1000, (v % 1000) // 10)
    except ValueError:
        return v


def _uniq(xs):
    out = []
    for x in xs:
        if x and x not in out:
            out.append(x)
    return out


def provenance(rows):
    dates = sorted(_uniq(r["date"][:10] for r in rows))
    commits = _uniq(r["commit"] for r in rows)
    return {
        "device": _uniq(r["device"] for r in rows)[0] if rows else "?",
        "date": dates[0] if len(dates) == 1 else "%s..%s" % (dates[0], dates[-1]),
        "commit": ", ".join(commits[:2]) + (" +%d more" % (len(commits) - 2) if len(commits) > 2 else ""),
        "cuda": "CUDA %s, driver %s" % (_version(rows[0]["cuda_runtime"]), _version(rows[0]["cuda_driver"])),
    }


def stamp(rows):
    p = provenance(rows)
    return "%s | %s | commit %s | %s" % (p["device"], p["date"], p["commit"], p["cuda"])


# ---- the learning order ----------------------------------------------------------------------

def read_journey(path):
    """[(lesson, variant, traffic, label)] from journey.txt, in file order; a label "-" or
    "- text" keeps the step off the journey (the text still describes it on its step chart)."""
    steps = []
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                w = line.split(None, 3)
                if len(w) < 4:
                    raise DataError("%s:%d: expected 'lesson variant traffic label'" % (path, i))
                steps.append((w[0], w[1], w[2], w[3].strip()))
    return steps


def lesson_default(rows, lesson, pins):
    """The variant that stands for a lesson: its pin in defaults.txt, else its first in the CSV."""
    order = variants_in_order(rows, lesson)
    return pins[lesson] if lesson in pins and pins[lesson] in order else order[0]


def journey_steps(rows, journey, pins):
    """Every (lesson, variant) of the CSV in learning order: lessons in NN order; inside a
    lesson the steps listed in journey.txt first (file order), then the variants it does not
    list (CSV order, the lesson's default last), labelled by their names. Each step is a dict
    with lesson, variant, traffic, label (None: not on the journey), desc (the text for its
    step chart), default."""
    listed = {}
    for i, (lesson, variant, traffic, label) in enumerate(journey):
        listed.setdefault(lesson, []).append((variant, traffic, label))
    out = []
    for lesson in lessons_in_order(rows):
        present = variants_in_order(rows, lesson)
        default = lesson_default(rows, lesson, pins)
        steps = [(v, t, lab) for v, t, lab in listed.get(lesson, []) if v in present]
        known = {s[0] for s in steps}
        extra = [v for v in present if v not in known and v != default]
        if default not in known:
            extra.append(default)
        steps += [(v, "-", v) for v in extra]
        for v, t, lab in steps:
            hidden = lab == "-" or lab.startswith("- ")
            desc = lab[2:].strip() if hidden else lab
            out.append({"lesson": lesson, "variant": v, "traffic": t,
                        "label": None if hidden else lab, "desc": desc, "default": v == default})
    return out


# ---- the traffic model (roofline) ------------------------------------------------------------

SECTOR = 32  # bytes: the unit in which a warp's loads reach DRAM


def _sectors(shared, contiguous, e):
    """32-byte sectors one warp-wide load of 32 lanes touches."""
    return 1 if shared else (32 * e // SECTOR if contiguous else 32)


def model_bytes(step, dtype, layout, m, n, k, beta=0.0):
    """(DRAM bytes the kernel asks for under its traffic model, the model's kind). Kinds:
    'lanes' (one thread per C element), 'tile' (CTA tiles), 'min' (A and B read once)."""
    e = DT_BYTES[dtype]
    c_bytes = e * m * n * (2 if beta else 1)  # C written once (and read when beta != 0)
    a_kmajor, b_kmajor = layout in ("TN", "TT"), layout in ("TN", "NN")
    t = step["traffic"]
    if t in ("lanes_m", "lanes_n"):
        if t == "lanes_n":  # lanes share A(m,k); consecutive n read B(n,k)
            sa, sb = _sectors(True, False, e), _sectors(False, not b_kmajor, e)
        else:               # consecutive m read A(m,k); lanes share B(n,k)
            sa, sb = _sectors(False, not a_kmajor, e), _sectors(True, False, e)
        return (m * n / 32.0) * k * SECTOR * (sa + sb) + c_bytes, "lanes"
    tile = None
    if t.startswith("tile:"):
        tile = t[5:]
    else:
        mt = re.search(r"(\d+)x(\d+)", step["variant"])
        tile = mt.group(0) if mt else None
    if tile:
        bm, bn = (int(x) for x in tile.split("x")[:2])
        return e * (m * k * math.ceil(n / bn) + n * k * math.ceil(m / bm)) + c_bytes, "tile"
    return e * (m * k + n * k) + c_bytes, "min"


MODEL_NOTE = ("Intensity from a traffic model, not a measurement. One thread per C element: "
              "each warp load fetches its 32-byte sectors.\nTiled: each CTA reads its A and B "
              "tiles once, so A is read N/BLK_N times, B M/BLK_M times. Nothing is kept in a "
              "cache:\na point above the HBM line gets that much of its traffic from L1/L2 "
              "instead of DRAM.")


# ---- writing ---------------------------------------------------------------------------------

def gp_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def write_meta(path, vals):
    with open(path, "w") as f:
        for k, v in vals:
            f.write("%s = %s\n" % (k, gp_str(v) if isinstance(v, str) else repr(v)))


def log_range(lo, hi, pad_lo=0.5, pad_hi=4.0):
    """a log axis range: a decade below lo * pad_lo, up to hi * pad_hi (room for labels)"""
    return (10 ** math.floor(math.log10(lo * pad_lo)), float("%.3g" % (hi * pad_hi)))


def fmt_tf(t):
    return "%.0f" % t if t >= 100 else "%.1f" % t if t >= 1 else "%.2f" % t


def bar_text(r):
    pct = ", %.0f%%" % r["pct_cublas"] if r["pct_cublas"] >= 0 else ""
    return "%s TFLOP/s%s" % (fmt_tf(r["tflops"]), pct)


LESSON_COLORS = ("#4c72b0", "#55a868", "#8172b2", "#64b5cd", "#dd8452", "#c44e52", "#937860",
                 "#da8bc3", "#8c8c8c", "#ccb974")


def lesson_color(lesson):
    try:
        return LESSON_COLORS[int(lesson[:2]) % len(LESSON_COLORS)]
    except ValueError:
        return LESSON_COLORS[-1]


ROW_PX = 27  # height of one bar row (two-line labels get ROW_PX * 1.4)


def _label_inside(frac, text):
    """whether a bar reaching frac of the axis holds its label"""
    return frac > 0.45 or frac > 0.012 * (len(text) + 3)


KEY_CHAR_PX = 8.0  # a character of the bar charts' key and labels, in pixels (pngcairo, on the safe side)


def _fit_key(p, hi, vmax, plot_px, row_px):
    """The end of a linear axis from hi on (x 1.08 steps, at most 5 x vmax) at which the bars
    and outside labels of the rows beside the key (top right: one line per ref and key entry)
    end left of it. plot_px: the width of the plot area in pixels (estimated)."""
    texts = [t for _, t, _ in p.get("refs", [])] + [t for t, _ in p.get("keys", [])]
    if not texts:
        return hi
    key_w = max(len(t) for t in texts) * KEY_CHAR_PX + 75  # + the sample and the box
    covered = p["rows"][:int(math.ceil((len(texts) * 17 + 14) / float(row_px)))]
    while hi < 5 * vmax:
        right = 0.0
        for _, bars in covered:
            for tf, _, text in bars:
                end = tf / hi * plot_px
                right = max(right, end if _label_inside(tf / hi, text)
                            else end + 12 + len(text) * KEY_CHAR_PX * 0.9)
        if right < plot_px - key_w:
            break
        hi = float("%.3g" % (hi * 1.08))
    return hi


def hbar_chart(datdir, name, title, stampline, panels, width=1300, row_px=None):
    """A chart of horizontal bar panels stacked top to bottom (plots/hbars.gp). Each panel:
    title, xlabel, log (x axis), rows [(ytic, [(tflops, color, text)])] top to bottom (a row
    holds one bar or a group), refs [(tflops, text, color)] (vertical dashed lines, in the key),
    keys [(text, color)] (colour boxes in the key), optional pad (a linear axis ends at pad x
    the longest bar, default 1.32: room for the key) and fit_key (a linear axis is widened
    until the bars and labels of the rows next to the key end left of it). row_px: the height
    of a row in pixels (default ROW_PX, 1.4 x that with two-line labels; give more for groups
    of many bars)."""
    two_lines = any("\n" in row[0] for p in panels for row in p["rows"])
    row_px = row_px or ROW_PX * (1.4 if two_lines else 1.0)
    px = [len(p["rows"]) * row_px + 95 for p in panels]
    height = int(sum(px) + 60)
    lmargin = 2 + max(len(line) for p in panels for row in p["rows"] for line in row[0].split("\n"))
    meta = [("title", title), ("stamp", stampline), ("npanels", len(panels)), ("width", width),
            ("height", height), ("lmargin_chars", min(lmargin, 70)),
            ("top_frac", 1.0 - 40.0 / height)]
    y0 = 1.0 - 40.0 / height
    for i, p in enumerate(panels, 1):
        h = px[i - 1] / float(height)
        y0 -= h
        vals = []
        rows_out = []
        ytics = []
        for yi, (ytic, bars) in enumerate(p["rows"]):
            ytics.append('"%s" %d' % (ytic.replace('"', "'").replace("\n", "\\n"), yi))
            nb = len(bars)
            half = 0.38 / nb
            for bi, (tf, color, text) in enumerate(bars):
                yc = yi - 0.4 + (2 * bi + 1) * half
                rows_out.append((yc, half * 0.92, tf, color, text))
                vals.append(tf)
        refs = p.get("refs", [])
        allv = vals + [r[0] for r in refs]
        if p["log"]:
            lo, hi = log_range(min(allv), max(allv), 0.5, 3.0)
        else:
            lo, hi = 0.0, float("%.3g" % (max(allv) * p.get("pad", 1.32)))
            if p.get("fit_key"):
                hi = _fit_key(p, hi, max(allv), width - (min(lmargin, 70) + 4) * KEY_CHAR_PX,
                              row_px)
        # a label goes inside its bar when the bar is long enough for it, else after its end
        span = (math.log10(hi) - math.log10(lo)) if p["log"] else hi - lo
        with open(os.path.join(datdir, "%s_p%d.dat" % (name, i)), "w") as f:
            f.write("# y half_height tflops color(0xRRGGBB) inside label\n")
            for yc, hh, tf, color, text in rows_out:
                frac = ((math.log10(tf) - math.log10(lo)) if p["log"] else tf - lo) / span
                inside = int(_label_inside(frac, text))
                f.write('%.4f %.4f %.6g %d %d "%s"\n' % (yc, hh, tf, int(color[1:], 16), inside,
                                                        text))
        meta += [("p%d_title" % i, p["title"]), ("p%d_xlabel" % i, p["xlabel"]),
                 ("p%d_log" % i, int(p["log"])), ("p%d_xmin" % i, lo), ("p%d_xmax" % i, hi),
                 ("p%d_nrows" % i, len(p["rows"])), ("p%d_ytics" % i, "(" + ", ".join(ytics) + ")"),
                 ("p%d_y0" % i, y0), ("p%d_h" % i, h), ("p%d_nref" % i, len(refs)),
                 ("p%d_nkey" % i, len(p.get("keys", [])))]
        for j, (v, t, c) in enumerate(refs, 1):
            meta += [("p%d_ref%d" % (i, j), v), ("p%d_reft%d" % (i, j), t),
                     ("p%d_refc%d" % (i, j), c)]
        for j, (t, c) in enumerate(p.get("keys", []), 1):
            meta += [("p%d_keyt%d" % (i, j), t), ("p%d_keyc%d" % (i, j), c)]
    write_meta(os.path.join(datdir, name + ".meta.gp"), meta)


# ---- lesson 07: the fused epilogue; lesson 08: the shape suite ------------------------------

# the bars of the epilogue chart, per shape, top to bottom: (label, epilogue of the row, the
# row's time column, colour); lesson 07's three in blues, the two references in greys
EPI_BARS = (("lesson 07, plain (no epilogue)", "none", "ms", "#6f9fca"),
            ("lesson 07, fused bias", "bias", "ms", "#2b7bba"),
            ("lesson 07, fused bias+GELU", "bias_gelu", "ms", "#08457e"),
            ("cuBLASLt, fused bias+GELU", "bias_gelu", "lt_ms", "#404040"),
            ("cuBLAS + a separate bias+GELU kernel", "bias_gelu", "unfused_ms", "#8c8c8c"))


def epilogue_chart(datdir, rows):
    """The epilogue chart from the rows of <device>_epilogue.csv (make bench: lesson 07's
    default with --epilogue none,bias,bias_gelu, bias along n, the input type out): per shape
    (CSV order), the EPI_BARS as TFLOP/s of the GEMM (2MNK / time: the epilogue's own
    operations are not counted), one panel per input dtype. Only PASS rows with the output in
    the input dtype and the bias along n count; a time that is missing leaves its bar out.
    Returns the chart's name, or None when no row qualifies."""
    use = [r for r in rows if r["status"] == "PASS" and r["out"] == r["dtype"] and
           r["bias_axis"] in ("n", "-")]
    panels = []
    for d in DTYPES:
        drows = [r for r in use if r["dtype"] == d]
        shapes = _uniq((r["m"], r["n"], r["k"]) for r in drows)
        prow = []
        for sz in shapes:
            bars = []
            for _, epi, col, color in EPI_BARS:
                hit = [r for r in drows if (r["m"], r["n"], r["k"]) == sz and r["epilogue"] == epi]
                ms = hit[-1][col] if hit else -1.0
                if ms > 0:
                    tf = 2.0 * sz[0] * sz[1] * sz[2] / (ms * 1e9)
                    bars.append((tf, color, "%s TFLOP/s" % fmt_tf(tf)))
            if bars:
                prow.append(("%dx%dx%d" % sz, bars))
        if prow:
            panels.append({"title": "%s in, %s out (bias along n)" % (d, d),
                           "xlabel": "TFLOP/s of the GEMM (2MNK / time; %s)" % d, "log": False,
                           "rows": prow, "refs": [], "fit_key": True,
                           "keys": [(lab, c) for lab, _, _, c in EPI_BARS] if not panels else []})
    if not panels:
        return None
    hbar_chart(datdir, "epilogue", "Lesson 07: the fused epilogue D = gelu(A*B^T + bias) against "
               "cuBLASLt's fused epilogue and cuBLAS + a separate kernel (all timed in the same "
               "run)", stamp(use), panels, row_px=5 * 17)
    return "epilogue"


def read_suite(path):
    """The shapes of plots/data/shapes.txt, [(m, n, k)] in file order ('#' comments)."""
    out = []
    if path and os.path.exists(path):
        with open(path) as f:
            for i, line in enumerate(f, 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                try:
                    m, n, k = (int(x) for x in line.split("x"))
                except ValueError:
                    raise DataError("%s:%d: expected MxNxK, got '%s'" % (path, i, line))
                out.append((m, n, k))
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


SHAPES_CUT = 150.0  # % of cuBLAS: a longer bar is drawn to here (its label has the value), so
                   # that one shape where cuBLAS is slow does not squeeze the others


def shapes_chart(datdir, rows, suite):
    """The shapes chart from the rows of <device>_shapes.csv (make bench: lesson 08's default
    over the shape suite, and the one-kernel baselines, lesson 06's default for fp16/bf16 and
    lesson 04's for fp32): per shape (suite order, then shapes the suite does not list, CSV
    order) the % of cuBLAS of each (lesson, variant) of a dtype (bars cut at SHAPES_CUT), one
    panel per dtype; lesson 08's bars in the dtype's colour, the others grey; a 100% line;
    each series' geometric mean (over the shapes it ran: a refused shape has no row, hence no
    bar) in the key. Only PASS timed rows count. Returns the chart's name, or None when no row
    qualifies."""
    use = [r for r in rows if timed_pass(r) and r["pct_cublas"] > 0]
    order = list(suite) + [s for s in _uniq((r["m"], r["n"], r["k"]) for r in use) if s not in suite]
    greys = ("#8c8c8c", "#5f5f5f", "#b0b0b0")
    panels = []
    for d in ("fp16", "bf16", "fp32"):  # the order of lesson 08's tables
        drows = [r for r in use if r["dtype"] == d]
        # the series: lesson 08 first, then the others in lesson order
        series = sorted(_uniq((r["lesson"], r["variant"]) for r in drows),
                        key=lambda s: (s[0] != "08_dispatch", s[0]))
        if not series:
            continue
        colors = {}
        for s in series:
            colors[s] = DT_COLOR[d] if s[0] == "08_dispatch" else \
                greys[sum(x[0] != "08_dispatch" for x in colors) % len(greys)]
        pct = {s: [] for s in series}
        prow = []
        for sz in order:
            bars = []
            for s in series:
                hit = [r for r in drows if (r["lesson"], r["variant"]) == s and
                       (r["m"], r["n"], r["k"]) == sz]
                if hit:
                    r = hit[-1]
                    pct[s].append(r["pct_cublas"])
                    cut = r["pct_cublas"] > SHAPES_CUT
                    bars.append((min(r["pct_cublas"], SHAPES_CUT), colors[s],
                                 bar_text(r) + (" (bar cut at %d%%)" % SHAPES_CUT if cut else "")))
            if bars:
                prow.append(("%dx%dx%d" % sz, bars))
        nshapes = len(prow)
        keys = []
        for s in series:
            what = "dispatcher" if s[0] == "08_dispatch" else "one kernel"
            keys.append(("%s %s (%s): geomean %.1f%%%s" %
                         (s[0], s[1], what, geomean(pct[s]), "" if len(pct[s]) == nshapes else
                          " (%d of %d shapes)" % (len(pct[s]), nshapes)), colors[s]))
        panels.append({"title": "%s: %d shapes, %% of cuBLAS %s of the same shape in the same run "
                                "(labels: TFLOP/s, %% of cuBLAS)" % (d, nshapes, d),
                       "xlabel": "% of cuBLAS (" + d + ")", "log": False, "rows": prow,
                       "refs": [(100.0, "cuBLAS = 100%", "#333333")], "keys": keys,
                       "pad": 1.12, "fit_key": True})
    if not panels:
        return None
    hbar_chart(datdir, "shapes", "Lesson 08: the shape suite (plots/data/shapes.txt) through the "
               "dispatcher and through one kernel for every shape", stamp(use), panels,
               row_px=32)
    return "shapes"


def reduce_all(bench_csv, probe_csv, datdir, defaults=None, journey=None, epilogue=None,
               shapes=None, suite=None):
    rows = read_bench(bench_csv)
    probe, probe_rows = read_probe(probe_csv)
    pins = read_defaults(defaults)
    steps = journey_steps(rows, read_journey(journey), pins)
    os.makedirs(datdir, exist_ok=True)
    sel = select(rows, pins)
    if not sel:
        raise DataError("%s: no PASS timed rows at 4096x4096x4096; nothing to chart" % bench_csv)
    st = stamp(rows)
    charts = []
    size_txt = "%dx%dx%d" % REF
    dts = [d for d in DTYPES if any(e["dtype"] == d for e in sel)]

    def lay_note(layout):
        return "" if layout == "TN" else " (%s)" % layout

    def ref_line(d, layout="TN"):
        c = cublas_at(rows, d, REF, layout)
        return (c, "cuBLAS %s (%s): %s TFLOP/s" % (d, layout, fmt_tf(c)), DT_COLOR[d]) if c else None

    # (1) the course at a glance: each lesson's default, every dtype, one log axis
    gl_rows = [("%s %s, %s%s" % (e["lesson"], e["variant"], e["dtype"], lay_note(e["layout"])),
                [(e["row"]["tflops"], DT_COLOR[e["dtype"]], bar_text(e["row"]))]) for e in sel]
    hbar_chart(datdir, "glance", "The course at a glance: each lesson's default kernel at %s"
               % size_txt, st,
               [{"title": "bars: TFLOP/s; labels: TFLOP/s and % of cuBLAS of the same dtype and "
                          "layout in the same run", "xlabel": "TFLOP/s (log scale)", "log": True,
                 "rows": gl_rows, "refs": [r for r in (ref_line(d) for d in dts) if r],
                 "keys": []}])
    charts.append(("hbars", "glance"))

    # (2) the journey: every step in learning order, fp32 and fp16 on their own panels (bf16
    # only for steps that have no fp16 row)
    panels = []
    for d in ("fp32", "fp16", "bf16"):
        prow = []
        for s in steps:
            if s["label"] is None:
                continue
            layout = lesson_layout(rows, s["lesson"])
            if d == "bf16" and at(rows, s["lesson"], s["variant"], "fp16", layout, REF):
                continue
            r = at(rows, s["lesson"], s["variant"], d, layout, REF)
            if r and timed_pass(r):
                prow.append(("%s %s%s" % (s["lesson"][:2], s["label"], lay_note(layout)),
                             [(r["tflops"], lesson_color(s["lesson"]), bar_text(r))]))
        if prow:
            nums = sorted({t[0][:2] for t in prow})
            span = nums[0] if len(nums) == 1 else "%s-%s" % (nums[0], nums[-1])
            panels.append({"title": "%s: lessons %s, %d steps (labels: TFLOP/s, %% of cuBLAS in "
                                    "the same run)" % (d, span, len(prow)),
                           "xlabel": "TFLOP/s (%s, linear)" % d, "log": False, "rows": prow,
                           "refs": [r for r in [ref_line(d)] if r], "keys": []})
    if panels:
        hbar_chart(datdir, "journey", "The journey: every step of the course at %s, in learning "
                   "order, each named by the technique it adds" % size_txt, st, panels)
        charts.append(("hbars", "journey"))

    # (3) TFLOP/s vs square size, one chart per dtype
    for d in dts:
        series = [sweep_variant(rows, e) for e in sel if e["dtype"] == d]
        sizes = sorted({r["m"] for r in rows if r["dtype"] == d and r["m"] == r["n"] == r["k"]
                        and r["m"] >= 1 and (r["m"] & (r["m"] - 1)) == 0})
        if not sizes:
            continue
        cols = ['"cuBLAS %s (TN)"' % d] + ['"%s %s%s"' % (e["lesson"], e["variant"],
                                          lay_note(e["layout"])) for e in series]
        vals_all = []
        with open(os.path.join(datdir, "sizes_%s.dat" % d), "w") as f:
            f.write('"size" ' + " ".join(cols) + "\n")
            for s in sizes:
                line = [str(s)]
                c = cublas_at(rows, d, (s, s, s))
                line.append("%.6g" % c if c else "?")
                if c:
                    vals_all.append(c)
                for e in series:
                    r = at(rows, e["lesson"], e["variant"], d, e["layout"], (s, s, s))
                    ok = r is not None and timed_pass(r)
                    line.append("%.6g" % r["tflops"] if ok else "?")
                    if ok:
                        vals_all.append(r["tflops"])
                f.write(" ".join(line) + "\n")
        lo, hi = log_range(min(vals_all), max(vals_all), 0.5, 2.0)
        write_meta(os.path.join(datdir, "sizes_%s.meta.gp" % d), [
            ("title", "TFLOP/s vs size (M = N = K), %s, each lesson's default variant; cuBLAS dashed" % d),
            ("stamp", st), ("ncol", len(cols) + 1), ("xmin", sizes[0] / 1.4), ("xmax", sizes[-1] * 1.4),
            ("ymin", lo), ("ymax", hi), ("cublas_color", DT_COLOR[d])] +
            [("c%d" % (i + 3), lesson_color(e["lesson"])) for i, e in enumerate(series)])
        charts.append(("sizes", "sizes_" + d))

    # (4) roofline: each lesson's default, and the first step of a lesson where its traffic
    # model puts it at another intensity, at 2MNK / modelled bytes
    by_key = {(s["lesson"], s["variant"]): s for s in steps}
    first = {}
    for s in steps:
        if s["label"] is not None:
            first.setdefault(s["lesson"], s)
    pts = []

    def add_point(lesson, variant, d, layout, r, label):
        b, kind = model_bytes(by_key.get((lesson, variant), {"traffic": "-", "variant": variant}),
                              d, layout, REF[0], REF[1], REF[2], r["beta"])
        pts.append((2.0 * REF[0] * REF[1] * REF[2] / b, r["tflops"], d, label, kind))

    for e in sel:
        if e["dtype"] == "bf16" and any(x["lesson"] == e["lesson"] and x["dtype"] == "fp16" for x in sel):
            continue
        add_point(e["lesson"], e["variant"], e["dtype"], e["layout"], e["row"], e["lesson"])
        f = first.get(e["lesson"])
        if f and f["variant"] != e["variant"]:
            r = at(rows, e["lesson"], f["variant"], e["dtype"], e["layout"], REF)
            if r and timed_pass(r):
                b0 = model_bytes(by_key[(e["lesson"], e["variant"])] if (e["lesson"], e["variant"]) in by_key
                                 else {"traffic": "-", "variant": e["variant"]}, e["dtype"],
                                 e["layout"], REF[0], REF[1], REF[2])[0]
                b1 = model_bytes(f, e["dtype"], e["layout"], REF[0], REF[1], REF[2])[0]
                if abs(b0 - b1) > 1e-6 * b0:
                    add_point(e["lesson"], f["variant"], e["dtype"], e["layout"], r,
                              "%s %s" % (e["lesson"], f["variant"]))
    # points close in intensity (within a factor 1.6) form a cluster, labelled below
    pts.sort(key=lambda p: p[0])
    clusters = []
    for p in pts:
        if clusters and p[0] <= clusters[-1][-1][0] * 1.6:
            clusters[-1].append(p)
        else:
            clusters.append([p])
    refs = [(d, cublas_at(rows, d, REF)) for d in dts if d != "bf16" or "fp16" not in dts]
    refs = [(d, c) for d, c in refs if c]

    LABEL_GAP = 1.3  # one 10-point text line on the chart's log axis (about 4 decades)

    def label_y(tf):
        """a label's height: moved off a cuBLAS line it would sit on"""
        for _, c in refs:
            if c / 1.25 < tf <= c:
                return tf / 1.25
            if c < tf < c * 1.25:
                return tf * 1.25
        return tf

    with open(os.path.join(datdir, "roofline.dat"), "w") as f:
        f.write("# intensity(FLOP/B) tflops dtype model(0 lanes 1 tile 2 min) side label "
                "label_y\n")
        for c in clusters:
            # the cluster's lower-intensity half labelled on the left, the rest on the right;
            # on each side, fastest first, labels at least LABEL_GAP apart in height (a
            # factor: the axis is logarithmic), so that points of nearly equal speed do not
            # print their labels over each other
            order = sorted(range(len(c)), key=lambda j: c[j][0])
            side = {j: int(rank < len(c) // 2) for rank, j in enumerate(order)}  # 1: left
            last = [None, None]
            for j in sorted(range(len(c)), key=lambda j: -c[j][1]):
                ai, tf, d, lab, kind = c[j]
                y = label_y(tf)
                if last[side[j]] is not None and y > last[side[j]] / LABEL_GAP:
                    y = last[side[j]] / LABEL_GAP
                last[side[j]] = y
                f.write('%.6g %.6g %d %d %d "%s" %.6g\n' % (ai, tf, DTYPES.index(d),
                                                           ("lanes", "tile", "min").index(kind),
                                                           side[j], lab, y))
    pv = provenance(probe_rows)
    bw = probe["hbm_copy"] / 1000.0  # TB/s
    ys = [p[1] for p in pts] + [probe["ffma"], probe["mma_sync_f16_f32"]] + [c for _, c in refs]
    ai_min, ai_max = min(p[0] for p in pts), max(p[0] for p in pts)
    lo, hi = log_range(min(ys), max(ys), 0.5, 2.5)
    meta = [("title", "Roofline at %s: measured ceilings (probe) and the lessons at the "
             "intensity of their traffic model" % size_txt),
            ("stamp", st), ("probe_stamp", "ceilings: %s | %s | commit %s" % (pv["device"], pv["date"], pv["commit"])),
            ("note", MODEL_NOTE),
            ("ffma", probe["ffma"]), ("mma", probe["mma_sync_f16_f32"]), ("bw", bw),
            ("xmin", 2 ** math.floor(math.log2(ai_min / 3))), ("xmax", 2 ** math.ceil(math.log2(ai_max * 6))),
            ("ymin", lo), ("ymax", hi), ("nref", len(refs)),
            ("has_min", int(any(p[4] == "min" for p in pts))),
            ("c_fp32", DT_COLOR["fp32"]), ("c_fp16", DT_COLOR["fp16"]), ("c_bf16", DT_COLOR["bf16"])]
    for j, (d, c) in enumerate(refs, 1):
        meta += [("ref%d" % j, c), ("reft%d" % j, "cuBLAS %s %s TFLOP/s" % (d, fmt_tf(c))),
                 ("refc%d" % j, DT_COLOR[d])]
    meta += [("has_" + d, int(any(p[2] == d for p in pts))) for d in DTYPES]
    write_meta(os.path.join(datdir, "roofline.meta.gp"), meta)
    charts.append(("roofline", "roofline"))

    # (5) per-lesson step charts: every variant at 4096^3 in learning order, dtypes side by side
    for lesson in lessons_in_order(rows):
        layout = lesson_layout(rows, lesson)
        srows = []
        bdts = set()
        used = []  # the rows drawn: the chart's own provenance line
        for s in (x for x in steps if x["lesson"] == lesson):
            bars = []
            for d in DTYPES:
                r = at(rows, lesson, s["variant"], d, layout, REF)
                if r and timed_pass(r):
                    bars.append((r["tflops"], DT_COLOR[d], bar_text(r)))
                    bdts.add(d)
                    used.append(r)
            if bars:
                name = s["variant"] + (" (default)" if s["default"] else "")
                label = s["desc"] if s["desc"] and s["desc"] != s["variant"] else None
                srows.append((name + ("\n" + label if label else ""), bars))
        if len(srows) < 2:
            continue
        bdts = [d for d in DTYPES if d in bdts]
        hbar_chart(datdir, "steps_" + lesson, "%s: every variant at %s %s, in learning order "
                   "(labels: TFLOP/s and %% of cuBLAS in the same run)" % (lesson, size_txt, layout),
                   stamp(used), [{"title": "", "xlabel": "TFLOP/s", "log": False, "rows": srows,
                                  "fit_key": True,
                         "refs": [r for r in (ref_line(d, layout) for d in bdts) if r],
                         "keys": [(d, DT_COLOR[d]) for d in bdts] if len(bdts) > 1 else []}])
        charts.append(("hbars", "steps_" + lesson))

    # (6) lesson 07's epilogue and lesson 08's shape suite, from their own CSVs (make bench
    # writes them next to the main one)
    if epilogue and chart_ok(epilogue_chart(datdir, read_bench(epilogue, EPI_COLUMNS))):
        charts.append(("hbars", "epilogue"))
    if shapes and chart_ok(shapes_chart(datdir, read_bench(shapes), read_suite(suite))):
        charts.append(("hbars", "shapes"))

    with open(os.path.join(datdir, "charts.txt"), "w") as f:
        for script, name in charts:
            f.write("%s %s\n" % (script, name))
    return charts


def chart_ok(name):
    """name, or a note on stderr that a companion CSV had nothing to draw"""
    if name is None:
        print("plotdata: the epilogue or shapes CSV has no usable (PASS, timed) row; chart left out",
              file=sys.stderr)
    return name


def main(argv):
    args = [a for a in argv[1:]]
    opts = {"--defaults": None, "--journey": None, "--epilogue": None, "--shapes": None,
            "--suite": None}
    for name in opts:
        if name in args:
            i = args.index(name)
            if i + 1 >= len(args):
                args = []
                break
            opts[name] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 3:
        print("usage: plotdata.py BENCH.csv PROBE.csv DATDIR [--defaults FILE] [--journey FILE] "
              "[--epilogue EPI.csv] [--shapes SHAPES.csv --suite shapes.txt]", file=sys.stderr)
        return 2
    try:
        reduce_all(args[0], args[1], args[2], opts["--defaults"], opts["--journey"],
                   opts["--epilogue"], opts["--shapes"], opts["--suite"])
    except (DataError, OSError) as e:
        print("plotdata: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
