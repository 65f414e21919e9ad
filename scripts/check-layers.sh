#!/usr/bin/env bash
# The floors of bench/ (docs/architecture.md): each folder includes only the folders
# below it, and engine, layout, mode and format names are compared as strings only in the
# key table (model/keys.c, model/workload.c) and the backend registry (io/io.c). Prints
# every broken rule with its file and line; exits 1 if there is one, 0 if none.
#   scripts/check-layers.sh [SOURCE_DIR]
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
bad=0
fail() { echo "check-layers: $*"; bad=1; }

# forbid GLOB-OF-FILES INCLUDE-REGEX WHY [ALLOWED-REGEX]
forbid() {
	local files=$1 re=$2 why=$3 allow=${4:-^$} f hit
	for f in $files; do
		[ -f "$f" ] || continue
		while IFS= read -r hit; do
			fail "$f:${hit%%:*}: includes ${hit#*:#include } ($why)"
		done < <(grep -nE "^#include \"($re)" "$f" | grep -vE "$allow" | sed 's/^\([0-9]*\):/\1:/')
	done
}
shopt -s globstar nullglob
forbid "bench/io/**/*.h" 'model/|phase/|run/|report/|cli\.h' "an io header sees only io, stats and the ground floor"
forbid "bench/io/**/*.c" 'phase/|run/|report/|cli\.h' "io looks down only: stats, model, mpi"
forbid "bench/results/*.[ch]" 'io/|phase/|run/|report/|sim/|mpi/|cli\.h' "results writes and reads the results folder from the schema table; it renders nothing and measures nothing" \
	'#include "io/beneath\.h"' # the one way to open beneath a folder (libc only): the results folder gets the data folder's rule
forbid "bench/report/*.[ch]" 'io/|phase/|run/|sim/|mpi/|cli\.h' "report renders a results folder through results/, never does I/O, and knows no simulator"
forbid "bench/model/*.[ch]" 'io/|phase/|run/|report/|mpi/|cli\.h' "model is pure: no I/O and no MPI"
forbid "bench/phase/*.[ch]" 'run/|report/|cli\.h' "a phase looks down only: io, stats, model, mpi"
forbid "bench/stats/*.[ch]" 'io/|phase/|run/|report/|model/|mpi/|cli\.h' "stats is the ground floor"
forbid "mpi/*.[ch]" 'io/|phase/|run/|report/|model/|cli\.h' "mpi/ knows no benchmark"
forbid "bench/sim/*.[ch]" 'io/|phase/|run/|mpi/|report/|cli\.h' "the simulator never touches storage or MPI, and renders nothing: it writes its results folder through results/, and main has report/ draw it"

# Names of engines, checkpoint layouts, modes and formats are enums and capability flags
# outside the key table and the registry.
names='posix|uring|aio|null|mmap|gfapi|gluster|s3|hdf5|mpiio|file_per_rank|shared_file|object_per_rank|async|subset|default|npy|npz|tfrecord|jpeg|png|csv|indexed_binary|mmap_indexed_binary|synthetic|hdf5_rows'
for f in bench/**/*.c; do
	# yaml.c reads YAML's own words ("null", "~"), not gpufeed's names.
	case $f in bench/model/workload.c | bench/model/yaml.c | bench/io/io.c | bench/cli.c) continue ;; esac
	while IFS= read -r hit; do
		fail "$f:${hit%%:*}: compares a name as a string: ${hit#*:} (use the enum or a capability flag)"
	done < <(grep -nE "str(n|case)?cmp\([^;]*\"($names)(://)?\"" "$f" | sed 's/\t/ /g; s/  */ /g')
done
# Sizes a reader can hold in their head: no function over 120 lines, no file over 900
# (a function is what runs from a '{' alone in column 0 to the next '}' there, so a
# table initialised at file scope does not count).
for f in bench/**/*.c mpi/*.c; do
	n=$(wc -l <"$f")
	[ "$n" -le 900 ] || fail "$f: $n lines, more than 900 (split it along a seam that reads naturally)"
	while IFS= read -r hit; do
		fail "$f: $hit (split it into named steps)"
	done < <(awk '/^\{/ { start = NR; name = prev } /^\}/ { if (start && NR - start > 120) print "function at line " start " is " NR - start " lines, more than 120: " name; start = 0 } { prev = $0 }' "$f")
done
[ "$bad" -eq 0 ] && echo "check-layers: every floor looks down only; no name compared as a string; no function over 120 lines, no file over 900"
exit "$bad"
