#!/usr/bin/env bash
# Build gpufeed out of tree: scripts/build.sh [BUILD_DIR [configure options...]].
# Regenerates configure when configure.ac or Makefile.am changed, configures once, and
# runs make. Prints only errors and the configure summary on the first configure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	./autogen.sh >/dev/null 2>&1 || { ./autogen.sh; exit 1; }
fi
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	"$top/configure" "$@" >configure.log 2>&1 || { cat configure.log; exit 1; }
	sed -n '/^gpufeed .* configuration/,$p' configure.log >&2
fi
make -j"$(nproc)" >make.log 2>&1 || { grep -E "error|Error" make.log | head -40; exit 1; }
