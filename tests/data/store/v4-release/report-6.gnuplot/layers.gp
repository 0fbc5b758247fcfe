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
set title "run #6: time per layer (us, predicted), split by DDR / NPU cycles" noenhanced
set xrange [0:1]
set yrange [0:1]
unset xtics
unset ytics
set label 1 "no layer times in this run" at graph 0.5, graph 0.5 center
plot NaN notitle
