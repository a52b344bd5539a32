# sass_loops.awk -- the loops of cuobjdump -sass output, one line per backward branch:
#   FUNCTION n=INSTRUCTIONS ffma=.. ldg128=.. sts32=.. sts128=.. lds128=..
# (instructions from the branch target to the branch, both included: one trip of the loop).
# Used by tests/test_sass.sh to compare a kernel's main loop with a recorded length.
function hex(s,   i, c, v) {
  v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v
}
/Function :/ { fn = $3; n = 0; next }
/^ *\/\*[0-9a-f]+\*\/ / {
  a = $1; gsub(/[\/*]/, "", a); addr = hex(a)
  line = $0; sub(/^ *\/\*[0-9a-f]+\*\/ */, "", line); sub(/ *;.*$/, "", line)
  n++; ad[n] = addr; ins[n] = line
  if (line ~ /(^|[ ])BRA /) {
    t = line; sub(/.*BRA /, "", t)
    if (!match(t, /0x[0-9a-f]+/)) next
    tgt = hex(substr(t, RSTART, RLENGTH))
    if (tgt < addr) {
      cnt = 0; ff = 0; l128 = 0; s32 = 0; s128 = 0; lds = 0
      for (i = n; i >= 1 && ad[i] >= tgt; i--) {
        cnt++
        if (ins[i] ~ /FFMA/) ff++
        if (ins[i] ~ /LDG\.E\.128/) l128++
        if (ins[i] ~ /STS\.128/) s128++; else if (ins[i] ~ /STS /) s32++
        if (ins[i] ~ /LDS\.128/) lds++
      }
      printf "%s n=%d ffma=%d ldg128=%d sts32=%d sts128=%d lds128=%d\n", fn, cnt, ff, l128, s32, s128, lds
    }
  }
}
