# latency: percentile curve of request latency per phase (p50 to p99.99) from the merged
# histograms, latency on a log scale in a unit that fits (us, ms or s), each phase's p99
# marked on its curve and written in the key (labels beside the curves ran into each
# other when two phases had a similar p99).
#
# Reads:  ARG2 = plots/latency.csv (phase: 1-based index, nines, latency_us)
#         ARG7 = plots/latency_phases.csv (phase name, p99_us, max_us)
# Strings: ARG6 the latency unit ("us", "ms", "s").
# Variables: np (phases), lat_div (us per axis unit).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
unit = ARG6
phases = ARG7

array pname[np > 0 ? np : 1]
array p99[np > 0 ? np : 1]
array pmax[np > 0 ? np : 1]
stats phases using (i = int($0) + 1, pname[i] = strcol("phase"), p99[i] = column("p99_us") / lat_div, \
	pmax[i] = column("max_us") / lat_div, 0) nooutput

# The x axis counts "nines": p50 = 0.3, p90 = 1, p99 = 2, p99.9 = 3, p99.99 = 4, so the
# tail gets as much room as the median.
set xrange [log10(2.0):4.0]
set xtics ("p50" log10(2.0), "p75" log10(4.0), "p90" 1, "p99" 2, "p99.9" 3, "p99.99" 4)
set logscale y
# Plain numbers on the axis (never 2.684e+06): the unit keeps them small, and 6 digits
# write a decade up to 100000 plainly ("%.4g" gave "1e+04" for 10000 under load).
set format y "%.6g"
set ylabel "request latency (" . unit . ", log scale)"
set xlabel "percentile (share of requests that took at most this long)"
set key top left Left reverse opaque box lc rgb "#c0c0c0" noenhanced
colours = c_blue . " " . c_red . " " . c_green . " " . c_purple . " " . c_orange . " " . c_sky

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set title "Request latency by percentile\n" . title font ",20"
	set arrow 1 from 2, graph 0 to 2, graph 1 nohead dt 2 lw 1.5 lc rgb c_grey back
	do for [i=1:np] {
		if (p99[i] == p99[i]) {
			set object 10 + i circle at 2, p99[i] size char 0.4 front fillcolor rgb word(colours, i) \
				fillstyle solid noborder
		}
	}
	plot for [i=1:np] data using (column("phase") == i ? column("nines") : NaN):(column("latency_us") / lat_div) \
		with lines lw 2.5 lc rgb word(colours, i) \
		title (p99[i] == p99[i] ? sprintf("%s: p99 %.4g %s (dot), max %.4g %s", pname[i], p99[i], unit, pmax[i], unit) \
			: sprintf("%s: max %.4g %s", pname[i], pmax[i], unit))
	unset output
}
