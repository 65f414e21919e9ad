#!/usr/bin/env bash
# Description: the commands README.md and docs/*.md show work as printed. Every ```sh
# block of README.md, then of each docs/*.md in name order, runs, in order, from a scratch
# folder that has the source tree's workloads/, systems/, scripts/ and tests/ and the
# built gpufeed first on PATH, under a private /tmp (a mount namespace, when we may make
# one) so the /tmp paths they print touch nothing of this machine's.
# A block that cannot run here is marked just before it with
#   <!-- readme-test: skip: WHY -->           (a cluster, real S3 credentials, minutes)
# and a block's figures are held to what the page says with
#   <!-- readme-test: expect: REGEX -->       (grep -E on its output, one per figure)
#   <!-- readme-test: status: 0 3 -->         (the exit codes it may end with; default 0)
# Links must name files inside the repository (relative to the page's folder).
# Expected: every unmarked block exits 0 (or a listed status) and prints each expected
# line; no command stands outside a ```sh block (an indented one included); every skip
# says why; README.md keeps its two commands first and stays within 450 lines.
# Buggy: a command that exits 2 as printed (the cluster plan did), a port or a path that
# the scripts do not use, a figure the program does not print.
# More ranks than cores: the mpirun lines run as printed, with oversubscription allowed
# through the environment (README says --oversubscribe is needed for that).
# Takes about a minute on 2 cores, two under ASan (two small quickstart runs, the two
# random-read runs of docs/dlio.md, the 12 s progress example, S3 on s3rver, a few
# simulations of a second each); the blocks that would take minutes are skipped.
. "$(dirname "$0")/lib.sh"

export OMPI_MCA_rmaps_base_oversubscribe=1
blocks=$TMP/blocks
mkdir -p "$blocks"

# Split each page into blocks/N.sh with blocks/N.meta (page, line, skip, expect and
# status lines); a complaint about a page's form goes to blocks/errors.
python3 - "$SRCDIR" "$blocks" <<'EOF'
import glob, os, re, sys
src, out = sys.argv[1:3]
pages = ["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md")))
marker = re.compile(r"^\s*<!-- readme-test: (skip|expect|status): (.*?) -->\s*$")
fence = re.compile(r"^(\s*)```(\w*)\s*$")
cmd = re.compile(r"^ {4,}(gpufeed|mpirun|scripts/|jq |sed |export |eval |make |\./|\.\./|cd )")
errors, n, readme_blocks = [], 0, []

def anchors(path):
    """The heading anchors a Markdown renderer (GitHub's) makes of a page."""
    out, fenced = set(), False
    for l in open(path).read().split("\n"):
        if re.match(r"^\s*```", l):
            fenced = not fenced
        elif not fenced and re.match(r"^#+ ", l):
            out.add(re.sub(r"[^\w\- ]", "", l.lstrip("#").strip().lower()).replace(" ", "-"))
    return out

for page in pages:
    lines = open(os.path.join(src, page)).read().split("\n")
    pending, i, prev_blank = [], 0, True
    while i < len(lines):
        l = lines[i]
        m = marker.match(l)
        f = fence.match(l)
        if m:
            pending.append((m.group(1), m.group(2)))
        elif f:
            indent, lang = len(f.group(1)), f.group(2)
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
                i += 1
            if lang in ("sh", "bash", "shell"):
                if page == "README.md":
                    readme_blocks.append("\n".join(body).strip())
                n += 1
                open(f"{out}/{n}.sh", "w").write("\n".join(body) + "\n")
                with open(f"{out}/{n}.meta", "w") as meta:
                    meta.write(f"page\t{page}\nline\t{start}\n")
                    for k, v in pending:
                        meta.write(f"{k}\t{v}\n")
            elif pending:
                errors.append(f"{page}:{start}: readme-test markers before a ```{lang} block (only ```sh runs)")
            pending = []
        elif l.strip():
            if pending:
                errors.append(f"{page}:{i + 1}: readme-test markers not followed by a ```sh block")
                pending = []
            if prev_blank and cmd.match(l):
                errors.append(f"{page}:{i + 1}: a command outside a ```sh block: {l.strip()}")
        prev_blank = l.strip() == "" or (prev_blank and bool(cmd.match(l)))
        i += 1
    for m in re.finditer(r"\]\(([^)\s]+)\)", "\n".join(lines)):
        t, _, a = m.group(1).partition("#")
        path = os.path.join(src, os.path.dirname(page), t) if t else os.path.join(src, page)
        if re.match(r"^[a-z]+:", m.group(1)):
            errors.append(f"{page}: link to {m.group(1)}: link only to files inside the repository")
        elif not os.path.exists(path):
            errors.append(f"{page}: link to {t}, which is not in the repository")
        elif a and path.endswith(".md") and a not in anchors(path):
            errors.append(f"{page}: link to {m.group(1)}, a heading that {t or page} does not have")
