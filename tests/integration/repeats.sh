#!/usr/bin/env bash
# Description: every run carries its own noise, and gpufeed compare judges a change against
# it (issue 24): two like runs back to back pass the default 5% check, a clearly slower run
# fails it, and the output says for each figure whether it was judged and why not.
# Expected: summary.json's noise list has an entry for each compared training figure, a
# band that holds the figure (rates from their intervals, percentiles from the histogram's
# order statistics) or "none" for a tail without the counts; like runs exit 0; a run
# slowed by 25 ms of preprocessing per sample exits 3 with AU judged against the noise; the
# text output has one judging line per figure shown; a tail percentile of a short run is
# not judged.
# Buggy: like runs that exit 3 (compare crying wolf), a slower run that passes, a band that
# does not hold its own figure, a figure shown without saying how it was judged.
. "$(dirname "$0")/lib.sh"

# 10 ms steps, 30 epochs: ~5 s, enough 1-s intervals for a rate's band.
common=(--target "$TMP/data" --quiet --set train.epochs=30 --set train.computation_time=10ms)
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/a" >"$TMP/out" 2>&1 || { bad "run A failed"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/b" >"$TMP/out" 2>&1 || { bad "run B failed"; cat "$TMP/out"; }
gf 2 run "$SMALL" "${common[@]}" --results "$TMP/s" --set train.epochs=4 --set reader.preprocess_time=25ms \
	>"$TMP/out" 2>&1 || { bad "slow run failed"; cat "$TMP/out"; }
a=$(only_result "$TMP/a")
b=$(only_result "$TMP/b")
s=$(only_result "$TMP/s")

expect "every compared training figure has a noise entry" "$a/summary.json" \
	'[.noise[].figure] | contains(["/train/samples_per_s", "/train/read_bytes_per_s", "/train/au_percent/mean",
	 "/train/au_percent/min", "/train/read_latency_us/p50", "/train/read_latency_us/p99", "/train/read_latency_us/p999"])'
expect "each band holds its own figure" "$a/summary.json" \
	'. as $r | [.noise[] | select(.judge == "noise") | . as $n | ($r | getpath($n.figure | ltrimstr("/") | split("/"))) as $v
	 | $n.low <= $v and $v <= $n.high and ($n.how | length) > 0] | length >= 4 and all'
expect "a tail percentile without the counts is not judged" "$s/summary.json" \
	'[.noise[] | select(.figure == "/train/read_latency_us/p999")][0] | .judge == "none" and (.low == null) and (.how | test("fewer than 10"))'

"$GPUFEED" compare --baseline "$a" "$b" >"$TMP/like" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "like runs: exit 0" || { bad "like runs: exit $rc"; cat "$TMP/like"; }
shown=$(sed -n '/^figure/,/^$/p' "$TMP/like" | grep -vc '^figure\|^$')
said=$(sed -n '/^how each figure was judged/,$p' "$TMP/like" | grep -c '^  B ')
[ "$shown" -gt 0 ] && [ "$shown" -eq "$said" ] && ok "each of the $shown figures says how it was judged" ||
	{ bad "$shown figures shown, $said judged"; cat "$TMP/like"; }

"$GPUFEED" compare --baseline "$a" "$s" >"$TMP/slow" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q "^  B AU mean: regression: A .*\.\..* (half the interquartile range" "$TMP/slow" &&
	ok "slower run: exit 3, AU judged against the noise" || { bad "slower run: exit $rc"; cat "$TMP/slow"; }
"$GPUFEED" compare --baseline "$a" "$s" --json >"$TMP/slow.json" 2>/dev/null
expect "--json says per figure how it was judged" "$TMP/slow.json" \
	'[.figures[] | select(.key == "train.au_percent.mean") | .judging][0] | .[0].basis == "noise" and .[1].judged == "regression" and (.[1].why | length) > 0'
expect "--json: a tail without counts is not gated" "$TMP/slow.json" \
	'[.figures[] | select(.key == "train.read_latency_us.p999") | .judging[1].basis][0] == "none" and
	 ([.regressions[].figure] | index("train.read_latency_us.p999") == null)'
finish
