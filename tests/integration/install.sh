#!/usr/bin/env bash
# Description: make install puts the binary, the gnuplot scripts and the workloads under
# $prefix (share/gpufeed), and the installed binary finds them from outside the source
# tree: a workload by its README name, and the plot scripts for a run's plots.
# Expected: `make install DESTDIR=...` exits 0; bin/gpufeed, share/gpufeed/plot/*.gp and
# share/gpufeed/workloads/*.yaml exist; from a folder outside the tree the installed binary
# plans workloads/quickstart.yaml from share/gpufeed, and a run draws its PNGs with the
# installed scripts (a marker that only the installed common.gp writes proves which ran).
# Buggy: scripts looked for only in the source tree (an installed binary on a machine
# without it draws nothing), workloads not installed.
. "$(dirname "$0")/lib.sh"

build=$(dirname "$GPUFEED")
make -C "$build" install DESTDIR="$TMP/d" >"$TMP/install.log" 2>&1 && ok "make install DESTDIR=..." ||
	{ bad "make install failed"; tail -20 "$TMP/install.log"; finish; }
bin=$(find "$TMP/d" -path '*/bin/gpufeed' -type f | head -1)
[ -x "$bin" ] && ok "installed binary $bin" || { bad "no bin/gpufeed under $TMP/d"; finish; }
share=$(cd "$(dirname "$bin")/../share/gpufeed" 2>/dev/null && pwd)
[ -f "$share/plot/common.gp" ] && [ -f "$share/plot/timeline.gp" ] && ok "plot scripts in share/gpufeed/plot" ||
	bad "no plot scripts under ${share:-share/gpufeed}"
n=$(ls "$share"/workloads/*.yaml 2>/dev/null | wc -l)
want=$(ls "$SRCDIR"/workloads/*.yaml | wc -l)
[ "$n" -eq "$want" ] && ok "$n workloads in share/gpufeed/workloads" || bad "$n workloads installed, $want shipped"

# Only the installed copy of common.gp leaves this marker behind.
printf '\nsystem("touch %s/used-installed-scripts")\n' "$TMP" >>"$share/plot/common.gp"
mkdir -p "$TMP/elsewhere"
cp "$SMALL" "$TMP/elsewhere/small.yaml"
cd "$TMP/elsewhere" || exit 1
unset GPUFEED_PLOT_DIR GPUFEED_DATADIR
"$bin" plan workloads/quickstart.yaml >"$TMP/plan" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^workload .*($share/workloads/quickstart.yaml)" "$TMP/plan" &&
	ok "installed binary plans workloads/quickstart.yaml from share/gpufeed" || { bad "plan: exit $rc"; cat "$TMP/plan"; }
"$MPIRUN" --oversubscribe -np 2 "$bin" run small.yaml --target "$TMP/data" --results "$TMP/res" \
	--label inst --quiet >"$TMP/run" 2>&1 || { bad "installed binary: run failed"; head -5 "$TMP/run"; }
ls "$TMP/res/inst/plots/"*.png >/dev/null 2>&1 && ok "installed binary drew $(ls "$TMP/res/inst/plots/"*.png | wc -l) PNG(s)" ||
	{ bad "no plots from the installed binary"; ls -R "$TMP/res" | head; }
[ -e "$TMP/used-installed-scripts" ] && ok "the plots came from the installed scripts" ||
	bad "the installed binary did not use share/gpufeed/plot"
# GPUFEED_DATADIR, when set, is the only place looked at.
GPUFEED_DATADIR=$TMP/nowhere "$bin" plan workloads/quickstart.yaml >"$TMP/o" 2>&1
[ $? -eq 2 ] && ok "GPUFEED_DATADIR is honoured" || { bad "GPUFEED_DATADIR ignored"; cat "$TMP/o"; }
finish
