#!/usr/bin/env bash
# Description: the diagnosis classes that need storage of a known speed, provoked on this
# machine. An ext4 loop device stacked on a throttled one (throttle.lib, THR_STACKED=1,
# so that the mounted device's /proc/diskstats shows it busy as a slow disk's would):
#  - capped at 16 MB/s (rbps), 1 MiB samples read with O_DIRECT by 2 ranks x 2 threads:
#    storage-bandwidth-bound, the device busy >= 95% named as evidence, its read bytes
#    within 25% of what training read, the supply named within 25% of the cap;
#  - capped at 150 reads/s (riops), 16 KiB samples: storage-bandwidth-bound with
#    storage_limit "requests" (IOPS: the next step turns reader.transfer_size), the
#    device's requests/s within 25% of the cap.
# Then the prediction check on the plain target (the test's folder): a configuration-bound
# run's predicted rate against what a rerun with the suggested reader.read_threads
# measures, within a factor of 2 either way (it was 7-12x too high before the CPU and
# device caps, on this 2-core machine).
# Expected: the classes and figures above. Buggy: a throttled device called
# configuration-bound (more threads would only queue), no device figures for a loop
# device, a prediction far from the rerun.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/throttle.lib"

THR_STACKED=1
throttle_setup 160

# run NAME ARGS...: gpufeed run inside the throttled cgroup, 2 ranks.
run() {
	local name=$1
	shift
	throttle_run "$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$SMALL" --results "$TMP/$name" --quiet \
		--set target.engine=posix --set target.direct=true --set dataset.record_length_bytes_stdev=0 \
		--set train.computation_time=10ms --set metric.au=0.9 "$@" >"$TMP/$name.out" 2>&1 ||
		{ bad "$name run failed"; cat "$TMP/$name.out"; } >&2
	only_result "$TMP/$name"
}

cap=16000000
throttle_set rbps=$cap
d=$(run bw --target "$THR_DIR/bw" --set dataset.record_length_bytes=1MiB --set dataset.num_files_train=24 \
	--set train.epochs=2)
echo "bandwidth: $(jq -c '[.diagnosis.class, .train.read_bytes_per_s, .train.device]' "$d/summary.json")"
expect "16 MB/s cap: storage-bandwidth-bound" "$d/summary.json" '.diagnosis.class == "storage-bandwidth-bound"'
expect "... the device busy >= 95% with requests queued, named as evidence" "$d/summary.json" \
	'.train.device.util_percent >= 95 and .train.device.queue_size >= 1 and
	 (.diagnosis.evidence | any(test("busy [0-9]+% of the training")))'
expect "... the device read what training read (O_DIRECT), within 25%" "$d/summary.json" \
	'(.train.device.read_bytes / .train.read_bytes) as $r | $r > 0.75 and $r < 1.25'
expect "... the supply it names is the cap within 25%" "$d/summary.json" \
	"(.diagnosis.predicted_read_bytes_per_s / $cap) as \$r | \$r > 0.75 and \$r < 1.25 and .diagnosis.storage_limit == \"bytes\""
grep -q '^DIAGNOSIS: storage-bandwidth-bound' "$d/report.txt" && grep -q 'device.*busy' "$d/report.txt" &&
	ok "report.txt: the device in the diagnosis" || bad "report.txt lacks the device evidence"

iops=150
throttle_set rbps=0 riops=$iops
d=$(run iops --target "$THR_DIR/iops" --set dataset.record_length_bytes=16KiB --set dataset.num_files_train=256 \
	--set train.epochs=1 --set reader.batch_size=8)
echo "iops: $(jq -c '[.diagnosis.class, .diagnosis.storage_limit, .train.device]' "$d/summary.json")"
expect "150 reads/s cap: storage-bandwidth-bound, limit requests" "$d/summary.json" \
	'.diagnosis.class == "storage-bandwidth-bound" and .diagnosis.storage_limit == "requests" and
	 .diagnosis.knob == "reader.transfer_size"'
expect "... the device's requests/s is the cap within 25%" "$d/summary.json" \
	"(.train.device.read_requests_per_s / $iops) as \$r | \$r > 0.75 and \$r < 1.25"
throttle_set riops=0

# The prediction against a rerun with the knob it names, on the plain target.
plain() {
	local name=$1
	shift
	gf 2 run "$SMALL" --results "$TMP/$name" --quiet --target "$TMP/plain" --set target.engine=posix \
		--set target.direct=true --set dataset.record_length_bytes=2MiB --set dataset.record_length_bytes_stdev=0 \
		--set dataset.num_files_train=48 --set train.computation_time=1ms --set train.epochs=3 \
		--set metric.au=0.9 "$@" >"$TMP/$name.out" 2>&1 || { bad "$name run failed"; cat "$TMP/$name.out"; } >&2
	only_result "$TMP/$name"
}
d=$(plain p1 --set reader.read_threads=1)
knob=$(jq -r '.diagnosis.knob // ""' "$d/summary.json")
pred=$(jq -r '.diagnosis.predicted_read_bytes_per_s // 0' "$d/summary.json")
echo "plain, 1 thread: $(jq -c '[.diagnosis.class, .train.read_bytes_per_s, .diagnosis.predicted_cap, .train.device.util_percent]' "$d/summary.json") predicted $pred"
if [ "$knob" = reader.read_threads ]; then
	n=$(jq -r '.diagnosis.little.needed_reader_threads' "$d/summary.json")
	d2=$(plain p2 --set reader.read_threads="$n")
	got=$(jq -r '.train.read_bytes_per_s' "$d2/summary.json")
	echo "rerun with $n threads: $got B/s against $pred predicted"
	awk -v p="$pred" -v g="$got" 'BEGIN { r = p / g; exit !(r > 0.5 && r < 2) }' &&
		ok "the predicted rate is within 2x of the rerun's ($pred vs $got)" ||
		bad "predicted $pred B/s, the rerun with $n threads measured $got"
else
	echo "note: the 1-thread run was $(jq -c '.diagnosis.class' "$d/summary.json") (knob \"$knob\"): no thread prediction to check"
fi
finish
