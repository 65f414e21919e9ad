#!/usr/bin/env bash
# Fuzz the two loaders that read files users hand gpufeed: the workload loader (YAML ->
# workload -> plan) and the results loader (summary.json and CSV, for report/compare).
# libFuzzer with clang, ASan and UBSan; seeds from workloads/, tests/bad/ and
# tests/fuzz/seeds/. Each target runs for SECONDS (default 30); any crash, leak, sanitizer
# report or input slower than 10 s fails, and the input is kept under build-fuzz/.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR_WITH_CONFIG_H]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-30}
cfg=${2:-$top/build}
out=${FUZZ_OUT:-$top/build-fuzz}
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/install-deps.sh --test installs it)"; exit 1; }
[ -f "$cfg/config.h" ] || { echo "fuzz: no config.h in $cfg: run scripts/build.sh first"; exit 1; }
mkdir -p "$out"
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined,float-cast-overflow
	-fno-sanitize-recover=undefined,float-cast-overflow -iquote "$top/bench" -iquote "$top" -I "$cfg"
	$(pkg-config --cflags yaml-0.1 json-c libxxhash zlib libisal))
libs=($(pkg-config --libs yaml-0.1 json-c libxxhash zlib libisal) -lresolv -lm)
model=("$top"/bench/model/*.c)
build() { # NAME SOURCES...
	local name=$1
	shift
	clang "${flags[@]}" "$@" "${libs[@]}" -o "$out/$name" 2>"$out/$name.build.log" ||
		{ echo "fuzz: $name does not build:"; cat "$out/$name.build.log"; return 1; }
}
build fuzz_workload "$top/tests/fuzz/fuzz_workload.c" "${model[@]}" || exit 1
# The typed loader (results/) and what renders a loaded run (report/).
build fuzz_results "$top/tests/fuzz/fuzz_results.c" "$top"/bench/results/*.c "$top"/bench/report/*.c "${model[@]}" \
	"$top"/bench/stats/*.c \
	"$top/bench/datadir.c" "$top/bench/io/beneath.c" || exit 1

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
exit $((fails > 0))
