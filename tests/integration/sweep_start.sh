#!/usr/bin/env bash
# Description: gpufeed sweep starts where the answer is when the reader threads, not the
# storage, bound the supply. The null engine reads instantly (a ceiling of hundreds of
# thousands of samples/s), but the one reader thread sleeps 2 ms of reader.preprocess_time
# after every sample: it supplies 1 / (its busy time per sample + 2 ms), under 500
# samples/s, and an accelerator consumes 200 (batch 4 every 20 ms), 180 at AU 90%. One
# point of 5 s, about 10 s in all.
# Expected: the first estimate is 2.8 accelerators (within 2.4 to 2.8: the ceiling's own
# time per sample is microseconds), and the search starts at 2.
# Buggy: an estimate from the ceiling's samples/s alone (over 1,000 accelerators, the
# search starting at the dataset's bound and measuring down to 2 point by point).
. "$(dirname "$0")/lib.sh"

cat >"$TMP/w.yaml" <<'EOF'
model: {name: sweepstart}
framework: pytorch
workflow: {generate_data: false, train: true, checkpoint: false}
dataset: {format: npz, num_files_train: 100000, num_samples_per_file: 1, record_length_bytes: 4KiB, record_length_bytes_stdev: 0}
reader: {data_loader: pytorch, batch_size: 4, read_threads: 1, prefetch_size: 2, preprocess_time: 0.002}
train: {epochs: 1, computation_time: 0.02}
metric: {au: 0.9}
EOF
gf 1 sweep "$TMP/w.yaml" --engine null --target "$TMP/none" --results "$TMP/r" --point-seconds 5s --max-points 1 \
	--set run.ceiling_duration=1 >"$TMP/out" 2>&1 || { bad "sweep failed"; cat "$TMP/out"; }
s=$(only_result "$TMP/r")/summary.json
expect "the estimate includes the reader's preprocessing" "$s" \
	'.sweep.start_from == "ceiling" and .sweep.ceiling_estimate_accelerators > 2.4 and .sweep.ceiling_estimate_accelerators < 2.8'
# Whether 2 pass (400 of under 500 samples/s) depends on the machine's load: not judged.
expect "the first point measured is 2 accelerators" "$s" '.sweep.points[0].accelerators == 2'
grep -q "the ceiling's estimate 2\.[4-8], with the readers' preprocessing" "$TMP/out" &&
	ok "the first line says the estimate includes the preprocessing" || { bad "the sweep's first line"; grep '^sweep' "$TMP/out"; }
finish
