#!/usr/bin/env bash
# Description: gpufeed simulate end to end: every shipped system file loads, and the
# ones written from MLPerf Storage v3.0 submissions size the checkpoint the submissions
# measured and predict the documented bursts; a sweep over node counts on the shipped
# example system writes a results folder (summary.json "gpufeed.simulate/1", sweep.csv,
# the system as simulated, a plot), with the checkpoint bytes of the model's sizing; an
# analytic case through the command line (one server: burst = bytes / bandwidth); the
# training reads' AU; --calibrate on two measured runs (1 and 2 ranks on a local
# folder) writes a system file that simulate reads back, and takes servers.shard_placement
# from a checkpoint_ranks.csv with its server column filled; every bad system file in
# tests/bad_system exits 2 with the message its first line names; paths with quotes
# reach gnuplot as data; gpufeed report on a simulate folder writes the table simulate
# printed, and gpufeed compare sets two simulations side by side (and flags the slower
# one under --tolerance) and a measured run beside its prediction. Llama 3 405B over
# --nodes 8..1024: the counts its layout cannot fill (8, 16) are skipped and named, the
# rest simulated, its parameters written "406 billion"; the plot names each limit of the
# bursts and labels a wide sweep's log axis sparsely, without scientific notation.
# A mix of a training job and a checkpoint job on 2 nodes sharing the servers' links:
# training's AU between the bursts and during the writes and the restore, analytically;
# more checkpoint ranks lower it during the restore; a job whose ranks its model cannot
# fill exits 2 naming it.
# Expected: exit 0 and the figures above; exit 2 with file, line and key for bad input.
# Buggy: a typo in a system file ignored, bytes that differ from a measured run's,
# a results folder overwritten, a path pasted into gnuplot code.
. "$(dirname "$0")/lib.sh"

W=$SRCDIR/workloads
SYS=$SRCDIR/systems

# A sweep on the example system.
res=$TMP/sweep
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$SYS/example.yaml" --nodes 8,16 --results "$res" >"$TMP/o" 2>&1 \
	|| { bad "sweep failed"; cat "$TMP/o"; }
d=$(only_result "$res")
s=$d/summary.json
expect "schema and two points" "$s" '.schema == "gpufeed.simulate/1" and .status == "complete" and (.points | length) == 2'
expect "ranks = nodes x ranks_per_node, data parallel follows" "$s" '.points[0].ranks == 64 and .points[1].ranks == 128 and .points[1].checkpoint.data == 128 and .data_parallel_follows_ranks == true'
# DLIO's sizing (base_checkpointing.py, mlperf_storage_v2.0) of 8,030,261,248 parameters at
# ZeRO 3 over 64 ranks: per rank the layers // 64 in fp16 (250,945,664 B) and the optimizer
# (3 x (P // 64) + 15h) x 4 (1,505,919,744 B); each of the two shards rounded up to 4 KiB.
expect "the model's checkpoint bytes" "$s" '.points[0].checkpoint.bytes >= 112439386112 and .points[0].checkpoint.bytes < 112439386112 + 64 * 2 * 4096 and .points[0].checkpoint.parameters == 8030261248'
expect "burst is the slowest rank, bandwidth = bytes / burst" "$s" '[.points[] | .checkpoint | .write_burst_s == .per_rank_write_s.max and ((.bytes / .write_burst_s) - .write_bytes_per_s | fabs) < 1] | all'
expect "no faster than the servers" "$s" '[.points[] | .checkpoint.write_bytes_per_s <= 40 * 30e9 * 1.000001] | all'
expect "goodput and Daly's interval" "$s" '[.points[].failures.sync | .goodput_percent > 0 and .goodput_percent <= 100 and .daly_interval_s > 0] | all'
[ "$(wc -l <"$d/sweep.csv")" -eq 3 ] && ok "sweep.csv: header and two rows" || bad "sweep.csv rows"
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$d/system.yaml" --nodes 8 --results "$TMP/again" --no-plot >/dev/null 2>&1 \
	&& ok "the system as simulated loads back" || bad "system.yaml of the results does not load"
if command -v gnuplot >/dev/null; then
	[ -s "$d/plots/simulate.png" ] && [ -s "$d/plots/simulate.svg" ] && ok "plot rendered" || bad "no plot: $(cat "$d/plots/NOTE.txt" 2>/dev/null)"
fi
grep -q "results: $d" "$TMP/o" && ok "the table names the folder" || bad "no results line"

# One server of 1 GB/s and nothing else: a burst is bytes / 1 GB/s, exactly.
cat >"$TMP/one.yaml" <<'YAML'
servers:
  count: 1
  read_bandwidth: 1GB/s
  write_bandwidth: 1GB/s
