#!/usr/bin/env bash
# Description: the source tree keeps its floors (docs/architecture.md): every include
# looks down, engine/layout/mode/format names are compared only in the key table and
# the registry, and no function or file outgrows its limit.
# Expected: scripts/check-layers.sh finds nothing.
# Buggy: a header in io/ that includes the workload, report/ reaching into io/, a strcmp
# on "s3" in the driver.
. "$(dirname "$0")/lib.sh"

if out=$("$SRCDIR/scripts/check-layers.sh" "$SRCDIR" 2>&1); then
	ok "$out"
else
	bad "the floors are broken:"
	printf '%s\n' "$out"
fi
finish
