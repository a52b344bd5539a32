#!/usr/bin/env bash
# grade_all.sh - grades several exercises and sources with tests/grade/grade.sh and prints one
# score table (also written to $BUILD/grade/summary.txt). The binaries must be built first
# (make grade-build, or make grade-solutions which builds what it grades).
#
#   grade_all.sh [--check] --tags "solution exercise wrong" 01_naive 03_tiled ...
#
# tags: solution (solutions/L), exercise (the untouched skeleton, lessons/L/exercise), wrong
# (the solution with solutions/L/wrong.patch applied). A tag whose binaries are not built is
# listed as "not built".
# --check: also judge each row and exit 1 unless every row is as expected:
#   solution  100 (without a GPU: the CPU part full and exit status 3, "GPU part not run")
#   exercise  below 100, with grade.sh's clean exit status 1 (no crash, no grader error)
#   wrong     below 100 and a correctness check (cpu or gpu, not speed) failed; without a GPU
#             a wrong kernel cannot be seen, and the row says so
# Without --check: exits 0 when every graded row scored 100, 3 when the only shortfall is a
# GPU part not run, else 1.
set -u
BUILD=${BUILD:-build}
check=0 tags="solution"
lessons=()
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1; shift ;;
    --tags) tags=$2; shift 2 ;;
    *) lessons+=("$1"); shift ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$BUILD/grade"
rows=() bad=0 any_lost=0 any_notrun=0
field() { sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$2" | head -1; }
for l in "${lessons[@]}"; do
    nn=${l%%_*}
    for tag in $tags; do
        dir=$BUILD/grade/$l/$tag
        case $tag in
        solution) src=solutions/$l ;;
        exercise) src=lessons/$l/exercise ;;
        wrong) src="solutions/$l + wrong.patch" ;;
        *) src=$tag ;;
        esac
        args=(--lesson "$l" --rubric "lessons/$l/exercise/rubric.txt" --src "$src" --report "$dir")
        built=1
        if [ -f "tests/test_exercise_$nn.c" ]; then args+=(--cpu "$dir/cpu"); [ -x "$dir/cpu" ] || built=0; fi
        if [ -f "lessons/$l/exercise/kernel.cu" ]; then args+=(--run "$dir/run"); [ -x "$dir/run" ] || built=0; fi
        [ -x "$BUILD/grade/gpu_probe" ] && args+=(--probe "$BUILD/grade/gpu_probe")
        if [ $built = 0 ]; then
            [ "$tag" = wrong ] && [ ! -f "solutions/$l/wrong.patch" ] && continue
            [ "$tag" = solution ] && [ ! -d "solutions/$l" ] && continue   # a handout has none
            rows+=("$(printf '%-12s %-9s %5s %7s %7s %4s  %s' "$l" "$tag" - - - - "not built")")
            bad=1; any_lost=1
            continue
        fi
        echo
        BUILD=$BUILD bash "$here/grade.sh" "${args[@]}"
        rc=$?
        r=$dir/report.json
        score=$(field score "$r") cpu=$(field cpu_score "$r") cpumax=$(field cpu_max "$r")
        gpurun=$(field gpu_run "$r") gpumax=$(field gpu_max "$r")
        gpu="$((score - cpu))/$gpumax"
        [ "$gpumax" = 0 ] && gpu="none"
        [ "$gpurun" = false ] && [ "$gpumax" != 0 ] && gpu="not run"
        verdict=
        if [ $check = 1 ]; then
            correctness_lost=$(grep -E '"kind": "(cpu|gpu)"' "$r" | grep -c '"status": "fail"')
            case $tag in
            solution)
                if [ $rc = 0 ] && [ "$score" = 100 ]; then verdict="ok: 100"
                elif [ $rc = 3 ] && [ "$cpu" = "$cpumax" ]; then verdict="ok: CPU part full, GPU part not run"
                else verdict="UNEXPECTED: the solution must score 100"; bad=1; fi ;;
            exercise)
                if [ $rc = 1 ] && [ "$score" -lt 100 ]; then verdict="ok: below 100, clean exit"
                else verdict="UNEXPECTED: exit $rc, score $score (want below 100 and exit 1)"; bad=1; fi ;;
            wrong)
                if [ $rc = 1 ] && [ "$correctness_lost" -gt 0 ]; then verdict="ok: lost points in $correctness_lost correctness check(s)"
                elif [ $rc = 3 ]; then verdict="not judged: the bug is in the kernel and the GPU part was not run"
                else verdict="UNEXPECTED: exit $rc, no correctness check failed"; bad=1; fi ;;
            esac
        fi
        case $rc in 0) ;; 3) any_notrun=1 ;; *) any_lost=1 ;; esac
        rows+=("$(printf '%-12s %-9s %5s %7s %7s %4s  %s' "$l" "$tag" "$score" "$cpu/$cpumax" "$gpu" "$rc" "$verdict")")
    done
done
device=$("$BUILD/grade/gpu_probe" 2>/dev/null) || device="no GPU"
[ -n "${GRADE_NO_GPU:-}" ] && device="GPU part skipped (GRADE_NO_GPU)"
{
    echo
    echo "== grades ($device; commit $(cat "$BUILD/commit.txt" 2>/dev/null || echo unknown))"
    printf '%-12s %-9s %5s %7s %7s %4s  %s\n' lesson source score cpu gpu exit "$([ $check = 1 ] && echo expected)"
    printf '%s\n' "${rows[@]}"
} | tee "$BUILD/grade/summary.txt"
if [ $check = 1 ]; then exit $bad; fi
[ $any_lost = 1 ] && exit 1
[ $any_notrun = 1 ] && exit 3
exit 0
