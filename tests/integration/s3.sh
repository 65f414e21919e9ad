#!/usr/bin/env bash
# Description: the s3 engine against a real S3 server that checks SigV4 signatures
# (@20minutes/s3rver on 127.0.0.1, or with S3_SERVER=radosgw a one-machine Ceph RADOS
# Gateway; started and stopped here), under mpirun -np 2 and 4:
# run generates the dataset as objects and reads it back (whole samples, then ranged GETs
# with reader.transfer_size below the sample size); a wrong secret, a missing bucket and a
# prefix gpufeed did not make are refused; a proxy answering 503 SlowDown to the first
# requests proves the retries and their counters in summary.json. Checkpoints
# (object_per_rank) of a scaled llama3_8b on 2 and 4 ranks: multipart write, verified
# restore from another rank, nothing left; dataset.keep_files=false and aborted uploads
# leave the bucket as it was. Request timing in s3.phases (one GET per sample, TTFB within
# total, connections reused); target.prefix_spread through datagen, reads, checkpoints,
# listing and cleanup.
# Expected: every read byte is an object byte; exit 1 with SignatureDoesNotMatch and no
# secret in any output; the missing bucket named; retries counted, the run complete.
# Buggy: a signature the server rejects, ranks reading overlapping samples, a 503 that
# fails the run, a secret in a message or in summary.json, a checkpoint block read from
# the wrong object, parts or objects left in the bucket.
. "$(dirname "$0")/lib.sh"

builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	echo "SKIP: this gpufeed was built without libcurl (no s3 engine)"
	exit 77
fi
# S3_SERVER=radosgw runs the same checks on a real Ceph RADOS Gateway
# (scripts/radosgw-start.sh); the default is s3rver. The proxy tests need node either way.
server=${S3_SERVER:-s3rver}
if ! command -v node >/dev/null || [ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
	echo "FAIL: node or tests/node_modules/@20minutes/s3rver missing: run scripts/install-deps.sh --test"
	exit 1
fi
if [ "$server" = radosgw ] && ! command -v radosgw >/dev/null; then
	echo "SKIP: radosgw is not installed (Debian packages radosgw ceph-mon ceph-osd)"
	exit 77
fi

srv=$TMP/$server
proxy=$TMP/proxy
proxy_pid=
cleanup() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	"$SRCDIR/scripts/$server-stop.sh" "$srv"
	rm -rf "$TMP"
}
trap cleanup EXIT

endpoint=$("$SRCDIR/scripts/$server-start.sh" "$srv" gf-test gf-other) || { echo "FAIL: $server did not start"; exit 1; }
if [ "$server" = radosgw ]; then
	export AWS_ACCESS_KEY_ID=$(cat "$srv/access_key") AWS_SECRET_ACCESS_KEY=$(cat "$srv/secret_key")
else
	export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
fi
export AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
echo "server: $server at $endpoint"
# The bucket as the S3 API lists it ("key size" lines), on any server.
ls3() { python3 "$SRCDIR/tests/s3ls.py" gf-test "$@"; }
objects() { ls3 | wc -l; }

# run on 2 ranks generates, run on 4 ranks reuses; every sample is read. Under the
# sanitizers 2 ranks only, here and for the checkpoints: 4 are the same code with more
# ranks (the plain build runs them), and 4 ranks under ASan cost minutes.
nps="2 4"
$sanitized && nps=2
for np in $nps; do
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
	# Request timing from libcurl: one GET per sample, first byte before the last, a few
	# connections (one per request in flight at most) reused by every other request.
	expect "np=$np s3 timing of the reads" "$s" '.train as $t | .s3.phases.train | .requests == $t.samples and .bytes_received == $t.read_bytes and .ttfb_us.p50 > 0 and .ttfb_us.p50 <= .total_us.p50 and .ttfb_us.count == .requests and .requests_per_s > 0 and .bytes_per_s > 0'
	expect "np=$np connections reused and timed" "$s" '.s3.phases.train | .new_connections >= 1 and .new_connections < .requests and .connect_us.count == .new_connections and .connect_us.p50 > 0 and .tls_us.count == 0'
	if [ "$np" = 2 ]; then
		expect "np=2 generated 64 objects" "$s" '.datagen.files == 64'
		expect "np=2 s3 timing of the PUTs" "$s" '.s3.phases.datagen as $d | $d.requests == 64 and $d.bytes_sent == .datagen.write_bytes and $d.ttfb_us.p50 > 0 and $d.ttfb_us.p50 <= $d.total_us.p50'
		# close() leaves each object's PUT on the wire, target.queue_depth (8) of them per
		# rank, each on its own connection: 2 connections would mean one PUT at a time.
		expect "np=2 datagen keeps PUTs in flight" "$s" '.s3.phases.datagen.new_connections > 2'
	else
		expect "np=4 reused the dataset" "$s" 'has("datagen") | not'
	fi
	if grep -rqF "$AWS_SECRET_ACCESS_KEY" "$res"; then bad "np=$np: the secret in the results"; else ok "np=$np no secret in the results"; fi
