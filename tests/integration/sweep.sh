#!/usr/bin/env bash
# Description: gpufeed sweep on storage of known speed: an ext4 loop device whose reads
# the block throttle caps at 40 MB/s (throttle.lib), read with O_DIRECT so that every
# read reaches it. Two ranks emulate the accelerators (batch 4 x 256 KiB every 0.17 s:
# 6.17 MB/s each), so the supply feeds about 6.5 of them at full speed and 7.2 at AU 90%:
# the answer is odd (7: one rank 4, the other 3), which a search in steps of the ranks
# could not find. Two ranks, because only rank 0 holds the merged ceiling, every rank must
# start the search from the same count, and the counts in between split unevenly.
# Then --vary reader.read_threads=1,4 at one accelerator over the 2 ranks (rank 1 idle)
# with --require-fed 1000, and the refusals.
# Expected: the sweep finds a count whose demand (count x per-accelerator demand) is
# within 15% of 40 MB/s; that count passed and the count one above it failed (exact to one
# accelerator, not to the ranks); a count the ranks cannot split evenly was measured and
# records its split (per_rank, per_rank_min, ranks_at_max), its rows one per accelerator
# that ran;
# plots/sweep.csv holds exactly summary.json's points; report.txt and report.html carry
# the sweep; --vary measures one point per value and names the best; --require-fed N
# exits 3 when fewer are fed; a --vary key outside the table, or one that changes the
# dataset, a bad value, --require-fed without a count and a workload without compute
# exit 2 before anything is written. A count below the ranks leaves a rank idle: it takes
# part in the merge, adds no row, and neither divides by zero nor counts as an accelerator
# at AU 0%. About 70-100 s on 2 cores at load 7 (61 s before the counts in between), the
# measurement itself: the ceiling and 4-6 timed points of 6 s (a point must be steady over
# 4 full seconds; one near the threshold is measured twice as long), then 2 --vary points
# of 5 s.
# The smallest count that failed is diagnosed from its own figures (sweep.failing_point,
# its device sampled during the point): storage-bandwidth-bound, the device saturated,
# in summary.json's sweep.diagnosis, report.txt and report.html; the run's diagnosis
# stays the answer's point (fed) and says so.
# Buggy: an answer bounded by the ceiling's arithmetic instead of measured, a plot that
# draws other points than summary.json lists, exit 0 under --require-fed, a failing
# count diagnosed from the answer's figures or the whole sweep's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/throttle.lib"

SUPPLY=40000000
cat >"$TMP/w.yaml" <<'EOF'
model:
  name: sweeptest
framework: pytorch
workflow:
  generate_data: false
  train: true
  checkpoint: false
dataset:
  data_folder: data
  # csv: the samples' bytes alone, read whole (npz's np.load pattern re-reads the zip's
  # header region: 8% more bytes per 256 KiB sample, and the answer would be 6, even)
  format: csv
  num_files_train: 512
  num_samples_per_file: 1
  record_length_bytes: 256KiB
  record_length_bytes_stdev: 0
reader:
  data_loader: pytorch
  batch_size: 4
  read_threads: 8
  prefetch_size: 2
  file_shuffle: seed
  sample_shuffle: seed
train:
  epochs: 1
  computation_time: 0.17
metric:
  au: 0.90
accelerator:
  profile: h100
  per_rank: 1
  # The search is checked against the supply's arithmetic: without DLIO's barrier after
  # every step, whose wait for the slowest rank's queued reads lowers the count fed (5
  # here, not 7), and so that a count below the ranks may leave a rank idle.
  step_barrier: false
target:
  direct: true
EOF

# The refusals need no device: usage errors before MPI does any I/O.
code=0
gf 1 sweep "$TMP/w.yaml" --target "$TMP/none" --vary dataset.num_files_train=1,2 --quiet \
	>"$TMP/bad1.out" 2>&1 || code=$?
[ "$code" -eq 2 ] && grep -q "reader.read_threads" "$TMP/bad1.out" &&
	ok "--vary of a dataset key: exit 2 naming the keys allowed" ||
	{ bad "--vary dataset.num_files_train: exit $code"; cat "$TMP/bad1.out"; }
