# latency: percentile curve of request latency per phase (p50 to p99.99) from the merged
# histogram, latency on a log scale, with each phase's p99 marked.
#
# Reads:  dir/latency.csv (see results/README.md)
# Writes: out.png, out.svg
# Variables (gnuplot -e): dir, out, title, phases (phase names in latency.csv, space
#   separated, e.g. "train_read ckpt_write").
load script_dir . "/common.gp"
file = dir . "/latency.csv"

# The x axis counts "nines": p50 = 0.3, p90 = 1, p99 = 2, p99.9 = 3, p99.99 = 4, so the
# tail gets as much room as the median. The last bucket (100%) would be infinitely far
# right: it is left out of the curve, and the maximum is named in the key instead.
xmax = 4.0
nines(p) = p >= 100 ? NaN : -log10(1.0 - p / 100.0)
in_phase(ph) = strcol("phase") eq ph

set xrange [log10(2.0):xmax]
set xtics ("p50" log10(2.0), "p75" log10(4.0), "p90" 1, "p99" 2, "p99.9" 3, "p99.99" 4)
set logscale y
set format y "%g"
set ylabel "request latency (µs, log scale)"
set xlabel "percentile (share of requests that took at most this long)"
set key top left Left reverse opaque box lc rgb "#c0c0c0" noenhanced
colours = c_blue . " " . c_red . " " . c_green . " " . c_purple . " " . c_orange . " " . c_sky

# Each phase's p99: the upper edge of the first bucket at or past 99% (the last bucket
# is at 100%, so every phase listed has one).
np = words(phases)
array p99[np > 0 ? np : 1]
array pmax[np > 0 ? np : 1]
do for [i=1:np] {
	ph = word(phases, i)
	stats file using (in_phase(ph) && column("cumulative_percent") >= 99 ? column("bucket_high_ns") / 1e3 : NaN) nooutput
	p99[i] = STATS_min
	stats file using (in_phase(ph) ? column("bucket_high_ns") / 1e3 : NaN) nooutput
	pmax[i] = STATS_max
}

do for [fmt in formats] {
	eval term_cmd(fmt)
	set title "Request latency by percentile\n" . title font ",20"
	set arrow 1 from 2, graph 0 to 2, graph 1 nohead dt 2 lw 1.5 lc rgb c_grey back
	do for [i=1:np] {
		if (p99[i] == p99[i]) {
			set label 10 + i sprintf("%s p99 = %.4g µs", word(phases, i), p99[i]) at 2, p99[i] \
				offset 0.8, -0.2 * (i - 1) - 0.7 left front textcolor rgb word(colours, i)
			set object 10 + i circle at 2, p99[i] size char 0.4 front fillcolor rgb word(colours, i) fillstyle solid noborder
		}
	}
	plot for [i=1:np] file using (in_phase(word(phases, i)) ? nines(column("cumulative_percent")) : NaN):(column("bucket_high_ns") / 1e3) \
		with lines lw 2.5 lc rgb word(colours, i) title sprintf("%s (max %.4g µs)", word(phases, i), pmax[i])
	unset output
}
