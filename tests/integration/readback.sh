#!/usr/bin/env bash
# Description: a results folder read back is input (issue 28 items 4, 7, 10, 16): report,
# table and compare on hostile copies of one small run.
# Expected: no terminal escape from summary.json or a folder's name reaches the output
# (item 10); a folder named "<cmd" or "|cmd" reaches gnuplot as a file name, never as a
# command (item 7); a link in a results folder is refused, nothing outside is written or
# deleted (item 4); a timeline of millions of tiny intervals and a huge ranks.csv are
# plotted from a bounded number of points, and an oversized file is an error naming it
# (item 16).
# Buggy: ESC or CSI bytes in report/table/compare output; a pwned file made by gnuplot;
# an outside file overwritten or deleted through a link; a plot file of hundreds of MB.
# About 10 s (one 1-rank run of 2 s, then report, table and compare on copies).
. "$(dirname "$0")/lib.sh"

cd "$TMP" || exit 1
gf 1 run "$SMALL" --target "$TMP/data" --results "$TMP/r" --quiet --label base --set train.epochs=2 \
	--set train.computation_time=2ms >"$TMP/out" 2>&1 || { bad "run failed"; cat "$TMP/out"; }
base=$TMP/r/base
[ -s "$base/summary.json" ] || { bad "no results folder"; finish; }
have_gnuplot=$(command -v gnuplot >/dev/null 2>&1 && echo 1)

# copy NAME: a fresh copy of the run, without what report writes.
copy() {
	rm -rf "$TMP/$1"
	cp -r "$base" "$TMP/$1"
	rm -rf "$TMP/$1/plots" "$TMP/$1/report.txt" "$TMP/$1/report.html"
}

# --- item 10: terminal escapes ---
esc=$'\e]0;pwned\a\e[31m\xc2\x9b2J'
copy "e$esc"
jq --arg s "x${esc}y" '.label = $s | .workload_name = $s | .workload.source = $s' "$base/summary.json" \
	>"$TMP/e$esc/summary.json"
"$GPUFEED" report "e$esc" >"$TMP/e.out" 2>&1
"$GPUFEED" table "e$esc" "$base" >>"$TMP/e.out" 2>&1
"$GPUFEED" compare "$base" "e$esc" --force >>"$TMP/e.out" 2>&1
"$GPUFEED" compare "e$esc" "$base" --force >>"$TMP/e.out" 2>&1
if LC_ALL=C grep -q $'\e\|\xc2\x9b\|\a' "$TMP/e.out"; then
	bad "a terminal escape from summary.json or a folder name was printed:"
	LC_ALL=C grep -n $'\e\|\xc2\x9b\|\a' "$TMP/e.out" | cat -v | head -5
else
	ok "report, table and compare print no control sequence from the folder"
fi
grep -q "x ]0;pwned  \[31m  2Jy" "$TMP/e.out" && ok "the text around an escape is kept, each control byte a space" || bad "the label is not printed as text"

# --- item 7: names gnuplot would run ---
if [ -n "$have_gnuplot" ]; then
	for name in '<touch pwned_lt;' '|touch pwned_pipe;'; do
		copy "$name"
		"$GPUFEED" report "$name" --quiet >"$TMP/g.out" 2>&1 || { bad "report '$name' failed"; cat "$TMP/g.out"; }
		[ -s "$name/plots/timeline.png" ] && ok "report '$name' drew its plots" || bad "no timeline for '$name'"
	done
	"$GPUFEED" compare "$base" "$base" --plot '|touch pwned_cmp;c.png' >/dev/null 2>&1
	[ -s '|touch pwned_cmp;c.png' ] && ok "compare --plot '|cmd;c.png' writes that file" || bad "compare --plot to a '|' name"
	found=$(find "$TMP" / -maxdepth 2 -name 'pwned*' 2>/dev/null)
	[ -z "$found" ] && ok "no folder or file name ran as a command in gnuplot" || bad "gnuplot ran a name: $found"
fi

# --- item 4: links in a results folder ---
mkdir -p "$TMP/outside"
printf keep >"$TMP/outside/victim"
printf keep >"$TMP/outside/NOTE.txt"
printf keep >"$TMP/outside/gnuplot.log"
# A link as report.txt, report.html, a plot's CSV file or plots itself: refused, exit 2,
# nothing outside written or deleted.
for planted in report.txt report.html plots/timeline.csv plots; do
	copy lnk
	if [ "$planted" = plots ]; then
		ln -s "$TMP/outside" lnk/plots
	else
		mkdir -p lnk/plots
		ln -s "$TMP/outside/victim" "lnk/$planted"
	fi
	"$GPUFEED" report lnk --quiet >"$TMP/l.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "lnk/$planted is a link" "$TMP/l.out" && ok "report refuses a link as $planted (exit 2)" ||
		{ bad "report with a link as $planted: exit $rc"; cat "$TMP/l.out"; }
