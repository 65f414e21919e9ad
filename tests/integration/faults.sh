#!/usr/bin/env bash
# Description: faults during runs and damaged input, each case asserting the exit code,
# the message, what the .partial folder holds and what is left on disk or in the bucket
# (issue 17). Local: report and compare on files that are devices, FIFOs or huge; a
# checkpoint folder that is not gpufeed's and --results that is a file (exit 2, nothing
# written); datagen's space check in whole blocks on a small tmpfs; the disk filling
# during a checkpoint; checkpoints kept during training counted all at once, two when not
# kept (issue 28 item 19); a full results disk, and one that fills after summary.json went in
# (at the CSV files, at the report: the summary is rewritten to say failed); SIGTERM to mpirun -np 2 during training and
# during a checkpoint burst. S3 (s3rver behind tests/s3fault.js): a 2 KiB/s trickle with
# --duration 5s and with SIGTERM; reset connections, stalls and short bodies retried and
# counted; DELETEs answered 500 during checkpoint cleanup and the dataset's cleanup
# (dataset.keep_files false: counted in datagen.cleanup); 403 and 503 under train and
# ceiling; SIGTERM during a checkpoint upload; keep_files false after every upload failed
# and after SIGTERM in a regeneration (issue 28 item 5); a trickling datagen under
# --duration (item 14).
# Expected: every case ends within its bound with the README's exit code and a message
# naming the cause and the file; an interrupted run's .partial holds summary.json
# ("interrupted") and report.txt, and the final lines were printed; a failed cleanup is
# counted and fails the run; nothing outside the target and the results folder changes.
# Buggy: a hang on /dev/zero; a marker or .partial left by a refusal; "short write ... (is
# the dataset complete?)" for a full disk; a 0-byte summary.json; an empty .partial after
# SIGTERM; exit 0 with checkpoints left; "run 'gpufeed datagen' first" for a 403; a run
# that a trickling server holds past its duration.
# Takes about 70 s on a quiet machine (2 min under ASan): the S3 cases wait out what they
# test (a 5 s duration twice, 2 s request timeouts, retry backoffs, signals mpirun needs a
# second or two to act on).
. "$(dirname "$0")/lib.sh"

LLAMA=$SRCDIR/workloads/llama3_8b.yaml
ck=(--set checkpoint.scale=1/2000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0
	--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=0)
mnt=
mnt2=
srv=
proxy_pid=
cleanup() {
	[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
	[ -n "$srv" ] && [ -f "$srv/pid" ] && "$SRCDIR/scripts/s3rver-stop.sh" "$srv"
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	[ -n "$mnt2" ] && umount "$mnt2" 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

# now: seconds since the epoch, for elapsed times.
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
# show FILE: the output of the command that failed, without mpirun's banner.
show() { grep -v '^--\|^ *$\|mpirun\|Primary job\|a non-zero exit\|Process name\|Exit code:\|job to be terminated' "$1" | head -20; }
cases=0
case_start() { cases=$((cases + 1)); echo "--- case $cases: $*"; }

# --- report and compare on files a run never writes (item 13) ---
gf 1 run "$SMALL" --target "$TMP/data" --results "$TMP/good" --quiet --set train.epochs=1 >"$TMP/o" 2>&1 ||
	{ bad "the run for the report cases failed"; show "$TMP/o"; }
good=$(only_result "$TMP/good")
for f in summary.json ranks.csv timeseries.csv plots/timeline.svg; do
	for kind in zero fifo huge; do
		case_start "report with $f as $kind"
		rm -rf "$TMP/dam"
		cp -a "$good" "$TMP/dam"
		rm -f "$TMP/dam/$f"
		case $kind in
		zero) ln -s /dev/zero "$TMP/dam/$f" ;;
		fifo) mkfifo "$TMP/dam/$f" ;;
		huge) truncate -s 2G "$TMP/dam/$f" ;;
		esac
		timeout 20 "$GPUFEED" report "$TMP/dam" --quiet >"$TMP/o" 2>&1
		rc=$?
		{ [ "$rc" -eq 2 ] && grep -q "dam/$f" "$TMP/o"; } && ok "report, $f as $kind: exit 2 naming it" ||
			{ bad "report, $f as $kind: exit $rc"; show "$TMP/o"; }
	done
