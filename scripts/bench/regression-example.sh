#!/usr/bin/env bash
# regression-example: the worked example of docs/regression.md. A filesystem "change" made
# here: an ext4 file system on a loop device whose reads the kernel's block throttle caps
# (tests/integration/throttle.lib), at 400 MB/s before and 60 MB/s after. Three runs of the
# quickstart workload (512 files, 8 epochs, O_DIRECT reads so that the cap holds), each
# `--repeat 3`: the baseline, a like run at the same cap, and the run after the change.
# Then gpufeed compare at the default tolerance: the like run must exit 0, the slower 3.
#
# usage: scripts/bench/regression-example.sh [--gpufeed BIN] [--out DIR]
# Needs root (loop device, cgroup), mpirun and about 600 MB in /tmp. Prints every command
# and the two comparisons; DIR (default a temporary folder) keeps the results folders.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=$top/build/gpufeed out=
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "usage: $0 [--gpufeed BIN] [--out DIR]" >&2; exit 2 ;;
	esac
done
TMP=$(mktemp -d /tmp/gpufeed-regression.XXXXXX)
out=${out:-$TMP/results}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
. "$top/tests/integration/throttle.lib"
throttle_setup 400
say() { printf '\n$ %s\n' "$*"; }
# run NAME: one --repeat 3 run inside the throttled cgroup, at the cap set before it.
run() {
	say gpufeed run workloads/quickstart.yaml --target "$THR_DIR/data" --set target.direct=true \
		--set dataset.num_files_train=512 --set train.epochs=8 --repeat 3 --label "$1"
	throttle_run mpirun --oversubscribe --bind-to none -np 2 "$GPUFEED" run "$top/workloads/quickstart.yaml" \
		--target "$THR_DIR/data" --results "$out" --label "$1" --progress off --set target.direct=true \
		--set dataset.num_files_train=512 --set train.epochs=8 --repeat 3 2>&1 | grep -E "^(repeat|repeats|verdict|datagen):"
}
echo "# the cap before the change: 400 MB/s of reads"
throttle_set rbps=400000000
run before
run before-again
echo "# the change: reads capped at 60 MB/s"
throttle_set rbps=60000000
run after
say gpufeed compare --baseline "$out/before" "$out/before-again"
"$GPUFEED" compare --baseline "$out/before" "$out/before-again"
echo "exit code: $?"
say gpufeed compare --baseline "$out/before" "$out/after"
"$GPUFEED" compare --baseline "$out/before" "$out/after"
echo "exit code: $?"
