# roofline.gp - the roofline of the device from the probe CSV (FFMA and mma.sync ceilings,
# HBM bandwidth) and each lesson's default variant (and cuBLAS) at its arithmetic intensity:
# FLOPs / minimum bytes = 2MNK / (bytes of A + B + C read once + C written once).
# Usage: gnuplot -c plots/roofline.gp DATDIR/roofline OUTBASE   (reads .dat and .meta.gp)
# .dat: intensity tflops dtype(0 fp32 1 fp16 2 bf16) is_cublas side(0 right,1 left) "label"
DAT = ARG1 . ".dat"
OUT = ARG2
load ARG1 . ".meta.gp"
load system("dirname '" . ARG0 . "'") . "/common.gp"
set label 98 probe_stamp at screen 0.99, 0.042 right font ",9" tc rgb "#555555" noenhanced
dtcolor(d) = d == 0 ? int("0x" . c_fp32[2:]) : d == 1 ? int("0x" . c_fp16[2:]) : int("0x" . c_bf16[2:])
roof(x, peak) = (x * bw < peak) ? x * bw : peak
set title title noenhanced
set xlabel "arithmetic intensity (FLOP/byte of DRAM traffic, log scale)"
set ylabel "TFLOP/s (log scale)"
set logscale xy
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set samples 2000
set grid xtics
set key top left opaque box
set bmargin 6
@png_begin
plot roof(x, mma) with lines lw 2.5 lc rgb "#444444" title sprintf("mma.sync f16->f32 ceiling %.0f TFLOP/s", mma), \
     roof(x, ffma) with lines lw 2.5 dt 4 lc rgb "#444444" title sprintf("FFMA ceiling %.1f TFLOP/s", ffma), \
     x * bw with lines lw 1 dt 3 lc rgb "#999999" title sprintf("HBM %.0f GB/s (measured copy)", bw * 1000), \
     DAT using 1:($4 == 0 ? $2 : NaN):(dtcolor($3)) with points pt 7 ps 1.6 lc rgb variable title "lesson (default variant)", \
     DAT using 1:($4 == 1 ? $2 : NaN):(dtcolor($3)) with points pt 3 ps 2.2 lw 2 lc rgb variable title "cuBLAS", \
     DAT using 1:($5 == 0 ? $2 : NaN):6 with labels left offset 1.2,0 font ",10" notitle, \
     DAT using 1:($5 == 1 ? $2 : NaN):6 with labels right offset -1.2,0 font ",10" notitle, \
     NaN with points pt 7 lc rgb c_fp32 title (has_fp32 ? "fp32" : ""), \
     NaN with points pt 7 lc rgb c_fp16 title (has_fp16 ? "fp16" : ""), \
     NaN with points pt 7 lc rgb c_bf16 title (has_bf16 ? "bf16" : "")
@svg_again
