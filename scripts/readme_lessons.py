#!/usr/bin/env python3
"""readme_lessons.py - make readme: rewrites the lesson table of README.md, the text between the
lines <!-- lessons:begin --> and <!-- lessons:end -->, from the tree itself:

  - every folder lessons/NN_name with a gemm.cu is a lesson, in the order of NN;
  - its idea is the title of its README.md (the text after the dash of "# Lesson NN — ...");
  - its precision comes from the element types its gemm.cu names (GEMM_FP32/FP16/BF16);
  - what runs without a GPU: an assignment (exercise/rubric.txt: `make gradeNN`) and the CPU
    tools its lesson.mk builds (rules for $(BUILD)/tools/NAME);
  - the measured column: the lesson's default variant at 4096^3 in the committed bench CSV
    (the selection of plots/plotdata.py, the same as the charts and the results table).
A lesson of the course's arc (PLANNED below) without a folder yet gets an "in progress" row; once
its folder exists, the row comes from the folder. Idempotent.

Usage: python3 scripts/readme_lessons.py [--readme README.md] [--csv BENCH.csv] [--check]
  --csv    default: the first plots/data/*.csv with a <name>_probe.csv (not plots/data/sample)
  --check  change nothing; exit 1 if the README is not what this script would write
Python 3 standard library only.
"""
import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plots"))
import plotdata  # noqa: E402

BEGIN = "<!-- lessons:begin -->"
END = "<!-- lessons:end -->"

# The rest of the course's arc: a row each until the lesson's folder exists.
PLANNED = {
    "07": ("07_epilogue", "the epilogue: C staged through shared memory, fused bias and "
           "activation, mixed precision", "fp16/bf16, fp32 out", "sm_80+"),
    "08": ("08_dispatch", "dispatch: a tile registry, persistent CTAs, split-K / stream-K, one "
           "fast kernel per shape", "all", "sm_80+"),
    "09": ("09_wgmma", "Hopper: TMA, mbarrier pipelines, wgmma, warp specialization",
           "fp16/bf16", "sm_90"),
}

DT_TOKENS = (("GEMM_FP32", "fp32"), ("GEMM_FP16", "fp16"), ("GEMM_BF16", "bf16"))


def lesson_dirs(root):
    out = []
    for cu in sorted(glob.glob(os.path.join(root, "lessons", "*", "gemm.cu"))):
        d = os.path.dirname(cu)
        name = os.path.basename(d)
        if re.match(r"^\d\d_", name):
            out.append((name[:2], name, d))
    return out


def idea(d):
    """The README title after its dash: '# Lesson 04 — tiled copy: ...' -> 'tiled copy: ...'."""
    path = os.path.join(d, "README.md")
    if not os.path.exists(path):
        return "(no README.md yet)"
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# "):
                t = line[2:].strip()
                m = re.match(r"^Lesson\s+\d+\s*(?:—|–|-|:)\s*(.*)$", t)
                return m.group(1) if m else t
    return "(README.md has no title)"


def precision(d):
    with open(os.path.join(d, "gemm.cu"), encoding="utf-8") as f:
        src = f.read()
    if "GEMM_DT_ALL" in src:
        return "fp32/fp16/bf16"
    dts = [name for tok, name in DT_TOKENS if tok in src]
    return "/".join(dts) if dts else "?"


def gpu_need(d):
    with open(os.path.join(d, "gemm.cu"), encoding="utf-8") as f:
        src = f.read()
    return "sm_90" if re.search(r"wgmma|sm_90a", src) else "sm_80+"


def cpu_side(nn, d, root):
    """What of the lesson runs without a GPU, as README cells."""
    items = []
    if os.path.exists(os.path.join(d, "exercise", "rubric.txt")):
        rel = os.path.relpath(os.path.join(d, "exercise"), root).replace(os.sep, "/")
        items.append("[assignment](%s/): `make grade%s`" % (rel, nn))
    mk = os.path.join(d, "lesson.mk")
    if os.path.exists(mk):
        with open(mk, encoding="utf-8") as f:
            for tool in re.findall(r"^\$\(BUILD\)/tools/([A-Za-z0-9_]+):", f.read(), re.M):
                items.append("`build/tools/%s`" % tool)
    return ", ".join(items) if items else "—"


