#!/usr/bin/env bash
# Description: the s3 engine over https and with virtual-hosted addressing, against the
# real Ceph RADOS Gateway (scripts/radosgw-start.sh with its TLS port: beast's
# ssl_endpoint, a self-signed certificate made here for localhost, its subdomains and
# 127.0.0.1; rgw_dns_name localhost, whose subdomains curl resolves to loopback).
# (a) https with the system's CAs: exit 1, saying the certificate could not be verified
# and what to do (s3_ca_bundle or --insecure); (b) https with s3_ca_bundle: datagen, the
# ceiling and training complete, TLS handshakes timed; (c) --insecure: works, warned
# about once (rank 0); (d) virtual-hosted (s3_force_path_style: false) over https:
# datagen and reads work, the objects are where path-style listing finds them; (e) train
# and ceiling with a CA bundle that did not sign the server's certificate: exit 1 with the
# TLS cause, not "run 'gpufeed datagen' first".
# Expected: as above, the bucket as it was after each keep_files=false run.
# Buggy: an unverified certificate accepted, a message without the fix, a warning from
# every rank, bucket.host requests signed or addressed wrongly.
. "$(dirname "$0")/lib.sh"

builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	echo "SKIP: this gpufeed was built without libcurl (no s3 engine)"
	exit 77
fi
if ! command -v radosgw >/dev/null; then
	echo "SKIP: radosgw is not installed (Debian packages radosgw ceph-mon ceph-osd)"
	exit 77
fi

srv=$TMP/radosgw
cleanup() {
	"$SRCDIR/scripts/radosgw-stop.sh" "$srv"
	rm -rf "$TMP"
}
trap cleanup EXIT

# curl matches no wildcard under a one-label name such as *.localhost: the bucket's host
# name is in the certificate itself, as a real endpoint's wildcard would cover it.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout "$TMP/key.pem" -out "$TMP/ca.pem" \
	-addext "subjectAltName=DNS:localhost,DNS:*.localhost,DNS:gf-vh.localhost,IP:127.0.0.1" >/dev/null 2>&1 ||
	{ echo "FAIL: openssl could not make a certificate"; exit 1; }
endpoint=$(RGW_TLS_CERT=$TMP/ca.pem RGW_TLS_KEY=$TMP/key.pem RGW_DNS_NAME=localhost \
	"$SRCDIR/scripts/radosgw-start.sh" "$srv" gf-tls gf-vh) || { echo "FAIL: radosgw did not start"; exit 1; }
https=https://localhost:$(cat "$srv/ssl_port")
export AWS_ACCESS_KEY_ID=$(cat "$srv/access_key") AWS_SECRET_ACCESS_KEY=$(cat "$srv/secret_key") AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
echo "radosgw at $endpoint and $https"
# Listings go path-style over http: what any client sees, whichever way gpufeed wrote.
ls3() { AWS_ENDPOINT_URL=$endpoint python3 "$SRCDIR/tests/s3ls.py" "$@"; }
export AWS_ENDPOINT_URL=$https
ca="storage.storage_options={s3_ca_bundle: $TMP/ca.pem}"

# (a) The system's CAs do not know the certificate: exit 1, and the message says why and
# what to do.
gf 1 run "$SMALL" --target s3://gf-tls/a --results "$TMP/r-a" --quiet >"$TMP/a" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q 'certificate could not be verified' "$TMP/a" && grep -q 's3_ca_bundle' "$TMP/a" &&
	grep -q -- '--insecure' "$TMP/a"; } && ok "unverified certificate: exit 1, names s3_ca_bundle and --insecure" ||
	{ bad "unverified certificate: exit $rc"; cat "$TMP/a"; }
[ "$(ls3 gf-tls | wc -l)" -eq 0 ] && ok "nothing written without a verified certificate" || bad "objects written"

# (b) With the CA: datagen, the ceiling and training over https, every new connection a
# timed TLS handshake, connections reused.
gf 2 run "$SMALL" --target s3://gf-tls/b --results "$TMP/r-b" --quiet --set "$ca" --set run.ceiling=true \
	--set dataset.keep_files=false >"$TMP/b" 2>&1 || { bad "https with s3_ca_bundle failed"; cat "$TMP/b"; }
