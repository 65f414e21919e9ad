#!/usr/bin/env bash
# Description: gpufeed compare sets runs side by side, phase by phase, and checks for
# regressions.
# Expected: a run compared with an identical copy exits 0 under --tolerance; a run made
# slower on purpose (reader.preprocess_time: the readers cannot keep the accelerators fed)
# exits 3 and names the figures that fell; runs of different datasets are refused with
# exit 2 unless --force; --json parses and says "regression"; --plot writes a PNG. A
# ceiling that drops from 23 accelerators fed to 20 and a checkpoint burst that grows are
# regressions; a checkpoint of the same size is compared even when the training read
# another dataset; a failed or interrupted run fails --baseline; --html writes a page.
# Buggy: exit 0 on a regression, a lower bandwidth called better, a comparison of
# different datasets accepted silently, JSON that jq cannot read, an empty table for a
# ceiling or checkpoint run, a failed run that passes the check.
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
	'.schema == "gpufeed.compare/2" and .verdict == "regression" and (.runs|length) == 2 and ([.regressions[].figure] | index("train.au_percent.mean") != null) and ([.figures[] | select(.key == "train.read_latency_us.p99") | .better] == ["lower"]) and (.runs[0].verdict | length) > 0'

# Each run's verdict beside its validity qualifiers, as its summary.json has them; the
# figures a qualifier touches carry "~", and the legend says what it means.
q_base=$(jq -r .verdict.qualifiers "$base/summary.json") q_slow=$(jq -r .verdict.qualifiers "$slow/summary.json")
[ "$(jq -r '[.runs[] | .verdict + " " + .qualifiers] | join("|")' "$TMP/j")" = \
	"$(jq -r '.verdict.word + " " + .verdict.qualifiers' "$base/summary.json")|$(jq -r '.verdict.word + " " + .verdict.qualifiers' "$slow/summary.json")" ] &&
	ok "--json: each run's verdict and qualifiers as its summary.json ($q_base; $q_slow)" || bad "--json runs: $(jq -c .runs "$TMP/j")"
if [ "${q_base#*page_cache}" != "$q_base" ]; then
	grep -q "validity: $q_base" "$TMP/reg" && grep -E -q "^AU mean .*~" "$TMP/reg" && grep -q "^~ = qualified" "$TMP/reg" &&
		ok "page-cache runs: the validity line, AU marked ~, the legend" || { bad "qualified figures not marked"; cat "$TMP/reg"; }
fi

"$GPUFEED" compare "$base" "$slow" "$TMP/copy" --plot "$TMP/cmp.png" >/dev/null 2>&1 && [ -s "$TMP/cmp.png" ] &&
	file "$TMP/cmp.png" | grep -q "PNG image data, 1600 x 900" && ok "--plot writes a 1600x900 PNG" || bad "--plot"

# The ceiling: 1.09 GB/s feeding 23 against 967 MB/s feeding 20 (the case of the issue).
gf 2 ceiling "$SMALL" --target "$TMP/data" --results "$TMP/ceil" --quiet --duration 1s --set train.epochs=100000 \
	--set dataset.num_files_train=80 \
	>"$TMP/out" 2>&1 || { bad "ceiling run failed"; cat "$TMP/out"; }
ceil=$(only_result "$TMP/ceil")
mkdir -p "$TMP/c1" "$TMP/c2"
jq '.ceiling.read_bytes_per_s = 1.09e9 | .ceiling.accelerators_fed = 23 | .ceiling.samples_per_s = 33000' \
	"$ceil/summary.json" >"$TMP/c1/summary.json"
jq '.ceiling.read_bytes_per_s = 0.967e9 | .ceiling.accelerators_fed = 20 | .ceiling.samples_per_s = 29300' \
	"$ceil/summary.json" >"$TMP/c2/summary.json"
"$GPUFEED" compare --baseline "$TMP/c1" "$TMP/c2" --tolerance 5% >"$TMP/cc" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "accelerators the ceiling feeds: 23 count -> 20 count" "$TMP/cc" && grep -q "ceiling read bandwidth: 1090" "$TMP/cc" &&
	ok "a ceiling drop from 23 fed to 20 is a regression (exit 3)" || { bad "ceiling drop: exit $rc"; cat "$TMP/cc"; }

