# roofline.gp - the roofline of the device from the probe CSV (FFMA and mma.sync ceilings, HBM
# bandwidth) and the lessons' kernels at the arithmetic intensity of a traffic model of each
# kernel (plots/plotdata.py model_bytes: the DRAM bytes its thread mapping or CTA tiling asks
# for, with nothing kept in a cache); cuBLAS at 4096^3 as horizontal lines.
# Usage: gnuplot -c plots/roofline.gp DATDIR/roofline OUTBASE   (reads .dat and .meta.gp)
# .dat: intensity tflops dtype(0 fp32 1 fp16 2 bf16) model(0 lanes 1 tile 2 min) side(0 right,1 left)
#       "label" label_y (the label's height: the point's, or moved off a cuBLAS line or another
#       label; a thin grey line joins a moved label to its point)
DAT = ARG1 . ".dat"
OUT = ARG2
W = 1200
H = 760
load ARG1 . ".meta.gp"
load system("dirname '" . ARG0 . "'") . "/common.gp"
set label 98 probe_stamp at screen 0.99, 0.040 right font ",9" tc rgb "#555555" noenhanced
dtcolor(d) = d == 0 ? int("0x" . c_fp32[2:]) : d == 1 ? int("0x" . c_fp16[2:]) : int("0x" . c_bf16[2:])
roof(x, peak) = (x * bw < peak) ? x * bw : peak
set title title . "\n" . note font ",10" noenhanced
set xlabel "arithmetic intensity (FLOP per DRAM byte of the traffic model, log scale)"
set ylabel "TFLOP/s (log scale)"
set logscale xy
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set samples 2000
set grid xtics ytics lc rgb "#e5e5e5"
set key bottom right opaque box font ",10" spacing 1.1
set tmargin 6
set bmargin 6
do for [j = 1:nref] {
    set arrow 10 + j from xmin, value(sprintf("ref%d", j)) to xmax, value(sprintf("ref%d", j)) nohead dt 2 lw 1.5 lc rgb value(sprintf("refc%d", j)) back
    set label 10 + j value(sprintf("reft%d", j)) at xmin * 1.15, value(sprintf("ref%d", j)) * 1.3 left font ",10" tc rgb value(sprintf("refc%d", j))
}
@png_begin
plot roof(x, mma) with lines lw 2.5 lc rgb "#444444" title sprintf("mma.sync f16->f32 ceiling %.0f TFLOP/s", mma), \
     roof(x, ffma) with lines lw 2.5 dt 4 lc rgb "#444444" title sprintf("FFMA ceiling %.1f TFLOP/s", ffma), \
     x * bw with lines lw 1 dt 3 lc rgb "#999999" title sprintf("HBM %.0f GB/s (measured copy)", bw * 1000), \
     DAT using 1:($4 < 2 ? $2 : NaN):(dtcolor($3)) with points pt 7 ps 1.6 lc rgb variable title "kernel at its modelled intensity", \
     DAT using 1:($4 == 2 ? $2 : NaN):(dtcolor($3)) with points pt 6 ps 1.8 lw 2 lc rgb variable title (has_min ? "tiling unknown: minimum traffic (A, B read once)" : ""), \
     DAT using 1:2:(0):($7 - $2) with vectors nohead lw 1 lc rgb "#aaaaaa" notitle, \
     DAT using 1:($5 == 0 ? $7 : NaN):6 with labels left offset 1.2, 0 font ",10" notitle, \
     DAT using 1:($5 == 1 ? $7 : NaN):6 with labels right offset -1.2, 0 font ",10" notitle, \
     NaN with points pt 7 lc rgb c_fp32 title (has_fp32 ? "fp32" : ""), \
     NaN with points pt 7 lc rgb c_fp16 title (has_fp16 ? "fp16" : ""), \
     NaN with points pt 7 lc rgb c_bf16 title (has_bf16 ? "bf16" : "")
@svg_again
