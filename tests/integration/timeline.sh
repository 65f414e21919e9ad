#!/usr/bin/env bash
# Description: the training timeline plots the whole job, summed over ranks, also when
# the phase ends just past an interval boundary (every multi-rank --duration run).
# Expected: plots/timeline.csv (what gnuplot is given) holds one row per interval, never
# a row per rank, and its bandwidth and samples/s, weighted by interval length, agree
# with summary.json's train figures within 2%; the sliver at the end is left out and
# the plot says so.
# Buggy: one line per rank at 1/ranks of the job's rate (gnuplot's smooth frequency
# split at the left-out sliver), a sum that disagrees with summary.json.
. "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot is not installed"; exit 77
fi
gf 3 run "$SMALL" --target "$TMP/data" --results "$TMP/r" --quiet --duration 5s \
	--set train.epochs=1000 --set train.computation_time=8ms >"$TMP/out" 2>&1 || { bad "run failed"; cat "$TMP/out"; }
dir=$(only_result "$TMP/r")
csv=$dir/plots/timeline.csv
[ -s "$csv" ] && ok "plots/timeline.csv written" || bad "no plots/timeline.csv"
[ -s "$dir/plots/timeline.png" ] && ok "timeline plotted" || { bad "no timeline.png"; cat "$dir/plots/NOTE.txt" 2>/dev/null; }
el=$(jq '.train.elapsed_s' "$dir/summary.json")
bw=$(jq '.train.read_bytes_per_s' "$dir/summary.json")
sps=$(jq '.train.samples_per_s' "$dir/summary.json")
# One row per interval: the t_s column has no repeats.
dups=$(tail -n +2 "$csv" | cut -d, -f1 | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && ok "one row per interval" || bad "$dups intervals appear more than once"
rows=$(tail -n +2 "$csv" | wc -l)
[ "$rows" -ge 3 ] && ok "$rows intervals plotted" || bad "only $rows intervals"
# The phase ends a little after 5 s: the sliver past the boundary is left out.
awk -v el="$el" 'BEGIN { exit !(el - int(el) < 0.2) }' && {
	tail -n +2 "$csv" | awk -F, '$2 < 0.2 { bad = 1 } END { exit bad }' && ok "the sliver at ${el} s is left out" ||
		bad "a sliver under 0.2 s is plotted"
}
# The plotted rates against summary.json's, over the whole phase: the sliver left out adds
# its bytes and samples back, so a sliver of 0.19 s with no sample in it (ranks finishing
# their last reads) cannot move the comparison, while a width or a rate plotted wrong does.
read -r sliver ssamples < <(awk -F, -v el="$el" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "t_s") t = i; if ($i == "read_bytes") b = i; if ($i == "samples") n = i } next }
	el - $t < 0.2 * 1.0 { s += $b; m += $n } END { printf "%.0f %.0f\n", s, m }' "$dir/timeseries.csv")
read -r pbw psps < <(tail -n +2 "$csv" | awk -F, -v el="$el" -v sb="$sliver" -v ss="$ssamples" '{ b += $4 * $2; s += $5 * $2 } END { printf "%.6e %.6e\n", (b + sb) / el, (s + ss) / el }')
awk -v a="$pbw" -v b="$bw" 'BEGIN { d = a / b - 1; exit !(d < 0.02 && d > -0.02) }' &&
	ok "plotted bandwidth $pbw B/s (with the sliver's bytes) is within 2% of summary.json's $bw" || bad "plotted bandwidth $pbw B/s, summary.json $bw"
awk -v a="$psps" -v b="$sps" 'BEGIN { d = a / b - 1; exit !(d < 0.02 && d > -0.02) }' &&
	ok "plotted samples/s $psps (with the sliver's $ssamples) within 2% of summary.json's $sps" || bad "plotted samples/s $psps, summary.json $sps"
# Every byte of the series is accounted for: the plotted intervals plus the sliver left
# out hold summary.json's read_bytes.
plotted=$(tail -n +2 "$csv" | awk -F, '{ b += $4 * $2 } END { printf "%.0f\n", b }')
total=$(jq '.train.read_bytes' "$dir/summary.json")
awk -v p="$plotted" -v s="$sliver" -v t="$total" 'BEGIN { d = (p + s) / t - 1; exit !(d < 0.001 && d > -0.001) }' &&
	ok "plotted bytes $plotted + sliver $sliver = summary.json's $total" || bad "plotted $plotted + sliver $sliver != $total"
# timeseries.csv counts a sample when an accelerator takes it, as summary.json does: not the
# batches read ahead and never taken when the phase ends.
tsamples=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "samples") n = i; next } { s += $n } END { printf "%.0f\n", s }' "$dir/timeseries.csv")
[ "$tsamples" = "$(jq '.train.samples' "$dir/summary.json")" ] && ok "timeseries.csv's $tsamples samples are summary.json's" ||
	bad "timeseries.csv counts $tsamples samples, summary.json $(jq '.train.samples' "$dir/summary.json")"
# The middle intervals carry the job's rate, not one rank's (a third of it).
mid=$(tail -n +2 "$csv" | sed -n 2p | cut -d, -f4)
awk -v a="$mid" -v b="$bw" 'BEGIN { exit !(a > 0.8 * b) }' && ok "an interval in the middle shows the job's rate" ||
	bad "interval 1 shows $mid B/s of the job's $bw"
[ ! -e "$dir/plots/gnuplot.log" ] && ok "gnuplot printed no warning" || { bad "gnuplot printed:"; cat "$dir/plots/gnuplot.log"; }
finish
