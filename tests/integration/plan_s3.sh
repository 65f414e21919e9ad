#!/usr/bin/env bash
# Description: gpufeed plan on an s3:// target reads no credentials and opens no
# connection: resolving the target only names the backend, whose setup (credentials, the
# endpoint, libcurl) is left to the run. The credential and config files are FIFOs with
# no writer, so reading them would block; the environment has no keys; the endpoint is
# an address nothing answers; and where the kernel allows it the plan runs without a
# network (unshare -n).
# Expected: exit 0 in well under the timeout, with the note that S3 reads are not
# client-cached (the s3 backend was picked for the target).
# An object count past 10^9 is refused by plan and run (exit 2), past 10^7 warned of.
# Buggy: plan hangs on the credential files (a run of the timeout, exit 124), or fails
# because there are no credentials, or waits on the endpoint.
. "$(dirname "$0")/lib.sh"

builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	echo "SKIP: this gpufeed was built without libcurl (no s3 engine)"
	exit 77
fi
mkfifo "$TMP/credentials" "$TMP/config"
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION
export AWS_SHARED_CREDENTIALS_FILE=$TMP/credentials AWS_CONFIG_FILE=$TMP/config
# TEST-NET-1 (RFC 5737): routed nowhere, a connection attempt would hang.
export AWS_ENDPOINT_URL=http://192.0.2.1:9000
nonet=()
if unshare -n true 2>/dev/null; then
	nonet=(unshare -n)
	echo "running without a network (unshare -n)"
fi
start=$(date +%s.%N)
timeout 20 "${nonet[@]}" "$GPUFEED" plan "$SMALL" --target s3://gf-bucket/prefix --ranks 2 >"$TMP/out" 2>&1
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
[ "$rc" -eq 0 ] && ok "plan on s3:// without credentials: exit 0 in ${secs} s" ||
	{ bad "plan on s3:// without credentials: exit $rc after ${secs} s (124: it waited)"; cat "$TMP/out"; }
awk -v s="$secs" 'BEGIN { exit !(s < 5) }' && ok "no waiting (${secs} s < 5 s)" || bad "plan took ${secs} s"
grep -q "every S3 read is an HTTP GET" "$TMP/out" && ok "the s3 backend was picked for the target" ||
	{ bad "no S3 client-cache note"; cat "$TMP/out"; }
# Issue 28 item 18: an object count past what a listing and a run can go through is
# refused by plan and by run (before any credential or request), one past 10^7 warned of.
timeout 20 "$GPUFEED" plan "$SMALL" --target s3://gf-bucket/prefix --ranks 2 --set dataset.num_files_train=1000000000000 \
	>"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "^refused .*num_files_train 1000000000000 on the object store.*at most 1,000,000,000" "$TMP/out" &&
	ok "plan: 10^12 objects refused" || { bad "plan: 10^12 objects: exit $rc"; cat "$TMP/out"; }
timeout 20 "$GPUFEED" plan "$SMALL" --target s3://gf-bucket/prefix --ranks 2 --set dataset.num_files_train=20000000 >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^warning .*num_files_train 20000000 on the object store" "$TMP/out" && ! grep -q "warnings *none" "$TMP/out" &&
	ok "plan: 2x10^7 objects warned of" || { bad "plan: 2x10^7 objects: exit $rc"; cat "$TMP/out"; }
timeout -k 5 20 "$GPUFEED" run "$SMALL" --target s3://gf-bucket/prefix --results "$TMP/r" \
	--set dataset.num_files_train=1000000000000 >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "at most 1,000,000,000" "$TMP/out" && [ ! -e "$TMP/r" ] &&
	ok "run: 10^12 objects refused before anything" || { bad "run: 10^12 objects: exit $rc"; cat "$TMP/out"; }
finish
