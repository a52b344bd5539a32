#!/usr/bin/env bash
# grade.sh - grades one exercise from its rubric; `make gradeNN` builds the binaries and runs it.
#
#   grade.sh --lesson 01_naive --rubric lessons/01_naive/exercise/rubric.txt \
#            --src lessons/01_naive/exercise --report build/grade/01_naive/exercise \
#            [--cpu BIN] [--run BIN] [--probe BIN]
#
# --cpu   the Criterion grader built with the learner's answers (tests/test_exercise_NN.c)
# --run   the lesson's binary with the learner's kernel as variant "exercise" (grade_wrap.c)
# --probe tests/grade/gpu_probe.c, built: says whether this machine has a usable GPU
#
# The rubric (lessons/NN_name/exercise/rubric.txt) has one check per line,
#     points | kind | id | title | spec
# and the points add up to 100; a line `files: ...` names the learner's files, and an optional
# line `gpu-only: ...` says what only the GPU part checks (printed when it is not run). Kinds:
#     cpu    spec = Criterion tests (suite::name ...); all must pass. No GPU needed.
#     gpu    spec = ./run options; `run --variant exercise <spec>` must exit 0 with
#            "0 failed, 0 skipped" (a refused case counts as failed).
#     speed  spec = "T BASE <./run options>": `run --variant BASE,exercise <options>`, which
#            checks both and times both in the same run; BASE is one of the lesson's variants
#            (`default`: its first) or several, comma-separated, of which each case takes the
#            fastest that passed (a rubric can so name the candidates without saying which
#            one the staff picked). Full points when the exercise runs at >= T% of that
#            speed (the worst case over the rows), half at >= T/2 %.
# Each GPU check runs under `timeout` (GRADE_TIMEOUT seconds, default 300): a kernel that hangs
# loses that check, and the GPU checks after it are not run (they would hang too). A wrong answer or a fault loses the check's points
# with one line saying why; the grader itself never stops on them.
#
# Prints one line per check and the score out of 100; writes <report>/report.json (and the
# logs of every check next to it). Without a usable GPU (or with GRADE_NO_GPU=1) it grades the
# CPU part and says in one line that the GPU part was not run.
# Exit status (also "status" in report.json, and said in the last line): 0 full marks; 1 points
# lost; 3 no points lost, but the GPU part was not run; 2 the grader could not grade (bad
# rubric, missing binary, CPU grader that cannot start). `make gradeNN` (which sets
# GRADE_VIA_MAKE=1, so that the last line says what make does) exits 0 for 0 and 3, and fails
# for 1 and 2 (make's "Error N" line, status 2).
set -u
lesson= rubric= src= report= cpu= run= probe=
while [ $# -gt 0 ]; do
    case $1 in
    --lesson) lesson=$2; shift 2 ;;
    --rubric) rubric=$2; shift 2 ;;
    --src) src=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --run) run=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    *) echo "grade.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
die() { echo "grade $lesson: $*" >&2; exit 2; }
[ -n "$lesson" ] && [ -n "$rubric" ] && [ -n "$report" ] || die "usage: see the header of tests/grade/grade.sh"
[ -f "$rubric" ] || die "no rubric $rubric"
mkdir -p "$report" || die "cannot create $report"
T=${GRADE_TIMEOUT:-300}
# Criterion and the libraries it needs, copied by `make grade-bundle` for machines without them
# (the CPU grader alone runs with them)
cpu_libs=
[ -d "${BUILD:-build}/grade/lib" ] && cpu_libs=$(cd "${BUILD:-build}/grade/lib" && pwd)
tmo() { if command -v timeout >/dev/null 2>&1; then timeout -k 10 "$T" "$@"; else "$@"; fi; }

# ---- the rubric --------------------------------------------------------------------------
ids=(); kinds=(); pts=(); titles=(); specs=()
total=0 gpu_only=
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
    gpu-only:*) gpu_only=${line#gpu-only:}; gpu_only=${gpu_only# }; continue ;;
    ''|'#'*|files:*) continue ;;
    esac
    IFS='|' read -r p k i t s <<< "$line"
    trim() { local x=$1; x=${x#"${x%%[![:space:]]*}"}; printf '%s' "${x%"${x##*[![:space:]]}"}"; }
    p=$(trim "$p"); k=$(trim "$k"); i=$(trim "$i"); t=$(trim "$t"); s=$(trim "$s")
    case "$p" in ''|*[!0-9]*) die "$rubric: bad points in: $line" ;; esac
    case "$k" in cpu|gpu|speed) ;; *) die "$rubric: bad kind '$k' in: $line" ;; esac
    [ -n "$i" ] && [ -n "$s" ] || die "$rubric: missing id or spec in: $line"
    ids+=("$i"); kinds+=("$k"); pts+=("$p"); titles+=("$t"); specs+=("$s")
    total=$((total + p))
