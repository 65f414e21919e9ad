#!/usr/bin/env bash
# Description: every run renders its plots with gnuplot: timeline, latency, accelerators
# as PNG (1600x900) and SVG, from the CSV files of a real small run, without a single
# gnuplot warning; the checkpoint plot and the shading of bursts work from a
# checkpoint_ranks.csv and a checkpoint_s column; without gnuplot the run still succeeds
# and leaves a note.
# Expected: plots/*.png are PNGs of 1600x900, no plots/gnuplot.log, NOTE.txt only when a
# plot could not be made; gpufeed report re-renders them; exit 0 without gnuplot.
# Buggy: a missing plot, a warning from a script (wrong column, empty data), a run that
# fails because gnuplot is absent.
. "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot is not installed"; exit 77
fi

# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk, or nothing when FILE is no PNG.
png_size() {
	local magic
	magic=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
	[ "$magic" = 89504e470d0a1a0a ] || return 0
	echo "$(od -An -tu4 --endian=big -j16 -N4 "$1" | tr -d ' ')x$(od -An -tu4 --endian=big -j20 -N4 "$1" | tr -d ' ')"
}

check_plot() {
	local dir=$1 name=$2
	local size
	size=$(png_size "$dir/plots/$name.png")
	[ "$size" = 1600x900 ] && ok "$name.png is a 1600x900 PNG" || bad "$name.png: '${size:-not a PNG}'"
	grep -q "<svg" "$dir/plots/$name.svg" 2>/dev/null && ok "$name.svg written" || bad "$name.svg missing"
}

res=$TMP/results
gf 2 run "$SMALL" --target "$TMP/data" --results "$res" --quiet \
	--set train.epochs=16 --set train.computation_time=10ms --set reader.preprocess_time=1ms >"$TMP/out" 2>&1 || { bad "run failed"; cat "$TMP/out"; }
dir=$(only_result "$res")
for p in timeline latency accelerators; do
	check_plot "$dir" "$p"
done
[ ! -e "$dir/plots/gnuplot.log" ] && ok "gnuplot printed no warning" || { bad "gnuplot printed:"; cat "$dir/plots/gnuplot.log"; }
[ ! -e "$dir/plots/NOTE.txt" ] && ok "no plot was skipped" || { bad "plots skipped:"; cat "$dir/plots/NOTE.txt"; }
[ ! -e "$dir/plots/checkpoint.png" ] && ok "no checkpoint plot without checkpoints" || bad "checkpoint plot without data"
file "$dir/plots/timeline.png" | grep -q "1600 x 900" && ok "file(1) agrees" || bad "file(1): $(file "$dir/plots/timeline.png")"

# Checkpoint data as the checkpoint phase writes it: the plot and the timeline shading
# come from it. A copy of the run, so that the real run stays as it was.
ck=$TMP/with-ckpt
cp -r "$dir" "$ck"
rm -rf "$ck/plots"
{
	echo "burst,kind,checkpoint,rank,seconds"
	for b in 0 1; do for r in 0 1 2 3; do echo "$b,write,$b,$r,0.$((r + 2))$b"; done; done
	for r in 0 1 2 3; do echo "2,restore,1,$r,0.1$r"; done
} >"$ck/checkpoint_ranks.csv"
# checkpoint_s: 0.4 s of the second interval in a burst (the column added when missing).
awk -F, 'BEGIN { OFS = "," }
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == "checkpoint_s") c = i
		  if (!c) { c = NF + 1; $c = "checkpoint_s" } print; next }
	{ $c = ($2 == 1.0 ? 0.4 : 0); print }' "$dir/timeseries.csv" >"$ck/timeseries.csv"
jq '.checkpoint = {write_count: 2, restore_count: 1, bursts: [{kind: "write", checkpoint: 0, burst_s: 0.5, bytes: 4000000, bytes_per_s: 8e6}, {kind: "write", checkpoint: 1, burst_s: 0.51, bytes: 4000000, bytes_per_s: 7.8e6}, {kind: "restore", checkpoint: 1, burst_s: 0.13, bytes: 4000000, bytes_per_s: 3e7}]}' \
	"$dir/summary.json" >"$ck/summary.json"
"$GPUFEED" report "$ck" --quiet || bad "report on the checkpoint copy failed"
for p in timeline latency accelerators checkpoint; do
	check_plot "$ck" "$p"
done
[ ! -e "$ck/plots/gnuplot.log" ] && ok "no warning with checkpoint data" || { bad "gnuplot printed:"; cat "$ck/plots/gnuplot.log"; }
grep -q "ckpt 0" "$ck/plots/timeline.svg" && ok "timeline labels the shaded burst" || bad "no burst label on the timeline"

# The scripts are found through GPUFEED_PLOT_DIR; a wrong one is a note, not a failure.
GPUFEED_PLOT_DIR=$TMP/nowhere "$GPUFEED" report "$dir" --quiet && ok "report exits 0 with a wrong GPUFEED_PLOT_DIR" ||
	bad "report failed with a wrong GPUFEED_PLOT_DIR"
grep -q "GPUFEED_PLOT_DIR" "$dir/plots/NOTE.txt" 2>/dev/null && ok "the note names GPUFEED_PLOT_DIR" || bad "no note"
"$GPUFEED" report "$dir" --quiet && [ ! -e "$dir/plots/NOTE.txt" ] && ok "report re-renders and drops the note" ||
	bad "report did not re-render"

# Without gnuplot on PATH the run succeeds and says why there are no plots.
# A PATH with every program of this machine but gnuplot.
mkdir -p "$TMP/bin"
for p in /usr/local/bin/* /usr/bin/* /bin/*; do
	case $(basename "$p") in gnuplot*) continue ;; esac
	[ -e "$TMP/bin/$(basename "$p")" ] || ln -s "$p" "$TMP/bin/$(basename "$p")" 2>/dev/null
done
PATH=$TMP/bin gf 1 run "$SMALL" --target "$TMP/data" --results "$TMP/nognuplot" --quiet >"$TMP/out2" 2>&1 &&
	ok "a run without gnuplot succeeds" || { bad "a run without gnuplot failed"; cat "$TMP/out2"; }
d2=$(only_result "$TMP/nognuplot")
grep -q "gnuplot is not installed" "$d2/plots/NOTE.txt" 2>/dev/null && ok "the note says gnuplot is missing" || bad "no note without gnuplot"
grep -q "gnuplot is not installed" "$d2/report.txt" && ok "report.txt says so too" || bad "report.txt is silent about the plots"
finish
