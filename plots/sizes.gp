# sizes.gp - TFLOP/s vs square size (M = N = K, powers of two) for each lesson's default
# variant of one dtype, in the lesson's colour (as on the journey); cuBLAS of that dtype dashed.
# Usage: gnuplot -c plots/sizes.gp DATDIR/sizes_<dtype> OUTBASE   (reads .dat and .meta.gp)
# .dat: a header row of quoted series names, then "size cuBLAS lesson1 lesson2 ..." ('?' = none)
DAT = ARG1 . ".dat"
OUT = ARG2
load ARG1 . ".meta.gp"
load system("dirname '" . ARG0 . "'") . "/common.gp"
set datafile missing "?"
set title title noenhanced
set xlabel "M = N = K (log2 scale)"
set ylabel "TFLOP/s (log scale)"
set logscale x 2
set logscale y
set xrange [xmin:xmax]
set yrange [ymin:ymax]
set xtics (256, 512, 1024, 2048, 4096, 8192, 16384)
set grid xtics
set key outside right top
set rmargin 30
set bmargin 5
@png_begin
plot DAT using 1:2 with lines dt 2 lw 2.5 lc rgb cublas_color title columnheader(2), \
     for [i=3:ncol] DAT using 1:i with linespoints lw 2 pt (i+3) ps 1.2 lc rgb value(sprintf("c%d", i)) title columnheader(i)
@svg_again
