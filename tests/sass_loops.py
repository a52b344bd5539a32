#!/usr/bin/env python3
"""sass_loops.py - the loops of the kernels in `cuobjdump -sass` text, measured, and the main-loop
budgets of tests/sass_budget.txt checked (tests/test_sass.sh).

A loop is a backward branch (BRA to a lower address); its body is every instruction from the
branch target to the branch, both included: one trip. For each loop the tool counts the
instructions (n) and some kinds of them:
  ffma ldg128 sts32 sts128 lds128   FFMA, LDG.E.128, STS (32-bit), STS.128, LDS.128 (lesson 04)
  hmma ldsm ldgsts bar              HMMA (or lesson 09's HGMMA), LDSM, LDGSTS, BAR (the Tensor
                                    Core lessons)
  mufu lds                          MUFU (any), LDS (any width; lesson 07's epilogue)
and, over the body taken as a cycle, how the ldmatrix loads sit between the MMAs (a loop with as
many instructions but its LDSM bunched into groups runs slower on the GPU):
  max_hmma_run  the longest run of HMMA with no LDSM between them
  max_ldsm_run  the longest run of LDSM with no HMMA between them

Two ways to pick a kernel's main loop:
  main:H     the innermost loop (no other backward branch inside) that carries the most HMMA;
             among those, the one with the fewest instructions (the steady state, whose copies
             need no predicates). Its n is given per K tile of H HMMA: n * H / (HMMA in the
             body), since a body may hold several K tiles.
  ffma:SEL   among the loops with FFMA, in program order: SEL = K=V,K=V,... the first whose
             counts have every K=V (e.g. ldg128=4,sts32=16,sts128=0: lesson 04's TN body);
             SEL = all: every loop with FFMA, their n summed.
  block:SEL  straight-line code, not a loop: the blocks of instructions that no branch enters
             or leaves in the middle (split after every branch, jump, call, return or EXIT
             and before every BRA target) whose counts have every K=V of SEL, e.g.
             mufu=128,lds=0: lesson 07's element loops (the unrolled epilogue of a lane's 128
             accumulators) with GELU and beta = 0. Its n is the largest of them, and `blocks`
             their number.

The same tool checks lesson 04's fragment loads against its layouts (frags): for every kernel
OFFSETS lists (the output of tests/frag_offsets_04.c, one line per kernel: SYMBOL BODIES
OFFSET... / ALSO...), the byte offsets of its LDS.128 (the immediate of the address, 0 when
there is none; registers dropped): every OFFSET in at least BODIES loads (one per copy-mode
body; fewer = a fragment load the compiler merged with another or left out), and no offset
outside OFFSET and ALSO (a load from the wrong place). A lesson 04 kernel (gemm04_) that
OFFSETS does not list fails too.

Usage:
  sass_loops.py SASS_FILE                       every loop of every kernel, one line each
  sass_loops.py SASS_FILE FUNC HMMA_PER_KTILE   the main:H loop of the kernel named FUNC:
        instr_per_ktile=N hmma=H ldsm=L ldgsts=G bar=B local=0|1 max_hmma_run=R max_ldsm_run=S
  sass_loops.py check BUDGET LESSON BUILD       every line of the budget file for LESSON, on
                                                BUILD/LESSON/sass_smARCH.txt: one line per
                                                check, "ok ..." or "FAIL ..."
  sass_loops.py frags OFFSETS SASS_FILE         lesson 04's fragment loads: one line per
                                                kernel, "ok SYMBOL ..." or "FAIL SYMBOL ...",
                                                and "FAIL unlisted NAME"
  sass_loops.py frag-line-to-drop OFFSETS SASS_FILE   the line of a fragment load whose loss
                                                frags must report (0: none), for the
                                                negative check of tests/test_sass.sh
Budget file lines: LESSON ARCH KERNEL LOOP LIMITS [WHAT]; KERNEL is a part of the mangled name
that names one kernel, LOOP main:H, ffma:SEL or block:SEL, LIMITS a comma list of NAME<=VALUE
over n, max_hmma_run, max_ldsm_run (blocks for block:); a main: check also fails when the
kernel uses local memory.
Exit status 1 when FUNC is missing or has no loop with HMMA, or (check, frags) when a check
fails; 2 for bad usage.
"""
import re
import sys

