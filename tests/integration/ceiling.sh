#!/usr/bin/env bash
# Description: gpufeed ceiling, the storage ceiling, and the ceiling phase of run.
# Expected: ceiling reads the training schedule with no compute (every sample of the
# epochs when no duration is given) and reports samples/s, bytes/s, latency and CPU per
# request; accelerators_fed = floor(samples_per_s / (demand x AU threshold)) with the
# demand batch / computation_time; --duration bounds it; run with run.ceiling=true has
# both a ceiling and a train section; ceiling on a missing dataset is exit 2. A dataset
# of 3,000 files read with read_type memory under a limit of 256 descriptors works: the
# open-file cache stays under the limit.
# A scaled-down unet3d (checkpoints on) takes ceiling --duration 3s and reads for 3 s,
# over its dataset several times; train with checkpoints still refuses --duration.
# Buggy: a ceiling that emulates compute, figures that do not match each other, a
# duration ignored, a ceiling refused for checkpoints it never writes, one that stops
# when the dataset was read once, or "Too many open files".
. "$(dirname "$0")/lib.sh"

data=$TMP/data
gf 2 run "$SMALL" --target "$data" --results "$TMP/r-gen" --quiet >/dev/null 2>&1 || bad "datagen through run failed"

gf 2 ceiling "$SMALL" --target "$data" --results "$TMP/r-c" >"$TMP/out" 2>&1 || { bad "ceiling failed"; cat "$TMP/out"; }
s=$(only_result "$TMP/r-c")/summary.json
expect "ceiling read the whole schedule (2 epochs, 128 samples)" "$s" \
	'.status == "complete" and .ceiling.samples == 128 and .ceiling.stopped_by_duration == false and (has("train") | not)'
expect "ceiling figures agree" "$s" \
	'.ceiling as $c | ($c.samples_per_s - $c.samples / $c.elapsed_s | fabs) < 1e-6 * $c.samples_per_s and ($c.read_bytes_per_s - $c.read_bytes / $c.elapsed_s | fabs) < 1e-6 * $c.read_bytes_per_s and $c.read_latency_us.p50 > 0 and $c.cpu_us_per_request > 0'
# small.yaml: batch 2, 1 ms compute -> 2000 samples/s per accelerator; AU threshold 50%.
expect "accelerators fed = floor(samples/s / (2000 x 0.5))" "$s" \
	'.ceiling.demand_samples_per_s_per_accelerator == 2000 and .ceiling.accelerators_fed == (.ceiling.samples_per_s / 1000 | floor) and (.ceiling.accelerators_fed_without_stall - .ceiling.samples_per_s / 2000 | fabs) < 1e-6'
grep -q "^ceiling: feeds" "$TMP/out" && ok "verdict line names the accelerators fed" || { bad "no ceiling verdict"; cat "$TMP/out"; }

# --duration bounds the ceiling.
gf 1 ceiling "$SMALL" --target "$data" --results "$TMP/r-d" --quiet --duration 1s --set train.epochs=100000 >/dev/null 2>&1 ||
	bad "ceiling --duration failed"
expect "ceiling --duration 1s stops it" "$(only_result "$TMP/r-d")/summary.json" \
	'.ceiling.stopped_by_duration == true and .ceiling.elapsed_s < 1.5 and .ceiling.elapsed_s > 0.9 and .ceiling.samples > 128'

# A unet3d workload scaled down to 16 files of about 256 KiB, its checkpoint on: a ceiling
# writes none, so --duration is not refused, and it reads for the whole duration, over the
# dataset as many times as that takes (the 30 s advice of a short ceiling works as printed).
unet=("$SRCDIR/workloads/unet3d_h100.yaml" --set dataset.num_files_train=16 --set dataset.record_length_bytes=256KiB
	--set dataset.record_length_bytes_stdev=64KiB)
gf 2 datagen "${unet[@]}" --target "$TMP/unet" --results "$TMP/r-ug" --quiet >/dev/null 2>&1 || bad "unet3d datagen failed"
gf 2 ceiling "${unet[@]}" --target "$TMP/unet" --results "$TMP/r-u" --quiet --duration 3s >"$TMP/out" 2>&1 ||
	{ bad "unet3d ceiling --duration 3s (checkpoints on) failed"; cat "$TMP/out"; }
expect "unet3d ceiling --duration 3s: read for 3 s, the 16-sample dataset more than twice" \
	"$(only_result "$TMP/r-u")/summary.json" \
	'.status == "complete" and .workload.workflow.checkpoint == true and .ceiling.stopped_by_duration == true and
	 .ceiling.elapsed_s >= 3 and .ceiling.elapsed_s < 4.5 and .ceiling.samples > 2 * 16 and
	 (.ceiling.read_bytes_per_s - .ceiling.read_bytes / .ceiling.elapsed_s | fabs) < 1e-6 * .ceiling.read_bytes_per_s'
# Training with checkpoints still refuses a duration (every rank must reach the same step),
# before any I/O: no mpirun needed.
"$GPUFEED" train "${unet[@]}" --target "$TMP/unet" --results "$TMP/r-ut" --duration 3s >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "cannot be combined with checkpoints during training" "$TMP/out" &&
	ok "train --duration with checkpoints: still exit 2" || { bad "train --duration with checkpoints: exit $rc"; cat "$TMP/out"; }

# run with the ceiling phase.
gf 2 run "$SMALL" --target "$data" --results "$TMP/r-run" --quiet --set run.ceiling=true >/dev/null 2>&1 || bad "run with ceiling failed"
expect "run has a ceiling and a train section" "$(only_result "$TMP/r-run")/summary.json" \
	'.ceiling.samples == 128 and .train.samples == 128'

# No dataset: refused.
gf 1 ceiling "$SMALL" --target "$TMP/none" --results "$TMP/r-none" >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "datagen" "$TMP/out" && ok "ceiling without a dataset: exit 2" || { bad "ceiling without dataset: $rc"; cat "$TMP/out"; }

# Many files under a small descriptor limit.
many=$TMP/many
gf 1 datagen "$SMALL" --target "$many" --results "$TMP/r-mg" --quiet --set dataset.num_files_train=3000 \
	--set dataset.record_length_bytes=512 --set dataset.record_length_bytes_stdev=0 >/dev/null 2>&1 || bad "datagen of 3000 files failed"
(ulimit -n 256 && gf 1 ceiling "$SMALL" --target "$many" --results "$TMP/r-m" --quiet --set dataset.num_files_train=3000 \
	--set dataset.record_length_bytes=512 --set dataset.record_length_bytes_stdev=0 --set reader.read_type=memory \
	--set train.epochs=2) >"$TMP/out" 2>&1 || { bad "3000 files under ulimit -n 256 failed"; cat "$TMP/out"; }
expect "3000 files under 256 descriptors: all read, cache under the limit" "$(only_result "$TMP/r-m")/summary.json" \
	'.ceiling.samples == 6000 and .target.open_files_per_thread < 256 and .target.open_files_per_thread > 8 and .ceiling.files_opened >= 3000'
finish
