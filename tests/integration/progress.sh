#!/usr/bin/env bash
# Description: the progress display under mpirun -np 2. --progress=line: every line
# carries a UTC timestamp, the first train line comes within 2 s of the phase's start,
# the read rate shown is the job's (within 10% of summary.json's read_bytes_per_s, the sum
# of the ranks: one rank alone would show half), AU is shown, each phase ends with a line
# at 100%; a checkpoint-only run shows percent by bytes and its write rate. The ETA counts
# the checkpoints: a checkpoint-only run's waits (its first wait at 0% has an ETA and names
# the bursts to come) and training's halts (named until one is measured); the last ETA
# before half-way is within 25% of the time that remained (summary.json). --progress=off
# prints no progress line. SIGTERM to mpirun: a line names the .partial folder that holds
# the partial results. In a terminal (tmux) the default (auto) redraws one line in place,
# and logs lines when mpirun's stderr goes to a file.
# Expected: all of the above. Buggy: "(rank 0)" figures at half the job's rate, the first
# line after 10 s, no timestamps, a silent interrupt, a new line per update in a terminal,
# an ETA that leaves out the checkpoints to come or none at all while waiting for one.
. "$(dirname "$0")/lib.sh"

ts='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'

# The first number of a "read 26.1 MB/s" field in bytes/s.
rate_of() {
	sed -nE "s/.*[|] $1 ([0-9.]+) ([kMGT]?)B\/s.*/\1 \2/p" | awk '{
		m = 1; if ($2 == "k") m = 1e3; if ($2 == "M") m = 1e6; if ($2 == "G") m = 1e9; if ($2 == "T") m = 1e12
		printf "%.6e\n", $1 * m }'
}

# Training paced by compute: 2 ranks x 2 samples x 32 KiB / 5 ms = 26 MB/s.
paced=(--set dataset.num_files_train=512 --set train.epochs=1000 --set train.computation_time=5ms)

# 1. Line mode, 12 s of training.
gf 2 run "$SMALL" --target "$TMP/data" --results "$TMP/r1" --progress=line --duration 12s "${paced[@]}" \
	>"$TMP/out1" 2>"$TMP/err1" || { bad "line run failed"; cat "$TMP/err1"; }
