# sweep.gp: `ovta sweep`'s design points: cycles against LUTs, the Pareto front (on cycles, LUT,
# DSP and BRAM: not joined, this is one projection of it) marked (without resources: cycles per
# point). Variables (gnuplot -e): datafile (sweep.dat: point
# config cycles lut dsp bram36 pareto), outfile, term (pngcairo, png or svg), hasres (1: LUTs
# known), backend, part.
if (term eq 'svg') { set terminal svg size 1000,650 dynamic font 'Sans,12' } \
else { if (term eq 'pngcairo') { set terminal pngcairo size 1000,650 font 'Sans,11' } \
       else { set terminal png size 1000,650 } }
set output outfile
set grid lc rgb '#dddddd'
set key top right
set ylabel sprintf("cycles (all models, one inference each, %s)", backend)
set format y "%.0f"
if (hasres) {
  set title sprintf("ovta sweep: cycles against LUTs (Yosys, %s); Pareto front on cycles, LUT, DSP, BRAM", part)
  set xlabel "LUT"
  set offsets graph 0.12, graph 0.12, graph 0.12, graph 0.08
  plot datafile using 4:3 with points pt 7 ps 1.2 lc rgb '#7f8c8d' title 'design point', \
       '< grep -v "^#" '.datafile.' | awk "\$7 == 1"' using 4:3 with points pt 7 ps 1.8 \
         lc rgb '#c0392b' title 'Pareto front', \
       datafile using 4:3:(sprintf("%d %s\n%.0f DSP %.1f BRAM", $1, strcol(2), $5, $6)) with labels offset 0,1.6 font ',8' notitle
} else {
  set title "ovta sweep: cycles per design point (no resource estimate)"
  set xlabel "point"
  set style fill solid 0.8 border -1
  set boxwidth 0.6
  set yrange [0:*]
  set xtics rotate by -40 left font ',8'
  plot datafile using 1:3:xtic(sprintf("%d %s", $1, strcol(2))) with boxes lc rgb '#2e86c1' title 'cycles', \
       '< grep -v "^#" '.datafile.' | awk "\$7 == 1"' using 1:3 with points pt 7 ps 1.6 lc rgb '#c0392b' title 'Pareto front'
}
