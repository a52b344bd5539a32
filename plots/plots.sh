#!/usr/bin/env bash
# plots.sh - make plots: bench CSV(s) -> charts (PNG + SVG), no GPU and no network needed.
#
# Usage: plots/plots.sh [-o OUTROOT] [-w WORKROOT] [-d DEFAULTS] [BENCH.csv ...]
#   BENCH.csv   bench CSVs (make bench writes plots/data/<device>.csv); each needs its probe CSV
#               next to it (<device>_probe.csv). Default: every plots/data/*.csv with a probe CSV
#               (plots/data/sample/, the synthetic test data, is not included). The epilogue
#               and shapes charts come from <device>_epilogue.csv and <device>_shapes.csv next
#               to it, when they exist (make bench writes them; the suite's order is
#               plots/data/shapes.txt).
#   -o OUTROOT  charts go to OUTROOT/<device>/ (default plots/out)
#   -w WORKROOT the reduced .dat/.meta.gp files go to WORKROOT/<device>/ (default $BUILD/plots)
#   -d DEFAULTS variant pins (default plots/data/defaults.txt; see that file)
# Charts per CSV: journey, glance, sizes_<dtype>, roofline, steps_<lesson>, epilogue, shapes
# (.png and .svg); see plots/README.md. Exit: 0 ok (also when there is no CSV yet), 1 an error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUTROOT=plots/out
WORKROOT=${BUILD:-build}/plots
DEFAULTS=$here/data/defaults.txt
JOURNEY=$here/data/journey.txt
SUITE=$here/data/shapes.txt
while getopts "o:w:d:" opt; do
    case $opt in
    o) OUTROOT=$OPTARG ;;
    w) WORKROOT=$OPTARG ;;
    d) DEFAULTS=$OPTARG ;;
    *) sed -n '2,15p' "$0" >&2; exit 1 ;;
    esac
done
shift $((OPTIND - 1))

command -v gnuplot >/dev/null 2>&1 || {
    echo "plots: gnuplot is not installed; install it (sudo apt-get install gnuplot-nox, or scripts/ensure_deps.sh as root)" >&2
    exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "plots: python3 is not installed" >&2; exit 1; }

csvs=("$@")
if [ ${#csvs[@]} -eq 0 ]; then
    for f in plots/data/*.csv; do
        [ -e "$f" ] || continue
        case $f in *_probe.csv | *_epilogue.csv | *_shapes.csv) continue ;; esac
        [ -e "${f%.csv}_probe.csv" ] && csvs+=("$f") || echo "plots: skipping $f (no ${f%.csv}_probe.csv)" >&2
    done
    if [ ${#csvs[@]} -eq 0 ]; then
        echo "plots: no measured CSV in plots/data yet (make bench on a GPU writes one); nothing to draw"
        exit 0
    fi
fi

status=0
for csv in "${csvs[@]}"; do
    probe=${csv%.csv}_probe.csv
    [ -e "$csv" ] || { echo "plots: $csv does not exist" >&2; status=1; continue; }
    [ -e "$probe" ] || { echo "plots: $probe (the ceilings for the roofline) does not exist" >&2; status=1; continue; }
    dev=$(basename "${csv%.csv}")
    work=$WORKROOT/$dev
    out=$OUTROOT/$dev
    rm -rf "$work"
    mkdir -p "$work" "$out"
    extra=()
    [ -e "${csv%.csv}_epilogue.csv" ] && extra+=(--epilogue "${csv%.csv}_epilogue.csv")
    [ -e "${csv%.csv}_shapes.csv" ] && extra+=(--shapes "${csv%.csv}_shapes.csv" --suite "$SUITE")
    python3 "$here/plotdata.py" "$csv" "$probe" "$work" --defaults "$DEFAULTS" --journey "$JOURNEY" \
        "${extra[@]}" || { status=1; continue; }
    n=0
    while read -r script name; do
        if gnuplot -c "$here/$script.gp" "$work/$name" "$out/$name" 2> "$work/$name.log" &&
           [ -s "$out/$name.png" ] && [ -s "$out/$name.svg" ]; then
            n=$((n + 1))
        else
            echo "plots: gnuplot $script.gp failed for $name:" >&2; cat "$work/$name.log" >&2; status=1
        fi
        # a warning may mean a chart drew only part of its data: show it (tests/test_plots.sh
        # fails on any warning for the sample)
        if grep -q -i "warning" "$work/$name.log"; then
            echo "plots: gnuplot warned for $name:" >&2; cat "$work/$name.log" >&2
        fi
    done < "$work/charts.txt"
    echo "plots: $csv -> $out/ ($n charts, PNG + SVG)"
done
exit $status
