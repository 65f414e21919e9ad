#!/usr/bin/env bash
# Description: runs named with --label, gpufeed table (one CSV row per run) and
# --require-fed (exit 3 unless the verdict is FED from storage).
# Expected: --label nvme puts the run in DIR/nvme (then nvme-2, never overwritten),
# summary.json and the reports carry the label, and gpufeed compare DIR/nvme DIR/nvme-2
# works as README shows; gpufeed table prints a header and one row per run whose fields
# are summary.json's; --require-fed exits 3 on STARVED and on FED from the page cache,
# 0 on FED from storage; a --label that is not a folder name is exit 2.
# Buggy: a label ignored (a timestamped folder), a second run overwriting the first, a
# table row that disagrees with summary.json, --require-fed passing a page-cache FED.
. "$(dirname "$0")/lib.sh"

fast=(--target "$TMP/data" --results "$TMP/r" --quiet --set train.epochs=4 --set train.computation_time=10ms)
gf 2 run "$SMALL" "${fast[@]}" --label nvme >"$TMP/out" 2>&1 || { bad "labelled run failed"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${fast[@]}" --label nvme >"$TMP/out" 2>&1 || { bad "second labelled run failed"; cat "$TMP/out"; }
[ -s "$TMP/r/nvme/summary.json" ] && [ -s "$TMP/r/nvme-2/summary.json" ] && ok "--label nvme: folders nvme and nvme-2" ||
	{ bad "labelled folders"; ls "$TMP/r"; }
expect "the label is in summary.json" "$TMP/r/nvme/summary.json" '.label == "nvme"'
grep -q "nvme: small on" "$TMP/r/nvme/plots/timeline.svg" 2>/dev/null && ok "the plots are titled with the label" ||
	bad "no label in the plot title"
"$GPUFEED" compare "$TMP/r/nvme" "$TMP/r/nvme-2" >"$TMP/cmp" 2>&1 && grep -q "read bandwidth" "$TMP/cmp" &&
	ok "gpufeed compare results/nvme results/nvme-2" || { bad "compare of labelled runs"; cat "$TMP/cmp"; }
"$GPUFEED" compare "$TMP/r/nvme" "$TMP/r/nvme-2" --json | jq -e '.runs[0].name == "nvme"' >/dev/null &&
	ok "compare names the runs by their labels" || bad "compare does not use the label"

"$GPUFEED" table "$TMP/r/nvme" "$TMP/r/nvme-2" >"$TMP/t.csv" 2>"$TMP/terr" && ok "gpufeed table exits 0" || { bad "table failed"; cat "$TMP/terr"; }
[ "$(wc -l <"$TMP/t.csv")" -eq 3 ] && head -1 "$TMP/t.csv" | grep -q "^run,label,status" && ok "a header and one row per run" ||
	{ bad "table shape"; cat "$TMP/t.csv"; }
python3 - "$TMP/t.csv" "$TMP/r/nvme/summary.json" <<'PY' && ok "the row holds summary.json's figures" || bad "table row differs from summary.json"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
s = json.load(open(sys.argv[2]))
r = rows[0]
assert r["run"] == "nvme" and r["label"] == "nvme" and r["status"] == "complete"
assert r["verdict.word"] == s["verdict"]["word"] and r["verdict.tone"] == s["verdict"]["tone"]
# The validity qualifiers next to the verdict, as the run decided them.
assert r["verdict.qualifiers"] == s["verdict"]["qualifiers"] and "page_cache" in r["verdict.qualifiers"].split(",")
assert list(rows[0].keys()).index("verdict.qualifiers") == list(rows[0].keys()).index("verdict.word") + 1
assert math.isclose(float(r["train.read_bytes_per_s"]), s["train"]["read_bytes_per_s"], rel_tol=1e-9)
assert math.isclose(float(r["train.au_percent.mean"]), s["train"]["au_percent"]["mean"], rel_tol=1e-9)
assert r["ceiling.accelerators_fed"] == "" and r["checkpoint.write_burst_s"] == "" and r["sweep.accelerators_fed"] == ""
PY
"$GPUFEED" table "$TMP/r/nvme" --no-header | grep -q "^nvme,nvme,complete" && ok "--no-header" || bad "--no-header"
# Issue 28 item 9: text a spreadsheet would run as a formula (=, +, -, @ first) is led by
# a quote, as spreadsheet exporters do; the figures stay numbers.
cp -r "$TMP/r/nvme" "$TMP/evil"
jq '.workload_name = "=cmd|'"'"' /C calc'"'"'!A0" | .label = "@SUM(1+1)" | .command = "+HYPERLINK(\"http://x\")"' \
	"$TMP/r/nvme/summary.json" >"$TMP/evil/summary.json"
"$GPUFEED" table "$TMP/evil" >"$TMP/evil.csv" 2>"$TMP/terr" || { bad "table of a run with formulas"; cat "$TMP/terr"; }
python3 - "$TMP/evil.csv" <<'PY' && ok "table: formula-like text led by a quote, numbers as they are" || bad "table: a formula left as is"
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
assert r["workload_name"] == "'=cmd|' /C calc'!A0", r["workload_name"]
assert r["label"] == "'@SUM(1+1)" and r["command"] == "'+HYPERLINK(\"http://x\")", (r["label"], r["command"])
assert float(r["train.au_percent.mean"]) > 0 and not r["train.au_percent.mean"].startswith("'")
PY
"$GPUFEED" table "$TMP/nowhere" >"$TMP/t2" 2>&1; [ $? -eq 2 ] && [ ! -s "$TMP/t2" ] || grep -q summary.json "$TMP/t2" &&
	ok "table of a folder that is no run: exit 2" || bad "table of no run"

# --require-fed.
gf 2 run "$SMALL" "${fast[@]}" --set reader.preprocess_time=25ms --require-fed >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "require-fed: not FED: the verdict is STARVED" "$TMP/out" && ok "--require-fed on STARVED: exit 3" ||
	{ bad "--require-fed STARVED: exit $rc"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${fast[@]}" --set train.epochs=6 --set train.computation_time=40ms --require-fed >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "page cache" "$TMP/out" && ok "--require-fed on FED from the page cache: exit 3" ||
	{ bad "--require-fed page cache: exit $rc"; cat "$TMP/out"; }
if dd if=/dev/zero of="$TMP/probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
	gf 2 run "$SMALL" "${fast[@]}" --set train.epochs=8 --set target.direct=true --require-fed >"$TMP/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -q "^verdict: FED - " "$TMP/out" && ok "--require-fed on FED with O_DIRECT: exit 0" ||
		{ bad "--require-fed FED: exit $rc"; cat "$TMP/out"; }
else
	echo "note: $TMP allows no O_DIRECT: the passing case of --require-fed is not run"
fi
# results/* holds simulate sweeps beside the runs: a sweep is left out with a note, so
# README's `gpufeed table results/* > runs.csv` works as printed.
"$GPUFEED" simulate "$SRCDIR/workloads/unet3d_h100.yaml" --system "$SRCDIR/systems/example.yaml" --nodes 1..4 \
	--results "$TMP/r" >/dev/null 2>&1 || bad "simulate sweep failed"
"$GPUFEED" table "$TMP"/r/* >"$TMP/all.csv" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] && grep -q "left out .*simulate: a simulated sweep" "$TMP/err" && ! grep -q simulate "$TMP/all.csv" &&
	ok "table results/*: the simulated sweep left out with a note, exit 0" || { bad "table with a sweep: exit $rc"; cat "$TMP/err"; }
gf 1 run "$SMALL" "${fast[@]}" --label ../up >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--label '../up'" "$TMP/out" && ok "a --label with a slash: exit 2" || { bad "bad label: exit $rc"; cat "$TMP/out"; }
finish