s=$(only_result "$TMP/r1")/summary.json
grep '^progress ' "$TMP/err1" >"$TMP/lines1"
n=$(wc -l <"$TMP/lines1")
[ "$n" -ge 3 ] && ok "$n progress lines" || { bad "only $n progress lines"; cat "$TMP/err1"; }
bad_ts=$(grep -cvE "^progress $ts (datagen|train) " "$TMP/lines1")
[ "$bad_ts" -eq 0 ] && ok "every line starts with a UTC timestamp" || { bad "$bad_ts lines without one"; cat "$TMP/lines1"; }
grep -qE '^progress [^ ]+ datagen 100% \| done in ' "$TMP/lines1" && ok "datagen ends at 100%" || bad "no datagen end line"
grep -qE '^progress [^ ]+ train 100% \| done in ' "$TMP/lines1" && ok "train ends at 100%" || bad "no train end line"
first=$(grep -E '^progress [^ ]+ train +[0-9]+% \|' "$TMP/lines1" | head -1)
el=$(printf '%s\n' "$first" | sed -nE 's/.*\| ([0-9.]+) (ms|s) elapsed.*/\1 \2/p' |
	awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')
awk -v e="${el:-99}" 'BEGIN { exit !(e <= 2) }' && ok "first train line after ${el} s" ||
	{ bad "first train line after ${el:-never} s"; cat "$TMP/lines1"; }
printf '%s\n' "$first" | grep -qE 'ETA [0-9]' && ok "ETA shown" || bad "no ETA in: $first"
printf '%s\n' "$first" | grep -qE 'AU [0-9.]+%' && ok "AU shown" || bad "no AU in: $first"
printf '%s\n' "$first" | grep -q '(rank 0)' && bad "figures are rank 0's: $first" || ok "figures are the job's"
# The line after 10 s averages over those 10 s: the rate to hold against the summary.
shown=$(grep -E '^progress [^ ]+ train +[0-9]+% \|' "$TMP/lines1" | grep -v 'done in' | tail -1 | rate_of read)
want=$(jq '.train.read_bytes_per_s' "$s")
awk -v a="${shown:-0}" -v b="$want" 'BEGIN { d = a / b - 1; exit !(d < 0.10 && d > -0.10) }' &&
	ok "shown read rate $shown B/s within 10% of summary.json's $want (the sum of 2 ranks)" ||
	{ bad "shown read rate ${shown:-none} B/s, summary.json $want"; cat "$TMP/lines1"; }

# 2. Off: nothing.
gf 2 train "$SMALL" --target "$TMP/data" --results "$TMP/r2" --progress=off --duration 2s "${paced[@]}" \
	>"$TMP/out2" 2>"$TMP/err2" || bad "off run failed"
grep -qE $'^progress |elapsed|\r' "$TMP/err2" && { bad "--progress=off printed progress"; cat "$TMP/err2"; } ||
	ok "--progress=off prints no progress"

# A mode that does not exist is a usage error.
"$GPUFEED" train "$SMALL" --progress=fancy >/dev/null 2>"$TMP/err-mode"
rc=$?
[ $rc -eq 2 ] && grep -q "expected auto, bar, line or off" "$TMP/err-mode" && ok "--progress=fancy: exit 2, the modes named" ||
	{ bad "--progress=fancy: exit $rc"; cat "$TMP/err-mode"; }

# "ETA 1m15s" and the like in seconds.
secs_of() {
	awk '{ t = 0; s = $0
		if (match(s, /^[0-9]+h/)) { t += substr(s, 1, RLENGTH - 1) * 3600; s = substr(s, RLENGTH + 1) }
		if (match(s, /^[0-9]+m[0-9]/)) { t += substr(s, 1, RLENGTH - 2) * 60; s = substr(s, RLENGTH) }
		if (s ~ / ?ns$/) m = 1e-9; else if (s ~ / ?us$/) m = 1e-6; else if (s ~ / ?ms$/) m = 1e-3; else if (s ~ /m$/) m = 60; else m = 1
		gsub(/[^0-9.]/, "", s); printf "%.3f\n", t + s * m }'
}

# check_eta RECORDS PHASE TOTAL_S BAND: the last record of PHASE before TOTAL_S / 2 that
# has an ETA, against the time that remained then (TOTAL_S - elapsed): within BAND (0.25:
# 25%) either way; an ETA that names checkpoints it has no time for yet ("+ 2
# checkpoints") is a lower bound, at most BAND above.
check_eta() {
	local rec=$1 phase=$2 total=$3 band=$4 line el eta left low=0 how
	line=$(grep -E "^$phase +[0-9]+% [|] .* elapsed, ETA " "$rec" | while IFS= read -r l; do
		e=$(printf '%s\n' "$l" | sed -E 's/^[^|]*[|] ([^|,]+) elapsed.*/\1/' | secs_of)
		awk -v e="$e" -v t="$total" 'BEGIN { exit !(e < t / 2) }' && printf '%s\n' "$l"
	done | tail -1)
	el=$(printf '%s\n' "$line" | sed -E 's/^[^|]*[|] ([^|,]+) elapsed.*/\1/' | secs_of)
	eta=$(printf '%s\n' "$line" | sed -E 's/.*, ETA ([^|+]+[^ |+]).*/\1/' | secs_of)
	left=$(awk -v t="$total" -v e="$el" 'BEGIN { printf "%.2f", t - e }')
	printf '%s\n' "$line" | grep -qE ", ETA [^|]+ [+] [0-9]+ checkpoint" && low=1
	how=$([ $low = 1 ] && echo "a lower bound at most $band above" || echo "within $band of")
	if [ -n "$line" ] && awk -v a="$eta" -v r="$left" -v b="$band" -v low="$low" \
		'BEGIN { exit !((low || a >= r * (1 - b)) && a <= r * (1 + b)) }'; then
		ok "$phase: the last ETA before half-way of $total s, $eta s at $el s, is $how the $left s left: '$line'"
	else
		bad "$phase: the last ETA before half-way of $total s is not $how the time left: '${line:-none}'"
		grep -E "^$phase " "$rec"
	fi
}

