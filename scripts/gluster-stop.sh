#!/usr/bin/env bash
# Tear down what scripts/gluster-start.sh started: unmount, stop and delete the volume,
# stop glusterd by its pid file, remove the bricks and glusterd's working directory (a
# brick is never reused: glusterd refuses a folder that was part of another volume).
# Safe to run at any point, also when nothing or only part of it is up. Uses the same
# environment as gluster-start.sh (GF_GLUSTER_DIR, GF_GLUSTER_VOLUME).
set -uo pipefail
DIR=${GF_GLUSTER_DIR:-/var/tmp/gpufeed-gluster}
VOL=${GF_GLUSTER_VOLUME:-gfvol}
MNT=$DIR/mnt
# glusterd's control socket: its own in DIR when gluster-start.sh gave it one
# (GF_GLUSTER_ADDR), the default one otherwise.
CLI=(gluster --mode=script)
[ -S "$DIR/glusterd.socket" ] && CLI+=(--glusterd-sock="$DIR/glusterd.socket")

# Never remove a folder that is not ours: the state folder carries our glusterd.vol.
if [ -e "$DIR" ] && [ ! -f "$DIR/glusterd.vol" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
	echo "gluster-stop: $DIR has no glusterd.vol: not a folder gluster-start.sh made, left alone" >&2
	exit 1
fi

if mountpoint -q "$MNT" 2>/dev/null; then
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null ||
		echo "gluster-stop: cannot unmount $MNT" >&2
fi

pid=
[ -f "$DIR/glusterd.pid" ] && pid=$(cat "$DIR/glusterd.pid" 2>/dev/null)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = glusterd ]; then
	if "${CLI[@]}" volume info "$VOL" >/dev/null 2>&1; then
		"${CLI[@]}" volume stop "$VOL" force >/dev/null 2>&1
		"${CLI[@]}" volume delete "$VOL" >/dev/null 2>&1
	fi
	kill "$pid" 2>/dev/null
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
fi

# Brick and client processes of this volume that outlived glusterd (after a crash): they
# name our state folder on their command line, so nothing else is matched.
for p in $(pgrep -f -- "$DIR/" 2>/dev/null); do
	[ "$p" = "$$" ] && continue
	case "$(cat /proc/"$p"/comm 2>/dev/null)" in
	glusterfs | glusterfsd) kill "$p" 2>/dev/null ;;
	esac
done
sleep 0.2
for p in $(pgrep -f -- "$DIR/" 2>/dev/null); do
	case "$(cat /proc/"$p"/comm 2>/dev/null)" in
	glusterfs | glusterfsd) kill -9 "$p" 2>/dev/null ;;
	esac
done

if [ -d "$DIR" ]; then
	mountpoint -q "$MNT" 2>/dev/null && umount -l "$MNT" 2>/dev/null
	rm -rf "$DIR/bricks" "$DIR/glusterd" "$DIR/glusterd.pid" "$DIR/glusterd.socket"
	rmdir "$MNT" 2>/dev/null
fi
echo "gluster-stop: volume $VOL stopped and deleted, bricks removed (logs kept in $DIR)" >&2
exit 0
