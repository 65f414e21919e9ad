#!/usr/bin/env bash
# S3 on a testbed server host: the Ceph RADOS Gateway of scripts/radosgw-start.sh, run
# inside the host's network namespace and listening on the host's address, so every
# request and response crosses that host's shaped link. scripts/testbed-up.sh --s3 runs
# it; testbed-down.sh stops it.
#
#   scripts/testbed-s3.sh [SERVER_HOST]     # the first server host by default
#
# Prints the variables to export: GF_TESTBED_S3_HOST, AWS_ENDPOINT_URL (http://ADDR:PORT),
# AWS_REGION, and the credentials as $(cat FILE) so the secret itself is never printed.
# The bucket gf-testbed exists. Exit 77 when radosgw is not installed.
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
say() { echo "testbed-s3: $*" >&2; }
[ -f "$TB_DIR/testbed.env" ] || { say "no testbed at $TB_DIR: run scripts/testbed-up.sh first"; exit 1; }
# shellcheck disable=SC1091
. "$TB_DIR/testbed.env"
for b in radosgw ceph-mon ceph-osd; do
	command -v "$b" >/dev/null || { say "$b not found: install radosgw ceph-mon ceph-osd"; exit 77; }
done
host=${1:-${GF_TESTBED_SERVERS%% *}}
addr=$(awk -v h="$host" '$1 == h && $2 == "server" { print $3 }' "$TB_DIR/rates")
[ -n "$addr" ] || { say "$host is not a server host of this testbed ($GF_TESTBED_SERVERS)"; exit 2; }
dir=$TB_DIR/node/$host/rgw
t0=$(date +%s.%N)
echo "rgw $host" >>"$TB_DIR/made"
endpoint=$(RGW_ADDR=$addr ip netns exec "$host" "$TB_HERE/radosgw-start.sh" "$dir" gf-testbed 2>"$TB_DIR/log/rgw-start.log") || {
	cat "$TB_DIR/log/rgw-start.log" >&2
	say "radosgw did not start on $host"
	exit 1
}
t1=$(date +%s.%N)
say "radosgw on $host at $endpoint (bucket gf-testbed) in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
cat <<EOF
export GF_TESTBED_S3_HOST=$host
export AWS_ENDPOINT_URL=$endpoint
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=\$(cat $dir/access_key)
export AWS_SECRET_ACCESS_KEY=\$(cat $dir/secret_key)
EOF
