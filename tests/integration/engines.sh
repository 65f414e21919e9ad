#!/usr/bin/env bash
# Description: the training phase and the ceiling on the uring, aio and posix engines,
# buffered and with O_DIRECT (on this test's temporary folder, a block filesystem), with
# files opened per sample and kept open (read_type memory), agree on what they read.
# Records of about 24,000 bytes (not a multiple of any block size) back to back in csv
# files (no framing around them), so O_DIRECT has to round offsets and lengths.
# Expected: for each phase every engine and mode reads the same samples and the same
# requested bytes (the plan's); buffered moves exactly those bytes, O_DIRECT moves at
# least them and reports its alignment; read_type memory opens each file once per thread
# at most and on_demand once per sample; summary.json names the engine. (The default
# engine: default_engine.sh.)
# Buggy: an engine that loses or repeats a sample, padding counted as requested bytes,
# a short read at a file's end taken for an error, files reopened despite the cache.
. "$(dirname "$0")/lib.sh"

data=$TMP/data
common=(--set dataset.format=csv --set dataset.num_files_train=16 --set dataset.num_samples_per_file=8
	--set dataset.record_length_bytes=24000 --set dataset.record_length_bytes_stdev=3000
	--set train.epochs=1 --set train.computation_time=0 --quiet)
gf 2 datagen "$SMALL" --target "$data" --results "$TMP/r-gen" "${common[@]}" >"$TMP/gen" 2>&1 || { bad "datagen failed"; cat "$TMP/gen"; }
# The local-path engines built into this binary (uring and aio are optional), in the
# registry's order of preference.
built=$("$GPUFEED" run --help | sed -n 's/.*I\/O engine: \([a-z0-9|]*\).*/\1/p' | tr '|' ' ')
engines=""
for want in uring aio posix; do
	case " $built " in *" $want "*) engines="$engines $want" ;; *) echo "note: engine $want is not built here" ;; esac
done
engines=${engines# }

ref_samples="" ref_req=""
for phase in train ceiling; do
	for e in $engines; do
		for direct in false true; do
			for rt in on_demand memory; do
				# Every engine x direct x open-file mode once over the two phases, which
				# read through the same fetch code (keeps the suite fast under ASan).
				if [ "$phase" = train ]; then
					[ "$direct" = false ] && [ "$rt" = memory ] && continue
					[ "$direct" = true ] && [ "$rt" = on_demand ] && continue
				else
					[ "$direct" = false ] && [ "$rt" = on_demand ] && continue
					[ "$direct" = true ] && [ "$rt" = memory ] && continue
				fi
				res=$TMP/r-$phase-$e-$direct-$rt
				if ! gf 2 "$phase" "$SMALL" --target "$data" --results "$res" --engine "$e" "${common[@]}" \
					--set target.direct=$direct --set reader.read_type=$rt --set target.queue_depth=4 \
					>"$TMP/out" 2>&1; then
					bad "$phase $e direct=$direct $rt failed"; cat "$TMP/out"; continue
				fi
				s=$(only_result "$res")/summary.json
				samples=$(jq ".$phase.samples" "$s")
				req=$(jq ".$phase.read_bytes_requested" "$s")
				if [ -z "$ref_samples" ]; then ref_samples=$samples ref_req=$req; fi
				tag="$phase $e direct=$direct $rt"
				expect "$tag: same samples ($ref_samples) and requested bytes ($ref_req)" "$s" \
					".$phase.samples == $ref_samples and .$phase.read_bytes_requested == $ref_req and .target.engine == \"$e\""
				if [ "$direct" = true ]; then
					expect "$tag: O_DIRECT used, aligned, moved >= requested" "$s" \
						".target.direct == true and .target.direct_align_bytes >= 512 and .$phase.read_bytes >= .$phase.read_bytes_requested and .$phase.read_bytes > .$phase.read_bytes_requested"
				else
					expect "$tag: buffered moves exactly the requested bytes" "$s" \
						".target.direct == false and .$phase.read_bytes == .$phase.read_bytes_requested"
				fi
				if [ "$rt" = memory ]; then
					# 2 ranks x 2 reader threads, 16 files: each opened once per thread at most.
					expect "$tag: files kept open" "$s" ".$phase.files_opened <= 64 and .target.open_files_per_thread > 4"
				else
					expect "$tag: one open per sample" "$s" ".$phase.files_opened == .$phase.samples"
				fi
			done
		done
	done
done
# The whole schedule of one epoch is every sample that fills a batch: 128 samples, 2 accelerators.
[ "$ref_samples" = 128 ] && ok "one epoch = 128 samples" || bad "expected 128 samples, got $ref_samples"
[ "$ref_req" = "$(find "$data/train" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')" ] &&
	ok "requested bytes = bytes on disk" || bad "requested bytes $ref_req differ from the dataset"

# SQPOLL on uring, and refused on another engine before anything runs.
case " $engines " in *" uring "*)
	if gf 1 ceiling "$SMALL" --target "$data" --results "$TMP/r-sqpoll" --engine uring "${common[@]}" \
		--set target.sqpoll=true >"$TMP/sq" 2>&1; then
		expect "uring with SQPOLL reads the same" "$(only_result "$TMP/r-sqpoll")/summary.json" ".ceiling.samples == 128"
	elif grep -q "SQPOLL" "$TMP/sq"; then
		echo "note: this kernel refuses SQPOLL here: $(grep -m1 SQPOLL "$TMP/sq")"
	else
		bad "sqpoll run failed"; cat "$TMP/sq"
	fi ;;
esac
gf 1 ceiling "$SMALL" --target "$data" --results "$TMP/r-sqp" --engine posix "${common[@]}" --set target.sqpoll=true >"$TMP/sq2" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "io_uring" "$TMP/sq2" && ok "sqpoll on posix: exit 2 naming io_uring" || { bad "sqpoll on posix gave $rc"; cat "$TMP/sq2"; }
finish