def measured(rows, sel, lesson):
    if rows is None:
        return "not measured yet"
    parts = []
    for e in sel:
        if e["lesson"] == lesson:
            r = e["row"]
            pct = " (%.0f%%)" % r["pct_cublas"] if r["pct_cublas"] >= 0 else ""
            lay = "" if e["layout"] == "TN" else " %s" % e["layout"]
            parts.append("%s%s %s%s" % (e["dtype"], lay, plotdata.fmt_tf(r["tflops"]), pct))
    return ", ".join(parts) if parts else "not measured yet"


def in_progress(entries):
    names = [e[2] for e in entries if e[1] == "planned"]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return "; %s %s in progress" % (listed, "is" if len(names) == 1 else "are")


def default_csv():
    for f in sorted(glob.glob(os.path.join(ROOT, "plots", "data", "*.csv"))):
        if not f.endswith("_probe.csv") and os.path.exists(f[:-4] + "_probe.csv"):
            return f
    return None


def region(root, csv_path, pins):
    rows = plotdata.read_bench(csv_path) if csv_path else None
    sel = plotdata.select(rows, pins, warn=None) if rows else []
    device = plotdata.provenance(rows)["device"] if rows else "GPU"
    present = lesson_dirs(root)
    nums = {nn for nn, _, _ in present}
    entries = [(nn, "present", name, d) for nn, name, d in present]
    entries += [(nn, "planned", PLANNED[nn][0], None) for nn in PLANNED if nn not in nums]
    entries.sort()
    lines = [BEGIN,
             "<!-- generated by `make readme` (scripts/readme_lessons.py) from lessons/*/ and the "
             "bench CSV; edits here are overwritten -->",
             "%d lessons are in the tree%s." % (len(present), in_progress(entries)),
             "",
             "| lesson | idea | precision | GPU | without a GPU | %s, 4096³, TFLOP/s (%% of cuBLAS) |"
             % device,
             "|---|---|---|---|---|---|"]
    for nn, kind, name, d in entries:
        if kind == "present":
            rel = os.path.relpath(d, root).replace(os.sep, "/")
            lines.append("| [%s](%s/) | %s | %s | %s | %s | %s |" % (
                name, rel, idea(d), precision(d), gpu_need(d), cpu_side(nn, d, root),
                measured(rows, sel, name)))
        else:
            _, text, prec, gpu = PLANNED[nn]
            lines.append("| %s | %s | %s | %s | | in progress |" % (name, text, prec, gpu))
    lines.append(END)
    return "\n".join(lines)


def rewrite(text, new_region, readme):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < 0 or e < b or text.count(BEGIN) != 1 or text.count(END) != 1:
        raise plotdata.DataError("%s: needs exactly one %s ... %s region" % (readme, BEGIN, END))
    return text[:b] + new_region + text[e + len(END):]


def main(argv):
    ap = argparse.ArgumentParser(description="rewrite README.md's lesson table")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--root", default=ROOT, help="the repository whose lessons/ is listed")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--defaults", default=os.path.join(ROOT, "plots", "data", "defaults.txt"))
    ap.add_argument("--no-csv", action="store_true", help="leave the measured column empty")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv[1:])
    csv_path = None if a.no_csv else (a.csv or default_csv())
    try:
        with open(a.readme, encoding="utf-8") as f:
            text = f.read()
        new = rewrite(text, region(a.root, csv_path, plotdata.read_defaults(a.defaults)), a.readme)
    except (plotdata.DataError, OSError) as e:
        print("readme_lessons: %s" % e, file=sys.stderr)
        return 1
    if a.check:
        if new != text:
            print("readme_lessons: the lesson table of %s is out of date; run make readme"
                  % a.readme, file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(a.readme, "w", encoding="utf-8") as f:
            f.write(new)
        print("readme_lessons: rewrote the lesson table in %s" % a.readme)
    else:
        print("readme_lessons: %s already up to date" % a.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
