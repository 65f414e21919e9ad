#!/usr/bin/env bash
# Description: the diagnosis classes that need storage of a known speed, provoked on this
# machine. An ext4 loop device stacked on a throttled one (throttle.lib, THR_STACKED=1,
# so that the mounted device's /proc/diskstats shows it busy as a slow disk's would):
#  - capped at 16 MB/s (rbps), 1 MiB samples read with O_DIRECT by 2 ranks x 2 threads:
#    storage-bandwidth-bound, the device busy >= 90% named as evidence, its read bytes
#    within 25% of what training read, the supply named within 25% of the cap;
#  - capped at 150 reads/s (riops), 16 KiB samples, 2 ranks x 4 threads (enough reads
#    in flight that the device never waits for one): storage-bandwidth-bound with
#    storage_limit "requests" (IOPS: the next step turns reader.transfer_size), the
#    device's requests/s within 25% of the cap.
# Then S3 through tests/s3fault.js holding each ranged GET 40 ms (S3FAULT_DELAY_MS): 32 KiB
# objects, time to first byte most of each request: storage-latency-bound, the next step
# naming more connections (target.queue_depth) and larger ranged reads; a rerun with the
# queue depth (and reader threads) it names measures within 2x of its prediction.
# Then the prediction on the plain target (the test's folder): a configuration-bound run's
# predicted rate beside what a rerun with the suggested reader.read_threads measures,
# shown (it was 7-12x too high before the CPU and device caps, 0.6-1.3x after; the VM
# disk's own run-to-run spread is 1.7x, too wide to assert a 2x band on).
# Expected: the classes and figures above. Buggy: a throttled device called
# configuration-bound (more threads would only queue), no device figures for a loop
# device, a prediction far from the rerun.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/throttle.lib"

# within P G WHAT: the predicted rate P against the rerun's G, within 2x either way. The
# sanitizer build runs 2-10x slower and unevenly on a shared 2-core machine (a rerun
# slower than the run it reruns, seen): there the figures are shown, not asserted.
within() {
	if ldd "$GPUFEED" 2>/dev/null | grep -q libasan; then
		echo "note: sanitizer build: $3: predicted $1, measured $2"
	elif awk -v p="$1" -v g="$2" 'BEGIN { exit !(g > 0 && p / g > 0.5 && p / g < 2) }'; then
		ok "$3: the predicted rate is within 2x of the rerun's ($1 vs $2)"
	else
		bad "$3: predicted $1 B/s, the rerun measured $2"
	fi
}

THR_STACKED=1
throttle_setup 160
builddir=$(dirname "$GPUFEED")
srv=$TMP/s3rver
proxy=$TMP/proxy
proxy_pid=
s3_stop() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
	proxy_pid=
	[ -f "$srv/pid" ] && "$SRCDIR/scripts/s3rver-stop.sh" "$srv"
	rm -f "$srv/pid"
}
trap 's3_stop; throttle_cleanup; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

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
expect "... the device busy >= 90% with requests queued, named as evidence" "$d/summary.json" \
	'.train.device.util_percent >= 90 and .train.device.queue_size >= 1 and
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
	--set train.epochs=1 --set reader.batch_size=8 --set reader.read_threads=4)
echo "time: ${SECONDS}s"
echo "iops: $(jq -c '[.diagnosis.class, .diagnosis.storage_limit, .train.device]' "$d/summary.json")"
expect "150 reads/s cap: storage-bandwidth-bound, limit requests" "$d/summary.json" \
	'.diagnosis.class == "storage-bandwidth-bound" and .diagnosis.storage_limit == "requests" and
	 .diagnosis.knob == "reader.transfer_size"'
expect "... the device's requests/s is the cap within 25%" "$d/summary.json" \
	"(.train.device.read_requests_per_s / $iops) as \$r | \$r > 0.75 and \$r < 1.25"
throttle_set riops=0

