#!/usr/bin/env bash
# Description: gpufeed across 4 client hosts x 2 ranks of a testbed (network namespaces,
# Open MPI launched through scripts/testbed-agent.sh), where every node figure used to be
# the same node. One server host serves a GlusterFS volume through gfapi; the client links
# are 100 Mbit/s except gft-c4's, shaped to a quarter (25 Mbit/s).
# Expected: summary.json sees 4 nodes of 2 ranks each with the hosts' names, and the nodes
# array adds up rank by rank (ranks.csv); the quarter-rate host is the one with the lowest
# AU and the most stall, and the report's uneven-ranks hint names one of its ranks;
# checkpoint restores (on a filesystem every host shares) never read a shard that a rank
# of the same host wrote, according to the kernel's own record (fanotify), and every shard
# is read exactly once.
# nodes[].au_vs_others names gft-c4 slow, and report.txt (and the diagnosis, when AU was
# missed) name it. The restore check runs with ranks in blocks (4 x 2), round-robin (2
# hosts, --map-by node) and uneven per host (2+2+1), each asserted from summary.json
# (checkpoint.restore_from[] against environment.rank_hosts[]) and from fanotify.
# Buggy: every rank on one node, a node array that miscounts ranks, a slow host that does
# not stand out or is not named, a restore that reads its own host's shard (the page cache
# would serve it) or reads a shard twice (the old shift by ranks per node did both).
. "$(dirname "$0")/lib.sh"
tb_up --clients 4 --servers 1 --client-rate 100mbit --rate c4=25mbit --server-rate 2gbit --gluster
URI=$GF_TESTBED_GLUSTER_URI
HOSTS='["gft-c1","gft-c2","gft-c3","gft-c4"]'

# --- training over gfapi: per-node figures and the slow host ---
# 128 samples of 256 KiB, one per step, 75 ms of compute: a rank needs 3.5 MB/s, a host 7,
# which a 100 Mbit/s link (11.9 MB/s of payload) carries and a 25 Mbit/s one (3 MB/s) not;
# 16 steps per rank and epoch, so that AU (which leaves out each block's first step) has
# enough to count.
W=("$SRCDIR/tests/integration/small.yaml" --set dataset.num_files_train=128 --set dataset.record_length_bytes=256KiB
	--set dataset.record_length_bytes_stdev=0 --set reader.batch_size=1 --set train.computation_time=0.075
	--set train.epochs=2 --quiet)
