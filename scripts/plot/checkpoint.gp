# checkpoint: how long each rank took in each checkpoint burst (sorted, so that slow ranks
# stand out at the right), and the bandwidth of every burst, write and restore.
#
# Reads:  dir/checkpoint_ranks.csv (columns burst, kind, checkpoint, rank, seconds; see
#         results/README.md)
# Writes: out.png, out.svg
# Variables (gnuplot -e): dir, out, title, and one word per burst, in burst order:
#   bursts (the burst column's values), kinds (write | restore), cks (checkpoint numbers),
#   bws (bandwidth of the burst in bytes/s from summary.json, "nan" when unknown).
load script_dir . "/common.gp"
file = dir . "/checkpoint_ranks.csv"
nb = words(bursts)
sel(b) = column("burst") == b

# Each burst's slowest rank: the burst time as the design defines it (every rank starts
# together after a barrier; the burst ends when the slowest rank's data is durable).
array tmax[nb]
array bw[nb]
bwmax = 0
nranks = 0
do for [i=1:nb] {
	b = word(bursts, i) + 0
	stats file using (sel(b) ? column("seconds") : NaN) nooutput
	tmax[i] = STATS_max
	nranks = STATS_records
	bw[i] = word(bws, i) eq "nan" ? NaN : word(bws, i) + 0.0
	if (bw[i] == bw[i] && bw[i] > bwmax) { bwmax = bw[i] }
}
bw_div = bwmax >= 2e9 ? 1e9 : 1e6
bw_unit = bwmax >= 2e9 ? "GB/s" : "MB/s"

# Sort each burst's ranks by their time into a table of its own ($b1, $b2, ...): "smooth
# unique" orders by x, and the tiny multiple of the row number keeps equal times apart.
# set format decides how many digits the tables keep.
set format x "%.12g"
set format y "%.12g"
do for [i=1:nb] {
	b = word(bursts, i) + 0
	eval sprintf("set table $b%d", i)
	plot file using (sel(b) ? column("seconds") + $0 * 1e-12 : NaN):(column("rank")) smooth unique
	unset table
}
set format x "%g"
set format y "%g"
set datafile separator whitespace
set datafile nocolumnheaders

colours = c_blue . " " . c_green . " " . c_purple . " " . c_sky . " " . c_grey . " " . c_red
colour(i) = word(colours, (i - 1) % 6 + 1)
is_restore(i) = word(kinds, int(i)) eq "restore"
label(i) = sprintf("%s %s", word(kinds, int(i)), word(cks, int(i)))
# With many bursts the key names only the first and the last.
named(i) = nb <= 8 || i == 1 || i == nb
cmd = ""
do for [i=1:nb] {
	t = named(i) ? sprintf("title '%s: slowest rank %.3g s'", label(i), tmax[i]) : "notitle"
	style = is_restore(i) ? sprintf("lw 2 dt 2 pt 6 ps 0.6 lc rgb '%s'", c_orange) \
		: sprintf("lw 2 pt 7 ps 0.6 lc rgb '%s'", colour(i))
	cmd = cmd . (cmd eq "" ? "" : ", ") . sprintf("$b%d using 0:1 with linespoints %s %s", i, style, t)
}
bar_colour(i) = is_restore(i) ? 0xE69F00 : 0x0072B2
tic_label(i) = nb <= 12 ? label(i) : sprintf("%d", int(i))

do for [fmt in formats] {
	eval term_cmd(fmt)
	# Without bandwidths (summary.json lists no bursts) only the left panel is drawn.
	set multiplot layout 1, (bwmax > 0 ? 2 : 1) title "Checkpoint bursts\n" . title font ",20" margins 0.08, 0.97, 0.14, 0.85 spacing 0.09, 0
	set title "time of each rank in each burst (sorted)"
	set xlabel "ranks, sorted by their time in the burst"
	# Whole ranks on the axis: fractions of a rank mean nothing.
	set xtics 1
	if (nranks > 16) { set xtics autofreq }
	set format x "%.0f"
	set ylabel "time from the burst start to data durable (s)"
	set yrange [0:*]
	set offsets 0, 0, graph 0.3, 0
	set key top left Left reverse opaque box lc rgb "#c0c0c0"
	eval "plot " . cmd
	if (bwmax <= 0) {
		unset multiplot
		unset output
		continue
	}
	set title "bandwidth of each burst (all bytes / slowest rank's time)"
	set xlabel "burst"
	set ylabel "bandwidth (" . bw_unit . ")"
	set xrange [0.4:nb + 0.6]
	set boxwidth 0.7 absolute
	set style fill solid 0.85 noborder
	set offsets 0, 0, graph 0.2, 0
	set key top right horizontal
	if (nb > 12) { set xtics autofreq rotate by -45 } else { set xtics 1 }
	plot bw using 1:($2 / bw_div):(bar_colour($1)):xticlabels(tic_label($1)) \
			with boxes lc rgb variable notitle, \
		NaN with boxes lc rgb c_blue title "write", \
		NaN with boxes lc rgb c_orange title "restore", \
		bw using 1:($2 / bw_div):(sprintf("%.3g", $2 / bw_div)) with labels offset 0, 0.8 notitle
	unset multiplot
	unset output
}
