#!/usr/bin/env bash
# Description: the diagnosis names the bottleneck class each run was built to hit, on
# this machine, in seconds each: one O_DIRECT reader thread per rank against 2 MiB
# samples (configuration-bound), the null engine with 20 ms of preprocessing per sample
# (client-CPU-bound), 20,000 files of 512 bytes, one per sample (metadata-bound), a small
# buffered dataset (page-cache-served; metadata-bound when the opens are slow enough to
# starve training, which local ext4 seldom makes them), a 64 MiB checkpoint every 4 steps
# (FED: the halts lie outside AU, so the diagnosis agrees with the verdict and notes them;
# tests/unit/test_diagnosis holds checkpoint-bound, for a starved run). Not provoked here: storage-bandwidth-bound and storage-latency-bound
# (diagnosis_throttle.sh: a throttled loop device, an S3 proxy that delays), one-slow-client
# (more than one node: tests/testbed/slowclient.sh); tests/unit/test_diagnosis covers their rules.
# Expected: summary.json's diagnosis.class and knob per run; report.txt and report.html
# carry the diagnosis; `gpufeed report` on a folder without "diagnosis" decides it again.
# Buggy: a class shadowed by another rule, a next step naming no knob, an old folder
# without a diagnosis in its report.
. "$(dirname "$0")/lib.sh"

run() {
	local name=$1
	shift
	gf 2 "$@" --results "$TMP/$name" --quiet >"$TMP/$name.out" 2>&1 ||
		{ bad "$name run failed"; cat "$TMP/$name.out"; } >&2
	only_result "$TMP/$name"
}

d=$(run config run "$SMALL" --target "$TMP/t1" --set target.engine=posix --set target.direct=true \
	--set reader.read_threads=1 --set dataset.record_length_bytes=2MiB --set dataset.record_length_bytes_stdev=0 \
	--set dataset.num_files_train=32 --set train.computation_time=1ms --set train.epochs=4 --set metric.au=0.9)
cls=$(jq -r .diagnosis.class "$d/summary.json")
# A machine loaded past its cores makes the threads wait for a CPU: then the diagnosis
# must say so (client-CPU-bound, the run queue's wait at least half the stall).
if [ "$cls" = client-CPU-bound ] && jq -e '.train.runqueue_wait_s >= 0.5 * .train.stall_s' "$d/summary.json" >/dev/null; then
	echo "note: the node's load held the cores (threads waited $(jq .train.runqueue_wait_s "$d/summary.json") s for a CPU): client-CPU-bound"
	expect "... and the next step says to rerun on a quiet node" "$d/summary.json" '.diagnosis.next_step | test("quiet node")'
else
	expect "one O_DIRECT thread per rank: configuration-bound" "$d/summary.json" '.diagnosis.class == "configuration-bound"'
	# Reader threads with a predicted rate; prefetch when a loaded machine left the threads
	# idle half the time (then more threads are not what the figures ask for).
	expect "... names reader.read_threads and a predicted rate (or prefetch, threads idle)" "$d/summary.json" \
		'(.diagnosis.knob == "reader.read_threads" and .diagnosis.little.needed_reader_threads > 1 and
		  .diagnosis.predicted_read_bytes_per_s > .train.read_bytes_per_s) or .diagnosis.knob == "reader.prefetch_size"'
fi
grep -q "^DIAGNOSIS: $cls" "$d/report.txt" && ok "report.txt: DIAGNOSIS line" || bad "report.txt has no DIAGNOSIS line"
grep -q "id=\"diagnosis\">Diagnosis: $cls" "$d/report.html" && ok "report.html: diagnosis" ||
	bad "report.html has no diagnosis"
# A summary of the older schema is read as /2, its verdict and diagnosis worked out again
# (and it says so); one of this schema that lacks its diagnosis names it as missing.
cp "$d/summary.json" "$TMP/s2"
jq 'del(.diagnosis, .verdict) | .schema = "gpufeed.summary/1"' "$TMP/s2" >"$d/summary.json"
"$GPUFEED" report "$d" --quiet 2>"$TMP/old.err" && grep -q "^DIAGNOSIS: $cls" "$d/report.txt" &&
	grep -q "gpufeed.summary/1 (an older gpufeed): read as gpufeed.summary/2" "$d/report.txt" &&
	ok "an older folder is read as /2 and gets its diagnosis, and says so" || bad "gpufeed report on a /1 folder"
