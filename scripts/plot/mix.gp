# mix: every job's bandwidth on the mix's clock (seconds from the barrier that starts it),
# one panel per job stacked top to bottom, every checkpoint burst of every job shaded in
# each panel (orange: the panel's own job's, yellow: another job's) and the panel's own
# bursts drawn as bars of their bandwidth, so that a training job's read rate reads
# against the other jobs' bursts.
#
# Reads:  ARG2 = the plots folder, which holds
#           mix_jobs.csv    job (1-based), name, t0_s (where the job's series starts on
#                           the mix's clock), series (1: mix_<job>.csv holds its reads),
#                           top_bytes_per_s (the highest rate of its panel)
#           mix_<job>.csv   the job's training series summed over its ranks (the columns
#                           of timeline.csv, t from its training's start)
#           mix_bursts.csv  start_s, end_s, job, label, bytes_per_s
# Strings: ARG6 the bandwidth unit ("MB/s").
# Variables: njobs, nbursts, t_end (s: the last read or burst), bw_div (bytes/s per axis
#   unit). Each panel has its own y axis: a burst's bandwidth would flatten the reads of a
#   training job beside it.
script_dir = ARG1; data = ARG2; out = ARG3; title = ARG4; formats = ARG5
load script_dir . "/common.gp"
bw_unit = ARG6
jobs_csv = data . "/mix_jobs.csv"
bursts_csv = data . "/mix_bursts.csv"

array jn[njobs]
array jt0[njobs]
array js[njobs]
array jb[njobs]
array jtop[njobs]
do for [k=1:njobs] { jb[k] = 0 }
stats jobs_csv using (i = int($0) + 1, jn[i] = strcol("name"), jt0[i] = column("t0_s"), \
	js[i] = column("series"), jtop[i] = column("top_bytes_per_s") / bw_div * 1.3, 0) nooutput
nb = nbursts > 0 ? nbursts : 1
array bs[nb]
array be[nb]
array bj[nb]
array bl[nb]
if (nbursts > 0) {
	stats bursts_csv using (i = int($0) + 1, bs[i] = column("start_s"), be[i] = column("end_s"), \
		bj[i] = int(column("job")), bl[i] = strcol("label"), 0) nooutput
}
do for [i=1:nbursts] { jb[bj[i]] = jb[bj[i]] + 1 }
x_end = t_end > 0 ? t_end * 1.02 : 1
# A burst is named on the top panel when its middle is a tenth of the axis from the last
# named one's, so that no two names collide.
label_gap = x_end / 10.0

set xrange [0:x_end]
set style fill transparent solid 0.55 noborder
set boxwidth 1 absolute

do for [fmt in formats] {
	load script_dir . "/term.gp"
	set multiplot layout njobs, 1 title "Mix timeline: each job's bandwidth, checkpoint bursts shaded\n" . title \
		font ",20" margins 0.10, 0.96, 0.11, 0.84 spacing 0, 0.07
	do for [k=1:njobs] {
		do for [i=1:nbursts] {
			set object i rectangle from bs[i], graph 0 to be[i], graph 1 behind \
				fillcolor rgb (bj[i] == k ? c_orange : c_yellow) fillstyle solid 0.35 noborder
		}
		if (k == 1) {
			last = -x_end
			do for [i=1:nbursts] {
				if ((bs[i] + be[i]) / 2.0 - last >= label_gap) {
					set label 100 + i bl[i] at (bs[i] + be[i]) / 2.0, graph 0.88 center front noenhanced
					last = (bs[i] + be[i]) / 2.0
				}
			}
		}
		set yrange [0:jtop[k] > 0 ? jtop[k] : 1]
		set ytics 0, tick_step(jtop[k] > 0 ? jtop[k] / 1.3 : 1)
		# What the panel draws, in its title: a key would cover a burst's label.
		set title jn[k] . (js[k] > 0 ? ": training reads (line)" : "") . (jb[k] > 0 ? \
			(js[k] > 0 ? ", " : ": ") . "its checkpoint bursts' bandwidth (bars)" : "") noenhanced offset 0, -0.6
		set ylabel bw_unit
		if (k == njobs) {
			set format x "%g"
			set xlabel "time since the mix started (s)"
		} else {
			set format x ""
			set xlabel ""
		}
		unset key
		f = sprintf("%s/mix_%d.csv", data, k)
		if (js[k] > 0 && jb[k] > 0) {
			plot f using (jt0[k] + column("t_mid_s")):(column("read_bytes_per_s") / bw_div) \
				with linespoints lw 2 pt 7 ps 0.6 lc rgb c_blue notitle, \
				bursts_csv using (column("job") == k ? (column("start_s") + column("end_s")) / 2 : NaN): \
				(column("bytes_per_s") / bw_div):(column("end_s") - column("start_s")) \
				with boxes lc rgb c_green notitle
		} else {
			if (js[k] > 0) {
				plot f using (jt0[k] + column("t_mid_s")):(column("read_bytes_per_s") / bw_div) \
					with linespoints lw 2 pt 7 ps 0.6 lc rgb c_blue notitle
			} else {
				if (jb[k] > 0) {
					plot bursts_csv using (column("job") == k ? (column("start_s") + column("end_s")) / 2 : NaN): \
						(column("bytes_per_s") / bw_div):(column("end_s") - column("start_s")) \
						with boxes lc rgb c_green notitle
				} else {
					set label 99 "no bandwidth recorded" at graph 0.5, graph 0.5 center
					plot NaN notitle
					unset label 99
				}
			}
		}
		do for [i=1:nbursts] { unset object i; unset label 100 + i }
	}
	unset multiplot
	unset output
}