INSN = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
PRED = re.compile(r"^@!?U?P[0-9T]+\s+")
KINDS = {  # name: (pattern searched in the instruction text, pattern it must not contain)
    "ffma": (r"FFMA", None), "ldg128": (r"LDG\.E\.128", None), "sts128": (r"STS\.128", None),
    "sts32": (r"STS ", r"STS\.128"), "lds128": (r"LDS\.128", None),
    "hmma": (r"^H(G)?MMA", None), "ldsm": (r"^LDSM", None), "ldgsts": (r"^LDGSTS", None),
    "bar": (r"^BAR", None), "mufu": (r"^MUFU", None), "lds": (r"^LDS(\.|\s)", None),
}


def kernels(text):
    """{mangled name: [(address, opcode text without its predicate)]} in program order."""
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
    """[(start index, end index)] of every backward branch, in program order."""
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
    """The counts of loop (lo, hi): n, every kind, inner, max_hmma_run, max_ldsm_run."""
    body = [op for _, op in code[lo:hi + 1]]
    m = {"n": len(body)}
    for kind, (pat, unless) in KINDS.items():
        m[kind] = sum(1 for op in body
                      if re.search(pat, op) and not (unless and re.search(unless, op)))
    m["inner"] = not any(a >= lo and b < hi for a, b in all_loops if (a, b) != (lo, hi))
    run = max_run = lrun = max_l = 0
    n = len(body)
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
    if m["ldsm"] == 0:
        max_run = m["hmma"]
    m["max_hmma_run"], m["max_ldsm_run"] = max_run, max_l
    return m


def blocks(code):
    """[(start index, end index)] of the straight-line blocks: a block ends after a branch,
    jump, call, return or EXIT and before the target of any BRA."""
    branch = re.compile(r"BRA(?:\.\S+)?\s+(0x[0-9a-f]+)")
    targets = {int(t, 16) for _, op in code for t in branch.findall(op)}
    res, lo = [], 0
    for i, (a, op) in enumerate(code):
        if a in targets and i > lo:
            res.append((lo, i - 1))
            lo = i
        if re.match(r"(BRA|BRX|BRXU|JMP|JMX|CALL|RET|EXIT)\b", op):
            res.append((lo, i))
            lo = i + 1
    if lo < len(code):
        res.append((lo, len(code) - 1))
    return res


def block_counts(code, lo, hi):
    """n and every kind of the block code[lo..hi]."""
    body = [op for _, op in code[lo:hi + 1]]
    m = {"n": len(body)}
    for kind, (pat, unless) in KINDS.items():
        m[kind] = sum(1 for op in body
                      if re.search(pat, op) and not (unless and re.search(unless, op)))
    return m


def all_measures(code):
    ls = loops(code)
    return [measure(code, a, b, ls) for a, b in ls]


def main_loop(code):
    """The main:H loop's counts, or None."""
    ms = [m for m in all_measures(code) if m["inner"] and m["hmma"] > 0]
    if not ms:
        return None
    top = max(m["hmma"] for m in ms)
    return min((m for m in ms if m["hmma"] == top), key=lambda m: m["n"])


def uses_local(code):
    return int(any(re.match(r"(LDL|STL)\b", op) for _, op in code))


