#!/usr/bin/env bash
# Start a local S3 server (@20minutes/s3rver from tests/node_modules, which checks SigV4
# signatures) on 127.0.0.1 on a free port: scripts/s3rver-start.sh DIR [BUCKET...]
# Prints the endpoint (http://127.0.0.1:PORT). The server keeps its objects and its pid in
# DIR; stop it with scripts/s3rver-stop.sh DIR. Credentials: S3RVER / S3RVER.
# Needs `npm ci` in tests/ (scripts/install-deps.sh --test runs it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: s3rver-start.sh DIR [BUCKET...]}
shift
if [ ! -d "$top/tests/node_modules/@20minutes/s3rver" ]; then
	echo "s3rver-start: tests/node_modules has no s3rver: run scripts/install-deps.sh --test" >&2
	exit 1
fi
mkdir -p "$dir"
rm -f "$dir/port"
NODE_PATH="$top/tests/node_modules" nohup node --openssl-legacy-provider "$top/tests/s3rver.js" "$dir" "$@" \
	>"$dir/log" 2>&1 </dev/null &
echo $! >"$dir/pid"
# Bounded wait: it listens within a second or two.
for _ in $(seq 100); do
	[ -s "$dir/port" ] && break
	if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
		echo "s3rver-start: the server exited:" >&2
		cat "$dir/log" >&2
		exit 1
	fi
	sleep 0.1
done
if [ ! -s "$dir/port" ]; then
	echo "s3rver-start: no port after 10 s" >&2
	"$top/scripts/s3rver-stop.sh" "$dir"
	exit 1
fi
echo "http://127.0.0.1:$(cat "$dir/port")"
