#!/usr/bin/env bash
# Start a throwaway one-machine Ceph cluster with the RADOS Gateway, for tests and for
# trying gpufeed against a real S3 implementation: scripts/radosgw-start.sh DIR [BUCKET...]
# One monitor, one OSD on the memstore objectstore (data in memory: nothing on disk but
# logs), pool size 1, auth none, radosgw's beast frontend on 127.0.0.1 on a free port with
# tcp_nodelay=1 (without it small GETs wait ~40 ms on Nagle). Prints the endpoint
# (http://127.0.0.1:PORT); the credentials are in DIR/access_key and DIR/secret_key.
# Stop it with scripts/radosgw-stop.sh DIR. Needs the Debian packages radosgw, ceph-mon,
# ceph-osd (scripts/install-deps.sh --test).
# Optional, from the environment: RGW_TLS_CERT and RGW_TLS_KEY (PEM files) add an https
# port beside the http one (beast's ssl_endpoint), written to DIR/ssl_port; RGW_DNS_NAME
# (default 127.0.0.1) is the name under which radosgw takes bucket.NAME host names
# (virtual-hosted requests), e.g. localhost, whose subdomains curl resolves to loopback.
# RGW_ADDR (default 127.0.0.1) is the address radosgw listens on, e.g. a testbed server
# host's (scripts/testbed-s3.sh runs this inside that host's network namespace); the
# monitor and the OSD stay on loopback, and RGW_DNS_NAME then defaults to RGW_ADDR.
set -euo pipefail
dir=${1:?usage: radosgw-start.sh DIR [BUCKET...]}
addr=${RGW_ADDR:-127.0.0.1}
for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool; do
	command -v "$b" >/dev/null || { echo "radosgw-start: $b missing: install radosgw ceph-mon ceph-osd" >&2; exit 1; }
done
# A fresh cluster now and then fails to form (the OSD refused by the monitor with EPERM
# or "wrong fsid", seen about once in ten starts on a loaded machine); a clean start from
# nothing succeeds, so the whole start is tried up to three times.
if [ -z "${RGW_START_ATTEMPT:-}" ]; then
	for attempt in 1 2 3; do
		RGW_START_ATTEMPT=$attempt bash "$0" "$@" && exit 0
		"$(dirname "$0")/radosgw-stop.sh" "$dir"
		[ "$attempt" = 3 ] || echo "radosgw-start: attempt $attempt failed, starting again from nothing" >&2
	done
	exit 1
