#!/usr/bin/env bash
# vs-pytorch: gpufeed's AU against a real PyTorch training loop's on the same files, the
# reference a buyer trusts (DLIO is itself an emulator). Opt-in, not in the test suite:
# Debian's python3-torch (scripts/install-deps.sh --with-pytorch), root (a loop device and
# a cgroup), about 5 minutes on 2 cores.
#
# gpufeed generates an npz dataset (np.savez's files) on an ext4 loop device whose reads
# the block throttle caps (tests/integration/throttle.lib, cgroup io.max). Then, for 1
# and 2 ranks and three supplies (clearly fed: 2.5 x the demand; borderline: 1.0 x;
# clearly starved: 0.5 x), each with the page cache dropped first and both reading
# buffered, after a case without any storage limit (cached: the files in the page cache,
# no throttle; not in the median), which shows each loader's own cost on this host:
#   - gpufeed train: the PyTorch loader model, DLIO's order, the step barrier;
#   - scripts/bench/vs_pytorch.py per rank: a real torch.utils.data.DataLoader (workers,
#     batch, prefetch_factor and sampler as DLIO sets them), np.load of each file,
#     compute to absolute deadlines, torch.distributed (gloo) barrier after every step,
#     AU as DLIO's statscounter.py.
# It prints per case both AUs and their ratio; the last line ends with "ratio R", the
# median of gpufeed / PyTorch over the cases (the goal: 0.95 <= R <= 1.05).
#
# usage: scripts/bench/vs-pytorch.sh [--gpufeed BIN] [--steps N] [--compute S]
# The workload: 1 MiB samples, batch 4, 2 read threads, prefetch_size 2, 0.1 s compute:
# 40 MiB/s per rank.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=${GPUFEED:-$top/build/gpufeed}
STEPS=30
COMPUTE=0.1
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--compute) COMPUTE=$2; shift 2 ;;
	*) echo "usage: $0 [--gpufeed BIN] [--steps N] [--compute S]" >&2; exit 2 ;;
	esac
done
PY=/usr/bin/python3
$PY -c 'import torch, numpy' 2>/dev/null ||
	{ echo "vs-pytorch: needs Debian's python3-torch: scripts/install-deps.sh --with-pytorch" >&2; exit 77; }
[ -x "$GPUFEED" ] || { echo "vs-pytorch: no gpufeed at $GPUFEED (scripts/build.sh build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=${MPIRUN:-mpirun}

TMP=$(mktemp -d /tmp/gpufeed-vs-pytorch.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$top/tests/integration/throttle.lib"
# A signal ends the script through its EXIT trap: the loop device and cgroup go with it.
trap 'exit 130' INT
trap 'exit 143' TERM

BATCH=4 THREADS=2 PREFETCH=2 SAMPLE=1048576
FILES=$((2 * STEPS * BATCH))
DEMAND=$(awk -v b=$BATCH -v s=$SAMPLE -v c="$COMPUTE" 'BEGIN { printf "%d", b * s / c }')
throttle_setup $((FILES * 11 / 10 + 200))
cat >"$TMP/w.yaml" <<EOF
model: {name: vs-pytorch}
framework: pytorch
workflow: {generate_data: false, train: true, checkpoint: false}
dataset: {format: npz, num_files_train: $FILES, num_samples_per_file: 1,
  record_length_bytes: $SAMPLE, record_length_bytes_stdev: 0}
reader: {data_loader: pytorch, batch_size: $BATCH, read_threads: $THREADS, prefetch_size: $PREFETCH}
train: {epochs: 1, computation_time: $COMPUTE, total_training_steps: $STEPS}
metric: {au: 0.9}
target: {direct: false}
EOF
data=$THR_DIR/data
"$MPIRUN" -np 2 "$GPUFEED" datagen "$TMP/w.yaml" --target "$data" --quiet >"$TMP/gen.out" 2>&1 ||
	{ cat "$TMP/gen.out"; exit 1; }

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

printf "%-10s %5s %10s %10s %10s %8s\n" supply ranks "MB/s" "gpufeed" "PyTorch" ratio
ratios=()
for ranks in 1 2; do
	for level in cached:0 fed:2.5 borderline:1.0 starved:0.5; do
		name=${level%%:*} factor=${level#*:}
		supply=$(awk -v d="$DEMAND" -v r=$ranks -v f="$factor" 'BEGIN { printf "%d", d * r * f }')
		throttle_set rbps="$supply"
		# cached: no storage limit at all (the files in the page cache, no throttle): what
		# is left is each loader's own cost on this host's CPUs.
		if [ "$name" = cached ]; then cat "$data"/train/*.npz >/dev/null; else drop; fi
		res=$TMP/g-$ranks-$name
		throttle_run "$MPIRUN" -np $ranks "$GPUFEED" train "$TMP/w.yaml" --target "$data" --results "$res" --quiet \
			>"$TMP/g.out" 2>&1 || { cat "$TMP/g.out"; exit 1; }
		g=$(jq '.train.au_percent.mean' "$res"/*/summary.json)
		[ "$name" = cached ] || drop
		for ((r = 0; r < ranks; r++)); do
			throttle_run "$PY" "$top/scripts/bench/vs_pytorch.py" --files "$data/train" --rank $r --world $ranks \
				--batch $BATCH --read-threads $THREADS --prefetch-size $PREFETCH --compute "$COMPUTE" \
				--steps "$STEPS" >"$TMP/p$r.json" 2>"$TMP/p$r.err" &
		done
		wait || { cat "$TMP"/p*.err; exit 1; }
		p=$(cat "$TMP"/p*.json | jq -s 'map(.au_percent) | add / length')
		rm -f "$TMP"/p*.json
		ratio=$(awk -v g="$g" -v p="$p" 'BEGIN { printf "%.3f", (p > 0 ? g / p : 0) }')
		[ "$name" = cached ] || ratios+=("$ratio")
		printf "%-10s %5d %10.1f %9.1f%% %9.1f%% %8s\n" "$name" $ranks "$(awk -v s="$supply" 'BEGIN { print s / 1e6 }')" \
			"$g" "$p" "$ratio"
	done
done
R=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median AU gpufeed / PyTorch over ${#ratios[@]} cases: ratio $R"
