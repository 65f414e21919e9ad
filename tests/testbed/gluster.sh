#!/usr/bin/env bash
# Description: a GlusterFS volume spread over 2 server hosts of a testbed (4 with
# GPUFEED_LONG_TESTS=1), one brick and one glusterd per host, read and written by 4
# client hosts x 2 ranks, through each host's own FUSE mount and through gfapi. Training
# first; then checkpoint bursts whose bandwidth the shaped links bound: servers at 100
# Mbit/s behind clients at 1 Gbit/s (the servers' links are the limit), then the links
# reshaped live to clients at 50 Mbit/s and servers at 1 Gbit/s (the clients' are).
# Expected: every run complete with the 4 hosts as its nodes; bytes read = bytes on the
# bricks, the dataset on every brick; each burst's bandwidth within 20% of what the links
# allow (tests/testbed/bwpredict.py: payload rate of each link, bytes per client host and
# per server host as placed on the bricks, the busiest link decides); a table of them.
# Buggy: ranks that all read through one host's mount or link, shaping that does not hold,
# bursts faster than the links (a cache answering) or far slower (something else limits).
. "$(dirname "$0")/lib.sh"
command -v glusterd >/dev/null || { echo "SKIP: glusterd not installed (scripts/install-deps.sh --test)"; exit 77; }
names=$("$GPUFEED" run --help 2>&1 | sed -n 's/.*I\/O engine: \([a-z0-9|]*\).*/\1/p')
case "|$names|" in
*"|gfapi|"*) gfapi=true ;;
*) gfapi=false; bad "this build has no gfapi engine (install libglusterfs-dev)" ;;
esac
servers=(2)
[ "${GPUFEED_LONG_TESTS:-0}" = 1 ] && servers=(2 4)
HOSTS='["gft-c1","gft-c2","gft-c3","gft-c4"]'
TABLE=$TMP/table
printf '%-26s %-7s %-7s %9s %9s %9s %6s  %-4s %s\n' "run" "burst" "bound" "naive" "predict" "measured" "ratio" "" "bytes per server" >"$TABLE"
printf '%-26s %-7s %-7s %9s %9s %9s %6s\n' "" "" "" "MB/s" "MB/s" "MB/s" "" >>"$TABLE"

# Bytes of the files under REL on each server's bricks: "gft-s1=N,gft-s2=M".
placement() {
	local rel=$1 pat=$2
	while read -r host brick; do
		echo "$host $(find "$brick/$rel" -type f -name "$pat" -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')"
	done <"$GF_TESTBED_GLUSTER_BRICKS" | awk '{ b[$1] += $2 } END { for (h in b) printf "%s=%d\n", h, b[h] }' | sort | paste -sd,
}

# burst LABEL TARGET REL: one checkpoint written and restored by 8 ranks, kept on the
# bricks until the placement is counted, then removed; a table row for each direction.
LLAMA=("$SRCDIR/workloads/llama3_8b.yaml" --set checkpoint.scale=1/1000 --set model.parallelism.data=8
	--set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=1
	--set checkpoint.num_checkpoints_read=1 --set checkpoint.keep=true --quiet)
burst() {
	local label=$1 target=$2 rel=$3 res=$TMP/r-$1 s spread k
	if ! tbrun 2 run "${LLAMA[@]}" --target "$target" --results "$res" >"$TMP/o" 2>&1; then
		bad "$label: checkpoint run failed"
		cat "$TMP/o"
		return
	fi
	s=$(only_result "$res")/summary.json
	expect "$label: 1 write, 1 verified restore, 4 hosts" "$s" ".status == \"complete\" and .checkpoint.write_count == 1 and .checkpoint.restore_count == 1 and .checkpoint.verified == true and .environment.hosts == $HOSTS"
	spread=$(placement "$rel" '*_states.pt')
	for k in write restore; do
		if python3 "$SRCDIR/tests/testbed/bwpredict.py" "$label" "$GF_TESTBED_DIR/rates" "$s" "$k" "$spread" >>"$TABLE"; then
			ok "$label: $k burst within 20% of what the links allow ($(tail -1 "$TABLE" | cut -c28- | awk '{ print $5 " MB/s for " $4 }'))"
		else
			bad "$label: $k burst: $(tail -1 "$TABLE")"
		fi
	done
	rm -rf "${GF_TESTBED_DIR:?}/node/gft-c1/gluster/$rel"
}

