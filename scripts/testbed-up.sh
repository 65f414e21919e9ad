#!/usr/bin/env bash
# Build a cluster in a box: client and server hosts as network namespaces on one machine,
# joined by veth pairs to a bridge in a namespace of its own, each link shaped with tc, so
# that gpufeed's multi-node behaviour (restore from another node, per-node figures, a slow
# client, links that bound a burst) can be tried and tested without a cluster.
#
#   scripts/testbed-up.sh [--clients N] [--servers M] [--client-rate R] [--server-rate R]
#                         [--rate HOST=R ...] [--scratch-size SIZE] [--gluster]
#                         [--bricks-per-server K] [--s3] [--slurm]
#   eval "$(scripts/testbed-up.sh --clients 4 --servers 2 --gluster)"   # sets GF_TESTBED_*
#   scripts/testbed-mpirun.sh --ppn 2 build/gpufeed run workloads/unet3d_h100.yaml ...
#   scripts/testbed-down.sh
#
# Hosts PREFIX-c1..cN (clients, 10.77.0.11..) and PREFIX-s1..sM (servers, 10.77.0.101..)
# on 10.77.0.0/24, which exists only on the testbed's veth links; no namespace has a
# default route (checked at the end and said), so no testbed traffic can leave the
# machine. Rates are tc rates (bit, kbit, mbit, gbit); a link is shaped in both directions
# (tbf). --rate c3=250mbit (or PREFIX-c3=250mbit) overrides one host. Every client host
# gets a node-local scratch tmpfs, seen at $GF_TESTBED_DIR/local by the processes that
# scripts/testbed-agent.sh starts on that host. --gluster: a distributed GlusterFS volume
# with K bricks on each server host (glusterd per server host, through
# scripts/gluster-start.sh), FUSE-mounted on every client host at $GF_TESTBED_DIR/gluster.
# --s3: radosgw on the first server host (scripts/radosgw-start.sh), bucket gf-testbed.
# --slurm: munged on every host with one key, slurmctld on the first server host, slurmd
# on every client host, one partition (scripts/testbed-slurm.sh; scripts/testbed-srun.sh).
#
# Environment: GF_TESTBED_PREFIX (gf), GF_TESTBED_DIR (/var/tmp/gpufeed-testbed/PREFIX).
# Safe to re-run: whatever an earlier testbed of the same prefix left goes first. Exit 77
# when network namespaces cannot be made here (not root, no ip/tc, no netns support), 2 on
# bad arguments, 1 when the build fails (then everything made so far is removed).
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"

say() { echo "testbed-up: $*" >&2; }
usage() { say "$*"; sed -n '7,10p' "$0" >&2; exit 2; }
skip() { say "cannot build a testbed here: $*"; exit 77; }

clients=2 servers=1 crate=1gbit srate=2gbit scratch=1g gluster=0 bricks=1 s3=0 slurm=0
overrides=()
while [ $# -gt 0 ]; do
	case $1 in
	--clients | --servers | --client-rate | --server-rate | --rate | --scratch-size | --bricks-per-server)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--clients) clients=$2 ;;
		--servers) servers=$2 ;;
		--client-rate) crate=$2 ;;
		--server-rate) srate=$2 ;;
		--rate) overrides+=("$2") ;;
		--scratch-size) scratch=$2 ;;
		--bricks-per-server) bricks=$2 ;;
		esac
		shift 2
		;;
	--gluster) gluster=1; shift ;;
	--s3) s3=1; shift ;;
	--slurm) slurm=1; shift ;;
	-h | --help) sed -n '2,31p' "$0"; exit 0 ;;
	*) usage "unknown argument '$1'" ;;
	esac
done
[[ $clients =~ ^[0-9]+$ ]] && [ "$clients" -ge 1 ] && [ "$clients" -le 80 ] || usage "--clients must be 1..80, not '$clients'"
[[ $servers =~ ^[0-9]+$ ]] && [ "$servers" -le 40 ] || usage "--servers must be 0..40, not '$servers'"
[[ $bricks =~ ^[0-9]+$ ]] && [ "$bricks" -ge 1 ] && [ "$bricks" -le 8 ] || usage "--bricks-per-server must be 1..8, not '$bricks'"
[[ $scratch =~ ^[0-9]+[kmg]$ ]] || usage "--scratch-size must be a number with k, m or g, not '$scratch'"
cbits=$(tb_rate_bits "$crate") || usage "--client-rate '$crate' is not a tc rate of at least 8kbit (e.g. 1gbit, 250mbit)"
sbits=$(tb_rate_bits "$srate") || usage "--server-rate '$srate' is not a tc rate of at least 8kbit (e.g. 2gbit)"
if [ "$gluster" = 1 ] || [ "$s3" = 1 ] || [ "$slurm" = 1 ]; then
	[ "$servers" -ge 1 ] || usage "--gluster, --s3 and --slurm need at least one server host (--servers)"
