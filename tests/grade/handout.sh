#!/usr/bin/env bash
# handout.sh - writes the course for learners, without any staff solution, as a tarball:
#     bash tests/grade/handout.sh build/handout.tar.gz        (make handout)
# Takes every file git tracks or would track (untracked files that .gitignore does not
# exclude, so new work is in it before it is committed), from the working tree, except
# solutions/ (the staff solutions and the deliberately wrong patches). The tarball unpacks to
# gemm-course/, where `make test`, `make gradeNN` and every lesson build as here, graded
# against the skeletons. Fails if a file of the handout still carries the solution marker
# that every file under solutions/ has.
set -eu
out=${1:-${BUILD:-build}/handout.tar.gz}
BUILD=${BUILD:-build}
stage=$BUILD/handout
rm -rf "$stage" && mkdir -p "$stage/gemm-course"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files --cached # tracked files only: a learner's or a staff member's untracked work stays out
else
    find . -type f ! -path './.git/*' ! -path "./$BUILD/*" | sed 's|^\./||'
fi | grep -v -E '^solutions/' | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done \
   | sort -u > "$stage/files.txt"
tar -cf - -T "$stage/files.txt" | tar -xf - -C "$stage/gemm-course"
marker="GEMM-COURSE-""SOLUTION"
if leaked=$(grep -rl "$marker" "$stage/gemm-course" | grep -v 'tests/grade/handout.sh$'); then
    echo "handout: solution files would be handed out: $leaked" >&2
    exit 1
fi
mkdir -p "$(dirname "$out")"
tar -czf "$out" -C "$stage" gemm-course
echo "wrote $out: $(wc -l < "$stage/files.txt") files, no solutions/ (unpacks to gemm-course/)"
