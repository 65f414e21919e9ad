#!/usr/bin/env bash
# Stop the S3 server that scripts/s3rver-start.sh DIR started (by its pid in DIR).
set -u
dir=${1:?usage: s3rver-stop.sh DIR}
[ -f "$dir/pid" ] || exit 0
pid=$(cat "$dir/pid")
if kill "$pid" 2>/dev/null; then
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
fi
rm -f "$dir/pid"
exit 0
