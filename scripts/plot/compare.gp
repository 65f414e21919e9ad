# compare: the key figures of several runs, one small panel per kind of figure (AU,
# bandwidth, latency, ...), absolute values in the panel's unit, the runs side by side as
# bars named by their labels, and, when a regression check was asked for, the band of
# the baseline within the tolerance behind each figure's bars.
#
# Reads:  ARG2 = the figures (panel, x, label, band_lo, band_hi, one column per run named
#         by the run; values in the panel's unit; written by gpufeed compare)
#         in one block per panel (each with the header), for gnuplot's index
#         ARG6 = the panels (panel, title, unit, figures, log: 1 for a log y axis)
# Variables: nruns, ng (panels), tol (percent), check (0/1: draw the band), base (the
#   baseline's run, 0-based).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
panels = ARG6

array ptitle[ng]
array punit[ng]
array pn[ng]
array plog[ng]
stats panels using (i = int($0) + 1, ptitle[i] = strcol("title"), punit[i] = strcol("unit"), \
	pn[i] = column("figures"), plog[i] = column("log"), 0) nooutput

# ng comes as a float (gf_plot_var_num): cols must be an integer for the % below.
cols = ng <= 2 ? int(ng) : (ng <= 4 ? 2 : 3)
# A level label past 14 characters on two lines, split at its first space after the 8th:
# "checkpoint write bandwidth" and "checkpoint restore bandwidth" side by side ran together.
cut(s) = strstrt(s[9:], " ")
wrap(s) = strlen(s) > 14 && cut(s) > 0 ? s[1:8 + cut(s) - 1] . "\n" . s[8 + cut(s) + 1:] : s
rows = ceil(ng / (cols + 0.0))
w = 0.8 / nruns
colours = c_blue . " " . c_orange . " " . c_green . " " . c_purple . " " . c_sky . " " . c_red . " " . c_grey
set style fill solid 0.85 noborder
set boxwidth w absolute
set grid noxtics ytics
set xtics scale 0 noenhanced

do for [fmt in formats] {
	load script_dir . "/term.gp"
	# The panels in rows and columns under the key, which gets a row of its own across the
	# whole width: a panel's key is no wider than its panel (and in the first one, it took
	# the panel's head room).
	set multiplot title "Run comparison\n" . title font ",18"
	pw = 1.0 / cols
	ph = 0.81 / rows
	unset key
	do for [g=1:ng] {
		set origin ((g - 1) % cols) * pw, 0.81 - ((g - 1) / cols + 1) * ph
		set size pw, ph
		set title ptitle[g] . " (" . punit[g] . ")" noenhanced
		if (plog[g] > 0) {
			set logscale y
			set yrange [*:*]
			set format y "%g"
			set ytics autofreq
			set offsets 0, 0, graph 0.12, 0
		} else {
			unset logscale y
			# Up to a little above the highest bar or band (an AU panel ends near 110%, not
			# at the next tick), with at most about 5 ticks: a short panel's labels never touch.
			top = 0
			set autoscale xy
			do for [c=4:5 + nruns] {
				stats data index (g - 1) using (valid(c) ? column(c) : 0) nooutput
				top = STATS_max > top ? STATS_max : top
			}
			set offsets 0, 0, 0, 0
			set yrange [0:(top > 0 ? top * 1.12 : 1)]
			set ytics 0, tick_step(top * 1.12)
			# A percent (AU, goodput) never runs past 100: its axis stops there.
			if (punit[g] eq "%") {
				set yrange [0:100]
				set ytics 0, 25, 100
			}
		}
		set xrange [-0.6:pn[g] - 0.4]
		# Room under the axis for a label on two lines (the automatic margin counts one).
		if (pn[g] > 3) { set xtics rotate by 20 right; unset bmargin } else { set xtics norotate center; set bmargin 4 }
		if (check > 0) {
			plot data index (g - 1) using "x":(column(6 + base)):xticlabels(pn[g] > 3 ? strcol("label") : wrap(strcol("label"))) with points ps 0 notitle, \
				data index (g - 1) using "x":"band_lo":(column("x") - 0.45):(column("x") + 0.45):"band_lo":"band_hi" \
					with boxxyerror fs solid 0.35 noborder lc rgb "#9a9a9a" notitle, \
				for [r=1:nruns] data index (g - 1) using (column("x") + (r - (nruns + 1) / 2.0) * w):(column(5 + r)) \
					with boxes lc rgb word(colours, (r - 1) % 7 + 1) notitle
		} else {
			plot data index (g - 1) using "x":(column(6 + base)):xticlabels(pn[g] > 3 ? strcol("label") : wrap(strcol("label"))) with points ps 0 notitle, \
				for [r=1:nruns] data index (g - 1) using (column("x") + (r - (nruns + 1) / 2.0) * w):(column(5 + r)) \
					with boxes lc rgb word(colours, (r - 1) % 7 + 1) notitle
		}
	}
	# The key: the band and the runs named as in the data's header; the points lie outside
	# the range, so only the key is drawn.
	set origin 0, 0.81
	set size 1, 0.09
	unset bmargin
	unset title
	unset border
	unset tics
	unset grid
	unset logscale y
	unset xlabel
	unset ylabel
	set xrange [0:1]
	set yrange [0:1]
	set key center center horizontal Left reverse noopaque nobox noenhanced
	plot for [i=1:check] NaN with boxes fs solid 0.35 noborder lc rgb "#9a9a9a" title sprintf("baseline within %g%%", tol), \
		for [r=1:nruns] data index 0 using (2):(0) with boxes lc rgb word(colours, (r - 1) % 7 + 1) title columnhead(5 + r)
	unset multiplot
	unset output
}
