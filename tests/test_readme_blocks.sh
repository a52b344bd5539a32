#!/usr/bin/env bash
# test_readme_blocks.sh - the drawings and tables the READMEs show as a tool's output (a line
# `$ build/tools/NAME ...` in a fenced block, and the lines after it) are what the tool prints
# today (scripts/readme_blocks.py runs each command and compares).
# Usage: BUILD=build bash tests/test_readme_blocks.sh        Fix: make readme-blocks
set -u
cd "$(dirname "$0")/.."
command -v python3 >/dev/null 2>&1 || { echo "readme blocks: FAIL: python3 is needed"; exit 1; }
BUILD=${BUILD:-build} python3 scripts/readme_blocks.py --check
