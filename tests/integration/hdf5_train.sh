#!/usr/bin/env bash
# Description: dataset.format hdf5 end to end under mpirun -np 2: datagen writes real HDF5
# files (records [64 rows x the file's sample size] uint8, every sample of a file one size
# as DLIO's generator makes them (hdf5_generator.py:63-69), chunked by whole rows from
# dataset.chunk_size, lengths, labels), train and ceiling read every sample through the
# hdf5 engine (one hyperslab per sample), and read the same samples and bytes as the same
# workload in format csv (records back to back) on posix.
# Expected: h5ls shows records with 64 rows, the width of the file's lengths, all equal (file
# 0's width as gpufeed plan prints it) and chunks of floor(chunk_size / width) rows; the
# lengths add up to the csv dataset's bytes; train and ceiling count the plan's samples,
# the same requested bytes as csv/posix, read_bytes = requested; summary.json names the
# hdf5 engine, why, and hyperslab reads; --engine posix (and O_DIRECT) on hdf5 data and
# --engine hdf5 on csv data exit 2 with a message naming dataset.format; a changed
# chunk_size is a dataset mismatch; a truncated file and a file with a broken signature
# fail the run with exit 1 and a message naming the file and HDF5's reason.
# Buggy: plain bytes named .hdf5, rows of the wrong width (offsets of a packed file read as
# rows), samples lost or doubled, posix silently reading HDF5 metadata as samples, an
# unreadable file reported without its name.
. "$(dirname "$0")/lib.sh"

if ! "$GPUFEED" run --help | grep -q '|hdf5|'; then
	echo "SKIP: this gpufeed has no HDF5"
	exit 77
fi
for t in h5ls h5dump; do
	command -v "$t" >/dev/null || { echo "SKIP: $t (hdf5-tools) is missing"; exit 77; }
done

h5=$TMP/h5
csv=$TMP/csv
common=(--set dataset.num_files_train=8 --set dataset.num_samples_per_file=64
	--set dataset.record_length_bytes=10KiB --set dataset.record_length_bytes_stdev=2KiB
	--set reader.batch_size=4 --set train.epochs=1 --set train.computation_time=0 --quiet)
hdf=(--set dataset.format=hdf5 --set dataset.enable_chunking=true --set dataset.chunk_size=48KiB)
samples=512 # 8 x 64, all read: 2 accelerators x 256 = 64 steps of 4 each

if ! gf 2 datagen "$SMALL" --target "$h5" --results "$TMP/r-gen" "${common[@]}" "${hdf[@]}" >"$TMP/gen" 2>&1; then
	bad "datagen hdf5 failed"; cat "$TMP/gen"; finish
fi
expect "datagen wrote 8 hdf5 files" "$(only_result "$TMP/r-gen")/summary.json" '.datagen.files == 8'
gf 2 datagen "$SMALL" --target "$csv" --results "$TMP/r-gen-csv" "${common[@]}" --set dataset.format=csv \
	>"$TMP/gen-csv" 2>&1 || { bad "datagen csv failed"; cat "$TMP/gen-csv"; }