s=$(only_result "$TMP/r-b")/summary.json
expect "https: datagen, ceiling and train complete" "$s" \
	'.status == "complete" and .datagen.files == 64 and .ceiling.samples > 0 and .train.samples == 128'
expect "https: TLS handshakes timed for the new connections only" "$s" \
	'[.s3.phases[] | .tls_us.count == .new_connections and .tls_us.p50 > 0 and .new_connections < .requests] | all'
expect "https: ceiling reads timed" "$s" \
	'.s3.phases.ceiling.requests == .ceiling.read_requests and .s3.phases.ceiling.bytes_received == .ceiling.read_bytes and .s3.phases.ceiling.ttfb_us.p50 <= .s3.phases.ceiling.total_us.p50'
grep -q '^s3 ceiling: .* req/s, .*TTFB p50 .* new connection' "$TMP/b" && ok "https: the s3 line of the summary" ||
	{ bad "no s3 line"; cat "$TMP/b"; }
[ "$(ls3 gf-tls | wc -l)" -eq 0 ] && ok "https: keep_files=false left the bucket empty" || bad "objects left"

# (c) --insecure: no verification, one warning (rank 0's), recorded in the workload.
gf 2 run "$SMALL" --target s3://gf-tls/c --results "$TMP/r-c" --quiet --insecure --set dataset.keep_files=false \
	>"$TMP/c" 2>&1 || { bad "--insecure failed"; cat "$TMP/c"; }
n=$(grep -c 'certificates of https://localhost:[0-9]* are not verified' "$TMP/c")
[ "$n" -eq 1 ] && ok "--insecure works, warned once" || { bad "--insecure: $n warnings"; cat "$TMP/c"; }
expect "--insecure recorded" "$(only_result "$TMP/r-c")/summary.json" \
	'.status == "complete" and .workload.storage.storage_options.s3_insecure == "true"'

# (d) Virtual-hosted over https: gf-vh.localhost/key, signed for that host.
gf 2 run "$SMALL" --target s3://gf-vh/d --results "$TMP/r-d" --quiet \
	--set "storage.storage_options={s3_ca_bundle: $TMP/ca.pem, s3_force_path_style: false}" >"$TMP/d" 2>&1 ||
	{ bad "virtual-hosted run failed"; cat "$TMP/d"; }
expect "virtual-hosted: datagen and reads" "$(only_result "$TMP/r-d")/summary.json" \
	'.status == "complete" and .datagen.files == 64 and .train.samples == 128 and .s3.errors.client_4xx == 0'
n=$(ls3 gf-vh d/train/ | wc -l)
[ "$n" -eq 64 ] && ok "virtual-hosted: 64 objects where path-style finds them" || bad "virtual-hosted: $n objects"

# (e) train (and ceiling) on a dataset that is there, with a CA bundle that did not sign the
# server's certificate: a TLS failure is the target failing (exit 1, naming the
# certificate), not a missing dataset ("run 'gpufeed datagen' first", exit 2).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout "$TMP/other.key" -out "$TMP/other.pem" \
	>/dev/null 2>&1 || bad "openssl: a second certificate"
gf 1 datagen "$SMALL" --target s3://gf-tls/e --results "$TMP/r-e0" --quiet --set "$ca" >"$TMP/e" 2>&1 ||
	{ bad "datagen for (e) failed"; cat "$TMP/e"; }
for cmd in train ceiling; do
	gf 1 $cmd "$SMALL" --target s3://gf-tls/e --results "$TMP/r-e-$cmd" \
		--set "storage.storage_options={s3_ca_bundle: $TMP/other.pem}" >"$TMP/e" 2>&1
	rc=$?
	{ [ "$rc" -eq 1 ] && grep -q 'certificate could not be verified' "$TMP/e" && ! grep -q "datagen' first" "$TMP/e"; } &&
		ok "$cmd with the wrong CA: exit 1, the TLS cause" || { bad "$cmd with the wrong CA: exit $rc"; cat "$TMP/e"; }
	[ ! -e "$TMP/r-e-$cmd" ] && ok "$cmd with the wrong CA: no results folder" || bad "$cmd with the wrong CA: a results folder"
done
finish
