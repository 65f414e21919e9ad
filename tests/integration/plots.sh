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
# One rank: every accelerator is rank 0, a one-valued column some plots sort by.
gf 1 run "$SMALL" --target "$TMP/data" --results "$TMP/res1" --quiet --set train.epochs=2 >"$TMP/out1" 2>&1 ||
	{ bad "one-rank run failed"; cat "$TMP/out1"; }
dir1=$(only_result "$TMP/res1")
[ ! -e "$dir1/plots/gnuplot.log" ] && ok "one rank: gnuplot printed no warning" ||
	{ bad "one rank: gnuplot printed:"; cat "$dir1/plots/gnuplot.log"; }
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

# Item 8 of issue 13, each checked on the SVG text: 20 bursts all labelled, 0-based like
# the CSV files ("w0".."w9", "r0".."r9"), none left to a legend of 2; a scaled checkpoint
# says so; the accelerator key names what is drawn (no "below the threshold" when none is)
# and holds the lowest AU itself, so they cannot overlap; a failed run's timeline says it
# failed and where the data end; no axis in scientific notation.
many=$TMP/many-bursts
cp -r "$dir" "$many"
rm -rf "$many/plots"
{
	echo "burst,kind,checkpoint,rank,seconds"
	for b in $(seq 0 19); do
		k=write; c=$b
		[ "$b" -ge 10 ] && { k=restore; c=$((b - 10)); }
		for r in 0 1 2 3; do echo "$b,$k,$c,$r,0.$((r + 2))$((b % 10))"; done
	done
} >"$many/checkpoint_ranks.csv"
jq '.checkpoint = {write_count: 10, restore_count: 10, scaled: true, scale: 0.001, bytes: 4000000,
	unscaled_bytes: 4000000000, bursts: [range(20) | {kind: (if . < 10 then "write" else "restore" end),
	checkpoint: (. % 10), burst_s: 0.5, bytes: 4000000, bytes_per_s: (8e6 + . * 1e5)}]}' \
	"$dir/summary.json" >"$many/summary.json"
"$GPUFEED" report "$many" --quiet || bad "report with 20 bursts failed"
svg=$many/plots/checkpoint.svg
labels=$(grep -oE '<text>[wr][0-9]+</text>' "$svg" | sort -u | sed 's/<[^>]*>//g' | sort -V | tr '\n' ' ')
[ "$labels" = "r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 " ] &&
	ok "20 bursts: every one labelled, 0-based (w0..w9, r0..r9)" || bad "burst labels: '$labels'"
grep -q '<text>SCALED checkpoint' "$svg" && ok "the scaled checkpoint is marked" || bad "no SCALED note"
[ ! -e "$many/plots/gnuplot.log" ] && ok "no warning with 20 bursts" || { bad "gnuplot printed:"; cat "$many/plots/gnuplot.log"; }
acc=$dir/plots/accelerators.svg
if jq -e '[.train.au_percent.min, .train.au_threshold_percent] | .[0] >= .[1]' "$dir/summary.json" >/dev/null; then
	! grep -q 'below the threshold' "$acc" && grep -q '<text>every accelerator at or above the threshold</text>' "$acc" &&
		ok "accelerators: every one above the threshold, and the key says so" || bad "accelerators key names what is not drawn"
fi
grep -q '<text>lowest: AU ' "$acc" && ok "accelerators: the lowest AU is in the key" || bad "no lowest-AU entry"
failed=$TMP/failed
cp -r "$dir" "$failed"
rm -rf "$failed/plots"
jq '.status = "failed" | .error = "train: rank 1: cannot open f.npz: No such file or directory"' "$dir/summary.json" \
	>"$failed/summary.json"
"$GPUFEED" report "$failed" --quiet
# Over 100 characters: the error on a line of its own, once (not under every panel).
[ "$(grep -c '<text>the run failed after .* s of training: the data ends there</text>' "$failed/plots/timeline.svg")" = 1 ] &&
	grep -q '<text>(train: rank 1: cannot open f.npz: No such file or directory)</text>' "$failed/plots/timeline.svg" &&
	ok "a failed run's timeline says so" || bad "the failed run's timeline says nothing, or says it more than once"
sci=$(grep -hoE '<text>[-0-9.]+e[-+][0-9]+</text>' "$dir"/plots/*.svg "$many"/plots/*.svg | head -3)
[ -z "$sci" ] && ok "no tick label in scientific notation" || bad "scientific notation on an axis: $sci"
grep -q '<text>request latency (ms, log scale)</text>\|<text>request latency (us, log scale)</text>\|<text>request latency (s, log scale)</text>' \
	"$dir/plots/latency.svg" && ok "latency axis in us/ms/s" || bad "latency axis unit"

# The scripts are found through GPUFEED_PLOT_DIR; a wrong one is a note, not a failure.
GPUFEED_PLOT_DIR=$TMP/nowhere "$GPUFEED" report "$dir" --quiet && ok "report exits 0 with a wrong GPUFEED_PLOT_DIR" ||
	bad "report failed with a wrong GPUFEED_PLOT_DIR"
grep -q "GPUFEED_PLOT_DIR" "$dir/plots/NOTE.txt" 2>/dev/null && ok "the note names GPUFEED_PLOT_DIR" || bad "no note"
"$GPUFEED" report "$dir" --quiet && [ ! -e "$dir/plots/NOTE.txt" ] && ok "report re-renders and drops the note" ||
	bad "report did not re-render"

# Without gnuplot on PATH the run succeeds and says why there are no plots.
# A PATH with every program of this machine but gnuplot: one ln for all (a fork per
# program took two minutes of system time); the first of a name on PATH wins.
mkdir -p "$TMP/bin"
progs=()
for p in /usr/local/bin/* /usr/bin/* /bin/*; do
	case ${p##*/} in gnuplot*) continue ;; esac
	progs+=("$p")
done
ln -s "${progs[@]}" "$TMP/bin/" 2>/dev/null
PATH=$TMP/bin gf 1 run "$SMALL" --target "$TMP/data" --results "$TMP/nognuplot" --quiet >"$TMP/out2" 2>&1 &&
	ok "a run without gnuplot succeeds" || { bad "a run without gnuplot failed"; cat "$TMP/out2"; }
d2=$(only_result "$TMP/nognuplot")
grep -q "gnuplot is not installed" "$d2/plots/NOTE.txt" 2>/dev/null && ok "the note says gnuplot is missing" || bad "no note without gnuplot"
grep -q "gnuplot is not installed" "$d2/report.txt" && ok "report.txt says so too" || bad "report.txt is silent about the plots"
finish