done
# 64 samples, the marker and the manifest.
n=$(objects)
[ "$n" -eq 66 ] && ok "66 objects in the bucket" || bad "expected 66 objects, found $n"

# Bytes read are the object bytes; then the same with ranged GETs of 8 KiB (samples are
# about 32 KiB: four or five requests each).
disk=$(ls3 gf/train/ | awk '{s+=$2} END {print s}')
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
		expect "ranged: one timed GET per read request" "$s" '.s3.phases.train.requests == .train.read_requests'
		grep -Eq "^  S3 train requests/s +[0-9]+ req/s, .*TTFB p50" "$(dirname "$s")/report.txt" && ok "report.txt: S3 timing of the reads" ||
			bad "report.txt has no S3 timing line"
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
sizes=$(ls3 big/train/ | awk '{print $2}' | sort -u)
# An npz as numpy writes it: the 11 MiB array behind a zip entry and .npy header (< 1 KiB).
[ "$(echo "$sizes" | wc -l)" -eq 1 ] && [ "$sizes" -ge $((11 * 1048576)) ] && [ "$sizes" -lt $((11 * 1048576 + 1024)) ] &&
	ok "multipart objects are whole npz files ($sizes bytes)" || bad "multipart object sizes: $sizes"
expect "4 multipart uploads, none aborted, the 4 objects read back whole" "$s" \
	".s3.multipart_uploads == 4 and .s3.multipart_aborts == 0 and .train.read_bytes == 4 * ${sizes:-0}"

# Checkpoints: object_per_rank (what file_per_rank means on s3://) on a scaled llama3_8b,
# ZeRO 3 over 2 and 4 ranks. Each shard is a multipart upload of 5 MiB parts (one PUT
# when it fits in a part), restored with ranged GETs from the next rank and verified;
# dataset.keep_files=false then deletes the prefix, marker included: the bucket is as it
# was: the same keys and sizes, and (radosgw) no multipart upload in progress.
LLAMA=$SRCDIR/workloads/llama3_8b.yaml
listing() {
	ls3
	# s3rver 4.0.4 has no ListMultipartUploads (nor AbortMultipartUpload).
	[ "$server" = radosgw ] && ls3 --uploads | sed 's/^/upload in progress: /'
	return 0
}
listing >"$TMP/before"
for np in $nps; do
	res=$TMP/r-ck$np
	t0=$(date +%s.%N)
	if ! gf "$np" run "$LLAMA" --target s3://gf-test/ck$np --results "$res" --quiet --set checkpoint.scale=1/1000 \
		--set model.parallelism.data=$np --set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=2 \
		--set checkpoint.num_checkpoints_read=2 --set checkpoint.part_size=5MiB --set dataset.keep_files=false >"$TMP/ck" 2>&1; then
		bad "np=$np: checkpoint run failed"; cat "$TMP/ck"; continue
	fi
	echo "np=$np checkpoint run took $(echo "$(date +%s.%N) - $t0" | bc) s"
	s=$(only_result "$res")/summary.json
	# 8,030,261,248 parameters x 14 bytes / 1000, each rank's two shards rounded to 4 KiB.
	expect "np=$np checkpoint: object_per_rank, scaled 8B size" "$s" ".checkpoint.layout == \"object_per_rank\" and .checkpoint.collective == false and .checkpoint.bytes > 112423657 and .checkpoint.bytes < 112423657 + 2 * $np * 4096"
	expect "np=$np checkpoint: the workload as given, the layout as resolved" "$s" '.workload.checkpoint.layout == "file_per_rank" and .resolved.checkpoint.layout == "object_per_rank"'
	expect "np=$np checkpoint: 2 writes, 2 restores, every block verified" "$s" '.status == "complete" and .checkpoint.write_count == 2 and .checkpoint.restore_count == 2 and .checkpoint.verified == true and ([.checkpoint.bursts[] | select(.kind == "restore") | .blocks_verified > 0 and .bytes == .bytes] | all)'
	# The optimizer shard (12 B a parameter) is past 5 MiB on every rank: 2 writes x np uploads at least.
	expect "np=$np checkpoint: multipart uploads, none aborted, no errors" "$s" ".s3.multipart_uploads >= 2 * $np and .s3.multipart_aborts == 0 and .s3.errors.client_4xx == 0"
	expect "np=$np checkpoint: writes and restores timed apart" "$s" '.checkpoint as $c | .s3.phases.checkpoint_write.bytes_sent >= 2 * $c.bytes and .s3.phases.checkpoint_restore.bytes_received == ([$c.bursts[] | select(.kind == "restore") | .bytes] | add) and .s3.phases.checkpoint_restore.ttfb_us.p50 <= .s3.phases.checkpoint_restore.total_us.p50 and (.s3.phases | has("train") | not)'
	[ "$(ls3 "ck$np/" | grep -c '\.pt ')" -eq 0 ] && ok "np=$np checkpoint objects deleted" || bad "np=$np checkpoint objects left"