code=0
gf 1 sweep "$TMP/w.yaml" --target "$TMP/none" --vary reader.read_thread=1,2 --quiet >"$TMP/bad2.out" 2>&1 || code=$?
[ "$code" -eq 2 ] && grep -q "did you mean reader.read_threads" "$TMP/bad2.out" &&
	ok "--vary of an unknown key: exit 2 with the nearest key" ||
	{ bad "--vary reader.read_thread: exit $code"; cat "$TMP/bad2.out"; }
code=0
gf 1 sweep "$TMP/w.yaml" --target "$TMP/none" --vary reader.read_threads=1,x --quiet >"$TMP/bad3.out" 2>&1 || code=$?
[ "$code" -eq 2 ] && ok "--vary with a bad value: exit 2" || { bad "--vary read_threads=1,x: exit $code"; cat "$TMP/bad3.out"; }
code=0
"$GPUFEED" sweep "$TMP/w.yaml" --require-fed >"$TMP/bad4.out" 2>&1 || code=$?
[ "$code" -eq 2 ] && ok "sweep --require-fed without a count: exit 2" || { bad "--require-fed alone: exit $code"; cat "$TMP/bad4.out"; }
code=0
gf 1 sweep "$TMP/w.yaml" --target "$TMP/none" --set train.computation_time=0 --quiet >"$TMP/bad5.out" 2>&1 || code=$?
[ "$code" -eq 2 ] && grep -q "no AU to search with" "$TMP/bad5.out" && ok "sweep of a workload without compute: exit 2" ||
	{ bad "sweep without compute: exit $code"; cat "$TMP/bad5.out"; }
[ ! -e "$TMP/none" ] && ok "no refused sweep wrote anything" || bad "a refused sweep created $TMP/none"

# Stacked: the mounted device waits on the throttle as on a slow disk, so its counters
# show it saturated (throttle.lib), the evidence for the failing count's diagnosis.
THR_STACKED=1
throttle_setup 400
throttle_set rbps=$SUPPLY

start=$(date +%s)
throttle_run "$MPIRUN" --oversubscribe --bind-to none -np 2 "$GPUFEED" sweep "$TMP/w.yaml" \
	--target "$THR_DIR/data" --results "$TMP/r1" --point-seconds 6 --max-points 8 >"$TMP/sweep.out" 2>&1 ||
	{ bad "the throttled sweep failed"; cat "$TMP/sweep.out"; }
took=$(($(date +%s) - start))
d=$(only_result "$TMP/r1")
s=$d/summary.json
grep -E "^(sweep|ceiling)" "$TMP/sweep.out"
echo "the throttled sweep (datagen, ceiling, points) took ${took} s"
expect "a sweep section with points" "$s" '.sweep.mode == "accelerators" and (.sweep.points | length) >= 2'
expect "started from the ceiling's estimate" "$s" '.sweep.start_from == "ceiling" and .sweep.ceiling_estimate_accelerators > 0'
fed=$(jq '.sweep.accelerators_fed' "$s")
per=$(jq '.sweep.points[0].demand_read_bytes_per_s / .sweep.points[0].accelerators' "$s")
echo "fed $fed accelerators x $per B/s each = $(jq -n "$fed * $per / 1e6") MB/s against a supply of $((SUPPLY / 1000000)) MB/s"
expect "the answer's demand is within 15% of the 40 MB/s supply" "$s" \
	"(.sweep.accelerators_fed * $per - $SUPPLY | fabs) <= 0.15 * $SUPPLY"
expect "the answer passed and the next count measured above it failed" "$s" \
	'.sweep.accelerators_fed as $a | ([.sweep.points[] | select(.accelerators == $a) | .passed] | all) and
	 ([.sweep.points[] | select(.accelerators > $a) | .passed] | any | not) and .sweep.converged'
# Exact to one accelerator with 2 ranks: the count one above the answer was measured and
# failed, and a count 2 ranks cannot split evenly was measured with its split recorded.
expect "exact to one accelerator: the count one above the answer failed" "$s" \
	'.sweep.accelerators_fed as $a | [.sweep.points[] | select(.accelerators == $a + 1) | .passed] == [false]'