done
case_start "compare with summary.json a FIFO"
rm -rf "$TMP/dam" && cp -a "$good" "$TMP/dam" && rm "$TMP/dam/summary.json" && mkfifo "$TMP/dam/summary.json"
timeout 20 "$GPUFEED" compare "$good" "$TMP/dam" >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -q 'is a FIFO' "$TMP/o"; } && ok "compare on a FIFO: exit 2" || { bad "compare on a FIFO: exit $rc"; show "$TMP/o"; }

# --- refusals write nothing (item 16) ---
case_start "a checkpoint folder that is not gpufeed's"
mkdir -p "$TMP/user/ck" && echo "my weights" >"$TMP/user/ck/global_step0.pt"
gf 2 run "$LLAMA" --target "$TMP/ckt" --results "$TMP/r-refuse" "${ck[@]}" \
	--set checkpoint.checkpoint_folder="$TMP/user/ck" >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -q "user/ck is not empty and was not created by gpufeed" "$TMP/o"; } &&
	ok "foreign checkpoint folder: exit 2 naming it" || { bad "foreign checkpoint folder: exit $rc"; show "$TMP/o"; }
[ ! -e "$TMP/ckt" ] && [ ! -e "$TMP/r-refuse" ] && [ ! -e "$TMP/user/ck/.gpufeed-data" ] &&
	[ "$(ls -A "$TMP/user/ck")" = global_step0.pt ] && ok "refused: no marker, no target, no .partial" ||
	{ bad "a refusal wrote something"; find "$TMP/ckt" "$TMP/r-refuse" "$TMP/user" 2>/dev/null; }

case_start "--results that is a file"
echo "not a folder" >"$TMP/afile"
gf 1 run "$SMALL" --target "$TMP/t-afile" --results "$TMP/afile" >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 2 ] && grep -q 'afile is not a folder' "$TMP/o"; } && ok "--results a file: exit 2" ||
	{ bad "--results a file: exit $rc"; show "$TMP/o"; }
[ ! -e "$TMP/t-afile" ] && [ "$(cat "$TMP/afile")" = "not a folder" ] && ok "--results a file: nothing written" ||
	bad "--results a file: something was written"

