# common.gp - shared settings of the chart scripts (loaded by hbars.gp, sizes.gp, roofline.gp).
# A script that plots once draws to OUT.png (pngcairo when this gnuplot has it, else png) and
# then OUT.svg:   @png_begin; plot ...; @svg_again
# A script that draws several plots (multiplot) runs its drawing once per terminal:
#   eval(png_term); set output OUT.'.png'; ...   eval(svg_term); set output OUT.'.svg'; ...
# The canvas is W x H pixels (1200 x 700 unless the script sets W and H before loading this).
if (!exists("W")) W = 1200
if (!exists("H")) H = 700
set encoding utf8
set termoption noenhanced
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    png_term = sprintf("set terminal pngcairo size %d,%d noenhanced font ',11'", W, H)
} else {
    png_term = sprintf("set terminal png size %d,%d noenhanced", W, H)
}
svg_term = sprintf("set terminal svg size %d,%d dynamic noenhanced font 'Helvetica,12'", W, H)
png_begin = png_term . "; set output OUT.'.png'"
svg_again = svg_term . "; set output OUT.'.svg'; replot; set output"
set key noenhanced
set grid ytics mytics lc rgb "#dddddd"
set border 3
set tics nomirror
# provenance in the bottom-right corner
set label 99 stamp at screen 0.99, 0.015 right font ",9" tc rgb "#555555" noenhanced
