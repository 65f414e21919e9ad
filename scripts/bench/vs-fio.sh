#!/usr/bin/env bash
# vs-fio: gpufeed's own cost against fio's, on the same files with the same pattern.
#
# For each case and engine (uring / aio) it runs `gpufeed ceiling` and fio alternately,
# ROUNDS times, and prints the median of each figure and the median of the rounds' ratios
# gpufeed / fio. CPU per
# request is counted the way fio counts it (getrusage RUSAGE_THREAD of the thread that
# issues the I/O, over the measured time): gpufeed's ceiling.reader_cpu_us_per_request,
# fio's (usr_cpu + sys_cpu) x runtime / ios. Neither includes io_uring's worker threads
# (buffered reads that cannot complete inline are handed to them); gpufeed's
# ceiling.cpu_us_per_request, the whole process, does.
#
#   1 rand4k-direct  4 KiB random reads, O_DIRECT, queue depth 32, one 1 GiB file: IOPS
#   2 rand4k-mem     the same, buffered, the file on tmpfs (CPU-bound): IOPS
#   3 seq1m-direct   1 MiB sequential reads, O_DIRECT, queue depth 8, one 1 GiB file: MB/s
#   4 rand128k-files 128 KiB random reads over 10,000 files (whole files), O_DIRECT,
#                    queue depth 32, every file kept open (fio keeps them all open): IOPS
#
# gpufeed runs under `mpirun --bind-to none`, as fio runs: with one or two ranks Open MPI
# binds each rank to one core, and io_uring's worker threads (which do buffered reads
# that cannot complete inline, all of them on tmpfs) inherit that mask, so reader and
# workers would share one core while fio's spread over two (case 2: 0.74 bound, ~1.1 not).
#
# gpufeed makes the datasets (datagen) and fio reads those files: --filename for one
# file, --opendir for the 10,000. gpufeed reads each block once per pass in a keyed
# random order; fio's random map does the same.
#
# usage: scripts/bench/vs-fio.sh [--gpufeed BIN] [--dir DIR] [--shm DIR] [--rounds N]
#            [--seconds S] [--engines "uring aio"] [--cases "1 2 3 4"] [--keep]
# DIR must be on a filesystem with O_DIRECT (not tmpfs); SHM on tmpfs. Needs mpirun,
# fio and jq.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=${GPUFEED:-$top/build/gpufeed}
DIR=/tmp/gpufeed-vs-fio
SHM=/dev/shm/gpufeed-vs-fio
ROUNDS=3
SECONDS_PER_RUN=10
ENGINES="uring aio"
CASES="1 2 3 4"
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift ;;
	--dir) DIR=$2; shift ;;
	--shm) SHM=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECONDS_PER_RUN=$2; shift ;;
	--engines) ENGINES=$2; shift ;;
	--cases) CASES=$2; shift ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
	*) echo "vs-fio: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for tool in fio jq mpirun; do
	command -v "$tool" >/dev/null || { echo "vs-fio: $tool is needed" >&2; exit 2; }
done
[ -x "$GPUFEED" ] || { echo "vs-fio: no gpufeed at $GPUFEED (--gpufeed BIN)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/vs-fio-work.XXXXXX)
cleanup() {
	rm -rf "$WORK"
	[ "$KEEP" = 1 ] || rm -rf "$DIR" "$SHM"
}
trap cleanup EXIT

# The workload of a case: one YAML each, differing in the dataset and the reader.
workload() {
	local c=$1 f=$WORK/case$1.yaml
	case $c in
	1|2) ds="{format: indexed_binary, num_files_train: 1, num_samples_per_file: 262144, record_length_bytes: 4096, record_length_bytes_stdev: 0}"
	     rd="{batch_size: 1024, read_threads: 1, prefetch_size: 1, file_shuffle: off, sample_shuffle: seed, read_type: memory}"
	     qd=32 ;;
	3)   ds="{format: tfrecord, num_files_train: 1, num_samples_per_file: 1024, record_length_bytes: 1MiB, record_length_bytes_stdev: 0}"
	     rd="{batch_size: 64, read_threads: 1, prefetch_size: 1, file_shuffle: off, sample_shuffle: off, read_type: memory, transfer_size: 1MiB}"
	     qd=8 ;;
	4)   ds="{format: npz, num_files_train: 10000, num_samples_per_file: 1, record_length_bytes: 128KiB, record_length_bytes_stdev: 0}"
	     rd="{batch_size: 256, read_threads: 1, prefetch_size: 1, file_shuffle: seed, sample_shuffle: seed, read_type: memory}"
	     qd=32 ;;
	esac
	cat >"$f" <<-YAML
	model: {name: vsfio$c}
	workflow: {train: True}
	dataset: $ds
	reader: $rd
	train: {epochs: 100000, computation_time: 0}
	target: {queue_depth: $qd, open_files: 16384}
	YAML
	echo "$f"
}

