#!/usr/bin/env bash
# A GlusterFS volume spread over the server hosts of a testbed, mounted on every client
# host; scripts/testbed-up.sh --gluster runs it, testbed-down.sh undoes it.
#
#   scripts/testbed-gluster.sh [BRICKS_PER_SERVER]      # prints the variables to export
#
# On each server host a glusterd of its own (scripts/gluster-start.sh with GF_GLUSTER_ADDR
# = the host's address and GF_GLUSTER_BRICKS=0), started inside the host's namespace so it
# and its bricks listen and send on the host's shaped link only. The first server probes
# the others into one trusted pool and creates a distributed volume (gfvol) with
# BRICKS_PER_SERVER (1) bricks on each server, named by address so that every client
# resolves them alike. Each client host mounts it over FUSE with a glusterfs client that
# runs in that host's namespace (nsenter --net, so the mount itself is in the machine's
# mount table at $GF_TESTBED_DIR/node/HOST/gluster); scripts/testbed-agent.sh shows each
# host its own mount at $GF_TESTBED_DIR/gluster. gfapi: gluster://PREFIX-s1/gfvol/PATH.
#
# Exit 77 when GlusterFS or FUSE is absent, 1 when the volume does not come up.
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
say() { echo "testbed-gluster: $*" >&2; }
die() { say "$*"; exit 1; }

per=${1:-1}
VOL=gfvol
[ -f "$TB_DIR/testbed.env" ] || die "no testbed at $TB_DIR: run scripts/testbed-up.sh first"
# shellcheck disable=SC1091
. "$TB_DIR/testbed.env"
command -v glusterd >/dev/null || { say "glusterd not found: install glusterfs-server"; exit 77; }
command -v mount.glusterfs >/dev/null || { say "mount.glusterfs not found: install glusterfs-client"; exit 77; }
[ -c /dev/fuse ] || { say "/dev/fuse is missing: no FUSE here"; exit 77; }
[ -n "$GF_TESTBED_SERVERS" ] || die "the testbed has no server hosts"
addr_of() { awk -v h="$1" '$1 == h { print $3 }' "$TB_DIR/rates"; }

t0=$(date +%s.%N)
echo "$VOL" >"$TB_DIR/gluster.volume"
first='' first_addr=''
for s in $GF_TESTBED_SERVERS; do
	a=$(addr_of "$s")
	echo "gluster $s" >>"$TB_DIR/made"
	GF_GLUSTER_DIR=$TB_DIR/node/$s/gluster GF_GLUSTER_ADDR=$a GF_GLUSTER_BRICKS=0 GF_GLUSTER_VOLUME=$VOL \
		ip netns exec "$s" "$TB_HERE/gluster-start.sh" >/dev/null 2>"$TB_DIR/log/gluster-start-$s.log" || {
		rc=$?
		cat "$TB_DIR/log/gluster-start-$s.log" >&2
		[ "$rc" = 77 ] && exit 77
		die "glusterd did not start on $s"
	}
	[ -n "$first" ] || { first=$s first_addr=$a; }
done
CLI=(timeout 60 gluster --mode=script --glusterd-sock="$TB_DIR/node/$first/gluster/glusterd.socket")

# One trusted pool: the first server probes the others (by address, as the bricks are named).
nserv=0
for s in $GF_TESTBED_SERVERS; do
	nserv=$((nserv + 1))
	[ "$s" = "$first" ] && continue
	out=$("${CLI[@]}" peer probe "$(addr_of "$s")" 2>&1) || die "peer probe $s from $first failed: $out"
done
for _ in $(seq 1 100); do
	[ "$("${CLI[@]}" pool list 2>/dev/null | grep -c 'Connected')" = "$nserv" ] && break
	sleep 0.2
done
[ "$("${CLI[@]}" pool list 2>/dev/null | grep -c 'Connected')" = "$nserv" ] ||
	die "the pool did not form in 20 s: $("${CLI[@]}" pool list 2>&1 | tr '\n' ' ')"

# Bricks round-robin over the servers, so consecutive hash ranges sit on different hosts.
bricks=()
: >"$TB_DIR/gluster.bricks"
for k in $(seq 1 "$per"); do
	for s in $GF_TESTBED_SERVERS; do
		d=$TB_DIR/node/$s/gluster/bricks/b$k
		mkdir -p "$d"
		bricks+=("$(addr_of "$s"):$d")
		echo "$s $d" >>"$TB_DIR/gluster.bricks"
	done
done
# force: the bricks are on the root filesystem, which glusterd otherwise refuses.
out=$("${CLI[@]}" volume create "$VOL" transport tcp "${bricks[@]}" force 2>&1) || die "volume create failed: $out"
out=$("${CLI[@]}" volume start "$VOL" 2>&1) || die "volume start failed: $out"

for c in $GF_TESTBED_CLIENTS; do
	m=$TB_DIR/node/$c/gluster
	mkdir -p "$m"
	for _ in $(seq 1 50); do
		nsenter --net="/run/netns/$c" mount -t glusterfs -o log-file="$TB_DIR/log/fuse-$c.log" \
			"$first_addr:/$VOL" "$m" 2>/dev/null && break
		sleep 0.2
	done
	mountpoint -q "$m" || die "$c could not mount $first_addr:/$VOL; see $TB_DIR/log/fuse-$c.log"
	# The mount answers once the client has connected to every brick.
	for _ in $(seq 1 50); do
		touch "$m/.probe-$c" 2>/dev/null && rm -f "$m/.probe-$c" && break
		sleep 0.2
	done
	[ -w "$m" ] || die "the mount on $c is not writable"
done
t1=$(date +%s.%N)
say "volume $VOL: $((per * nserv)) brick(s) on $nserv server host(s), mounted on every client host, in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
cat <<EOF
export GF_TESTBED_GLUSTER_VOLUME=$VOL
export GF_TESTBED_GLUSTER_MOUNT=$TB_DIR/gluster
export GF_TESTBED_GLUSTER_URI=gluster://$first/$VOL
export GF_TESTBED_GLUSTER_BRICKS=$TB_DIR/gluster.bricks
EOF
