# timeline: read bandwidth, samples/s and AU per interval of the training phase, for the
# whole job (summed over ranks by gpufeed, never one line per rank), checkpoint bursts
# shaded and numbered as in the CSV files (0-based).
#
# Reads:  ARG2 = plots/timeline.csv (t_s, width_s, t_mid_s, read_bytes_per_s,
#         samples_per_s, au_percent: summed over ranks, AU with checkpoint halts out, an
#         interval halted all through left empty; see results/README.md)
#         ARG7 = plots/timeline_bursts.csv (start_s, end_s, label)
# Strings: ARG6 the bandwidth unit ("MB/s"), ARG8 a note for a run that failed or was
#   interrupted, or that has one interval only ("" when none).
# Variables: t_end (s), iv (interval, s), threshold (AU %, 0 = none), demand (bytes/s of
#   all accelerators, 0 = unbounded), bw_div (bytes/s per axis unit), nspans (bursts),
#   has_au (0/1), exclude_steps (steps per epoch left out of AU), dropped_last (0/1).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
bw_unit = ARG6
spans = ARG7
status_note = ARG8
# A long note (an error with a path) goes on two lines, the error (cut by plot.c to fit
# a line) on the second, and the panels move down for it.
status_cut = strstrt(status_note, " (")
status_2 = strlen(status_note) > 100 && status_cut > 0
if (status_2) {
	status_note = status_note[1:status_cut - 1] . "\n" . status_note[status_cut + 1:]
}

# The bursts, read as data: start, end, label.
array bs[nspans > 0 ? nspans : 1]
array be[nspans > 0 ? nspans : 1]
array bl[nspans > 0 ? nspans : 1]
if (nspans > 0) {
	stats spans using (i = int($0) + 1, bs[i] = column("start_s"), be[i] = column("end_s"), \
		bl[i] = strcol("label"), 0) nooutput
}
# The x label says when the last part of the phase, under a fifth of an interval, is not drawn.
xlabel_text = "time since the training phase started (s)" . (dropped_last > 0 ? \
	sprintf("; its last %.2f s (under a fifth of an interval) is not drawn", t_end - floor(t_end / iv) * iv) : "")
# At most about 10 burst labels, so that they never collide.
label_every = nspans > 10 ? ceil(nspans / 10.0) : 1

set xrange [0:t_end > 0 ? t_end : iv]
# Each panel's top (with the head room for its key), for its tick step.
stats data using (column("read_bytes_per_s") / bw_div) nooutput
bw_top = (STATS_max > demand / bw_div ? STATS_max : demand / bw_div) * 1.35
stats data using "samples_per_s" nooutput
smp_top = STATS_max * 1.3
do for [i=1:nspans] {
	set object i rectangle from bs[i], graph 0 to be[i], graph 1 \
		behind fillcolor rgb c_yellow fillstyle solid 0.45 noborder
}

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout (has_au > 0 ? 3 : 2), 1 title "Training timeline\n" . title font ",20" \
		margins 0.10, 0.96, 0.12, (status_2 ? 0.76 : 0.83) spacing 0, 0.065
	if (status_note ne "") {
		set label 98 status_note at screen 0.5, screen (status_2 ? 0.865 : 0.893) center front noenhanced \
			textcolor rgb c_red
	}
	# Read bandwidth.
	set title "read bandwidth, whole job (sum over ranks)" offset 0, -0.6
	# Short: a panel is a third of the height.
	set ylabel "read (" . bw_unit . ")"
	set format x ""
	set xlabel ""
	# Head room above the data for the key, so that it never hides a point.
	set yrange [0:*]
	set offsets 0, 0, graph 0.35, 0
	set key top right horizontal opaque box lc rgb "#c0c0c0"
	set ytics 0, tick_step(bw_top)
	if (demand > 0) {
		plot data using "t_mid_s":(column("read_bytes_per_s") / bw_div) \
			with linespoints lw 2 pt 7 ps 0.8 lc rgb c_blue title "read", \
			demand / bw_div with lines dt 2 lw 2 lc rgb c_red title "demand of all accelerators"
	} else {
		plot data using "t_mid_s":(column("read_bytes_per_s") / bw_div) \
			with linespoints lw 2 pt 7 ps 0.8 lc rgb c_blue title "read"
	}
	# Drawn once, with the first panel, not again under each.
	unset label 98
	# Samples per second; the bursts are named in this panel, the one without a key.
	set title "samples the accelerators took, whole job"
	set offsets 0, 0, graph 0.3, 0
	do for [i=1:nspans] {
		if ((i - 1) % label_every == 0) {
			set label 100 + i bl[i] at (bs[i] + be[i]) / 2.0, graph 0.88 center front
		}
	}
	set ylabel "samples/s"
	unset key
	if (has_au == 0) {
		set format x "%g"
		set xlabel xlabel_text
	}
	set ytics 0, tick_step(smp_top)
	plot data using "t_mid_s":"samples_per_s" with linespoints lw 2 pt 7 ps 0.8 lc rgb c_green notitle
	do for [i=1:nspans] { unset label 100 + i }
	if (has_au > 0) {
		# AU in summary.json leaves out the first steps of each epoch, as DLIO does
		# (dlio_benchmark utils/statscounter.py:86, metric_exclude_start_steps); this
		# panel counts every step, so its start may dip where the figure does not.
		set title sprintf("AU of all accelerators, checkpoint halts left out as in summary.json (which also leaves out the first %d steps of each epoch)", \
			int(exclude_steps))
		set ylabel "AU (%)"
		set format x "%g"
		set xlabel xlabel_text
		set offsets 0, 0, 0, 0
		set yrange [0:135]
		set ytics 0, 50, 100
		set key top right horizontal opaque box lc rgb "#c0c0c0"
		if (threshold > 0) {
			plot data using "t_mid_s":"au_percent" with linespoints lw 2 pt 7 ps 0.8 lc rgb c_purple title "AU", \
				threshold with lines dt 2 lw 2 lc rgb c_red title sprintf("threshold %g%%", threshold)
		} else {
			plot data using "t_mid_s":"au_percent" with linespoints lw 2 pt 7 ps 0.8 lc rgb c_purple title "AU"
		}
		set ytics autofreq
	}
	unset label 98
	unset multiplot
	unset output
}