done < "$rubric"
[ $total = 100 ] || die "$rubric: the points add up to $total, not 100"

# ---- the CPU part: one Criterion run, results from its TAP report ------------------------
declare -A tap_status tap_reason
cpu_problem= grader_error=0
need_cpu=0
for k in "${kinds[@]}"; do [ "$k" = cpu ] && need_cpu=1; done
if [ $need_cpu = 1 ]; then
    if [ -z "$cpu" ]; then
        cpu_problem="no CPU grader given (--cpu)"; grader_error=1
    elif [ ! -x "$cpu" ]; then
        cpu_problem="does not build: see $cpu.build.log"
        [ -f "$cpu.build.log" ] || cpu_problem="does not build (make's messages above say why)"
    else
        rm -f "$report/cpu.tap"
        LD_LIBRARY_PATH="${cpu_libs}${cpu_libs:+${LD_LIBRARY_PATH:+:}}${LD_LIBRARY_PATH:-}" \
            tmo "$cpu" --jobs 2 --timeout 60 --ascii --tap="$report/cpu.tap" > "$report/cpu.log" 2>&1
        rc=$?
        if [ ! -s "$report/cpu.tap" ]; then
            cpu_problem="the CPU grader did not run (exit $rc): $(grep -m1 -v '^$' "$report/cpu.log")"; grader_error=1
        else
            # "ok - suite::name (0.00s)" / "not ok - suite::name <why>", then for a failed
            # assertion a YAML block with "Assertion failed: <message>"
            while IFS=$'\t' read -r name st why; do
                tap_status[$name]=$st; tap_reason[$name]=$why
            done < <(awk '
                function flush() { if (name != "") print name "\t" st "\t" why; name = "" }
                /^(not )?ok - / {
                    flush()
                    st = ($1 == "ok") ? "ok" : "fail"
                    s = $0; sub(/^(not )?ok - /, "", s)
                    name = s; sub(/[ \t].*$/, "", name)
                    why = s; sub(/^[^ \t]*[ \t]*/, "", why); sub(/ *\([0-9.]+s\)$/, "", why)
                    next
                }
                /Assertion failed: / && name != "" && !got[name]++ {
                    w = $0; sub(/.*Assertion failed: /, "", w); why = w
                }
                END { flush() }' "$report/cpu.tap")
        fi
    fi
fi

# ---- the GPU part --------------------------------------------------------------------------
need_gpu=0
for k in "${kinds[@]}"; do [ "$k" != cpu ] && need_gpu=1; done
gpu_run=0 gpu_why= device= run_problem=
if [ $need_gpu = 1 ]; then
    if [ -n "${GRADE_NO_GPU:-}" ]; then gpu_why="GRADE_NO_GPU is set"
    elif [ -z "$run" ]; then die "the rubric has GPU checks but no graded binary was given (--run)"
    elif [ ! -x "$run" ]; then
        run_problem="does not build: see $(dirname "$run")/kernel.o.build.log"; gpu_run=1
        [ -f "$(dirname "$run")/kernel.o.build.log" ] || run_problem="does not build (make's messages above say why)"
    elif [ -n "$probe" ] && [ -x "$probe" ]; then
        device=$(tmo "$probe" 2>&1) && gpu_run=1 || { gpu_why=$device; device=; }
    else gpu_run=1
    fi
fi

# one gpu check: sets st (ok/fail) and why
gpu_check() { # log args...
    local log=$1; shift
    tmo "$run" "$@" > "$log" 2>&1
    local rc=$? sum
    sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -1)
    st=fail
    if [ $rc = 124 ] || [ $rc = 137 ]; then why="timed out after $T s (does the kernel hang?)"
    elif [ $rc -gt 128 ]; then why="the program crashed (signal $((rc - 128)))"
    elif [ $rc = 3 ]; then why="CUDA error (does the kernel fault?): $(grep -m1 -E 'error|failed' "$log")"
    elif [ $rc = 2 ]; then why=$(grep -m1 -E 'refused:|bad |no variant|unknown' "$log"); why=${why:-"usage error (exit 2)"}
    elif [ $rc = 1 ]; then
        why="$(printf '%s' "$sum" | awk '{print $3 " of " $1 + $3 + $5}') cases failed: $(grep -m1 '^  FAIL ' "$log" | sed 's/^  FAIL //')"
    elif [ $rc != 0 ]; then why="exit $rc: $(tail -1 "$log")"
    elif [ -z "$sum" ]; then why="no result line (exit 0)"
    elif ! printf '%s' "$sum" | grep -q ' 0 failed, 0 skipped'; then
        why="$sum: $(grep -m1 'refused:' "$log" | sed 's/^[^:]*: //')"
    else st=ok; why=; fi
    return 0
}

