#!/usr/bin/env bash
# Description: the command line: --help, --version, per-command help, exit codes for
# usage errors, and DLIO's ++workload.KEY=VALUE overrides.
# Expected: help and version exit 0 and say what they should; usage errors exit 2 with a
# message that says what to do; overrides reach the resolved workload.
. "$(dirname "$0")/lib.sh"

"$GPUFEED" --help >"$TMP/h" 2>&1 && grep -q "usage: mpirun -np N gpufeed COMMAND" "$TMP/h" &&
	grep -q "datagen" "$TMP/h" && grep -q "Exit codes" "$TMP/h" && ok "--help" || bad "--help"
"$GPUFEED" --version >"$TMP/v" 2>&1 && grep -Eq "^gpufeed [0-9]+\.[0-9]+\.[0-9]+$" "$TMP/v" && ok "--version" || bad "--version"
for c in run datagen train plan; do
	"$GPUFEED" "$c" --help >"$TMP/h" 2>&1 && grep -q "usage: gpufeed $c WORKLOAD.yaml" "$TMP/h" &&
		grep -q -- "--target" "$TMP/h" && grep -q -- "--set" "$TMP/h" && ok "$c --help" || bad "$c --help"
done
"$GPUFEED" plan --help | grep -q -- "--ranks" && ok "plan --help lists --ranks" || bad "plan --help"

usage() { # description expected-message args...
	local d=$1 m=$2
	shift 2
	"$GPUFEED" "$@" >"$TMP/o" 2>&1
	local rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$m" "$TMP/o"; then ok "$d"; else bad "$d: exit $rc"; cat "$TMP/o"; fi
}
usage "no command" "no command given" 
usage "unknown command" "unknown command 'bogus'" bogus "$SMALL"
usage "no workload" "needs a workload file" train
usage "unknown option" "unknown" plan "$SMALL" --frobnicate
usage "missing option value" "needs a value" plan "$SMALL" --target
usage "bad --duration" "--duration" run "$SMALL" --duration soon
usage "two workloads" "unexpected argument" plan "$SMALL" "$SMALL"
usage "unknown engine" "unknown engine 'warp'" run "$SMALL" --engine warp --target "$TMP/d" --results "$TMP/r"
usage "unsupported scheme" "other schemes" run "$SMALL" --target ftp://bucket/x --results "$TMP/r"
[ ! -e "$TMP/r" ] || [ -z "$(ls -A "$TMP/r")" ] && ok "usage errors leave no results" || bad "results left behind"

# DLIO-style overrides, in both spellings, reach the resolved workload.
gf 1 run "$SMALL" --engine null --results "$TMP/ro" --quiet ++workload.reader.batch_size=4 \
	workload.train.epochs=1 --set 'train.computation_time={mean: 1ms, stdev: 0.1ms}' >/dev/null 2>&1 ||
	bad "run with overrides failed"
s=$(only_result "$TMP/ro")/summary.json
expect "++workload override" "$s" '.workload.reader.batch_size == 4 and .workload.train.epochs == 1'
expect "distribution override" "$s" '.workload.train.computation_time.type == "normal" and .workload.train.computation_time.mean == 0.001'
expect "null engine recorded" "$s" '.target.engine == "null" and .target.engine_reason == "--engine"'
finish
