#!/usr/bin/env bash
# sim-perf: gpufeed simulate at 100,000 ranks x 100 checkpoint bursts, on one core, and
# its memory against the node count.
#
# 1. Llama 3 70B (tensor 8, ZeRO 3) on 12,500 nodes x 8 ranks = 100,000 ranks, and Llama 3
#    405B (tensor 8 x pipeline 32, ZeRO 1: shards of several sizes) on 12,544 nodes =
#    100,352 ranks, each with 100 write and 100 restore bursts, every burst simulated:
#    wall time, CPU time and peak RSS from /usr/bin/time -v, under taskset -c 0. The
#    target is under 10 s each.
# 2. The 405B layout at 32, 1,248, 12,544 and 125,440 nodes (10 bursts each): peak RSS and
#    the flow classes, and the memory per node above the 32-node baseline (the program
#    and its libraries), which stays flat when memory is linear in nodes. Memory never
#    depends on bytes: the 405B checkpoint is 5.2 TiB.
#
# No plot is drawn (--no-plot): gnuplot's time is not the simulator's.
#
# usage: scripts/bench/sim-perf.sh [--gpufeed BIN] [--keep]
# Needs /usr/bin/time and jq.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=${GPUFEED:-$top/build/gpufeed}
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	*) echo "usage: $0 [--gpufeed BIN] [--keep]" >&2; exit 2 ;;
	esac
done
command -v jq >/dev/null || { echo "sim-perf: needs jq" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "sim-perf: needs /usr/bin/time (GNU time)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/gpufeed-sim-perf.XXXXXX)
[ "$KEEP" -eq 1 ] && echo "keeping $TMP" || trap 'rm -rf "$TMP"' EXIT
one_core=()
command -v taskset >/dev/null && one_core=(taskset -c 0)
SYS=$top/systems/example.yaml

# run WORKLOAD NODES BURSTS: prints "wall_s cpu_s rss_kib classes solves ranks burst_s"
run() {
	local wl=$1 nodes=$2 bursts=$3 out=$TMP/r-$1-$2
	"${one_core[@]}" /usr/bin/time -v "$GPUFEED" simulate "$top/workloads/$wl.yaml" --system "$SYS" \
		--nodes "$nodes" --set checkpoint.num_checkpoints_write="$bursts" \
		--set checkpoint.num_checkpoints_read="$bursts" --results "$out" --no-plot --quiet \
		>"$TMP/out" 2>"$TMP/time" || { cat "$TMP/out" "$TMP/time" >&2; exit 1; }
	local wall rss cpu s
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$TMP/time" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$TMP/time")
	s=$(find "$out" -name summary.json | head -1)
	echo "$wall $cpu $rss $(jq -r '.points[0] | "\(.simulation.flow_classes) \(.simulation.solves) \(.ranks) \(.checkpoint.write_burst_s)"' "$s")"
}

echo "gpufeed simulate: 100 write + 100 restore bursts, one core (${one_core[*]:-no taskset})"
printf '  %-12s %8s %8s %9s %9s %10s %9s %12s\n' workload ranks nodes wall_s cpu_s rss_MiB classes burst_s
fail=0
for spec in llama3_70b:12500 llama3_405b:12544; do
	wl=${spec%%:*} nodes=${spec#*:}
	read -r wall cpu rss classes solves ranks burst < <(run "$wl" "$nodes" 100)
	printf '  %-12s %8s %8s %9.2f %9.2f %10.1f %9s %12.4g\n' "$wl" "$ranks" "$nodes" "$wall" "$cpu" \
		"$(echo "$rss / 1024" | bc -l)" "$classes" "$burst"
	awk -v w="$wall" 'BEGIN { exit !(w < 10) }' || { echo "  FAIL: $wl took ${wall} s (target < 10 s)"; fail=1; }
done

echo
echo "memory against nodes (llama3_405b, 10 + 10 bursts): bytes per node above the 32-node baseline"
printf '  %8s %8s %9s %10s %16s\n' nodes ranks classes rss_MiB bytes_per_node
read -r _ _ base _ _ _ _ < <(run llama3_405b 32 10)
for nodes in 1248 12544 125440; do
	read -r wall cpu rss classes solves ranks burst < <(run llama3_405b "$nodes" 10)
	printf '  %8s %8s %9s %10.1f %16.0f\n' "$nodes" "$ranks" "$classes" "$(echo "$rss / 1024" | bc -l)" \
		"$(echo "($rss - $base) * 1024 / $nodes" | bc -l)"
done
echo "  (baseline: 32 nodes, the smallest the 405B layout fits at 8 ranks per node: $(echo "$base / 1024" | bc -l | xargs printf '%.1f') MiB)"
exit "$fail"
