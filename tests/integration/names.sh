#!/usr/bin/env bash
# Description: paths and names travel to gnuplot and into report.html as data. A run
# whose results folder, workload file and target hold single and double quotes, gnuplot
# command syntax, backticks and HTML markup is plotted and reported like any other.
# Expected: every plot is drawn, gnuplot prints nothing, none of the commands hidden in
# the names runs (no "pwned" file appears), report.html shows the names escaped, and a
# compare --plot / --html to such a path works.
# Buggy: a path pasted into gnuplot code (eval, string-built commands) that runs
# system() or breaks the plot; markup from a name interpreted by the browser.
. "$(dirname "$0")/lib.sh"

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "gnuplot is not installed"; exit 77
fi
cd "$TMP" || exit 1
# gnuplot would run these if a name reached it as code: system(), a backtick, or a
# command after a closing quote.
evil="q'; system(\"touch pwned1\"); print '\`touch pwned2\`\"; system('touch pwned3'); \"<img src=x onerror=alert(1)>"
mkdir -p "$TMP/w"
cp "$SMALL" "$TMP/w/small$evil.yaml"
wl=$(ls "$TMP"/w/*.yaml)
gf 2 run "$wl" --target "$TMP/data$evil" --results "$TMP/res$evil" --quiet --set train.epochs=4 \
	--set train.computation_time=2ms >"$TMP/out" 2>&1 || { bad "run failed"; cat "$TMP/out"; }
dir=$(find "$TMP" -mindepth 2 -maxdepth 2 -type d -path "$TMP/res*/*" ! -name '*.partial' | head -1)
[ -n "$dir" ] && [ -s "$dir/summary.json" ] && ok "the run wrote its results under the hostile folder" || bad "no results folder"
for p in timeline latency accelerators; do
	[ -s "$dir/plots/$p.png" ] && [ -s "$dir/plots/$p.svg" ] && ok "$p plotted" || bad "$p not plotted"
done
[ ! -e "$dir/plots/gnuplot.log" ] && ok "gnuplot printed nothing" || { bad "gnuplot printed:"; cat "$dir/plots/gnuplot.log"; }
"$GPUFEED" report "$dir" --quiet || bad "report on the hostile folder failed"
mkdir -p "$TMP/cmp$evil"
"$GPUFEED" compare "$dir" "$dir" --plot "$TMP/cmp$evil/c.png" --html "$TMP/cmp$evil/c.html" >/dev/null 2>&1 &&
	[ -s "$TMP/cmp$evil/c.png" ] && [ -s "$TMP/cmp$evil/c.html" ] && ok "compare --plot and --html to a hostile path" ||
	bad "compare to a hostile path"
found=$(find "$TMP" / -maxdepth 1 -name 'pwned*' 2>/dev/null)
[ -z "$found" ] && ok "no command hidden in a name ran" || bad "commands ran: $found"
# The title holds the target: gnuplot's SVG escapes it, the page escapes the rest (its
# plots are PNGs: <img alt="... plot" src="data:...">, no other <img>).
grep -q "&lt;img src=x onerror=alert(1)&gt;" "$dir/report.html" && ! grep -q "<img src" "$dir/report.html" &&
	ok "report.html shows the markup of a name as text" || bad "markup of a name in report.html"
grep -q "system(" "$dir/plots/timeline.svg" && ok "the timeline's title shows the target as it is" ||
	bad "the target is not in the timeline's title"
finish
