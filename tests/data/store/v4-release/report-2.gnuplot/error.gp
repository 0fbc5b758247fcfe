# rknn-trace report: `gnuplot` this script in its folder to write error.png
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,500 font ",10"
} else {
    set terminal png size 1200,500
}
set output "error.png"
set datafile missing "?"
set grid ytics
set key outside top center horizontal
set title "cos vs the fp32 golden: entire (errors accumulated) and single (layer alone)"
set xlabel "tensor (execution order)"
set ylabel "cos"
plot "error.dat" using 1:2 with lines lw 2 title "A entire", \
     "error.dat" using 1:3 with lines dt 2 title "A single"
