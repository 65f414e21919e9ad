#!/usr/bin/env bash
# Stop what scripts/radosgw-start.sh DIR started (radosgw, the OSD, the monitor, by the
# pids in DIR/run) and remove the cluster's files; the memstore data goes with the OSD.
set -uo pipefail
dir=${1:?usage: radosgw-stop.sh DIR}
[ -d "$dir/run" ] || exit 0
for name in client.rgw.gf osd.0 mon.a; do
	f=$dir/run/$name.pid
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null || continue
	# Bounded wait, then a forced stop.
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null
done
rm -rf "$dir/mon" "$dir/osd" "$dir/run" "$dir/rgw" "$dir/monmap" "$dir/port" "$dir/ssl_port"
exit 0
