#!/usr/bin/env bash
# Checkpoint burst efficiency against fio, in the same run on the same folder:
# 2 ranks each write a 1 GiB shard (file per rank), O_DIRECT, fsync at the end, and fio
# writes the same bytes the same way (numjobs=2, direct=1, end_fsync=1, the same block size
# and queue depth). Rounds alternate gpufeed and fio; the script prints each round, the
# medians and the ratio gpufeed/fio of write bandwidth (bytes / time to durable).
#
#   scripts/bench/vs-fio-write.sh [DIR] [ROUNDS]     (default DIR /var/tmp/gf-vs-fio, 5 rounds)
#
# Environment: GPUFEED (default build/gpufeed), ENGINE (gpufeed engine; default: its own
# choice for a local path), SIZE (per rank, default 1GiB), BLOCK (default 8MiB), QD (default 8).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-/var/tmp/gf-vs-fio}
rounds=${2:-5}
GPUFEED=${GPUFEED:-$top/build/gpufeed}
SIZE=${SIZE:-1GiB}
BLOCK=${BLOCK:-8MiB}
QD=${QD:-8}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v fio >/dev/null || { echo "fio is missing: scripts/install-deps.sh --test installs it" >&2; exit 2; }
[ -x "$GPUFEED" ] || { echo "no gpufeed at $GPUFEED: run scripts/build.sh first" >&2; exit 2; }

bytes() { numfmt --from=iec "${1%iB}"; }
size_b=$(bytes "$SIZE")
block_b=$(bytes "$BLOCK")
mkdir -p "$dir"
work=$(mktemp -d "$dir/run.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat >"$work/ckpt.yaml" <<YAML
# 2 ranks x $SIZE, written by every rank at once
model: {name: vs_fio_write, model_size_bytes: $((size_b * 2))}
workflow: {train: false, checkpoint: true}
checkpoint: {type: all_ranks, num_checkpoints_write: 1, num_checkpoints_read: 0, fsync: true,
             buffer_size: $((block_b * QD))}
target: {direct: true, queue_depth: $QD}
YAML

fio_engine=io_uring
[ -n "${ENGINE:-}" ] && [ "$ENGINE" = aio ] && fio_engine=libaio
[ -n "${ENGINE:-}" ] && [ "$ENGINE" = posix ] && fio_engine=psync

gf_round() {
	local res=$work/res
	rm -rf "$work/gf" "$res"
	mpirun --oversubscribe -np 2 "$GPUFEED" run "$work/ckpt.yaml" --target "$work/gf" --results "$res" \
		--quiet ${ENGINE:+--engine "$ENGINE"} >/dev/null
	jq -r '.checkpoint.bursts[0] | "\(.bytes_per_s) \(.burst_s)"' "$res"/*/summary.json
}

fio_round() {
	rm -rf "$work/fio"
	mkdir -p "$work/fio"
	fio --name=ckpt --directory="$work/fio" --rw=write --bs="$block_b" --size="$size_b" --numjobs=2 \
		--direct=1 --end_fsync=1 --ioengine=$fio_engine --iodepth="$QD" --group_reporting \
		--output-format=json >"$work/fio.json"
	# With group_reporting, job_runtime adds up the jobs' times; write.runtime is the group's
	# wall time (the slowest job, its final fsync included), which is what a burst is.
	jq -r '.jobs[0] | "\(.write.io_bytes / (.write.runtime / 1000)) \(.write.runtime / 1000)"' "$work/fio.json"
}

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

echo "checkpoint write: 2 ranks x $SIZE, O_DIRECT, fsync, block $BLOCK, qd $QD, fio engine $fio_engine, in $dir"
printf "%-6s %16s %16s\n" round "gpufeed MB/s" "fio MB/s"
: >"$work/g"
: >"$work/f"
for r in $(seq 1 "$rounds"); do
	g=$(gf_round | awk '{print $1}')
	f=$(fio_round | awk '{print $1}')
	echo "$g" >>"$work/g"
	echo "$f" >>"$work/f"
	awk -v r="$r" -v g="$g" -v f="$f" 'BEGIN { printf "%-6s %16.1f %16.1f\n", r, g / 1e6, f / 1e6 }'
done
gm=$(median <"$work/g")
fm=$(median <"$work/f")
awk -v g="$gm" -v f="$fm" 'BEGIN { printf "%-6s %16.1f %16.1f\nratio gpufeed/fio (median): %.3f\n", "median", g / 1e6, f / 1e6, g / f }'