done
listing >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "checkpoint runs left the bucket as it was" ||
	{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }

common=(--quiet --set checkpoint.scale=1/1000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0
	--set dataset.keep_files=false)
# Under the sanitizers, the kept checkpoints, keep_files=false after training and checkpoints
# during training are left to the plain build: their code (restore-only listing, deletion,
# object_per_rank writes) runs under ASan in the spread runs and the checkpoint loop above,
# and these four runs cost about two minutes there.
if ! $sanitized; then
	# checkpoint.keep: the objects and the marker stay through keep_files=false; a later
	# restore-only run finds them (keys under a prefix, no folders), verifies them, and its
	# cleanup leaves them too (a run deletes only what it wrote, run/owned.h): the user
	# deletes them, and the bucket is as it was.
	gf 2 run "$LLAMA" --target s3://gf-test/kept --results "$TMP/r-kept1" "${common[@]}" --set checkpoint.keep=true \
		--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=0 >"$TMP/kept" 2>&1 || { bad "keep run failed"; cat "$TMP/kept"; }
	n=$(ls3 kept/ | grep -c '\.pt ')
	[ "$n" -eq 4 ] && ls3 kept/ | grep '^kept/\.gpufeed-data ' >/dev/null && ok "kept checkpoint: 4 shards and the marker stay" ||
		bad "kept checkpoint: $n shards"
	gf 2 run "$LLAMA" --target s3://gf-test/kept --results "$TMP/r-kept2" "${common[@]}" \
		--set checkpoint.num_checkpoints_write=0 --set checkpoint.num_checkpoints_read=1 >"$TMP/kept" 2>&1 || { bad "restore-only run failed"; cat "$TMP/kept"; }
	expect "restore-only from S3 verified" "$(only_result "$TMP/r-kept2")/summary.json" '.checkpoint.restore_count == 1 and .checkpoint.verified == true'
	[ "$(ls3 kept/ | grep -c '\.pt ')" -eq 4 ] && ls3 kept/ | grep -q '^kept/\.gpufeed-data ' &&
		ok "restore-only with keep_files=false left the kept checkpoints and the marker" || { bad "kept checkpoints deleted"; ls3 kept/; }
	ls3 --delete-prefix kept/
	listing >"$TMP/after"
	diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "the kept checkpoints deleted by the user: the bucket as it was" ||
		{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }

	# dataset.keep_files=false after generating and training: every object gone again.
	gf 2 run "$SMALL" --target s3://gf-test/tmpds --results "$TMP/r-tmpds" --quiet --set dataset.keep_files=false \
		>"$TMP/tmpds" 2>&1 || { bad "keep_files=false run failed"; cat "$TMP/tmpds"; }
	expect "keep_files=false: generated and trained" "$(only_result "$TMP/r-tmpds")/summary.json" '.status == "complete" and .datagen.files == 64 and .train.samples == 128'
	listing >"$TMP/after"
	diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "keep_files=false left the bucket as it was" ||
		{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }

	# Checkpoints during training on S3 (64 MiB, every 8 steps): written between the reads,
	# all deleted with the dataset.
	gf 2 run "$SMALL" --target s3://gf-test/trck --results "$TMP/r-trck" --quiet --set workflow.checkpoint=true \
		--set model.model_size_bytes=64MiB --set checkpoint.type=all_ranks --set checkpoint.steps_between_checkpoints=8 \
		--set train.computation_time=20ms --set dataset.keep_files=false >"$TMP/trck" 2>&1 || { bad "training with checkpoints on s3 failed"; cat "$TMP/trck"; }
	expect "training wrote 4 checkpoints to S3" "$(only_result "$TMP/r-trck")/summary.json" '.status == "complete" and .checkpoint.layout == "object_per_rank" and .checkpoint.write_count == 4 and .train.checkpoint_halt_s > 0'
	listing >"$TMP/after"
	diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "training with checkpoints left the bucket as it was" ||
		{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }
fi

# target.prefix_spread: the dataset and the checkpoints (2 checkpoints x 2 ranks, model
# shards only) under 16 hashed prefixes after the target's prefix, the marker and the
# manifest at its top. A workload without the spread does not take the dataset for its
# own; a restore-only run finds the spread checkpoints (listing every spread prefix); its
# keep_files=false cleanup deletes nothing it did not write (neither the dataset of the
# first run nor its kept checkpoints); the user deletes the prefix at last.
spread=(--quiet --set target.prefix_spread=16 --set model.model_size_bytes=8MiB --set checkpoint.type=all_ranks
	--set checkpoint.keep=true)
restore=(--set workflow.train=false --set workflow.checkpoint=true --set checkpoint.num_checkpoints_write=0 --set checkpoint.time_between_checkpoints=0
	--set checkpoint.num_checkpoints_read=1 --set dataset.keep_files=false)
gf 2 run "$SMALL" --target s3://gf-test/spread --results "$TMP/r-sp1" "${spread[@]}" --set workflow.checkpoint=true \
	--set checkpoint.steps_between_checkpoints=16 --set train.computation_time=5ms >"$TMP/sp" 2>&1 || { bad "spread run failed"; cat "$TMP/sp"; }
expect "spread: datagen, train and checkpoints" "$(only_result "$TMP/r-sp1")/summary.json" \
	'.status == "complete" and .datagen.files == 64 and .checkpoint.write_count == 2 and .s3.prefix_spread == 16'
ls3 spread/ | awk '{print $1}' >"$TMP/sp-keys"
nd=$(grep -cE '^spread/[0-9a-f]/train/' "$TMP/sp-keys"); nc=$(grep -cE '^spread/[0-9a-f]/checkpoints/.*\.pt$' "$TMP/sp-keys")
np_=$(grep -oE '^spread/[0-9a-f]/' "$TMP/sp-keys" | sort -u | wc -l)
{ [ "$nd" -eq 64 ] && [ "$nc" -eq 4 ] && [ "$np_" -ge 12 ] && grep -qx 'spread/.gpufeed-data' "$TMP/sp-keys" &&
	grep -qx 'spread/.gpufeed-manifest.json' "$TMP/sp-keys" && grep -qE '^spread/[0-9a-f]/checkpoints/gpufeed_checkpoints.json$' "$TMP/sp-keys" &&
	[ "$(wc -l <"$TMP/sp-keys")" -eq 71 ]; } &&
	ok "spread: 64 samples, 4 shards and the checkpoint index over $np_ prefixes, marker and manifest at the top" ||
	{ bad "spread layout: $nd data, $nc shards, $np_ prefixes, $(wc -l <"$TMP/sp-keys") keys"; grep -v /train/ "$TMP/sp-keys"; }
gf 1 train "$SMALL" --target s3://gf-test/spread --results "$TMP/r-sp2" --quiet >"$TMP/sp" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -q 'prefix_spread' "$TMP/sp"; } && ok "spread dataset not read without the spread (exit 2)" ||
	{ bad "spread dataset without the spread: exit $rc"; cat "$TMP/sp"; }
