#!/usr/bin/env bash
# Description: checkpoints as DLIO counts and names them, and as training meets them (the
# DLIO arithmetic half of checkpoint.sh, run in the plain build only: its code paths are
# checkpoint.sh's, which runs under the sanitizers): fsync off is said, not durable; a
# checkpoint during training halts the accelerators outside AU, inside goodput; pipeline
# 2 with ZeRO 1 writes DLIO's per-layer files; time_between_checkpoints comes before every
# burst, the first too; -1 checkpoints is none; steps_between_checkpoints restarts every
# epoch.
# Expected: DLIO's file names and counts (mlperf_storage_v2.0 base_checkpointing.py,
# main.py), the halts in goodput only. Buggy: a burst counted in AU, a wrong layer split,
# a first burst without its wait.
. "$(dirname "$0")/lib.sh"

LLAMA=$SRCDIR/workloads/llama3_8b.yaml
common=(--set checkpoint.scale=1/1000 --set model.parallelism.data=4 --set checkpoint.time_between_checkpoints=0
	--set checkpoint.num_checkpoints_write=2 --set checkpoint.num_checkpoints_read=2 --quiet)

# fsync off: no time is spent making data durable, and the summary says it is not.
gf 4 run "$LLAMA" --target "$TMP/t-nosync" --results "$TMP/r-nosync" "${common[@]}" --set checkpoint.fsync=false >/dev/null 2>&1 || bad "fsync=false run"
expect "fsync off: not durable, no sync time" "$(only_result "$TMP/r-nosync")/summary.json" '.checkpoint.durable == false and ([.checkpoint.bursts[].sync_max_s == 0] | all)'

# A checkpoint during training: the bursts appear on the timeline and halt the accelerators.
# Without the step barrier: on a loaded machine every step's wait for the latest rank's
# wake-up would be in AU too (3/4 of it at load 14 on 2 cores), and the check is the halts'.
gf 2 run "$SMALL" --target "$TMP/t-train" --results "$TMP/r-train" --quiet --set workflow.checkpoint=true \
	--set model.model_size_bytes=64MiB --set checkpoint.type=all_ranks --set checkpoint.steps_between_checkpoints=8 \
	--set train.computation_time=20ms --set checkpoint.fsync=true --set accelerator.step_barrier=false >"$TMP/o" 2>&1 ||
	{ bad "train with checkpoints"; cat "$TMP/o"; }
d=$(only_result "$TMP/r-train")
expect "training wrote checkpoints" "$d/summary.json" '.checkpoint.write_count == 4 and .checkpoint.bytes >= 64 * 1048576'
expect "training halted for them" "$d/summary.json" '.train.checkpoint_halt_s > 0 and .checkpoint.training_halt_s > 0'
awk -F, 'NR > 1 && $11 > 0 { found = 1 } END { exit !found }' "$d/timeseries.csv" && ok "bursts in the time series" || bad "no checkpoint time in timeseries.csv"
# DLIO (mlperf_storage_v2.0 main.py:337-339, :355-356) closes the AU block before every
# checkpoint and opens a new one after it: the halt is not in AU, it is in goodput.
expect "AU leaves the halts out, goodput keeps them" "$d/summary.json" \
	'.train.au_percent.mean >= 80 and .train.goodput_percent < .train.au_percent.mean'

# DLIO's files (base_checkpointing.py:389-415, mlperf_storage_v2.0): pipeline 2 with ZeRO 1
# writes one file per layer of each stage on data-parallel rank 0 (layers 0-16 and 17-34 of
# the 32-layer model with embedding, head and norm), global_epoch1_step1 for the first
# checkpoint-only write, and an optimizer file on every rank.
gf 4 run "$LLAMA" --target "$TMP/t-pl" --results "$TMP/r-pl" "${common[@]}" --set model.parallelism.pipeline=2 \
	--set model.parallelism.data=2 --set model.parallelism.zero_stage=1 --set checkpoint.keep=true \
	--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1 >"$TMP/o" 2>&1 || { bad "pipeline 2 ZeRO 1"; cat "$TMP/o"; }
