# simulate: what gpufeed simulate predicts against the number of client nodes: checkpoint
# burst times (left) and accelerator utilisation and goodput (right), each panel marked
# with what limits its points (summary.json's write_limit and train.limit: the name over
# each run of points it binds, a dotted line where it changes).
#
# Reads:  DATA, the sweep.csv of a simulate results folder (columns by name, see
#         docs/simulate.md: limit is the write's when checkpoints were simulated,
#         read_limit the training reads')
# Writes: OUT.png and OUT.svg
# Arguments (gnuplot -c simulate.gp SCRIPT_DIR DATA OUT TITLE FORMATS WHAT): this script's folder,
#   the CSV, the output path without its extension, the title, the formats, and WHAT = the words
#   "checkpoint" and/or "train" for the parts that were simulated, and "standin" when some
#   point's AU is the steady state's standing in for a run that counts no step (sweep.csv's
#   au_from): those points are ringed. They arrive as
#   strings and are only used as data: no path or title is pasted into gnuplot code.
script_dir = ARG1
data = ARG2
out = ARG3
title = ARG4
formats = ARG5
what = ARG6
load script_dir . "/common.gp"
ckpt = strstrt(what, "checkpoint") > 0
reads = strstrt(what, "train") > 0
standin = strstrt(what, "standin") > 0

# The points' node counts and limits, as data.
stats data using "nodes" nooutput
npts = STATS_records
nmin = STATS_min
nmax = STATS_max
array nd[npts]
array wl[npts]
array rl[npts]
stats data using (i = int($0) + 1, nd[i] = column("nodes"), wl[i] = strcol("limit"), \
	rl[i] = strcol("read_limit"), 0) nooutput
lim_name(k) = k eq "rank_ceiling" ? "rank ceiling" : k eq "client_node" ? "client nodes" : \
	k eq "server_links" ? "server links" : k eq "object_requests" ? "object requests" : \
	k eq "burst_overhead" ? "burst overhead" : k eq "demand" ? "demand met" : k
# The limit of point i in the panel being drawn: which = "write" or "reads".
lim(i) = which eq "write" ? wl[i] : rl[i]
# mark: each limit named over the run of points it binds (centred between the run's
# bounds, above the panel), a dotted line between two runs (labels and arrows 40..);
# unmark takes them away. A run's bounds lie halfway (on the log axis) to its neighbours.
mark = "r0 = 1; do for [i=1:npts] { if (i == npts || lim(i) ne lim(i + 1)) { " . \
	"xa = r0 == 1 ? nd[1] : sqrt(nd[r0 - 1] * nd[r0]); xb = i == npts ? nd[npts] : sqrt(nd[i] * nd[i + 1]); " . \
	"set label 40 + i lim_name(lim(i)) at sqrt(xa * xb), graph 1 center offset 0, char 0.6 " . \
	"textcolor rgb c_grey noenhanced; " . \
	"if (i < npts) { set arrow 40 + i from xb, graph 0 to xb, graph 1 nohead dt 3 lw 1.5 lc rgb c_grey back }; " . \
	"r0 = i + 1 } }"
unmark = "do for [i=1:npts] { unset label 40 + i; unset arrow 40 + i }"

# Burst times in a unit that keeps them small (hours for a 405B model on few servers), on
# a log axis from the decade below the shortest to above the longest with room for the
# key; ticks at 1, 2 and 5 of each decade when the times span few decades.
if (ckpt) {
	mx(a, b) = (b == b && b > a) ? b : a
	mn(a, b) = (b == b && b > 0 && b < a) ? b : a
	stats data using (mx(mx(column("write_burst_s"), column("restore_burst_s")), column("async_burst_s"))) nooutput
	t_hi = STATS_max > 0 ? STATS_max : 1
	stats data using (mn(mn(column("write_burst_s"), column("restore_burst_s")), column("async_burst_s"))) nooutput
	t_lo = STATS_min > 0 ? STATS_min : t_hi / 10.0
	t_div = t_hi >= 7200 ? 3600 : t_hi >= 120 ? 60 : 1
	t_unit = t_div == 3600 ? "hours" : t_div == 60 ? "minutes" : "seconds"
	y_lo = 10.0 ** floor(log10(t_lo / t_div))
	t_span = log10(t_hi / t_div / y_lo)
	t_span = t_span < 1 ? 1 : t_span
	y_hi = 10.0 ** (log10(t_hi / t_div) + 0.45 * t_span)
}