fi
shift
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir/mon" "$dir/osd" "$dir/run" "$dir/log" "$dir/ssl_port"
mkdir -p "$dir/mon" "$dir/osd" "$dir/run" "$dir/log"
port=$(python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$addr")
monport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
frontend="beast endpoint=$addr:$port"
sslport=
if [ -n "${RGW_TLS_CERT:-}" ] || [ -n "${RGW_TLS_KEY:-}" ]; then
	[ -r "${RGW_TLS_CERT:-}" ] && [ -r "${RGW_TLS_KEY:-}" ] ||
		{ echo "radosgw-start: RGW_TLS_CERT and RGW_TLS_KEY must both name readable PEM files" >&2; exit 1; }
	sslport=$(python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$addr")
	frontend="$frontend ssl_endpoint=$addr:$sslport ssl_certificate=$(realpath "$RGW_TLS_CERT") ssl_private_key=$(realpath "$RGW_TLS_KEY")"
fi
conf=$dir/ceph.conf
cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$monport
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
# The monitor stops itself when its disk is under 5% free: a throwaway cluster on a
# full test machine must not.
mon data avail crit = 0
mon data avail warn = 0
osd objectstore = memstore
memstore device bytes = 2147483648
osd max object name len = 460
osd max object namespace len = 64
run dir = $dir/run
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid

[mon.a]
mon data = $dir/mon

[osd.0]
osd data = $dir/osd

[client.rgw.gf]
rgw frontends = $frontend tcp_nodelay=1
rgw data = $dir/rgw
rgw dns name = ${RGW_DNS_NAME:-$addr}
EOF
C=(-c "$conf")
monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$monport]" "$dir/monmap" >/dev/null
ceph-mon "${C[@]}" --mkfs -i a --monmap "$dir/monmap" >>"$dir/log/mon.start" 2>&1 ||
	{ echo "radosgw-start: ceph-mon --mkfs failed:" >&2; tail -20 "$dir/log/mon.start" >&2; exit 1; }
ceph-mon "${C[@]}" -i a >>"$dir/log/mon.start" 2>&1 ||
	{ echo "radosgw-start: ceph-mon did not start:" >&2; tail -20 "$dir/log/mon.start" >&2; exit 1; }
# Bounded waits everywhere: a cluster that does not come up fails the script, never hangs.
for _ in $(seq 100); do ceph "${C[@]}" --connect-timeout 2 mon stat >/dev/null 2>&1 && break; sleep 0.2; done
osd=$(ceph "${C[@]}" osd create)
# Now and then (seen about once in ten starts) the new OSD's first commands to the
# monitor are refused ("wrong fsid") and it exits: a fresh mkfs and start succeeds.
started=
for _ in 1 2 3; do
	rm -rf "${dir:?}/osd" && mkdir -p "$dir/osd"
	if ceph-osd "${C[@]}" -i "$osd" --mkfs >>"$dir/log/osd.start" 2>&1 &&
		ceph-osd "${C[@]}" -i "$osd" >>"$dir/log/osd.start" 2>&1; then
		started=1
		break
	fi
	sleep 1
done
[ -n "$started" ] || { echo "radosgw-start: the OSD did not start:" >&2; tail -20 "$dir/log/osd.start" >&2; exit 1; }
for _ in $(seq 150); do
	ceph "${C[@]}" osd stat 2>/dev/null | grep -q '1 up' && break
	sleep 0.2
done
ceph "${C[@]}" osd stat | grep -q '1 up' || { echo "radosgw-start: the OSD did not come up" >&2; tail -20 "$dir/log/osd.0.log" >&2; exit 1; }
mkdir -p "$dir/rgw"
radosgw "${C[@]}" -n client.rgw.gf >>"$dir/log/rgw.start" 2>&1
for _ in $(seq 300); do
	curl -s -o /dev/null "http://$addr:$port/" && break
	sleep 0.1
done
curl -s -o /dev/null "http://$addr:$port/" || { echo "radosgw-start: radosgw did not answer" >&2; tail -20 "$dir/log/client.rgw.gf.log" >&2; exit 1; }
if [ -n "$sslport" ]; then
	curl -sk -o /dev/null "https://$addr:$sslport/" ||
		{ echo "radosgw-start: radosgw did not answer on https port $sslport" >&2; tail -20 "$dir/log/client.rgw.gf.log" >&2; exit 1; }
	echo "$sslport" >"$dir/ssl_port"
fi
radosgw-admin "${C[@]}" user create --uid=gpufeed --display-name=gpufeed --access-key=GPUFEED \
	--secret-key="$(python3 -c 'import secrets; print(secrets.token_hex(20))')" >"$dir/user.json"
python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["keys"][0]; open(sys.argv[2], "w").write(k["access_key"]); open(sys.argv[3], "w").write(k["secret_key"])' \
	"$dir/user.json" "$dir/access_key" "$dir/secret_key"
rm -f "$dir/user.json"
chmod 600 "$dir/secret_key"
# The buckets: a SigV4-signed PUT per bucket, with Python's standard library only.
for b in "$@"; do
	python3 - "$addr:$port" "$b" "$dir/access_key" "$dir/secret_key" <<'PY' || { echo "radosgw-start: cannot create bucket $b" >&2; exit 1; }
import datetime, hashlib, hmac, sys, urllib.request
host, bucket, akf, skf = sys.argv[1:]
ak, sk = open(akf).read().strip(), open(skf).read().strip()
now = datetime.datetime.now(datetime.timezone.utc)
amz, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
h = hashlib.sha256(b"").hexdigest()
canon = "PUT\n/%s\n\nhost:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n\nhost;x-amz-content-sha256;x-amz-date\n%s" % (bucket, host, h, amz, h)
scope = "%s/us-east-1/s3/aws4_request" % day
sts = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (amz, scope, hashlib.sha256(canon.encode()).hexdigest())
k = ("AWS4" + sk).encode()
for part in (day, "us-east-1", "s3", "aws4_request"):
    k = hmac.new(k, part.encode(), hashlib.sha256).digest()
sig = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
req = urllib.request.Request("http://%s/%s" % (host, bucket), method="PUT", data=b"", headers={
    "x-amz-content-sha256": h, "x-amz-date": amz,
    "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%s" % (ak, scope, sig)})
urllib.request.urlopen(req, timeout=10).read()
PY
done
echo "$port" >"$dir/port"
echo "http://$addr:$port"
