#!/usr/bin/env bash
# Description: every loader of a file users hand gpufeed under libFuzzer (scripts/fuzz.sh's
# three targets) for a fixed budget (GPUFEED_FUZZ_SECONDS, default 10 s each: 30 s in all),
# seeded from workloads/, tests/bad/, tests/fuzz/seeds/ and tests/fuzz/seeds_inputs/.
# Expected: no crash, leak, sanitizer report, input slower than 10 s, or memory past 1 GiB.
# Buggy: a loader that overflows, leaks or hangs on a file a user hands it.
. "$(dirname "$0")/lib.sh"

if FUZZ_OUT=$TMP/fuzz "$SRCDIR/scripts/fuzz.sh" "${GPUFEED_FUZZ_SECONDS:-10}" "$(dirname "$GPUFEED")" >"$TMP/out" 2>&1; then
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
