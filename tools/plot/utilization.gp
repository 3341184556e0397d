# utilization.gp: per-layer MAC utilization of the accelerator layers (`ovta profile --plots DIR`).
# Variables (gnuplot -e): datafile (layers.dat: k layer name intensity mac_per_cycle util% ...),
# outfile, term (pngcairo, png or svg), peak, bus, cfgname, nlayers.
w = 400 + nlayers * 28
if (w < 900) { w = 900 }
if (term eq 'svg') { set terminal svg size w,700 dynamic font 'Sans,12' } \
else { if (term eq 'pngcairo') { set terminal pngcairo size w,800 font 'Sans,11' } \
       else { set terminal png size w,800 } }
set output outfile
set title sprintf("MAC utilization per accelerator layer (config %s, %d MAC/cycle peak)", cfgname, peak)
set ylabel "utilization (% of peak MAC/cycle)"
set yrange [0:100]
set grid ytics lc rgb '#dddddd'
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -50 left font ',8' nomirror
set bmargin 14
set rmargin 10
set key off
plot datafile using 1:6:xtic(sprintf("%d %s", $2, strcol(3))) with boxes lc rgb '#2e86c1', \
     datafile using 1:6:(sprintf("%.0f", $6)) with labels offset 0,0.7 font ',8'
