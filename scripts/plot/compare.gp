# compare: the key figures of several runs as bars, each in percent of the baseline run
# (100% = the baseline), so that figures with different units share one axis.
#
# Reads:  data (CSV written by gpufeed compare: figure,<run>,<run>...; values in % of the
#         baseline)
# Writes: out.png and/or out.svg (formats)
# Variables (gnuplot -e): data, out, title, formats, nruns, nfig.
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
set datafile columnheaders

set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.85 noborder
set boxwidth 0.9 relative
# A log scale: halving and doubling are the same distance from 100%, and a figure that
# moved a hundredfold does not flatten all the others.
set logscale y
set yrange [*:*]
set ylabel "% of the baseline (log scale; 100% = same)"
set xtics rotate by 25 right noenhanced scale 0
set grid noxtics ytics
set key top left vertical Left reverse opaque box lc rgb "#c0c0c0" noenhanced
set format y "%.0f%%"
set rmargin 4
set offsets 0, 0, graph 0.3, 0
colours = c_grey . " " . c_blue . " " . c_orange . " " . c_green . " " . c_purple . " " . c_sky . " " . c_red

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set title "Run comparison: figures in % of the baseline\n" . title font ",20"
	set bmargin 9
	plot for [r=2:nruns + 1] data using r:xtic(1) lc rgb word(colours, (r - 2) % 7 + 1) title columnhead(r), \
		100 with lines dt 2 lw 1.5 lc rgb c_red title "baseline (100%)"
	unset output
}