# 3. Checkpoint only: percent by bytes (2 writes and 2 restores of 10.7 MiB, 2 s apart),
# with the write rate. Bar mode into a file: a record every second between carriage
# returns, a finer look than a line every 10 s. The ETA counts the waits to come (the old
# arithmetic stretched the bytes' rate over them: 3x the time left, halfway through the
# second wait), and the bar says what it waits for.
gf 2 run "$SRCDIR/workloads/llama3_8b.yaml" --target "$TMP/ck" --results "$TMP/r3" --progress=bar \
	--set checkpoint.scale=1/10000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=2 \
	--set checkpoint.num_checkpoints_write=2 --set checkpoint.num_checkpoints_read=2 --set checkpoint.fsync=false \
	>"$TMP/out3" 2>"$TMP/err3" || { bad "checkpoint run failed"; cat "$TMP/err3"; }
tr '\r' '\n' <"$TMP/err3" | sed 's/^\x1b\[K//' >"$TMP/rec3"
grep -qE "^checkpoint +([1-9]|[1-9][0-9])% [|].*ETA.*[|] (read [^|]+[|] )?write [0-9.]+ [kMG]?B/s" "$TMP/rec3" &&
	ok "checkpoint: percent between 1 and 99, ETA and write rate" || { bad "checkpoint: no percent record"; cat "$TMP/rec3"; }
grep -qE "^checkpoint 100% [|] done in " "$TMP/rec3" && ok "checkpoint ends at 100%" || bad "no checkpoint end line"
grep -qE "^checkpoint +0% [|] [^|]* elapsed, ETA [^|]+ [+] 4 checkpoints [|](.*[|])? next write in" "$TMP/rec3" &&
	ok "checkpoint: the first wait shows an ETA of the waits, the 4 bursts to come, and what it waits for" ||
	{ bad "checkpoint: no ETA in the first wait"; cat "$TMP/rec3"; }
# The phase: from the first wait (2 s before the first burst) to the last burst's end.
s=$(only_result "$TMP/r3")/summary.json
total=$(jq '.checkpoint.bursts | (.[-1].start_s + .[-1].burst_s) - (.[0].start_s - 2) | . * 1000 | round / 1000' "$s")
check_eta "$TMP/rec3" checkpoint "$total" 0.25

# 3b. Training halted by checkpoints: a scaled unet3d, 2 epochs of 1.6 s, a checkpoint
# after each. Before the first is measured the ETA names the 2 to come (the first record
# with an ETA comes within 1.05 s).
gf 2 run "$SRCDIR/workloads/unet3d_h100.yaml" --target "$TMP/unet" --results "$TMP/r3b" --progress=bar \
	--set dataset.num_files_train=16 --set dataset.record_length_bytes=64KiB --set dataset.record_length_bytes_stdev=0 \
	--set reader.batch_size=2 --set train.computation_time=0.4 --set train.epochs=2 \
	--set checkpoint.checkpoint_after_epoch=1 --set checkpoint.epochs_between_checkpoints=1 \
	--set checkpoint.scale=1/64 --set checkpoint.fsync=false \
	>"$TMP/out3b" 2>"$TMP/err3b" || { bad "training with checkpoints failed"; cat "$TMP/err3b"; }
tr '\r' '\n' <"$TMP/err3b" | sed 's/^\x1b\[K//' >"$TMP/rec3b"
grep -E "^train +[0-9]+% [|].*, ETA " "$TMP/rec3b" | head -1 | grep -qE "ETA [^|]+ [+] 2 checkpoints" &&
	ok "train: the first ETA names the 2 checkpoints to come" || { bad "train: no checkpoints named"; cat "$TMP/rec3b"; }
s=$(only_result "$TMP/r3b")/summary.json
check_eta "$TMP/rec3b" train "$(jq '.train.elapsed_s | . * 1000 | round / 1000' "$s")" 0.25

