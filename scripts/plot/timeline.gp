# timeline: read bandwidth, samples/s and AU per interval of the training phase, summed
# (bandwidth, samples/s) or averaged (AU) over all ranks, with checkpoint bursts shaded.
#
# Reads:  dir/timeseries.csv (see results/README.md)
# Writes: out.png, out.svg
# Variables (gnuplot -e): dir, out, title, iv (interval, s), t_end (end of the phase, s),
#   per_rank (accelerators per rank), threshold (AU %, 0 = none), demand (bytes/s the
#   accelerators need, 0 = unbounded), bw_div and bw_unit (bytes/s -> axis unit),
#   bs and be (checkpoint burst start and end times in s, space separated, may be "").
load script_dir . "/common.gp"
if (!exists("bs")) bs = ""
if (!exists("be")) be = ""
if (!exists("bw_div")) bw_div = 1e6
if (!exists("bw_unit")) bw_unit = "MB/s"
file = dir . "/timeseries.csv"
# Integers from the command line would make gnuplot divide as integers.
iv = iv + 0.0
t_end = t_end + 0.0

# The last interval is usually cut short by the end of the phase: rates divide by the part
# of the interval that the phase lasted, so the run does not seem to slow down at its end.
# Slivers under a fifth of an interval are left out, too short to say anything, except
# when the whole phase was one: then it is all there is.
width(t) = (t_end - t < iv) ? (t_end - t) : iv
keep(t) = width(t) > 0 && (width(t) >= 0.2 * iv || t == 0)
xmid(t) = keep(t) ? t + width(t) / 2.0 : NaN

set xrange [0:t_end > 0 ? t_end : iv]
set lmargin at screen 0.10
set rmargin at screen 0.96

nb = words(bs)
do for [i=1:nb] {
	set object i rectangle from word(bs, i) + 0, graph 0 to word(be, i) + 0, graph 1 \
		behind fillcolor rgb c_yellow fillstyle solid 0.45 noborder
}

do for [fmt in formats] {
	eval term_cmd(fmt)
	set multiplot layout 3, 1 title "Training timeline\n" . title font ",20" margins 0.10, 0.96, 0.12, 0.87 spacing 0, 0.065
	# Read bandwidth.
	set title "read bandwidth (sum over ranks)" offset 0, -0.6
	set ylabel "read bandwidth (" . bw_unit . ")"
	set format x ""
	set xlabel ""
	# Head room above the data for the key, so that it never hides a point.
	set yrange [0:*]
	set offsets 0, 0, graph 0.35, 0
	set key top right horizontal opaque box lc rgb "#c0c0c0"
	if (demand > 0) {
		plot file using (xmid(column("t_s"))):(column("read_bytes") / width(column("t_s")) / bw_div) \
			smooth frequency with linespoints lw 2 pt 7 ps 0.8 lc rgb c_blue title "read", \
			demand / bw_div with lines dt 2 lw 2 lc rgb c_red title "demand of all accelerators"
	} else {
		plot file using (xmid(column("t_s"))):(column("read_bytes") / width(column("t_s")) / bw_div) \
			smooth frequency with linespoints lw 2 pt 7 ps 0.8 lc rgb c_blue title "read"
	}
	# Samples per second.
	set title "samples consumed (sum over ranks)"
	# The bursts are named in this panel, the one without a key, above the data.
	set offsets 0, 0, graph 0.3, 0
	do for [i=1:nb] {
		set label 100 + i sprintf("checkpoint %d", i) at (word(bs, i) + word(be, i)) / 2.0, graph 0.88 \
			center front font ",14"
	}
	set ylabel "samples/s"
	unset key
	plot file using (xmid(column("t_s"))):(column("samples") / width(column("t_s"))) \
		smooth frequency with linespoints lw 2 pt 7 ps 0.8 lc rgb c_green notitle
	do for [i=1:nb] { unset label 100 + i }
	# AU.
	set title "accelerator utilisation (mean over accelerators)"
	set ylabel "AU (%)"
	set format x "%g"
	set xlabel "time since the training phase started (s)"
	set offsets 0, 0, 0, 0
	set yrange [0:135]
	set ytics 0, 20, 100
	set key top right horizontal opaque box lc rgb "#c0c0c0"
	if (threshold > 0) {
		plot file using (xmid(column("t_s"))):(100.0 * column("compute_s") / (width(column("t_s")) * per_rank)) \
			smooth unique with linespoints lw 2 pt 7 ps 0.8 lc rgb c_purple title "AU", \
			threshold with lines dt 2 lw 2 lc rgb c_red title sprintf("threshold %g%%", threshold)
	} else {
		plot file using (xmid(column("t_s"))):(100.0 * column("compute_s") / (width(column("t_s")) * per_rank)) \
			smooth unique with linespoints lw 2 pt 7 ps 0.8 lc rgb c_purple title "AU"
	}
	unset multiplot
	unset output
}