fi

declare -A rate role addr
hosts=()
for i in $(seq 1 "$clients"); do
	h=$TB_PREFIX-c$i
	hosts+=("$h")
	role[$h]=client addr[$h]=10.77.0.$((10 + i)) rate[$h]=$cbits
done
for i in $(seq 1 "$servers"); do
	h=$TB_PREFIX-s$i
	hosts+=("$h")
	role[$h]=server addr[$h]=10.77.0.$((100 + i)) rate[$h]=$sbits
done
for o in "${overrides[@]}"; do
	h=${o%%=*} r=${o#*=}
	[ "$h" != "$o" ] || usage "--rate wants HOST=RATE, not '$o'"
	[ -n "${role[$h]:-}" ] || h=$TB_PREFIX-$h
	[ -n "${role[$h]:-}" ] || usage "--rate $o: no host ${o%%=*} in this testbed (hosts: ${hosts[*]})"
	rate[$h]=$(tb_rate_bits "$r") || usage "--rate $o: '$r' is not a tc rate"
done

# Prerequisites: a missing one means namespaces cannot be made here (77), nothing else.
[ "$(id -u)" -eq 0 ] || skip "must run as root (network namespaces, tc, mounts)"
for b in ip tc unshare nsenter mount; do
	command -v "$b" >/dev/null || skip "$b not found (iproute2, util-linux)"
done
probe=$TB_PREFIX-probe$$
ip netns add "$probe" 2>/dev/null || skip "'ip netns add' fails: no network namespaces in this kernel or container"
ip netns del "$probe"

# Whatever an earlier testbed of this prefix left (it may have crashed half way).
"$TB_HERE/testbed-down.sh" >/dev/null 2>&1 || true
if [ -n "$(tb_our_netns)" ]; then
	say "namespaces of an earlier testbed remain after testbed-down.sh: $(tb_our_netns | tr '\n' ' ')"
	exit 1
fi

t0=$(date +%s.%N)
mkdir -p "$TB_DIR/node" "$TB_DIR/local" "$TB_DIR/gluster" "$TB_DIR/log"
# What was made, appended before it is made, so testbed-down.sh finds it after a crash.
made=$TB_DIR/made
: >"$made"
ok=0
cleanup() {
	[ "$ok" = 1 ] && return
	say "failed: removing what was made"
	"$TB_HERE/testbed-down.sh" >&2 || true
}
trap cleanup EXIT
die() { say "$*"; exit 1; }

# The bridge host: a namespace holding only the bridge and the switch ends of the links.
echo "netns $TB_BR" >>"$made"
ip netns add "$TB_BR"
ip -n "$TB_BR" link set lo up
ip -n "$TB_BR" link add br0 type bridge
ip -n "$TB_BR" link set br0 up

{
	echo "127.0.0.1 localhost"
	for h in "${hosts[@]}"; do echo "${addr[$h]} $h"; done
} >"$TB_DIR/hosts"

for h in "${hosts[@]}"; do
	echo "netns $h" >>"$made"
	ip netns add "$h"
	# /etc/hosts inside the host: ip netns exec binds /etc/netns/HOST/hosts over it.
	echo "etc /etc/netns/$h" >>"$made"
	mkdir -p "/etc/netns/$h"
	cp "$TB_DIR/hosts" "/etc/netns/$h/hosts"
	ip -n "$h" link set lo up
	# IPv6 off: the testbed's only addresses are its IPv4 ones (no link-local routes).
	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1 || true
	ip -n "$TB_BR" link add "$h" type veth peer name eth0 netns "$h"
	ip -n "$TB_BR" link set "$h" master br0 up
	ip -n "$h" addr add "${addr[$h]}/24" dev eth0
	ip -n "$h" link set eth0 up
	tb_shape "$h" "${rate[$h]}" || die "tc tbf on $h's link failed (is sch_tbf in this kernel?)"
	mkdir -p "$TB_DIR/node/$h"
	if [ "${role[$h]}" = client ]; then
		echo "mount $TB_DIR/node/$h/scratch" >>"$made"
		mkdir -p "$TB_DIR/node/$h/scratch" "$TB_DIR/node/$h/gluster"
		mount -t tmpfs -o "size=$scratch,mode=0755" "gf-scratch-$h" "$TB_DIR/node/$h/scratch" ||
			die "cannot mount the scratch tmpfs of $h"
	fi
done

# The rules that keep the traffic on the machine: no default route anywhere, and every
# address either loopback or on 10.77.0.0/24 (which exists only on these veths).
for ns in "$TB_BR" "${hosts[@]}"; do
	if [ -n "$(ip -n "$ns" route show default)" ] || [ -n "$(ip -n "$ns" -6 route show default 2>/dev/null)" ]; then
		die "namespace $ns has a default route: $(ip -n "$ns" route show default)"
	fi
	stray=$(ip -n "$ns" -4 -o addr show | awk '{ print $4 }' | grep -Ev '^(127\.|10\.77\.0\.)' || true)
	[ -z "$stray" ] || die "namespace $ns has an address off the testbed subnet: $stray"
done
# Every host reaches every other one (a TCP connect over the bridge; bounded by timeouts).
first=${hosts[0]}
for h in "${hosts[@]}"; do
	[ "$h" = "$first" ] && continue
	# Generous bounds: on a loaded machine python3 alone took seconds to start (a listener
	# bounded at 5 s was gone before the first connect came).
	ip netns exec "$h" timeout 30 python3 -c 'import socket; s = socket.socket(); s.bind(("0.0.0.0", 24999)); s.listen(1); c, _ = s.accept()' &
	lp=$!
	reached=0
	for _ in $(seq 1 100); do
		if ip netns exec "$first" timeout 5 python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], 24999), timeout=1)' "${addr[$h]}" 2>/dev/null; then
			reached=1
			break
		fi
		sleep 0.2
	done
	wait "$lp" 2>/dev/null || true
	[ "$reached" = 1 ] || die "$first cannot reach $h at ${addr[$h]}"
