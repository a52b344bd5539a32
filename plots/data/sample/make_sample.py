#!/usr/bin/env python3
"""make_sample.py - writes SAMPLE.csv, SAMPLE_probe.csv, SAMPLE_epilogue.csv and
SAMPLE_shapes.csv: SYNTHETIC data in the formats of make bench's CSVs (the main one, the probe,
lesson 07's epilogue part, lesson 08's shape suite), for tests/test_plots.sh and for developing
the charts without a GPU. The numbers are made up (a smooth curve per variant, fixed ratios);
they are NOT measurements and must never appear in a README. Device "SAMPLE synthetic data -
not a measurement", commit "synthetic".
Usage: python3 plots/data/sample/make_sample.py   (rewrites the four files next to it)
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


HDR = ("lesson,variant,dtype,layout,m,n,k,alpha,beta,ms,tflops,cublas_ms,cublas_tflops,"
       "pct_cublas,rel_err,max_err,status,device,cuda_runtime,cuda_driver,date,commit")
# the harness's epilogue columns (common/harness.c harness_csv_header), after commit
EPI_HDR = HDR + ",out,epilogue,bias_axis,gelu,acc,lt_ms,unfused_ms,reference,f64_rel_err"


def row(lesson, v, d, m, n, k, ms, cms, tail):
    """a CSV row as the harness writes it (TN, alpha 1, beta 0, PASS), `tail` after commit"""
    fl = 2.0 * m * n * k
    err = 2e-7 if d == "fp32" else 3e-4
    return ("%s,%s,%s,TN,%d,%d,%d,1,0,%.6f,%.3f,%.6f,%.3f,%.2f,%.3e,%.3e,PASS,%s%s"
            % (lesson, v, d, m, n, k, ms, fl / (ms * 1e9), cms, fl / (cms * 1e9), 100 * cms / ms,
               err, 10 * err, TAIL, tail))


# lesson 07's epilogue part: (epilogue, time of the lesson's kernel as a multiple of its plain
# time); cuBLASLt fused = 0.65 x, cuBLAS + separate kernel = 0.95 x the plain kernel's time
EPI_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (8192, 1024, 4096),
              (2048, 14336, 4096)]
EPI = [("none", 1.0), ("bias", 1.02), ("bias_gelu", 1.04)]


def epilogue_rows():
    lines = [EPI_HDR]
    for d in ("fp16", "bf16"):
        for m, n, k in EPI_SHAPES:
            fl = 2.0 * m * n * k
            plain = fl / (ramp(340.0 * (0.98 if d == "bf16" else 1.0), m, n, k) * 1e9)
            cms = fl / (ramp(CUBLAS[d], m, n, k) * 1e9)
            for epi, f in EPI:
                lt = 0.65 * plain
                un = 0.95 * plain if epi != "none" else -1.0
                tail = ",%s,%s,%s,%s,fp32,%.6f,%.6f,%s,1.0e-04" % (
                    d, epi, "n" if epi != "none" else "-", "tanh" if "gelu" in epi else "-", lt,
                    un, "cublaslt" if epi != "none" else "cublas")
                lines.append(row("07_epilogue", "128x256x64_s3", d, m, n, k, f * plain, cms, tail))
    # rows the chart leaves out: another output type, the bias along m
    for out, axis in (("fp32", "n"), ("fp16", "m")):
        lines.append(row("07_epilogue", "128x256x64_s3", "fp16", 4096, 4096, 4096, 0.9, 0.2,
                         ",%s,bias_gelu,%s,tanh,fp32,0.150000,0.300000,cublaslt,1.0e-04"
                         % (out, axis)))
    return lines


def read_suite():
    with open(os.path.join(HERE, "..", "shapes.txt")) as f:
        return [tuple(int(x) for x in line.split("#")[0].strip().split("x"))
                for line in f if line.split("#")[0].strip()]


# lesson 08's shape suite: (lesson, variant, dtypes, fraction of cuBLAS: a function of the
# shape). The dispatcher keeps a steady share (2.3 x cuBLAS at 4093^3: a bar the chart cuts);
# the single kernel loses on small M.
def shapes_rows():
    lines = [EPI_HDR]
    suite = read_suite()
    series = [("08_dispatch", "default", ("fp16", "bf16", "fp32"),
               lambda m, n, k: 2.3 if m == 4093 else 0.6 + 0.02 * (m % 3)),
              ("06_swizzle", "128x256x64_s3", ("fp16", "bf16"), lambda m, n, k: min(0.6, m / 1024.0)),
              ("04_copy", "ldg128_128x128x8_4w", ("fp32",), lambda m, n, k: min(0.9, m / 512.0))]
    tail = ",%s,none,-,-,fp32,-1.000000,-1.000000,cublas,-1.000e+00"
    for lesson, v, dts, frac in series:
        for d in dts:
            for m, n, k in suite:
                if lesson == "06_swizzle" and k % 8:
                    continue  # a shape the kernel refuses (here 4093^3) has no row
                cms = 2.0 * m * n * k / (ramp(CUBLAS[d], m, n, k) * 1e9)
                lines.append(row(lesson, v, d, m, n, k, cms / frac(m, n, k), cms, tail % d))
    return lines


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
    for name, lines in (("SAMPLE_epilogue.csv", epilogue_rows()), ("SAMPLE_shapes.csv", shapes_rows())):
        with open(os.path.join(HERE, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "SAMPLE_probe.csv"), "w") as f:
        f.write("kind,name,value,unit,device,cuda_runtime,cuda_driver,date,commit\n")
        for name, v, unit in probe:
            f.write("probe,%s,%.2f,%s,%s\n" % (name, v, unit, TAIL))


if __name__ == "__main__":
    main()
