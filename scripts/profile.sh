#!/usr/bin/env bash
# profile.sh - `make profile L=NN ARGS="..."`: Nsight Compute on one GEMM launch of a lesson,
# after warm-up, with the metrics the course talks about, printed as a short table.
#
#   L      the lesson number (08) or folder name (08_dispatch)
#   ARGS   ./run arguments naming ONE case: one --size, one --dtype, at most one --layout and
#          one --variant (default: the lesson's default variant, fp16 where the lesson has it)
#
# How: the harness launches the lesson's GEMM 4 times for `--iters 1 --warmup 1` (the checked
# launch, a timing estimate, one warm-up, one timed run). A first ncu pass with one cheap
# metric lists the kernels those launches ran (cuBLAS's and the harness's own are filtered
# out); the second pass profiles only the last launch's kernels (a split-K launch runs two:
# the GEMM and splitk_reduce) with --clock-control none (the GPU's own clocks, as the timings
# see them) and ncu's default cache control (caches flushed before the profiled kernel).
# Output: one table per kernel (metric, value, unit); the ncu report in $PROFILE_OUT.ncu-rep
# and as CSV in $PROFILE_OUT.csv (default build/profile/<lesson>; open the report with
# ncu-ui, or `ncu -i FILE.ncu-rep --page details`).
# Without ncu or without a GPU: one line saying so, exit 3.
# `bash scripts/profile.sh --table FILE.csv` prints the table of a CSV saved earlier (no GPU).
# The values are converted to the table's units from the units row of the CSV (ncu scales
# them: msecond, Kbyte, Ghz ... unless asked for base units, which this script asks for).
set -u
BUILD=${BUILD:-build}
# print_table CSV: the short table of an ncu raw-page CSV (one block per kernel)
print_table() {
    command -v python3 >/dev/null 2>&1 || { echo "profile: no python3 to print the table; see $1"; return 0; }
    python3 - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(i for i, r in enumerate(rows) if r[0] == "ID")
names = rows[head]
data = [r for r in rows[head + 1:] if r[0].isdigit() and len(r) == len(names)]
col = {n: i for i, n in enumerate(names)}
# the row after the names holds each metric's unit, scaled (msecond, Kbyte, Ghz...) unless
# ncu printed base units: FACTOR turns a value in that unit into the base unit
units = rows[head + 1] if len(rows) > head + 1 and not rows[head + 1][0].isdigit() else []
PREFIX = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9,
          "T": 1e12, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30}
def factor(u):
    """value in unit u -> base unit (ns for time, byte, cycle/second, Hz)"""
    u = u.strip()
    if u.endswith("second") and "/" not in u:  # nsecond usecond msecond second: base is ns
        p = u[:-len("second")]
        return PREFIX.get(p, 1.0) / 1e-9 if p in PREFIX else 1.0
    for base in ("byte", "hz", "Hz"):
        if u.endswith(base) and "/" not in u:
            return PREFIX.get(u[:-len(base)], 1.0)
    if u.startswith("cycle/"):  # cycle/nsecond, cycle/usecond ... -> cycle/second
        p = u[len("cycle/"):-len("second")] if u.endswith("second") else ""
        return 1.0 / PREFIX[p] if p in PREFIX and u.endswith("second") else 1.0
    return 1.0
