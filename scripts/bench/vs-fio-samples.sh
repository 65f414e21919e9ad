#!/usr/bin/env bash
# vs-fio-samples: gpufeed's CPU per sample and samples/s on each engine, against posix and
# against fio, on the pattern a framework's loader makes: many small files, each opened,
# read and closed (DLIO's read_type on_demand), one reader thread.
#
# The dataset is FILES files of one SIZE-byte sample each (default 16,384 x 4 KiB) in
# dataset.format FORMAT, made once by gpufeed datagen. For each storage and loader, ROUNDS
# times, every engine runs once, and gpufeed and fio run back to back on the same files:
#   gpufeed  `gpufeed train`, 1 rank, 1 reader thread, batch 64, no compute, EPOCHS passes
#            (default 4). CPU per sample = train.cpu_s / train.samples: the whole process
#            over the training phase, io_uring's worker threads included. samples/s =
#            train.samples_per_s. `default` is the engine gpufeed picks when none is given
#            (summary.json target.engine says which; fio runs that engine). "vs posix" is
#            the median of the rounds' ratios to the posix run of the same round.
#   fio      only for a format whose sample is one read of the whole file (the default,
#            indexed_binary; npz is read as numpy reads it, about ten requests a sample,
#            which fio cannot make: then fio is left out). --opendir over the same files,
#            --openfiles = the depth (one file open at a time for the framework's loader),
#            the files in the directory's order (--file_service_type=sequential: ext4
#            lists them in hash order, random against their numbers, tmpfs newest first;
#            fio's random file service draws with replacement and, once most files are
#            done, searches for one that is not: 213 samples/s here), no cache advice per
#            open (--invalidate=0 --fadvise_hint=0; gpufeed gives none), EPOCHS passes.
#            With a queue fio reaps up to the depth per system call and, buffered,
#            submits up to the depth per call (--iodepth_batch_complete_max,
#            --iodepth_batch_submit), as gpufeed does (with O_DIRECT both send each
#            request as it is queued). CPU per sample: fio's own figure, (usr_cpu +
#            sys_cpu) x runtime / ios (the job's thread, over its I/O: fio's set-up, which
#            stats every file of the folder, costs more than a pass and is left out).
#            Where io_uring hands every read to its worker threads (buffered tmpfs: --why
#            counts them) that figure leaves them out, so their time is added: fio's whole
#            process (getrusage of the child, every thread) for 1 + EPOCHS passes minus
#            that for 1 pass, less the job thread's. samples/s = fio's IOPS. The fio
#            ratios are medians of the rounds' gpufeed / fio, the two runs back to back.
# Engines: posix = fio psync, uring = io_uring (--fixedbufs: gpufeed registers its
# buffers), aio = libaio, null (gpufeed only: the tool's own cost). Loaders: pytorch (one
# read in flight per reader thread) and asyncN (target.queue_depth N; fio --iodepth N).
# Storages: tmpfs (buffered, SHM) and disk (O_DIRECT, DIR; target.direct true, --direct=1).
#
# --why adds, per cell, one run of each under perf stat and prints per sample the system
# calls, context switches and requests io_uring handed to a worker thread
# (io_uring:io_uring_queue_async_work), each side's 1 + EPOCHS passes minus its 1 pass.
#
# usage: scripts/bench/vs-fio-samples.sh [--gpufeed BIN] [--dir DIR] [--shm DIR] [--rounds N]
#            [--format F] [--files N] [--size BYTES] [--epochs N] [--storages "tmpfs disk"]
#            [--loaders "pytorch async8"] [--engines "default posix uring aio null"] [--why] [--keep]
# DIR must be on a filesystem with O_DIRECT (not tmpfs); SHM on tmpfs. Needs mpirun, fio,
# jq and python3; --why needs perf (scripts/install-deps.sh --test).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=${GPUFEED:-$top/build/gpufeed}
DIR=/tmp/gpufeed-vs-fio-samples
SHM=/dev/shm/gpufeed-vs-fio-samples
ROUNDS=3
FORMAT=indexed_binary
FILES=16384
SIZE=4096
EPOCHS=4
STORAGES="tmpfs disk"
LOADERS="pytorch async8"
ENGINES="default posix uring aio null"
WHY=0
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift ;;
	--dir) DIR=$2; shift ;;
	--shm) SHM=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--format) FORMAT=$2; shift ;;
	--files) FILES=$2; shift ;;
	--size) SIZE=$2; shift ;;
	--epochs) EPOCHS=$2; shift ;;
	--storages) STORAGES=$2; shift ;;
	--loaders) LOADERS=$2; shift ;;
	--engines) ENGINES=$2; shift ;;
	--why) WHY=1 ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '2,50p' "$0"; exit 0 ;;
	*) echo "vs-fio-samples: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
