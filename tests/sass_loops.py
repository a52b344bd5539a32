#!/usr/bin/env python3
"""sass_loops.py - the main loop of a kernel in `cuobjdump -sass` text, measured.

A loop is a backward branch (BRA to a lower address); its body is every instruction from the
branch target to the branch. The *main loop* of a kernel is the innermost loop (no other
backward branch inside) that carries the most HMMA; among those, the one with the fewest
instructions (the steady state, whose copies need no predicates). Its size is given per K tile:
instructions * (HMMA per K tile) / (HMMA in the body), since a body may hold several K tiles
(a loop unrolled by the stages).

Besides the count, the placement of the ldmatrix loads matters (a loop with as many
instructions but its LDSM bunched into groups ran 11% slower, notes/perf.md run 16), so the
tool also reports, over the body taken as a cycle:
  max_hmma_run  the longest run of HMMA with no LDSM between them
  max_ldsm_run  the longest run of LDSM with no HMMA between them

Usage:
  sass_loops.py SASS_FILE                       every loop of every kernel (a table)
  sass_loops.py SASS_FILE FUNC HMMA_PER_KTILE   the main loop of the kernel whose mangled
                                                name is FUNC, one line:
        instr_per_ktile=N hmma=H ldsm=L ldgsts=G bar=B local=0|1 max_hmma_run=R max_ldsm_run=S
Exit status 1 when FUNC is missing or has no loop with HMMA.
"""
import re
import sys

INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
PRED = re.compile(r"^@!?U?P[0-9T]+\s+")


def kernels(text):
    """{mangled name: [(address, opcode text)]} in program order."""
    out, name = {}, None
    for line in text.splitlines():
        if "Function :" in line:
            name = line.split("Function :", 1)[1].strip()
            out[name] = []
            continue
        m = INSN.match(line)
        if m and name is not None:
            out[name].append((int(m.group(1), 16), PRED.sub("", m.group(2))))
    return out


def loops(code):
    """[(start index, end index)] of every backward branch."""
    at = {a: i for i, (a, _) in enumerate(code)}
    res = []
    for i, (_, op) in enumerate(code):
        m = re.match(r"BRA\s+(0x[0-9a-f]+)", op)
        if m:
            t = int(m.group(1), 16)
            if t in at and at[t] <= i:
                res.append((at[t], i))
    return res


def measure(code, lo, hi, all_loops):
    body = [op for _, op in code[lo:hi + 1]]
    count = lambda p: sum(1 for op in body if op.startswith(p))
    inner = not any(a >= lo and b < hi for a, b in all_loops if (a, b) != (lo, hi))
    run = max_run = lrun = max_l = 0
    n = len(body)
    ldsm = count("LDSM")
    for k in range(2 * n):
        op = body[k % n]
        if op.startswith("HMMA"):
            run += 1
            lrun = 0
        elif op.startswith("LDSM"):
            if k >= n:
                max_run = max(max_run, run)
            run = 0
            lrun += 1
            max_l = max(max_l, lrun)
    if ldsm == 0:
        max_run = count("HMMA")
    return dict(n=n, hmma=count("HMMA"), ldsm=ldsm, ldgsts=count("LDGSTS"), bar=count("BAR"),
                inner=inner, max_hmma_run=max_run, max_ldsm_run=max_l)


def main_loop(code):
    ls = loops(code)
    ms = [(measure(code, a, b, ls), a, b) for a, b in ls]
    ms = [m for m in ms if m[0]["inner"] and m[0]["hmma"] > 0]
    if not ms:
        return None
    top = max(m[0]["hmma"] for m in ms)
    return min((m for m in ms if m[0]["hmma"] == top), key=lambda m: m[0]["n"])


def main(argv):
    text = open(argv[1]).read()
    ks = kernels(text)
    if len(argv) == 2:
        for name, code in ks.items():
            ls = loops(code)
            for a, b in ls:
                m = measure(code, a, b, ls)
                print(f"{name} {code[a][0]:#x}-{code[b][0]:#x} n={m['n']} hmma={m['hmma']} "
                      f"ldsm={m['ldsm']} ldgsts={m['ldgsts']} bar={m['bar']} inner={int(m['inner'])} "
                      f"max_hmma_run={m['max_hmma_run']} max_ldsm_run={m['max_ldsm_run']}")
        return 0
    name, per_tile = argv[2], int(argv[3])
    if name not in ks:
        print(f"no kernel {name}", file=sys.stderr)
        return 1
    code = ks[name]
    found = main_loop(code)
    if not found:
        print(f"{name}: no loop with HMMA", file=sys.stderr)
        return 1
    m = found[0]
    local = int(any(re.match(r"(LDL|STL)\b", op) for _, op in code))
    per = m["n"] * per_tile / m["hmma"]
    print(f"instr_per_ktile={per:g} hmma={m['hmma']} ldsm={m['ldsm']} ldgsts={m['ldgsts']} "
          f"bar={m['bar']} local={local} max_hmma_run={m['max_hmma_run']} "
          f"max_ldsm_run={m['max_ldsm_run']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
