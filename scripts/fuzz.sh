#!/usr/bin/env bash
# Fuzz every loader that reads a file users hand gpufeed, in three libFuzzer targets:
# fuzz_workload (workload YAML -> workload -> plan), fuzz_results (summary.json for
# report/compare/table) and fuzz_inputs (system and mix files, the dataset manifest, the
# CSV files report and simulate --calibrate read back, calibrate's summary.json). clang,
# ASan and UBSan; seeds from workloads/, tests/bad/, tests/fuzz/seeds/ and
# tests/fuzz/seeds_inputs/. Each target runs for SECONDS (default 30); any crash, leak,
# sanitizer report or input slower than 10 s fails, and the input is kept under build-fuzz/.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR_WITH_CONFIG_H]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-30}
cfg=${2:-$top/build}
out=${FUZZ_OUT:-$top/build-fuzz}
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/install-deps.sh --test installs it)"; exit 1; }
[ -f "$cfg/config.h" ] || { echo "fuzz: no config.h in $cfg: run scripts/build.sh first"; exit 1; }
mkdir -p "$out/obj"
# The build's config.h without the optional I/O libraries: fuzz_inputs reads the dataset
# manifest through the local namespace (io/ns.c, io/posix.c), and the backends that need
# liburing, libaio, HDF5, libgfapi or libcurl (and MPI) stay out of the fuzzers.
sed -E '/#define HAVE_(URING|AIO|HDF5|GFAPI|CURL) /d' "$cfg/config.h" >"$out/config.h"
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -DGF_SRC_DIR="\"$top\"" -fsanitize=fuzzer,address,undefined,float-cast-overflow
	-fno-sanitize-recover=undefined,float-cast-overflow -iquote "$top/bench" -iquote "$top" -I "$out"
	$(pkg-config --cflags yaml-0.1 json-c libxxhash zlib libisal))
libs=($(pkg-config --libs yaml-0.1 json-c libxxhash zlib libisal) -lresolv -lm)
model=("$top"/bench/model/*.c)
# The typed loader (results/) and what renders a loaded run (report/).
results=("$top"/bench/results/*.c "$top"/bench/report/*.c "${model[@]}" "$top"/bench/stats/*.c "$top/bench/datadir.c"
	"$top/bench/io/beneath.c")
# The simulator (system files, calibrate) and the manifest's reader with the local I/O.
inputs=("${results[@]}" "$top"/bench/sim/*.c "$top/bench/phase/datagen.c" "$top"/bench/io/{io,engine,posix,mmap,null,ns}.c)
# Each source compiled once for all three targets, nproc at a time.
obj() { local o=${1#"$top"/}; echo "$out/obj/${o//\//_}.o"; }
rm -f "$out"/obj/*
for src in "${inputs[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
	clang "${flags[@]}" -c "$src" -o "$(obj "$src")" 2>"$(obj "$src").log" || touch "$(obj "$src").failed" &
done
wait
for f in "$out"/obj/*.failed; do
	[ -e "$f" ] && { echo "fuzz: ${f%.failed} does not build:"; cat "${f%.failed}.log"; exit 1; }
done
build() { # NAME SOURCES...
	local name=$1 objs=() src
	shift
	for src in "$@"; do objs+=("$(obj "$src")"); done
	clang "${flags[@]}" "$top/tests/fuzz/$name.c" "${objs[@]}" "${libs[@]}" -o "$out/$name" 2>"$out/$name.build.log" ||
		{ echo "fuzz: $name does not build:"; cat "$out/$name.build.log"; return 1; }
}
build fuzz_workload "${model[@]}" || exit 1
build fuzz_results "${results[@]}" || exit 1
build fuzz_inputs "${inputs[@]}" || exit 1

fails=0
run() { # NAME SEED-DIRS...
	local name=$1 corpus
	corpus=$out/$name.corpus
	shift
	mkdir -p "$corpus" "$out/$name.found"
	# -rss_limit_mb: a loader that grows memory without bound is a finding too.
	if (cd "$out/$name.found" && "$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
		-max_len=65536 -print_final_stats=1 "$corpus" "$@" >"$out/$name.log" 2>&1); then
		echo "fuzz: $name: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$name.log" |
			grep -o '[0-9]*$') inputs in ${secs} s, no crash, leak or hang"
	else
		echo "fuzz: $name FAILED (inputs kept in $out/$name.found):"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$out/$name.log" | head -20
		fails=$((fails + 1))
	fi
}
run fuzz_workload "$top/workloads" "$top/tests/bad"
run fuzz_results "$top/tests/fuzz/seeds"
run fuzz_inputs "$top/tests/fuzz/seeds_inputs"
exit $((fails > 0))