# ---- grade every check -----------------------------------------------------------------------
score=0 lost=0 cpu_pts=0 cpu_max=0 gpu_max=0 hung=
results=()  # id \t kind \t got \t max \t status \t detail
echo "grade $lesson: ${src:-?}${device:+ on $device}"
for n in "${!ids[@]}"; do
    id=${ids[$n]} k=${kinds[$n]} p=${pts[$n]} title=${titles[$n]} spec=${specs[$n]}
    got=0 status=fail detail=
    if [ "$k" = cpu ]; then
        cpu_max=$((cpu_max + p))
        if [ -n "$cpu_problem" ]; then detail=$cpu_problem; status=fail
        else
            status=pass
            for t in $spec; do
                if [ -z "${tap_status[$t]+x}" ]; then status=error; grader_error=1; detail="no test $t in the CPU grader"; break; fi
                if [ "${tap_status[$t]}" != ok ]; then status=fail; detail="${tap_reason[$t]:-failed}"; break; fi
            done
            [ $status = pass ] && got=$p
        fi
        cpu_pts=$((cpu_pts + got))
    else
        gpu_max=$((gpu_max + p))
        if [ $gpu_run = 0 ]; then results+=("$id	$k	0	$p	not_run	$gpu_why"); continue; fi
        if [ -n "$run_problem" ]; then
            detail=$run_problem; lost=1
            results+=("$id	$k	0	$p	fail	$detail")
            printf '  [%3d/%3d] %-5s %-44s -- %s\n' 0 "$p" "$k" "$title" "$detail"
            continue
        fi
        if [ -n "$hung" ]; then
            detail="not run: the kernel timed out in check $hung"; lost=1
            results+=("$id	$k	0	$p	fail	$detail")
            printf '  [%3d/%3d] %-5s %-44s -- %s\n' 0 "$p" "$k" "$title" "$detail"
            continue
        fi
        log="$report/$id.log"
        if [ "$k" = gpu ]; then
            # shellcheck disable=SC2086
            gpu_check "$log" --variant exercise $spec
            [ $st = ok ] && { got=$p; status=pass; } || { status=fail; detail=$why; }
        else
            read -r thr base opts <<< "$spec"
            case "$thr" in ''|*[!0-9]*) die "$rubric: speed spec must be 'T BASE options': $spec" ;; esac
            [ -n "$base" ] || die "$rubric: speed spec must be 'T BASE options': $spec"
            rm -f "$log.csv"
            # shellcheck disable=SC2086
            gpu_check "$log" --variant "$base,exercise" $opts --csv "$log.csv"
            if [ $st != ok ] && [ ! -s "$log.csv" ]; then detail="not timed: $why"
            else
                # pair each exercise row with the fastest passing BASE row of the same case
                # (columns found by name in the CSV header: variant, dtype, layout, m, n, k, ms,
                # status)
                res=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                    { key = $c["dtype"] "," $c["layout"] "," $c["m"] "x" $c["n"] "x" $c["k"]
                        if ($c["variant"] == "exercise") { ex[key] = $c["ms"]; exst[key] = $c["status"] }
                        else if ($c["status"] == "PASS" && $c["ms"] > 0 &&
                                 (!(key in ref) || $c["ms"] < ref[key])) {
                            ref[key] = $c["ms"]; rname[key] = $c["variant"] } }
                    END { worst = -1; n = 0
                        for (k in ex) {
                            if (exst[k] != "PASS" || ex[k] <= 0) { print "fail " k; exit }
                            if (!(k in ref) || ref[k] <= 0) continue
                            pct = 100 * ref[k] / ex[k]; n++
                            if (worst < 0 || pct < worst) { worst = pct; wk = k; wex = ex[k]; wref = ref[k]; wname = rname[k] }
                        }
                        if (n == 0) print "none"
                        else printf "ok %.1f %s %.4f %s %.4f\n", worst, wk, wex, wname, wref }' "$log.csv")
                set -- $res
                if [ "$1" = fail ]; then detail="not timed: the exercise failed its check at $2${why:+ ($why)}"
                elif [ "$1" != ok ]; then detail="no timing of both kernels in the same run${why:+: $why}"
                else
                    pct=$2
                    if awk -v a="$pct" -v t="$thr" 'BEGIN { exit !(a >= t) }'; then got=$p; status=pass
                    elif awk -v a="$pct" -v t="$thr" 'BEGIN { exit !(a >= t / 2) }'; then got=$((p / 2)); status=partial
                    fi
                    detail="$pct% of $5's speed at $3 (exercise $4 ms, $5 $6 ms); full points at >= $thr%, half at >= $((thr / 2))%"
                fi
            fi
        fi
    fi
    case $detail in *"timed out after"*) hung=$id ;; esac
    score=$((score + got))
    [ $got -lt $p ] && lost=1
    results+=("$id	$k	$got	$p	$status	$detail")
    if [ -n "$detail" ]; then printf '  [%3d/%3d] %-5s %-44s -- %s\n' "$got" "$p" "$k" "$title" "$detail"
    else printf '  [%3d/%3d] %-5s %s\n' "$got" "$p" "$k" "$title"; fi
