#!/usr/bin/env bash
# Description: the loader reads as the framework does in DLIO (argonne-lcf/dlio_benchmark,
# branch mlperf_storage_v2.0), counted in files opened per epoch, for every format.
# PyTorch workers open, read and close a file per sample with read_type on_demand
# (reader_handler.py:118-124), whatever the format; mmap_indexed_binary maps each file
# once per reader for the whole run (indexed_binary_mmap_reader.py:53-66, read_index
# never opens); tensorflow + tfrecord streams each rank's shard of the files once per
# epoch (tf_reader.py:85-92). The default loader keeps one sample read in flight per
# reader thread (a DataLoader worker blocks on each sample), and summary.json names it.
# Expected: opens as below; train.loader.model as below; deeper async queues only when
# target.queue_depth is given. Buggy: a file opened per sample for TFRecord (a resnet50
# run opened 32 files 6,400 times), one mmap_indexed_binary file opened per sample, or 8
# reads in flight per thread by default.
. "$(dirname "$0")/lib.sh"

# 2 ranks x 1 accelerator, 8 files x 4 samples, batch 2, 2 epochs: 16 samples per rank
# per epoch.
common=(--quiet --set dataset.num_files_train=8 --set dataset.num_samples_per_file=4
	--set reader.batch_size=2 --set train.epochs=2 --set dataset.record_length_bytes=8KiB
	--set dataset.record_length_bytes_stdev=0)

formats="npz npy jpeg png csv indexed_binary"
if "$GPUFEED" --version 2>/dev/null | grep -qi hdf5 || [ -n "$(ldd "$GPUFEED" 2>/dev/null | grep -i hdf5)" ]; then
	formats="$formats hdf5"
fi
for fmt in $formats; do
	gf 2 run "$SMALL" --target "$TMP/t-$fmt" --results "$TMP/r-$fmt" "${common[@]}" \
		--set dataset.format=$fmt >"$TMP/o" 2>&1 || { bad "$fmt run failed"; cat "$TMP/o"; continue; }
	s=$(only_result "$TMP/r-$fmt")/summary.json
	expect "$fmt: a file opened per sample read (64 = 2 epochs x 32)" "$s" '.train.files_opened == 64'
	expect "$fmt: pytorch worker, one read in flight per thread" "$s" \
		'.train.loader.model == "pytorch_worker" and .train.loader.reads_in_flight_per_thread == 1'
done

# mmap_indexed_binary, one reader thread per rank: each rank maps its files once for the
# run. DLIO maps every file of the rank's index per worker at its start, and in DLIO's
# order a rank's index is its contiguous range (16 samples = 4 files): 8 in all.
gf 2 run "$SMALL" --target "$TMP/t-mmap" --results "$TMP/r-mmap" "${common[@]}" \
	--set dataset.format=mmap_indexed_binary --set reader.read_threads=1 >"$TMP/o" 2>&1 || { bad "mmap run failed"; cat "$TMP/o"; }
s=$(only_result "$TMP/r-mmap")/summary.json
expect "mmap_indexed_binary: each file of the rank's range opened once for the run" "$s" '.train.files_opened == 8'

# tensorflow + tfrecord: each rank streams its 4 files every epoch, 2 reader threads.
gf 2 run "$SMALL" --target "$TMP/t-tf" --results "$TMP/r-tf" "${common[@]}" --set framework=tensorflow \
	--set reader.data_loader=tensorflow --set dataset.format=tfrecord --set reader.sample_shuffle=seed \
	--set reader.shuffle_size=4 >"$TMP/o" 2>&1 || { bad "tfrecord run failed"; cat "$TMP/o"; }
s=$(only_result "$TMP/r-tf")/summary.json
expect "tfrecord: each file opened once per epoch (16 = 8 files x 2 epochs)" "$s" '.train.files_opened == 16'
# The files as TFRecordWriter frames them (formats.sh checks the framing): 4 records of
# 8 KiB each plus 16 bytes of lengths and CRCs and the Example's fields around the image.
tfbytes=$(find "$TMP/t-tf/train" -name '*.tfrecord' -printf '%s\n' | awk '{ s += $1 } END { print s }')
expect "tfrecord: the whole shard read, once per epoch ($tfbytes bytes of files)" "$s" \
	".train.read_bytes == 2 * $tfbytes and $tfbytes > 8 * 4 * (8192 + 16)"
expect "tfrecord: tf_stream, every step ran" "$s" '.train.loader.model == "tf_stream" and .train.steps == 32'
grep -q "^loader: tf_stream" "$TMP/o" && ok "the verdict names the loader" || { bad "no loader line"; cat "$TMP/o"; }
# Keys given that change nothing are listed with the reason; a DLIO key DLIO ignores too.
gf 1 run "$SMALL" --target "$TMP/t-npz1" --results "$TMP/r-we" --quiet --set workflow.debug=false \
	--set reader.computation_threads=8 --set reader.shuffle_size=64 >"$TMP/o" 2>&1 || { bad "without-effect run"; cat "$TMP/o"; }
s=$(only_result "$TMP/r-we")/summary.json
expect "accepted_without_effect lists workflow.debug, computation_threads and shuffle_size (pytorch)" "$s" \
	'([.accepted_without_effect[].key] | index("workflow.debug") != null and index("reader.computation_threads") != null and index("reader.shuffle_size") != null)'
grep -q "note: accepted without effect: workflow.debug" "$TMP/o" && ok "run says it" || { bad "no note"; cat "$TMP/o"; }

# An explicit target.queue_depth keeps the asynchronous depth.
gf 2 run "$SMALL" --target "$TMP/t-npz" --results "$TMP/r-qd" "${common[@]}" --set dataset.format=npz \
	--set target.queue_depth=4 >"$TMP/o" 2>&1 || { bad "queue_depth run failed"; cat "$TMP/o"; }
s=$(only_result "$TMP/r-qd")/summary.json
expect "target.queue_depth 4: async loader at depth 4" "$s" \
	'.train.loader.model == "async" and .train.loader.reads_in_flight_per_thread == 4 and .target.queue_depth == 4'
finish
