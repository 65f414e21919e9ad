# accelerators: AU of every emulated accelerator, sorted from worst to best, with the
# threshold, so that a straggler rank stands out at the left.
#
# Reads:  ARG2 = plots/accelerators.csv (rank,au_percent: the counted accelerators of
#   ranks.csv, or their quantiles when they are more than a plot shows)
# Variables: threshold (AU %, 0 = none), mean_au (%), n_below (accelerators below the
#   threshold), n_all (accelerators counted; more than the rows when thinned).
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"

# Sort: "smooth unique" orders points by x. x is the AU plus a tiny multiple of the row
# number so that equal AUs stay apart; y carries the rank, so that the bars can be
# labelled with it. Accelerators whose AU was not counted (au_percent -1) are left out.
stats data using (column("au_percent") >= 0 ? column("au_percent") : NaN) nooutput
worst_au = STATS_min
# With one rank every y (the rank) is 0, with one accelerator there is one x (its AU): an
# empty range draws a warning, so both ranges start below what they hold.
set xrange [-1:*]
set yrange [-1:*]
set table $sorted
plot data using (column("au_percent") >= 0 ? column("au_percent") + $0 * 1e-9 : NaN):(column("rank")) smooth unique
unset table
# The table is written with spaces and no header.
set datafile separator whitespace
set datafile nocolumnheaders
stats $sorted using 1 nooutput
n = STATS_records
stats $sorted every ::0::0 using 2 nooutput
worst_rank = int(STATS_min)

set xrange [-0.5 + 0:n - 0.5]
set yrange [0:119]
set ytics 0, 10, 100
set ylabel "AU (%)"
n_all = exists("n_all") && n_all > n ? n_all : n
set xlabel (n <= 32 ? sprintf("rank of each accelerator, sorted by AU (%d accelerators)", n) \
	: n_all > n ? sprintf("accelerators, sorted by AU (%d in all, %d quantiles drawn)", n_all, n) \
	: sprintf("accelerators, sorted by AU (%d in all)", n))
set boxwidth (n > 200 ? 1.0 : 0.8) relative
set style fill solid 0.85 noborder
set xtics autofreq
set key top right horizontal opaque box lc rgb "#c0c0c0"

# Below the threshold in orange, at or above in blue; the key names only what is drawn.
tic_label(r) = n <= 32 ? sprintf("%d", int(r)) : ""
bar_colour(au) = threshold > 0 && au < threshold ? 0xE69F00 : 0x0072B2
do for [fmt in formats] {
	load script_dir . "/term.gp"
	set title "AU per accelerator\n" . title font ",20"
	# The lowest AU is an entry of the key, so that it can never overlap it.
	lowest = sprintf("lowest: AU %.2f%% on rank %d", worst_au, worst_rank)
	if (threshold > 0 && n_below > 0) {
		plot $sorted using 0:1:(bar_colour($1)):xticlabels(tic_label($2)) with boxes lc rgb variable notitle, \
			NaN with boxes lc rgb c_blue title (n_below < n ? "at or above the threshold" : ""), \
			NaN with boxes lc rgb c_orange title sprintf("below the threshold (%d)", int(n_below)), \
			threshold with lines dt 2 lw 2 lc rgb c_red title sprintf("threshold %g%%", threshold), \
			mean_au with lines dt 3 lw 2 lc rgb c_grey title sprintf("mean %.2f%%", mean_au), \
			keyentry with points pt -1 title lowest
	} else {
		if (threshold > 0) {
			plot $sorted using 0:1:xticlabels(tic_label($2)) with boxes lc rgb c_blue \
					title "every accelerator at or above the threshold", \
				threshold with lines dt 2 lw 2 lc rgb c_red title sprintf("threshold %g%%", threshold), \
				mean_au with lines dt 3 lw 2 lc rgb c_grey title sprintf("mean %.2f%%", mean_au), \
			keyentry with points pt -1 title lowest
		} else {
			plot $sorted using 0:1:xticlabels(tic_label($2)) with boxes lc rgb c_blue notitle, \
				mean_au with lines dt 3 lw 2 lc rgb c_grey title sprintf("mean %.2f%%", mean_au), \
			keyentry with points pt -1 title lowest
		}
	}
	unset output
}
