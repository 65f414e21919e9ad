# Shared helpers for the integration tests: the real binary, under mpirun, on a
# temporary folder, with assertions on summary.json through jq. Sourced, not run.
set -u
: "${GPUFEED:?GPUFEED must name the gpufeed binary (make check sets it)}"
: "${SRCDIR:?SRCDIR must name the source tree (make check sets it)}"
MPIRUN=${MPIRUN:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TMP=$(mktemp -d /tmp/gpufeed-test.XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
SMALL=$SRCDIR/tests/integration/small.yaml
failures=0
# The sanitizer build (3-5 times slower): a test may leave out there what only adds ranks
# to a case it runs, and says so.
sanitized=false
grep -q '^#define GF_SANITIZERS 1' "$(dirname "$GPUFEED")/config.h" 2>/dev/null && sanitized=true

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# gf NP ARGS...: run gpufeed under mpirun with NP ranks.
gf() {
	local np=$1 rc err
	shift
	# stderr also kept aside (after the run: stdout and stderr no longer interleave): a
	# summary.json that breaks its own schema is said there as an internal error, and
	# finish fails the test on one.
	err=$(mktemp "$TMP/gf-err.XXXXXX")
	"$MPIRUN" --oversubscribe -np "$np" "$GPUFEED" "$@" 2>"$err"
	rc=$?
	cat "$err" >&2
	cat "$err" >>"$TMP/gf.stderr"
	rm -f "$err"
	return $rc
}

# The one complete results folder under $1 (fails the test if there is not exactly one).
only_result() {
	local found
	found=$(find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial' 2>/dev/null)
	if [ "$(printf '%s\n' "$found" | grep -c .)" -ne 1 ]; then
		bad "expected exactly one complete results folder under $1, found: ${found:-none}"
		echo /nonexistent
		return
	fi
	echo "$found"
}

# expect DESCRIPTION FILE JQ-EXPRESSION: the expression must be true on the JSON file.
expect() {
	local desc=$1 file=$2 expr=$3
	if jq -e "$expr" "$file" >/dev/null 2>&1; then
		ok "$desc"
	else
		bad "$desc: '$expr' is false on $file"
		jq -c "$expr" "$file" 2>&1 | head -3
	fi
}

finish() {
	if grep -q "gpufeed: internal error" "$TMP/gf.stderr" 2>/dev/null; then
		bad "gpufeed said internal error: $(grep -m3 "gpufeed: internal error" "$TMP/gf.stderr")"
	fi
	if [ "$failures" -eq 0 ]; then
		echo "all checks passed"
		exit 0
	fi
	echo "$failures check(s) failed"
	exit 1
}