tbrun 2 datagen "${W[@]}" --target "$URI/data" --results "$TMP/r-gen" >"$TMP/o" 2>&1 || { bad "datagen through gfapi"; cat "$TMP/o"; }
if tbrun 2 train "${W[@]}" --target "$URI/data" --results "$TMP/r-train" >"$TMP/o" 2>&1; then
	d=$(only_result "$TMP/r-train")
	s=$d/summary.json
	expect "8 ranks on 4 nodes, 2 per node, named by host" "$s" ".status == \"complete\" and .environment.ranks == 8 and .environment.nodes == 4 and .environment.ranks_per_node == 2 and .environment.hosts == $HOSTS"
	expect "nodes[]: 4 nodes, 2 ranks and 2 accelerators each, in host order" "$s" "(.nodes | length) == 4 and ([.nodes[].host] == $HOSTS) and ([.nodes[] | .ranks == 2 and .accelerators == 2] | all)"
	expect "nodes[]: read bytes add up to the run's" "$s" '([.nodes[].read_bytes] | add) == .train.read_bytes'
	# Rank by rank: ranks.csv (rank,node,...,read_bytes) against each node's sum; ranks
	# fill a host before the next (2k and 2k+1 on node k).
	want=$(awk -F, 'NR > 1 { b[$2] += $10; if (int($1 / 2) != $2) bad = 1 } END { for (n = 0; n < 4; n++) printf "%s%d", n ? "," : "", b[n]; if (bad) print " misplaced"; else print "" }' "$d/ranks.csv")
	got=$(jq -r '[.nodes[].read_bytes | tostring] | join(",")' "$s")
	[ "$want" = "$got" ] && ok "nodes[] read bytes = the sums of their ranks in ranks.csv ($got)" || bad "nodes[] $got, ranks.csv $want"
	# Own AU and the wait for data: under the step barrier every node waits for gft-c4, so
	# their AU is one figure.
	slow=$(jq -r '.nodes | min_by(.au_own_percent) | .host' "$s")
	stall=$(jq -r '.nodes | max_by(.stall_fraction) | .host' "$s")
	[ "$slow" = gft-c4 ] && [ "$stall" = gft-c4 ] && ok "the quarter-rate host gft-c4 has the lowest own AU and waited most for data" ||
		bad "lowest own AU on $slow, most wait for data on $stall, not gft-c4"
	expect "gft-c4's own AU is well below the others' (under 75% of their lowest)" "$s" '([.nodes[] | select(.host != "gft-c4") | .au_own_percent] | min) as $o | (.nodes[] | select(.host == "gft-c4") | .au_own_percent) < 0.75 * $o'
	rank=$(sed -n 's/.*uneven ranks:.* the lowest is rank \([0-9]*\).*/\1/p' "$d/report.txt")
	if [ -n "$rank" ]; then
		host=$(jq -r --argjson n "$(awk -F, -v r="$rank" 'NR > 1 && $1 == r { print $2; exit }' "$d/ranks.csv")" '.nodes[] | select(.node == $n) | .host' "$s")
		[ "$host" = gft-c4 ] && ok "report.txt names rank $rank as the lowest, a rank of gft-c4" || bad "report.txt names rank $rank, on $host"
	else
		bad "report.txt has no uneven-ranks hint"
	fi
	# read_rate_vs_median divides each node's fixed share by the common phase time, so it
	# cannot tell nodes apart; au_vs_others and stall_fraction do.
	echo "   per node: $(jq -r '[.nodes[] | "\(.host) AU \(.au_percent.mean | floor)% own \(.au_own_percent | floor)% vs others \(.au_vs_others * 100 | floor / 100) stall \(.stall_fraction * 100 | floor)% rate_vs_median \(.read_rate_vs_median)"] | join("; ")' "$s")"
	expect "nodes[]: gft-c4 alone has au_vs_others under 0.75 and the largest stall_fraction" "$s" '([.nodes[] | select(.au_vs_others < 0.75) | .host] == ["gft-c4"]) and ((.nodes | max_by(.stall_fraction) | .host) == "gft-c4")'
	grep -q "slow node: node [0-9]* (gft-c4)" "$d/report.txt" && ok "report.txt names gft-c4 as the slow node" ||
		bad "report.txt does not name gft-c4 as the slow node: $(grep -i 'slow node' "$d/report.txt")"
	grep -q "slow node: node [0-9]* (gft-c4)" "$d/report.html" && ok "report.html names gft-c4 as the slow node" ||
		bad "report.html does not name gft-c4 as the slow node"
	cls=$(jq -r '.diagnosis.class // "none"' "$s")
	if [ "$(jq -r '.train.passed' "$s")" = false ]; then
		[ "$cls" = one-slow-client ] && grep -q "gft-c4" <<<"$(jq -c .diagnosis "$s")" &&
			ok "the diagnosis is one-slow-client, naming gft-c4" || bad "diagnosis $cls: $(jq -c .diagnosis "$s")"
	else
		echo "   AU met the threshold overall: the diagnosis ($cls) has no starved rule to apply"
	fi
else
	bad "train through gfapi on 4 hosts"
	cat "$TMP/o"
fi

# --- restore never reads a shard from its own host ---
# A tmpfs of its own that every host sees (a shared filesystem with no network), watched
# by fanotify: the kernel says which host's process wrote and which read each file.
SH=$TMP/shared
mkdir -p "$SH"
mount -t tmpfs -o size=1g gft-shared "$SH" || { bad "cannot mount a tmpfs at $SH"; finish; }
tb_cleanup() { umount -l "$SH" 2>/dev/null; }
LLAMA=("$SRCDIR/workloads/llama3_8b.yaml" --set checkpoint.scale=1/2000 --set checkpoint.time_between_checkpoints=0
	--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1 --quiet)