d=$TMP/t-pl/checkpoints/llama3_8b/global_epoch1_step1
n0=$(find "$d" -name 'layer_*-model_0_model_states.pt' | wc -l)
n1=$(find "$d" -name 'layer_*-model_1_model_states.pt' | wc -l)
no=$(find "$d" -name 'zero_pp_rank_*_mp_rank_*_optim_states.pt' | wc -l)
[ "$n0" -eq 17 ] && [ "$n1" -eq 18 ] && [ "$no" -eq 4 ] && [ -f "$d/layer_34-model_1_model_states.pt" ] &&
	ok "per-layer files: 17 + 18 layers, 4 optimizer files, DLIO's names" || bad "per-layer files: $n0 + $n1 layers, $no optimizer files"
expect "per-layer checkpoint restores and verifies" "$(only_result "$TMP/r-pl")/summary.json" '.checkpoint.verified == true and .checkpoint.restore_count == 1'

# The checkpoint-only schedule (main.py:278-303): time_between_checkpoints before every
# write and every read, the first too.
gf 4 run "$LLAMA" --target "$TMP/t-sched" --results "$TMP/r-sched" "${common[@]}" \
	--set checkpoint.time_between_checkpoints=0.4 >"$TMP/o" 2>&1 || { bad "schedule run"; cat "$TMP/o"; }
expect "a wait before the first write and before every burst" "$(only_result "$TMP/r-sched")/summary.json" \
	'.checkpoint.bursts[0].start_s >= 0.38 and ([range(1; .checkpoint.bursts | length) as $i | .checkpoint.bursts[$i].start_s - .checkpoint.bursts[$i - 1].start_s >= 0.38] | all)'
# num_checkpoints_write / _read unset (-1) is none (main.py:262, :267): nothing to do.
gf 1 run "$LLAMA" --target "$TMP/t-none" --results "$TMP/r-none" --quiet --set model.parallelism.data=1 \
	--set checkpoint.num_checkpoints_write=-1 --set checkpoint.num_checkpoints_read=-1 >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "writes and reads nothing" "$TMP/o" && ok "-1 writes and reads none: refused, exit 2" || { bad "-1: exit $rc"; cat "$TMP/o"; }

# DLIO's counting: total_training_steps caps each epoch (main.py:348) and
# steps_between_checkpoints restarts every epoch (:403): 3 epochs of 5 steps with a
# checkpoint every 5 steps is 15 steps and 3 checkpoints, global_epoch{1,2,3}_step5.
gf 2 run "$SMALL" --target "$TMP/t-ep" --results "$TMP/r-ep" --set workflow.checkpoint=true \
	--set model.model_size_bytes=1MiB --set train.epochs=3 --set train.total_training_steps=5 \
	--set checkpoint.steps_between_checkpoints=5 --set checkpoint.keep=true >"$TMP/o" 2>&1 || { bad "3 epochs of 5 steps"; cat "$TMP/o"; }
d=$(only_result "$TMP/r-ep")
expect "15 steps per accelerator, 3 checkpoints" "$d/summary.json" '.train.steps == 30 and .checkpoint.write_count == 3'
ls -d "$TMP"/t-ep/checkpoints/global_epoch{1,2,3}_step5 >/dev/null 2>&1 && ok "folders global_epoch{1,2,3}_step5 (base_checkpointing.py:389)" ||
	{ bad "checkpoint folder names"; ls "$TMP/t-ep/checkpoints"; }
grep -q "^checkpoint halt: .* outside the AU blocks (as DLIO); goodput" "$TMP/o" && ok "the verdict reports the halt and goodput" \
	|| { bad "no halt/goodput line in the verdict"; cat "$TMP/o"; }
finish
