#!/usr/bin/env bash
# test_plots.sh - the plot pipeline on the SYNTHETIC sample (plots/data/sample/SAMPLE*.csv,
# with lessons 07-09 that plots/data/journey.txt does not know, and the companions
# SAMPLE_epilogue.csv, SAMPLE_shapes.csv): every chart exists as a non-empty PNG and SVG with
# the provenance stamp (the epilogue and shapes charts included); the roofline's modelled
# intensities; the journey's order and labels; the epilogue chart's bars (order, TFLOP/s from
# each time column, rows of other outputs left out); the shapes chart's suite order, refused
# shapes left out, geometric means against an independent computation, the 100% line; no
# epilogue or shapes chart without the companions; readme_results.py
# writes the table into a README copy with markers, idempotently, and the "no data" line
# without a CSV; README.md's results region and lesson table are what `make readme` writes; the
# lesson table of a made-up tree. Needs gnuplot, python3.
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
for c in glance journey roofline sizes_fp32 sizes_fp16 sizes_bf16 steps_01_naive steps_04_copy \
         steps_05_mma steps_06_swizzle steps_07_epilogue steps_09_wgmma epilogue shapes; do
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
# roofline: each kernel at the intensity of its traffic model at 4096^3 (plots/data/journey.txt):
# lanes down a column of C with K-major A (TT) fetch 32 + 1 sectors per warp and k: 2/33
# FLOP/B; lanes along a row 1 + 4 sectors: 2/5; a 128x128 fp32 tile 2*4096 / (4 * (32 + 32 + 1));
# a 128x256 fp16 tile (from the variant's name) 2*4096 / (2 * (16 + 32 + 1)); no tile in the
# name: the minimum traffic (model 2)
ai() { awk -v lab="\"$1\"" 'index($0, lab) { print $1 " " $4 }' "$tmp/work/SAMPLE/roofline.dat" | head -1; }
near() { awk -v got="$1" -v want="$2" 'BEGIN { exit !(got > 0.999 * want && got < 1.001 * want) }'; }
set -- $(ai "01_naive uncoalesced"); near "${1:-0}" 0.0606 && [ "${2:-}" = 0 ] || bad "roofline: 01 uncoalesced at '$*', want 0.0606 (model 0)"
set -- $(ai "01_naive"); near "${1:-0}" 0.39992 || bad "roofline: 01 coalesced at '$*', want 0.4"
set -- $(ai "03_tiled"); near "${1:-0}" 31.5077 && [ "${2:-}" = 1 ] || bad "roofline: 03_tiled at '$*', want 31.5 (model 1)"
set -- $(ai "06_swizzle"); near "${1:-0}" 83.5918 || bad "roofline: 06_swizzle (128x256 from its name) at '$*', want 83.6"
set -- $(ai "07_epilogue"); [ "${2:-}" = 2 ] || bad "roofline: 07_epilogue (no tile known) not on the minimum-traffic model: '$*'"
grep -q "traffic model, not a measurement" "$tmp/work/SAMPLE/roofline.meta.gp" || bad "roofline: the chart does not say it is a model"
# the journey: fp32 and fp16 panels, steps in journey.txt order, labelled by technique; lessons
# the file does not list come after, their default last, named by their variants
jm=$tmp/work/SAMPLE/journey.meta.gp
grep -q '^npanels = 2$' "$jm" || bad "journey: want 2 panels (fp32, fp16)"
yt1=$(grep '^p1_ytics' "$jm"); yt2=$(grep '^p2_ytics' "$jm")
order=$(printf '%s' "$yt1" | grep -o '\\"0[0-9] [^\\]*' | cut -c3-4 | tr '\n' ' ')
[ "$order" = "01 01 03 04 04 04 08 " ] || bad "journey fp32 panel: lessons in the order '$order'"
case $yt1 in *'"01 one thread per C element, lanes down a column of C (TT)\" 0, \"01 lanes along a row'*) ;; *) bad "journey: lesson 01's steps not first, in order";; esac
case $yt1 in *'04 128-bit copies, 2-D register blocking\" 3, \"04 cp.async, double buffering\" 4, \"04 3-stage pipeline'*) ;; *) bad "journey: lesson 04 not in learning order";; esac
case $yt2 in *'"07 fused_bias_relu\" 4, \"07 staged\" 5, \"08 dispatch\" 6, \"09 wgmma_128x128x64\" 7, \"09 tma_128x256x64\" 8)'*) ;; *) bad "journey: unlisted lessons 07-09 not after the listed ones, default last: $yt2";; esac
grep -q '"0.87 TFLOP/s, 2%"' "$tmp/work/SAMPLE/journey_p1.dat" || bad "journey: bar label TFLOP/s and % of cuBLAS missing"
# step charts in learning order; a bar's label inside the bar when it fits, else after it
grep -q '^p1_ytics = "(\\"tiled_vec\\\\n128-bit copies' "$tmp/work/SAMPLE/steps_04_copy.meta.gp" ||
    bad "steps_04: not in learning order (tiled_vec first) or without the technique"
