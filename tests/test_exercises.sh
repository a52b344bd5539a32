#!/usr/bin/env bash
# test_exercises.sh - the assignments in `make test` (no GPU needed):
#   1. every staff solution's CPU part scores full marks, and every untouched skeleton is
#      graded cleanly below full marks (tests/grade/grade_all.sh --check, GPU part skipped);
#   2. the skeletons and solutions compile without a warning (nvcc for every ARCH, gcc), as
#      their compile logs in build/grade/ show;
#   3. every wrong.patch still applies to its solution;
#   4. make handout leaves solutions/ out, and in the unpacked handout the graph of
#      `make test` is complete and the CPU graders build against the skeletons;
#   5. the grader's GPU logic, with tests/grade/mock_run.sh standing in for a graded binary on
#      a GPU: passes, a slow kernel (half the speed points), wrong answers, a fault, a hang
#      (stopped by the timeout), refused cases; its last line names its exit status;
#   6. `make gradeNN SUB=dir/sub_x` grades into build/grade/NN_name/sub_x (no doubled prefix);
#   7. SUB given empty, SUB not a folder, a SUB without the rubric's files, exerciseNN of an
#      assignment without a kernel, and lessonNN / gradeNN of no lesson or assignment are
#      refused in one line with status 2;
#   8. make gradeNN exits 0 for the grader's status 0 and 3, and fails for 1.
# The binaries are built by make test (test-cpu depends on them, tests/exercise.mk).
# Usage: BUILD=build bash tests/test_exercises.sh
set -u
BUILD=${BUILD:-build}
export GRADE_NO_GPU=1
fail=0
lessons=$(ls lessons/*/exercise/rubric.txt 2>/dev/null | sed 's|lessons/\([^/]*\)/.*|\1|')
tags="exercise"; [ -d solutions ] && tags="solution exercise"
out=$(BUILD=$BUILD bash tests/grade/grade_all.sh --check --tags "$tags" $lessons 2>&1); rc=$?
printf '%s\n' "$out" | sed -n '/^== grades/,$p'
[ $rc = 0 ] || { fail=1; echo "FAIL exercises: a grade is not as expected (full log below)"; printf '%s\n' "$out" | tail -40; }

for l in $lessons; do
    for tag in $tags; do
        for log in "$BUILD/grade/$l/$tag"/*.build.log; do
            [ -f "$log" ] || continue
            if grep -q -i 'warning' "$log"; then
                fail=1; echo "FAIL exercises: warnings compiling $l/$tag:"; grep -i -m3 warning "$log"
            fi
        done
    done
    if [ -f "solutions/$l/wrong.patch" ]; then
        tmp=$(mktemp -d)
        files=$(sed -n 's/^files://p' "lessons/$l/exercise/rubric.txt")
        (cd "solutions/$l" && cp $files "$tmp"/) && patch -s -d "$tmp" -p1 < "solutions/$l/wrong.patch" ||
            { fail=1; echo "FAIL exercises: solutions/$l/wrong.patch does not apply"; }
        rm -rf "$tmp"
    fi
done

if [ -d solutions ]; then
    tmp=$(mktemp -d)
    if BUILD=$BUILD bash tests/grade/handout.sh "$tmp/handout.tar.gz" >/dev/null &&
       tar -xzf "$tmp/handout.tar.gz" -C "$tmp"; then
        h=$tmp/gemm-course
        if [ -e "$h/solutions" ] || tar -tzf "$tmp/handout.tar.gz" | grep -q '^gemm-course/solutions/'; then
            fail=1; echo "FAIL handout: it contains solutions/"
        fi
        if ! make -C "$h" -n BUILD="$tmp/b" test-cpu >/dev/null 2> "$tmp/n.err"; then
            fail=1; echo "FAIL handout: make -n test-cpu: $(head -2 "$tmp/n.err")"
        fi
        cpus=$(for l in $lessons; do [ -f "$h/tests/test_exercise_${l%%_*}.c" ] && echo "$tmp/b/grade/$l/exercise/cpu"; done)
        if [ -n "$cpus" ] && ! make -C "$h" BUILD="$tmp/b" $cpus > "$tmp/m.log" 2>&1; then
            fail=1; echo "FAIL handout: the CPU graders do not build against the skeletons:"; tail -5 "$tmp/m.log"
        fi
    else
        fail=1; echo "FAIL handout: make handout failed"
    fi
    rm -rf "$tmp"
fi
# 5. the grader's GPU logic against a mock GPU (lesson 01's rubric: 60 GPU points, 15 of them speed)
tag=exercise; [ -d solutions ] && tag=solution
cpu=$BUILD/grade/01_naive/$tag/cpu
if [ -x "$cpu" ]; then
    mock() { # mode, expected exit status, expected GPU points, a text the output must contain[, rubric]
        local out rc r gpu t0=$(date +%s)
        out=$(MOCK_MODE=$1 GRADE_TIMEOUT=2 GRADE_NO_GPU= bash tests/grade/grade.sh --lesson 01_naive \
              --rubric "${5:-lessons/01_naive/exercise/rubric.txt}" --src mock --report "$BUILD/grade/mock/$1" \
              --cpu "$cpu" --run tests/grade/mock_run.sh --probe tests/grade/mock_run.sh 2>&1); rc=$?
        r=$BUILD/grade/mock/$1/report.json
        gpu=$(( $(sed -n 's/^  "score": \([0-9]*\),$/\1/p' "$r") - $(sed -n 's/^  "cpu_score": \([0-9]*\),$/\1/p' "$r") ))
        if [ $rc != "$2" ] || [ $gpu != "$3" ] || ! printf '%s' "$out" | grep -q -- "$4" ||
           ! printf '%s' "$out" | tail -1 | grep -q "^grader status $2: "; then
            fail=1; echo "FAIL grader with a mock GPU, $1: exit $rc (want $2), GPU points $gpu (want $3), output:"
            printf '%s\n' "$out" | tail -7
        fi
        [ $(( $(date +%s) - t0 )) -lt 30 ] || { fail=1; echo "FAIL grader with a mock GPU, $1: took over 30 s"; }
    }
    pass_rc=0; [ $tag = exercise ] && pass_rc=1   # the skeleton's CPU part loses points
    mock pass $pass_rc 60 "100.0% of mock_kernel's speed"
    mock slow 1 52 "50.0% of mock_kernel's speed"
    mock fail 1 0 "1 of 1 cases failed: 00_mock/exercise"
    mock fault 1 0 "CUDA error (does the kernel fault?)"
    mock hang 1 0 "not run: the kernel timed out in check sweep"
    mock refuse 1 0 "refused: 1 case of exercise"
    # a speed check against two BASE variants counts the faster one (mock_fast: half the time)
    mkdir -p "$BUILD/grade/mock"
    sed 's/| 80 default /| 80 default,mock_fast /' lessons/01_naive/exercise/rubric.txt > "$BUILD/grade/mock/bases.txt"
    mock pass 1 52 "50.0% of mock_fast's speed" "$BUILD/grade/mock/bases.txt"
else
    fail=1; echo "FAIL grader with a mock GPU: $cpu is not built"
fi

# 6. the build folder of a submission
l1=$(printf '%s\n' $lessons | head -1)
if [ -n "$l1" ]; then
    tmp=$(mktemp -d)
    mkdir -p "$tmp/sub_p128" && (cd "lessons/$l1/exercise" && cp $(sed -n 's/^files://p' rubric.txt) "$tmp/sub_p128"/)
    dry=$(make -n --no-print-directory BUILD="$BUILD" "grade${l1%%_*}" SUB="$tmp/sub_p128" 2>&1)
    if printf '%s' "$dry" | grep -q 'sub_sub_' || ! printf '%s' "$dry" | grep -q "grade/$l1/sub_p128"; then
        fail=1; echo "FAIL exercises: make grade${l1%%_*} SUB=.../sub_p128 does not grade into $BUILD/grade/$l1/sub_p128"
    fi
    # 7. bad requests: one line (make's "*** ..."), status 2, nothing run
    refused() { # expected text, make arguments...
        local want=$1 out rc; shift
        # on its own, not as a sub-make of make test (whose jobserver note would be a line more)
        out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n --no-print-directory BUILD="$BUILD" "$@" 2>&1); rc=$?
        if [ $rc != 2 ] || [ "$(printf '%s\n' "$out" | wc -l)" != 1 ] || ! printf '%s' "$out" | grep -q -- "$want"; then
            fail=1; echo "FAIL exercises: make $* (exit $rc, want 2 and one line with '$want'):"
            printf '%s\n' "$out" | head -3 | sed 's/^/    /'
        fi
    }
    nn=${l1%%_*}
    mkdir -p "$tmp/empty" "$tmp/part"
    first=$(sed -n 's/^files://p' "lessons/$l1/exercise/rubric.txt" | awk '{print $1}')
    cp "lessons/$l1/exercise/$first" "$tmp/part/"
    refused "SUB is empty" "grade$nn" SUB=
    refused "SUB is empty" "exercise$nn" SUB=
    refused "is not a folder" "grade$nn" SUB="$tmp/none"
    refused "holds none of the files" "grade$nn" SUB="$tmp/empty"
    refused "lacks" "grade$nn" SUB="$tmp/part"
    for l in $lessons; do
        [ -f "lessons/$l/exercise/kernel.cu" ] || refused "has no kernel to build" "exercise${l%%_*}"
    done
    # a goal that names no lesson or no assignment (make lesson1, make grade00)
    refused "make lesson1: no such lesson; the lessons are lesson01" lesson1
    refused "make grade00: no such assignment; the assignments are grade01" grade00
    refused "make exercise1: no such assignment" exercise1
    rm -rf "$tmp"
fi

# 8. make gradeNN's exit status: 0 when nothing that ran lost a point (full marks, or status 3:
# the CPU part full and the GPU part not run), with no make "***" line; make's failure (status
# 2, "Error 1") when points were lost. The grader's last line says which. The graded binaries
# are the ones make test built (the grade-L-TAG targets run the recipe of gradeNN).
grade_status() { # name want_make_status want_last_line_part target
    local out rc last
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory BUILD="$BUILD" "$4" 2>&1); rc=$?
    last=$(printf '%s\n' "$out" | grep -v '^make: \*\*\*' | tail -1)
    if [ $rc != "$2" ] || ! printf '%s' "$last" | grep -qF -- "$3" ||
       { [ "$2" = 0 ] && printf '%s' "$out" | grep -q '^make: \*\*\*'; }; then
        fail=1; echo "FAIL exercises: make $4 (exit $rc, want $2 and a last line with '$3'):"
        printf '%s\n' "$out" | tail -3 | sed 's/^/    /'
    fi
}
if [ -d solutions/01_naive ] && [ -d solutions/02_layout ]; then
    grade_status "GPU part not run" 0 "grader status 3: no points lost, GPU part not run (GRADE_NO_GPU is set)" grade-01_naive-solution
    grade_status "full marks, CPU only" 0 "grader status 0: full marks; make exits 0" grade-02_layout-solution
    grade_status "points lost" 2 "grader status 1: points lost; make stops with 'Error 1'" grade-02_layout-exercise
fi

[ $fail = 0 ] && echo "exercises: all checks passed"
exit $fail
