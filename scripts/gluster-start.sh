#!/usr/bin/env bash
# Start a one-machine GlusterFS volume for gpufeed's tests (and for users who want to try
# gpufeed on a real distributed filesystem): glusterd run directly (no systemd) with its
# own working directory, pid file and log file, listening on 127.0.0.1 only; a distributed
# volume of 4 bricks in local folders; a FUSE mount of it.
#
#   scripts/gluster-start.sh            # prints the variables to export
#   eval "$(scripts/gluster-start.sh)"  # ... and sets them
#   scripts/gluster-stop.sh             # unmount, stop and delete the volume, stop glusterd
#
# Environment (all optional):
#   GF_GLUSTER_DIR     state folder: bricks, glusterd's working dir, logs (/var/tmp/gpufeed-gluster)
#   GF_GLUSTER_HOST    host name added to /etc/hosts for 127.0.0.1 (gpufeed-gluster): glusterd
#                      refuses 127.0.0.1 and localhost as brick hosts, not a name for them
#   GF_GLUSTER_VOLUME  volume name (gfvol)
#   GF_GLUSTER_BRICKS  number of bricks (4); 0 = glusterd only: no volume, no mount (the
#                      testbed forms a pool of several glusterds and makes the volume itself)
#   GF_GLUSTER_ADDR    address glusterd and the bricks listen on (127.0.0.1). Any other
#                      address (a testbed host's, scripts/testbed-gluster.sh) also gives
#                      glusterd a control socket of its own, DIR/glusterd.socket, so that
#                      several glusterds, one per network namespace, run on one machine; the
#                      host name then defaults to the address and /etc/hosts is left alone
#
# Needs root (glusterd, mount, /etc/hosts), the Debian packages glusterfs-server and
# glusterfs-client, and /dev/fuse. Safe to re-run after a crash: whatever an earlier run
# left (mount, volume, glusterd, bricks) is torn down first. Exit 77 when a prerequisite
# is truly absent (no /dev/fuse, not root, no glusterd), 1 when start-up fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DIR=${GF_GLUSTER_DIR:-/var/tmp/gpufeed-gluster}
HOST=${GF_GLUSTER_HOST:-gpufeed-gluster}
VOL=${GF_GLUSTER_VOLUME:-gfvol}
NBRICKS=${GF_GLUSTER_BRICKS:-4}
ADDR=${GF_GLUSTER_ADDR:-127.0.0.1}
MNT=$DIR/mnt
case $NBRICKS in
'' | *[!0-9]*) echo "gluster-start: GF_GLUSTER_BRICKS must be a number, not '$NBRICKS'" >&2; exit 2 ;;
esac
# The gluster command line reaches glusterd over its control socket: the default one
# (/var/run/glusterd.socket) for glusterd on 127.0.0.1, a private one otherwise.
CLI=(gluster --mode=script)
SOCKOPT=
if [ "$ADDR" != 127.0.0.1 ]; then
	HOST=${GF_GLUSTER_HOST:-$ADDR}
	CLI+=(--glusterd-sock="$DIR/glusterd.socket")
	SOCKOPT="option glusterd-sockfile $DIR/glusterd.socket"
fi

say() { echo "gluster-start: $*" >&2; }
skip() { say "skipped: $*"; exit 77; }
die() {
	say "$*"
	[ -f "$DIR/glusterd.log" ] && { say "last lines of $DIR/glusterd.log:"; tail -15 "$DIR/glusterd.log" >&2; }
	exit 1
}

[ "$(id -u)" -eq 0 ] || skip "must run as root (glusterd, mount and /etc/hosts need it)"
command -v glusterd >/dev/null || skip "glusterd not found: install glusterfs-server (scripts/install-deps.sh --test)"
command -v mount.glusterfs >/dev/null || skip "mount.glusterfs not found: install glusterfs-client"
[ -c /dev/fuse ] || skip "/dev/fuse is missing: the kernel or container has no FUSE, so the volume cannot be mounted"

# Anything an earlier run left behind goes first (it may have crashed half way).
GF_GLUSTER_DIR=$DIR GF_GLUSTER_VOLUME=$VOL "$here/gluster-stop.sh" >/dev/null 2>&1 || true
# Another glusterd in this network namespace holds port 24007 (one in another namespace,
# such as a testbed host's, does not).
others=
for p in $(pgrep -x glusterd); do
	[ "$(readlink /proc/"$p"/ns/net 2>/dev/null)" = "$(readlink /proc/self/ns/net)" ] && others="$others $p"
