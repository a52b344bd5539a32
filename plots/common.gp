# common.gp - shared settings of the chart scripts (loaded by bars.gp, sizes.gp, roofline.gp).
# Each chart is drawn twice, to OUT.png (pngcairo when this gnuplot has it, else png) and to
# OUT.svg:   @png_begin; plot ...; @svg_again
set encoding utf8
set termoption noenhanced
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    png_term = "set terminal pngcairo size 1200,700 noenhanced font ',11'"
} else {
    png_term = "set terminal png size 1200,700 noenhanced"
}
png_begin = png_term . "; set output OUT.'.png'"
svg_again = "set terminal svg size 1200,700 dynamic noenhanced font 'Helvetica,12'; set output OUT.'.svg'; replot; set output"
set key noenhanced
set grid ytics mytics lc rgb "#dddddd"
set border 3
set tics nomirror
# provenance in the bottom-right corner
set label 99 stamp at screen 0.99, 0.015 right font ",9" tc rgb "#555555" noenhanced
