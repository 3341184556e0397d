# roofline.gp: the roofline of the accelerator layers profiled by `ovta profile --plots DIR`.
# Variables (gnuplot -e): datafile (layers.dat: k layer name intensity mac_per_cycle util% ...),
# outfile, term (pngcairo, png or svg), peak (MAC/cycle = BATCH*BLOCK_IN*BLOCK_OUT), bus (bytes
# per cycle = AXI_DATA_BITS/8), cfgname, nlayers.
# x: arithmetic intensity (MACs / DRAM bytes read and written), y: achieved MACs per cycle.
# Roofs: compute = peak; memory = bus * intensity.
if (term eq 'svg') { set terminal svg size 1000,700 dynamic font 'Sans,12' } \
else { if (term eq 'pngcairo') { set terminal pngcairo size 1200,800 font 'Sans,11' } \
       else { set terminal png size 1200,800 } }
set output outfile
set title sprintf("Roofline: ovta accelerator layers (config %s: %d MAC/cycle, %d bytes/cycle)", cfgname, peak, bus)
set xlabel "arithmetic intensity (MAC / DRAM byte)"
set ylabel "achieved MAC / cycle"
set logscale xy 2
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key top left box opaque
stats datafile using 4 nooutput
xmin = STATS_min / 2.0; xmax = STATS_max * 2.0
ridge = peak * 1.0 / bus
if (xmin > ridge / 4.0) { xmin = ridge / 4.0 }
if (xmax < ridge * 4.0) { xmax = ridge * 4.0 }
set xrange [xmin:xmax]
stats datafile using 5 nooutput
ymin = STATS_min / 2.0
if (ymin > bus * xmin) { ymin = bus * xmin }
set yrange [ymin:peak * 2.0]
roof(x) = (bus * x < peak) ? bus * x : peak
set samples 400
set arrow from ridge, graph 0 to ridge, peak nohead dt 3 lc rgb '#888888'
set label sprintf("compute roof %d MAC/cycle", peak) at xmax / 1.5, peak * 1.15 right
set label sprintf("memory roof %d B/cycle", bus) at ridge / 6.0, bus * ridge / 6.0 * 1.4 rotate by 30
plot roof(x) with lines lw 3 lc rgb '#444444' title "roofline", \
     datafile using 4:5 with points pt 7 ps 1.4 lc rgb '#c0392b' title "layers (label: row # of the profile)", \
     datafile using 4:5:(sprintf("%d", $2)) with labels offset 0.9,0.6 font ',9' notitle