YAML
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$TMP/one.yaml" --results "$TMP/one" --no-plot --quiet >/dev/null 2>&1 || bad "one server failed"
expect "one server: bytes / bandwidth" "$(only_result "$TMP/one")/summary.json" '.points[0].ranks == 8 and (.points[0].checkpoint | ((.write_burst_s - .bytes / 1e9) | fabs) < 1e-6 and .write_limit == "servers")'

# Training reads on the example system: AU from what the servers deliver. 4 MiB requests,
# so that the links bound it: np.load's own 256 KiB, one in flight per reader, leave every
# point latency-bound on this system (33.9% AU from 1 node up).
"$GPUFEED" simulate "$W/unet3d_h100.yaml" --system "$SYS/example.yaml" --nodes 1..64 --set workflow.checkpoint=true \
	--set reader.transfer_size=4MiB \
	--results "$TMP/unet" --no-plot >/dev/null 2>&1 || bad "unet3d sweep failed"
s=$(only_result "$TMP/unet")/summary.json
expect "AU within 0..100, reads no more than the demand" "$s" '[.points[] | .train | .au_percent.mean <= 100 and .au_percent.mean > 0 and .read_bytes_per_s <= .demand_read_bytes_per_s * 1.000001] | all'
# 512 H100s need 1.63 TB/s; the example's bisection carries 1.5 TB/s: steady AU = 1.5 / 1.63
# (the run's own AU is the steady state's there: 168 files give 512 accelerators no batch).
expect "AU = bisection / demand at 64 nodes" "$s" '.points[0].train.au_percent.mean == 100 and (.points[-1].train | .limit == "bisection" and ((.steady_au_percent.mean - 100 * 1.5e12 / .demand_read_bytes_per_s) | fabs) < 1e-6 and .au_percent.mean == .steady_au_percent.mean)'
# Which AU each point is: 168 files over 8 H100s (1 node) give 3 steps an epoch of 7, 2
# counted (the first left out) x 5 epochs; from 2 nodes one step an epoch or none, no
# counted step: the steady state stands in, and the table says so (* under it).
expect "AU's basis: counted steps, or the steady state standing in" "$s" \
	'(.points[0].train | .counted_steps_per_accelerator == 10 and .au_from == "finite_run") and ([.points[] | select(.nodes >= 2) | .train | .counted_steps_per_accelerator == 0 and .au_from == "steady_state" and .au_percent.mean == .steady_au_percent.mean] | all)'
"$GPUFEED" report "$(only_result "$TMP/unet")" >"$TMP/unet.txt" 2>&1
grep -q '^ *\* nodes 2, 4, 8, 16, 32, 64: the dataset leaves an accelerator no step that AU counts' "$TMP/unet.txt" &&
	grep -Eq '^ +64 +512 .* [0-9.]+\* ' "$TMP/unet.txt" && ! grep -Eq '^ +1 +8 .* [0-9.]+[*~] ' "$TMP/unet.txt" &&
	ok "the table marks the points whose AU is the steady state's (*) and says why" ||
	{ bad "no * mark or note for the steady-state AU"; cat "$TMP/unet.txt"; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["nodes"], $c["au_from"] }' "$(only_result "$TMP/unet")/sweep.csv" |
	tr '\n' ' ' | grep -q '^1 finite_run 2 steady_state 4 steady_state' && ok "sweep.csv: au_from per node count" ||
	bad "sweep.csv: au_from missing or wrong"
# A finite run (sim/loader.h): 112 files for 8 H100s, 2 steps each, the first left out and
# the second's batch read beside the first's (2 threads, prefetch 2): the counted step
# never waits although one server of 1 GB/s gives 4% of the demand.
cat >"$TMP/slow.yaml" <<'YAML'
servers:
  count: 1
  read_bandwidth: 1GB/s
  write_bandwidth: 1GB/s
YAML
"$GPUFEED" simulate "$W/unet3d_h100.yaml" --system "$TMP/slow.yaml" --set dataset.num_files_train=112 \
	--set reader.read_threads=2 --results "$TMP/unet1" --no-plot --quiet >/dev/null 2>&1 || bad "unet3d on one server failed"
expect "finite run: the steps a short run counts did not wait; steady AU = supply / demand" \
	"$(only_result "$TMP/unet1")/summary.json" '.points[0].train | .au_percent.mean == 100 and ((.steady_au_percent.mean - 100 * 1e9 / .demand_read_bytes_per_s) | fabs) < 1e-6'
"$GPUFEED" report "$(only_result "$TMP/unet1")" 2>&1 | grep -q '^ *~ 1 node: AU from 5 counted steps an accelerator' &&
	ok "a run this short: the AU is marked ~ with its counted steps" || bad "no ~ note for 5 counted steps"

