#!/usr/bin/env bash
# Description: every run writes report.txt and report.html, and gpufeed report renders them
# again without MPI: the verdict, key figures with units, hints and validity warnings, and
# an HTML page with every plot inline.
# Expected: report.txt starts with the verdict that the run printed, names AU, bandwidth and
# latency with units and warns about a dataset smaller than 5x memory; the verdict of a
# FED run on a dataset the page cache holds says so ("FED, but from the page cache");
# report.html holds the verdict and each plot inline, the PNG the render drew as a data:
# URI (the timeline's is plots/timeline.png byte for byte), and refers to no other file;
# a folder that is not a run is refused with exit 2.
# Buggy: a report that disagrees with the run's verdict, a green FED on page-cache reads,
# images linked instead of inlined.
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
# 5 ms steps are fed from memory on a quiet machine; a loaded one (CI under the sanitizers)
# can starve them even so, and the line must then still say where the reads came from.
if [ "$(jq -r .verdict.word "$dir/summary.json")" = FED ]; then
	expect "summary.json's verdict: FED from the page cache, amber" "$dir/summary.json" \
		'.verdict.validity.page_cache == true and (.verdict.line | startswith("FED, but from the page cache: not a storage result")) and .verdict.tone == "warn"'
	grep -q '<section class="card warn" id="verdict" data-word="FED">' "$dir/report.html" && ok "report.html's card is amber" ||
		bad "report.html's verdict card is not amber"
else
	echo "note: not fed on this machine now: $verdict"
	expect "summary.json's verdict: not fed, and from the page cache" "$dir/summary.json" \
		'.verdict.validity.page_cache == true and (.verdict.line | contains("; from the page cache, not a storage result"))'
	grep -q "<section class=\"card [a-z]*\" id=\"verdict\" data-word=\"$(jq -r .verdict.word "$dir/summary.json")\">" "$dir/report.html" &&
		ok "report.html's card has the verdict's word" || bad "report.html's verdict card has another word"
fi
grep -q "BOTTLENECK HINTS" "$dir/report.txt" && grep -q "O_DIRECT is off" "$dir/report.txt" && ok "hints and warnings" ||
	bad "hints or warnings missing"
! grep -q "\.partial" "$dir/report.txt" && ok "the report names the final folder" || bad "report names the .partial folder"

rm -f "$dir/report.txt" "$dir/report.html"
"$GPUFEED" report "$dir" >"$TMP/rep" 2>&1 && ok "gpufeed report exits 0 without mpirun" || { bad "report failed"; cat "$TMP/rep"; }
grep -qF "VERDICT: $verdict" "$TMP/rep" && ok "gpufeed report prints the page" || bad "report printed no verdict"
n=$(grep -o '<img alt="[a-z]* plot" width="1600" height="900" src="data:image/png;base64,' "$dir/report.html" | wc -l)
[ "$n" -eq 3 ] && ok "report.html holds 3 plots as PNGs (data: URIs)" || bad "report.html holds $n plots"
# The card shows the verdict's head large and the rest of its line under it.
grep -qF "<div class=\"word\">${verdict%% - *}</div>" "$dir/report.html" && grep -qF "${verdict#* - }" "$dir/report.html" &&
	ok "report.html has the verdict" || bad "no verdict in html"
! grep -Eo "(src|href)=[\"'][^\"']{0,24}" "$dir/report.html" | grep -Ev "=.(#|data:image/png;base64,)" &&
	ok "report.html refers to no other file" || bad "external reference"
! grep -qi "<script" "$dir/report.html" && ok "report.html holds no script" || bad "a script in report.html"
# The timeline shown is plots/timeline.png, byte for byte.
sed -n 's/.*<img alt="timeline plot" [^>]*src="data:image\/png;base64,\([^"]*\)".*/\1/p' "$dir/report.html" |
	base64 -d 2>/dev/null | cmp -s - "$dir/plots/timeline.png" && ok "the timeline shown is plots/timeline.png" ||
	bad "no timeline, or not plots/timeline.png"

"$GPUFEED" report "$TMP" >"$TMP/e" 2>&1; [ $? -eq 2 ] && grep -q "summary.json" "$TMP/e" && ok "not a run: exit 2" ||
	bad "not a run: $(cat "$TMP/e")"
"$GPUFEED" report >/dev/null 2>&1; [ $? -eq 2 ] && ok "no folder: exit 2" || bad "no folder"
"$GPUFEED" report --help | grep -q "report.html" && ok "report --help" || bad "report --help"
"$GPUFEED" --help | grep -q "compare" && ok "gpufeed --help lists report and compare" || bad "--help"
finish
