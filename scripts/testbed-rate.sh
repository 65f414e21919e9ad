#!/usr/bin/env bash
# Change the shaping of testbed links while the testbed runs (servers, mounts and all stay
# up): scripts/testbed-rate.sh HOST=RATE [HOST=RATE ...], e.g. c4=250mbit s1=1gbit, or
# clients=50mbit / servers=2gbit for every host of a role. Both directions of each link
# change (tbf on the host's end and on the bridge's end), and $GF_TESTBED_DIR/rates follows.
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
[ -f "$TB_DIR/rates" ] || { echo "testbed-rate: no testbed at $TB_DIR: run scripts/testbed-up.sh first" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: testbed-rate.sh HOST=RATE|clients=RATE|servers=RATE ..." >&2; exit 2; }
for a in "$@"; do
	who=${a%%=*} r=${a#*=}
	[ "$who" != "$a" ] || { echo "testbed-rate: want HOST=RATE, not '$a'" >&2; exit 2; }
	bits=$(tb_rate_bits "$r") || { echo "testbed-rate: '$r' is not a tc rate of at least 8kbit (e.g. 250mbit)" >&2; exit 2; }
	case $who in
	clients) hosts=$(awk '$2 == "client" { print $1 }' "$TB_DIR/rates") ;;
	servers) hosts=$(awk '$2 == "server" { print $1 }' "$TB_DIR/rates") ;;
	*)
		hosts=$who
		grep -q "^$hosts " "$TB_DIR/rates" || hosts=$TB_PREFIX-$who
		grep -q "^$hosts " "$TB_DIR/rates" || { echo "testbed-rate: no host $who in the testbed" >&2; exit 2; }
		;;
	esac
	for h in $hosts; do
		tb_shape "$h" "$bits" || { echo "testbed-rate: tc failed on $h" >&2; exit 1; }
		awk -v h="$h" -v b="$bits" '$1 == h { $4 = b } { print }' "$TB_DIR/rates" >"$TB_DIR/rates.new"
		mv "$TB_DIR/rates.new" "$TB_DIR/rates"
		echo "testbed-rate: $h $(awk -v b="$bits" 'BEGIN { printf "%g Mbit/s", b / 1e6 }') each way" >&2
	done
done