# Checkpoints: the same size is compared even when the training read another dataset.
LLAMA=$SRCDIR/workloads/llama3_8b.yaml
gf 2 run "$LLAMA" --target "$TMP/ck" --results "$TMP/ckr" --quiet --set checkpoint.scale=1/4000 \
	--set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=2 \
	--set checkpoint.num_checkpoints_read=1 >"$TMP/out" 2>&1 || { bad "checkpoint run failed"; cat "$TMP/out"; }
ck=$(only_result "$TMP/ckr")
mkdir -p "$TMP/k1" "$TMP/k2" "$TMP/k3"
jq '.checkpoint.write_burst_s = 2.0 | .checkpoint.write_bytes_per_s = 1e9' "$ck/summary.json" >"$TMP/k1/summary.json"
jq '.checkpoint.write_burst_s = 2.5 | .checkpoint.write_bytes_per_s = 0.8e9 | .train = {au_percent: {mean: 90}} | .workload.dataset.num_files_train = 7' \
	"$ck/summary.json" >"$TMP/k2/summary.json"
"$GPUFEED" compare --baseline "$TMP/k1" "$TMP/k2" --tolerance 5% >"$TMP/kc" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "write burst (median): 2 s -> 2.5 s" "$TMP/kc" &&
	ok "a longer checkpoint burst is a regression (exit 3)" || { bad "checkpoint burst: exit $rc"; cat "$TMP/kc"; }
jq '.checkpoint.bytes = 12345' "$TMP/k2/summary.json" >"$TMP/k3/summary.json"
"$GPUFEED" compare "$TMP/k1" "$TMP/k3" >"$TMP/kd" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "checkpoint.bytes" "$TMP/kd" && ok "checkpoints of another size are refused (exit 2)" ||
	{ bad "other checkpoint size: exit $rc"; cat "$TMP/kd"; }

# A failed or interrupted run never passes the check, even with better figures.
mkdir -p "$TMP/failed"
jq '.status = "interrupted" | .error = "stopped by a signal"' "$base/summary.json" >"$TMP/failed/summary.json"
"$GPUFEED" compare --baseline "$base" "$TMP/failed" --tolerance 50% >"$TMP/fc" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "cannot pass a regression check" "$TMP/fc" && ok "an interrupted run fails --baseline (exit 3)" ||
	{ bad "interrupted run: exit $rc"; cat "$TMP/fc"; }
"$GPUFEED" compare "$base" "$TMP/failed" >/dev/null 2>&1 && ok "without a check an interrupted run is only shown" ||
	bad "table of an interrupted run"

# The plot draws absolute values per panel; --html writes a page with the table.
"$GPUFEED" compare --baseline "$TMP/c1" "$TMP/c2" --plot "$TMP/ceil.svg" --html "$TMP/cmp.html" >/dev/null 2>&1
# A long label is drawn on two lines (scripts/plot/compare.gp's wrap).
grep -q ">accelerators<" "$TMP/ceil.svg" && grep -q ">the ceiling feeds<" "$TMP/ceil.svg" && grep -q "baseline within 5%" "$TMP/ceil.svg" &&
	ok "--plot: panels with units and the tolerance band" || bad "--plot svg lacks panels or band"
grep -q 'data-key="ceiling.accelerators_fed" data-run="1" data-value="20"' "$TMP/cmp.html" &&
	grep -q 'data-word="REGRESSION"' "$TMP/cmp.html" && grep -q '<img alt="compare plot" [^>]*src="data:image/png;base64,' "$TMP/cmp.html" &&
	ok "--html: verdict, figures and plot" || bad "--html page"

# Bad input: exit 2 with a message that says what to do.
"$GPUFEED" compare "$base" >"$TMP/e1" 2>&1; [ $? -eq 2 ] && grep -q "at least two" "$TMP/e1" && ok "one run: exit 2" || bad "one run"
"$GPUFEED" compare "$base" "$TMP/nowhere" >"$TMP/e2" 2>&1; [ $? -eq 2 ] && grep -q "summary.json" "$TMP/e2" &&
	ok "not a results folder: exit 2" || bad "missing folder: $(cat "$TMP/e2")"
"$GPUFEED" compare "$base" "$slow" --tolerance=-5 >/dev/null 2>&1; [ $? -eq 2 ] && ok "negative tolerance: exit 2" || bad "negative tolerance"
"$GPUFEED" compare --help | grep -q -- "--baseline" && ok "compare --help" || bad "compare --help"
finish