echo "time: ${SECONDS}s"
# S3 far away: every training read waits 40 ms for its first byte.
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	echo "note: built without libcurl: no S3 case"
elif ! command -v node >/dev/null || [ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
	bad "node or tests/node_modules/@20minutes/s3rver missing: run scripts/install-deps.sh --test"
elif endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test); then
	mkdir -p "$proxy"
	S3FAULT_DELAY_MS=40 node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 0 >"$proxy/log" 2>&1 &
	proxy_pid=$!
	for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
	AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 \
		AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 2 run "$SMALL" --target s3://gf-test/far \
		--results "$TMP/s3" --quiet --set train.epochs=1 --set dataset.num_files_train=240 \
		--set train.computation_time=20ms --set metric.au=0.9 --set reader.prefetch_size=8 --set accelerator.step_barrier=false >"$TMP/s3.out" 2>&1 ||
		{ bad "S3 run through the delaying proxy failed"; cat "$TMP/s3.out"; }
	d=$(only_result "$TMP/s3")
	# The prediction against a rerun with the queue depth (and threads) it names, within 2x.
	# The demand is kept modest (20 ms compute: 180 samples/s at the threshold, 9 reads in
	# flight) because the "store" is one node.js process (s3rver behind the proxy) on the
	# same 2 cores: at 32 connections its latency rose and the rerun measured 3-5x under a
	# prediction that assumes it flat. Without the step barrier: Little's law predicts
	# the reads, not the wait for the slowest rank (2.5x under at load 7 with it).
	depth=$(jq -r '.diagnosis.knob_value // 0' "$d/summary.json")
	also=$(jq -r '(.diagnosis.also // {}) | to_entries | map("--set \(.key)=\(.value)") | join(" ")' "$d/summary.json")
	pred=$(jq -r '.diagnosis.predicted_read_bytes_per_s // 0' "$d/summary.json")
	AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 \
		AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 2 train "$SMALL" --target s3://gf-test/far \
		--results "$TMP/s3b" --quiet --set train.epochs=1 --set dataset.num_files_train=240 \
		--set train.computation_time=20ms --set metric.au=0.9 --set reader.prefetch_size=8 --set accelerator.step_barrier=false --set target.queue_depth="$depth" $also >"$TMP/s3b.out" 2>&1 ||
		{ bad "S3 rerun with target.queue_depth=$depth failed"; cat "$TMP/s3b.out"; }
	s3_stop
	got=$(jq -r '.train.read_bytes_per_s // 0' "$(only_result "$TMP/s3b")/summary.json")
	echo "s3 rerun with queue depth $depth $also: $got B/s against $pred predicted"
	within "$pred" "$got" "S3, rerun with target.queue_depth=$depth $also"
	echo "s3: $(jq -c '[.diagnosis.class, .s3.phases.train.ttfb_us.mean, .s3.phases.train.total_us.mean, .diagnosis.knob]' "$d/summary.json")"
	expect "40 ms to the first byte of 32 KiB: storage-latency-bound" "$d/summary.json" \
		'.diagnosis.class == "storage-latency-bound" and .diagnosis.knob == "target.queue_depth" and
		 (.diagnosis.next_step | test("more connections") and test("larger ranged reads")) and
		 (.diagnosis.evidence[0] | test("time to first byte"))'
	expect "... the first byte is most of a request" "$d/summary.json" \
		'.s3.phases.train.ttfb_us.mean >= 40000 and .s3.phases.train.ttfb_us.mean >= 0.5 * .s3.phases.train.total_us.mean'
else
	bad "s3rver did not start"
fi

echo "time: ${SECONDS}s"
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
	n=$(jq -r '.diagnosis.knob_value' "$d/summary.json")
	d2=$(plain p2 --set reader.read_threads="$n")
	got=$(jq -r '.train.read_bytes_per_s' "$d2/summary.json")
	# Shown, not asserted: this VM's disk gives 1.1-1.9 GB/s run to run with the same
	# settings (host-cached), so a 2x band fails on the disk's noise, not the prediction's
	# (426 vs 858 MB/s seen once under load). The throttled and S3 cases above assert.
	echo "note: plain target, rerun with reader.read_threads=$n: $got B/s against $pred predicted" \
		"(ratio $(awk -v p="$pred" -v g="$got" 'BEGIN { if (g > 0) printf "%.2f", p / g; else print "-" }'))"
else
	echo "note: the 1-thread run was $(jq -c '.diagnosis.class' "$d/summary.json") (knob \"$knob\"): no thread prediction to check"
fi
echo "time: ${SECONDS}s"
finish