datadir() { case $1 in 2) echo "$SHM/case$1" ;; *) echo "$DIR/case$1" ;; esac; }
direct() { case $1 in 2) echo false ;; *) echo true ;; esac; }

prepare() {
	local c=$1 d
	d=$(datadir "$c")
	if [ -f "$d/.gpufeed-manifest.json" ]; then return; fi
	echo "preparing case $c in $d" >&2
	mpirun -np 1 "$GPUFEED" datagen "$(workload "$c")" --target "$d" --results "$WORK/gen" --quiet --engine posix >/dev/null
}

# run_gpufeed CASE ENGINE -> "iops bytes_per_s cpu_us_per_request"
run_gpufeed() {
	local c=$1 e=$2 res=$WORK/res-$RANDOM$RANDOM s
	mpirun --bind-to none -np 1 "$GPUFEED" ceiling "$(workload "$c")" \
		--target "$(datadir "$c")" --results "$res" --engine "$e" --set target.direct="$(direct "$c")" \
		--duration "${SECONDS_PER_RUN}s" --quiet >/dev/null
	s=$(echo "$res"/*/summary.json)
	jq -r '.ceiling | "\(.read_requests_per_s) \(.read_bytes_per_s) \(.reader_cpu_us_per_request)"' "$s"
	rm -rf "$res"
}

# run_fio CASE ENGINE -> "iops bytes_per_s cpu_us_per_request"
run_fio() {
	local c=$1 e=$2 d args eng
	d=$(datadir "$c")
	case $e in uring) eng=(--ioengine=io_uring --fixedbufs --registerfiles) ;; aio) eng=(--ioengine=libaio) ;; esac
	case $c in
	1|2) args=(--filename="$d/train/img_0_of_1.indexed_binary" --rw=randread --bs=4k --iodepth=32) ;;
	3)   args=(--filename="$d/train/img_0_of_1.tfrecord" --rw=read --bs=1m --iodepth=8) ;;
	4)   args=(--opendir="$d/train" --rw=randread --bs=128k --iodepth=32 --file_service_type=random) ;;
	esac
	fio --name="case$c" "${args[@]}" "${eng[@]}" \
		--direct=$([ "$(direct "$c")" = true ] && echo 1 || echo 0) --time_based \
		--runtime="$SECONDS_PER_RUN" --randrepeat=0 --output-format=json --output="$WORK/fio.json" >/dev/null
	jq -r '.jobs[0] | "\(.read.iops) \(.read.bw_bytes) \((.usr_cpu + .sys_cpu) / 100 * .read.runtime * 1000 / .read.total_ios)"' "$WORK/fio.json"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

names=([1]="4k rand O_DIRECT qd32" [2]="4k rand tmpfs qd32" [3]="1m seq O_DIRECT qd8" [4]="128k rand 10k files O_DIRECT")
printf '| case | engine | gpufeed | fio | ratio | gpufeed CPU us/req | fio CPU us/req |\n'
printf '|---|---|---:|---:|---:|---:|---:|\n'
for c in $CASES; do
	prepare "$c"
	for e in $ENGINES; do
		: >"$WORK/g" ; : >"$WORK/f"
		for r in $(seq "$ROUNDS"); do
			run_gpufeed "$c" "$e" >>"$WORK/g"
			run_fio "$c" "$e" >>"$WORK/f"
		done
		# Case 3 is about bandwidth (MB/s), the others about IOPS.
		col=1; unit=IOPS; scale=1
		[ "$c" = 3 ] && { col=2; unit=MB/s; scale=1000000; }
		gv=$(awk -v k=$col -v s=$scale '{print $k / s}' "$WORK/g" | median)
		fv=$(awk -v k=$col -v s=$scale '{print $k / s}' "$WORK/f" | median)
		gc=$(awk '{print $3}' "$WORK/g" | median)
		fc=$(awk '{print $3}' "$WORK/f" | median)
		# The ratio is the median of each round's gpufeed / fio, the two runs back to back:
		# on a shared machine the storage drifts between rounds more than within one.
		ratio=$(paste "$WORK/g" "$WORK/f" | awk -v k=$col '{print $k / $(k + 3)}' | median)
		printf '| %s | %s | %.0f %s | %.0f %s | %.3f | %.2f | %.2f |\n' "${names[$c]}" "$e" "$gv" "$unit" \
			"$fv" "$unit" "$ratio" "$gc" "$fc"
		if [ -n "${VSFIO_RAW:-}" ]; then
			sed 's/^/#   gpufeed /' "$WORK/g"; sed 's/^/#   fio     /' "$WORK/f"
		fi
	done
done
