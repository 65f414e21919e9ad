#!/usr/bin/env bash
# Description: gpufeed compare sets runs side by side and checks for regressions.
# Expected: a run compared with an identical copy exits 0 under --tolerance; a run made
# slower on purpose (reader.preprocess_time: the readers cannot keep the accelerators fed)
# exits 3 and names the figures that fell; runs of different workloads are refused with
# exit 2 unless --force; --json parses and says "regression"; --plot writes a PNG.
# Buggy: exit 0 on a regression, a lower bandwidth called better, a comparison of
# different datasets accepted silently, JSON that jq cannot read.
. "$(dirname "$0")/lib.sh"

# 10 ms steps: AU near 100% when fed; 25 ms of preprocessing per sample (batch 2, 2
# reader threads: a batch every 25 ms) cannot keep up, so AU, samples/s and bandwidth
# fall far below the baseline.
common=(--target "$TMP/data" --quiet --set train.epochs=6 --set train.computation_time=10ms)
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/base" >"$TMP/out" 2>&1 || { bad "baseline run failed"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/slow" --set reader.preprocess_time=25ms >"$TMP/out" 2>&1 ||
	{ bad "slow run failed"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/other" --set dataset.num_files_train=80 >"$TMP/out" 2>&1 ||
	{ bad "other-workload run failed"; cat "$TMP/out"; }
base=$(only_result "$TMP/base")
slow=$(only_result "$TMP/slow")
other=$(only_result "$TMP/other")
cp -r "$base" "$TMP/copy"

"$GPUFEED" compare "$base" "$TMP/copy" --tolerance 5% >"$TMP/same" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "identical runs: exit 0" || { bad "identical runs: exit $rc"; cat "$TMP/same"; }
grep -q "no figure is worse" "$TMP/same" && ok "identical runs: nothing moved" || bad "identical runs: $(cat "$TMP/same")"

"$GPUFEED" compare --baseline "$base" "$slow" --tolerance 5% >"$TMP/reg" 2>&1
rc=$?
[ $rc -eq 3 ] && ok "slower run: exit 3" || { bad "slower run: exit $rc"; cat "$TMP/reg"; }
grep -q "REGRESSIONS" "$TMP/reg" && grep -q "AU mean" "$TMP/reg" && grep -q "samples/s" "$TMP/reg" &&
	ok "the regression names AU mean and samples/s" || { bad "regression not named"; cat "$TMP/reg"; }
grep -A20 REGRESSIONS "$TMP/reg" | grep -q "read bandwidth:.*higher is better" &&
	ok "lower bandwidth is a regression" || bad "bandwidth drop not flagged"
# The same two runs without --baseline/--tolerance: a table, no check.
"$GPUFEED" compare "$base" "$slow" >/dev/null 2>&1 && ok "without a check: exit 0" || bad "a table alone gave non-zero"
# The other way round the slow run is the baseline: the faster run is no regression.
"$GPUFEED" compare --baseline "$slow" "$base" --tolerance 5% >"$TMP/imp" 2>&1 &&
	grep -q "improvements" "$TMP/imp" && ok "a faster run is an improvement, exit 0" || { bad "faster run"; cat "$TMP/imp"; }

"$GPUFEED" compare "$base" "$other" >"$TMP/mm" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "num_files_train" "$TMP/mm" && grep -q -- "--force" "$TMP/mm" &&
	ok "different workloads refused (exit 2, names the key and --force)" || { bad "mismatch: exit $rc"; cat "$TMP/mm"; }
"$GPUFEED" compare "$base" "$other" --force >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && ok "--force compares them" || bad "--force: exit $rc"

"$GPUFEED" compare --baseline "$base" "$slow" --json >"$TMP/j" 2>"$TMP/jerr"
rc=$?
[ $rc -eq 3 ] && ok "--json: exit 3" || bad "--json: exit $rc"
expect "--json parses and names the regression" "$TMP/j" \
	'.schema == "gpufeed.compare/1" and .verdict == "regression" and (.runs|length) == 2 and ([.regressions[].figure] | index("au_mean") != null) and ([.figures[] | select(.key == "read_p99") | .better] == ["lower"])'

"$GPUFEED" compare "$base" "$slow" "$TMP/copy" --plot "$TMP/cmp.png" >/dev/null 2>&1 && [ -s "$TMP/cmp.png" ] &&
	file "$TMP/cmp.png" | grep -q "PNG image data, 1600 x 900" && ok "--plot writes a 1600x900 PNG" || bad "--plot"

# Bad input: exit 2 with a message that says what to do.
"$GPUFEED" compare "$base" >"$TMP/e1" 2>&1; [ $? -eq 2 ] && grep -q "at least two" "$TMP/e1" && ok "one run: exit 2" || bad "one run"
"$GPUFEED" compare "$base" "$TMP/nowhere" >"$TMP/e2" 2>&1; [ $? -eq 2 ] && grep -q "summary.json" "$TMP/e2" &&
	ok "not a results folder: exit 2" || bad "missing folder: $(cat "$TMP/e2")"
"$GPUFEED" compare "$base" "$slow" --tolerance=-5 >/dev/null 2>&1; [ $? -eq 2 ] && ok "negative tolerance: exit 2" || bad "negative tolerance"
"$GPUFEED" compare --help | grep -q -- "--baseline" && ok "compare --help" || bad "compare --help"
finish