# 4. SIGTERM to mpirun: where the partial results are.
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" train "$SMALL" --target "$TMP/data" --results "$TMP/r4" --progress=line \
	"${paced[@]}" >"$TMP/out4" 2>"$TMP/err4" &
pid=$!
sleep 3
kill -TERM "$pid"
wait "$pid"
partial=$(find "$TMP/r4" -mindepth 1 -maxdepth 1 -name '*.partial' | head -1)
if [ -n "$partial" ] && grep -qF "the partial results go to $partial" "$TMP/err4" &&
	grep -qF "are in $partial" "$TMP/err4"; then
	ok "the interrupt names $partial"
else
	bad "the interrupt does not name the partial folder (${partial:-none})"; cat "$TMP/err4"
fi
grep -qE "^progress $ts train stopped at [0-9]+% after " "$TMP/err4" && ok "train stopped at N%" ||
	bad "no stopped line"
[ -n "$partial" ] && expect "interrupted summary" "$partial/summary.json" '.status == "interrupted"'

# 5. A terminal: auto redraws one line in place (tmux runs mpirun in a pty).
if command -v tmux >/dev/null 2>&1; then
	sock=gpufeed-progress-$$
	tmux -L "$sock" new-session -d -x 200 -y 50 "bash --norc --noprofile"
	tmux -L "$sock" pipe-pane -t 0 -o "cat >$TMP/raw5"
	tmux -L "$sock" send-keys -t 0 "'$MPIRUN' --oversubscribe -np 2 '$GPUFEED' train '$SMALL' --target '$TMP/data' \
--results '$TMP/r5' --duration 8s ${paced[*]}; echo EXIT=\$?" Enter
	shot() { tmux -L "$sock" capture-pane -p -t 0 | grep -E '^train +[0-9]+% \|'; }
	for _ in $(seq 100); do [ -n "$(shot)" ] && break; sleep 0.2; done
	sleep 0.5
	a=$(shot)
	sleep 2.2
	b=$(shot)
	for _ in $(seq 100); do tmux -L "$sock" capture-pane -p -t 0 | grep -q '^EXIT=' && break; sleep 0.2; done
	tmux -L "$sock" capture-pane -p -t 0 >"$TMP/pane5"
	# mpirun in the terminal, its stderr into a file: a log, so lines.
	tmux -L "$sock" send-keys -t 0 "clear; '$MPIRUN' --oversubscribe -np 2 '$GPUFEED' train '$SMALL' --target '$TMP/data' \
--results '$TMP/r6' --duration 2s ${paced[*]} 2>'$TMP/err6'; echo DONE6=\$?" Enter
	for _ in $(seq 100); do tmux -L "$sock" capture-pane -p -t 0 | grep -q '^DONE6=' && break; sleep 0.2; done
	tmux -L "$sock" kill-server
	if [ "$(printf '%s\n' "$a" | grep -c .)" -eq 1 ] && [ "$(printf '%s\n' "$b" | grep -c .)" -eq 1 ] && [ "$a" != "$b" ]; then
		ok "one train line, redrawn in place: '$a' then '$b'"
	else
		bad "not one line redrawn: '$a' then '$b'"; cat "$TMP/pane5"
	fi
	grep -q $'\r\033\[K' "$TMP/raw5" && ok "bar mode rewrites with CR" || bad "no CR in the terminal's bytes"
	grep -qE "^progress $ts" "$TMP/pane5" && bad "line mode in a terminal" || ok "no logged lines in the terminal"
	grep -q '^train 100% | done in' "$TMP/pane5" && ok "the bar ends at 100%" || { bad "no end line"; cat "$TMP/pane5"; }
	grep -q '^EXIT=0' "$TMP/pane5" && ok "terminal run exit 0" || bad "terminal run failed"
	if grep -qE "^progress $ts train 100% [|] done in" "$TMP/err6" && ! grep -q $'\r' "$TMP/err6"; then
		ok "mpirun's stderr into a file from a terminal: lines"
	else
		bad "mpirun's stderr into a file: not lines"; cat -A "$TMP/err6"
	fi
else
	echo "tmux is not installed: the terminal check is skipped"
fi
finish
