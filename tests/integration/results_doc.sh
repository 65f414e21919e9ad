#!/usr/bin/env bash
# Description: results/README.md documents every key of summary.json and every column of
# the CSV files a run writes. Three runs between them write every section: training
# with a storage ceiling and asynchronous checkpoints, a checkpoint-only run with
# restores, and a run on S3 (s3rver).
# Expected: each key path of their summary.json (the resolved "workload" as one key: its
# keys are the workload schema's, documented with it) is named in the README section of
# its top-level key, each CSV column in the section of its file; byte counts are whole
# numbers.
# Buggy: a key added to summary.json (or a CSV column) without a word in the README; a
# byte count written as 1.2e+08.
#
# How the README is read: under "## summary.json", a "### NAME ..." section documents
# the keys below the top-level key NAME ("### top level": the root). Every `word` in
# backticks in the section names a key, relative to NAME or from the root; a.b is a
# nested key, {x,y} lists alternatives, * stands for any key and [] for an array's
# elements; a documented key documents its parents. A "## " heading naming CSV files
# (`timeseries.csv`) documents their columns with the backticked words of its section.
. "$(dirname "$0")/lib.sh"

LLAMA=$SRCDIR/workloads/llama3_8b.yaml
builddir=$(dirname "$GPUFEED")
srv=$TMP/s3rver
cleanup() {
	[ -f "$srv/pid" ] && "$SRCDIR/scripts/s3rver-stop.sh" "$srv"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

gf 2 run "$LLAMA" --target "$TMP/t" --results "$TMP/full" --quiet --set checkpoint.scale=1/8000 \
	--set model.parallelism.data=2 --set workflow.train=true --set dataset.format=npz --set dataset.num_files_train=64 \
	--set dataset.record_length_bytes=16KiB --set reader.batch_size=2 --set train.epochs=1 \
	--set train.computation_time=20ms --set checkpoint.steps_between_checkpoints=8 --set checkpoint.mode=async \
	--set run.ceiling=true --set 'checkpoint.mpiio_hints={romio_cb_write: enable}' >"$TMP/out" 2>&1 ||
	{ bad "training + ceiling + async checkpoint run failed"; cat "$TMP/out"; }
gf 2 run "$LLAMA" --target "$TMP/ck" --results "$TMP/ckpt" --quiet --set checkpoint.scale=1/8000 \
	--set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=2 \
	--set checkpoint.num_checkpoints_read=1 >"$TMP/out" 2>&1 || { bad "checkpoint-only run failed"; cat "$TMP/out"; }
dirs="$(only_result "$TMP/full") $(only_result "$TMP/ckpt")"
if grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null; then
	if endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test); then
		AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1 \
			gf 2 run "$SMALL" --target s3://gf-test/gf --results "$TMP/s3" --quiet --set train.epochs=2 \
			>"$TMP/out" 2>&1 || { bad "S3 run failed"; cat "$TMP/out"; }
		dirs="$dirs $(only_result "$TMP/s3")"
	else
		bad "s3rver did not start (scripts/install-deps.sh --test installs it)"
	fi
fi

python3 - "$SRCDIR/results/README.md" $dirs >"$TMP/checks" <<'EOF'
import csv, glob, json, os, re, sys

readme = open(sys.argv[1]).read()
dirs = sys.argv[2:]

def expand(tok):
    m = re.search(r"\{([^{}]*)\}", tok)
    if not m:
        return [tok]
    out = []
    for alt in m.group(1).split(","):
        out += expand(tok[:m.start()] + alt.strip() + tok[m.end():])
    return out

def words(text):
    out = set()
    for tok in re.findall(r"`([^`]+)`", text):
        tok = tok.strip()
        if re.fullmatch(r"[A-Za-z0-9_.{},*\[\]/ -]+", tok):
            for t in expand(tok.replace(" ", "")):
                # name[] is the array "name" and its elements: name.[] as paths are walked.
                out.add(t.replace("[]", ".[]").replace("..", ".").strip("."))
    return out

# summary.json: the sections under "## summary.json", up to the next "## ".
part = readme.split("\n## summary.json", 1)[1].split("\n## ", 1)[0]
patterns = set()
for sec in re.split(r"\n### ", part)[1:]:
    head, _, body = sec.partition("\n")
    name = head.split()[0].strip("`")
    prefix = "" if name == "top" else name
    for w in words(body) | words(head):
        patterns.add(w)
        if prefix and not w.startswith(prefix + ".") and w != prefix:
            patterns.add(prefix + "." + w)
    if prefix:
        patterns.add(prefix)

def documented(path):
    for p in patterns:
        pp = p.split(".")
        if len(pp) < len(path):
            continue
        # A documented key documents its parents: compare the path's length.
        if all(a == "*" or a == b or (a == "[]" and b == "[]") for a, b in zip(pp, path)):
            return True
    return False

def walk(o, path, out):
    if path == ["workload"]:
        out.add(tuple(path))
        return
    if path:
        out.add(tuple(path))
    if isinstance(o, dict):
        for k, v in o.items():
            walk(v, path + [k], out)
    elif isinstance(o, list):
        for v in o:
            walk(v, path + ["[]"], out)

def bytes_not_whole(o, path, out):
    if isinstance(o, dict):
        for k, v in o.items():
            bytes_not_whole(v, path + [k], out)
    elif isinstance(o, list):
        for v in o:
            bytes_not_whole(v, path + ["[]"], out)
    elif path and path[-1].endswith("bytes") and path[0] != "workload" and not isinstance(o, int):
        out.add(".".join(path))

paths, floats = set(), set()
for d in dirs:
    s = json.load(open(os.path.join(d, "summary.json")))
    walk(s, [], paths)
    bytes_not_whole(s, [], floats)
missing = sorted(".".join(p) for p in paths if not documented(list(p)))
print(("ok: " if not missing else "FAIL: ") + "every summary.json key of %d runs (%d keys) is in results/README.md%s"
      % (len(dirs), len(paths), "" if not missing else "; undocumented: " + ", ".join(missing)))
print(("ok: " if not floats else "FAIL: ") + "byte counts are whole numbers%s"
      % ("" if not floats else ": " + ", ".join(sorted(floats))))

# CSV columns, per file name (plots/*.csv as plots/NAME.csv).
sections = {}
for sec in re.split(r"\n## ", readme)[1:]:
    head, _, body = sec.partition("\n")
    body = body.split("\n## ", 1)[0]
    for f in re.findall(r"[A-Za-z_/*]+\.csv", head):
        sections.setdefault(f, set()).update(words(body))
files = 0
for d in dirs:
    for path in sorted(glob.glob(os.path.join(d, "*.csv")) + glob.glob(os.path.join(d, "plots", "*.csv"))):
        name = os.path.relpath(path, d)
        cols = next(csv.reader(open(path)), [])
        doc = sections.get(name)
        files += 1
        if doc is None:
            print("FAIL: %s has no section in results/README.md" % name)
            continue
        undoc = [c for c in cols if c not in doc]
        print(("ok: " if not undoc else "FAIL: ") + "%s: every column documented%s"
              % (name, "" if not undoc else "; undocumented: " + ", ".join(undoc)))
print(("ok: " if files >= 12 else "FAIL: ") + "%d CSV files checked" % files)
EOF
while read -r line; do
	case $line in ok:*) ok "${line#ok: }" ;; *) bad "${line#FAIL: }" ;; esac
done <"$TMP/checks"
[ -s "$TMP/checks" ] || bad "the checker printed nothing"
finish
