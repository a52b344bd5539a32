#!/usr/bin/env python3
"""plotdata.py - reduce a bench CSV (+ its probe CSV) to gnuplot-ready files.

Python 3 standard library only (no pandas/matplotlib), so `make plots` runs anywhere.

    python3 plots/plotdata.py BENCH.csv PROBE.csv DATDIR [--defaults FILE]

writes into DATDIR, for plots/*.gp:
    glance.dat / glance.meta.gp        one bar per (lesson, dtype) at 4096^3
    sizes_<dtype>.dat / .meta.gp       TFLOP/s vs square size, one column per lesson + cuBLAS
    roofline.dat / roofline.meta.gp    lessons at their arithmetic intensity, probe ceilings
    steps_<lesson>.dat / .meta.gp      one bar per variant (lessons with several variants)
    charts.txt                         "<script> <name>" per chart, for plots/plots.sh

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


def read_bench(path):
    rows = []
    for i, r in enumerate(_read(path, BENCH_COLUMNS)):
        try:
            for c in NUMERIC:
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


# ---- writing ---------------------------------------------------------------------------------

def gp_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_meta(path, vals):
    with open(path, "w") as f:
        for k, v in vals:
            f.write("%s = %s\n" % (k, gp_str(v) if isinstance(v, str) else repr(v)))


def log_range(lo, hi, pad_lo=0.5, pad_hi=4.0):
    """a log axis range: a decade below lo * pad_lo, up to hi * pad_hi (room for labels)"""
    return (10 ** math.floor(math.log10(lo * pad_lo)), float("%.3g" % (hi * pad_hi)))


def fmt_tf(t):
    return "%.0f" % t if t >= 100 else "%.1f" % t if t >= 1 else "%.2f" % t


def bar_chart(datdir, name, title, bars, refs, stampline, ylog, xlabel):
    """bars: [(xlabel, tflops, pct, dtype)]; refs: [(tflops, title, color)]."""
    with open(os.path.join(datdir, name + ".dat"), "w") as f:
        f.write("# x tflops pct dtype xlabel toplabel\n")
        for i, (lab, tf, pct, dt) in enumerate(bars):
            top = fmt_tf(tf) + ("\\n%.0f%%" % pct if pct >= 0 else "")
            f.write('%d %.6g %.6g %d "%s" "%s"\n' % (i, tf, pct, DTYPES.index(dt), lab, top))
    ys = [b[1] for b in bars] + [r[0] for r in refs]
    lo, hi = log_range(min(ys), max(ys), 0.5, 2.5) if ylog else (0.0, float("%.3g" % (max(ys) * 1.3)))
    meta = [("title", title), ("stamp", stampline), ("nbars", len(bars)), ("ylog", int(ylog)),
            ("xlab", xlabel), ("ymin", lo), ("ymax", hi), ("nref", len(refs))]
    for i, (v, t, c) in enumerate(refs, 1):
        meta += [("ref%d" % i, v), ("reft%d" % i, t), ("refc%d" % i, c)]
    for d in DTYPES:
        meta += [("c_" + d, DT_COLOR[d]), ("has_" + d, int(any(b[3] == d for b in bars)))]
    write_meta(os.path.join(datdir, name + ".meta.gp"), meta)


def reduce_all(bench_csv, probe_csv, datdir, defaults=None):
    rows = read_bench(bench_csv)
    probe, probe_rows = read_probe(probe_csv)
    pins = read_defaults(defaults)
    os.makedirs(datdir, exist_ok=True)
    sel = select(rows, pins)
    if not sel:
        raise DataError("%s: no PASS timed rows at 4096x4096x4096; nothing to chart" % bench_csv)
    st = stamp(rows)
    charts = []
    size_txt = "%dx%dx%d" % REF

    def reflist(dts):
        out = []
        for d in dts:
            c = cublas_at(rows, d, REF)
            if c:
                out.append((c, "cuBLAS %s (TN) %s TFLOP/s" % (d, fmt_tf(c)), DT_COLOR[d]))
        return out

    # (1) the course at a glance
    bars = []
    for e in sel:
        lab = e["lesson"] + ("" if e["layout"] == "TN" else " (%s)" % e["layout"])
        bars.append((lab + "\\n" + e["variant"], e["row"]["tflops"], e["row"]["pct_cublas"], e["dtype"]))
    dts = [d for d in DTYPES if any(e["dtype"] == d for e in sel)]
    bar_chart(datdir, "glance", "The course at a glance: each lesson at %s (labels: TFLOP/s and %% "
              "of cuBLAS of the same dtype and layout)" % size_txt, bars, reflist(dts), st,
              True, "lesson / variant")
    charts.append(("bars", "glance"))

    # (2) TFLOP/s vs square size, one chart per dtype
    for d in dts:
        series = [sweep_variant(rows, e) for e in sel if e["dtype"] == d]
        sizes = sorted({r["m"] for r in rows if r["dtype"] == d and r["m"] == r["n"] == r["k"]
                        and r["m"] >= 1 and (r["m"] & (r["m"] - 1)) == 0})
        if not sizes:
            continue
        cols = ['"cuBLAS %s (TN)"' % d] + ['"%s %s%s"' % (e["lesson"], e["variant"],
                                          "" if e["layout"] == "TN" else " (%s)" % e["layout"])
                                          for e in series]
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
            ("ymin", lo), ("ymax", hi), ("cublas_color", DT_COLOR[d])])
        charts.append(("sizes", "sizes_" + d))

    # (3) roofline
    # bf16 has the intensity of fp16 and about its rate: drawn only where there is no fp16 point
    pts = []
    for e in sel:
        if e["dtype"] == "bf16" and any(x["lesson"] == e["lesson"] and x["dtype"] == "fp16" for x in sel):
            continue
        pts.append((intensity(e["dtype"], *REF), e["row"]["tflops"], e["dtype"],
                    "%s %s" % (e["lesson"], e["dtype"])))
    for d in dts:
        c = cublas_at(rows, d, REF)
        if c and (d != "bf16" or "fp16" not in dts):
            pts.append((intensity(d, *REF), c, d, "cuBLAS %s" % d))
    # labels of points sharing an intensity alternate right / left of the marker
    side = {}
    with open(os.path.join(datdir, "roofline.dat"), "w") as f:
        f.write("# intensity(FLOP/B) tflops dtype is_cublas side label\n")
        for ai, tf, d, lab in sorted(pts, key=lambda p: (p[0], -p[1])):
            k = round(ai, 3)
            side[k] = side.get(k, -1) + 1
            f.write('%.6g %.6g %d %d %d "%s"\n' % (ai, tf, DTYPES.index(d), lab.startswith("cuBLAS"),
                                                  side[k] % 2, lab))
    pv = provenance(probe_rows)
    bw = probe["hbm_copy"] / 1000.0  # TB/s
    ys = [p[1] for p in pts] + [probe["ffma"], probe["mma_sync_f16_f32"]]
    lo, hi = log_range(min(ys + [bw]), max(ys), 0.3, 3.0)
    ai_max = max(p[0] for p in pts)
    write_meta(os.path.join(datdir, "roofline.meta.gp"), [
        ("title", "Roofline at %s: measured ceilings (probe) and each lesson's default variant" % size_txt),
        ("stamp", st), ("probe_stamp", "ceilings: %s | %s | commit %s" % (pv["device"], pv["date"], pv["commit"])),
        ("ffma", probe["ffma"]), ("mma", probe["mma_sync_f16_f32"]), ("bw", bw),
        ("xmin", 1.0), ("xmax", 2 ** math.ceil(math.log2(ai_max * 4))), ("ymin", lo), ("ymax", hi),
        ("c_fp32", DT_COLOR["fp32"]), ("c_fp16", DT_COLOR["fp16"]), ("c_bf16", DT_COLOR["bf16"])] +
        [("has_" + d, int(any(p[2] == d for p in pts))) for d in DTYPES])
    charts.append(("roofline", "roofline"))

    # (4) per-lesson step charts: every variant at 4096^3
    for lesson in lessons_in_order(rows):
        variants = variants_in_order(rows, lesson)
        if len(variants) < 2:
            continue
        layout = lesson_layout(rows, lesson)
        bars = []
        for v in variants:
            for d in DTYPES:
                r = at(rows, lesson, v, d, layout, REF)
                if r and timed_pass(r):
                    bars.append((v + (" (default)" if v == variants[0] else ""), r["tflops"],
                                 r["pct_cublas"], d))
        if len(bars) < 2:
            continue
        bdts = [d for d in DTYPES if any(b[3] == d for b in bars)]
        refs = []
        for d in bdts:
            c = cublas_at(rows, d, REF, layout)
            if c:
                refs.append((c, "cuBLAS %s (%s) %s TFLOP/s" % (d, layout, fmt_tf(c)), DT_COLOR[d]))
        bar_chart(datdir, "steps_" + lesson, "%s: every variant at %s %s (labels: TFLOP/s and %% of "
                  "cuBLAS)" % (lesson, size_txt, layout), bars, refs, st, False, "variant")
        charts.append(("bars", "steps_" + lesson))

    with open(os.path.join(datdir, "charts.txt"), "w") as f:
        for script, name in charts:
            f.write("%s %s\n" % (script, name))
    return charts


def main(argv):
    args = [a for a in argv[1:]]
    defaults = None
    if "--defaults" in args:
        i = args.index("--defaults")
        defaults = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        print("usage: plotdata.py BENCH.csv PROBE.csv DATDIR [--defaults FILE]", file=sys.stderr)
        return 2
    try:
        reduce_all(args[0], args[1], args[2], defaults)
    except (DataError, OSError) as e:
        print("plotdata: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
