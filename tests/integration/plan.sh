#!/usr/bin/env bash
# Description: gpufeed plan does no I/O, is fast and small whatever the dataset size.
# Expected: a workload of 10^10 samples plans with under a second of CPU time (CPU, not
# wall-clock time: a loaded machine stretches the wall clock, never the work done) and a
# peak resident memory under 64 MiB; the demand figures follow batch x mean / compute; the page-cache
# warning shows for a small dataset and not for a large one.
# Buggy: a per-file or per-sample array (memory grows with the dataset), MPI started for
# a plan, wrong arithmetic.
. "$(dirname "$0")/lib.sh"

out=$TMP/plan
/usr/bin/time -v "$GPUFEED" plan "$SMALL" --ranks 1024 --set dataset.num_files_train=10000000000 \
	--set train.computation_time=0.5 --set reader.batch_size=10 --set dataset.record_length_bytes=1MB \
	>"$out" 2>"$TMP/time" || { bad "plan failed"; cat "$out" "$TMP/time"; }
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time")
secs=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s + 0 }' "$TMP/time")
echo "plan of 10^10 samples: ${rss_kb} KiB resident, ${secs} s of CPU"
[ "${rss_kb:-999999}" -lt 65536 ] && ok "peak RSS ${rss_kb} KiB < 64 MiB" || bad "peak RSS ${rss_kb} KiB"
awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }' && ok "plan used ${secs} s of CPU < 1 s" ||
	{ bad "plan used ${secs} s of CPU"; cat "$TMP/time"; }
grep -q "10000000000 samples" "$out" && ok "sample count" || bad "sample count missing"
grep -q "1024 accelerators" "$out" && ok "1024 accelerators" || bad "accelerator count"
# 10 x 1 MB / 0.5 s = 20 MB/s per accelerator, 20.5 GB/s for 1024.
grep -q "demand        20.0 MB/s per accelerator" "$out" && ok "per-accelerator demand" || { bad "demand"; grep demand "$out"; }
grep -q "demand total  20.5 GB/s" "$out" && ok "total demand" || { bad "total demand"; grep demand "$out"; }
grep -q "page cache" "$out" && bad "page-cache warning for a 10 PB dataset" || ok "no page-cache warning for 10 PB"

"$GPUFEED" plan "$SMALL" --ranks 2 >"$out" 2>&1 || bad "small plan failed"
grep -q "page cache" "$out" && ok "page-cache warning for a small dataset" || bad "no page-cache warning"
"$GPUFEED" plan "$SMALL" --ranks 2 --nodes 1 --node-memory 1KiB >"$out" 2>&1
grep -q "page cache" "$out" && bad "warning with 1 KiB node memory" || ok "--node-memory is used"
# plan on a workload too small for the ranks is a usage error.
"$GPUFEED" plan "$SMALL" --ranks 64 >"$out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "fewer than one batch" "$out" && ok "too many ranks: exit 2 with reason" || { bad "too many ranks: exit $rc"; cat "$out"; }
grep -q "plan --fit" "$out" && ok "the refusal names plan --fit" || bad "no --fit hint"

# --fit (DLIO's datasize): unet3d's 168 files of mean 146600628 B on 32 nodes of 512 GiB:
# 5 x 32 x 512 GiB / 146600628 B = 600003.4 -> 600004 files; 256 x batch 7 = 1792 files by
# batch. Then the plan runs with it (the README's cluster example, which exits 2 without).
"$GPUFEED" plan "$SRCDIR/workloads/unet3d_h100.yaml" --ranks 256 --nodes 32 --node-memory 512GiB --fit \
	>"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^fit           num_files_train 600004 .*needs 600004, one batch per accelerator 1792" "$out" &&
	grep -q "^dataset       600004 files" "$out" && ok "--fit: 600004 files, plan exits 0" ||
	{ bad "--fit: exit $rc"; cat "$out"; }