# Node counts on a log 2 axis, written out (never 1e+04), every 2^k-th power of two so
# that at most about 8 labels share a panel's width.
set logscale x 2
xstep = 2 ** ceil(log(nmax / nmin + 1) / log(2) / 8)
set xtics 1, xstep format "%.0f"
set xlabel "client nodes"
set offsets graph 0.05, graph 0.05, 0, 0
panels = ckpt + 1

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout 1, panels title "gpufeed simulate\n" . title font ",20" margins 0.09, 0.97, 0.14, 0.76 spacing 0.1, 0
	if (ckpt) {
		set title "checkpoint burst (slowest rank) and its limit" offset 0, 1.2
		set ylabel t_unit . " (log scale)"
		set logscale y
		set yrange [y_lo:y_hi]
		set ytics y_lo, 10
		if (t_span < 2.5) {
			do for [k = int(floor(log10(y_lo))):int(ceil(log10(y_hi)))] {
				set ytics add (2 * 10.0 ** k, 5 * 10.0 ** k)
			}
		}
		# Plain numbers on a log axis: %g writes 10000 as 1e+04.
		set format y "%.6g"
		set offsets graph 0.05, graph 0.05, 0, 0
		set key top left Left reverse opaque box lc rgb "#c0c0c0"
		which = "write"
		eval mark
		if (reads) {
			plot data using "nodes":(column("write_burst_s") / t_div) with linespoints lw 2 pt 7 lc rgb c_blue \
					title "write, training halted", \
				data using "nodes":(column("restore_burst_s") / t_div) with linespoints lw 2 pt 6 dt 2 lc rgb c_orange \
					title "restore", \
				data using "nodes":(column("async_burst_s") / t_div) with linespoints lw 2 pt 5 lc rgb c_purple \
					title "write while training reads"
		} else {
			plot data using "nodes":(column("write_burst_s") / t_div) with linespoints lw 2 pt 7 lc rgb c_blue title "write", \
				data using "nodes":(column("restore_burst_s") / t_div) with linespoints lw 2 pt 6 dt 2 lc rgb c_orange \
					title "restore"
		}
		eval unmark
		unset logscale y
		set format y "%g"
		set ytics autofreq
	}
	set title (reads ? "AU and goodput, and the reads' limit" : "goodput under failures") offset 0, 1.2
	set ylabel "%"
	# Up to 100% and above it room for the key (the curves fall to 0 at the right).
	set offsets graph 0.05, graph 0.05, 0, 0
	set yrange [0:(reads && ckpt ? 150 : 125)]
	set ytics 0, 20, 100
	set key top left
	if (reads) {
		which = "reads"
		eval mark
	}
	if (reads && ckpt) {
		plot data using "nodes":"au_percent" with linespoints lw 2 pt 7 lc rgb c_green title "AU, reads alone", \
			data using "nodes":"async_au_percent" with linespoints lw 2 pt 5 lc rgb c_purple title "AU during an async burst", \
			data using "nodes":"goodput_sync_percent" with linespoints lw 2 pt 9 dt 2 lc rgb c_blue title "goodput, sync checkpoints", \
			data using "nodes":"goodput_async_percent" with linespoints lw 2 pt 11 dt 3 lc rgb c_red title "goodput, async checkpoints", \
			for [i = 1:standin] data using "nodes":(strcol("au_from") eq "steady_state" ? column("au_percent") : NaN) \
				with points pt 6 ps 3 lw 2 lc rgb "#000000" title "AU: steady state (no counted step)"
	}
	if (reads && !ckpt) {
		plot data using "nodes":"au_percent" with linespoints lw 2 pt 7 lc rgb c_green title "AU", \
			for [i = 1:standin] data using "nodes":(strcol("au_from") eq "steady_state" ? column("au_percent") : NaN) \
				with points pt 6 ps 3 lw 2 lc rgb "#000000" title "AU: steady state (no counted step)"
	}
	if (!reads) {
		plot data using "nodes":"goodput_sync_percent" with linespoints lw 2 pt 9 lc rgb c_blue title "goodput (Daly interval)"
	}
	eval unmark
	unset multiplot
	unset output
}