done
if [ -n "$others" ]; then
	die "another glusterd is running (pid$others), not started by this script: stop it first, port 24007 is taken"
fi

if [ "$ADDR" = 127.0.0.1 ]; then
	# A name for 127.0.0.1 (idempotent: the line is added once, never duplicated).
	if ! grep -Eq "^[[:space:]]*127\.0\.0\.1([[:space:]].*)?[[:space:]]$HOST([[:space:]]|\$)" /etc/hosts; then
		printf '127.0.0.1 %s\n' "$HOST" >>/etc/hosts || die "cannot add '127.0.0.1 $HOST' to /etc/hosts"
	fi
	addr=$(getent ahostsv4 "$HOST" | awk 'NR == 1 { print $1 }')
	[ "$addr" = 127.0.0.1 ] || die "$HOST resolves to '${addr:-nothing}', not 127.0.0.1: check /etc/hosts"
fi

mkdir -p "$DIR/glusterd" "$DIR/log" "$MNT"
# glusterd's own volfile: a private working directory (never /var/lib/glusterd, so a
# system glusterd's peers and volumes are not touched) and one address (loopback unless
# GF_GLUSTER_ADDR names another).
cat >"$DIR/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory $DIR/glusterd
    option transport-type socket
    option transport.socket.bind-address $ADDR
    option transport.socket.listen-port 24007
    option transport.socket.read-fail-log off
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
    option transport.socket.keepalive-time 10
    option transport.socket.keepalive-interval 2
    $SOCKOPT
end-volume
EOF
# The keepalive options are not optional for a pool: without them glusterd 10's
# glusterd_transport_inet_options_build() returns the failed lookup of the last one and
# every peer probe fails ("connect returned -2").
t0=$(date +%s.%N)
glusterd --volfile="$DIR/glusterd.vol" --pid-file="$DIR/glusterd.pid" --log-file="$DIR/glusterd.log" ||
	die "glusterd did not start"
for _ in $(seq 1 100); do
	"${CLI[@]}" pool list >/dev/null 2>&1 && break
	sleep 0.1
done
"${CLI[@]}" pool list >/dev/null 2>&1 || die "glusterd does not answer 'gluster pool list' after 10 s"
if [ "$NBRICKS" = 0 ]; then
	say "glusterd up on $ADDR (GF_GLUSTER_BRICKS=0: no volume)"
	printf 'export GF_GLUSTER_DIR=%s\nexport GF_GLUSTER_HOST=%s\n' "$DIR" "$HOST"
	exit 0
fi

bricks=()
for i in $(seq 1 "$NBRICKS"); do
	mkdir -p "$DIR/bricks/b$i"
	bricks+=("$HOST:$DIR/bricks/b$i")
done
# force: the bricks are on the root filesystem, which glusterd otherwise refuses. The
# bricks inherit glusterd's bind address, so they listen on it too.
out=$("${CLI[@]}" volume create "$VOL" transport tcp "${bricks[@]}" force 2>&1) ||
	die "volume create $VOL failed: $out"
out=$("${CLI[@]}" volume start "$VOL" 2>&1) || die "volume start $VOL failed: $out"

# The FUSE mount: the volume is served a moment after start, so retry briefly.
for _ in $(seq 1 50); do
	mount -t glusterfs -o log-file="$DIR/log/mnt.log" "$HOST:/$VOL" "$MNT" 2>/dev/null && break
	sleep 0.2
done
mountpoint -q "$MNT" || die "mount -t glusterfs $HOST:/$VOL $MNT failed; see $DIR/log/mnt.log"
# The mount answers once the client has connected to every brick.
for _ in $(seq 1 50); do
	stat -f "$MNT" >/dev/null 2>&1 && touch "$MNT/.gf-probe" 2>/dev/null && rm -f "$MNT/.gf-probe" && break
	sleep 0.2
done
[ -w "$MNT" ] || die "the mount $MNT is not writable"
t1=$(date +%s.%N)
say "volume $VOL ($NBRICKS bricks, distributed) up and mounted in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"

cat <<EOF
export GF_GLUSTER_DIR=$DIR
export GF_GLUSTER_HOST=$HOST
export GF_GLUSTER_VOLUME=$VOL
export GF_GLUSTER_MOUNT=$MNT
export GF_GLUSTER_URI=gluster://$HOST/$VOL
EOF