# restore_check NAME NP MPIRUN-ARGS...: one checkpoint and one restore, watched.
restore_check() {
	local name=$1 np=$2 out=$TMP/fa-$1.json stop=$TMP/fa-$1.stop fapid rc
	shift 2
	rm -f "$stop"
	timeout 300 python3 "$SRCDIR/tests/testbed/fawatch.py" "$SH" "$out" "$stop" $GF_TESTBED_CLIENTS >"$TMP/fa.out" 2>&1 &
	fapid=$!
	for _ in $(seq 1 50); do grep -q ready "$TMP/fa.out" && break; sleep 0.1; done
	grep -q ready "$TMP/fa.out" || { bad "$name: fanotify watcher did not start: $(cat "$TMP/fa.out")"; kill "$fapid"; return; }
	timeout 600 "$SRCDIR/scripts/testbed-mpirun.sh" --ppn 2 "$@" "$GPUFEED" run "${LLAMA[@]}" \
		--set model.parallelism.data="$np" --target "$SH/$name" --results "$TMP/r-$name" >"$TMP/o" 2>&1
	rc=$?
	touch "$stop"
	wait "$fapid"
	[ "$rc" = 0 ] || { bad "$name: checkpoint run failed"; cat "$TMP/o"; return; }
	expect "$name: $np shards written and read back, verified" "$(only_result "$TMP/r-$name")/summary.json" '.checkpoint.write_count == 1 and .checkpoint.restore_count == 1 and .checkpoint.verified == true'
	# Shard files: written by exactly one host, read by exactly one, never the same.
	jq -r '.files | to_entries[] | select(.key | endswith("_states.pt")) | "\(.key | split("/") | last) \(.value.write | join(",")) \(.value.read | join(","))"' "$out" >"$TMP/fa-$name.txt"
	echo "   $name: shard of rank N, written on -> read on: $(awk '/_model_/ { split($1, p, "_"); printf "%s%s %s->%s", (NR > 1 ? "; " : ""), p[4], $2, $3 }' "$TMP/fa-$name.txt")"
	local n same bad_rw
	n=$(wc -l <"$TMP/fa-$name.txt")
	same=$(awk '$2 == $3' "$TMP/fa-$name.txt" | wc -l)
	bad_rw=$(awk '$2 ~ /,/ || $3 ~ /,/ || $2 == "" || $3 == "" || $2 !~ /^gft-c/ || $3 !~ /^gft-c/' "$TMP/fa-$name.txt" | wc -l)
	[ "$n" = $((np * 2)) ] && ok "$name: the kernel saw $n shard files (model and optimizer per rank)" || bad "$name: $n shard files seen, not $((np * 2))"
	[ "$bad_rw" = 0 ] && ok "$name: each shard written by one host and read by exactly one" || bad "$name: $bad_rw shard(s) unread, or read or written by more than one host"
	[ "$same" = 0 ] && ok "$name: no restore read a shard written on its own host" || bad "$name: $same shard(s) read back on the host that wrote them"
	[ "$(jq .overflow "$out")" = false ] || bad "$name: the fanotify queue overflowed, events were lost"
	# gpufeed's own record: whose shard each rank restored, and each rank's host.
	expect "$name: summary.json: restore_from is a permutation and never the reader's own host" \
		"$(only_result "$TMP/r-$name")/summary.json" \
		'.checkpoint.restore_from as $f | .environment.rank_hosts as $h | ($f | length) == '"$np"' and ($h | length) == '"$np"' and ($f | sort) == [range('"$np"')] and ([range('"$np"') | $h[.] != $h[$f[.]]] | all)'
}
restore_check fourbytwo 8
restore_check roundrobin 4 --hosts gft-c1,gft-c2 --map-by node
restore_check uneven 5 --hosts gft-c1,gft-c2,gft-c3 -np 5
finish