done

{
	for h in "${hosts[@]}"; do echo "$h ${role[$h]} ${addr[$h]} ${rate[$h]}"; done
} >"$TB_DIR/rates"
cl=() sv=()
for h in "${hosts[@]}"; do
	if [ "${role[$h]}" = client ]; then cl+=("$h"); else sv+=("$h"); fi
done
cat >"$TB_DIR/testbed.env" <<EOF
export GF_TESTBED_PREFIX=$TB_PREFIX
export GF_TESTBED_DIR=$TB_DIR
export GF_TESTBED_SUBNET=10.77.0.0/24
export GF_TESTBED_CLIENTS='${cl[*]}'
export GF_TESTBED_SERVERS='${sv[*]}'
export GF_TESTBED_HOSTS=$TB_DIR/hosts
export GF_TESTBED_LOCAL=$TB_DIR/local
EOF
t1=$(date +%s.%N)
say "${#cl[@]} client host(s) and ${#sv[@]} server host(s) on 10.77.0.0/24 up in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
say "no default route in any of the $((${#hosts[@]} + 1)) testbed namespaces and no address off 10.77.0.0/24: testbed traffic cannot leave the machine"
for h in "${hosts[@]}"; do
	say "  $h ${role[$h]} ${addr[$h]} $(awk -v b="${rate[$h]}" 'BEGIN { printf "%g Mbit/s", b / 1e6 }') each way"
done

# The servers: a missing package is a skip (77), as for the one-machine servers.
serve() {
	local what=$1 rc=0
	shift
	GF_TESTBED_DIR=$TB_DIR "$@" >>"$TB_DIR/testbed.env" || rc=$?
	[ "$rc" = 0 ] && return 0
	[ "$rc" = 77 ] && { say "$what: a prerequisite is missing (above)"; exit 77; }
	die "$what did not come up"
}
[ "$gluster" = 1 ] && serve "the GlusterFS volume" "$TB_HERE/testbed-gluster.sh" "$bricks"
[ "$s3" = 1 ] && serve "radosgw" "$TB_HERE/testbed-s3.sh"
[ "$slurm" = 1 ] && serve "Slurm" "$TB_HERE/testbed-slurm.sh"
ok=1
cat "$TB_DIR/testbed.env"
