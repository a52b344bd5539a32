# sass_frag_offsets.awk -- lesson 04's fragment loads in the machine code, against the layouts.
#   awk -f tests/sass_frag_offsets.awk OFFSETS SASS
# OFFSETS: the output of tests/frag_offsets_04.c, one line per kernel:
#   SYMBOL BODIES OFFSET... / ALSO...
# SASS: cuobjdump -sass of build/04_copy/run (one architecture).
# For every kernel, the byte offsets of its LDS.128 (the immediate of the address; registers
# and uniform registers dropped; 0 when there is none): every OFFSET in at least BODIES loads
# (one per copy-mode body), and no offset outside OFFSET and ALSO. Prints one line per kernel, "ok SYMBOL ..." or
# "FAIL SYMBOL ...", and "FAIL unlisted NAME" for a lesson 04 kernel that OFFSETS lacks.
# Used by tests/test_sass.sh.
function hex(s,   i, c, v) {
  v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v
}
FNR == NR {                                   # the expected offsets
  sym[++nk] = $1; bodies[$1] = $2; also = 0
  for (i = 3; i <= NF; i++) {
    if ($i == "/") { also = 1; continue }
    if (also) ok[$1, $i] = 1; else { want[$1, $i] = 1; ok[$1, $i] = 1; nwant[$1]++ }
  }
  next
}
/Function :/ {
  fn = ""
  for (k = 1; k <= nk; k++) if (index($3, sym[k]) == 1) fn = sym[k]
  if (fn != "") seen[fn] = 1
  else if ($3 ~ /gemm04_/) unlisted[$3] = 1
  next
}
fn != "" && /LDS\.128 / {
  a = $0; sub(/^[^[]*\[/, "", a); sub(/\].*$/, "", a)    # R2+UR4+0x1080
  off = 0
  if (match(a, /-?0x[0-9a-f]+/)) {
    h = substr(a, RSTART, RLENGTH); neg = (h ~ /^-/); sub(/^-/, "", h)
    off = neg ? -hex(h) : hex(h)
  }
  cnt[fn, off]++
  if (!((fn, off) in anyoff)) { anyoff[fn, off] = 1; offs[fn] = offs[fn] " " off }
}
END {
  for (k = 1; k <= nk; k++) {
    s = sym[k]; bad = ""
    if (!(s in seen)) { print "FAIL " s ": no such kernel in the machine code"; continue }
    n = split(offs[s], got, " ")
    for (i = 1; i <= n; i++) if (!((s, got[i]) in ok)) bad = bad " extra=" got[i]
    for (key in want) {
      split(key, p, SUBSEP)
      if (p[1] != s) continue
      c = ((s, p[2]) in cnt) ? cnt[s, p[2]] : 0
      if (c == 0) bad = bad " missing=" p[2]
      else if (c < bodies[s]) bad = bad " few=" p[2] "(" c ")"
    }
    if (bad == "") printf "ok %s: %d offsets, each in >= %d loads\n", s, nwant[s], bodies[s]
    else print "FAIL " s ":" bad
  }
  for (u in unlisted) print "FAIL unlisted " u
}