show = [  # (label, metric, scale, unit)
    ("duration", "gpu__time_duration.sum", 1e-3, "us"),
    ("SM clock", "sm__cycles_elapsed.avg.per_second", 1e-9, "GHz"),
    ("grid x block", None, 0, ""),
    ("registers / thread", "launch__registers_per_thread", 1, ""),
    ("dynamic smem / CTA", "launch__shared_mem_per_block_dynamic", 1 / 1024, "KiB"),
    ("CTAs/SM limit: regs, smem", None, 0, ""),
    ("achieved occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", 1, "%"),
    ("SM throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed", 1, "%"),
    ("tensor pipe active", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", 1, "%"),
    ("FMA pipe active", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1, "%"),
    ("DRAM read", "dram__bytes_read.sum", 1 / 2**20, "MiB"),
    ("DRAM write", "dram__bytes_write.sum", 1 / 2**20, "MiB"),
    ("DRAM throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1, "% of peak"),
    ("L2 bytes (all clients)", "lts__t_bytes.sum", 1 / 2**20, "MiB"),
    ("L2 hit rate", "lts__t_sector_hit_rate.pct", 1, "%"),
    ("smem load bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1, ""),
    ("smem load wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1, ""),
    ("smem store bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1, ""),
]
stalls = [n for n in names if n.startswith("smsp__average_warps_issue_stalled_")]
def val(r, m):
    v = r[col[m]].replace(",", "")
    try: v = float(v)
    except ValueError: return None
    return v * factor(units[col[m]]) if col[m] < len(units) else v
for r in data:
    print("\n== %s" % r[col["Kernel Name"]][:110])
    for label, m, sc, u in show:
        if label == "grid x block":
            s = "%s x %s" % (r[col["launch__grid_size"]], r[col["launch__block_size"]])
        elif label.startswith("CTAs/SM limit"):
            s = "%s, %s" % (r[col["launch__occupancy_limit_registers"]], r[col["launch__occupancy_limit_shared_mem"]])
        else:
            v = val(r, m) if m in col else None
            s = "n/a" if v is None else ("%.0f" % (v * sc) if abs(v * sc) >= 1000 else "%.3g" % (v * sc))
        print("  %-28s %s %s" % (label, s, u))
    st = sorted(((val(r, n) or 0.0, n) for n in stalls), reverse=True)
    print("  warp stalls (cycles per issued instruction):")
    for v, n in st[:5]:
        print("    %-26s %.2f" % (n.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), v))
print("\nraw report: %s" % sys.argv[1])
PY
}
# --table FILE: the table of a CSV saved earlier ($PROFILE_OUT.csv), no GPU needed
if [ "${1:-}" = --table ]; then
    [ -r "${2:-}" ] || { echo "profile: --table needs a readable CSV file (got '${2:-}')" >&2; exit 2; }
    print_table "$2"; exit
fi
L=${1:-}
shift || true
[ -n "$L" ] || { echo "profile: name a lesson: make profile L=08 ARGS=\"--size 4096x4096x4096\"" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
lesson=$(cd "$here/lessons" && ls -d ${L}*/ 2>/dev/null | head -1 | tr -d /)
[ -n "$lesson" ] || { echo "profile: no lesson matches '$L' (lessons/${L}*)" >&2; exit 2; }
run="$BUILD/$lesson/run"
[ -x "$run" ] || { echo "profile: $run is not built (make lesson${lesson%%_*})" >&2; exit 2; }
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)}
[ -n "$NCU" ] && [ -x "$NCU" ] || { echo "profile: Nsight Compute (ncu) is not installed; it comes with the CUDA toolkit (set NCU=/path/to/ncu)" >&2; exit 3; }
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "profile: no NVIDIA GPU on this machine; ncu needs one" >&2; exit 3
fi
args=("$@")
printf '%s\n' "${args[@]}" | grep -q -- '^--size' || args+=(--size 4096x4096x4096)
printf '%s\n' "${args[@]}" | grep -q -- '^--dtype' || { "$run" --list | awk 'NR == 2' | grep -q fp16 && args+=(--dtype fp16); }
printf '%s\n' "${args[@]}" | grep -q -- '^--variant' || args+=(--variant default)
args+=(--iters 1 --warmup 1)
OUTF=${PROFILE_OUT:-$BUILD/profile/$lesson}
mkdir -p "$(dirname "$OUTF")"
# the lesson's kernels: not the harness's fills and smem poisoning, not cuBLAS's
KFILTER='regex:^(?!fill_|poison_|nvjet|sm[0-9]+_xmma|cutlass|ampere_|turing_|volta_|gemv|gemmk|gemmSN|splitKreduce|cublas|xmma|dot_kernel|scal_kernel|reduce_1Block|asum_kernel)'
# pass 1: which lesson kernels the 4 launches ran (one metric: one replay each)
"$NCU" --clock-control none -k "$KFILTER" --metrics gpu__time_duration.sum -f -o "$OUTF.list" \
    "$run" "${args[@]}" > "$OUTF.list.log" 2>&1 ||
    { echo "profile: ncu failed: $(grep -v '^==PROF==' "$OUTF.list.log" | tail -1)" >&2; exit 1; }
total=$("$NCU" -i "$OUTF.list.ncu-rep" --csv --page raw 2>/dev/null | grep -c '^"[0-9]')
if [ "$total" -lt 4 ] || [ $((total % 4)) != 0 ]; then
    echo "profile: expected 4 GEMM launches of the same kernels, found $total lesson kernels; does ARGS name one case? ($run ${args[*]})" >&2
    exit 1
fi
per=$((total / 4))
METRICS=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
echo "profile: $lesson, $run ${args[*]}; the last of 4 launches: $per kernel(s), --clock-control none"
"$NCU" --clock-control none -k "$KFILTER" --launch-skip $((total - per)) --launch-count $per \
    --metrics "$METRICS" -f -o "$OUTF" "$run" "${args[@]}" > "$OUTF.log" 2>&1 ||
    { echo "profile: ncu failed: $(grep -v '^==PROF==' "$OUTF.log" | tail -1)" >&2; exit 1; }
# base units (ns, cycle/second, byte); the table below also reads the CSV's units row and
# converts whatever scale a given ncu version prints
"$NCU" -i "$OUTF.ncu-rep" --csv --page raw --print-units base > "$OUTF.csv" 2>/dev/null ||
    "$NCU" -i "$OUTF.ncu-rep" --csv --page raw > "$OUTF.csv" 2>/dev/null
print_table "$OUTF.csv"
