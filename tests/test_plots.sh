#!/usr/bin/env bash
# test_plots.sh - the plot pipeline on the SYNTHETIC sample (plots/data/sample/SAMPLE*.csv):
# every chart exists as a non-empty PNG and SVG with the provenance stamp; readme_results.py
# writes the table into a README copy with markers, idempotently, and the "no data" line
# without a CSV; README.md's results region is what `make readme` writes. Needs gnuplot, python3.
set -u
cd "$(dirname "$0")/.."
fail=0
bad() { echo "test_plots: FAIL: $*" >&2; fail=1; }
command -v gnuplot >/dev/null 2>&1 || {
    echo "test_plots: FAIL: gnuplot is not installed (sudo apt-get install gnuplot-nox, or run scripts/ensure_deps.sh as root)" >&2
    exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "test_plots: FAIL: python3 is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. charts from the sample
bash plots/plots.sh -o "$tmp/out" -w "$tmp/work" plots/data/sample/SAMPLE.csv > "$tmp/plots.log" 2>&1 ||
    { cat "$tmp/plots.log" >&2; bad "plots/plots.sh failed on the sample CSV"; }
out=$tmp/out/SAMPLE
for c in glance roofline sizes_fp32 sizes_fp16 sizes_bf16 \
         steps_01_naive steps_04_copy steps_05_mma steps_06_swizzle; do
    [ -s "$out/$c.png" ] || { bad "$c.png missing or empty"; continue; }
    [ -s "$out/$c.svg" ] || { bad "$c.svg missing or empty"; continue; }
    [ "$(head -c 4 "$out/$c.png" | od -An -c | tr -d ' ')" = "211PNG" ] || bad "$c.png is not a PNG"
    grep -q "<svg" "$out/$c.svg" || bad "$c.svg is not an SVG"
    grep -q "SAMPLE synthetic data - not a measurement" "$out/$c.svg" || bad "$c.svg lacks the device stamp"
    grep -q "commit synthetic" "$out/$c.svg" || bad "$c.svg lacks the commit stamp"
done
for log in "$tmp"/work/SAMPLE/*.log; do
    [ -s "$log" ] && { cat "$log" >&2; bad "gnuplot printed warnings or errors ($(basename "$log"))"; }
done
# the lesson with one variant gets no step chart; lesson 01's line is the swept default
[ -e "$out/steps_03_tiled.png" ] && bad "steps_03_tiled.png drawn for a one-variant lesson"
grep -q '"01_naive uncoalesced (TT)"' "$tmp/work/SAMPLE/sizes_fp32.dat" ||
    bad "sizes_fp32.dat: lesson 01's line is not its swept default variant"
# arithmetic intensity at 4096^3: fp32 512 FLOP/B, fp16 1024 FLOP/B
grep -q '^512 .*"04_copy fp32"' "$tmp/work/SAMPLE/roofline.dat" || bad "roofline.dat: 04_copy fp32 not at 512 FLOP/B"
grep -q '^1024 .*"06_swizzle fp16"' "$tmp/work/SAMPLE/roofline.dat" || bad "roofline.dat: 06_swizzle fp16 not at 1024 FLOP/B"

# 2. the README region
printf '# t\n\n## Measured results\n\n<!-- results:begin -->\nstale\n<!-- results:end -->\n\n## Next\n' > "$tmp/README.md"
rr() { python3 scripts/readme_results.py --readme "$tmp/README.md" --out-root "$tmp/out" "$@"; }
rr --csv plots/data/sample/SAMPLE.csv > /dev/null || bad "readme_results.py failed on the sample"
grep -q '^| lesson | variant | dtype | layout | TFLOP/s at 4096×4096×4096 | % of cuBLAS | rel. error |$' "$tmp/README.md" ||
    bad "README table header missing"
grep -q '^| 04_copy | fast | fp32 | TN | 26.17 | 75.0 | 2.0e-07 |$' "$tmp/README.md" || bad "README row of 04_copy missing or wrong"
grep -q '^| 01_naive | coalesced | fp32 | TT |' "$tmp/README.md" || bad "README: defaults.txt pin of 01_naive not applied"
grep -q '^| 06_swizzle | 128x256x32_s4 | bf16 | TN |' "$tmp/README.md" || bad "README row of 06_swizzle bf16 missing"
grep -q '(out/SAMPLE/glance.png)' "$tmp/README.md" || bad "README does not link the at-a-glance PNG"
grep -q 'commit synthetic, with `make bench`' "$tmp/README.md" || bad "README provenance line missing"
grep -q 'stale' "$tmp/README.md" && bad "README region not replaced"
grep -q '^## Next$' "$tmp/README.md" || bad "README text after the region lost"
cp "$tmp/README.md" "$tmp/README.1"
rr --csv plots/data/sample/SAMPLE.csv > /dev/null && cmp -s "$tmp/README.md" "$tmp/README.1" || bad "readme_results.py is not idempotent"
rr --csv plots/data/sample/SAMPLE.csv --check || bad "readme_results.py --check fails on its own output"
rr --csv > /dev/null || bad "readme_results.py failed without a CSV"
grep -q '^No GPU measurements committed yet.$' "$tmp/README.md" || bad "no-data line missing"
grep -q '^| lesson' "$tmp/README.md" && bad "table left in place without data"
printf '# no markers\n' > "$tmp/README.md"
rr --csv 2> /dev/null && bad "readme_results.py accepted a README without markers"

# 3. the committed README.md agrees with the committed CSVs
python3 scripts/readme_results.py --check || bad "README.md's results region is out of date: run make plots readme"

[ $fail = 0 ] && echo "test_plots: charts and README table OK (synthetic sample)"
exit $fail
