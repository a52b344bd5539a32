#!/usr/bin/env python3
"""readme_blocks.py - the tool output shown in the READMEs is the tool's output.

In a fenced block (```) of a README, a line `$ build/tools/NAME ARGS...` is a command and the
lines after it, up to the next `$ ` line or the end of the block, are what it prints (stdout
and stderr). This script runs every such command from the repository root (a bash command
line: pipes such as `| head -7` or `| cut -c1-98` are part of it; `build/` stands for $BUILD)
and compares what it prints with the block, trailing blanks of each line ignored. Its exit
status does not matter: a README may show an error message.

Usage: python3 scripts/readme_blocks.py [--check | --write] [README.md ...]
  --check  (default) change nothing; one line per block that differs (with its first
           differing line), exit status 1 if any
  --write  replace each command's output in the README by what the command prints now
  README   default: README.md and every lessons/*/README.md
Environment: BUILD (default build): where the tools are (make build/tools/NAME builds one).
A command that is not `build/tools/...`, or a tool that is not built, is an error (status 2).
Python 3 standard library only.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^\s*```")
CMD = re.compile(r"^\$ (build/tools/(\S+).*)$")


def blocks(lines):
    """[(index of the command line, index past its output, command)] of a README's lines."""
    out, inside, cur = [], False, None
    for i, line in enumerate(lines):
        if FENCE.match(line):
            if inside and cur:
                out.append((cur[0], i, cur[1]))
            inside, cur = not inside, None
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            if cur:
                out.append((cur[0], i, cur[1]))
            m = CMD.match(line)
            cur = (i, m.group(1)) if m else None
    return out


def run(cmd, build):
    """What the command line prints, as a list of lines without trailing blanks."""
    tool = CMD.match("$ " + cmd).group(2)
    path = os.path.join(build, "tools", tool)
    if not os.access(path if os.path.isabs(path) else os.path.join(ROOT, path), os.X_OK):
        print(f"readme_blocks: {path} is not built (make {path})", file=sys.stderr)
        sys.exit(2)
    line = re.sub(r"(^|[\s|;(])build/tools/", lambda m: m.group(1) + build + "/tools/", cmd)
    res = subprocess.run(["bash", "-c", line], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    return [l.rstrip() for l in res.stdout.splitlines()]


def main(argv):
    mode = "check"
    files = []
    for a in argv[1:]:
        if a in ("--check", "--write"):
            mode = a[2:]
        elif a.startswith("-"):
            print(f"readme_blocks: unknown option {a} (--check, --write)", file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        files = [os.path.join(ROOT, "README.md")] + sorted(
            glob.glob(os.path.join(ROOT, "lessons", "*", "README.md")))
    build = os.environ.get("BUILD", "build")
    bad = checked = 0
    for f in files:
        with open(f, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        name = os.path.relpath(f, ROOT)
        new = list(lines)
        for start, end, cmd in reversed(blocks(lines)):
            checked += 1
            want = run(cmd, build)
            have = [l.rstrip() for l in lines[start + 1:end]]
            if have == want:
                continue
            if mode == "write":
                new[start + 1:end] = want
                continue
            bad += 1
            k = next((j for j in range(max(len(have), len(want)))
                      if j >= len(have) or j >= len(want) or have[j] != want[j]))
            print(f"{name}:{start + 2 + k}: the output of `{cmd}` differs: README has "
                  f"{have[k]!r}, the tool prints {want[k]!r}" if k < len(have) and k < len(want)
                  else f"{name}:{start + 2 + k}: the output of `{cmd}` has "
                  f"{len(want)} lines, the README shows {len(have)}")
        if mode == "write" and new != lines:
            with open(f, "w", encoding="utf-8") as fh:
                fh.write("\n".join(new))
            print(f"readme_blocks: rewrote the tool output in {name}")
    if mode == "check":
        if bad:
            print(f"readme_blocks: {bad} of {checked} tool output blocks differ from the tool "
                  f"(fix: python3 scripts/readme_blocks.py --write)")
            return 1
        print(f"readme_blocks: {checked} tool output blocks in {len(files)} READMEs match the tools")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