awk '!/^#/ && $3 + 0 < 1 && $5 != 0 { exit 1 }' "$tmp/work/SAMPLE/journey_p1.dat" || bad "journey: a short bar's label placed inside it"

# the epilogue chart (SAMPLE_epilogue.csv: lesson 07's time is 1, 1.02 and 1.04 x its plain time
# for none, bias, bias_gelu; cuBLASLt fused 0.65 x and cuBLAS + separate kernel 0.95 x it): fp16
# and bf16 panels, 5 shapes of 5 bars each, in the order plain, bias, bias+GELU, cuBLASLt,
# unfused; TFLOP/s = 2MNK / the row's time column; the fp32-output and bias-along-m rows left out
ew=$tmp/work/SAMPLE
grep -q '^npanels = 2$' "$ew/epilogue.meta.gp" || bad "epilogue: want 2 panels (fp16, bf16)"
grep -q '^p1_title = "fp16 in, fp16 out' "$ew/epilogue.meta.gp" || bad "epilogue: panel 1 is not fp16 -> fp16"
grep -q '^p1_ytics = "(\\"2048x2048x2048\\" 0, \\"4096x4096x4096\\" 1, \\"8192x8192x8192\\" 2, \\"8192x1024x4096\\" 3, \\"2048x14336x4096\\" 4)"$' "$ew/epilogue.meta.gp" ||
    bad "epilogue: the shapes are not the bench's five, in its order"
for pn in 1 2; do
    [ "$(grep -vc '^#' "$ew/epilogue_p$pn.dat")" = 25 ] || bad "epilogue panel $pn: want 25 bars (5 shapes x 5)"
done
# the first group: plain = 2 * 2048^3 / the plain row's ms; the others in their ratios
plain=$(awk -F, '$1 == "07_epilogue" && $3 == "fp16" && $5 == 2048 && $24 == "none" { printf "%.6f", 2 * 2048^3 / ($10 * 1e9) }' plots/data/sample/SAMPLE_epilogue.csv)
set -- $(awk '!/^#/ { print $3 }' "$ew/epilogue_p1.dat" | head -5)
near "${1:-0}" "$plain" || bad "epilogue: plain bar $1, want $plain (2MNK / ms)"
near "${2:-0}" "$(awk -v p="$plain" 'BEGIN { print p / 1.02 }')" || bad "epilogue: fused bias bar $2"
near "${3:-0}" "$(awk -v p="$plain" 'BEGIN { print p / 1.04 }')" || bad "epilogue: fused bias+GELU bar $3"
near "${4:-0}" "$(awk -v p="$plain" 'BEGIN { print p / 0.65 }')" || bad "epilogue: cuBLASLt fused bar $4 (lt_ms)"
near "${5:-0}" "$(awk -v p="$plain" 'BEGIN { print p / 0.95 }')" || bad "epilogue: unfused bar $5 (unfused_ms)"
# every group in the same ratios (the bias-along-m row of 4096^3 must not replace the n row)
for pn in 1 2; do
    awk '!/^#/ { v[n++] = $3 } END { split("1 1.02 1.04 0.65 0.95", f, " ")
         for (g = 0; g < n; g += 5) for (j = 1; j < 5; j++) {
             r = v[g] / v[g + j] / f[j + 1]; if (r < 0.999 || r > 1.001) exit 1 } }' "$ew/epilogue_p$pn.dat" ||
        bad "epilogue panel $pn: a group's bars are not in the sample's ratios to its plain bar"
done
colors=$(awk '!/^#/ { print $4 }' "$ew/epilogue_p1.dat" | head -5 | tr '\n' ' ')
[ "$(awk '!/^#/ { print $4 }' "$ew/epilogue_p1.dat" | sed -n '6,10p' | tr '\n' ' ')" = "$colors" ] ||
    bad "epilogue: the bars of the second shape are not in the first one's order"
grep -q '^p1_keyt5 = "cuBLAS + a separate bias+GELU kernel"$' "$ew/epilogue.meta.gp" || bad "epilogue: key of the unfused bar missing"

