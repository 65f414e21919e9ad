#!/usr/bin/env bash
# Description: every run writes report.txt and report.html, and gpufeed report renders them
# again without MPI: the verdict, key figures with units, hints and validity warnings, and
# an HTML page with every plot embedded.
# Expected: report.txt starts with the verdict that the run printed, names AU, bandwidth and
# latency with units and warns about a dataset smaller than 5x memory; report.html holds
# the verdict and one base64 PNG per plot and refers to no other file; a folder that is not
# a run is refused with exit 2.
# Buggy: a report that disagrees with the run's verdict, images linked instead of embedded.
. "$(dirname "$0")/lib.sh"

gf 2 run "$SMALL" --target "$TMP/data" --results "$TMP/r" --quiet --set train.epochs=6 \
	--set train.computation_time=5ms >"$TMP/out" 2>&1 || { bad "run failed"; cat "$TMP/out"; }
dir=$(only_result "$TMP/r")
verdict=$(grep '^verdict:' "$TMP/out" | sed 's/^verdict: //')
for f in report.txt report.html; do
	[ -s "$dir/$f" ] && ok "the run wrote $f" || bad "no $f"
done
grep -qF "VERDICT: $verdict" "$dir/report.txt" && ok "report.txt has the run's verdict" ||
	{ bad "verdict differs: '$verdict'"; head -5 "$dir/report.txt"; }
grep -q "^  AU .* %" "$dir/report.txt" && grep -q "read bandwidth .*B/s" "$dir/report.txt" &&
	grep -q "read latency .*p99" "$dir/report.txt" && ok "key figures with units" || bad "key figures"
grep -q "smaller than 5x the memory" "$dir/report.txt" && ok "warns about the page cache" || bad "no page-cache warning"
grep -q "BOTTLENECK HINTS" "$dir/report.txt" && grep -q "O_DIRECT is off" "$dir/report.txt" && ok "hints and warnings" ||
	bad "hints or warnings missing"
! grep -q "\.partial" "$dir/report.txt" && ok "the report names the final folder" || bad "report names the .partial folder"

rm -f "$dir/report.txt" "$dir/report.html"
"$GPUFEED" report "$dir" >"$TMP/rep" 2>&1 && ok "gpufeed report exits 0 without mpirun" || { bad "report failed"; cat "$TMP/rep"; }
grep -qF "VERDICT: $verdict" "$TMP/rep" && ok "gpufeed report prints the page" || bad "report printed no verdict"
n=$(grep -o 'src="data:image/png;base64,' "$dir/report.html" | wc -l)
[ "$n" -eq 3 ] && ok "report.html embeds 3 plots" || bad "report.html embeds $n plots"
grep -qF "$verdict" "$dir/report.html" && ok "report.html has the verdict" || bad "no verdict in html"
! grep -Eq '(src|href)="[^d#]' "$dir/report.html" && ok "report.html refers to no other file" || bad "external reference"
# The embedded image decodes to the plot itself.
sed -n 's/.*<img alt="timeline" src="data:image\/png;base64,\([^"]*\)".*/\1/p' "$dir/report.html" | base64 -d >"$TMP/t.png" &&
	cmp -s "$TMP/t.png" "$dir/plots/timeline.png" && ok "the embedded timeline is plots/timeline.png" || bad "embedded image differs"

"$GPUFEED" report "$TMP" >"$TMP/e" 2>&1; [ $? -eq 2 ] && grep -q "summary.json" "$TMP/e" && ok "not a run: exit 2" ||
	bad "not a run: $(cat "$TMP/e")"
"$GPUFEED" report >/dev/null 2>&1; [ $? -eq 2 ] && ok "no folder: exit 2" || bad "no folder"
"$GPUFEED" report --help | grep -q "report.html" && ok "report --help" || bad "report --help"
"$GPUFEED" --help | grep -q "compare" && ok "gpufeed --help lists report and compare" || bad "--help"
finish