def pick(ks, kernel, loop):
    """(counts, description) of loop spec `loop` over the kernels whose name contains
    `kernel`, or (None, why)."""
    names = [kernel] if kernel in ks else [k for k in ks if kernel in k]
    if not names:
        return None, f"no kernel named like {kernel}"
    kind, _, arg = loop.partition(":")
    if kind == "main":
        if len(names) > 1:
            return None, f"{kernel} names {len(names)} kernels"
        m = main_loop(ks[names[0]])
        if not m:
            return None, f"{names[0]}: no loop with HMMA"
        m = dict(m, n=m["n"] * int(arg) / m["hmma"], local=uses_local(ks[names[0]]))
        return m, f"main loop of {names[0]} per K tile of {arg} HMMA"
    if kind == "block":
        if len(names) > 1:
            return None, f"{kernel} names {len(names)} kernels"
        want = dict(kv.split("=") for kv in arg.split(","))
        code = ks[names[0]]
        ms = [block_counts(code, a, b) for a, b in blocks(code)]
        ms = [m for m in ms if all(m[k] == int(v) for k, v in want.items())]
        if not ms:
            return None, f"{names[0]}: no straight-line block with {arg}"
        return ({"n": max(m["n"] for m in ms), "blocks": len(ms)},
                f"largest of the {len(ms)} blocks of {names[0]} with {arg}")
    if kind == "ffma":
        ms = [m for name in names for m in all_measures(ks[name]) if m["ffma"] > 0]
        if arg == "all":
            if not ms:
                return None, f"{kernel}: no loop with FFMA"
            return {"n": sum(m["n"] for m in ms)}, f"every FFMA loop of {kernel} ({len(ms)})"
        want = dict(kv.split("=") for kv in arg.split(","))
        for m in ms:
            if all(m[k] == int(v) for k, v in want.items()):
                return m, f"first FFMA loop of {kernel} with {arg}"
        return None, f"{kernel}: no FFMA loop with {arg}"
    return None, f"unknown loop spec {loop}"


def check(budget, lesson, build):
    fails = 0
    texts = {}
    for line in open(budget):
        f = line.split("#", 1)[0].split()
        if len(f) < 5 or f[0] != lesson:
            continue
        arch, kernel, loop, limits, what = f[1], f[2], f[3], f[4], " ".join(f[5:])
        path = f"{build}/{lesson}/sass_sm{arch}.txt"
        if path not in texts:
            try:
                texts[path] = kernels(open(path).read())
            except OSError as e:
                texts[path] = {}
                print(f"FAIL {lesson} sm_{arch}: cannot read {path}: {e.strerror}")
        m, desc = pick(texts[path], kernel, loop)
        label = f"{lesson} sm_{arch} {what or desc}"
        if m is None:
            fails += 1
            print(f"FAIL {label}: {desc}")
            continue
        bad, got = [], []
        for lim in limits.split(","):
            name, _, cap = lim.partition("<=")
            v = m.get(name)
            got.append(f"{name} {v:g} (budget {cap})" if v is not None else f"{name} ?")
            if v is None or v > float(cap):
                bad.append(name)
        if m.get("local"):
            bad.append("local memory")
        if bad:
            fails += 1
            print(f"FAIL {label}: {', '.join(got)}; over: {', '.join(bad)} [{desc}]")
        else:
            print(f"ok   {label}: {', '.join(got)}")
    return 1 if fails else 0


LDS128_IMM = re.compile(r"-?0x[0-9a-f]+")


def read_offsets(path):
    """OFFSETS (tests/frag_offsets_04.c): [symbol], {symbol: bodies}, {symbol: {offset}} wanted,
    {symbol: {offset}} also allowed."""
    syms, bodies, want, also = [], {}, {}, {}
    for line in open(path):
        f = line.split()
        if len(f) < 2:
            continue
        sym, rest = f[0], f[2:]
        cut = rest.index("/") if "/" in rest else len(rest)
        syms.append(sym)
        bodies[sym] = int(f[1])
        want[sym] = {int(x) for x in rest[:cut]}
        also[sym] = {int(x) for x in rest[cut + 1:]}
    return syms, bodies, want, also