for tool in fio jq mpirun python3; do
	command -v "$tool" >/dev/null || { echo "vs-fio-samples: $tool is needed" >&2; exit 2; }
done
[ "$WHY" = 0 ] || command -v perf >/dev/null ||
	{ echo "vs-fio-samples: --why needs perf (scripts/install-deps.sh --test)" >&2; exit 2; }
[ -x "$GPUFEED" ] || { echo "vs-fio-samples: no gpufeed at $GPUFEED (--gpufeed BIN)" >&2; exit 2; }
for l in $LOADERS; do
	case $l in pytorch|async[1-9]*) ;; *) echo "vs-fio-samples: loader $l: pytorch or asyncN" >&2; exit 2 ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/vs-fio-samples.XXXXXX)
DIR=$DIR/$FORMAT SHM=$SHM/$FORMAT
cleanup() {
	rm -rf "$WORK"
	[ "$KEEP" = 1 ] || rm -rf "$DIR" "$SHM"
}
trap cleanup EXIT

cat >"$WORK/w.yaml" <<YAML
model: {name: vsfiosamples}
framework: pytorch
workflow: {generate_data: false, train: true, checkpoint: false}
dataset: {format: $FORMAT, num_files_train: $FILES, num_samples_per_file: 1, record_length_bytes: $SIZE, record_length_bytes_stdev: 0}
reader: {data_loader: pytorch, batch_size: 64, read_threads: 1, prefetch_size: 2, file_shuffle: seed, sample_shuffle: seed, read_type: on_demand}
train: {epochs: $EPOCHS, computation_time: 0}
YAML

datadir() { case $1 in tmpfs) echo "$SHM" ;; *) echo "$DIR" ;; esac; }
direct() { case $1 in tmpfs) echo false ;; *) echo true ;; esac; }
depth() { case $1 in pytorch) echo 1 ;; *) echo "${1#async}" ;; esac; }

prepare() {
	local d
	d=$(datadir "$1")
	[ -f "$d/.gpufeed-manifest.json" ] && return
	echo "preparing $FILES $FORMAT files of $SIZE bytes in $d" >&2
	mpirun -np 1 "$GPUFEED" datagen "$WORK/w.yaml" --target "$d" --results "$WORK/gen" --quiet >/dev/null
}

# The gpufeed command of a cell: gf_cmd STORAGE LOADER ENGINE [EPOCHS]
gf_cmd() {
	local s=$1 l=$2 e=$3 ep=${4:-$EPOCHS}
	cmd=(mpirun --bind-to none -np 1 "$GPUFEED" train "$WORK/w.yaml" --target "$(datadir "$s")"
	     --results "$WORK/res" --quiet --set target.direct="$(direct "$s")" --set train.epochs="$ep")
	[ "$e" = default ] || cmd+=(--engine "$e")
	[ "$l" = pytorch ] || cmd+=(--set target.queue_depth="$(depth "$l")")
}

