#!/usr/bin/env bash
# Description: the s3 engine against a real S3 server that checks SigV4 signatures
# (@20minutes/s3rver on 127.0.0.1, started and stopped here), under mpirun -np 2 and 4:
# run generates the dataset as objects and reads it back (whole samples, then ranged GETs
# with reader.transfer_size below the sample size); a wrong secret, a missing bucket and a
# prefix gpufeed did not make are refused; a proxy answering 503 SlowDown to the first
# requests proves the retries and their counters in summary.json.
# Expected: every read byte is an object byte; exit 1 with SignatureDoesNotMatch and no
# secret in any output; the missing bucket named; retries counted, the run complete.
# Buggy: a signature the server rejects, ranks reading overlapping samples, a 503 that
# fails the run, a secret in a message or in summary.json.
. "$(dirname "$0")/lib.sh"

builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	echo "SKIP: this gpufeed was built without libcurl (no s3 engine)"
	exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
	echo "FAIL: node or tests/node_modules/@20minutes/s3rver missing: run scripts/install-deps.sh"
	exit 1
fi

srv=$TMP/s3rver
proxy=$TMP/proxy
proxy_pid=
cleanup() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	"$SRCDIR/scripts/s3rver-stop.sh" "$srv"
	rm -rf "$TMP"
}
trap cleanup EXIT

endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test gf-other) || { echo "FAIL: s3rver did not start"; exit 1; }
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
bucket_dir=$srv/data/gf-test
objects() { find "$bucket_dir" -type f -name '*._S3rver_object' 2>/dev/null | wc -l; }

# run on 2 ranks generates, run on 4 ranks reuses; every sample is read.
for np in 2 4; do
	res=$TMP/results-$np
	t0=$(date +%s.%N)
	if ! gf "$np" run "$SMALL" --target s3://gf-test/gf --results "$res" --quiet >"$TMP/out-$np" 2>&1; then
		bad "np=$np: run failed"; cat "$TMP/out-$np"; continue
	fi
	echo "np=$np run took $(echo "$(date +%s.%N) - $t0" | bc) s"
	s=$(only_result "$res")/summary.json
	steps=$((64 / np / 2 * 2))
	expect "np=$np complete on s3" "$s" '.status == "complete" and .target.kind == "s3" and .target.engine == "s3" and .environment.fs_type == "s3"'
	expect "np=$np samples" "$s" ".train.samples == $((steps * np * 2)) and .train.read_bytes > 0"
	expect "np=$np counters" "$s" '.s3.requests > 0 and .s3.errors.client_4xx == 0 and .s3.retries.slowdown_503 == 0'
	if [ "$np" = 2 ]; then
		expect "np=2 generated 64 objects" "$s" '.datagen.files == 64'
	else
		expect "np=4 reused the dataset" "$s" 'has("datagen") | not'
	fi
	if grep -rq S3RVER "$res"; then bad "np=$np: a credential in the results"; else ok "np=$np no credential in the results"; fi
done
# 64 samples, the marker and the manifest.
n=$(objects)
[ "$n" -eq 66 ] && ok "66 objects in the bucket" || bad "expected 66 objects, found $n"

# Bytes read are the object bytes; then the same with ranged GETs of 8 KiB (samples are
# about 32 KiB: four or five requests each).
disk=$(find "$bucket_dir/gf/train" -type f -name '*._S3rver_object' -printf '%s\n' | awk '{s+=$1} END {print s}')
for ts in 0 8KiB; do
	res=$TMP/results-bytes-$ts
	set -- --set reader.file_shuffle=off --set reader.sample_shuffle=off --set train.epochs=1
	[ "$ts" != 0 ] && set -- "$@" --set reader.transfer_size=$ts
	gf 2 train "$SMALL" --target s3://gf-test/gf --results "$res" --quiet "$@" >"$TMP/bytes" 2>&1 ||
		{ bad "train transfer_size=$ts failed"; cat "$TMP/bytes"; continue; }
	s=$(only_result "$res")/summary.json
	expect "transfer_size=$ts: bytes read = object bytes ($disk)" "$s" ".train.read_bytes == $disk"
	if [ "$ts" != 0 ]; then
		expect "ranged: more requests than samples" "$s" '.s3.requests > 2 * .train.samples'
	fi
done

# Objects past the part size are multipart uploads (11 MiB in 5 MiB parts: three parts,
# two in flight), read back whole and ranged.
{ sed -e 's/num_files_train: 64/num_files_train: 4/' -e 's/record_length_bytes: 32KiB/record_length_bytes: 11MiB/' \
	-e 's/record_length_bytes_stdev: 4KiB/record_length_bytes_stdev: 0/' -e 's/batch_size: 2/batch_size: 1/' "$SMALL"
  printf 'storage:\n  storage_options:\n    s3_part_size: 5MiB\n'; } >"$TMP/big.yaml"
