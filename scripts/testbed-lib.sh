# shellcheck shell=bash disable=SC2034
# Shared by scripts/testbed-*.sh (sourced, not run): where a testbed keeps its state and
# what it is called. A testbed is named by a prefix (GF_TESTBED_PREFIX, default gf): its
# network namespaces are PREFIX-c1..cN (client hosts), PREFIX-s1..sM (server hosts) and
# PREFIX-br (the bridge), and its state folder is GF_TESTBED_DIR
# (default /var/tmp/gpufeed-testbed/PREFIX). Two testbeds with different prefixes can
# exist side by side: their namespaces never share a link.

TB_PREFIX=${GF_TESTBED_PREFIX:-gf}
case $TB_PREFIX in
[a-z]*) ;;
*) echo "testbed: GF_TESTBED_PREFIX '$TB_PREFIX' must start with a lower-case letter" >&2; exit 2 ;;
esac
case $TB_PREFIX in
*[!a-z0-9]*) echo "testbed: GF_TESTBED_PREFIX '$TB_PREFIX' may hold only a-z and 0-9" >&2; exit 2 ;;
esac
[ "${#TB_PREFIX}" -le 8 ] || { echo "testbed: GF_TESTBED_PREFIX '$TB_PREFIX' is longer than 8 characters" >&2; exit 2; }
TB_DIR=${GF_TESTBED_DIR:-/var/tmp/gpufeed-testbed/$TB_PREFIX}
TB_BR=$TB_PREFIX-br
TB_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The namespaces a testbed of this prefix may have made, whether or not its state survived:
# the bridge and every PREFIX-cN / PREFIX-sN that exists.
tb_our_netns() {
	ip netns list 2>/dev/null | awk '{ print $1 }' | grep -E "^$TB_PREFIX-(br|c[0-9]+|s[0-9]+)\$"
}

# Bits per second of a tc rate ("1gbit", "250mbit", "800kbit", "1000000bit"); empty and
# status 1 when it is not one.
tb_rate_bits() {
	local v=$1 num unit mul
	if [[ $v =~ ^([0-9]+(\.[0-9]+)?)([kmgt]?)bit$ ]]; then
		num=${BASH_REMATCH[1]}
		unit=${BASH_REMATCH[3]}
	else
		return 1
	fi
	case $unit in
	'') mul=1 ;;
	k) mul=1000 ;;
	m) mul=1000000 ;;
	g) mul=1000000000 ;;
	t) mul=1000000000000 ;;
	esac
	awk -v n="$num" -v m="$mul" 'BEGIN { v = n * m; if (v < 8000) exit 1; printf "%.0f\n", v }'
}

# Shape one link, both directions: the host's end (host -> bridge) in the host's namespace
# and the bridge's end (bridge -> host) in the bridge namespace, each with tbf. tbf works on
# this kind of kernel where netem does not exist; it segments GSO packets itself, so the
# rate holds with the veth's offloads on. The bucket holds at least 4 ms at the rate (and 32
# KiB, so a full-size frame always fits); the queue holds 50 ms.
tb_shape() {
	local host=$1 bits=$2 burst
	burst=$(awk -v b="$bits" 'BEGIN { x = b / 8 * 0.004; if (x < 32768) x = 32768; printf "%.0f\n", x }')
	tc -n "$host" qdisc replace dev eth0 root tbf rate "${bits}bit" burst "$burst" latency 50ms &&
		tc -n "$TB_BR" qdisc replace dev "$host" root tbf rate "${bits}bit" burst "$burst" latency 50ms
}