def frag_loads(syms, text):
    """The LDS.128 of the kernels OFFSETS lists: {symbol: {byte offset: [line numbers]}} (the
    immediate of the address, 0 when there is none), the symbols met, and the lesson 04 kernels
    (gemm04_) that no symbol names."""
    loads, seen, unlisted, sym = {s: {} for s in syms}, set(), [], None
    for no, line in enumerate(text.splitlines(), 1):
        if "Function :" in line:
            name = line.split("Function :", 1)[1].strip()
            hit = [s for s in syms if name.startswith(s)]
            sym = hit[-1] if hit else None
            if sym:
                seen.add(sym)
            elif "gemm04_" in name:
                unlisted.append(name)
            continue
        m = INSN.match(line)
        if not m or sym is None:
            continue
        op = PRED.sub("", m.group(2))
        if not op.startswith("LDS.128 "):
            continue
        addr = op.split("[", 1)[1].split("]", 1)[0] if "[" in op else ""
        imm = LDS128_IMM.search(addr)
        off = int(imm.group(0), 16) if imm else 0
        loads[sym].setdefault(off, []).append(no)
    return loads, seen, unlisted


def frags(offsets_path, sass_path):
    """Lesson 04's LDS.128 offsets against OFFSETS (see the docstring); prints one line per
    kernel and returns 1 when any line is a FAIL."""
    syms, bodies, want, also = read_offsets(offsets_path)
    loads, seen, unlisted = frag_loads(syms, open(sass_path).read())
    fails = 0
    for sym in syms:
        if sym not in seen:
            print(f"FAIL {sym}: no such kernel in the machine code")
            fails += 1
            continue
        got = {o: len(lines) for o, lines in loads[sym].items()}
        bad = [f"extra={o}" for o in got if o not in want[sym] | also[sym]]
        for o in sorted(want[sym]):
            c = got.get(o, 0)
            if c == 0:
                bad.append(f"missing={o}")
            elif c < bodies[sym]:
                bad.append(f"few={o}({c})")
        if bad:
            print(f"FAIL {sym}: {' '.join(bad)}")
            fails += 1
        else:
            print(f"ok {sym}: {len(want[sym])} offsets, each in >= {bodies[sym]} loads")
    for name in unlisted:
        print(f"FAIL unlisted {name}")
        fails += 1
    return 1 if fails else 0


def frag_line_to_drop(offsets_path, sass_path):
    """For the negative check of tests/test_sass.sh: the line number of a fragment load that
    frags cannot lose (the first load of the first listed kernel whose offset is in exactly
    BODIES loads), or 0 when every offset has loads to spare."""
    syms, bodies, want, _ = read_offsets(offsets_path)
    loads, _, _ = frag_loads(syms, open(sass_path).read())
    for sym in syms:
        for off in sorted(want[sym]):
            lines = loads[sym].get(off, [])
            if lines and len(lines) == bodies[sym]:
                return lines[0]
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    if len(argv) == 4 and argv[1] == "frags":
        return frags(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "frag-line-to-drop":
        print(frag_line_to_drop(argv[2], argv[3]))
        return 0
    if len(argv) not in (2, 4):
        print(__doc__.split("Usage:")[1].split("Budget file")[0].rstrip(), file=sys.stderr)
        return 2
    ks = kernels(open(argv[1]).read())
    if len(argv) == 2:
        for name, code in ks.items():
            ls = loops(code)
            for a, b in ls:
                m = measure(code, a, b, ls)
                kinds = " ".join(f"{k}={m[k]}" for k in KINDS)
                print(f"{name} {code[a][0]:#x}-{code[b][0]:#x} n={m['n']} {kinds} "
                      f"inner={int(m['inner'])} max_hmma_run={m['max_hmma_run']} "
                      f"max_ldsm_run={m['max_ldsm_run']}")
        return 0
    name, per_tile = argv[2], int(argv[3])
    if name not in ks:
        print(f"no kernel {name}", file=sys.stderr)
        return 1
    m = main_loop(ks[name])
    if not m:
        print(f"{name}: no loop with HMMA", file=sys.stderr)
        return 1
    per = m["n"] * per_tile / m["hmma"]
    print(f"instr_per_ktile={per:g} hmma={m['hmma']} ldsm={m['ldsm']} ldgsts={m['ldgsts']} "
          f"bar={m['bar']} local={uses_local(ks[name])} max_hmma_run={m['max_hmma_run']} "
          f"max_ldsm_run={m['max_ldsm_run']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