# the shapes chart: panels fp16, bf16, fp32; rows in plots/data/shapes.txt order; lesson 06's
# refused 4093^3 has no bar (the sample leaves its row out); the geometric means in the key
# agree with one computed here from the CSV; a dashed line at 100%
sm=$ew/shapes.meta.gp
grep -q '^npanels = 3$' "$sm" || bad "shapes: want 3 panels"
grep -q '^p1_title = "fp16: 16 shapes' "$sm" && grep -q '^p3_title = "fp32: 16 shapes' "$sm" ||
    bad "shapes: panels not fp16 ... fp32 with the 16 shapes"
want=$(grep -v '^#' plots/data/shapes.txt | grep . | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $1, NR - 1 }')
got=$(grep '^p1_ytics' "$sm" | tr -d '\\"' | sed 's/^p1_ytics = (//; s/)$//')
[ "$got" = "$want" ] || bad "shapes: rows not in the order of plots/data/shapes.txt: $got"
[ "$(grep -vc '^#' "$ew/shapes_p1.dat")" = 31 ] || bad "shapes fp16: want 31 bars (16 dispatcher + 15 lesson 06)"
[ "$(awk '!/^#/ && $1 > 14.5 { n++ } END { print n + 0 }' "$ew/shapes_p1.dat")" = 1 ] ||
    bad "shapes fp16: 4093^3 (refused by lesson 06) does not have exactly one bar"
gm() { awk -F, -v l="$1" -v d="$2" '$1 == l && $3 == d { s += log($14); n++ } END { printf "%.1f", exp(s / n) }' plots/data/sample/SAMPLE_shapes.csv; }
grep -q "^p1_keyt1 = \"08_dispatch default (dispatcher): geomean $(gm 08_dispatch fp16)%\"$" "$sm" ||
    bad "shapes fp16: dispatcher geomean not $(gm 08_dispatch fp16)%: $(grep '^p1_keyt1' "$sm")"
grep -q "^p1_keyt2 = \"06_swizzle 128x256x64_s3 (one kernel): geomean $(gm 06_swizzle fp16)% (15 of 16 shapes)\"$" "$sm" ||
    bad "shapes fp16: lesson 06 geomean not $(gm 06_swizzle fp16)% over 15 of 16: $(grep '^p1_keyt2' "$sm")"
grep -q "^p3_keyt2 = \"04_copy ldg128_128x128x8_4w (one kernel): geomean $(gm 04_copy fp32)%\"$" "$sm" ||
    bad "shapes fp32: lesson 04 geomean not $(gm 04_copy fp32)%"
grep -q '^p1_ref1 = 100.0$' "$sm" || bad "shapes: no 100% line"
# a bar beyond 150% (the sample's dispatcher at 4093^3: 230%) is drawn to 150%, its label says so
grep -q '^1[45]\.[0-9]* [0-9.]* 150 [0-9]* 1 "[0-9.]* TFLOP/s, 230% (bar cut at 150%)"$' "$ew/shapes_p1.dat" ||
    bad "shapes: the 230% bar of 4093^3 not cut at 150% with its value in the label"
# the key clears the bars: the axis is wide enough that the top rows end left of the key
awk '/^p1_xmax/ { exit !($3 > 100) }' "$sm" || bad "shapes: the axis does not reach past the 100% line"

# without the companion CSVs: no epilogue or shapes chart, and no error
mkdir -p "$tmp/bare"
cp plots/data/sample/SAMPLE.csv plots/data/sample/SAMPLE_probe.csv "$tmp/bare/"
bash plots/plots.sh -o "$tmp/bare/out" -w "$tmp/bare/work" "$tmp/bare/SAMPLE.csv" > "$tmp/bare.log" 2>&1 ||
    { cat "$tmp/bare.log" >&2; bad "plots/plots.sh failed without the companion CSVs"; }
[ -s "$tmp/bare/out/SAMPLE/journey.png" ] || bad "no journey without the companion CSVs"
[ -e "$tmp/bare/out/SAMPLE/epilogue.png" ] || [ -e "$tmp/bare/out/SAMPLE/shapes.png" ] &&
    bad "epilogue or shapes chart drawn without its CSV"

# 2. the README region
printf '# t\n\n## Measured results\n\n<!-- results:begin -->\nstale\n<!-- results:end -->\n\n## Next\n' > "$tmp/README.md"
rr() { python3 scripts/readme_results.py --readme "$tmp/README.md" --out-root "$tmp/out" "$@"; }
rr --csv plots/data/sample/SAMPLE.csv > /dev/null || bad "readme_results.py failed on the sample"
grep -q '^| lesson | variant | dtype | layout | TFLOP/s at 4096×4096×4096 | % of cuBLAS | rel. error |$' "$tmp/README.md" ||
    bad "README table header missing"