# --- a small tmpfs: space in whole blocks, disk full (item 16) ---
if [ "$(id -u)" -eq 0 ] && mkdir -p "$TMP/mnt" && mount -t tmpfs -o size=120m tmpfs "$TMP/mnt" 2>/dev/null; then
	mnt=$TMP/mnt
	case_start "datagen space check counts whole blocks"
	gf 1 datagen "$SMALL" --target "$mnt/ds" --results "$TMP/r-space" --set dataset.num_files_train=80000 \
		--set dataset.record_length_bytes=1KiB --set dataset.record_length_bytes_stdev=0 >"$TMP/o" 2>&1
	rc=$?
	{ [ "$rc" -eq 2 ] && grep -q 'rounded up to the file system' "$TMP/o"; } && ok "80,000 x 1 KiB on 120 MiB: exit 2" ||
		{ bad "80,000 x 1 KiB on 120 MiB: exit $rc"; show "$TMP/o"; }
	[ -z "$(ls -A "$mnt")" ] && [ ! -e "$TMP/r-space" ] && ok "space refusal wrote nothing" || bad "space refusal wrote something"

	# Issue 28 item 19: the free-space check counts what is on disk at once: every
	# checkpoint when kept, two when not (the next is written before the last goes).
	# 4 checkpoints of 20 MiB fit 120 MiB two at a time (with the 64 MiB margin), not all.
	ckt=(--set workflow.checkpoint=true --set checkpoint.steps_between_checkpoints=16 --set checkpoint.type=all_ranks)
	for c in "keep=true 20MiB 2" "keep=false 30MiB 2" "keep=false 20MiB 0"; do
		set -- $c
		case_start "training checkpoints, checkpoint.$1, $2 each, on 120 MiB"
		gf 1 run "$SMALL" --target "$mnt/k" --results "$TMP/r-keep" --quiet "${ckt[@]}" --set checkpoint.$1 \
			--set model.model_size_bytes=$2 >"$TMP/o" 2>&1
		rc=$?
		if [ "$3" = 2 ]; then
			{ [ "$rc" -eq 2 ] && grep -q "checkpoint(s) of .* need about" "$TMP/o" && [ ! -e "$mnt/k" ]; } &&
				ok "checkpoint.$1, $2: refused before anything is written" || { bad "checkpoint.$1, $2: exit $rc"; show "$TMP/o"; }
		else
			[ "$rc" -eq 0 ] && ok "checkpoint.$1, $2: two at once fit, exit 0" || { bad "checkpoint.$1, $2: exit $rc"; show "$TMP/o"; }
		fi
		rm -rf "${mnt:?}"/* "$TMP/r-keep"
	done

	case_start "the disk fills during a checkpoint"
	"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$LLAMA" --target "$mnt/ck" --results "$TMP/r-full" --quiet "${ck[@]}" \
		--set checkpoint.time_between_checkpoints=2 >"$TMP/o" 2>&1 &
	pid=$!
	for _ in $(seq 50); do [ -e "$mnt/ck/.gpufeed-data" ] && break; sleep 0.1; done
	fallocate -l $(($(df -B1 --output=avail "$mnt" | tail -1) - 4 * 1048576)) "$mnt/filler"
	wait "$pid"
	rc=$?
	{ [ "$rc" -eq 1 ] && grep -q 'No space left on device' "$TMP/o" && grep -q '_states.pt' "$TMP/o" &&
	  ! grep -q 'is the dataset complete' "$TMP/o"; } && ok "disk full in a burst: exit 1, ENOSPC with the file" ||
		{ bad "disk full in a burst: exit $rc"; show "$TMP/o"; }
	p=$(find "$TMP/r-full" -maxdepth 1 -name '*.partial' | head -1)
	[ -n "$p" ] && expect "disk full: .partial says failed, No space left" "$p/summary.json" \
		'.status == "failed" and (.error | test("No space left on device"))' || bad "disk full: no .partial"
	left=$(find "$mnt/ck/checkpoints" -type f 2>/dev/null | wc -l)
	[ "$left" -eq 0 ] && ok "disk full: the half-written shards removed" || { bad "disk full: $left shard(s) left"; find "$mnt/ck"; }
	rm -rf "${mnt:?}"/*

	case_start "the results disk is full"
	mkdir -p "$mnt/res"
	fallocate -l $(($(df -B1 --output=avail "$mnt" | tail -1) - 8192)) "$mnt/filler"
	gf 2 run "$SMALL" --target "$TMP/data" --results "$mnt/res" --set train.epochs=1 >"$TMP/o" 2>&1
	rc=$?
	{ [ "$rc" -eq 1 ] && grep -q 'cannot write the results into .*No space left on device' "$TMP/o" &&
	  ! grep -q '^report:' "$TMP/o"; } && ok "full results disk: exit 1, said, no report: line" ||
		{ bad "full results disk: exit $rc"; show "$TMP/o"; }
	[ -z "$(find "$mnt/res" -mindepth 1)" ] && ok "full results disk: no empty .partial, no 0-byte summary.json" ||
		{ bad "full results disk left:"; find "$mnt/res" -ls; }
	rm -rf "${mnt:?}"/*

	# The disk fills after summary.json went in: a tmpfs with a few inodes fails the file
	# that needs the next one, at a known place. A train run's folder takes 7 (the mount,
	# res/, the run's folder, summary.json, latency.csv, ranks.csv, timeseries.csv): 4 lets
	# only the summary in, 7 fails plots/ after the CSV files.
	for n in 4 7; do
		what=$([ "$n" = 4 ] && echo "the CSV files" || echo "the report")
		case_start "the results disk fills after summary.json, at $what"
		mkdir -p "$TMP/mnt2"
		mount -t tmpfs -o size=16m,nr_inodes=$n tmpfs "$TMP/mnt2" || { bad "tmpfs nr_inodes=$n"; continue; }
		mnt2=$TMP/mnt2
		mkdir "$mnt2/res"
		gf 2 run "$SMALL" --target "$TMP/data-i$n" --results "$mnt2/res" --set train.epochs=1 >"$TMP/o" 2>&1
		rc=$?
		{ [ "$rc" -eq 1 ] && grep -q 'No space left on device' "$TMP/o" && ! grep -q '^report:' "$TMP/o"; } &&
			ok "full at $what: exit 1, said" || { bad "full at $what: exit $rc"; show "$TMP/o"; }
		p=$(find "$mnt2/res" -maxdepth 1 -name '*.partial' | head -1)
		[ -n "$p" ] && [ -z "$(find "$mnt2/res" -mindepth 1 -maxdepth 1 ! -name '*.partial')" ] &&
			ok "full at $what: the folder stays .partial" || { bad "full at $what: not a .partial"; find "$mnt2/res"; }
		[ -n "$p" ] && expect "full at $what: summary.json says failed, and why" "$p/summary.json" \
			'.status == "failed" and (.error | test("No space left on device")) and .train.samples == 64'
		umount "$mnt2" && mnt2=
	done
else
	echo "note: no tmpfs mount here (needs root): the disk-full cases are not run"
fi

# --- SIGTERM to mpirun (item 10) ---
# mpirun kills the ranks odls_base_sigkill_timeout (1 s) after it forwards a signal. Under
# AddressSanitizer a rank's way from the signal to its summary is several times slower,
# so there the grace is 5 s; the plain build is held to Open MPI's default second.
# The bound on how long a signalled S3 run takes to end: 10 s (seen 2 s quiet); under
# AddressSanitizer on a loaded machine 10.1 s was seen, so there it is 20 s.
term_bound=10
if ldd "$GPUFEED" 2>/dev/null | grep -q libasan; then
	export OMPI_MCA_odls_base_sigkill_timeout=5
	echo "note: sanitizer build, mpirun's grace after a signal is 5 s"
	term_bound=20
fi
# interrupted DIR OUT WHAT: the .partial folder under DIR has the summary ("interrupted"),
# report.txt, and OUT the final lines.
interrupted() {
	local p
	p=$(find "$1" -mindepth 1 -maxdepth 1 -type d -name '*.partial' | head -1)
	[ -z "$(find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '*.partial')" ] || bad "$3: a complete-looking folder"
	if [ -n "$p" ] && [ -f "$p/summary.json" ]; then
		expect "$3: summary says interrupted" "$p/summary.json" '.status == "interrupted"'
		[ -s "$p/report.txt" ] && [ -s "$p/report.html" ] && ok "$3: report.txt and report.html written" ||
			bad "$3: no report in $p"
		grep -q '^status: interrupted' "$2" && grep -q "^results: .*\.partial" "$2" && ok "$3: the final lines printed" ||
			{ bad "$3: no final lines"; show "$2"; }
	else
		bad "$3: no summary.json in the .partial folder (${p:-none})"
		show "$2"
	fi
}

case_start "SIGTERM during training"
: >"$TMP/term"
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$SMALL" --target "$TMP/data" --results "$TMP/r-term" \
	--set train.epochs=100000 --set train.computation_time=10ms >"$TMP/term" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^train:' "$TMP/term" && break; sleep 0.1; done
sleep 1
t0=$(now)
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && ok "SIGTERM in training: exit $rc after $(elapsed "$t0") s" || bad "SIGTERM in training: exit 0"
interrupted "$TMP/r-term" "$TMP/term" "SIGTERM in training"

case_start "SIGTERM during a checkpoint burst"
# Bursts back to back (one every step, 128 MiB each, O_DIRECT): the signal lands in one.
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$LLAMA" --target "$TMP/ckburst" --results "$TMP/r-ckterm" \
	--set checkpoint.scale=1/800 --set model.parallelism.data=2 --set workflow.train=true --set dataset.format=npz \
	--set dataset.num_files_train=16 --set dataset.record_length_bytes=16KiB --set reader.batch_size=1 \
	--set train.epochs=1000 --set train.computation_time=1ms --set checkpoint.steps_between_checkpoints=1 \
	--set target.direct=true >"$TMP/ckterm" 2>&1 &
pid=$!
for _ in $(seq 200); do
	[ -n "$(find "$TMP/ckburst/checkpoints" -name '*.pt' -size +1M 2>/dev/null | head -1)" ] && break
	sleep 0.05
done
t0=$(now)
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -ne 0 ] && ok "SIGTERM in a burst: exit $rc after $(elapsed "$t0") s" || bad "SIGTERM in a burst: exit 0"
interrupted "$TMP/r-ckterm" "$TMP/ckterm" "SIGTERM in a burst"
# mpirun kills the ranks a second after the signal: the deletes may not all have run.
left=$(find "$TMP/ckburst/checkpoints" -type f 2>/dev/null | wc -l)
echo "note: $left checkpoint file(s) left in the gpufeed-marked $TMP/ckburst after SIGTERM"
[ -z "$(find "$TMP" -maxdepth 1 -newer "$TMP/ckterm" ! -name 'r-ckterm' ! -name ckburst ! -name ckterm ! -path "$TMP")" ] &&
	ok "SIGTERM in a burst: nothing written outside the target and the results" || bad "something outside was written"

# --- S3 through the fault proxy ---
builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null || ! command -v node >/dev/null ||
	[ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
	echo "note: no libcurl, node or s3rver (scripts/install-deps.sh --test): the S3 cases are not run"
	echo "cases: $cases"
	finish
fi
srv=$TMP/s3rver
endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test) || { bad "s3rver did not start"; finish; }
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
ls3() { python3 "$SRCDIR/tests/s3ls.py" gf-test "$@"; }
proxy=$TMP/proxy
mkdir -p "$proxy"
# proxy N ONLY FAULT: a fresh proxy; prints its endpoint.
proxy() {
	[ -n "$proxy_pid" ] && { kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null; }
	rm -f "$proxy/port" "$proxy/failed"
	node "$SRCDIR/tests/s3fault.js" "$proxy" "${endpoint##*:}" "$@" >>"$proxy/log" 2>&1 &
	proxy_pid=$!
	for _ in $(seq 100); do [ -s "$proxy/port" ] && break; sleep 0.1; done
}
pep() { echo "http://127.0.0.1:$(cat "$proxy/port")"; }
{ cat "$SMALL"; printf 'storage:\n  storage_options:\n    s3_max_attempts: 3\n    s3_timeout: 2\n'; } >"$TMP/s3.yaml"
gf 2 datagen "$TMP/s3.yaml" --target s3://gf-test/ds --results "$TMP/r-dg" --quiet >"$TMP/o" 2>&1 ||
	{ bad "S3 datagen failed"; show "$TMP/o"; }

case_start "a 2 KiB/s trickle with --duration 5s"
proxy 1000000 get trickle:2048
t0=$(now)
AWS_ENDPOINT_URL=$(pep) timeout 120 "$MPIRUN" --oversubscribe -np 2 "$GPUFEED" train "$TMP/s3.yaml" --target s3://gf-test/ds \
	--results "$TMP/r-trickle" --quiet --duration 5s >"$TMP/o" 2>&1
rc=$?
t=$(elapsed "$t0")
# 5 s, then at most ~2 s to notice and stop (the request timeout is 2 s here), plus start-up.
[ "$rc" -eq 0 ] && [ "$(echo "$t < 15" | bc)" = 1 ] && ok "trickle, --duration 5s: ended in $t s" ||
	{ bad "trickle, --duration 5s: exit $rc after $t s"; show "$TMP/o"; }
s=$(only_result "$TMP/r-trickle")/summary.json
# A 32 KiB sample takes 16 s at 2 KiB/s: none was read, and a cancelled one is not counted.
expect "trickle: complete, the cancelled requests are no errors nor samples" "$s" \
	'.status == "complete" and .s3.errors.network == 0 and .train.samples == 0'

case_start "a 2 KiB/s trickle under ceiling with --duration 5s"
t0=$(now)
AWS_ENDPOINT_URL=$(pep) timeout 120 "$MPIRUN" --oversubscribe -np 2 "$GPUFEED" ceiling "$TMP/s3.yaml" --target s3://gf-test/ds \
	--results "$TMP/r-ctrickle" --quiet --duration 5s >"$TMP/o" 2>&1
rc=$?
t=$(elapsed "$t0")
[ "$rc" -eq 0 ] && [ "$(echo "$t < 15" | bc)" = 1 ] && ok "ceiling trickle, --duration 5s: ended in $t s" ||
	{ bad "ceiling trickle, --duration 5s: exit $rc after $t s"; show "$TMP/o"; }
s=$(only_result "$TMP/r-ctrickle")/summary.json
expect "ceiling trickle: complete, no sample counted" "$s" '.status == "complete" and .ceiling.samples == 0'

case_start "SIGTERM during a trickling S3 read"
: >"$TMP/s3term"
"$MPIRUN" --oversubscribe -np 2 env AWS_ENDPOINT_URL="$(pep)" "$GPUFEED" train "$TMP/s3.yaml" --target s3://gf-test/ds \
	--results "$TMP/r-s3term" >"$TMP/s3term" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^train:' "$TMP/s3term" && break; sleep 0.1; done
sleep 1
t0=$(now)
kill -TERM "$pid"
wait "$pid"
rc=$?
t=$(elapsed "$t0")
[ "$rc" -ne 0 ] && [ "$(echo "$t < $term_bound" | bc)" = 1 ] && ok "SIGTERM on a trickle: exit $rc after $t s" ||
	{ bad "SIGTERM on a trickle: exit $rc after $t s"; show "$TMP/s3term"; }
interrupted "$TMP/r-s3term" "$TMP/s3term" "SIGTERM on a trickle"

# run makes the dataset itself (only what a run wrote is deleted, never an earlier one's).
case_start "SIGTERM with dataset.keep_files false: the summary, then the deletes"
: >"$TMP/kfterm"
"$MPIRUN" --oversubscribe -np 2 env AWS_ENDPOINT_URL="$(pep)" "$GPUFEED" run "$TMP/s3.yaml" --target s3://gf-test/kf \
	--results "$TMP/r-kfterm" --set dataset.keep_files=false >"$TMP/kfterm" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^train:' "$TMP/kfterm" && break; sleep 0.1; done
sleep 1
kill -TERM "$pid"
wait "$pid"
interrupted "$TMP/r-kfterm" "$TMP/kfterm" "SIGTERM, keep_files false"
n=$(ls3 kf/ | wc -l)
[ "$n" -eq 0 ] && ok "SIGTERM, keep_files false: the dataset deleted after the summary" ||
	{ bad "SIGTERM, keep_files false: $n object(s) left under kf/"; show "$TMP/kfterm"; }

# Issue 28 item 5: dataset.keep_files false deletes the objects this run stored, no
# other: a run whose every upload fails, or that a signal stops while it regenerates the
# dataset, leaves an earlier gpufeed datagen's objects of the same names; summary.json
# records the cleanup (and after a signal, the summary is written again once it ran).
gf 2 datagen "$TMP/s3.yaml" --target s3://gf-test/ek --results "$TMP/r-ekdg" --quiet >"$TMP/o" 2>&1 ||
	{ bad "datagen of the earlier dataset"; show "$TMP/o"; }
ls3 ek/train/ >"$TMP/ek-before"
case_start "keep_files false, every dataset upload answered 500"
proxy 1000000 data 500
AWS_ENDPOINT_URL=$(pep) gf 2 run "$TMP/s3.yaml" --target s3://gf-test/ek --results "$TMP/r-ek" --set dataset.keep_files=false \
	--set workflow.generate_data=true >"$TMP/o" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q 'cleanup: deleted the 0 object(s) this run wrote' "$TMP/o" &&
	ok "uploads failing: exit 1, says it deleted the 0 objects it wrote" || { bad "uploads failing: exit $rc"; show "$TMP/o"; }
ls3 ek/train/ >"$TMP/ek-after"
diff -q "$TMP/ek-before" "$TMP/ek-after" >/dev/null && ok "uploads failing: the earlier datagen's $(wc -l <"$TMP/ek-before") objects stay" ||
	{ bad "uploads failing: $(wc -l <"$TMP/ek-after") of $(wc -l <"$TMP/ek-before") objects left"; }
p=$(find "$TMP/r-ek" -maxdepth 1 -name '*.partial' | head -1)
[ -n "$p" ] && expect "uploads failing: the cleanup in summary.json" "$p/summary.json" \
	'.status == "failed" and .datagen.files == 0 and .datagen.cleanup.deleted == 0 and .datagen.cleanup.failed_deletes == 0' ||
	bad "uploads failing: no .partial"

case_start "keep_files false, SIGTERM while the dataset is regenerated"
proxy 1000000 data trickle:65536
: >"$TMP/ekterm"
"$MPIRUN" --oversubscribe -np 2 env AWS_ENDPOINT_URL="$(pep)" "$GPUFEED" run "$TMP/s3.yaml" --target s3://gf-test/ek \
	--results "$TMP/r-ekterm" --set dataset.keep_files=false --set workflow.generate_data=true >"$TMP/ekterm" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^datagen:' "$TMP/ekterm" && break; sleep 0.1; done
sleep 2
kill -TERM "$pid"
wait "$pid"
p=$(find "$TMP/r-ekterm" -maxdepth 1 -name '*.partial' | head -1)
if [ -n "$p" ] && [ -f "$p/summary.json" ]; then
	expect "SIGTERM in datagen: interrupted, the cleanup recorded" "$p/summary.json" \
		'.status == "interrupted" and .datagen.cleanup.deleted == .datagen.files and .datagen.files < 64'
	n=$(ls3 ek/train/ | wc -l)
	d=$(jq .datagen.cleanup.deleted "$p/summary.json")
	[ "$n" -eq $((64 - d)) ] && ok "SIGTERM in datagen: $d object(s) this run stored deleted, the other $n stay" ||
		bad "SIGTERM in datagen: $n objects left, the summary says $d deleted of 64"
else
	bad "SIGTERM in datagen: no summary.json"; show "$TMP/ekterm"
fi

# Item 14: --duration bounds datagen to an object store behind a trickle too.
case_start "S3 datagen through a 2 KiB/s proxy, --duration 5s"
proxy 1000000 data trickle:2048
t0=$(now)
AWS_ENDPOINT_URL=$(pep) timeout 150 "$MPIRUN" --oversubscribe -np 2 "$GPUFEED" datagen "$TMP/s3.yaml" --target s3://gf-test/slow \
	--results "$TMP/r-slowdg" --quiet --duration 5s >"$TMP/o" 2>&1
rc=$?
t=$(elapsed "$t0")
[ "$rc" -eq 0 ] && [ "$(echo "$t < $term_bound * 2" | bc)" = 1 ] && ok "trickling datagen, --duration 5s: ended in $t s" ||
	{ bad "trickling datagen, --duration 5s: exit $rc after $t s"; show "$TMP/o"; }
expect "trickling datagen: complete, datagen cut" "$(only_result "$TMP/r-slowdg")/summary.json" \
	'.status == "complete" and .duration.cut_phase == "datagen"'

for fault in reset stall short; do
	# Two faults, three attempts: the same read is retried twice and then succeeds.
	case_start "the first 2 dataset GETs: $fault"
	proxy 2 get "$fault"
	AWS_ENDPOINT_URL=$(pep) gf 1 train "$TMP/s3.yaml" --target s3://gf-test/ds --results "$TMP/r-$fault" --quiet \
		--set train.epochs=1 --set reader.read_threads=1 >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && ok "$fault: retried, exit 0" || { bad "$fault: exit $rc"; show "$TMP/o"; }
	[ "$(cat "$proxy/failed" 2>/dev/null)" = 2 ] || bad "$fault: the proxy faulted $(cat "$proxy/failed" 2>/dev/null) requests"
	s=$(only_result "$TMP/r-$fault")/summary.json
	want='.s3.retries.network == 2 and .s3.errors.network == 0 and .train.samples == 64'
	[ "$fault" = short ] && want="$want and .s3.errors.short_body == 2"
	expect "$fault: 2 network retries counted, every sample read" "$s" "$want"
done

case_start "every checkpoint DELETE answered 500"
ls3 >"$TMP/before"
proxy 1000000 delete 500
{ cat "$LLAMA"; printf 'storage:\n  storage_options:\n    s3_max_attempts: 2\n'; } >"$TMP/llama.yaml"
AWS_ENDPOINT_URL=$(pep) gf 2 run "$TMP/llama.yaml" --target s3://gf-test/ck --results "$TMP/r-del" "${ck[@]}" \
	>"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q 'checkpoint cleanup: [0-9]* delete(s) failed, .* left in s3://gf-test/ck' "$TMP/o" &&
  grep -q InternalError "$TMP/o"; } && ok "failed deletes: exit 1 with the count, bytes and where" ||
	{ bad "failed deletes: exit $rc"; show "$TMP/o"; }
p=$(find "$TMP/r-del" -maxdepth 1 -name '*.partial' | head -1)
[ -n "$p" ] && expect "failed deletes: counted in summary.json" "$p/summary.json" \
	'.status == "failed" and .checkpoint.cleanup.failed_deletes >= 4 and .checkpoint.cleanup.bytes_left > 0 and .s3.errors.server_5xx >= 4' ||
	bad "failed deletes: no .partial"
n=$(ls3 ck/checkpoints/ | wc -l)
[ "$n" -ge 4 ] && ok "failed deletes: the $n shards the summary counts are in the bucket" || bad "failed deletes: $n objects left"

# Datagen deletes an old manifest with a DELETE: only the multi-object deletes fail.
case_start "every dataset delete answered 500 (dataset.keep_files false)"
proxy 1000000 multidelete 500
AWS_ENDPOINT_URL=$(pep) gf 1 run "$TMP/s3.yaml" --target s3://gf-test/kfdel --results "$TMP/r-kfdel" \
	--set dataset.keep_files=false --set train.epochs=1 >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q 'warning: dataset cleanup (dataset.keep_files is false): [0-9]* delete(s) failed, .* left under s3://gf-test/kfdel' "$TMP/o" &&
  grep -q InternalError "$TMP/o"; } && ok "failed dataset deletes: exit 1 with the count, bytes and where" ||
	{ bad "failed dataset deletes: exit $rc"; show "$TMP/o"; }
p=$(find "$TMP/r-kfdel" -maxdepth 1 -name '*.partial' | head -1)
[ -n "$p" ] && expect "failed dataset deletes: counted in summary.json" "$p/summary.json" \
	'.status == "failed" and .datagen.cleanup.failed_deletes == .datagen.files and .datagen.cleanup.bytes_left == .datagen.write_bytes and (.datagen.cleanup.first_left | test("InternalError"))' ||
	bad "failed dataset deletes: no .partial"
n=$(ls3 kfdel/train/ | wc -l)
f=$([ -n "$p" ] && jq .datagen.files "$p/summary.json")
[ "$n" -gt 0 ] && [ "$n" = "$f" ] && ok "failed dataset deletes: the $n files the summary counts are in the bucket" ||
	bad "failed dataset deletes: $n objects left, summary says ${f:-?}"

case_start "403 under train"
AWS_SECRET_ACCESS_KEY=wrong-secret-0f0f gf 1 train "$TMP/s3.yaml" --target s3://gf-test/ds --results "$TMP/r-403" >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q SignatureDoesNotMatch "$TMP/o" && ! grep -q "datagen' first" "$TMP/o"; } &&
	ok "403 under train: exit 1 with the S3 error" || { bad "403 under train: exit $rc"; show "$TMP/o"; }
[ ! -e "$TMP/r-403" ] && ok "403 under train: no .partial" || bad "403 under train: a results folder"

case_start "503 to every request under ceiling"
proxy 1000000 all 503
AWS_ENDPOINT_URL=$(pep) gf 1 ceiling "$TMP/s3.yaml" --target s3://gf-test/ds --results "$TMP/r-503" >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q SlowDown "$TMP/o" && ! grep -q "datagen' first" "$TMP/o"; } &&
	ok "503 under ceiling: exit 1 naming SlowDown" || { bad "503 under ceiling: exit $rc"; show "$TMP/o"; }

case_start "SIGTERM during a checkpoint upload"
proxy 1000000 part trickle:262144
{ cat "$LLAMA"; printf 'storage:\n  storage_options:\n    s3_part_size: 5MiB\n'; } >"$TMP/llama-p.yaml"
: >"$TMP/upterm"
"$MPIRUN" --oversubscribe -np 2 env AWS_ENDPOINT_URL="$(pep)" "$GPUFEED" run "$TMP/llama-p.yaml" --target s3://gf-test/up \
	--results "$TMP/r-upterm" "${ck[@]}" --set checkpoint.scale=1/400 >"$TMP/upterm" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^checkpoint:' "$TMP/upterm" && break; sleep 0.1; done
sleep 2
t0=$(now)
kill -TERM "$pid"
wait "$pid"
rc=$?
t=$(elapsed "$t0")
[ "$rc" -ne 0 ] && [ "$(echo "$t < $term_bound" | bc)" = 1 ] && ok "SIGTERM in an upload: exit $rc after $t s" ||
	{ bad "SIGTERM in an upload: exit $rc after $t s"; show "$TMP/upterm"; }
interrupted "$TMP/r-upterm" "$TMP/upterm" "SIGTERM in an upload"
# s3rver has no AbortMultipartUpload (it answers 405): every abort sent leaves its parts,
# which the summary counts and the run says. The burst the signal cut measured nothing (it
# once counted as a burst of 0 B/s, and its deletes held the summary past mpirun's second).
p=$(find "$TMP/r-upterm" -name summary.json | head -1)
[ -n "$p" ] && expect "SIGTERM in an upload: no burst measured, the refused aborts counted as uploads left" "$p" \
	'.checkpoint == null and .s3.multipart_aborts >= 1 and .s3.multipart_left == .s3.multipart_aborts'
grep -q "multipart upload(s) under s3://gf-test/up could not be aborted" "$TMP/upterm" &&
	ok "SIGTERM in an upload: the uploads left are named" || bad "SIGTERM in an upload: no word of the uploads left"
echo "note: $(ls3 up/checkpoints/ | wc -l) checkpoint object(s) left under the gpufeed-marked s3://gf-test/up"

echo "cases: $cases"
finish
