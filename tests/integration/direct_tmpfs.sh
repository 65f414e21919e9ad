#!/usr/bin/env bash
# Description: O_DIRECT on tmpfs. tmpfs keeps files in memory and has no direct I/O (since
# Linux 6.6 it accepts the O_DIRECT flag but serves every read from memory).
# Expected: target.direct=true (and reader.odirect=true) stop with exit 2 before anything
# is written, with a message that names tmpfs and the target; target.direct=auto runs
# buffered and summary.json says direct false, requested true, and why (tmpfs).
# Buggy: a run that "passes" with O_DIRECT on memory, a message without the filesystem,
# auto that fails, or a dataset written before the refusal.
. "$(dirname "$0")/lib.sh"

shm=/dev/shm
if [ "$(stat -f -c %T "$shm" 2>/dev/null)" != tmpfs ]; then
	echo "SKIP: $shm is not a tmpfs on this machine, so there is no tmpfs to test against"
	exit 77
fi
data=$(mktemp -d "$shm/gpufeed-test.XXXXXX")
trap 'rm -rf "$TMP" "$data"' EXIT
rmdir "$data"

for key in target.direct=true reader.odirect=true; do
	gf 1 run "$SMALL" --target "$data" --results "$TMP/r-$key" --set "$key" >"$TMP/out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && ok "$key on tmpfs: exit 2" || bad "$key on tmpfs: exit $rc"
	grep -q "tmpfs" "$TMP/out" && grep -q "$data" "$TMP/out" && grep -q "O_DIRECT" "$TMP/out" &&
		ok "$key: the message names O_DIRECT, tmpfs and the target" || { bad "$key: unclear message"; cat "$TMP/out"; }
	[ ! -e "$data" ] && ok "$key: nothing written" || bad "$key: $data was created"
done

gf 1 run "$SMALL" --target "$data" --results "$TMP/r-auto" --set target.direct=auto --quiet >"$TMP/out" 2>&1 ||
	{ bad "direct=auto on tmpfs failed"; cat "$TMP/out"; }
s=$(only_result "$TMP/r-auto")/summary.json
expect "auto falls back to buffered and says why" "$s" \
	'.status == "complete" and .target.direct == false and .target.direct_requested == true and (.target.direct_reason | test("tmpfs")) and .environment.fs_type == "tmpfs"'
expect "auto read everything" "$s" '.train.samples == 128 and .train.read_bytes >= .train.read_bytes_requested'

# With the dataset in place, train refuses just the same.
gf 1 train "$SMALL" --target "$data" --results "$TMP/r-train" --set target.direct=true >"$TMP/out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q tmpfs "$TMP/out" && ok "train with direct=true on tmpfs: exit 2 naming tmpfs" ||
	{ bad "train direct=true on tmpfs: exit $rc"; cat "$TMP/out"; }
finish