expect "an odd count was measured, split one rank x k and one x k - 1" "$s" \
	'[.sweep.points[] | select(.accelerators % 2 == 1)] | length >= 1 and
	 all(.per_rank == (.accelerators + 1) / 2 and .per_rank_min == .per_rank - 1 and .ranks_at_max == 1)'
expect "the even counts split evenly" "$s" \
	'[.sweep.points[] | select(.accelerators % 2 == 0) | .per_rank * 2 == .accelerators and .per_rank_min == .per_rank and .ranks_at_max == 2] | all'
echo "   fed $fed: $( [ $((fed % 2)) -eq 1 ] && echo "odd, which steps of 2 could not find" || echo even)"
rows=$(awk -F, 'NR > 1 { n[$1]++ } END { for (r in n) printf "%s:%d ", r, n[r] }' "$d/ranks.csv")
want=$(jq -r --argjson a "$fed" 'first(.sweep.points[] | select(.accelerators == $a)) |
	"0:\(.per_rank) 1:\(if .ranks_at_max == 2 then .per_rank else .per_rank_min end)"' "$s")
[ "$(tr ' ' '\n' <<<"$rows" | grep . | sort | tr '\n' ' ')" = "$(tr ' ' '\n' <<<"$want" | grep . | sort | tr '\n' ' ')" ] &&
	ok "ranks.csv of the answer: each rank's own accelerators ($rows)" ||
	{ bad "ranks.csv rows per rank $rows, expected $want"; cat "$d/ranks.csv"; }
grep -qE "^  point [0-9]+ +[0-9]*[13579] accelerators \(1 ranks x [0-9]+, 1 x [0-9]+\) \| AU" "$d/report.txt" &&
	ok "report.txt shows the odd count and its split" || { bad "report.txt lacks the split"; sed -n '/^SWEEP/,/^$/p' "$d/report.txt"; }
grep -qE "sweep [0-9]+: [0-9]*[13579] accelerators \([0-9]+-[0-9]+ per rank\)" "$TMP/sweep.out" &&
	ok "progress names the odd point and its split" || { bad "no progress line for the odd point"; cat "$TMP/sweep.out"; }
tail -n +2 "$d/plots/sweep.csv" | grep -qE ",[0-9]*[13579] \(1x[0-9]+ \+ 1x[0-9]+\)$" &&
	ok "plots/sweep.csv labels the odd point with its split" || { bad "no split label in plots/sweep.csv"; cat "$d/plots/sweep.csv"; }
expect "the ratio to the ceiling's estimate and the search time are reported" "$s" \
	'(.sweep.measured_over_ceiling_estimate - .sweep.accelerators_fed / .sweep.ceiling_estimate_accelerators | fabs) < 1e-9
	 and .sweep.search_s > 0'
expect "summary.json's train is the answer's point" "$s" '.train.accelerators == .sweep.accelerators_fed'
# What stops one step more: the smallest count that failed, diagnosed from its own
# figures (its device sampled during the point) while train shows the answer.
echo "   at the smallest failing count: $(jq -r '.sweep.diagnosis.summary // "none"' "$s")"
echo "   its next step: $(jq -r '.sweep.diagnosis.next_step // "none"' "$s")"
expect "sweep.failing_point is the smallest count that failed, one step or more above the answer" "$s" \
	'([.sweep.points[] | select(.passed | not) | .accelerators] | min) as $f | .sweep.failing_point.accelerators == $f and
	 .sweep.failing_point.train.accelerators == $f and $f > .sweep.accelerators_fed and .sweep.points[.sweep.failing_point.index].accelerators == $f'
expect "its figures are its own: AU below 90%, the device read during the point alone" "$s" \
	'.sweep.failing_point.train.passed == false and .sweep.failing_point.train.device.elapsed_s < 3 * .sweep.point_s and
	 (.sweep.failing_point.train.device.read_bytes_per_s - .sweep.failing_point.train.read_bytes_per_s | fabs) < 0.2 * .sweep.failing_point.train.read_bytes_per_s'
expect "the bottleneck at the failing count is storage-bandwidth-bound (bytes), the device saturated" "$s" \
	'.sweep.failing_point.accelerators as $f | .sweep.diagnosis.class == "storage-bandwidth-bound" and
	 .sweep.diagnosis.storage_limit == "bytes" and .sweep.failing_point.train.device.util_percent >= 95 and
	 (.sweep.diagnosis.describes | test("smallest count that failed, \($f) accelerators"))'
expect "the run's diagnosis is the answer's point (fed) and says so" "$s" \
	'.diagnosis.class == "fed" and (.diagnosis.describes | test("answer"))'
fail=$(jq '.sweep.failing_point.accelerators' "$s")
grep -q "^AT $fail ACCELERATORS, THE SMALLEST COUNT THAT FAILED (the sweep fed $fed): DIAGNOSIS: storage-bandwidth-bound" "$d/report.txt" &&
	ok "report.txt: the diagnosis at $fail accelerators" || bad "report.txt lacks the failing count's diagnosis"
grep -q "id=\"sweep-diagnosis\">At $fail accelerators, the smallest count that failed: storage-bandwidth-bound" "$d/report.html" &&
	ok "report.html: the diagnosis at $fail accelerators" || bad "report.html lacks the failing count's diagnosis"
# The plot draws what summary.json lists: same points, same order, same AU (to 1e-6).
if [ -f "$d/plots/sweep.csv" ]; then
	plotted=$(tail -n +2 "$d/plots/sweep.csv" | cut -d, -f2,4 | tr , ' ')
	listed=$(jq -r '.sweep.points[] | "\(.accelerators) \(.au_percent.mean)"' "$s")
	if [ "$(printf '%s\n' "$plotted" | wc -l)" -eq "$(printf '%s\n' "$listed" | wc -l)" ] &&
		paste -d' ' <(printf '%s\n' "$plotted") <(printf '%s\n' "$listed") |
		awk '{ d = $2 - $4; if ($1 != $3 || d > 1e-6 || d < -1e-6) exit 1 }'; then
		ok "plots/sweep.csv holds exactly summary.json's sweep points"
	else
		bad "plot and summary disagree"
		printf 'plotted:\n%s\nlisted:\n%s\n' "$plotted" "$listed"
	fi
	if command -v gnuplot >/dev/null; then
		[ -s "$d/plots/sweep.png" ] && ok "plots/sweep.png drawn" || bad "no plots/sweep.png"
	fi
else
	bad "no plots/sweep.csv"
fi
# Every key of the sweep section has a word in results/README.md's section for it.
section=$(sed -n '/^### sweep/,/^### /p' "$SRCDIR/results/README.md")
missing=$(jq -r '.sweep | del(.failing_point.train, .failing_point.nodes, .diagnosis) | paths | map(select(type == "string")) | last // empty' "$s" | sort -u |
	while read -r k; do printf '%s\n' "$section" | grep -q "$k" || echo "$k"; done)
[ -z "$missing" ] && ok "results/README.md documents every key of summary.json's sweep" ||
	bad "results/README.md does not document sweep keys: $missing"
# The sweep's answer is the run's verdict, everywhere it is shown (the ceiling's
# arithmetic is a phase line under it, never the headline).
expect "the verdict is the sweep's measured count" "$s" \
	'.verdict.phase == "sweep" and .verdict.word == "FEEDS \(.sweep.accelerators_fed)" and
	 .verdict.accelerators_fed == .sweep.accelerators_fed and (.verdict.words.ceiling | startswith("FEEDS"))'
grep -q "^VERDICT: FEEDS $fed - the sweep measured $fed accelerator" "$d/report.txt" &&
	grep -q "data-word=\"FEEDS $fed\"" "$d/report.html" && grep -q "^verdict: FEEDS $fed - " "$TMP/sweep.out" &&
	ok "report.txt, report.html and the run's last lines lead with FEEDS $fed" || bad "the headline is not the sweep's answer"
"$GPUFEED" table "$d" | python3 -c '
import csv, json, sys
r = next(csv.DictReader(sys.stdin)); s = json.load(open(sys.argv[1]))
assert r["verdict.word"] == s["verdict"]["word"] and int(r["sweep.accelerators_fed"]) == s["sweep"]["accelerators_fed"]
assert r["sweep.converged"] == "true" and r["sweep.at_least"] == "false"' "$s" &&
	ok "gpufeed table has the sweep's columns and verdict" || bad "table lacks the sweep"
grep -q "^SWEEP" "$d/report.txt" && grep -q "accelerators fed, measured *$fed x h100" "$d/report.txt" &&
	ok "report.txt has the sweep section and its answer" || bad "report.txt lacks the sweep"
grep -q 'id="sweep"' "$d/report.html" && ok "report.html has the sweep section" || bad "report.html lacks the sweep"

# --vary on the same dataset (no datagen, no ceiling), with a gate it cannot pass.
code=0
throttle_run "$MPIRUN" --oversubscribe --bind-to none -np 2 "$GPUFEED" sweep "$TMP/w.yaml" \
	--target "$THR_DIR/data" --results "$TMP/r2" --point-seconds 5 --start 1 \
	--vary reader.read_threads=1,4 --require-fed 1000 >"$TMP/vary.out" 2>&1 || code=$?
[ "$code" -eq 3 ] && ok "--require-fed 1000: exit 3" || { bad "--require-fed 1000: exit $code"; cat "$TMP/vary.out"; }
grep -q "fewer than 1000" "$TMP/vary.out" && ok "... saying how many were fed" || { bad "no --require-fed message"; cat "$TMP/vary.out"; }
d=$(only_result "$TMP/r2")
expect "--vary: one point per value at 1 accelerator, in order" "$d/summary.json" \
	'.sweep.mode == "vary" and ([.sweep.points[].value] == ["1", "4"]) and ([.sweep.points[].accelerators] | unique == [1])'
expect "--vary: the best value has the highest AU" "$d/summary.json" \
	'.sweep.vary.best_value as $b | ([.sweep.points[] | select(.value == $b) | .au_percent.mean] | max) as $au |
	 ([.sweep.points[].au_percent.mean] | max) - $au <= 0.5 and .sweep.vary.key == "reader.read_threads"'
expect "--vary: no ceiling ran" "$d/summary.json" '.ceiling == null and .sweep.ceiling_estimate_accelerators == null'
expect "--vary: the verdict names the best value" "$d/summary.json" \
	'.verdict.phase == "sweep" and .verdict.word == "BEST \(.sweep.vary.best_value)" and (.verdict.line | startswith("BEST reader.read_threads="))'
# One accelerator over 2 ranks: rank 1 idle, in the merge but not an accelerator.
expect "one accelerator over 2 ranks: split 1 and 0 (idle)" "$d/summary.json" \
	'[.sweep.points[] | .per_rank == 1 and .per_rank_min == 0 and .ranks_at_max == 1] | all'
expect "the idle rank adds no accelerator: train and nodes count 1" "$d/summary.json" \
	'.train.accelerators == 1 and ([.nodes[].accelerators] | add) == 1'
au=$(awk -F, 'NR == 2 { print $4 }' "$d/ranks.csv")
[ "$(awk 'END { print NR - 1 }' "$d/ranks.csv")" -eq 1 ] && [ "$(awk -F, 'NR == 2 { print $1 }' "$d/ranks.csv")" = 0 ] &&
	ok "ranks.csv: one row, rank 0's" || { bad "ranks.csv of the idle-rank point"; cat "$d/ranks.csv"; }
expect "AU is the active accelerator's alone (the idle rank is not an accelerator at 0%)" "$d/summary.json" \
	"(.train.au_percent.mean - ${au:-nan} | fabs) < 0.001 and .train.au_percent.min == .train.au_percent.mean"
awk -F, 'NR > 1 && $1 != 0 { exit 1 }' "$d/timeseries.csv" && ok "timeseries.csv: no rows of the idle rank" ||
	{ bad "timeseries.csv has rows of the idle rank"; head "$d/timeseries.csv"; }
echo "the whole test took $(($(date +%s) - start)) s after the refusals"
finish