for ns in "${servers[@]}"; do
	if [ "$TB_UP" = 1 ]; then
		"$SRCDIR/scripts/testbed-down.sh" >/dev/null 2>&1 || bad "testbed-down.sh between runs"
	fi
	tb_up --clients 4 --servers "$ns" --client-rate 1gbit --server-rate 100mbit --gluster
	MNT=$GF_TESTBED_GLUSTER_MOUNT URI=$GF_TESTBED_GLUSTER_URI
	ok "$ns server hosts, $(wc -l <"$GF_TESTBED_GLUSTER_BRICKS") bricks, mounted on 4 client hosts"

	# --- training: a dataset written through the hosts' FUSE mounts, read through them and gfapi ---
	W=("$SRCDIR/tests/integration/small.yaml" --set dataset.num_files_train=48 --set dataset.record_length_bytes=256KiB
		--set dataset.record_length_bytes_stdev=0 --set train.epochs=1 --quiet)
	tbrun 2 datagen "${W[@]}" --target "$MNT/data" --results "$TMP/r-gen$ns" >"$TMP/o" 2>&1 || { bad "datagen over FUSE"; cat "$TMP/o"; }
	disk=$(placement data/train '*' | tr ',' '\n' | awk -F= '{ s += $2 } END { print s + 0 }')
	used=$(placement data/train '*' | tr ',' '\n' | awk -F= '$2 > 0' | wc -l)
	[ "$used" = "$ns" ] && ok "the dataset is spread over all $ns server hosts" || bad "dataset files on $used of $ns server hosts"
	targets=("$MNT/data fuse.glusterfs")
	$gfapi && targets+=("$URI/data glusterfs")
	for t in "${targets[@]}"; do
		read -r target fs <<<"$t"
		res=$TMP/r-train-$ns-$fs
		if tbrun 2 train "${W[@]}" --target "$target" --results "$res" >"$TMP/o" 2>&1; then
			s=$(only_result "$res")/summary.json
			expect "$fs: 8 ranks read on 4 hosts, fs_type $fs" "$s" ".status == \"complete\" and .environment.fs_type == \"$fs\" and .environment.hosts == $HOSTS and (.nodes | length) == 4 and ([.nodes[].ranks] == [2,2,2,2])"
			# 48 files of one size, each read as np.load does (end record, directory and header
			# before the member: a little more than the file), the same reads for every file.
			expect "$fs: every file read whole, the same bytes for each (a file's $((disk / 48)) + np.load's headers)" "$s" \
				".train.read_bytes % 48 == 0 and .train.read_bytes >= $disk and .train.read_bytes < $disk + 48 * 16384"
			expect "$fs: every host read a quarter" "$s" '(.train.read_bytes / 4) as $q | [.nodes[].read_bytes == $q] | all'

		else
			bad "train over $fs from 4 hosts"
			cat "$TMP/o"
		fi
	done

	# --- checkpoint bursts bounded by the servers' links, then by the clients' ---
	burst "fuse ${ns}srv@100M cli@1G" "$MNT/ck-fuse" ck-fuse
	$gfapi && burst "gfapi ${ns}srv@100M cli@1G" "$URI/ck-gfapi" ck-gfapi
	"$SRCDIR/scripts/testbed-rate.sh" clients=50mbit servers=1gbit 2>/dev/null || bad "testbed-rate.sh"
	burst "fuse ${ns}srv@1G cli@50M" "$MNT/ck-fuse2" ck-fuse2
done
echo "burst bandwidth, predicted from the shaped links against measured:"
cat "$TABLE"
finish