done
# ---- the report ---------------------------------------------------------------------------
status=0
if [ $grader_error = 1 ]; then status=2
elif [ $lost = 1 ]; then status=1
elif [ $need_gpu = 1 ] && [ $gpu_run = 0 ]; then status=3; fi
json() { printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g' | tr -d '\000-\037')"; }
commit=$(cat "${BUILD:-build}/commit.txt" 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
{
    printf '{\n  "lesson": %s,\n  "source": %s,\n' "$(json "$lesson")" "$(json "$src")"
    printf '  "status": %d,\n  "score": %d,\n  "max": 100,\n  "cpu_score": %d,\n  "cpu_max": %d,\n' \
        $status $score $cpu_pts $cpu_max
    printf '  "gpu_run": %s,\n  "gpu_max": %d,\n  "device": %s,\n' "$([ $gpu_run = 1 ] && echo true || echo false)" $gpu_max "$(json "${device:-$gpu_why}")"
    printf '  "gpu_only": %s,\n' "$(json "$gpu_only")"
    printf '  "date": %s,\n  "commit": %s,\n  "checks": [\n' "$(json "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$(json "$commit")"
    for n in "${!results[@]}"; do
        IFS=$'\t' read -r id k got p cst detail <<< "${results[$n]}"
        printf '    {"id": %s, "kind": %s, "points": %d, "max": %d, "status": %s, "detail": %s}%s\n' \
            "$(json "$id")" "$(json "$k")" "$got" "$p" "$(json "$cst")" "$(json "$detail")" \
            "$([ $n -lt $((${#results[@]} - 1)) ] && echo ,)"
    done
    printf '  ]\n}\n'
} > "$report/report.json"

if [ $need_gpu = 1 ] && [ $gpu_run = 0 ]; then
    echo "score $score/100 for $lesson, CPU part $cpu_pts/$cpu_max; GPU part NOT RUN ($gpu_why): its $gpu_max points are not graded  report: $report/report.json"
    [ -n "$gpu_only" ] && echo "  not checked without a GPU: $gpu_only"
else
    echo "score $score/100 for $lesson  report: $report/report.json"
fi
# the last line: the status, what it means, and (under make gradeNN, GRADE_VIA_MAKE=1) what
# make does with it: exit 0 for 0 and 3, its own "Error N" line and status 2 for 1 and 2
case $status in
0) what="full marks" ;;
1) what="points lost" ;;
2) what="could not grade" ;;
3) what="no points lost, GPU part not run ($([ -n "${GRADE_NO_GPU:-}" ] && echo "GRADE_NO_GPU is set" || echo "no usable GPU")): its points are not graded yet" ;;
esac
via_make=
if [ -n "${GRADE_VIA_MAKE:-}" ]; then
    case $status in
    0 | 3) via_make="; make exits 0" ;;
    *) via_make="; make stops with 'Error $status'" ;;
    esac
fi
echo "grader status $status: $what$via_make"
exit $status
