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
set title "NPU cores busy over one frame (from the layers)"
set xlabel "us"
set ylabel "%"
set yrange [0:105]
plot "load.dat" using 1:2 with steps lw 2 title "core 0"