done
[ "$(cat "$TMP/outside/victim")" = keep ] && [ -f "$TMP/outside/NOTE.txt" ] && [ -f "$TMP/outside/gnuplot.log" ] &&
	[ "$(ls "$TMP/outside" | wc -l)" -eq 3 ] && ok "nothing outside the folder was written or deleted" ||
	{ bad "the outside folder changed"; ls -l "$TMP/outside"; }
# A hard link as report.txt: that name made anew, the outside file keeps its bytes.
copy hard
ln "$TMP/outside/victim" hard/report.txt
"$GPUFEED" report hard --quiet >"$TMP/l.out" 2>&1 && grep -q "gpufeed report: hard" hard/report.txt &&
	[ "$(cat "$TMP/outside/victim")" = keep ] && ok "a hard link as report.txt is replaced, never written through" ||
	{ bad "a hard link as report.txt"; cat "$TMP/l.out"; }
# summary.json a link: table and compare refuse to read through it.
copy sl
ln -sf "$base/summary.json" sl/summary.json
for cmd in "table sl" "compare sl $base" "report sl"; do
	# shellcheck disable=SC2086
	"$GPUFEED" $cmd >"$TMP/l.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "sl/summary.json is a link" "$TMP/l.out" && ok "$cmd: a linked summary.json is refused" ||
		{ bad "$cmd with a linked summary.json: exit $rc"; cat "$TMP/l.out"; }
done

# --- item 16: bounded read-back ---
if [ -n "$have_gnuplot" ]; then
	# Three rows whose times span 1 s at 2 us steps: half a million intervals of a 2 s run.
	copy tiny
	{ head -1 "$base/timeseries.csv"
	  for t in 0.000000 0.000002 1.0; do echo "0,$t,100,0,1,1,0.001,0,1,1,0,0.001,x"; done; } >tiny/timeseries.csv
	jq '.train.elapsed_s = 2' "$base/summary.json" >tiny/summary.json
	timeout 60 "$GPUFEED" report tiny --quiet >"$TMP/b.out" 2>&1 || { bad "report of half a million intervals failed or hung"; cat "$TMP/b.out"; }
	rows=$(wc -l <tiny/plots/timeline.csv 2>/dev/null || echo 0)
	[ "$rows" -gt 100 ] && [ "$rows" -le 4001 ] && ok "half a million intervals are drawn as $((rows - 1)) wider ones" ||
		bad "timeline.csv has $rows lines (expected 100 to 4001)"
	python3 - tiny/plots/timeline.csv <<'PY' && ok "the wider intervals keep the bytes read" || bad "bytes lost in the wider intervals"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
total = sum(float(r["read_bytes_per_s"]) * float(r["width_s"]) for r in rows)
assert abs(total - 300) < 1e-6 * 300 + 1e-9, total
PY
	# 50,000 accelerators: drawn from at most 4,000 of them, the lowest and highest kept.
	copy many
	python3 - many/ranks.csv <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("rank,au_percent\n")
    for r in range(50000):
        f.write("%d,%.3f\n" % (r, 10 + (r * 7919 % 50000) / 625))
PY
	timeout 60 "$GPUFEED" report many --quiet >"$TMP/b.out" 2>&1 || { bad "report of 50,000 accelerators failed"; cat "$TMP/b.out"; }
	rows=$(wc -l <many/plots/accelerators.csv 2>/dev/null || echo 0)
	[ "$rows" -gt 1000 ] && [ "$rows" -le 4001 ] && head -2 many/plots/accelerators.csv | grep -q "^0,10$" &&
		tail -1 many/plots/accelerators.csv | grep -q ",89.998$" &&
		ok "50,000 accelerators drawn as $((rows - 1)) quantiles, lowest and highest kept" ||
		{ bad "accelerators.csv: $rows lines"; head -3 many/plots/accelerators.csv; }
	grep -q "50000 in all" many/plots/accelerators.svg && ok "the plot says how many accelerators there are" ||
		bad "the accelerators plot does not count them all"
	# Past the rows a plot reads: a note naming the file, the report done.
	copy rows
	{ echo rank,au_percent; yes 0,50 | head -n 4200000; } >rows/ranks.csv
	timeout 60 "$GPUFEED" report rows --quiet >"$TMP/b.out" 2>&1 || { bad "report of 4.2 million rows failed"; cat "$TMP/b.out"; }
	grep -q "accelerators: not drawn: ranks.csv has more than 4194304 rows" rows/plots/NOTE.txt 2>/dev/null &&
		ok "a ranks.csv of 4.2 million rows is a note that names it" || { bad "no note on 4.2 million rows"; cat rows/plots/NOTE.txt; }
fi
# Past the bytes a run writes: an error naming the file, exit 2, for every reader.
copy big
truncate -s 65M big/summary.json
for cmd in "report big" "table big" "compare big $base"; do
	# shellcheck disable=SC2086
	"$GPUFEED" $cmd >"$TMP/b.out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "big/summary.json holds 68157440 bytes, more than the 67108864" "$TMP/b.out" &&
		ok "$cmd: a summary.json of 65 MiB is refused, naming it (exit 2)" || { bad "$cmd on 65 MiB: exit $rc"; cat "$TMP/b.out"; }
done

finish
