#!/usr/bin/env bash
# Description: gpufeed never touches data it did not create, never overwrites results,
# and an interrupted run does not pass itself off as complete.
# Expected: a non-empty folder without the gpufeed marker is refused with exit 2 and left
# byte-for-byte as it was; two runs in the same second get two folders; SIGTERM leaves a
# .partial folder whose summary says "interrupted".
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/precious"
echo "user data" >"$TMP/precious/thesis.txt"
before=$(cd "$TMP/precious" && find . -type f -exec sha1sum {} + | sort)
gf 1 run "$SMALL" --target "$TMP/precious" --results "$TMP/r1" >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "non-empty unmarked folder: exit 2" || bad "non-empty unmarked folder: exit $rc"
grep -q "not created by gpufeed" "$TMP/o" && ok "the refusal says why" || { bad "refusal message"; cat "$TMP/o"; }
after=$(cd "$TMP/precious" && find . -type f -exec sha1sum {} + | sort)
[ "$before" = "$after" ] && ok "user folder untouched" || bad "user folder changed"
[ ! -e "$TMP/r1" ] || [ -z "$(ls -A "$TMP/r1")" ] && ok "no results folder for a refused run" || bad "results folder left"

# A target below a regular file cannot be created: exit 2, before anything is written.
gf 1 run "$SMALL" --target "$TMP/precious/thesis.txt/data" --results "$TMP/r1" >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "target under a file: exit 2" || { bad "target under a file: exit $rc"; cat "$TMP/o"; }

# Never overwrite: back-to-back runs land in distinct folders.
for i in 1 2 3; do
	gf 1 run "$SMALL" --engine null --results "$TMP/r2" --quiet --set train.epochs=1 >/dev/null 2>&1 || bad "null run $i"
done
n=$(find "$TMP/r2" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" -eq 3 ] && ok "3 runs, 3 results folders" || bad "3 runs gave $n folders"

# SIGTERM to mpirun in the middle of training (what a batch scheduler sends at the time
# limit; mpirun forwards it to every rank). A background job of a script ignores SIGINT,
# so the test uses SIGTERM.
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$SMALL" --target "$TMP/data" --results "$TMP/r3" \
	--quiet --set train.epochs=100000 --set train.computation_time=10ms >"$TMP/o" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
	[ -s "$TMP/data/.gpufeed-manifest.json" ] && break
	sleep 0.1
done
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && ok "interrupted run exits non-zero ($rc)" || bad "interrupted run exited 0"
complete=$(find "$TMP/r3" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial' | wc -l)
[ "$complete" -eq 0 ] && ok "no complete-looking folder" || bad "an interrupted run left a complete folder"
p=$(find "$TMP/r3" -mindepth 1 -maxdepth 1 -type d -name '*.partial' | head -1)
if [ -n "$p" ] && [ -f "$p/summary.json" ]; then
	expect "summary says interrupted" "$p/summary.json" '.status == "interrupted"'
	expect "kept what it measured" "$p/summary.json" '.train.steps > 0'
else
	echo "note: mpirun ended the ranks before they could write a summary"
	ls -la "$TMP/r3" "$p" 2>&1 | head
	bad "no summary in the .partial folder"
fi
finish
