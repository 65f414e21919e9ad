#!/usr/bin/env bash
# Description: the workload loader and the results loader under libFuzzer for a fixed
# budget (GPUFEED_FUZZ_SECONDS, default 15 s each), seeded from workloads/, tests/bad/
# and tests/fuzz/seeds/.
# Expected: no crash, leak, sanitizer report, input slower than 10 s, or memory past 1 GiB.
# Buggy: a loader that overflows, leaks or hangs on a file a user hands it.
. "$(dirname "$0")/lib.sh"

if FUZZ_OUT=$TMP/fuzz "$SRCDIR/scripts/fuzz.sh" "${GPUFEED_FUZZ_SECONDS:-15}" "$(dirname "$GPUFEED")" >"$TMP/out" 2>&1; then
	ok "$(grep -c 'no crash' "$TMP/out") fuzz targets ran clean"
	cat "$TMP/out"
else
	bad "fuzzing found a problem (or could not build):"
	cat "$TMP/out"
	for f in "$TMP"/fuzz/*.found/*; do
		[ -f "$f" ] && { echo "---- input $f (base64):"; base64 "$f" | head -20; }
	done
fi
finish
