#!/usr/bin/env bash
# Description: the mmap engine (each file mapped once, a read is a memcpy from the
# mapping) reads what posix reads. One dataset, written once by the default engine:
# records of about 24,000 bytes back to back in 16 files (csv: no framing around them),
# read by train and ceiling with files opened per sample and kept open, with posix and
# with mmap; then ranged
# reads (reader.transfer_size below the record size). O_DIRECT is refused before anything
# is read.
# Expected: for every phase and mode, mmap's samples, requested bytes and bytes moved
# equal posix's, and the bytes moved are the bytes on disk; a file is mapped once per
# sample (on_demand) or at most once per reader thread (memory); summary.json names mmap
# and why; target.direct=true with mmap is a usage error (exit 2) before anything is read:
# the engine has no GF_IO_CAP_DIRECT.
# Buggy: a sample lost or read twice, bytes past a file's end copied from the mapping,
# files mapped again while kept open, padding counted as data.
. "$(dirname "$0")/lib.sh"

if ! "$GPUFEED" run --help | grep -q '|mmap|'; then
	echo "FAIL: this gpufeed has no mmap engine"
	exit 1
fi
data=$TMP/data
common=(--set dataset.format=csv --set dataset.num_files_train=16 --set dataset.num_samples_per_file=8
	--set dataset.record_length_bytes=24000 --set dataset.record_length_bytes_stdev=3000
	--set train.epochs=1 --set train.computation_time=0 --set target.direct=false --quiet)
gf 2 datagen "$SMALL" --target "$data" --results "$TMP/r-gen" "${common[@]}" >"$TMP/gen" 2>&1 ||
	{ bad "datagen failed"; cat "$TMP/gen"; }
disk=$(find "$data/train" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')

# figures PHASE RESULTS: samples, requested bytes and bytes moved. (Which reader thread
# opens which file varies from run to run: files opened are checked against bounds.)
figures() {
	jq -r ".$1 | \"\(.samples) \(.read_bytes_requested) \(.read_bytes)\"" "$(only_result "$2")/summary.json"
}

for phase in train ceiling; do
	for rt in on_demand memory; do
		for ts in 0 4KiB; do
			ref=
			for e in posix mmap; do
				res=$TMP/r-$phase-$rt-$ts-$e
				if ! gf 2 "$phase" "$SMALL" --target "$data" --results "$res" --engine "$e" "${common[@]}" \
					--set reader.read_type=$rt --set reader.transfer_size=$ts --set target.queue_depth=4 \
					>"$TMP/out" 2>&1; then
					bad "$phase $rt transfer_size=$ts $e failed"; cat "$TMP/out"; continue
				fi
				got=$(figures "$phase" "$res")
				if [ "$e" = posix ]; then
					ref=$got
					continue
				fi
				tag="$phase $rt transfer_size=$ts"
				[ -n "$ref" ] && [ "$got" = "$ref" ] &&
					ok "$tag: mmap = posix (samples, requested, moved: $got)" ||
					bad "$tag: mmap read $got, posix $ref"
				expect "$tag: mmap named, bytes on disk" "$(only_result "$res")/summary.json" \
					".target.engine == \"mmap\" and .target.engine_reason == \"--engine\" and .$phase.read_bytes == $disk"
				# 2 ranks x 2 reader threads, 16 files.
				if [ "$rt" = memory ]; then
					expect "$tag: each file mapped once per thread at most" "$(only_result "$res")/summary.json" \
						".$phase.files_opened <= 64"
				else
					expect "$tag: one mapping per sample" "$(only_result "$res")/summary.json" \
						".$phase.files_opened == .$phase.samples"
				fi
			done
		done
	done
done

gf 1 ceiling "$SMALL" --target "$data" --results "$TMP/r-direct" --engine mmap "${common[@]}" \
	--set target.direct=true >"$TMP/direct" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "the mmap engine has no O_DIRECT" "$TMP/direct" && ok "mmap with O_DIRECT refused (exit 2)" ||
	{ bad "mmap with O_DIRECT: exit $rc"; cat "$TMP/direct"; }
finish
