#!/usr/bin/env python3
"""make_sample.py - writes SAMPLE.csv and SAMPLE_probe.csv: SYNTHETIC data in the bench and
probe CSV formats, for tests/test_plots.sh and for developing the charts without a GPU.
The numbers are made up (a smooth curve per variant); they are NOT measurements and must never
appear in a README. Device "SAMPLE synthetic data - not a measurement", commit "synthetic".
Usage: python3 plots/data/sample/make_sample.py   (rewrites the two files next to it)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
DEV = "SAMPLE synthetic data - not a measurement"
TAIL = "%s,0,0,2000-01-01T00:00:00Z,synthetic" % DEV
# lesson, layout, [(variant, dtypes, peak TFLOP/s)], cuBLAS peak per dtype
LESSONS = [
    ("01_naive", "TT", [("uncoalesced", ["fp32"], 1.0), ("coalesced", ["fp32"], 8.0)]),
    ("03_tiled", "TN", [("tiled", ["fp32"], 20.0)]),
    ("04_copy", "TN", [("fast", ["fp32"], 30.0), ("tiled_vec", ["fp32"], 25.0),
                       ("cp_async_2stage", ["fp32"], 28.0)]),
    ("05_mma", "TN", [("padded", ["fp16", "bf16"], 200.0), ("unpadded", ["fp16", "bf16"], 120.0)]),
    ("06_swizzle", "TN", [("128x256x32_s4", ["fp16", "bf16"], 300.0),
                          ("128x128x64_s3", ["fp16", "bf16"], 320.0)]),
    # lessons that plots/data/journey.txt does not list: the charts must take them as they come
    ("07_epilogue", "TN", [("staged", ["fp16", "bf16"], 340.0),
                           ("fused_bias_relu", ["fp16", "bf16"], 330.0)]),
    ("08_dispatch", "TN", [("dispatch", ["fp32", "fp16", "bf16"], 350.0)]),
    ("09_wgmma", "TN", [("tma_128x256x64", ["fp16"], 650.0), ("wgmma_128x128x64", ["fp16"], 500.0)]),
]
CUBLAS = {"fp32": 40.0, "fp16": 600.0, "bf16": 580.0}
SIZES = [(s, s, s) for s in (256, 512, 1024, 2048, 4096, 8192)] + [(4093, 4093, 4093), (4096, 4096, 1024)]


def ramp(peak, m, n, k):
    """a made-up saturation curve: small problems reach a fraction of the peak"""
    work = (m * n * k) ** (1.0 / 3.0)
    return peak * work / (work + 600.0)


def main():
    hdr = ("lesson,variant,dtype,layout,m,n,k,alpha,beta,ms,tflops,cublas_ms,cublas_tflops,"
           "pct_cublas,rel_err,max_err,status,device,cuda_runtime,cuda_driver,date,commit")
    lines = [hdr]
    for lesson, layout, variants in LESSONS:
        for vi, (v, dts, peak) in enumerate(variants):
            for d in dts:
                # as make bench: the default (first) variant over the sweep, the others at 4096^3
                for m, n, k in (SIZES if vi == 0 else [(4096, 4096, 4096)]):
                    fl = 2.0 * m * n * k
                    tf = ramp(peak * (0.98 if d == "bf16" else 0.1 if d == "fp32" and peak > 100
                                      else 1.0), m, n, k)
                    cb = ramp(CUBLAS[d], m, n, k)
                    ms, cms = fl / (tf * 1e9), fl / (cb * 1e9)
                    err = 2e-7 if d == "fp32" else 3e-4
                    lines.append("%s,%s,%s,%s,%d,%d,%d,1,0,%.6f,%.3f,%.6f,%.3f,%.2f,%.3e,%.3e,PASS,%s"
                                 % (lesson, v, d, layout, m, n, k, ms, tf, cms, cb, 100 * tf / cb,
                                    err, 10 * err, TAIL))
    with open(os.path.join(HERE, "SAMPLE.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    probe = [("ffma", 50.0, "TFLOP/s"), ("mma_sync_f16_f32", 500.0, "TFLOP/s"),
             ("hbm_copy", 3000.0, "GB/s"), ("cublas_sgemm_8192", 40.0, "TFLOP/s"),
             ("cublas_hgemm_8192", 600.0, "TFLOP/s"), ("cublas_bf16gemm_8192", 580.0, "TFLOP/s")]
    with open(os.path.join(HERE, "SAMPLE_probe.csv"), "w") as f:
        f.write("kind,name,value,unit,device,cuda_runtime,cuda_driver,date,commit\n")
        for name, v, unit in probe:
            f.write("probe,%s,%.2f,%s,%s\n" % (name, v, unit, TAIL))


if __name__ == "__main__":
    main()
