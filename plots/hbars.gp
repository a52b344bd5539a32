# hbars.gp - horizontal bar charts: the course at a glance (glance), the journey through every
# step (journey, one panel per dtype) and each lesson's steps (steps_<lesson>). Bars run left to
# right, one row per step top to bottom in learning order, the step named on the left; each
# bar's label (TFLOP/s, % of cuBLAS) sits inside the bar when it fits, else after its end;
# cuBLAS is a dashed vertical line named in the key.
# Usage: gnuplot -c plots/hbars.gp DATDIR/NAME OUTBASE
#   reads NAME.meta.gp (plots/plotdata.py hbar_chart) and NAME_p<i>.dat for panel i:
#   y  half_height  tflops  color(0xRRGGBB)  inside(1/0)  "label"
OUT = ARG2
load ARG1 . ".meta.gp"
W = width
H = height
# the provenance line's baseline: 1.2% of the height, at least 10 pixels (short charts)
stamp_y = (10.0 / H > 0.012 ? 10.0 / H : 0.012)
load system("dirname '" . ARG0 . "'") . "/common.gp"
unset label 99
set grid noytics xtics mxtics lc rgb "#e5e5e5"
set border 3
set ytics scale 0 font ",10"
set style fill solid 0.9 border lc rgb "#333333"
do for [term = 1:2] {
    if (term == 1) { eval(png_term); set output OUT . ".png" } else { eval(svg_term); set output OUT . ".svg" }
    set multiplot title title font ",12"
    do for [i = 1:npanels] {
        pre = sprintf("p%d_", i)
        dat = ARG1 . sprintf("_p%d.dat", i)
        nref = value(pre . "nref")
        nkey = value(pre . "nkey")
        set origin 0, value(pre . "y0")
        set size 1, value(pre . "h")
        set lmargin lmargin_chars
        set rmargin 4
        set tmargin (strlen(value(pre . "title")) > 0 ? 2 : 1)
        set bmargin 3.5
        set title value(pre . "title") font ",11"
        set xlabel value(pre . "xlabel") offset 0, 0.3
        xlo = value(pre . "xmin")
        if (value(pre . "log")) { set logscale x } else { unset logscale x }
        set xrange [xlo : value(pre . "xmax")]
        set yrange [value(pre . "nrows") - 0.5 : -0.5]
        eval("set ytics " . value(pre . "ytics"))
        unset arrow
        do for [j = 1:nref] {
            r = value(sprintf("%sref%d", pre, j))
            set arrow j from r, graph 0 to r, graph 1 nohead dt 2 lw 2 lc rgb value(sprintf("%srefc%d", pre, j)) back
        }
        if (nref + nkey > 0) { set key top right opaque box samplen 4 spacing 1.1 font ",10" width 1 } else { unset key }
        if (i == npanels) { set label 99 stamp at screen 0.99, stamp_y right font ",9" tc rgb "#555555" } else { unset label 99 }
        # the key's entries: one per cuBLAS line, one per colour (an empty loop would still
        # evaluate its title, so only existing entries are named)
        keys = ""
        do for [j = 1:nref] {
            keys = keys . sprintf(", NaN with lines dt 2 lw 2 lc rgb %srefc%d title %sreft%d", pre, j, pre, j)
        }
        do for [j = 1:nkey] {
            keys = keys . sprintf(", NaN with boxes lc rgb %skeyc%d title %skeyt%d", pre, j, pre, j)
        }
        eval("plot dat using (xlo):1:(xlo):3:($1 - $2):($1 + $2):4 with boxxyerror lc rgb variable notitle, " . \
             "dat using 3:($5 == 1 ? $1 : NaN):6 with labels right offset -0.7, 0 tc rgb 'white' font ',9' notitle, " . \
             "dat using 3:($5 == 0 ? $1 : NaN):6 with labels left offset 0.7, 0 tc rgb '#222222' font ',9' notitle" . keys)
    }
    unset multiplot
    set output
}
