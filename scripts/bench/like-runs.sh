#!/usr/bin/env bash
# like-runs: does gpufeed compare cry wolf? For each of TRIES tries it runs the quickstart
# workload twice, back to back, and compares the second against the first at the default
# tolerance (5%); then a run clearly slower (O_DIRECT reads, one reader thread: the page
# cache and half the loader gone) against the same baseline. A like pair must exit 0 and
# the slow run 3, every time. Prints one line per try and the counts at the end.
#
# usage: scripts/bench/like-runs.sh [--tries N] [--repeat N] [--gpufeed BIN] [--dir DIR]
#   --repeat N  each run is `run --repeat N` (the median of N repeats, compare's rank
#               test) instead of a single run
# DIR (default a temporary folder) holds the dataset (generated once, ~550 MB) and the
# results; it must be on a filesystem with O_DIRECT (not tmpfs). Exit 0 when every like
# pair exited 0 and every slow run 3, else 1.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tries=10 repeat=1 gpufeed=$top/build/gpufeed dir=
while [ $# -gt 0 ]; do
	case $1 in
	--tries) tries=$2; shift 2 ;;
	--repeat) repeat=$2; shift 2 ;;
	--gpufeed) gpufeed=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	*) echo "usage: $0 [--tries N] [--repeat N] [--gpufeed BIN] [--dir DIR]" >&2; exit 2 ;;
	esac
done
[ -n "$dir" ] || { dir=$(mktemp -d /var/tmp/gpufeed-like.XXXXXX); trap 'rm -rf "$dir"' EXIT; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
reps=()
[ "$repeat" -gt 1 ] && reps=(--repeat "$repeat")
run() { # run NAME [--set ...]: one results folder in $dir/res/NAME
	local name=$1
	shift
	mpirun --oversubscribe --bind-to none -np 2 "$gpufeed" run "$top/workloads/quickstart.yaml" --target "$dir/data" \
		--results "$dir/res" --label "$name" --quiet "${reps[@]}" "$@" >"$dir/$name.log" 2>&1 ||
		{ echo "run $name failed:" >&2; tail -5 "$dir/$name.log" >&2; return 1; }
	ls -d "$dir/res/$name"*/ 2>/dev/null | head -1 >/dev/null
}
folder() { ls -d "$dir"/res/*/ | while read -r d; do [ "$(jq -r .label "$d/summary.json")" = "$1" ] && echo "$d"; done; }
like_ok=0 slow_ok=0
for t in $(seq 1 "$tries"); do
	run "a$t" && run "b$t" && run "s$t" --set target.direct=true --set reader.read_threads=1 --set train.epochs=1 || exit 1
	a=$(folder "a$t") b=$(folder "b$t") s=$(folder "s$t")
	"$gpufeed" compare --baseline "$a" "$b" >"$dir/cmp-like-$t.txt" 2>&1
	lrc=$?
	"$gpufeed" compare --baseline "$a" "$s" >"$dir/cmp-slow-$t.txt" 2>&1
	src=$?
	[ $lrc -eq 0 ] && like_ok=$((like_ok + 1))
	[ $src -eq 3 ] && slow_ok=$((slow_ok + 1))
	printf 'try %2d: like pair exit %d (%s), slow run exit %d; load %s\n' "$t" $lrc \
		"$(grep -c '?' "$dir/cmp-like-$t.txt") figure(s) past the tolerance within the noise or not judged" \
		$src "$(cut -d' ' -f1-3 /proc/loadavg)"
	[ $lrc -eq 0 ] || sed -n '/^REGRESSIONS/,/^$/p' "$dir/cmp-like-$t.txt"
done
echo "like pairs exit 0: $like_ok of $tries; slow runs exit 3: $slow_ok of $tries (repeat $repeat)"
[ $like_ok -eq "$tries" ] && [ $slow_ok -eq "$tries" ]
