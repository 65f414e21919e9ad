#!/usr/bin/env bash
# Description: broken workloads and command lines. Every tests/bad/*.yaml is run with
# `gpufeed run FILE --target DIR --results DIR`; its first line is `# expect: TEXT`, the
# text its error message must contain. A second line `# expect-noline` marks errors with no
# line to point at (an empty file, a dataset too small for the job); a `# target-under-file`
# line in the leading comments makes --target point below a regular file. Cases that are
# not files (missing workload, unknown --set key, unknown option ...) are below.
# Expected: each case exits exactly 2; stderr contains the expected text; content errors
# name FILE:LINE:; no results folder that claims completeness (one without the .partial
# suffix) is left behind. One ok/FAIL line per case; exit 1 if any case failed.
. "$(dirname "$0")/lib.sh"

[ -x "$GPUFEED" ] || { echo "SKIP: $GPUFEED is not an executable"; exit 77; }
BAD=$SRCDIR/tests/bad
ls "$BAD"/*.yaml >/dev/null 2>&1 || { echo "FAIL: no cases in $BAD"; exit 1; }
TIMEOUT=
command -v timeout >/dev/null 2>&1 && TIMEOUT="timeout 120"
touch "$TMP/regular-file"
cd "$TMP" || exit 1 # nothing a case might write lands in the source or build tree

# has_line FILE TEXT: TEXT (stderr) contains "FILE:N:" with N a number.
has_line() {
	printf '%s\n' "$2" | awk -v p="$1:" '
		{ s = $0
		  while ((i = index(s, p)) > 0) {
			s = substr(s, i + length(p))
			if (s ~ /^[0-9]+:/) { found = 1; exit }
		  } }
		END { exit !found }'
}

# check NAME EXPECT LOCATION RC STDERR RESULTS: the verdict on one case. LOCATION is
# "line:FILE" (must name FILE:N:), "name:FILE" (must name FILE), "cmdline" (must say
# "command line:") or "none".
check() {
	local name=$1 expect=$2 loc=$3 rc=$4 err=$5 res=$6 why="" note="" left
	if [ "$rc" -eq 124 ] && [ -n "$TIMEOUT" ]; then
		why="timed out"
	elif [ "$rc" -ne 2 ]; then
		why="exit $rc, expected 2"
	fi
	if ! printf '%s\n' "$err" | grep -aqF -- "$expect"; then
		why="${why:+$why; }stderr lacks \"$expect\""
	fi
	case $loc in
	line:*)
		has_line "${loc#line:}" "$err" || why="${why:+$why; }no ${loc#line:}:LINE: in stderr" ;;
	name:*)
		printf '%s\n' "$err" | grep -aqF -- "${loc#name:}" ||
			why="${why:+$why; }stderr does not name ${loc#name:}" ;;
	cmdline)
		printf '%s\n' "$err" | grep -aqF "command line:" ||
			why="${why:+$why; }stderr does not say the error is on the command line" ;;
	esac
	left=$(find "$res" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial' 2>/dev/null)
	if [ -n "$left" ]; then
		why="${why:+$why; }complete results folder left: $(basename "$left" | tr '\n' ' ')"
	elif [ -n "$(find "$res" -mindepth 1 -maxdepth 1 2>/dev/null)" ]; then
		note=" (note: a .partial results folder was left)"
	fi
	if [ -z "$why" ]; then
		ok "$name$note"
	else
		bad "$name: $why"
		printf '%s\n' "$err" | head -5 | cat -v | sed 's/^/    stderr: /'
	fi
}

# The workload files.
for f in "$BAD"/*.yaml; do
	name=bad/$(basename "$f")
	first=$(head -n 1 "$f")
	case $first in
	"# expect: "*) expect=${first#\# expect: } ;;
	*) bad "$name: the first line is not '# expect: TEXT'"; continue ;;
	esac
	loc=line:$f
	[ "$(sed -n 2p "$f")" = "# expect-noline" ] && loc=name:$f
	dir=$TMP/case-$(basename "$f" .yaml)
	mkdir -p "$dir"
	target=$dir/data
	if sed -n '/^[^#]/q;p' "$f" | grep -qx '# target-under-file'; then
		target=$TMP/regular-file/data
		loc=none # the message is about the target, not the workload
	fi
	$TIMEOUT "$GPUFEED" run "$f" --target "$target" --results "$dir/results" --quiet \
		>"$dir/stdout" 2>"$dir/stderr" </dev/null
	rc=$?
	check "$name" "$expect" "$loc" "$rc" "$(cat "$dir/stderr")" "$dir/results"
done

# Cases that are not workload files: cli NAME EXPECT LOCATION ARGS...
cli() {
	local name=$1 expect=$2 loc=$3 dir=$TMP/cli-$1 rc
	shift 3
	mkdir -p "$dir"
	$TIMEOUT "$GPUFEED" "$@" >"$dir/stdout" 2>"$dir/stderr" </dev/null
	rc=$?
	check "cli/$name" "$expect" "$loc" "$rc" "$(cat "$dir/stderr")" "$dir/results"
}
GOOD=$SRCDIR/workloads/quickstart.yaml
R() { echo --target "$TMP/cli-$1/data" --results "$TMP/cli-$1/results"; }

cli duration_overflow "--duration '1e30': expected a positive time up to 1e9 seconds" none \
	run "$GOOD" --duration 1e30 $(R duration_overflow)
cli set_time_overflow "train.computation_time: '1e20' is not valid: must be between 0 and 1e+06 seconds" cmdline \
	run "$GOOD" --set train.computation_time=1e20 $(R set_time_overflow)
cli missing_workload "cannot read the workload: No such file or directory" "name:$TMP/no-such.yaml" \
	run "$TMP/no-such.yaml" $(R missing_workload)
: >"$TMP/zero-bytes.yaml"
cli zero_byte_workload "the workload is empty" "name:$TMP/zero-bytes.yaml" \
	run "$TMP/zero-bytes.yaml" $(R zero_byte_workload)
mkdir -p "$TMP/folder.yaml"
cli workload_is_a_folder "is a folder" "name:$TMP/folder.yaml" \
	run "$TMP/folder.yaml" $(R workload_is_a_folder)
if [ "$(id -u)" -ne 0 ]; then
	printf 'reader:\n  batch_size: 4\n' >"$TMP/unreadable.yaml"
	chmod 000 "$TMP/unreadable.yaml"
	cli unreadable_workload "Permission denied" "name:$TMP/unreadable.yaml" \
		run "$TMP/unreadable.yaml" $(R unreadable_workload)
else
	echo "skip: cli/unreadable_workload (root can read a mode 000 file)"
fi
cli set_unknown_key "unknown key 'reader.batchsize' (did you mean 'reader.batch_size'?)" cmdline \
	run "$GOOD" --set reader.batchsize=4 $(R set_unknown_key)
cli dlio_override_unknown_key "unknown key 'reader.batchsize' (did you mean 'reader.batch_size'?)" cmdline \
	run "$GOOD" ++workload.reader.batchsize=4 $(R dlio_override_unknown_key)
cli set_unknown_section "unknown key 'readers.batch_size'" cmdline \
	run "$GOOD" --set readers.batch_size=4 $(R set_unknown_section)
cli set_bad_value "reader.batch_size: 'four' is not valid: expected a whole number" cmdline \
	run "$GOOD" --set reader.batch_size=four $(R set_bad_value)
cli set_not_key_value "is not key=value" cmdline \
	run "$GOOD" --set reader.batch_size $(R set_not_key_value)
cli unknown_long_option "option '--frobnicate' is unknown" none \
	run "$GOOD" --frobnicate $(R unknown_long_option)
cli unknown_short_option "option -x is unknown" none \
	run "$GOOD" -x $(R unknown_short_option)
cli option_without_value "option '--results' needs a value" none \
	run "$GOOD" --target "$TMP/cli-option_without_value/data" --results
cli unknown_command "unknown command 'frob'" none \
	frob "$GOOD" $(R unknown_command)
# Bounded before parsing: a device that never ends, and nesting libyaml would take minutes
# over (100,000 levels in flow style, 1,000 in block style).
cli workload_is_a_device "not a regular file" "name:/dev/zero" run /dev/zero $(R workload_is_a_device)
# A FIFO in a YAML file's place (a workload, a mix's job, a system file) is refused, never
# waited on for a writer.
mkfifo "$TMP/fifo.yaml"
cli workload_is_a_fifo "not a regular file" "name:$TMP/fifo.yaml" run "$TMP/fifo.yaml" $(R workload_is_a_fifo)
printf 'jobs:\n  - name: a\n    workload: %s\n    ranks: 1\n' "$TMP/fifo.yaml" >"$TMP/mix-fifo.yaml"
cli mix_job_is_a_fifo "not a regular file" "line:$TMP/mix-fifo.yaml" plan "$TMP/mix-fifo.yaml"
cli system_is_a_fifo "not a regular file" "name:$TMP/fifo.yaml" simulate "$GOOD" --system "$TMP/fifo.yaml" \
	--results "$TMP/cli-system_is_a_fifo/results"
python3 -c "print('a: ' + '[' * 100000 + ']' * 100000)" >"$TMP/deep-flow.yaml"
cli deep_flow_nesting "nested more than 32 levels deep" "line:$TMP/deep-flow.yaml" \
	plan "$TMP/deep-flow.yaml"
python3 -c "print(''.join(' ' * i + 'k%d:\\n' % i for i in range(1000)))" >"$TMP/deep-block.yaml"
cli deep_block_nesting "nested more than 32 levels deep" "line:$TMP/deep-block.yaml" \
	plan "$TMP/deep-block.yaml"
head -c 1100000 /dev/zero | tr '\0' '#' >"$TMP/huge.yaml"
cli huge_workload "too large" "name:$TMP/huge.yaml" plan "$TMP/huge.yaml"

finish