grep -q '^| 04_copy | fast | fp32 | TN | 26.17 | 75.0 | 2.0e-07 |$' "$tmp/README.md" || bad "README row of 04_copy missing or wrong"
grep -q '^| 01_naive | coalesced | fp32 | TT |' "$tmp/README.md" || bad "README: defaults.txt pin of 01_naive not applied"
grep -q '^| 06_swizzle | 128x256x32_s4 | bf16 | TN |' "$tmp/README.md" || bad "README row of 06_swizzle bf16 missing"
grep -q '(out/SAMPLE/journey.png)' "$tmp/README.md" || bad "README does not show the journey PNG"
grep -q '(out/SAMPLE/glance.png)' "$tmp/README.md" || bad "README does not link the at-a-glance PNG"
grep -q '(out/SAMPLE/roofline.png)' "$tmp/README.md" || bad "README does not link the roofline PNG"
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

# 3. the committed README.md agrees with the committed CSVs and lessons/
python3 scripts/readme_results.py --check || bad "README.md's results region is out of date: run make plots readme"
python3 scripts/readme_lessons.py --check || bad "README.md's lesson table is out of date: run make readme"

# 4. the lesson table of a made-up tree: folders become rows in NN order (title after the dash,
# precision from gemm.cu, assignment and tools), an arc lesson without a folder is "in progress",
# and one with a folder is not
fake=$tmp/fake
mkdir -p "$fake/lessons/01_first/exercise" "$fake/lessons/07_epilogue" "$fake/lessons/03_third"
printf '# Lesson 01 — the first idea\n' > "$fake/lessons/01_first/README.md"
printf 'static unsigned d = GEMM_DT_BIT(GEMM_FP32);\n' > "$fake/lessons/01_first/gemm.cu"
: > "$fake/lessons/01_first/exercise/rubric.txt"
printf '$(BUILD)/tools/counter: x.c\n' > "$fake/lessons/01_first/lesson.mk"
printf '# Lesson 07 — fused epilogues\n' > "$fake/lessons/07_epilogue/README.md"
printf 'GEMM_FP16 GEMM_BF16 wgmma\n' > "$fake/lessons/07_epilogue/gemm.cu"
printf '# Lesson 03: third\n' > "$fake/lessons/03_third/README.md"
printf 'GEMM_DT_ALL\n' > "$fake/lessons/03_third/gemm.cu"
printf '# t\n\n<!-- lessons:begin -->\nstale\n<!-- lessons:end -->\n' > "$fake/README.md"
python3 scripts/readme_lessons.py --root "$fake" --readme "$fake/README.md" --no-csv > /dev/null ||
    bad "readme_lessons.py failed on a made-up tree"
rows=$(grep '^| ' "$fake/README.md" | tail -n +2 | cut -d'|' -f2 | tr -d ' ' | tr '\n' ' ')
[ "$rows" = "[01_first](lessons/01_first/) [03_third](lessons/03_third/) [07_epilogue](lessons/07_epilogue/) 08_dispatch 09_wgmma " ] ||
    bad "lesson table rows: got '$rows'"
grep -q '^| \[01_first\](lessons/01_first/) | the first idea | fp32 | sm_80+ | \[assignment\](lessons/01_first/exercise/): `make grade01`, `build/tools/counter` | not measured yet |$' "$fake/README.md" ||
    bad "lesson table: row of 01_first wrong"
grep -q '^| \[03_third\](lessons/03_third/) | third | fp32/fp16/bf16 |' "$fake/README.md" || bad "lesson table: row of 03_third wrong"
grep -q '^| \[07_epilogue\](lessons/07_epilogue/) | fused epilogues | fp16/bf16 | sm_90 |' "$fake/README.md" ||
    bad "lesson table: a present 07_epilogue is not read from its folder"
grep -q '^| 08_dispatch | .* | in progress |$' "$fake/README.md" || bad "lesson table: 08_dispatch not in progress"
grep -q '3 lessons are in the tree; 08_dispatch and 09_wgmma are in progress.' "$fake/README.md" ||
    bad "lesson table: count line wrong"
grep -q stale "$fake/README.md" && bad "lesson table region not replaced"
python3 scripts/readme_lessons.py --root "$fake" --readme "$fake/README.md" --no-csv --check ||
    bad "readme_lessons.py --check fails on its own output"

[ $fail = 0 ] && echo "test_plots: charts and README table OK (synthetic sample)"
exit $fail
