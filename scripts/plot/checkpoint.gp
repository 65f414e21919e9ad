# checkpoint: each checkpoint burst's time (the slowest rank, which ends the burst, with
# the median and the fastest rank that moved data) and its bandwidth, writes and restores
# apart. Bursts are numbered as in checkpoint_ranks.csv and summary.json (0-based).
#
# Reads:  ARG2 = plots/checkpoint.csv (burst, kind, label, checkpoint, restore, fastest_s,
#         median_s, slowest_s, bytes_per_s)
# Strings: ARG6 the bandwidth unit, ARG7 a note for a scaled checkpoint ("" when not).
# Variables: nb (bursts), bw_div (bytes/s per axis unit), has_bw (0/1).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
bw_unit = ARG6
scaled = ARG7

is_w(r) = column("restore") == r ? 1 : NaN
# Every burst keeps a tick label in a panel of about 650 px: the CSV's own ("write 3") up
# to 5 bursts, a short one ("w3", "r3") up to 14, turned upright beyond, and every k-th
# past 40 so that labels never collide. The bars carry their value up to 8 bursts, turned
# upright up to 40.
lstep = nb <= 40 ? 1 : int(ceil(nb / 40.0))
tic(l) = nb <= 5 ? l : (int(column("burst")) % lstep == 0 ? \
	sprintf("%s%d", strcol("kind")[1:1], int(column("checkpoint"))) : "")
set style fill solid 0.85 noborder

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout 1, (has_bw > 0 ? 2 : 1) title "Checkpoint bursts\n" . title font ",20" \
		margins 0.08, 0.97, 0.19, 0.80 spacing 0.09, 0
	if (scaled ne "") {
		set label 90 scaled at screen 0.5, screen 0.025 center front textcolor rgb c_red
	}
	set title "burst time: slowest rank (= the burst), median, fastest"
	set xlabel (nb > 5 ? "w(rite), r(estore) and checkpoint (0-based, as in the CSVs)" : "checkpoint (0-based, as in the CSV files)")
	set ylabel "burst start to data durable (s)"
	set xrange [-0.6:nb - 0.4]
	set yrange [0:*]
	# Head room for the key, so that it never hides a burst.
	set offsets 0, 0, graph 0.75, 0
	set key top left Left reverse opaque box lc rgb "#c0c0c0"
	if (nb > 14) { set xtics 1 rotate by 90 right } else { set xtics 1 norotate }
	plot data using "burst":(column("slowest_s") * is_w(0)):"fastest_s":"slowest_s":xticlabels(tic(strcol("label"))) \
			with yerrorbars lw 2 pt 7 ps 1.2 lc rgb c_blue title "write: slowest, bar to fastest", \
		data using "burst":(column("median_s") * is_w(0)) with points pt 6 ps 1.6 lc rgb c_blue title "write: median", \
		data using "burst":(column("slowest_s") * is_w(1)):"fastest_s":"slowest_s" \
			with yerrorbars lw 2 pt 5 ps 1.2 lc rgb c_orange title "restore: slowest, bar to fastest", \
		data using "burst":(column("median_s") * is_w(1)) with points pt 4 ps 1.6 lc rgb c_orange title "restore: median"
	unset label 90
	if (has_bw > 0) {
		set title "bandwidth: all bytes / the slowest rank's time"
		set ylabel "bandwidth (" . bw_unit . ")"
		set boxwidth 0.7 absolute
		set offsets 0, 0, graph 0.2, 0
		set key top right vertical
		plot data using "burst":(column("bytes_per_s") / bw_div * is_w(0)):xticlabels(tic(strcol("label"))) \
				with boxes lc rgb c_blue title "write", \
			data using "burst":(column("bytes_per_s") / bw_div * is_w(1)) with boxes lc rgb c_orange title "restore", \
			data using "burst":(column("bytes_per_s") / bw_div):(nb <= 8 ? sprintf("%.3g", column("bytes_per_s") / bw_div) : "") \
				with labels offset 0, 0.8 notitle, \
			data using "burst":(column("bytes_per_s") / bw_div):(nb > 8 && nb <= 40 ? sprintf(" %.3g", column("bytes_per_s") / bw_div) : "") \
				with labels rotate by 90 left notitle
	}
	unset multiplot
	unset label 90
	unset output
}