jq 'del(.diagnosis)' "$TMP/s2" >"$d/summary.json"
"$GPUFEED" report "$d" 2>"$TMP/miss.err" >/dev/null && grep -q "diagnosis is missing" "$TMP/miss.err" &&
	grep -q "^DIAGNOSIS: missing" "$d/report.txt" && grep -q "lacks 1 figure" "$d/report.txt" &&
	ok "a /2 summary without its diagnosis: named as missing, never made up" ||
	{ bad "a /2 summary without diagnosis"; cat "$TMP/miss.err"; }
jq '.schema = "gpufeed.summary/9"' "$TMP/s2" >"$d/summary.json"
"$GPUFEED" report "$d" >/dev/null 2>"$TMP/new.err"; rc=$?
[ $rc -eq 2 ] && grep -q "has schema 'gpufeed.summary/9'; this gpufeed reads gpufeed.summary/2" "$TMP/new.err" &&
	ok "a newer schema is refused, naming both (exit 2)" || { bad "newer schema: exit $rc"; cat "$TMP/new.err"; }
cp "$TMP/s2" "$d/summary.json"

d=$(run cpu train "$SMALL" --engine null --target "$TMP/tn" --set reader.preprocess_time=20ms \
	--set train.computation_time=1ms)
expect "null engine, 20 ms preprocessing: client-CPU-bound" "$d/summary.json" \
	'.diagnosis.class == "client-CPU-bound" and .diagnosis.knob == "reader.read_threads"'

d=$(run meta run "$SMALL" --target "$TMP/t4" --set target.engine=posix --set dataset.num_files_train=20000 \
	--set dataset.record_length_bytes=512 --set dataset.record_length_bytes_stdev=0 --set reader.batch_size=64 \
	--set train.epochs=1 --set train.computation_time=1ms --set metric.au=0.9)
# Local ext4 opens from the dentry cache take ~2 us, as long as the 512-byte read: the
# class shows when training starves on them (a cold or remote file system), and
# otherwise the run is fed from the page cache with the open time named.
# Which class it gets depends on how fast this machine opens files at that moment (under
# load AU lands at 85-99% against the 90% threshold): metadata-bound when the open time
# is most of a reader's busy time; fed from the page cache with the open time named; or
# starved and configuration-bound (client-CPU-bound when other work held the cores, as in
# the first case), and then the diagnosis must have weighed the open time
# and found it under half (the rule's threshold), never ignored it; the text rounds, so
# 49.6% reads "50%" (a sanitizer run in a fresh clone).
expect "20,000 files of 512 bytes: metadata-bound, or the open time weighed and found under half" "$d/summary.json" \
	'(.diagnosis.class == "metadata-bound" and .diagnosis.knob == "dataset.num_samples_per_file") or
	 (.diagnosis.class == "page-cache-served" and (.diagnosis.ruled_out["metadata-bound"] | test("open/close"))) or
	 ((.diagnosis.class == "configuration-bound" or
	   (.diagnosis.class == "client-CPU-bound" and .train.runqueue_wait_s >= 0.5 * .train.stall_s)) and
	  (.diagnosis.ruled_out["metadata-bound"] | test("open/close .* per sample, ([0-9]|[1-4][0-9]|50)% of")))'
jq -c '{class: .diagnosis.class, metadata: .diagnosis.ruled_out["metadata-bound"]}' "$d/summary.json"

d=$(run pc run "$SMALL" --target "$TMP/t2" --set train.computation_time=10ms --set train.epochs=3)
expect "small buffered dataset: page-cache-served" "$d/summary.json" \
	'.diagnosis.class == "page-cache-served" and .diagnosis.knob == "target.direct"'

d=$(run ckpt run "$SMALL" --target "$TMP/t3" --set train.computation_time=5ms --set train.epochs=3 \
	--set workflow.checkpoint=true --set checkpoint.steps_between_checkpoints=4 --set checkpoint.model_size=64MiB)
expect "a checkpoint every 4 steps: the diagnosis agrees with the verdict, the halts a note" "$d/summary.json" \
	'if .verdict.passed then .diagnosis.class == (if .verdict.validity.page_cache then "page-cache-served" else "fed" end)
	   and (.diagnosis.notes | map(test("halted each accelerator .* outside AU")) | any)
	 else .diagnosis.class != "fed" and .diagnosis.class != "page-cache-served" end'
finish