expect "async: reads drop during a burst" "$s" '[.points[] | .async.au_during_percent <= .async.au_outside_percent + 1e-9] | all'

# Every shipped system file loads (validated like a workload: a bad key would be exit 2).
for f in "$SYS"/*.yaml; do
	"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$f" --nodes 1 --results "$TMP/sys" --no-plot --quiet >"$TMP/o" 2>&1 \
		&& ok "systems/$(basename "$f") loads" || { bad "systems/$(basename "$f") does not load"; cat "$TMP/o"; }
done
# The systems written from MLPerf Storage v3.0 submissions (docs/simulate.md, "MLPerf
# Storage v3.0 checkpointing"): the checkpoint is the bytes the submission measured
# (its summary.json checkpoint_size_GB, GiB), and the predicted burst is the table's.
pub() { # system workload ranks_per_node jq-test what
	"$GPUFEED" simulate "$W/$2.yaml" --system "$SYS/$1.yaml" --set-system clients.ranks_per_node="$3" \
		--results "$TMP/pub-$1-$2" --no-plot --quiet >"$TMP/o" 2>&1 || { bad "$1 $2 failed"; cat "$TMP/o"; }
	expect "$5" "$(only_result "$TMP/pub-$1-$2")/summary.json" "$4"
}
gib='(1024 * 1024 * 1024)'
pub hpe_e2000_lustre llama3_70b 4 ".points[0] | .ranks == 64 and .nodes == 16 and (.checkpoint | ((.bytes / $gib - 911.2121) | fabs) < 0.01 and .write_limit == \"servers\" and ((.write_burst_s - .bytes / 120e9) | fabs) < 1e-6 and ((.restore_burst_s - .bytes / 160e9) | fabs) < 1e-6)" \
	"e2000 70B: 911.21 GiB as measured, servers bind (120 GB/s write, 160 GB/s read)"
pub hpe_k3000_daos llama3_70b 8 ".points[0] | .ranks == 64 and (.checkpoint | .write_limit == \"client_node\" and ((.write_burst_s - .bytes / 400e9) | fabs) < 1e-6)" \
	"k3000 70B: 8 client NICs bind, 400 GB/s"
pub aistore_oci_3n llama3_405b 64 ".points[0] | .ranks == 512 and .nodes == 8 and (.checkpoint | ((.bytes / $gib - 5292.2487) | fabs) < 0.01 and .write_limit == \"server_links\" and ((.write_burst_s - .bytes / 37.5e9) | fabs) < 1e-6)" \
	"aistore 405B: 5292.25 GiB as measured, three 100 Gbit/s links bind"
pub aistore_oci_3n llama3_1t 128 ".points[0] | .ranks == 1024 and (.checkpoint | ((.bytes / $gib - 15426.5893) | fabs) < 0.01 and .write_limit == \"server_links\")" \
	"aistore 1T: 15426.59 GiB as measured, server links bind"

# Bad input: exit 2 and the message.
for f in "$SRCDIR"/tests/bad_system/*.yaml; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$f" --results "$TMP/bad" >"$TMP/o" 2>&1
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$TMP/o" && grep -qF -- "$(basename "$f")" "$TMP/o"; then
		ok "$(basename "$f"): exit 2, $want"
	else
		bad "$(basename "$f"): exit $rc, wanted '$want'"; cat "$TMP/o"
	fi
done
[ ! -e "$TMP/bad" ] || [ -z "$(ls -A "$TMP/bad")" ] && ok "no results folder for bad input" || bad "results written for bad input"
"$GPUFEED" simulate "$W/llama3_405b.yaml" --system "$SYS/example.yaml" --nodes 3 --results "$TMP/bad" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "tensor 8 x pipeline 32 = 256 ranks, and 24 ranks.*multiples of 32" "$TMP/o" &&
	[ ! -e "$TMP/bad" ] && ok "a node count the parallelism cannot use: exit 2, naming the counts that can" ||
	{ bad "parallelism misfit"; cat "$TMP/o"; }
# A sweep over counts the layout fills only in part (256 ranks a replica, 8 a node): the
# others are skipped and named, the rest simulated; the table writes the parameters as a
# count; the plot names what limits the bursts (rank_ceiling at 32 nodes, then servers),
# over the points it binds.
"$GPUFEED" simulate "$W/llama3_405b.yaml" --system "$SYS/example.yaml" --nodes 8..1024 --results "$TMP/skip" \
	>"$TMP/o" 2>&1 && ok "405B over 8..1024 nodes: exit 0" || { bad "405B over 8..1024 nodes failed"; cat "$TMP/o"; }
sk=$(only_result "$TMP/skip")
expect "the counts the layout cannot fill are skipped, the rest simulated" "$sk/summary.json" \
	'[.skipped[].nodes] == [8, 16] and [.skipped[].ranks] == [64, 128] and (.skipped_why | test("multiples of 32")) and [.points[].nodes] == [32, 64, 128, 256, 512, 1024] and ([.points[].checkpoint.data] == [1, 2, 4, 8, 16, 32])'
grep -q "^  skipped: 8, 16 nodes: one model replica is tensor 8 x pipeline 32 = 256 ranks" "$TMP/o" &&
	ok "the table names the skipped counts and why" || { bad "no skipped line"; cat "$TMP/o"; }
grep -q "406 billion parameters" "$TMP/o" && ! grep -q "[0-9] B parameters" "$TMP/o" &&
	ok "406 billion parameters, not 406 B" || { bad "parameters as bytes"; grep parameters "$TMP/o"; }
if command -v gnuplot >/dev/null; then
	ssvg=$sk/plots/simulate.svg
	# The plot writes each limit summary.json names (rank_ceiling: "rank ceiling").
	missing=$(jq -r '[.points[].checkpoint.write_limit] | unique[]' "$sk/summary.json" | sed 's/_/ /g' |
		while read -r l; do grep -q "<text>$l</text>" "$ssvg" || echo "$l"; done)
	[ "$(jq '[.points[].checkpoint.write_limit] | unique | length' "$sk/summary.json")" -ge 2 ] && [ -z "$missing" ] &&
		ok "the plot names what limits the bursts" || bad "the plot does not name the limit(s): ${missing:-one limit only}"
	# 17 doubling counts: the x labels leave room between them (each as wide as its digits,
	# 0.64 em each in DejaVu Sans), never 1e+04.
	"$GPUFEED" simulate "$W/unet3d_h100.yaml" --system "$SYS/example.yaml" --nodes 1..65536 --results "$TMP/wide" \
		--quiet >"$TMP/o" 2>&1 || { bad "unet3d over 1..65536 nodes failed"; cat "$TMP/o"; }
	ssvg=$(only_result "$TMP/wide")/plots/simulate.svg
	gap=$(python3 - "$ssvg" <<'EOF'
import collections, re, sys
# gnuplot writes each tick label in a group translated to its place: the x labels share a y.
labels = re.findall(r'translate\(([\d.]+),([\d.]+)\)"[^>]*font-size="([\d.]+)"[^>]*>\s*<text>\s*(\d+)</text>',
                    open(sys.argv[1]).read())
y = collections.Counter(l[1] for l in labels).most_common(1)[0][0]
row = sorted((float(x), float(fs), t) for x, ly, fs, t in labels if ly == y)
print(len(row), round(min(b[0] - a[0] - 0.64 * a[1] * (len(a[2]) + len(b[2])) / 2 for a, b in zip(row, row[1:]))))
EOF
)
	[ "${gap#* }" -gt 0 ] 2>/dev/null && ok "17 node counts: ${gap% *} x labels in 2 panels, ${gap#* } px apart at least" ||
		bad "17 node counts: x labels overlap (labels, least gap: ${gap:-none})"
	sci=$(grep -hoE '<text>[-0-9.]+e[-+][0-9]+</text>' "$ssvg" "$sk/plots/simulate.svg" | head -3)
	[ -z "$sci" ] && ok "no tick in scientific notation" || bad "ticks in scientific notation: $sci"
fi
"$GPUFEED" simulate "$W/llama3_8b.yaml" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q -- "--system" "$TMP/o" && ok "no --system: exit 2" || bad "no --system"
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$SYS/example.yaml" --nodes 8,x >"$TMP/o" 2>&1
[ $? -eq 2 ] && ok "bad --nodes: exit 2" || bad "bad --nodes"
"$GPUFEED" simulate --help >"$TMP/o" 2>&1 && grep -q -- "--calibrate" "$TMP/o" && ok "--help" || bad "--help"

# Paths with quotes and a dollar go to gnuplot as arguments, never as code.
odd="$TMP/it's \"odd\" \$HOME"
if command -v gnuplot >/dev/null; then
	"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$SYS/example.yaml" --nodes 1,2 --results "$odd" >/dev/null 2>&1 || bad "odd path run"
	[ -s "$(only_result "$odd")/plots/simulate.png" ] && ok "plot under a path with quotes" || bad "no plot under an odd path"
fi

# Calibrate on two measured runs, 1 and 2 ranks writing to a local folder.
for n in 1 2; do
	gf "$n" run "$W/llama3_8b.yaml" --target "$TMP/t$n" --results "$TMP/m$n" --quiet --set checkpoint.scale=1/1000 \
		--set model.parallelism.data=$n --set checkpoint.time_between_checkpoints=0 \
		--set checkpoint.num_checkpoints_write=2 --set checkpoint.num_checkpoints_read=2 >"$TMP/o" 2>&1 \
		|| { bad "measured run at $n ranks failed"; cat "$TMP/o"; }
done
"$GPUFEED" simulate --calibrate "$(only_result "$TMP/m1")" "$(only_result "$TMP/m2")" --system "$SYS/local.yaml" \
	--results "$TMP/cal" >"$TMP/o" 2>&1 || { bad "calibrate failed"; cat "$TMP/o"; }
c=$(only_result "$TMP/cal")
expect "calibrate: parameters and every run's fit" "$c/summary.json" '.schema == "gpufeed.calibrate/1" and (.runs | length) == 2 and ([.runs[].figures.write_burst_s | .measured > 0 and .predicted > 0 and (.error_percent | type) == "number"] | all) and .parameters["clients.rank_write_bandwidth"].fitted == true'
grep -q "^#.*write burst" "$c/system.yaml" && ok "the fitted file lists the fit per run" || bad "no fit in the fitted file"
# Issue 28 item 12: a null recovery_rank_shift (SIGSEGV before) is "not given"; bursts that
# are not an array (a json-c assert, SIGABRT, before) are not what calibrate reads (the
# burst medians are): no crash, no sanitizer report.
m1=$(only_result "$TMP/m1")
mkdir -p "$TMP/hostile/null" "$TMP/hostile/bursts"
cp "$m1"/*.csv "$TMP/hostile/null/"; cp "$m1"/*.csv "$TMP/hostile/bursts/"
jq '.workload.checkpoint.recovery_rank_shift = null' "$m1/summary.json" >"$TMP/hostile/null/summary.json"
jq '.checkpoint.bursts = "many"' "$m1/summary.json" >"$TMP/hostile/bursts/summary.json"
"$GPUFEED" simulate --calibrate "$TMP/hostile/null" "$(only_result "$TMP/m2")" --system "$SYS/local.yaml" \
	--results "$TMP/cal-null" >"$TMP/o" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "calibrate: a null recovery_rank_shift is read as not given" || { bad "calibrate, null shift: exit $rc"; cat "$TMP/o"; }
"$GPUFEED" simulate --calibrate "$TMP/hostile/bursts" "$(only_result "$TMP/m2")" --system "$SYS/local.yaml" \
	--results "$TMP/cal-bursts" >"$TMP/o" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -qE "runtime error|Sanitizer" "$TMP/o" &&
	ok "calibrate: bursts that are not an array: no crash" ||
	{ bad "calibrate, bursts not an array: exit $rc"; cat "$TMP/o"; }
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$c/system.yaml" --results "$TMP/fitted" --no-plot >/dev/null 2>&1 \
	&& ok "the fitted system simulates" || bad "the fitted system does not load"
# The report and compare machinery of runs, on simulate folders.
"$GPUFEED" report "$d" --quiet >"$TMP/o" 2>&1 || { bad "report on a simulate folder"; cat "$TMP/o"; }
# The table simulate printed is the one report writes: one implementation.
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$SYS/example.yaml" --nodes 8,16 --results "$TMP/sweep2" --no-plot \
	>"$TMP/o2" 2>&1 || bad "sweep again"
sed '/^$/{N;/\nresults:/d}' "$TMP/o2" | grep -v '^results:' >"$TMP/table"
diff -q "$TMP/table" "$d/report.txt" >/dev/null && ok "report.txt is the table simulate printed" ||
	{ bad "report.txt differs from simulate's table"; diff "$TMP/table" "$d/report.txt" | head; }
grep -qE '^ +16 +128 ' "$d/report.txt" && grep -q '<h1>gpufeed simulate: llama3_8b on example</h1>' "$d/report.html" &&
	ok "report.txt and report.html of a sweep" || bad "report of a sweep: $(head -3 "$d/report.txt")"
# Two simulations: the example and the example with 2 servers, at 8 nodes.
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$SYS/example.yaml" --set-system servers.count=2 --nodes 8 \
	--results "$TMP/few" --no-plot --quiet >/dev/null 2>&1 || bad "2-server simulation"
"$GPUFEED" compare "$d:nodes=8" "$(only_result "$TMP/few")" --tolerance 5% --json >"$TMP/cmp.json" 2>"$TMP/o"
rc=$?
[ $rc -eq 3 ] && ok "compare two simulations: 2 servers regress (exit 3)" || { bad "compare two simulations: exit $rc"; cat "$TMP/o"; }
expect "compare: the write burst of 2 servers is worse" "$TMP/cmp.json" '([.regressions[].figure] | index("checkpoint.write_burst_s")) != null and ([.figures[] | select(.key == "checkpoint.write_burst_s") | .values[1] > .values[0]] | all)'
"$GPUFEED" compare "$d" "$(only_result "$TMP/few")" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q 'nodes 8, 16' "$TMP/o" && ok "a sweep in compare: exit 2, naming its node counts" || { bad "sweep in compare"; cat "$TMP/o"; }
# A measured burst against its prediction: the 2-rank run above, simulated on the fitted system.
"$GPUFEED" simulate "$W/llama3_8b.yaml" --system "$c/system.yaml" --set-system clients.ranks_per_node=2 --nodes 1 \
	--set checkpoint.scale=1/1000 --set checkpoint.num_checkpoints_write=2 --set checkpoint.num_checkpoints_read=2 \
	--results "$TMP/pred" --no-plot --quiet >/dev/null 2>&1 || bad "prediction of the 2-rank run"
"$GPUFEED" compare "$(only_result "$TMP/m2")" "$(only_result "$TMP/pred")" --json >"$TMP/cmp.json" 2>"$TMP/o" ||
	{ bad "compare measured and predicted"; cat "$TMP/o"; }
expect "compare: measured and predicted write and restore bursts side by side" "$TMP/cmp.json" '([.figures[] | select(.key == "checkpoint.write_burst_s" or .key == "checkpoint.restore_burst_s") | .values | (.[0] > 0 and .[1] > 0)] | length) == 2 and .runs[1].engine == "simulate"'
# servers.shard_placement from a run's checkpoint_ranks.csv: the 2-rank run with the
# server column GlusterFS would have filled (rank 0 wrote to b1, then to b2; rank 1 to a
# quoted name with a comma, which sorts first): [1, 0], in the fit and the fitted file.
# With one server it is not used; a CSV cut short is an error naming its file and line.
cp -r "$(only_result "$TMP/m2")" "$TMP/m2g"
awk -F, 'BEGIN { OFS = "," } NR > 1 && $1 == 0 && $2 == "write" { $6 = $4 == 0 ? "s:/b1;s:/b2" : "\"s:/b,0\"" } { print }' \
	"$(only_result "$TMP/m2")/checkpoint_ranks.csv" >"$TMP/m2g/checkpoint_ranks.csv"
"$GPUFEED" simulate --calibrate "$(only_result "$TMP/m1")" "$TMP/m2g" --system "$SYS/local.yaml" --set-system servers.count=2 \
	--results "$TMP/calg" >"$TMP/o" 2>&1 || { bad "calibrate with a placement failed"; cat "$TMP/o"; }
grep -qxF "servers.shard_placement from $TMP/m2g/checkpoint_ranks.csv: [1, 0]" "$TMP/o" &&
	grep -qxF "  shard_placement: [1, 0]" "$(only_result "$TMP/calg")/system.yaml" &&
	ok "calibrate: servers.shard_placement [1, 0] from the run's checkpoint_ranks.csv" ||
	{ bad "calibrate: no placement from checkpoint_ranks.csv"; cat "$TMP/o"; }
expect "calibrate: the placement and its source in summary.json" "$(only_result "$TMP/calg")/summary.json" \
	'.parameters["servers.shard_placement"] | .servers == [1, 0] and .source == "runs" and (.file | endswith("m2g/checkpoint_ranks.csv"))'
"$GPUFEED" simulate --calibrate "$TMP/m2g" --system "$SYS/local.yaml" --results "$TMP/calg1" >"$TMP/o" 2>&1 &&
	grep -q "^note: servers.shard_placement not taken from .*: it names 2 servers, servers.count is 1" "$TMP/o" &&
	! grep -q shard_placement "$(only_result "$TMP/calg1")/system.yaml" &&
	ok "calibrate: a placement on more servers than servers.count is noted, not used" ||
	{ bad "calibrate: placement on 2 servers with servers.count 1"; cat "$TMP/o"; }
head -2 "$TMP/m2g/checkpoint_ranks.csv" >"$TMP/csv" && echo "0,write,0,1" >>"$TMP/csv" && mv "$TMP/csv" "$TMP/m2g/checkpoint_ranks.csv"
"$GPUFEED" simulate --calibrate "$TMP/m2g" --system "$SYS/local.yaml" --results "$TMP/calg2" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -qF "m2g/checkpoint_ranks.csv: line 3: 4 fields where the header has 6" "$TMP/o" && [ ! -e "$TMP/calg2" ] &&
	ok "calibrate on a cut checkpoint_ranks.csv: exit 2, naming the file and line" || { bad "calibrate on a bad CSV"; cat "$TMP/o"; }
"$GPUFEED" simulate --calibrate "$TMP/nowhere" --system "$SYS/local.yaml" --results "$TMP/cal2" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "summary.json" "$TMP/o" && ok "calibrate without a results folder: exit 2" || bad "calibrate on nothing"
# A results folder whose summary.json is a link to /dev/zero: refused by report's bounded
# loader (no link in a results folder is followed, so nothing is read without end), exit 2,
# for --calibrate and --check alike.
mkdir -p "$TMP/zero" && ln -sf /dev/zero "$TMP/zero/summary.json"
timeout 20 "$GPUFEED" simulate --calibrate "$TMP/zero" --system "$SYS/local.yaml" --results "$TMP/cal3" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "zero/summary.json is a link" "$TMP/o" && [ ! -e "$TMP/cal3" ] && ok "calibrate on a summary.json linked to /dev/zero: exit 2" ||
	{ bad "calibrate on /dev/zero"; cat "$TMP/o"; }
timeout 20 "$GPUFEED" simulate --check "$TMP/zero" --system "$SYS/local.yaml" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "zero/summary.json is a link" "$TMP/o" && ok "check on a summary.json linked to /dev/zero: exit 2" ||
	{ bad "check on /dev/zero"; cat "$TMP/o"; }
# --- A mix (docs/simulate.md, Simulating a mix): a training job (2 ranks, 1 MiB samples,
# 41.9 MB/s of demand) and a checkpoint job (2 ranks of a scaled Llama 3 8B, two writes,
# one restore), each on its own node of 2 ranks, sharing 2 servers' links of 10 MB/s each
# direction. Between the bursts training gets the links' 20 MB/s; during the restore it
# shares the servers' transmit side with the restore's 2 ranks (4 flows, 5 MB/s each); the
# writes cross the other direction and leave it alone. ---
cat >"$TMP/mixsys.yaml" <<'YAML'
name: twohost
clients:
  ranks_per_node: 2
  nic_bandwidth: 40MB/s
network:
  link_bandwidth: 10MB/s
servers:
  count: 2
  read_bandwidth: 1TB/s
  write_bandwidth: 1TB/s
YAML
# mixfile FILE CKPT_RANKS: the mix with the checkpoint job on CKPT_RANKS ranks.
mixfile() {
	cat >"$1" <<YAML
mix: train-ckpt
jobs:
  - name: train
    workload: $SRCDIR/tests/integration/small.yaml
    ranks: 2
    set: {dataset.record_length_bytes: 1MiB, dataset.record_length_bytes_stdev: 0, train.computation_time: 100ms, metric.au: 0.9}
  - name: ckpt
    workload: $W/llama3_8b.yaml
    ranks: $2
    set: {model.parallelism.data: $2, checkpoint.scale: 0.00025, checkpoint.num_checkpoints_write: 2, checkpoint.num_checkpoints_read: 1}
YAML
}
mixfile "$TMP/mix.yaml" 2
"$GPUFEED" simulate "$TMP/mix.yaml" --system "$TMP/mixsys.yaml" --results "$TMP/mix" >"$TMP/o" 2>&1 ||
	{ bad "simulate of a mix failed"; cat "$TMP/o"; }
s=$(only_result "$TMP/mix")/summary.json
expect "mix: a simulate summary with no points and a simulated_mix of 2 jobs on 2 nodes" "$s" \
	'.schema == "gpufeed.simulate/1" and (.points | length) == 0 and .simulated_mix.mix == "train-ckpt" and .simulated_mix.nodes == 2 and ([.simulated_mix.jobs[] | .nodes] == [1, 1]) and .simulated_mix.jobs[1].first_node == 1'
expect "mix: training gets the links between the bursts (20 MB/s), half of them during the restore, all during the writes" "$s" \
	'.simulated_mix.jobs[0].train | (.read_bytes_per_s_between - 20e6 | fabs) < 1 and (.au_between_percent - 100 * 20e6 / .demand_read_bytes_per_s | fabs) < 1e-6 and (.au_during_restores_percent - 100 * 10e6 / .demand_read_bytes_per_s | fabs) < 1e-6 and (.au_during_writes_percent - .au_between_percent | fabs) < 1e-6 and .during_bursts_of == "ckpt" and .limit == "server_links"'
expect "mix: AU during the bursts <= between, the mean of the writes' and the restore's by their time" "$s" \
	'.simulated_mix.jobs[0].train as $t | .simulated_mix.jobs[1].checkpoint as $c | $t.au_during_percent <= $t.au_between_percent and (($t.au_during_writes_percent * 2 * $c.write_burst_s + $t.au_during_restores_percent * $c.restore_burst_s) / (2 * $c.write_burst_s + $c.restore_burst_s) - $t.au_during_percent | fabs) < 1e-6'
expect "mix: the restore at its share of the links (10 MB/s), verdicts STARVED and MEASURED" "$s" \
	'(.simulated_mix.jobs[1].checkpoint | (.restore_bytes_per_s - 10e6 | fabs) < 1 and .write_count == 2 and .restore_count == 1) and ([.simulated_mix.jobs[].verdict] == ["STARVED", "MEASURED"])'
grep -Eq '^  train +2 +1  STARVED +20.0 MB/s +15.0 MB/s +47.7% +35.8%' "$TMP/o" && grep -q '^  ckpt: MEASURED ' "$TMP/o" &&
	ok "mix: the table printed, a row and a line per job" || { bad "mix: no table"; cat "$TMP/o"; }
"$GPUFEED" report "$(only_result "$TMP/mix")" >"$TMP/o2" 2>&1 && ! grep -q "lacks" "$TMP/o2" &&
	grep -q 'STARVED' "$(only_result "$TMP/mix")/report.txt" && [ -s "$(only_result "$TMP/mix")/report.html" ] &&
	ok "mix: gpufeed report reads its summary.json (every SIM figure as declared) and writes the table again" ||
	{ bad "mix: report"; cat "$TMP/o2"; }
# A checkpoint job on 4 ranks (2 nodes) takes more of the links during its restore: 6
# flows share them, training keeps 2 of them.
mixfile "$TMP/mix4.yaml" 4
"$GPUFEED" simulate "$TMP/mix4.yaml" --system "$TMP/mixsys.yaml" --results "$TMP/mix4" --quiet >/dev/null 2>&1 || bad "mix of 4 checkpoint ranks failed"
jq -s -e '(.[1].simulated_mix.jobs[0].train.au_during_restores_percent < .[0].simulated_mix.jobs[0].train.au_during_restores_percent) and ((.[1].simulated_mix.jobs[0].train.read_bytes_per_s_during) < (.[0].simulated_mix.jobs[0].train.read_bytes_per_s_during)) and .[1].simulated_mix.nodes == 3' \
	"$s" "$(only_result "$TMP/mix4")/summary.json" >/dev/null &&
	ok "mix: more checkpoint ranks, more checkpoint flows: lower AU during the restore" || bad "mix: more checkpoint ranks did not lower the AU during bursts"
# The shipped mix on the example system: two UNet3D jobs fed beside Llama 3 70B.
"$GPUFEED" simulate "$W/mix_two_train_70b.yaml" --system "$SYS/example.yaml" --results "$TMP/mix70" --quiet >/dev/null 2>&1 || bad "the shipped mix failed"
expect "mix: the shipped mix, 3 jobs on 10 nodes" "$(only_result "$TMP/mix70")/summary.json" \
	'.simulated_mix.nodes == 10 and ([.simulated_mix.jobs[].name] == ["unet-a", "unet-b", "llama70b"]) and (.simulated_mix.jobs[2].checkpoint.write_burst_s > 0)'
# Bad input: a job whose ranks its model cannot be laid on (Llama 3 8B, data 2, on 3
# ranks), --nodes with a mix: exit 2, the job named, nothing written.
mixfile "$TMP/mixbad.yaml" 2
sed -i 's/^    ranks: 2$/    ranks: 3/' "$TMP/mixbad.yaml"
"$GPUFEED" simulate "$TMP/mixbad.yaml" --system "$TMP/mixsys.yaml" --results "$TMP/mixbad" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "job ckpt" "$TMP/o" && grep -q "mixbad.yaml" "$TMP/o" && [ ! -e "$TMP/mixbad" ] &&
	ok "mix: a job whose ranks do not fit its model: exit 2 naming the file and the job" || { bad "mix: bad ranks"; cat "$TMP/o"; }
"$GPUFEED" simulate "$TMP/mix.yaml" --system "$TMP/mixsys.yaml" --nodes 4 --results "$TMP/mixbad" >"$TMP/o" 2>&1
[ $? -eq 2 ] && grep -q "is a mix" "$TMP/o" && [ ! -e "$TMP/mixbad" ] && ok "mix: --nodes refused, exit 2" || { bad "mix: --nodes"; cat "$TMP/o"; }
"$GPUFEED" simulate --help | grep -q 'gpufeed simulate MIX.yaml --system' && ok "simulate --help describes the mix form" || bad "simulate --help: no mix"
finish