gf 2 run "$TMP/big.yaml" --target s3://gf-test/big --results "$TMP/r-big" --quiet --set train.epochs=1 \
	--set reader.transfer_size=4MiB >"$TMP/big" 2>&1 || { bad "multipart run failed"; cat "$TMP/big"; }
s=$(only_result "$TMP/r-big")/summary.json
expect "4 multipart uploads, none aborted, 44 MiB read back" "$s" \
	'.s3.multipart_uploads == 4 and .s3.multipart_aborts == 0 and .train.read_bytes == 4 * 11 * 1048576'
sizes=$(find "$bucket_dir/big/train" -type f -name '*._S3rver_object' -printf '%s\n' | sort -u)
[ "$sizes" = $((11 * 1048576)) ] && ok "multipart objects are whole" || bad "multipart object sizes: $sizes"

# A wrong secret fails the run (exit 1) with the S3 error code, and the secret is never
# printed.
AWS_SECRET_ACCESS_KEY=wrong-secret-d41d8cd9 gf 2 run "$SMALL" --target s3://gf-test/gf --results "$TMP/r-secret" \
	>"$TMP/secret" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q SignatureDoesNotMatch "$TMP/secret"; } && ok "wrong secret refused with SignatureDoesNotMatch (exit $rc)" ||
	{ bad "wrong secret: exit $rc"; cat "$TMP/secret"; }
if grep -rq 'wrong-secret-d41d8cd9' "$TMP/secret" "$TMP/r-secret" 2>/dev/null; then bad "the secret was printed"; else ok "the secret was not printed"; fi

# A missing bucket is named.
gf 1 run "$SMALL" --target s3://no-such-bucket-gf/x --results "$TMP/r-nobucket" >"$TMP/nobucket" 2>&1 &&
	bad "a missing bucket was accepted"
grep -q 'no-such-bucket-gf' "$TMP/nobucket" && grep -q NoSuchBucket "$TMP/nobucket" && ok "missing bucket named" ||
	{ bad "missing bucket message"; cat "$TMP/nobucket"; }

# A prefix with objects that gpufeed did not mark is refused.
gf 1 run "$SMALL" --target s3://gf-test --results "$TMP/r-notmine" >"$TMP/notmine" 2>&1 &&
	bad "a foreign prefix was accepted"
grep -q 'not empty' "$TMP/notmine" && ok "foreign prefix refused" || { bad "foreign prefix message"; cat "$TMP/notmine"; }

# 503 SlowDown to the first 4 requests (one fewer than the 5 attempts a request gets):
# retried with backoff, counted, the run completes.
mkdir -p "$proxy"
node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 4 >"$proxy/log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 2 train "$SMALL" --target s3://gf-test/gf \
	--results "$TMP/r-slow" --quiet --set train.epochs=1 >"$TMP/slow" 2>&1 || { bad "train through the 503 proxy failed"; cat "$TMP/slow"; }
s=$(only_result "$TMP/r-slow")/summary.json
expect "503s retried and counted" "$s" '.status == "complete" and .s3.retries.slowdown_503 == 4 and .s3.errors.server_5xx == 0'
[ "$(cat "$proxy/failed" 2>/dev/null)" = 4 ] && ok "the proxy failed 4 requests" || bad "proxy count $(cat "$proxy/failed" 2>/dev/null)"

# The same on the read path: the first 6 ranged GETs (training reads) answer 503.
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
rm -f "$proxy/port" "$proxy/failed"
node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 6 range >"$proxy/log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 2 train "$SMALL" --target s3://gf-test/gf \
	--results "$TMP/r-slowread" --quiet --set train.epochs=1 >"$TMP/slowread" 2>&1 || { bad "reads through the 503 proxy failed"; cat "$TMP/slowread"; }
s=$(only_result "$TMP/r-slowread")/summary.json
expect "503s on reads retried and counted, every sample read" "$s" \
	'.status == "complete" and .s3.retries.slowdown_503 == 6 and .s3.errors.server_5xx == 0 and .train.samples == 64'

# More 503s than attempts: the run fails with exit 1 and names SlowDown.
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
rm -f "$proxy/port" "$proxy/failed"
node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 1000000 >"$proxy/log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
{ cat "$SMALL"; printf 'storage:\n  storage_options:\n    s3_max_attempts: 2\n'; } >"$TMP/attempts2.yaml"
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 1 run "$TMP/attempts2.yaml" --target s3://gf-test/gf \
	--results "$TMP/r-slowfail" --quiet >"$TMP/slowfail" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q SlowDown "$TMP/slowfail"; } && ok "persistent 503 fails (exit $rc) naming SlowDown" ||
	{ bad "persistent 503: exit $rc"; cat "$TMP/slowfail"; }
finish