# run_gpufeed STORAGE LOADER ENGINE -> "cpu_us_per_sample samples_per_s engine requests_per_sample"
run_gpufeed() {
	local s
	rm -rf "$WORK/res"
	gf_cmd "$@"
	"${cmd[@]}" >/dev/null
	s=$(echo "$WORK"/res/*/summary.json)
	jq -r '"\(.train.cpu_s / .train.samples * 1e6) \(.train.samples_per_s) \(.target.engine) \(.train.read_requests / .train.samples)"' "$s"
}

# The fio command of a cell: fio_cmd STORAGE LOADER ENGINE LOOPS (ENGINE: gpufeed's name)
fio_cmd() {
	local s=$1 l=$2 e=$3 loops=$4 d batch
	d=$(depth "$l")
	batch=$d
	# gpufeed sends each O_DIRECT request as it is queued (the device is the limit), a
	# batch of buffered ones at once (io/engine.h submit_each).
	[ "$(direct "$s")" = true ] && batch=1
	cmd=(fio --name=orc --opendir="$(datadir "$s")/train" --rw=read --bs="$SIZE" --openfiles="$d"
	     --iodepth="$d" --iodepth_batch_submit="$batch" --iodepth_batch_complete_max="$d"
	     --file_service_type=sequential --invalidate=0 --fadvise_hint=0
	     --direct=$([ "$(direct "$s")" = true ] && echo 1 || echo 0) --loops="$loops"
	     --output-format=json --output="$WORK/fio.json")
	case $e in
	posix) cmd+=(--ioengine=psync) ;;
	uring) cmd+=(--ioengine=io_uring --fixedbufs) ;;
	aio) cmd+=(--ioengine=libaio) ;;
	esac
}

# The CPU seconds of a command's whole process tree (every thread); its output is dropped,
# and shown when it fails.
cpu_of() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w"))
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)
sys.exit(rc)' "$WORK/err" "$@" || { echo "vs-fio-samples: failed: $*" >&2; cat "$WORK/err" >&2; return 1; }
}

# run_fio STORAGE LOADER ENGINE -> "cpu_us_per_sample samples_per_s"
run_fio() {
	local c1=0 cn=0 j1=0 workers=false n=$((EPOCHS * FILES))
	[ "$3" = uring ] && [ "$(direct "$1")" = false ] && workers=true
	if [ "$workers" = true ]; then
		fio_cmd "$1" "$2" "$3" 1
		c1=$(cpu_of "${cmd[@]}")
		j1=$(jq '.jobs[0] | (.usr_cpu + .sys_cpu) / 100 * .read.runtime / 1000' "$WORK/fio.json")
		fio_cmd "$1" "$2" "$3" $((EPOCHS + 1))
	else
		fio_cmd "$1" "$2" "$3" "$EPOCHS"
	fi
	cn=$(cpu_of "${cmd[@]}")
	# The job thread's CPU seconds over its I/O, its requests, its IOPS.
	jq -r '.jobs[0] | "\((.usr_cpu + .sys_cpu) / 100 * .read.runtime / 1000) \(.read.total_ios) \(.read.iops)"' "$WORK/fio.json" |
		awk -v w=$workers -v c1="$c1" -v cn="$cn" -v j1="$j1" -v n=$n '{
			job = $1 / $2 * 1e6
			wk = 0
			if (w == "true") { wk = ((cn - c1) - ($1 - j1)) / n * 1e6; if (wk < 0) wk = 0 }
			printf "%.4f %.1f\n", job + wk, $3 }'
}

# perf_counts CMD... -> "syscalls context_switches punts" of the command
perf_counts() {
	perf stat -x, -o "$WORK/perf" -e raw_syscalls:sys_enter,context-switches,io_uring:io_uring_queue_async_work \
		-- "$@" >/dev/null 2>&1
	awk -F, '/sys_enter/ {a=$1} /context-switches/ {b=$1} /queue_async_work/ {c=$1} END {print a+0, b+0, c+0}' "$WORK/perf"
}

# per_sample "A" "B": B's counts minus A's, per sample of EPOCHS passes
per_sample() {
	echo "$1 $2" | awk -v n=$((EPOCHS * FILES)) '{printf "%.2f | %.3f | %.3f", ($4-$1)/n, ($5-$2)/n, ($6-$3)/n}'
}

# why_row STORAGE LOADER ENGINE FIO_ENGINE ("-": none) -> the per-sample counts of both
why_row() {
	local a b g f="- | - | -"
	gf_cmd "$1" "$2" "$3" 1; rm -rf "$WORK/res"; a=$(perf_counts "${cmd[@]}")
	gf_cmd "$1" "$2" "$3" $((EPOCHS + 1)); rm -rf "$WORK/res"; b=$(perf_counts "${cmd[@]}")
	g=$(per_sample "$a" "$b")
	if [ "$4" != - ]; then
		fio_cmd "$1" "$2" "$4" 1; a=$(perf_counts "${cmd[@]}")
		fio_cmd "$1" "$2" "$4" $((EPOCHS + 1)); b=$(perf_counts "${cmd[@]}")
		f=$(per_sample "$a" "$b")
	fi
	echo "$g | $f"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# col FILE K: column K of FILE, median
col() { awk -v k="$2" '{print $k}' "$1" | median; }

echo "# $(uname -r), $(nproc) cores, load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $FILES $FORMAT files of $SIZE bytes, $EPOCHS passes, $ROUNDS rounds"
printf '| storage | loader | engine | requests/sample | gpufeed CPU us/sample | vs posix | fio CPU us/sample | CPU vs fio | gpufeed samples/s | vs posix | fio samples/s | rate vs fio |\n'
printf '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
whys=()
for s in $STORAGES; do
	prepare "$s"
	for l in $LOADERS; do
		rm -f "$WORK"/g.* "$WORK"/f.*
		for _ in $(seq "$ROUNDS"); do
			for e in $ENGINES; do
				run_gpufeed "$s" "$l" "$e" >>"$WORK/g.$e"
				fe=$(tail -1 "$WORK/g.$e" | awk '{print $3}')
				rq=$(tail -1 "$WORK/g.$e" | awk '{print $4}')
				# fio makes one request per file: the same work only when gpufeed does.
				if [ "$e" != null ] && awk -v r="$rq" 'BEGIN {exit !(r == 1)}'; then
					run_fio "$s" "$l" "$fe" >>"$WORK/f.$e"
				fi
			done
		done
		for e in $ENGINES; do
			g=$WORK/g.$e f=$WORK/f.$e
			fe=$(tail -1 "$g" | awk '{print $3}')
			name=$e
			[ "$e" = default ] && name="default ($fe)"
			vc=- vr=- fc=- fr=- cr=- rr=-
			if [ -f "$WORK/g.posix" ]; then
				vc=$(paste "$g" "$WORK/g.posix" | awk '{print $1 / $5}' | median)
				vr=$(paste "$g" "$WORK/g.posix" | awk '{print $2 / $6}' | median)
				vc=$(printf '%.2f' "$vc"); vr=$(printf '%.2f' "$vr")
			fi
			if [ -s "$f" ]; then
				fc=$(printf '%.2f' "$(col "$f" 1)"); fr=$(printf '%.0f' "$(col "$f" 2)")
				cr=$(printf '%.2f' "$(paste "$g" "$f" | awk '{print $1 / $5}' | median)")
				rr=$(printf '%.2f' "$(paste "$g" "$f" | awk '{print $2 / $6}' | median)")
			fi
			printf '| %s | %s | %s | %.1f | %.2f | %s | %s | %s | %.0f | %s | %s | %s |\n' "$s" "$l" "$name" \
				"$(col "$g" 4)" "$(col "$g" 1)" "$vc" "$fc" "$cr" "$(col "$g" 2)" "$vr" "$fr" "$rr"
			if [ -n "${VSFIO_RAW:-}" ]; then
				sed "s/^/#   gpufeed $e /" "$g"; [ -f "$f" ] && sed "s/^/#   fio     $e /" "$f"
			fi
			if [ "$WHY" = 1 ]; then
				fe2=$fe
				[ -s "$f" ] || fe2=-
				whys+=("| $s | $l | $name | $(why_row "$s" "$l" "$e" "$fe2") |")
			fi
		done
	done
done
if [ "$WHY" = 1 ]; then
	echo
	echo "Per sample, each side's $((EPOCHS + 1)) passes minus its 1 pass (perf stat):"
	printf '| storage | loader | engine | gpufeed syscalls | gpufeed context switches | gpufeed io-wq hand-offs | fio syscalls | fio context switches | fio io-wq hand-offs |\n'
	printf '|---|---|---|---:|---:|---:|---:|---:|---:|\n'
	printf '%s\n' "${whys[@]}"
fi
