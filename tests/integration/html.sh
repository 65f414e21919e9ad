#!/usr/bin/env bash
# Description: report.html of each kind of run, and compare --html, rendered in headless
# Chromium: a training run that is FED and one that is STARVED, a storage ceiling, a
# checkpoint-only run (scaled), a sweep of one point, a run on S3 (s3rver), a comparison,
# a simulation (gpufeed report on its folder), and two folders with files planted in
# plots/: a run whose timeline is not drawn (no timeseries.csv) with a timeline.svg whose
# onerror and onbegin handlers mark the page and a timeline.png, and a simulation
# re-rendered without gnuplot with the same simulate.svg and .png. One Chromium loads every
# page at 800 and at 1280 px (tests/integration/html_probe.html) and reports what a reader
# would meet; then a page is screenshot at 1280 px.
# Expected: no page scrolls sideways at either width (scrollWidth <= innerWidth and no
# element past the right edge); the verdict card shows summary.json's verdict word in its
# tone (amber for FED from the page cache); every key figure in the DOM carries the exact
# value of its summary.json pointer, and each kind's key figures are there (AU,
# bandwidth, p99; accelerators fed; burst times and the extrapolated full size; S3
# requests/s; the compared figures); each page shows the plots its render drew, inline,
# none wider than its figure, and scaled so that their text is at least 11 px on screen
# (a PNG: its width and font from scripts/plot/term.gp, 4/3 px a point, and no script
# sets a smaller font; an inline SVG: its smallest font); no planted file is in a page
# and no handler ran; a screenshot.
# Buggy: a <pre> that scrolls at 1280 px, a figure missing or rounded into another
# number, a green card on page-cache reads, a plot linked instead of inlined, plot text
# of 7 px at 800 px, a file in plots/ that this render did not draw shown (and run).
# GF_SCREENSHOTS=DIR keeps screenshots of every page (800 and 1280 px) in DIR for a look.
. "$(dirname "$0")/lib.sh"

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	echo "SKIP: chromium is not installed (scripts/install-deps.sh --test installs it)"; exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: gnuplot is not installed"; exit 77
fi
builddir=$(dirname "$GPUFEED")
curl=$(grep -c '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null || true)
srv=$TMP/s3rver
cleanup() {
	[ -f "$srv/pid" ] && "$SRCDIR/scripts/s3rver-stop.sh" "$srv"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
pages=$TMP/pages
mkdir -p "$pages"
# page NAME RESULTS: copy a run's report.html and summary.json into the pages folder.
page() {
	local dir
	dir=$(only_result "$2")
	cp "$dir/report.html" "$pages/$1.html" && cp "$dir/summary.json" "$pages/$1.json" || bad "$1: no report.html"
}

# Training, FED: 20 ms steps (3.3 MB/s per accelerator, which a disk busy with the other
# tests' fsyncs still feeds) and enough of them (128 per accelerator) to count AU well.
# O_DIRECT where the folder allows it, so that the verdict is a storage result; on a
# folder without it the card must turn amber instead.
direct=false
dd if=/dev/zero of="$TMP/probe" bs=4096 count=1 oflag=direct 2>/dev/null && direct=true
gf 2 run "$SMALL" --target "$TMP/data" --results "$TMP/fed" --quiet --set train.epochs=8 \
	--set train.computation_time=20ms --set target.direct=$direct >"$TMP/out" 2>&1 || { bad "FED run failed"; cat "$TMP/out"; }
page fed "$TMP/fed"
jq -r '"fed run: AU \(.train.au_percent.mean)%, \(.train.read_bytes_per_s) B/s, p99 \(.train.read_latency_us.p99) us"' "$pages/fed.json"
# STARVED: 60 ms of preprocessing per sample (a batch of 2 every 60 ms from 2 readers)
# cannot feed 20 ms steps (the same steps as FED's, so that compare compares them).
gf 2 run "$SMALL" --target "$TMP/data" --results "$TMP/starved" --quiet --set train.epochs=2 \
	--set train.computation_time=20ms --set reader.preprocess_time=60ms >"$TMP/out" 2>&1 || { bad "STARVED run failed"; cat "$TMP/out"; }
page starved "$TMP/starved"
gf 2 ceiling "$SMALL" --target "$TMP/data" --results "$TMP/ceiling" --quiet --duration 1s \
	--set train.epochs=100000 >"$TMP/out" 2>&1 || { bad "ceiling failed"; cat "$TMP/out"; }
page ceiling "$TMP/ceiling"
gf 2 run "$SRCDIR/workloads/llama3_8b.yaml" --target "$TMP/ck" --results "$TMP/checkpoint" --quiet \
	--set checkpoint.scale=1/4000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0 \
	--set checkpoint.num_checkpoints_write=3 --set checkpoint.num_checkpoints_read=2 >"$TMP/out" 2>&1 ||
	{ bad "checkpoint run failed"; cat "$TMP/out"; }
page checkpoint "$TMP/checkpoint"
# A ceiling and one point: the sweep's plot on its page.
gf 2 sweep "$SMALL" --target "$TMP/data" --results "$TMP/sweep" --quiet --max-points 1 \
	--point-seconds 5 --set train.computation_time=20ms >"$TMP/out" 2>&1 || { bad "sweep failed"; cat "$TMP/out"; }
page sweep "$TMP/sweep"
"$GPUFEED" simulate "$SRCDIR/workloads/llama3_8b.yaml" --system "$SRCDIR/systems/example.yaml" --nodes 8..64 \
	--results "$TMP/simulate" --quiet >"$TMP/out" 2>&1 && "$GPUFEED" report "$(only_result "$TMP/simulate")" --quiet \
	>>"$TMP/out" 2>&1 || { bad "simulate failed"; cat "$TMP/out"; }
page simulate "$TMP/simulate"
# Planted in plots/ under the name of a plot this render does not draw: an SVG whose
# handlers mark the page if it is inlined, and a PNG (a copy of another plot).
cat >"$TMP/planted.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="900"><text x="9" y="30">PLANTED</text>
<image href="nonexistent.png" onerror="document.documentElement.setAttribute('data-pwned', 'onerror')"/>
<rect width="9" height="9"><animate attributeName="x" from="0" to="9" dur="1s"
 onbegin="document.documentElement.setAttribute('data-pwned', 'onbegin')"/></rect></svg>
SVG
# planted NAME RESULTS PLOT: the run of RESULTS copied to $TMP/NAME/, PLOT planted; its folder.
planted() {
	local dir
	mkdir -p "$TMP/$1"
	cp -r "$(only_result "$2")" "$TMP/$1/"
	dir=$(only_result "$TMP/$1")
	cp "$TMP/planted.svg" "$dir/plots/$3.svg"
	cp "$(ls "$dir"/plots/*.png | grep -v "/$3.png" | head -1)" "$dir/plots/$3.png" 2>/dev/null ||
		cp "$dir/plots/$3.svg" "$dir/plots/$3.png"
	echo "$dir"
}
dir=$(planted planted "$TMP/fed" timeline)
rm -f "$dir/timeseries.csv"
"$GPUFEED" report "$dir" --quiet >"$TMP/out" 2>&1 || { bad "report of the planted run failed"; cat "$TMP/out"; }
page planted "$TMP/planted"
dir=$(planted simplanted "$TMP/simulate" simulate)
mkdir -p "$TMP/nognuplot"
PATH=$TMP/nognuplot "$GPUFEED" report "$dir" --quiet >"$TMP/out" 2>&1 ||
	{ bad "report of the planted simulation failed"; cat "$TMP/out"; }
page simplanted "$TMP/simplanted"
for n in planted simplanted; do
	! grep -q PLANTED "$pages/$n.html" && ok "$n: the planted SVG is not in the page" ||
		bad "$n: the page holds the planted SVG"
done
names="fed starved ceiling checkpoint sweep simulate planted simplanted"
if [ "$curl" = 1 ]; then
	if ! command -v node >/dev/null || [ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
		bad "node or tests/node_modules/@20minutes/s3rver missing: run scripts/install-deps.sh --test"
	elif endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test); then
		AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1 \
			gf 2 run "$SMALL" --target s3://gf-test/gf --results "$TMP/s3" --quiet --set train.epochs=4 \
			--set train.computation_time=5ms >"$TMP/out" 2>&1 || { bad "S3 run failed"; cat "$TMP/out"; }
		page s3 "$TMP/s3"
		names="$names s3"
	else
		bad "s3rver did not start"
	fi
else
	echo "note: built without libcurl: no S3 page"
fi
"$GPUFEED" compare --baseline "$(only_result "$TMP/fed")" "$(only_result "$TMP/starved")" --html "$pages/compare.html" \
	>"$TMP/out" 2>&1
# Its exit status says regression (1); the page must be there all the same.
[ -s "$pages/compare.html" ] || { bad "compare --html wrote no page"; cat "$TMP/out"; }
"$GPUFEED" compare --baseline "$(only_result "$TMP/fed")" "$(only_result "$TMP/starved")" --json >"$pages/compare.json" 2>/dev/null
names="$names compare"

# One Chromium for every page at both widths.
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
	--disable-sync --no-first-run --hide-scrollbars)
cp "$SRCDIR/tests/integration/html_probe.html" "$pages/probe.html"
printf 'var pages = [%s];\n' "$(for n in $names; do printf '"%s.html",' "$n"; done | sed 's/,$//')" >"$pages/pages.js"
# Under load the dump can come before every iframe has loaded (the result still reads
# "pending"): a fresh Chromium tries again, up to 3 times.
t0=$(date +%s.%N)
want=$(($(echo "$names" | wc -w) * 2))
for try in 1 2 3; do
	rm -rf "$TMP/chrome-probe"
	timeout 300 "$chrome" "${flags[@]}" --user-data-dir="$TMP/chrome-probe" --allow-file-access-from-files \
		--window-size=1400,1000 --virtual-time-budget=20000 --dump-dom "file://$pages/probe.html" 2>/dev/null |
		sed -n 's/.*<pre id="result">\(.*\)<\/pre>.*/\1/p' |
		python3 -c 'import html, sys; sys.stdout.write(html.unescape(sys.stdin.read()))' >"$TMP/probe.json"
	jq -e --argjson n "$want" 'length == $n' "$TMP/probe.json" >/dev/null 2>&1 && break
	echo "note: probe try $try: $(head -c 80 "$TMP/probe.json")"
done
echo "chromium measured $(echo "$names" | wc -w) pages at 2 widths in $(echo "$(date +%s.%N) - $t0" | bc) s"
jq -e 'length > 0' "$TMP/probe.json" >/dev/null 2>&1 && ok "the probe ran in Chromium" || { bad "no probe result"; head -c 500 "$TMP/probe.json"; }

python3 - "$TMP/probe.json" "$pages" "$direct" "$SRCDIR/scripts/plot" >"$TMP/checks" <<'EOF'
import glob, json, math, os, re, sys

probe = json.load(open(sys.argv[1]))
pages, direct = sys.argv[2], sys.argv[3] == "true"
# The PNG's canvas and font, as term.gp sets them; pngcairo draws a point as 4/3 px.
term = open(os.path.join(sys.argv[4], "term.gp")).read()
m = re.search(r"pngcairo size (\d+),\d+ .*font '[^,']*,(\d+)'", term)
png_w, png_pt = int(m.group(1)), int(m.group(2))
small = ["%s: %s" % (os.path.basename(f), n) for f in sorted(glob.glob(os.path.join(sys.argv[4], "*.gp")))
         for n in re.findall(r'font\s+"[^",]*,(\d+(?:\.\d+)?)"', open(f).read()) if float(n) < png_pt]
print(("ok: " if not small else "FAIL: ") + "no plot script sets a font under term.gp's %d pt%s" %
      (png_pt, "" if not small else ": " + ", ".join(small)))
# Key figures each kind of page must show, as summary.json pointers.
need = {
    "fed": ["/train/au_percent/mean", "/train/read_bytes_per_s", "/train/read_latency_us/p50", "/train/samples_per_s"],
    "starved": ["/train/au_percent/mean", "/train/read_bytes_per_s", "/train/stall_s"],
    "ceiling": ["/ceiling/accelerators_fed", "/ceiling/read_bytes_per_s", "/ceiling/read_requests_per_s",
                "/ceiling/read_latency_us/p50"],
    "checkpoint": ["/checkpoint/bytes", "/checkpoint/write_burst_s", "/checkpoint/write_bytes_per_s",
                   "/checkpoint/restore_burst_s", "/checkpoint/write_rank_spread/fastest_s",
                   "/verdict/checkpoint_full_size_write_s"],
    "s3": ["/s3/phases/train/requests_per_s", "/s3/requests", "/train/read_bytes_per_s"],
    "compare": ["train.au_percent.mean", "train.read_bytes_per_s", "train.samples_per_s"],
    "sweep": ["/sweep/accelerators_fed", "/train/au_percent/mean"],
    "planted": ["/train/au_percent/mean", "/train/read_bytes_per_s"],
}
words = {"fed": "FED", "starved": "STARVED", "checkpoint": "MEASURED", "compare": "REGRESSION"}
# The plots each page draws; planted: not the timeline (no data), simplanted: none (no gnuplot).
plots = {"fed": 3, "starved": 3, "ceiling": 2, "checkpoint": 1, "sweep": 5, "s3": 3, "compare": 1, "simulate": 1,
         "planted": 2, "simplanted": 0}

def at(doc, ptr):
    for part in ptr.lstrip("/").split("/"):
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc

def number(v):
    """A figure of summary.json as a number; a null or a string compares unequal (NaN)."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan

def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)

for r in probe:
    name, w = r["page"][:-5], r["width"]
    tag = "%s at %d px" % (name, w)
    check(r["scroll"] <= r["inner"] and r["scroll"] <= r["client"] and not r["wide"],
          "%s: no horizontal scrolling (scrollWidth %d, innerWidth %d)%s" % (tag, r["scroll"], r["inner"],
          "" if not r["wide"] else ", too wide: " + "; ".join(r["wide"])))
    check(len(r["plots"]) == plots[name], "%s: %d plot(s), %d expected: %s" %
          (tag, len(r["plots"]), plots[name], " ".join(p["id"] for p in r["plots"])))
    for p in r["plots"]:
        scale = p["shown"] / p["natural"] if p["natural"] else 0
        text = scale * (png_pt * 4 / 3 if p["tag"] == "img" else (p["font_px"] or 0))
        check(p["shown"] <= p["container"] + 1 and p["right"] <= r["client"] + 1,
              "%s: %s %.0f px wide in a figure of %d" % (tag, p["id"], p["shown"], p["container"]))
        check(text >= 11 and (p["tag"] != "img" or p["natural"] == png_w),
              "%s: %s (%s) shown at %.0f of %d px: text %.1f px on screen (11 wanted)" %
              (tag, p["id"], p["tag"], p["shown"], p["natural"], text))
    check(r["pwned"] is None, "%s: no handler ran (data-pwned %s)" % (tag, r["pwned"]))
    if name in ("simulate", "simplanted"):
        continue
    s = json.load(open(os.path.join(pages, name + ".json")))
    if name == "compare":
        figs = {f["key"]: f["values"] for f in s["figures"]}
        bad = [k for k in r["keys"] if k["key"] in figs and k["value"] is not None and
               not math.isclose(k["value"], figs[k["key"]][k["run"]], rel_tol=1e-9)]
        seen = {k["key"] for k in r["keys"] if k["value"] is not None}
        check(s["verdict"] == "regression" and r["word"] == "REGRESSION" and "bad" in r["card"],
              "%s: the card says REGRESSION in red" % tag)
    else:
        bad = [k for k in r["keys"] if k["value"] is None or
               not math.isclose(k["value"], number(at(s, k["key"])), rel_tol=1e-9, abs_tol=1e-12)]
        seen = {k["key"] for k in r["keys"]}
        v = s["verdict"]
        check(r["word"] == v["word"] and ("card " + v["tone"]) == r["card"] and v["line"].split(" - ", 1)[-1] in r["verdict_text"],
              "%s: the card shows summary.json's verdict '%s' in tone %s" % (tag, v["word"], v["tone"]))
        if name in words:
            check(v["word"] == words[name], "%s: the verdict is %s (got %s)" % (tag, words[name], v["word"]))
        if name == "fed":
            # Green only when the reads were a storage result; amber on page-cache reads.
            check(v["tone"] == ("warn" if v["validity"]["page_cache"] else "good") and
                  (v["validity"]["page_cache"] or direct),
                  "%s: tone %s with page_cache %s (O_DIRECT %s)" % (tag, v["tone"], v["validity"]["page_cache"], direct))
            check("%.2f %%" % s["train"]["au_percent"]["mean"] in r["text"], "%s: AU shown as in summary.json" % tag)
        if name == "ceiling":
            check(v["word"] == "FEEDS %d" % s["ceiling"]["accelerators_fed"] and v["validity"]["short_ceiling"] and
                  "not a steady-state figure" in r["text"],
                  "%s: FEEDS %d, and a 1 s ceiling says it is no steady state" % (tag, s["ceiling"]["accelerators_fed"]))
        if name == "checkpoint":
            # Restores from the client's cache are qualified as such; a run that read no
            # dataset gets no dataset line and no read warning.
            check("EXTRAPOLATED" in r["text"] and "/plan/dataset_bytes" not in seen and
                  "O_DIRECT is off" not in r["text"] and "5x the memory" not in r["text"] and
                  ("restore cache" in r["text"]) == v["validity"]["restore_page_cache"],
                  "%s: the full size is marked extrapolated; no dataset line or read warnings; restores "
                  "qualified as summary.json says (%s)" % (tag, v["validity"]["restore_page_cache"]))
    check(not bad, "%s: every key figure in the DOM has summary.json's exact value%s" %
          (tag, "" if not bad else ": " + json.dumps(bad[:3])))
    missing = [k for k in need[name] if k not in seen]
    check(not missing, "%s: the key figures are there%s" % (tag, "" if not missing else ", missing " + ", ".join(missing)))
EOF
while read -r line; do
	case $line in ok:*) ok "${line#ok: }" ;; *) bad "${line#FAIL: }" ;; esac
done <"$TMP/checks"
[ "$(wc -l <"$TMP/checks")" -gt 20 ] && ok "the probe checked every page" || bad "the probe checked too little"

# A screenshot of the FED page at 1280 px, to show that Chromium draws it; of every page at
# 800 and 1280 px for GF_SCREENSHOTS (10-20 s each on a loaded machine).
shots=${GF_SCREENSHOTS:-$TMP/shots}
mkdir -p "$shots"
sizes=1280 shoot=fed
[ -n "${GF_SCREENSHOTS:-}" ] && sizes="800 1280" shoot=$names
t0=$(date +%s.%N)
for n in $shoot; do
	for w in $sizes; do
		for try in 1 2 3; do
			rm -rf "$TMP/chrome-$n-$w"
			timeout 180 "$chrome" "${flags[@]}" --user-data-dir="$TMP/chrome-$n-$w" --window-size=$w,2600 \
				--screenshot="$shots/$n-$w.png" "file://$pages/$n.html" >/dev/null 2>&1
			[ "$(stat -c %s "$shots/$n-$w.png" 2>/dev/null || echo 0)" -gt 20000 ] && break
		done
	done
	[ "$(stat -c %s "$shots/$n-1280.png" 2>/dev/null || echo 0)" -gt 20000 ] && ok "$n: screenshot at 1280 px" ||
		bad "$n: no screenshot"
done
echo "screenshots in $(echo "$(date +%s.%N) - $t0" | bc) s"
finish
