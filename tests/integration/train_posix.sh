#!/usr/bin/env bash
# Description: the training read phase on the posix engine under mpirun -np 1, 2 and 4.
# Expected: run generates the dataset once, every rank reads exactly its share (samples
# = ranks x steps x batch, bytes = what the plan says), AU is a percentage, the results
# folder is complete and holds summary.json, ranks.csv, latency.csv, timeseries.csv.
# Buggy: ranks read overlapping or missing samples, bytes counted from a configured mean,
# a run without the dataset that does not regenerate it, a results folder left .partial.
. "$(dirname "$0")/lib.sh"

data=$TMP/data
for np in 1 2 4; do
	res=$TMP/results-$np
	if ! gf "$np" run "$SMALL" --target "$data" --results "$res" --quiet >"$TMP/out-$np" 2>&1; then
		bad "np=$np: run failed"; cat "$TMP/out-$np"; continue
	fi
	dir=$(only_result "$res")
	s=$dir/summary.json
	steps=$((64 / np / 2 * 2))   # per accelerator: share / batch, 2 epochs
	expect "np=$np status complete" "$s" '.status == "complete" and .schema == "gpufeed.summary/2"'
	expect "np=$np environment" "$s" ".environment.ranks == $np and .environment.accelerators == $np and .environment.nodes == 1 and .environment.ranks_per_node == $np and (.environment.hosts|length) == 1 and (.environment.kernel|length) > 0 and (.environment.fs_type|length) > 0 and (.environment.mpi_version|test(\"MPI\"))"
	expect "np=$np steps and samples" "$s" ".train.steps == $((steps * np)) and .train.samples == $((steps * np * 2))"
	expect "np=$np au in range" "$s" '.train.au_percent.mean > 0 and .train.au_percent.mean <= 100.0001 and .train.au_percent.min <= .train.au_percent.max'
	expect "np=$np latency percentiles ordered" "$s" '.train.read_latency_us as $l | $l.p50 > 0 and $l.p50 <= $l.p90 and $l.p90 <= $l.p99 and $l.p99 <= $l.p999 and $l.p999 <= $l.max'
	expect "np=$np figures present" "$s" '.train | has("stall_s") and has("compute_s") and has("elapsed_s") and has("cpu_s") and has("samples_per_s") and has("read_bytes_per_s") and .passed != null and .au_threshold_percent == 50'
	for f in ranks.csv latency.csv timeseries.csv; do
		[ -s "$dir/$f" ] && ok "np=$np $f written" || bad "np=$np $f missing"
	done
	rows=$(($(wc -l <"$dir/ranks.csv") - 1))
	[ "$rows" -eq "$np" ] && ok "np=$np ranks.csv has $np rows" || bad "np=$np ranks.csv has $rows rows"
	if [ "$np" = 1 ]; then
		expect "np=1 generated the dataset" "$s" '.datagen.files == 64'
	else
		expect "np=$np reused the dataset" "$s" 'has("datagen") | not'
	fi
done

# Bytes read are np.load's of every file, once: one epoch over every file. Per file of S
# bytes (model/fformat.c): the magic (4 KiB), the end record (22), the ZIP64 probe (42),
# the central directory to the end (124), the member's first 8 KiB twice (4 x 4 KiB), then
# x.npy from 8 KiB to its end rounded up to 4 KiB; x ends 315 bytes before the file's end
# (y.npy's 55 + 136 bytes, the directory's 102, the end record's 22).
res=$TMP/results-bytes
gf 2 train "$SMALL" --target "$data" --results "$res" --quiet --set train.epochs=1 >/dev/null 2>&1 ||
	bad "train over every file failed"
want=$(find "$data/train" -type f -name '*.npz' -printf '%s\n' | awk '{ e = int(($1 - 315 + 4095) / 4096) * 4096;
	if (e > $1) e = $1; s += 5 * 4096 + 22 + 42 + 124 + e - 8192 } END { print s }')
expect "bytes read = np.load's of every file ($want)" "$(only_result "$res")/summary.json" ".train.read_bytes == $want"

# A changed workload regenerates under run, and is refused by train.
if gf 1 train "$SMALL" --target "$data" --results "$TMP/r-mismatch" --set dataset.num_files_train=80 >"$TMP/mm" 2>&1; then
	bad "train accepted a dataset made for another workload"
else
	grep -q "num_files_train" "$TMP/mm" && ok "train names the mismatch" || { bad "mismatch message"; cat "$TMP/mm"; }
fi
gf 1 run "$SMALL" --target "$data" --results "$TMP/r-regen" --quiet --set dataset.num_files_train=80 >/dev/null 2>&1 ||
	bad "run did not regenerate a mismatched dataset"
expect "run regenerated 80 files" "$(only_result "$TMP/r-regen")/summary.json" '.datagen.files == 80'

# --duration bounds a run and still completes it.
gf 2 run "$SMALL" --target "$data" --results "$TMP/r-dur" --quiet --duration 1s \
	--set dataset.num_files_train=80 --set train.epochs=1000 >/dev/null 2>&1 || bad "run --duration failed"
expect "duration stops the run" "$(only_result "$TMP/r-dur")/summary.json" '.train.stopped_by_duration == true and .train.elapsed_s < 3'
finish
