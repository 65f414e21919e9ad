#!/usr/bin/env bash
# Description: the loader and the step as DLIO runs them (argonne-lcf/dlio_benchmark,
# mlperf_storage_v2.0, commit 392621b), on the null engine so that only the loader's
# concurrency and the step's synchronisation set the AU. Every figure is hand-computed.
#
# Batches in flight: DLIO hands PyTorch prefetch_factor = ceil(prefetch_size /
# read_threads) (torch_data_loader.py:119-120), so each of the read_threads workers holds
# that many batches. 4 workers, each 20 ms a sample (reader.preprocess_time), batch 7,
# compute 50 ms, prefetch_size 2: 4 batches in flight, one ready every 140 / 4 = 35 ms, so
# the accelerator is fed (AU ~100%). With 2 workers, one every 70 ms: AU 50 / 70 = 71.4%.
# Buggy (gpufeed before): 2 batches in flight whatever the workers, STARVED at ~71% with 4.
#
# The barrier: DLIO's comm.barrier() after every step (main.py:334), its wait in AU's
# denominator (statscounter.py:407). 2 ranks fed from the null engine, compute uniform in
# [10, 30] ms drawn per rank: a step lasts the longer of the two draws, E[max] = 10 + 20 x
# 2/3 = 23.33 ms against E[compute] = 20 ms, so AU = 85.7%; accelerator.step_barrier
# false gives ~100%. Buggy: the barrier's wait absorbed by absolute deadlines (gpufeed
# before reported ~93% where DLIO's loop gives 85.7%). A duration ends every rank after
# the same step (no rank left in a barrier).
# Strict AU checks only when the ranks did not wait for CPU (train.runqueue_wait_s under
# 5% of compute): on a loaded machine the ranks' own waits lower every AU.
. "$(dirname "$0")/lib.sh"

quiet() { jq -e '.train.runqueue_wait_s < 0.05 * .train.compute_s' "$1" >/dev/null; }

loader=(train "$SMALL" --engine null --quiet --set dataset.num_files_train=168 --set reader.batch_size=7
	--set train.computation_time=50ms --set reader.prefetch_size=2 --set reader.preprocess_time=20ms
	--set train.epochs=1)
gf 1 "${loader[@]}" --results "$TMP/r4" --set reader.read_threads=4 >"$TMP/o" 2>&1 || { bad "4 workers"; cat "$TMP/o"; }
s=$(only_result "$TMP/r4")/summary.json
expect "4 workers, prefetch_size 2: 4 x ceil(2/4) = 4 batches in flight" "$s" '.train.loader.batches_in_flight == 4'
expect "24 steps" "$s" '.train.steps == 24'
if quiet "$s"; then
	expect "4 workers keep the accelerator fed (one batch per 35 ms < 50 ms compute)" "$s" '.train.au_percent.mean >= 93'
fi
gf 1 "${loader[@]}" --results "$TMP/r2" --set reader.read_threads=2 >"$TMP/o" 2>&1 || { bad "2 workers"; cat "$TMP/o"; }
s=$(only_result "$TMP/r2")/summary.json
expect "2 workers: 2 batches in flight" "$s" '.train.loader.batches_in_flight == 2'
if quiet "$s"; then
	expect "2 workers: AU 50/70 = 71.4% (within 65-76%)" "$s" '.train.au_percent.mean >= 65 and .train.au_percent.mean <= 76'
fi

step=(train "$SMALL" --engine null --quiet --set dataset.num_files_train=480 --set reader.batch_size=2
	--set 'train.computation_time={type: uniform, min: 0.01, max: 0.03}' --set train.epochs=1)
gf 2 "${step[@]}" --results "$TMP/rb" >"$TMP/o" 2>&1 || { bad "barrier run"; cat "$TMP/o"; }
s=$(only_result "$TMP/rb")/summary.json
expect "the barrier is on by default and said so" "$s" '.train.step_barrier == true and .workload.accelerator.step_barrier == true'
grep -q "^steps: every rank waits for all" "$TMP/o" || grep -q "steps: every rank" "$(dirname "$s")/report.txt" &&
	ok "report.txt names the barrier" || bad "no steps line"
if quiet "$s"; then
	expect "barrier: AU = E[c] / E[max of 2] = 85.7% (within 80-89%)" "$s" \
		'.train.au_percent.mean >= 80 and .train.au_percent.mean <= 89'
fi
gf 2 "${step[@]}" --results "$TMP/rn" --set accelerator.step_barrier=false >"$TMP/o" 2>&1 || { bad "no-barrier run"; cat "$TMP/o"; }
s=$(only_result "$TMP/rn")/summary.json
expect "step_barrier false is said so" "$s" '.train.step_barrier == false'
if quiet "$s"; then
	expect "no barrier: fed, AU >= 97%" "$s" '.train.au_percent.mean >= 97'
fi

# A duration with the barrier: every rank stops after the same step.
gf 2 "${step[@]}" --results "$TMP/rd" --duration 1 >"$TMP/o" 2>&1 || { bad "duration run"; cat "$TMP/o"; }
s=$(only_result "$TMP/rd")/summary.json
expect "a duration stops the run" "$s" '.train.stopped_by_duration == true and .train.steps > 0'
steps=$(awk -F, 'NR > 1 { print $8 }' "$(dirname "$s")/ranks.csv" | sort -u)
[ "$(printf '%s\n' "$steps" | grep -c .)" -eq 1 ] && ok "both ranks stopped after step $steps" ||
	bad "the ranks stopped at different steps: $steps"
finish
