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

cols = ng <= 2 ? ng : (ng <= 4 ? 2 : 3)
rows = ceil(ng / (cols + 0.0))
w = 0.8 / nruns
colours = c_blue . " " . c_orange . " " . c_green . " " . c_purple . " " . c_sky . " " . c_red . " " . c_grey
set style fill solid 0.85 noborder
set boxwidth w absolute
set grid noxtics ytics
set xtics scale 0 noenhanced

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout rows, cols title "Run comparison\n" . title font ",18" margins 0.07, 0.98, 0.14, 0.8 spacing 0.07, 0.2
	do for [g=1:ng] {
		set title ptitle[g] . " (" . punit[g] . ")" noenhanced
		set xrange [-0.6:pn[g] - 0.4]
		if (plog[g] > 0) {
			set logscale y
			set yrange [*:*]
			set format y "%g"
		} else {
			unset logscale y
			set yrange [0:*]
		}
		# A percent (AU, goodput) never runs past 100: its axis stops there.
		if (punit[g] eq "%") {
			set yrange [0:100]
			set ytics 0, 25, 100
		} else {
			set ytics autofreq
		}
		set offsets 0, 0, graph (punit[g] eq "%" ? 0 : 0.12), 0
		# Several names under a panel lean, so that they never run into each other.
		if (pn[g] > 1) { set xtics rotate by 25 right font ",11" } else { set xtics norotate center font ",12" }
		# The runs' key once, above the panels, where it covers no bar.
		if (g == 1) {
			set key at screen 0.5, screen 0.905 center top horizontal Left reverse opaque box lc rgb "#c0c0c0" \
				noenhanced font ",11" maxrows 2
		} else {
			unset key
		}
		if (check > 0) {
			plot data index (g - 1) using "x":(column(6 + base)):xticlabels(strcol("label")) with points ps 0 notitle, \
				data index (g - 1) using "x":"band_lo":(column("x") - 0.45):(column("x") + 0.45):"band_lo":"band_hi" \
					with boxxyerror fs solid 0.35 noborder lc rgb "#9a9a9a" title sprintf("baseline within %g%%", tol), \
				for [r=1:nruns] data index (g - 1) using (column("x") + (r - (nruns + 1) / 2.0) * w):(column(5 + r)) \
					with boxes lc rgb word(colours, (r - 1) % 7 + 1) title columnhead(5 + r)
		} else {
			plot data index (g - 1) using "x":(column(6 + base)):xticlabels(strcol("label")) with points ps 0 notitle, \
				for [r=1:nruns] data index (g - 1) using (column("x") + (r - (nruns + 1) / 2.0) * w):(column(5 + r)) \
					with boxes lc rgb word(colours, (r - 1) % 7 + 1) title columnhead(5 + r)
		}
	}
	unset multiplot
	unset output
}
