#!/usr/bin/env bash
# Description: the command line: --help, --version, per-command help, exit codes for
# usage errors, and DLIO's ++workload.KEY=VALUE overrides; labels, file prefixes and --set
# values that are refused (issue 28 items 17, 21, 22).
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
# Near misses get the name to use: an option one letter off, fio's engine names.
usage "plna: did you mean plan" "did you mean plan?" plna "$SMALL"
usage "--taget: did you mean" "did you mean --target?" plan "$SMALL" --taget /tmp
usage "--taget=X: did you mean" "did you mean --target?" train "$SMALL" --taget=/tmp
usage "--engine io_uring: fio's name" "gpufeed's is 'uring'" plan "$SMALL" --engine io_uring --target "$TMP/d"
usage "--engine libaio: fio's name" "gpufeed's is 'aio'" plan "$SMALL" --engine libaio --target "$TMP/d"
usage "--engine posx: did you mean" "did you mean 'posix'" plan "$SMALL" --engine posx --target "$TMP/d"
# The same refusals from a run exit 2 before anything is made: no data folder, no results.
for e in io_uring gfapi; do
	gf 1 run "$SMALL" --engine "$e" --target "$TMP/e-$e" --results "$TMP/er-$e" >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && [ ! -e "$TMP/e-$e" ] && [ ! -e "$TMP/er-$e" ] && grep -q "engine" "$TMP/o" &&
		ok "run --engine $e on a local path: exit 2, nothing made" ||
		{ bad "run --engine $e on a local path: exit $rc"; cat "$TMP/o"; ls "$TMP"; }
done
# A checkpoint that cannot fit the free space: llama3_1t, 10 checkpoints of 15.1 TiB.
usage "plan: checkpoints larger than the free space" "free, 10 checkpoint(s) of 15.1 TiB need about" \
	plan "$SRCDIR/workloads/llama3_1t.yaml" --target "$TMP/big"
gf 2 run "$SRCDIR/workloads/llama3_1t.yaml" --target "$TMP/big" --results "$TMP/bigr" \
	--set checkpoint.mode=subset --set model.parallelism.data=2 >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$TMP/big" ] && [ ! -e "$TMP/bigr" ] && grep -q "free, 10 checkpoint(s) of .* need about" "$TMP/o" &&
	ok "run: checkpoints larger than the free space: exit 2, nothing written" ||
	{ bad "run: checkpoints larger than the free space: exit $rc"; cat "$TMP/o"; }
usage "unknown engine" "unknown engine 'warp'" run "$SMALL" --engine warp --target "$TMP/d" --results "$TMP/r"
usage "unsupported scheme" "other schemes" run "$SMALL" --target ftp://bucket/x --results "$TMP/r"
[ ! -e "$TMP/r" ] || [ -z "$(ls -A "$TMP/r")" ] && ok "usage errors leave no results" || bad "results left behind"

# Issue 28 items 21, 22, 17: a label that reads as an option or names a complete run like
# an interrupted one, a file_prefix with a character its message does not allow, a --set
# value nested deeper than a workload file may be (65,536 brackets took 20 s).
usage "--label x.partial" "--label 'x.partial'" run "$SMALL" --engine null --results "$TMP/r" --label x.partial
usage "--label -rf" "--label '-rf'" run "$SMALL" --engine null --results "$TMP/r" --label -rf
for p in 'img%s' 'img 1' 'img?'; do
	usage "dataset.file_prefix '$p'" "dataset.file_prefix '$p'.*letters, digits" plan "$SMALL" --set "dataset.file_prefix=$p"
done
deep=$(printf '%*s' 65536 '' | tr ' ' '[')
t0=$(date +%s)
usage "--set 65,536 brackets deep" "nested more than 32 levels deep" plan "$SMALL" --set "train.computation_time=$deep"
[ $(($(date +%s) - t0)) -le 3 ] && ok "--set 65,536 deep: refused at once" || bad "--set 65,536 deep: took $(($(date +%s) - t0)) s"
[ ! -e "$TMP/r" ] || [ -z "$(ls -A "$TMP/r")" ] && ok "refused labels leave no results" || bad "results left behind"

# DLIO-style overrides, in both spellings, reach the resolved workload.
gf 1 run "$SMALL" --engine null --results "$TMP/ro" --quiet ++workload.reader.batch_size=4 \
	workload.train.epochs=1 --set 'train.computation_time={mean: 1ms, stdev: 0.1ms}' >/dev/null 2>&1 ||
	bad "run with overrides failed"
s=$(only_result "$TMP/ro")/summary.json
expect "++workload override" "$s" '.workload.reader.batch_size == 4 and .workload.train.epochs == 1'
expect "distribution override" "$s" '.workload.train.computation_time.type == "normal" and .workload.train.computation_time.mean == 0.001'
expect "null engine recorded" "$s" '.target.engine == "null" and .target.engine_reason == "--engine"'
finish