# A small memory: the batch bound wins (64 ranks x batch 4 of small.yaml = 256 samples).
bpf=$("$GPUFEED" plan "$SMALL" --ranks 64 --node-memory 1KiB --fit 2>&1 | sed -n 's/.*one batch per accelerator \([0-9]*\);.*/\1/p')
spf=$(awk '/num_samples_per_file/ { print $2 }' "$SMALL")
bs=$(sed -n 's/.*batch_size: *\([0-9]*\).*/\1/p' "$SMALL" | head -1)
want=$(( (64 * bs + spf - 1) / spf ))
[ "$bpf" = "$want" ] && ok "--fit by batch: $bpf files" || bad "--fit by batch: '$bpf', expected $want"

# plan says what run will refuse (here: evaluation, which run does not emulate), prints no
# training lines for a generate-only workflow, and words checkpoint sizes as they are:
# a flat model_size is a model_states file, and DLIO would write 10 KiB there
# (base_checkpointing.py:159-168 reads model_size_bytes only, config.py:123 default).
"$GPUFEED" plan "$SMALL" --ranks 2 --set workflow.evaluation=true >"$out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "^refused       run would stop here: .*workflow.evaluation" "$out" &&
	ok "plan says run refuses evaluation, exit 2" || { bad "evaluation: exit $rc"; cat "$out"; }
"$GPUFEED" plan "$SMALL" --ranks 2 --set workflow.train=false --set workflow.generate_data=true >"$out" 2>&1 ||
	{ bad "generate-only plan"; cat "$out"; }
grep -qE "^(per epoch|run |compute|demand|loader)" "$out" && { bad "training lines for generate-only"; cat "$out"; } ||
	ok "generate-only: no training lines"
grep -q "train         not in this workflow (generate only)" "$out" && ok "generate-only said" || bad "generate-only not said"
"$GPUFEED" plan "$SRCDIR/workloads/unet3d_h100.yaml" --ranks 2 --set workflow.checkpoint=true >"$out" 2>&1 ||
	{ bad "unet3d checkpoint plan"; cat "$out"; }
grep -q "model_states 476 MiB (a flat model size)" "$out" && ! grep -q "12 B per parameter" "$out" &&
	ok "a flat checkpoint is worded as one" || { bad "flat checkpoint wording"; grep -E "checkpoint|note" "$out"; }
grep -q "DLIO reads only model_size_bytes and would write its 10 KiB default" "$out" && ok "model_size note" ||
	{ bad "no model_size note"; cat "$out"; }
grep -q "^checkpoints   1 during training" "$out" && ok "unet3d: one checkpoint (after epoch 5)" || { bad "checkpoint count"; cat "$out"; }

# storage_root + an s3:// data_folder (MLPerf's unet3d_h100_s3): the data folder is the URI
# (DLIO's s3_torch_storage.py get_uri returns it as is), not root/s3://...
cat >"$TMP/s3.yaml" <<'YAML'
model:
  name: unet3d
framework: pytorch
dataset:
  data_folder: s3://s3pytorchconnector
  format: npz
  num_files_train: 168
storage:
  storage_type: s3
  storage_root: s3pytorchconnector
  storage_options:
    endpoint_url: http://localhost:9020
    access_key_id: access-key
    secret_access_key: secret-key
reader:
  data_loader: pytorch
  batch_size: 7
train:
  computation_time: 0.323
YAML
"$GPUFEED" plan "$TMP/s3.yaml" --ranks 2 --set storage.storage_options.region=us-east-1 >"$out" 2>&1 || { bad "s3 plan"; cat "$out"; }
grep -q "^target        s3://s3pytorchconnector (engine s3)" "$out" && ok "s3:// data_folder is the target, storage_root not prefixed" ||
	{ bad "s3 target"; grep target "$out"; }
grep -q "storage.storage_type (the target's scheme picks the backend)" "$out" && ok "storage_type listed as without effect" ||
	{ bad "accepted without effect"; cat "$out"; }
finish
