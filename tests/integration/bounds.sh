#!/usr/bin/env bash
# Description: --duration and SIGTERM bound a run. Every wait is interruptible: compute
# sleeps, the wait for a batch, time_between_checkpoints, and what was read ahead is not
# computed after the end.
# Expected: prefetch_size 1000 with 50 ms compute under --duration 3s ends well within 15 s
# with train.stopped_by_duration; 30 s of compute per step under --duration 2s likewise;
# SIGTERM to mpirun during training writes summary.json with status interrupted; SIGTERM
# during a one-hour time_between_checkpoints ends the run promptly.
# --duration 2s bounds a run whose datagen is long, a checkpoint-only run and a sweep,
# each ending complete within 20-30 s (mpirun's start and the report included) with
# summary.json's duration.cut_phase naming the phase it cut (issue 28 item 14).
# Buggy: the prefetched batches are all computed (59 s), a compute sleep runs to its end
# (30 s and more), the signal is noticed only after the next step; datagen, the bursts
# and the sweep's points run to their end (13, 14 and 13 s for 2 s).
. "$(dirname "$0")/lib.sh"

export OMPI_MCA_rmaps_base_oversubscribe=1

# Under AddressSanitizer on a loaded machine mpirun's start, the run's end and the report
# take longer (prefetch: 16.5 s seen in CI): the limits there are 1.6 times as long, still
# short of every buggy time the first two cases bound (59 s, 30 s and more).
slow=1
ldd "$GPUFEED" 2>/dev/null | grep -q libasan && slow=1.6
# timed NAME LIMIT_S CMD...: run CMD, fail if it took more than LIMIT_S (times $slow)
# seconds. Sets $took.
timed() {
	local name=$1 limit t0 rc
	limit=$(echo "$2 * $slow" | bc)
	shift 2
	t0=$(date +%s.%N)
	"$@" >"$TMP/out-$name" 2>&1
	rc=$?
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	if [ "$(echo "$took > $limit" | bc)" -eq 1 ]; then
		bad "$name: took $took s, more than $limit s (exit $rc)"; cat "$TMP/out-$name"
	else
		ok "$name: ended in $took s (exit $rc)"
	fi
	return $rc
}

# 1. A deep prefetch queue and 50 ms compute: the run stops at the duration, the batches
# read ahead are left uncomputed.
res=$TMP/r1
# Without the step barrier: the readers' 1000 batches ahead keep both cores busy, and with
# it every step would wait for the later rank's wake-up (AU 53% at load 17), which is not
# what this case bounds.
timed prefetch 15 gf 2 train "$SMALL" --engine null --target "$TMP/t1" --results "$res" --quiet \
	--duration 3s --set dataset.num_files_train=100000 --set reader.prefetch_size=1000 \
	--set train.computation_time=50ms --set train.epochs=1 --set accelerator.step_barrier=false ||
	{ bad "prefetch: run failed"; cat "$TMP/out-prefetch"; }
s=$(only_result "$res")/summary.json
expect "prefetch: complete, stopped by the duration" "$s" '.status == "complete" and .train.stopped_by_duration == true'
expect "prefetch: about 3 s of training, not more" "$s" '.train.elapsed_s < 5'
expect "prefetch: fed, so AU stays high" "$s" '.train.au_percent.mean > 90'

# 2. One step of 30 s compute: the sleep ends with the duration; the step counts the 2 s
# of compute it did.
res=$TMP/r2
timed compute30 15 gf 1 train "$SMALL" --engine null --target "$TMP/t2" --results "$res" --quiet \
	--duration 2s --set train.computation_time=30 ||
	{ bad "compute30: run failed"; cat "$TMP/out-compute30"; }
s=$(only_result "$res")/summary.json
expect "compute30: stopped by the duration" "$s" '.status == "complete" and .train.stopped_by_duration == true'
expect "compute30: at most 2 s of compute counted" "$s" '.train.elapsed_s < 4'

# 3. SIGTERM to mpirun during training: the summary says interrupted.
res=$TMP/r3
# mpirun itself in the background (not through gf, a shell function), so $! is mpirun.
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" train "$SMALL" --engine null --target "$TMP/t3" --results "$res" --quiet \
	--set dataset.num_files_train=100000 --set train.computation_time=50ms --set train.epochs=1 \
	>"$TMP/out-term" 2>&1 &
