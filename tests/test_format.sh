#!/usr/bin/env bash
# test_format.sh - every file named in tests/format_files.txt is formatted as .clang-format says
# (clang-format --dry-run -Werror). Prefers clang-format-14, the version the style is pinned to.
# Usage: bash tests/test_format.sh        Fix: make format (rewrites the listed files)
set -u
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-}
if [ -z "$CF" ]; then
    for c in clang-format-14 clang-format; do
        command -v $c >/dev/null 2>&1 && { CF=$c; break; }
    done
fi
[ -n "$CF" ] || {
    echo "test_format: FAIL: clang-format is not installed (sudo apt-get install clang-format-14, or scripts/ensure_deps.sh as root)" >&2
    exit 1; }
ver=$("$CF" --version | sed -nE 's/.*version ([0-9]+).*/\1/p')
files=()
while IFS= read -r line; do
    line=${line%%#*}; line=${line//[[:space:]]/}
    [ -n "$line" ] && files+=("$line")
done < tests/format_files.txt
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
fail=0
for f in "${files[@]}"; do
    [ -f "$f" ] || { echo "test_format: FAIL: $f is listed in tests/format_files.txt but does not exist" >&2; fail=1; continue; }
    "$CF" --dry-run -Werror --style=file "$f" 2> "$tmp" || {
        echo "test_format: FAIL: $f is not formatted (first difference below; fix: $CF -i $f)" >&2
        head -n 3 "$tmp" >&2; fail=1; }
done
if [ $fail != 0 ] && [ "$ver" != 14 ]; then
    echo "test_format: note: this is clang-format $ver; the style is checked with clang-format 14" >&2
fi
[ $fail = 0 ] && echo "test_format: ${#files[@]} files formatted as .clang-format says ($CF $ver)"
exit $fail
