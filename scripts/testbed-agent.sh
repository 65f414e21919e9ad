#!/usr/bin/env bash
# Run a command on a testbed host, the way ssh runs it on a cluster node: in the host's
# network namespace, in a UTS namespace of its own whose host name is the host's (so
# gethostname() and Open MPI see a node of that name), with that host's node-local
# folders at the paths every host uses. Open MPI's rsh launcher calls it in place of ssh
# (plm_rsh_agent; scripts/testbed-mpirun.sh sets that up), and a person can too:
#
#   scripts/testbed-agent.sh gf-c2 hostname            # -> gf-c2
#   scripts/testbed-agent.sh gf-c2 df -h /var/tmp/gpufeed-testbed/gf/local
#
# Like ssh, the words after the host are joined with spaces and run by a shell (bash), so
# Open MPI's quoted orted command line arrives as it would through ssh. Leading options (ssh
# style, e.g. -x) are ignored. Unlike ssh, the environment of the caller is inherited.
#
# Per host (differ between hosts): the network stack (address, links, shaping),
# /etc/hosts (from /etc/netns/HOST/hosts), the host name, and on client hosts
# $GF_TESTBED_DIR/local (that host's scratch tmpfs) and $GF_TESTBED_DIR/gluster (that
# host's own FUSE mount of the testbed volume, when there is one) and, with Slurm,
# $GF_TESTBED_DIR/munge (that host's munged). Everything else (the
# machine's filesystem, /tmp, /dev/shm, processes) is shared by all hosts.
set -euo pipefail

if [ "${1:-}" = --inside ]; then
	# Second stage: already in the host's network, mount and UTS namespaces.
	host=$2 dir=$3 cmd=$4
	hostname "$host"
	# ip netns exec gave this process a mount namespace of its own (a slave of the
	# machine's), so these binds are seen by this command and its children only.
	if [ -d "$dir/node/$host/scratch" ] && mountpoint -q "$dir/node/$host/scratch"; then
		mount --bind "$dir/node/$host/scratch" "$dir/local"
	fi
	if [ -d "$dir/node/$host/gluster" ] && mountpoint -q "$dir/node/$host/gluster"; then
		mount --bind "$dir/node/$host/gluster" "$dir/gluster"
	fi
	# Slurm (testbed-up.sh --slurm): this host's munged, seen at $dir/munge as /run/munge
	# on a node, and the testbed's slurm.conf, as /etc/slurm on a node.
	if [ -d "$dir/node/$host/munge" ] && [ -d "$dir/munge" ]; then
		mount --bind "$dir/node/$host/munge" "$dir/munge"
	fi
	[ -f "$dir/slurm/slurm.conf" ] && export SLURM_CONF=$dir/slurm/slurm.conf
	exec bash -c "$cmd"
fi

while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: testbed-agent.sh HOST COMMAND [ARG...]" >&2; exit 2; }
host=$1
shift
prefix=${host%%-*}
case $host in
"$prefix"-c[0-9]* | "$prefix"-s[0-9]*) ;;
*) echo "testbed-agent: '$host' is not a testbed host name (PREFIX-cN or PREFIX-sN)" >&2; exit 2 ;;
esac
# The state folder of the host's testbed (the prefix is in the host's name).
dir=${GF_TESTBED_DIR:-/var/tmp/gpufeed-testbed/$prefix}
[ -f "$dir/testbed.env" ] && grep -q "^$host " "$dir/rates" 2>/dev/null ||
	{ echo "testbed-agent: no host $host in the testbed at $dir (is it up? scripts/testbed-up.sh)" >&2; exit 255; }
exec ip netns exec "$host" unshare --uts -- "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" --inside "$host" "$dir" "$*"
