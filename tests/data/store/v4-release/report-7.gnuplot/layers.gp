# rknn-trace report: `gnuplot` this script in its folder to write layers.png
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,500 font ",10"
} else {
    set terminal png size 1200,500
}
set output "layers.png"
set datafile missing "?"
set grid ytics
set key outside top center horizontal
set title "run #7: time per layer (us, measured), split by DDR / NPU cycles" noenhanced
set xlabel "layer"
set ylabel "us"
set style fill solid 1.0 noborder
set boxwidth 0.8
plot "layers.dat" using 1:($3+$4) with boxes lc rgb "#e8912d" title "DDR cycles' share", \
     "" using 1:4 with boxes lc rgb "#3b78c4" title "NPU cycles' share"
