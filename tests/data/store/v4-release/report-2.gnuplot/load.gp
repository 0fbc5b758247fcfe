# rknn-trace report: `gnuplot` this script in its folder to write load.png
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,400 font ",10"
} else {
    set terminal png size 1200,400
}
set output "load.png"
set datafile missing "?"
set grid ytics
set key outside top center horizontal
set title "NPU load sampled while the run ran"
set xlabel "us"
set ylabel "%"
set yrange [0:105]
plot "load.dat" using 1:2 with steps lw 2 title "core 0", \
     "load.dat" using 1:3 with steps lw 2 title "core 1", \
     "load.dat" using 1:4 with steps lw 2 title "core 2"
