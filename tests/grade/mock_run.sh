#!/usr/bin/env bash
# mock_run.sh - stands in for a graded binary (and, called without arguments, for gpu_probe) in
# the grader's own test (tests/test_exercises.sh), on machines without a GPU. It prints what
# the harness prints (the table, "  FAIL ..." lines, the closing "N passed, M failed, K
# skipped" line, --csv rows) for one behaviour, chosen by MOCK_MODE:
#   pass    every case passes; the exercise is as fast as the lesson's kernel
#   slow    every case passes; the exercise takes twice as long
#   fail    every case fails its check (exit 1)
#   fault   a CUDA error, as CUDA_CHECK reports an illegal address (exit 3)
#   hang    never returns (the grader's timeout must stop it)
#   refuse  every case is refused (exit 2, "refused:")
# A variant named mock_fast (a second BASE of a speed check) takes half the lesson kernel's time
# in every mode but hang, fault and refuse.
set -u
[ $# = 0 ] && { echo "Mock GPU, sm_90, 132 SMs"; exit 0; }   # called as the probe
variants=exercise csv=
while [ $# -gt 0 ]; do
    case $1 in --variant) variants=$2; shift 2 ;; --csv) csv=$2; shift 2 ;; *) shift ;; esac
done
mode=${MOCK_MODE:-pass}
case $mode in
hang) sleep 1000; exit 0 ;;
fault) echo "common/harness.c:692: cudaStreamSynchronize(x->stream) failed: cudaErrorIllegalAddress: an illegal memory access was encountered" >&2; exit 3 ;;
refuse) echo "00_mock: refused: 1 case of exercise: does not support layout NT (first: 127x127x127 fp32 NT)" >&2
        echo "run: nothing to run: every requested case was refused" >&2; exit 2 ;;
esac
echo "00_mock: Mock lesson, with the exercise | Mock GPU, 132 SMs, CUDA 13.0 | commit mock"
[ -n "$csv" ] && [ ! -s "$csv" ] &&
    echo "lesson,variant,dtype,layout,m,n,k,alpha,beta,ms,tflops,cublas_ms,cublas_tflops,pct_cublas,rel_err,max_err,status,device,cuda_runtime,cuda_driver,date,commit" > "$csv"
pass=0 failed=0
for v in ${variants//,/ }; do
    [ "$v" = default ] && v=mock_kernel
    st=PASS ms=10.0
    [ "$mode" = fail ] && [ "$v" = exercise ] && st=FAIL
    [ "$mode" = slow ] && [ "$v" = exercise ] && ms=20.0
    [ "$v" = mock_fast ] && ms=5.0
    printf '%-24s fp32  TT    127    127    127 %10s %9s %10s %8s %10s %5s\n' "$v" "$ms" 1.0 1.0 50.0 0.0 "$st"
    [ "$st" = FAIL ] && echo "  FAIL 00_mock/$v fp32 TT 127x127x127: 16129 NaN/Inf outputs (unwritten?), first at (0,0)"
    [ -n "$csv" ] && echo "00_mock,$v,fp32,TT,127,127,127,1,0,$ms,1.0,1.0,1.0,50.0,0,0,$st,Mock GPU,13000,13000,date,mock" >> "$csv"
    [ "$st" = PASS ] && pass=$((pass + 1)) || failed=$((failed + 1))
done
echo "$pass passed, $failed failed, 0 skipped"
[ $failed = 0 ]
