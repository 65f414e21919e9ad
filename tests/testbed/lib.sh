# shellcheck shell=bash
# Shared by the testbed tests (sourced, not run): the integration helpers (gf, expect,
# only_result, finish) plus a testbed of their own, named gft (hosts gft-c1.., gft-s1..),
# built by scripts/testbed-up.sh and always removed by scripts/testbed-down.sh on exit.
# One testbed test runs at a time (a lock), so their bandwidth figures do not disturb
# each other and the names never clash.
. "$(dirname "$0")/../integration/lib.sh"
export GF_TESTBED_PREFIX=gft
export GF_TESTBED_DIR=/var/tmp/gpufeed-testbed/gft
TB_LOCK=/run/lock/gpufeed-testbed.lock
TB_UP=0

# On exit, whatever happened: the testbed goes, and anything it leaves fails the test.
tb_teardown() {
	local rc=$? t0=$SECONDS
	if [ "$TB_UP" = 1 ]; then
		"$SRCDIR/scripts/testbed-down.sh" >/dev/null 2>"$TMP/down.err" || { cat "$TMP/down.err"; rc=1; }
		echo "teardown: $((SECONDS - t0)) s"
		if ip netns list 2>/dev/null | grep -qE '^gft-' || [ -e "$GF_TESTBED_DIR" ] ||
			pgrep -f -- "$GF_TESTBED_DIR/" >/dev/null; then
			echo "FAIL: the testbed left namespaces, its folder or processes behind"
			rc=1
		fi
	fi
	# A test's own mounts under $TMP (tb_cleanup, when the test defines it).
	declare -F tb_cleanup >/dev/null && tb_cleanup
	rm -rf "$TMP"
	exit "$rc"
}
trap tb_teardown EXIT

# tb_up ARGS...: lock, build the testbed, export its variables. Exit 77 only when this
# machine cannot make network namespaces (or lacks a server the test needs); a testbed
# that fails to come up is a failure.
tb_up() {
	local rc=0 t0=$SECONDS
	exec 9>"$TB_LOCK" || { echo "SKIP: cannot open $TB_LOCK"; exit 77; }
	# Another testbed test holds the lock for a few minutes at most.
	flock -w 900 9 || { bad "waited 15 minutes for another testbed test"; finish; }
	TB_UP=1
	"$SRCDIR/scripts/testbed-up.sh" "$@" >"$TMP/tb.env" 2>"$TMP/up.err" || rc=$?
	cat "$TMP/up.err"
	if [ "$rc" = 77 ]; then
		echo "SKIP: the testbed cannot be built here (above)"
		exit 77
	fi
	[ "$rc" = 0 ] || { bad "testbed-up.sh $* failed ($rc)"; finish; }
	eval "$(cat "$TMP/tb.env")"
	echo "bring-up: $((SECONDS - t0)) s"
}

# tbrun PPN ARGS...: gpufeed under mpirun across the client hosts, PPN ranks per host.
tbrun() {
	local ppn=$1
	shift
	timeout 600 "$SRCDIR/scripts/testbed-mpirun.sh" --ppn "$ppn" "$GPUFEED" "$@"
}

# shard_placement CSV: the server of each rank's shard in the first write burst of a run's
# checkpoint_ranks.csv, by rank, as the simulator's servers.shard_placement ("[1, 0, ...]"):
# gpufeed records the brick that holds each file (the server column, GlusterFS's pathinfo,
# a rank's files in the order it writes them); bricks are numbered in the order of their
# names, the same in every run of a testbed, as GlusterFS places a file by its name's
# hash. A rank's shard is placed with its last file (ZeRO 3's optimizer states, most of
# its bytes). Empty when the column is.
shard_placement() {
	[ -f "$1" ] || return 0
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		col["server"] && $col["kind"] == "write" && $col["burst"] == 0 && $col["server"] != "" {
			k = split($col["server"], f, ";"); srv[$col["rank"]] = f[k]; names[f[k]] = 1; n++ }
		END {
			if (!n) exit
			m = 0
			for (b in names) sorted[++m] = b
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (sorted[j] < sorted[i]) { t = sorted[i]; sorted[i] = sorted[j]; sorted[j] = t }
			for (i = 1; i <= m; i++) idx[sorted[i]] = i - 1
			printf "["
			for (r = 0; r < n; r++) printf "%s%d", r ? ", " : "", idx[srv[r]]
			printf "]"
		}' "$1"
}