gf 2 run "$SMALL" --target s3://gf-test/spread --results "$TMP/r-sp3" "${spread[@]}" "${restore[@]}" >"$TMP/sp" 2>&1 ||
	{ bad "spread restore failed"; cat "$TMP/sp"; }
expect "spread: checkpoint restored and verified" "$(only_result "$TMP/r-sp3")/summary.json" \
	'.status == "complete" and .checkpoint.restore_count == 1 and .checkpoint.verified == true'
ls3 spread/ | awk '{print $1}' >"$TMP/sp-keys2"
diff -q "$TMP/sp-keys" "$TMP/sp-keys2" >/dev/null &&
	ok "spread: a restore-only run with keep_files=false deleted nothing it did not write (71 keys)" ||
	{ bad "spread cleanup of a restore-only run"; diff "$TMP/sp-keys" "$TMP/sp-keys2" | head; }
gf 2 run "$SMALL" --target s3://gf-test/spread --results "$TMP/r-sp4" "${spread[@]}" "${restore[@]}" \
	--set checkpoint.keep=false >"$TMP/sp" 2>&1 || { bad "spread final restore failed"; cat "$TMP/sp"; }
ls3 --delete-prefix spread/
listing >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "prefix_spread runs left the bucket as it was" ||
	{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }

# Shared-file layouts cannot reach s3://: exit 2, saying what to use.
gf 1 run "$LLAMA" --target s3://gf-test/sh --results "$TMP/r-sh" --set model.parallelism.data=1 \
	--set checkpoint.layout=shared_file >"$TMP/sh" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -q 'use object_per_rank' "$TMP/sh"; } && ok "shared_file on s3:// refused (exit 2)" || { bad "shared_file on s3://: exit $rc"; cat "$TMP/sh"; }

# A multipart upload that fails (every part answers 503, 2 attempts) is aborted: the run
# fails with exit 1 and no object or upload is left behind. s3rver 4.0.4 has no
# AbortMultipartUpload (it answers 405) and no listing of uploads: there only the objects
# are compared and the aborts counted; radosgw shows that no upload is left.
mkdir -p "$proxy"
node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 1000000 part >"$proxy/log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
{ cat "$LLAMA"; printf 'storage:\n  storage_options:\n    s3_max_attempts: 2\n'; } >"$TMP/llama-2.yaml"
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 2 run "$TMP/llama-2.yaml" --target s3://gf-test/abort \
	--results "$TMP/r-abort" "${common[@]}" --set checkpoint.part_size=5MiB --set checkpoint.num_checkpoints_write=1 \
	--set checkpoint.num_checkpoints_read=0 >"$TMP/abort" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q SlowDown "$TMP/abort"; } && ok "failed upload: exit 1 naming SlowDown" || { bad "failed upload: exit $rc"; cat "$TMP/abort"; }
p=$(find "$TMP/r-abort" -maxdepth 1 -name '*.partial' | head -1)
[ -n "$p" ] && expect "failed uploads aborted and counted" "$p/summary.json" '.status == "failed" and .s3.multipart_aborts >= 2 and .s3.multipart_uploads == 0' ||
	bad "no .partial summary for the failed upload"
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
proxy_pid=
rm -f "$proxy/port" "$proxy/failed"
listing >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "aborted uploads left nothing behind" ||
	{ bad "the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }

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

# Datagen's PUTs are still on the wire when close() returns: when they fail (503 to every
# dataset PUT, 2 attempts) the run still fails with exit 1 naming SlowDown and an object,
# and no manifest says the dataset is complete.
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
rm -f "$proxy/port" "$proxy/failed"
node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" 1000000 data >"$proxy/log" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
AWS_ENDPOINT_URL=http://127.0.0.1:$(cat "$proxy/port") gf 1 datagen "$TMP/attempts2.yaml" --target s3://gf-test/putfail \
	--results "$TMP/r-putfail" --quiet >"$TMP/putfail" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q 'SlowDown' "$TMP/putfail" && grep -q 'putfail/train/img_' "$TMP/putfail"; } &&
	ok "failed datagen PUTs: exit 1 naming SlowDown and the object" || { bad "failed datagen PUTs: exit $rc"; cat "$TMP/putfail"; }
ls3 putfail/ | grep -q 'gpufeed-manifest' && bad "a manifest after failed datagen PUTs" || ok "no manifest after failed datagen PUTs"
finish
