# sweep: what gpufeed sweep measured. Top: AU (mean, with the range over accelerators)
# at each point against the threshold; bottom: samples/s delivered at each point. Searching
# the count, x is the number of accelerators, each point labelled with its exact count
# (counts the ranks cannot split evenly are measured too), the largest passing count marked;
# with --vary, x is the point in the order measured, labelled with its value.
#
# Reads:  ARG2 = plots/sweep.csv (order, accelerators, value, au_mean_percent,
#   au_min_percent, au_max_percent, samples_per_s, passed, label: the count, with its
#   split when the ranks hold different counts, "7 (1x4 + 1x3)"), written from
#   summary.json's sweep.points in order.
# Strings: ARG6 the answer line ("feeds N x h100 ..." or "best KEY: V"), ARG7 the --vary key.
# Variables: threshold (AU %), answer (accelerators fed, 0 = none), vary (0/1), npoints,
#   x_lo, x_hi (the x range: one point alone has none).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
answer_line = ARG6
vary_key = ARG7

# Points in order of count (the search measures out of order): "smooth unique" sorts by x.
xcol = vary > 0 ? "order" : "accelerators"
# A count is whole: ticks 1, 2 or 5 x 10^k apart, never below 1.
x_step = tick_step(x_hi - x_lo) < 1 ? 1 : tick_step(x_hi - x_lo)
stats data using "samples_per_s" nooutput
smp_top = STATS_max * 1.15
do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout 2, 1 title "Sweep: accelerators fed, measured\n" . answer_line . "\n" . title \
		font ",18" margins 0.12, 0.96, 0.12, 0.80 spacing 0, 0.08
	# AU sits near 100% at the passing points: the key goes below them.
	set key bottom left vertical opaque box lc rgb "#c0c0c0"
	set yrange [0:110]
	set ylabel "AU (%)"
	set xlabel ""
	set xrange [x_lo:x_hi]
	if (vary > 0) {
		set xtics 1
		set format x ""
		plot data using (column(xcol)):"au_mean_percent":"au_min_percent":"au_max_percent" \
				with yerrorlines lw 2 pt 7 ps 1.2 lc rgb c_blue title "AU mean (min..max over accelerators)", \
			threshold with lines dt 2 lw 2 lc rgb c_red title "threshold"
	} else {
		set xtics 0, x_step
		set format x "%g"
		set arrow 1 from answer, graph 0 to answer, graph 1 nohead dt 3 lw 2 lc rgb c_green
		plot data using (column(xcol)):"au_mean_percent" smooth unique with lines lw 1 lc rgb c_grey notitle, \
			data using (column(xcol)):"au_mean_percent":"au_min_percent":"au_max_percent" \
				with yerrorbars lw 2 pt 7 ps 1.2 lc rgb c_blue title "AU mean (min..max over accelerators)", \
			data using (column(xcol)):"au_mean_percent":(stringcolumn("label")) \
				with labels left offset char 1, char 0.7 tc rgb c_blue notitle, \
			threshold with lines dt 2 lw 2 lc rgb c_red title "threshold", \
			NaN with lines dt 3 lw 2 lc rgb c_green title "largest passing count"
		unset arrow 1
	}
	set yrange [0:*]
	set ytics 0, tick_step(smp_top)
	set ylabel "samples/s"
	unset key
	if (vary > 0) {
		set xlabel vary_key . " (in the order measured)" noenhanced
		plot data using (column(xcol)):"samples_per_s":xticlabels(stringcolumn("value")) \
			with linespoints lw 2 pt 7 ps 1.2 lc rgb c_green notitle
	} else {
		set xlabel "emulated accelerators"
		plot data using (column(xcol)):"samples_per_s" smooth unique with linespoints lw 2 pt 7 ps 1.2 \
			lc rgb c_green notitle
	}
	unset multiplot
	unset output
}