csv_bytes=$(find "$csv/train" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')

# The files as the HDF5 tools see them.
plan_w0=$("$GPUFEED" plan "$SMALL" --target "$h5" "${common[@]}" "${hdf[@]}" | sed -n 's/.*(file 0: \([0-9]*\) bytes).*/\1/p')
total=0 files_ok=0
for i in 0 1 2 3 4 5 6 7; do
	f=$h5/train/img_${i}_of_8.hdf5
	shape=$(h5ls "$f/records" 2>&1 | sed -n 's/.*Dataset {\([0-9]*\), \([0-9]*\)}.*/\1 \2/p')
	chunk=$(h5ls -v "$f/records" 2>&1 | sed -n 's/.*Chunks: *{\([0-9]*\), \([0-9]*\)}.*/\1 \2/p')
	lengths=$(h5dump -d /lengths -y -w 0 "$f" 2>/dev/null | sed -n '/DATA {/{n;p}' | tr -d ' ')
	read -r rows width <<<"$shape"
	read -r crows cwidth <<<"$chunk"
	max=$(tr ',' '\n' <<<"$lengths" | sort -n | tail -1)
	min=$(tr ',' '\n' <<<"$lengths" | sort -n | head -1)
	n=$(tr ',' '\n' <<<"$lengths" | grep -c .)
	sum=$(tr ',' '\n' <<<"$lengths" | awk '{s+=$1} END {print s}')
	want_crows=$((49152 / ${width:-1}))
	[ "$want_crows" -lt 1 ] && want_crows=1
	if [ "${rows:-}" = 64 ] && [ "${width:-0}" = "${max:-x}" ] && [ "$n" = 64 ] &&
		[ "${crows:-}" = "$want_crows" ] && [ "${cwidth:-}" = "$width" ] && [ "$min" = "$max" ]; then
		files_ok=$((files_ok + 1))
	else
		bad "$f: records '$shape' chunks '$chunk', $n lengths, largest $max (want 64 rows x largest, chunks of $want_crows rows)"
	fi
	[ "$i" = 0 ] && w0=$width
	total=$((total + sum))
done
[ "$files_ok" = 8 ] && ok "h5ls: every file is records [64 x its largest sample], chunks of whole rows"
[ -n "$plan_w0" ] && [ "$plan_w0" = "${w0:-}" ] && ok "gpufeed plan prints file 0's width ($w0)" ||
	bad "gpufeed plan says file 0 is ${plan_w0:-?} bytes wide, h5ls ${w0:-?}"
[ "$total" = "$csv_bytes" ] && ok "lengths add up to the csv dataset ($total bytes)" ||
	bad "lengths add up to $total, the csv files hold $csv_bytes bytes"

# Train and ceiling: hdf5 through its engine against csv on posix.
for phase in train ceiling; do
	if ! gf 2 "$phase" "$SMALL" --target "$h5" --results "$TMP/r-$phase-h5" "${common[@]}" "${hdf[@]}" >"$TMP/$phase-h5" 2>&1; then
		bad "$phase on hdf5 failed"; cat "$TMP/$phase-h5"; continue
	fi
	if ! gf 2 "$phase" "$SMALL" --target "$csv" --results "$TMP/r-$phase-csv" --engine posix "${common[@]}" \
		--set dataset.format=csv >"$TMP/$phase-csv" 2>&1; then
		bad "$phase on csv failed"; cat "$TMP/$phase-csv"; continue
	fi
	sh=$(only_result "$TMP/r-$phase-h5")/summary.json
	sn=$(only_result "$TMP/r-$phase-csv")/summary.json
	expect "$phase hdf5: engine hdf5, chosen for the format" "$sh" '.target.engine == "hdf5" and (.target.engine_reason | test("dataset.format hdf5.*hyperslab"))'
	expect "$phase hdf5: summary says format and hyperslab reads" "$sh" '.plan.format == "hdf5" and .plan.layout == "hdf5_rows" and .plan.hdf5.hyperslab_reads == true and .plan.hdf5.chunked == true and .plan.hdf5.dataset == "/records"'
	expect "$phase hdf5: every sample once ($samples)" "$sh" ".$phase.samples == $samples"
	expect "$phase hdf5: read_bytes = requested = the samples' bytes" "$sh" ".$phase.read_bytes == .$phase.read_bytes_requested and .$phase.read_bytes_requested == $csv_bytes"
	hs=$(jq ".$phase.samples, .$phase.read_bytes_requested" "$sh" | tr '\n' ' ')
	ns=$(jq ".$phase.samples, .$phase.read_bytes_requested" "$sn" | tr '\n' ' ')
	[ "$hs" = "$ns" ] && ok "$phase: hdf5 and csv/posix read the same samples and bytes ($hs)" ||
		bad "$phase: hdf5 read '$hs', csv/posix '$ns'"
	expect "$phase csv: layout records" "$sn" '.plan.layout == "records" and (.plan | has("hdf5") | not)'
done

# Engines that cannot read HDF5 rows, and O_DIRECT, are usage errors.
gf 2 train "$SMALL" --target "$h5" --results "$TMP/r-posix" --engine posix "${common[@]}" "${hdf[@]}" >"$TMP/posix" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "dataset.format hdf5.*hdf5 engine" "$TMP/posix" && ok "--engine posix on hdf5 data: exit 2 naming the format" ||
	{ bad "--engine posix on hdf5 data: exit $rc"; cat "$TMP/posix"; }
gf 1 train "$SMALL" --target "$csv" --results "$TMP/r-h5csv" --engine hdf5 "${common[@]}" --set dataset.format=csv >"$TMP/h5csv" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "dataset.format is csv" "$TMP/h5csv" && ok "--engine hdf5 on csv data: exit 2" ||
	{ bad "--engine hdf5 on csv data: exit $rc"; cat "$TMP/h5csv"; }
gf 1 train "$SMALL" --target "$h5" --results "$TMP/r-direct" "${common[@]}" "${hdf[@]}" --set target.direct=true >"$TMP/direct" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "O_DIRECT" "$TMP/direct" && ok "O_DIRECT on hdf5 data: exit 2" ||
	{ bad "O_DIRECT on hdf5 data: exit $rc"; cat "$TMP/direct"; }
gf 1 train "$SMALL" --target "$h5" --results "$TMP/r-chunk" "${common[@]}" "${hdf[@]}" --set dataset.chunk_size=1MiB >"$TMP/chunk" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "chunk_size" "$TMP/chunk" && ok "another chunk_size is a dataset mismatch (exit 2)" ||
	{ bad "changed chunk_size: exit $rc"; cat "$TMP/chunk"; }

# Broken files fail the run, named, with HDF5's reason.
cp -a "$h5" "$TMP/trunc"
truncate -s 20000 "$TMP/trunc/train/img_3_of_8.hdf5"
gf 2 train "$SMALL" --target "$TMP/trunc" --results "$TMP/r-trunc" "${common[@]}" "${hdf[@]}" >"$TMP/trunc.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "img_3_of_8.hdf5.*truncated" "$TMP/trunc.out" && ok "a truncated file: exit 1, named, 'truncated'" ||
	{ bad "truncated file: exit $rc"; cat "$TMP/trunc.out"; }
cp -a "$h5" "$TMP/sig"
printf 'NOTHDF5!' | dd of="$TMP/sig/train/img_5_of_8.hdf5" bs=1 conv=notrunc status=none
gf 2 ceiling "$SMALL" --target "$TMP/sig" --results "$TMP/r-sig" "${common[@]}" "${hdf[@]}" >"$TMP/sig.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "img_5_of_8.hdf5.*signature" "$TMP/sig.out" && ok "a broken signature: exit 1, named, 'signature'" ||
	{ bad "broken signature: exit $rc"; cat "$TMP/sig.out"; }
finish
