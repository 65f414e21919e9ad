# simulate: what gpufeed simulate predicts against the number of client nodes: checkpoint
# burst times (left) and accelerator utilisation and goodput (right).
#
# Reads:  DATA, the sweep.csv of a simulate results folder (columns by name, see
#         docs/simulate.md)
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

set logscale x 2
set xlabel "client nodes"
set key top left Left reverse opaque box lc rgb "#c0c0c0"
set offsets graph 0.05, graph 0.05, 0, 0
panels = ckpt + 1

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout 1, panels title "gpufeed simulate\n" . title font ",20" margins 0.08, 0.97, 0.14, 0.84 spacing 0.09, 0
	if (ckpt) {
		set title "checkpoint burst (slowest rank)"
		set ylabel "seconds (log scale)"
		set logscale y
		set yrange [*:*]
		set format y "%g"
		if (reads) {
			plot data using "nodes":"write_burst_s" with linespoints lw 2 pt 7 lc rgb c_blue title "write, training halted", \
				data using "nodes":"restore_burst_s" with linespoints lw 2 pt 6 dt 2 lc rgb c_orange title "restore", \
				data using "nodes":"async_burst_s" with linespoints lw 2 pt 5 lc rgb c_purple title "write while training reads"
		} else {
			plot data using "nodes":"write_burst_s" with linespoints lw 2 pt 7 lc rgb c_blue title "write", \
				data using "nodes":"restore_burst_s" with linespoints lw 2 pt 6 dt 2 lc rgb c_orange title "restore"
		}
		unset logscale y
		set key top left
	}
	set title (reads ? "accelerator utilisation and goodput" : "goodput under failures")
	set ylabel "%"
	set yrange [0:105]
	set key bottom left
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
	unset multiplot
	unset output
}
