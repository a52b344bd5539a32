# bars.gp - a bar chart: the course at a glance (glance) and the per-lesson step charts (steps_*).
# Usage: gnuplot -c plots/bars.gp DATDIR/NAME OUTBASE     (reads NAME.dat and NAME.meta.gp)
# NAME.dat: x tflops pct dtype(0 fp32, 1 fp16, 2 bf16) "xlabel" "label above the bar"
DAT = ARG1 . ".dat"
OUT = ARG2
load ARG1 . ".meta.gp"
load system("dirname '" . ARG0 . "'") . "/common.gp"
dtcolor(d) = d == 0 ? int("0x" . c_fp32[2:]) : d == 1 ? int("0x" . c_fp16[2:]) : int("0x" . c_bf16[2:])
set title title noenhanced
if (ylog) { set logscale y; set ylabel "TFLOP/s (log scale)" } else { set ylabel "TFLOP/s" }
set xlabel xlab offset 0,-1
set yrange [ymin:ymax]
set xrange [-0.6:nbars - 0.4]
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics scale 0 font ",10"
set bmargin 6
if (nbars > 6) { set xtics rotate by 20 right; set bmargin 9; set lmargin 16 }  # long names: slant them
set key tmargin center horizontal maxrows 2 width 1
@png_begin
plot DAT using 1:2:(dtcolor($4)):xtic(stringcolumn(5)) with boxes lc rgb variable notitle, \
     DAT using 1:2:6 with labels center offset 0,1.5 font ",10" notitle, \
     for [i=1:nref] value("ref" . i) with lines dt 2 lw 2 lc rgb value("refc" . i) title value("reft" . i), \
     NaN with boxes lc rgb c_fp32 title (has_fp32 ? "fp32" : ""), \
     NaN with boxes lc rgb c_fp16 title (has_fp16 ? "fp16" : ""), \
     NaN with boxes lc rgb c_bf16 title (has_bf16 ? "bf16" : "")
@svg_again
