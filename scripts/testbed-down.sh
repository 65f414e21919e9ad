#!/usr/bin/env bash
# Remove a testbed that scripts/testbed-up.sh built: the FUSE mounts and the scratch
# tmpfs of the client hosts, glusterd and its bricks and radosgw on the server hosts,
# Slurm's daemons and munged, any process still inside a testbed namespace, the
# namespaces (their veths and qdiscs go with them), /etc/netns/HOST, and the state
# folder. Safe to run at any point: after a crash half way through testbed-up.sh, twice,
# or when nothing is up. It finds what to remove from the state folder's record and,
# should that be gone, from the names: only namespaces named PREFIX-br, PREFIX-cN and
# PREFIX-sN, and only mounts under the state folder.
#
#   scripts/testbed-down.sh          (GF_TESTBED_PREFIX, GF_TESTBED_DIR as for testbed-up.sh)
set -uo pipefail
. "$(dirname "$0")/testbed-lib.sh"
say() { echo "testbed-down: $*" >&2; }

# A folder that is not a testbed's is never touched.
if [ -d "$TB_DIR" ] && [ -n "$(ls -A "$TB_DIR" 2>/dev/null)" ] && [ ! -f "$TB_DIR/made" ]; then
	say "$TB_DIR has no 'made' record: not a folder testbed-up.sh made, left alone"
	exit 1
fi

# Mounts under the state folder, deepest first.
our_mounts() {
	awk -v d="$TB_DIR/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r
}
# 1. FUSE mounts first (they talk to the bricks).
for m in $(our_mounts); do
	umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "cannot unmount $m"
done

# 2. The servers: glusterd and bricks (by their pid files), radosgw and Ceph, Slurm.
for d in "$TB_DIR"/node/*/gluster; do
	[ -f "$d/glusterd.vol" ] || continue
	GF_GLUSTER_DIR=$d GF_GLUSTER_VOLUME=$(cat "$TB_DIR/gluster.volume" 2>/dev/null || echo gfvol) \
		"$TB_HERE/gluster-stop.sh" >/dev/null 2>&1 || say "gluster-stop.sh failed for $d"
done
for d in "$TB_DIR"/node/*/rgw; do
	[ -d "$d/run" ] && { "$TB_HERE/radosgw-stop.sh" "$d" >/dev/null 2>&1 || say "radosgw-stop.sh failed for $d"; }
done

nss=$( (tb_our_netns; [ -f "$TB_DIR/made" ] && awk '$1 == "netns" { print $2 }' "$TB_DIR/made") | sort -u)
# Slurm (testbed-slurm.sh): the daemons by their pid files, each pid only while it runs in
# one of these namespaces; slurmd and slurmctld first, munged after them (they
# authenticate through it to the end). The jobs' tasks go with step 3.
stop_pidfiles() {
	local f p ns pids=''
	for f in "$@"; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		[[ $p =~ ^[0-9]+$ ]] || continue
		ns=$(ip netns identify "$p" 2>/dev/null)
		[ -n "$ns" ] && grep -qxF "$ns" <<<"$nss" && pids+=" $p"
	done
	[ -n "$pids" ] || return 0
	# shellcheck disable=SC2086 # one word per pid
	kill $pids 2>/dev/null
	for _ in $(seq 1 50); do
		# shellcheck disable=SC2086
		kill -0 $pids 2>/dev/null || return 0
		sleep 0.1
	done
}
stop_pidfiles "$TB_DIR"/node/*/slurmd.pid "$TB_DIR/slurm/slurmctld.pid"
stop_pidfiles "$TB_DIR"/node/*/munge/munged.pid

# 3. Anything else still running inside a testbed namespace (a rank of an interrupted run,
# a FUSE client, a Slurm job's tasks), by pid: TERM, a bounded wait, then KILL.
pids() {
	local ns
	for ns in $nss; do ip netns pids "$ns" 2>/dev/null; done | sort -u
}
left=$(pids)
if [ -n "$left" ]; then
	say "stopping $(echo "$left" | wc -w) process(es) left in the testbed namespaces"
	# shellcheck disable=SC2086 # one word per pid
	kill $left 2>/dev/null
	for _ in $(seq 1 30); do
		[ -z "$(pids)" ] && break
		sleep 0.1
	done
	left=$(pids)
	# shellcheck disable=SC2086
	[ -n "$left" ] && kill -9 $left 2>/dev/null
fi

# 4. Scratch tmpfs and anything mounted since.
for m in $(our_mounts); do
	umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "cannot unmount $m"
done

# 5. The namespaces (the veths, addresses and qdiscs in them go too) and their /etc/netns.
for ns in $nss; do
	ip netns del "$ns" 2>/dev/null || say "cannot delete namespace $ns"
	case $ns in
	"$TB_PREFIX"-*) rm -rf "/etc/netns/${ns:?}" ;;
	esac
done
rmdir /etc/netns 2>/dev/null

# 6. The state folder, once nothing is mounted under it any more.
if [ -n "$(our_mounts)" ]; then
	say "still mounted, state folder kept: $(our_mounts | tr '\n' ' ')"
	exit 1
fi
rm -rf "$TB_DIR"
rmdir "$(dirname "$TB_DIR")" 2>/dev/null
[ -n "$(tb_our_netns)" ] && { say "namespaces remain: $(tb_our_netns | tr '\n' ' ')"; exit 1; }
say "testbed $TB_PREFIX removed"
exit 0
