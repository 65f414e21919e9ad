#!/usr/bin/env bash
# The whole test suite: installs what is missing (scripts/install-deps.sh --test: beyond
# what building and running need, the servers, browser and tools the tests use), builds
# gpufeed twice (plain, and with AddressSanitizer + UndefinedBehaviorSanitizer), runs
# every unit and integration test on both, and prints "N passed, N failed, N skipped" as
# its last line.
# Under CI (CI=true) every dependency is installed, so a skipped test counts as failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts/install-deps.sh --test || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }

# mpirun as root (containers, CI) needs these; --oversubscribe is in the tests.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

pass=0 fail=0 skip=0 failed_checks=
run_suite() { # name build-dir make-variables configure-options...
	local name=$1 dir=$2 vars=$3
	shift 3
	echo "== $name: build ($dir)"
	if ! scripts/build.sh "$dir" "$@"; then
		echo "== $name: BUILD FAILED"
		fail=$((fail + 1))
		return
	fi
	echo "== $name: tests"
	# A log left from an earlier run must never stand in for this one.
	rm -f "$dir/test-suite.log"
	# shellcheck disable=SC2086 # vars is a list of VAR=value words
	touch "$dir/check.log.start"
	make -C "$dir" -j"$(nproc)" check $vars >"$dir/check.log" 2>&1
	local make_rc=$?
	grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS|XFAIL):' "$dir/check.log" | sed "s/^/   /"
	# How long each test took, the slowest first: a log is made when its test starts and
	# written last when it ends (test-driver), so its birth and change times bound it.
	# The suite's 30 minutes are kept by trimming what this names.
	echo "== $name: the slowest tests (seconds, 2 at a time)"
	find "$dir/tests" -name '*.log' -newer "$dir/check.log.start" -exec stat -c '%Y %W %n' {} + 2>/dev/null |
		awk -v d="$dir/" '$2 > 0 { n = $3; sub(d, "", n); sub(/\.log$/, "", n); printf "%6d %s\n", $1 - $2, n }' |
		sort -rn | head -12 | sed "s/^/   /"
	local log=$dir/test-suite.log
	if [ ! -f "$log" ]; then
		echo "== $name: no test-suite.log (make check could not run):"
		tail -30 "$dir/check.log"
		fail=$((fail + 1))
		return
	fi
	# -Wall -Wextra are on so that a warning is read: one in a test once hid a dropped
	# array element. Any compiler warning in this build fails the suite.
	local warned
	warned=$(grep -hE '^[^ ]+:[0-9]+:[0-9]+: warning:' "$dir/make.log" "$dir/check.log" 2>/dev/null | sort -u)
	if [ -n "$warned" ]; then
		echo "== $name: compiler warnings (each fails the suite):"
		echo "$warned" | sed "s/^/   /"
	fi
	local p f s e x
	p=$(sed -n 's/^# PASS: *//p' "$log"); f=$(sed -n 's/^# FAIL: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log"); e=$(sed -n 's/^# ERROR: *//p' "$log")
	x=$(sed -n 's/^# XPASS: *//p' "$log")
	f=$((f + e + x))
	if [ "$make_rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "== $name: make check failed without a failing test (a test did not build?):"
		grep -E "error|Error" "$dir/check.log" | head -20
		f=1
	fi
	if [ "$f" -gt 0 ]; then
		# Show what failed, so a CI log is enough to start debugging.
		for t in $(grep -E '^(FAIL|ERROR|XPASS):' "$dir/check.log" | awk '{print $2}'); do
			echo "---- $name: $t.log (last 40 lines)"
			tail -40 "$dir/$t.log" 2>/dev/null
			# Repeated at the very end: a CI page may keep only the output's tail.
			# With the sanitizer's or libFuzzer's own verdict lines: a FAIL line that says
			# "fuzzing found a problem:" is nothing to start from without them.
			failed_checks+="$name $t: $(grep -E '^FAIL|SUMMARY:|==ERROR|FAILED|^fuzz: ' "$dir/$t.log" 2>/dev/null |
				head -12 | cut -c1-300)"$'\n'
		done
	fi
	if [ "${CI:-}" = true ] && [ "$s" -gt 0 ]; then
		echo "== $name: $s skipped test(s) count as failed under CI: every dependency is installed there"
		for t in $(grep -E '^SKIP:' "$dir/check.log" | awk '{print $2}'); do
			echo "---- $name: $t.log"; tail -5 "$dir/$t.log" 2>/dev/null
		done
		f=$((f + s)); s=0
	fi
	[ -z "$warned" ] || f=$((f + 1))
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

# GPUFEED_LONG_TESTS=1 runs everything (about an hour more on 2 cores): the radosgw
# server, the testbed's calibrated simulation and Slurm, and under the sanitizers the plain
# half's long tests too (Makefile.am's lists say which and why).
long=${GPUFEED_LONG_TESTS:-0}
plain_vars=
[ "$long" = 1 ] || plain_vars="RADOSGW_TESTS= LONG_TESTBED_TESTS="
run_suite plain build "$plain_vars"
# The sanitizer build leaves out what gains nothing from it, to keep the suite within 30
# minutes on 2 cores: the multi-host testbed (minutes of shell, servers and shaped links;
# its gpufeed paths are the ones the integration tests run under ASan already), the
# fuzzers (built with their own sanitizers), radosgw (the same gpufeed code as s3.sh), and
# PLAIN_TESTS but with GPUFEED_LONG_TESTS=1.
san_vars="TESTBED_TESTS= LONG_TESTBED_TESTS= FUZZ_TESTS= RADOSGW_TESTS="
[ "$long" = 1 ] || san_vars+=" PLAIN_TESTS="
# Open MPI's components stay loaded (so leak reports from them can be symbolised and
# suppressed), and the slow unwinder sees through libraries built without frame pointers.
OMPI_MCA_mca_base_component_disable_dlclose=1 \
LSAN_OPTIONS="suppressions=$top/scripts/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0" \
ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:fast_unwind_on_malloc=0" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	run_suite sanitizers build-san "$san_vars" --enable-sanitizers

if [ -n "$failed_checks" ]; then
	echo "== the failed checks, again:"
	printf '%s' "$failed_checks"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