pid=$!
sleep 3
t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
[ "$(echo "$took < 5" | bc)" -eq 1 ] && ok "sigterm: ended $took s after the signal" ||
	{ bad "sigterm: ended $took s after the signal"; cat "$TMP/out-term"; }
[ "$rc" -ne 0 ] && ok "sigterm: exit $rc" || bad "sigterm: exit 0"
s=$(find "$res" -name summary.json | head -1)
if [ -n "$s" ]; then
	expect "sigterm: status interrupted" "$s" '.status == "interrupted"'
else
	bad "sigterm: no summary.json under $res"; cat "$TMP/out-term"
fi

# 4. SIGTERM during a long time_between_checkpoints wait (checkpoint-only run).
res=$TMP/r4
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$SRCDIR/workloads/llama3_8b.yaml" --target "$TMP/t4" --results "$res" --quiet \
	--set checkpoint.scale=1/100000 --set model.parallelism.data=2 \
	--set checkpoint.time_between_checkpoints=3600 --set checkpoint.num_checkpoints_write=1 \
	--set checkpoint.num_checkpoints_read=0 >"$TMP/out-ckpt" 2>&1 &
pid=$!
sleep 3
t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid"
rc=$?
took=$(echo "$(date +%s.%N) - $t0" | bc)
[ "$(echo "$took < 5" | bc)" -eq 1 ] && ok "checkpoint wait: ended $took s after the signal" ||
	{ bad "checkpoint wait: ended $took s after the signal"; cat "$TMP/out-ckpt"; }
s=$(find "$res" -name summary.json | head -1)
if [ -n "$s" ]; then
	expect "checkpoint wait: status interrupted" "$s" '.status == "interrupted"'
else
	bad "checkpoint wait: no summary.json under $res"; cat "$TMP/out-ckpt"
fi
# 5. Issue 28 item 14: --duration bounds the whole command, every phase, and summary.json
# names the phase it cut: a datagen far longer than the duration (200,000 files), a
# checkpoint-only run of 40 bursts, a sweep of 3 values of 10 s each.
res=$TMP/r5
timed datagen 20 gf 2 run "$SMALL" --target "$TMP/t5" --results "$res" --quiet --duration 2s \
	--set dataset.num_files_train=200000 --set dataset.record_length_bytes=1KiB --set dataset.record_length_bytes_stdev=0 ||
	{ bad "datagen: exit $?"; cat "$TMP/out-datagen"; }
s=$(only_result "$res")/summary.json
expect "datagen: complete, the deadline cut datagen, nothing trained" "$s" \
	'.status == "complete" and .duration.cut_phase == "datagen" and .duration.limit_s == 2 and .datagen.files < 200000 and (has("train") | not)'
[ ! -e "$TMP/t5/.gpufeed-manifest.json" ] && ok "datagen: a cut dataset has no manifest" || bad "datagen: a manifest for a cut dataset"
res=$TMP/r6
timed checkpoint 20 gf 2 run "$SRCDIR/workloads/llama3_8b.yaml" --target "$TMP/t6" --results "$res" --quiet --duration 2s \
	--set checkpoint.scale=1/20000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0.2 \
	--set checkpoint.num_checkpoints_write=40 --set checkpoint.num_checkpoints_read=40 ||
	{ bad "checkpoint: exit $?"; cat "$TMP/out-checkpoint"; }
s=$(only_result "$res")/summary.json
expect "checkpoint: complete, the deadline cut the checkpoint phase" "$s" \
	'.status == "complete" and .duration.cut_phase == "checkpoint" and .checkpoint.write_count < 40'
[ -z "$(find "$TMP/t6/checkpoints" -name '*.pt' 2>/dev/null)" ] && ok "checkpoint: what the cut phase wrote is deleted" ||
	bad "checkpoint: shards left"
res=$TMP/r7
timed sweep 30 gf 2 sweep "$SMALL" --engine null --results "$res" --quiet --duration 2s \
	--vary reader.read_threads=1,2,4 --set train.computation_time=10ms || { bad "sweep: exit $?"; cat "$TMP/out-sweep"; }
s=$(only_result "$res")/summary.json
expect "sweep: complete, the deadline cut the sweep" "$s" '.status == "complete" and .duration.cut_phase == "sweep"'
finish