# The first screen answers "how do I run it": the two commands before any other, and a
# README short enough to read (issue 22: detail lives in docs/).
readme = open(os.path.join(src, "README.md")).read().splitlines()
if len(readme) > 450:
    errors.append(f"README.md has {len(readme)} lines: keep it within 450 (move detail to docs/)")
if readme_blocks[:2] != ["scripts/quickstart.sh", "scripts/check.sh"]:
    errors.append(f"README.md's first commands are {readme_blocks[:2]}, not scripts/quickstart.sh and scripts/check.sh")
open(f"{out}/errors", "w").write("".join(e + "\n" for e in errors))
open(f"{out}/count", "w").write(f"{n}\n")
EOF
[ -s "$blocks/count" ] || { bad "the pages could not be split into blocks"; finish; }
if [ -s "$blocks/errors" ]; then
	while IFS= read -r e; do bad "$e"; done <"$blocks/errors"
else
	ok "README.md and docs/*.md: every command in a \`\`\`sh block, every link inside the repository; README within 450 lines, its two commands first"
fi

# The scratch folder, seen as /tmp/scratch under the private /tmp.
priv=$TMP/privtmp
mkdir -p "$priv/scratch"
for d in workloads systems scripts tests; do ln -s "$SRCDIR/$d" "$priv/scratch/$d"; done
mkdir -p "$priv/bin"
ln -s "$GPUFEED" "$priv/bin/gpufeed"
if [ "$(id -u)" -eq 0 ] && unshare -m --propagation private true 2>/dev/null; then
	isolate=1
	# The source tree and the binary stay where they are when they live under /tmp (a
	# fresh clone in /tmp/fresh, as README's suite check makes): their top folder under
	# /tmp is bound into the private /tmp before it covers the real one.
	keep=
	for p in "$SRCDIR" "$GPUFEED" "$(dirname "$(readlink -f "$GPUFEED")")"; do
		p=$(readlink -f "$p")
		case $p in
		/tmp/*)
			topdir=${p#/tmp/}
			topdir=${topdir%%/*}
			case $keep in *"'/tmp/$topdir'"*) continue ;; esac
			[ -e "$priv/$topdir" ] || mkdir -p "$priv/$topdir"
			keep="$keep mount --bind '/tmp/$topdir' '$priv/$topdir' &&"
			;;
		esac
	done
	where=/tmp/scratch
	bindir=/tmp/bin
else
	isolate=0
	where=$priv/scratch
	bindir=$priv/bin
	echo "note: no mount namespace here; the pages' /tmp paths are this machine's /tmp"
fi

count=$(cat "$blocks/count")
ran=0 skipped=0
for i in $(seq 1 "$count"); do
	meta=$blocks/$i.meta
	page=$(awk -F'\t' '$1 == "page" { print $2 }' "$meta")
	line=$(awk -F'\t' '$1 == "line" { print $2 }' "$meta")
	what="$page:$line ($(head -1 "$blocks/$i.sh" | cut -c1-60))"
	why=$(awk -F'\t' '$1 == "skip" { print $2 }' "$meta")
	if grep -q '^skip' "$meta"; then
		skipped=$((skipped + 1))
		[ -n "$why" ] && echo "skip: $what: $why" || bad "$what: a skip that does not say why"
		continue
	fi
	statuses=$(awk -F'\t' '$1 == "status" { print $2 }' "$meta")
	cp "$blocks/$i.sh" "$priv/scratch/.block.sh"
	run="cd $where && PATH=$bindir:\$PATH timeout 300 bash -e -o pipefail .block.sh >.out 2>&1"
	if [ "$isolate" -eq 1 ]; then
		unshare -m --propagation private bash -c "$keep mount --rbind '$priv' /tmp && $run"
	else
		bash -c "$run"
	fi
	rc=$?
	ran=$((ran + 1))
	cp "$priv/scratch/.out" "$blocks/$i.out"
	if ! printf ' %s ' ${statuses:-0} | grep -q " $rc "; then
		bad "$what: exit $rc (the page expects ${statuses:-0})"
		tail -15 "$blocks/$i.out"
		continue
	fi
	good=1
	while IFS=$'\t' read -r k v; do
		[ "$k" = expect ] || continue
		grep -Eq -- "$v" "$blocks/$i.out" || { bad "$what: the output lacks /$v/, which the page promises"; good=0; }
	done <"$meta"
	[ "$good" -eq 1 ] && ok "$what: exit $rc$(grep -c '^expect' "$meta" | sed 's/^0$//; s/^\(.\)/, \1 expected figure(s) printed/')"
done
echo "$ran block(s) ran, $skipped skipped (each says why)"
[ "$ran" -ge 12 ] && ok "$ran of the pages' blocks ran" || bad "only $ran of the pages' blocks ran"
finish
