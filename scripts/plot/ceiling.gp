# ceiling: the storage ceiling over time: read bandwidth and requests per interval (whole
# job, summed over ranks by gpufeed) and the mean read latency per interval, with the
# phase's mean bandwidth and p99 latency, so that a reviewer sees whether the figure is
# a steady state or a transient.
#
# Reads:  ARG2 = plots/ceiling.csv (as timeline.csv)
# Strings: ARG6 bandwidth unit, ARG7 latency unit, ARG8 the verdict line ("feeds N ...").
# Variables: t_end (s), bw_div, lat_div (us per unit), mean_rate (bytes/s), p99_us,
#   has_lat (0/1: the series holds latencies).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
bw_unit = ARG6
lat_unit = ARG7
verdict = ARG8

set xrange [0:t_end > 0 ? t_end : 1]
# Each panel's top (with the head room for its key), for its tick step.
stats data using (column("read_bytes_per_s") / bw_div) nooutput
bw_top = (STATS_max > mean_rate / bw_div ? STATS_max : mean_rate / bw_div) * 1.35
stats data using "requests_per_s" nooutput
req_top = STATS_max * 1.35
lat_top = 1
if (has_lat > 0) {
	stats data using (column("read_latency_mean_us") / lat_div) nooutput
	lat_top = (STATS_max > p99_us / lat_div ? STATS_max : p99_us / lat_div) * 1.35
}
do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout (has_lat > 0 ? 3 : 2), 1 title "Storage ceiling\n" . verdict . "\n" . title font ",18" \
		margins 0.10, 0.96, 0.12, 0.78 spacing 0, 0.065
	set title "read bandwidth, whole job (sum over ranks)" offset 0, -0.6
	set ylabel "read (" . bw_unit . ")"
	set format x ""
	set xlabel ""
	set yrange [0:*]
	set offsets 0, 0, graph 0.35, 0
	set key top right horizontal opaque box lc rgb "#c0c0c0"
	set ytics 0, tick_step(bw_top)
	plot data using "t_mid_s":(column("read_bytes_per_s") / bw_div) with linespoints lw 2 pt 7 ps 0.8 \
			lc rgb c_blue title "read", \
		mean_rate / bw_div with lines dt 2 lw 2 lc rgb c_grey title "mean over the phase"
	set title "read requests completed, whole job"
	set ylabel "requests/s"
	if (has_lat == 0) {
		set format x "%g"
		set xlabel "time since the ceiling phase started (s)"
	}
	unset key
	set ytics 0, tick_step(req_top)
	plot data using "t_mid_s":"requests_per_s" with linespoints lw 2 pt 7 ps 0.8 lc rgb c_green notitle
	if (has_lat > 0) {
		set title "read latency, mean of the interval's requests"
		set ylabel "latency (" . lat_unit . ")"
		set format x "%g"
		set xlabel "time since the ceiling phase started (s)"
		set key top right horizontal opaque box lc rgb "#c0c0c0"
		set ytics 0, tick_step(lat_top)
		plot data using "t_mid_s":(column("read_latency_mean_us") / lat_div) with linespoints lw 2 pt 7 ps 0.8 \
				lc rgb c_purple title "mean", \
			p99_us / lat_div with lines dt 2 lw 2 lc rgb c_red title "p99 over the phase"
	}
	set ytics autofreq
	unset multiplot
	unset output
}
