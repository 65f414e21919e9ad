#!/usr/bin/env bash
# Description: gpufeed writes and deletes only inside roots it created and marked
# (run/owned.h), issue 17 items 1-6: a checkpoint folder outside the target ("../userckpt",
# "/p/tgt-old" beside target "/p/tgt") is a root of its own and refused when it holds the
# user's files; dataset.file_prefix with '/' or '..' and more subfolders than files are
# refused at validation; links inside a marked target (train -> elsewhere, a link in place
# of a data file, checkpoints -> elsewhere) are refused, never followed; checkpoints an
# earlier run kept are neither overwritten nor deleted, and restore-only still finds them;
# --target s3:/x asks "did you mean s3://x"; on S3, dataset.keep_files false deletes only
# the objects the run wrote: a dataset gpufeed datagen made earlier and the user's notes.txt
# under the prefix stay. The files MPI-IO and HDF5 create (checkpoint layouts shared_file
# and hdf5, an hdf5 dataset) land inside the target by their /proc/self/fd name, and
# checkpoints not kept are deleted beneath the root. Issue 28: the target renamed away and
# replaced by a link mid-run (item 1), hard links to a file elsewhere in place of a data
# file and of each layout's checkpoint (item 3), FIFOs in place of a data file and of the
# manifest (item 15), null values in the manifest (item 11), a password in the S3
# endpoint URL (item 20).
# Expected: exit 2 with a message naming the key or path and what to do, nothing written
# (no marker, no results folder), the user's files byte for byte as they were.
# Buggy: the prefix-match ownership test (strncmp), '..' or a link followed, a kept
# checkpoint overwritten, "everything under the prefix" deleted; checkpoints in the folder
# the swapped-in link leads to; the file elsewhere truncated through its hard link; a run
# that waits on a FIFO; SIGSEGV on a null in the manifest.
. "$(dirname "$0")/lib.sh"

# sums DIR: every file under DIR with its checksum and every link with its target.
sums() { (cd "$1" && find . \( -type f -exec sha1sum {} + \) -o \( -type l -printf '%p -> %l\n' \) | sort); }
# refused NAME OUT RC WORDS: exit 2 and the message.
refused() {
	local name=$1 out=$2 rc=$3 words=$4
	if [ "$rc" -eq 2 ] && grep -q -- "$words" "$out"; then ok "$name: exit 2, says '$words'"; else
		bad "$name: exit $rc"; cat "$out"; fi
}
no_results() {
	if [ ! -e "$2" ] || [ -z "$(ls -A "$2")" ]; then ok "$1: no results folder"; else bad "$1: results left: $(ls "$2")"; fi
}
CK=(--quiet --set workflow.train=false --set workflow.checkpoint=true --set model.model_size_bytes=1MiB
	--set checkpoint.time_between_checkpoints=0
	--set checkpoint.type=all_ranks --set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1)

# 1. A checkpoint folder outside the target holding the user's checkpoints.
mkdir -p "$TMP/p/userckpt/global_epoch1_step1" "$TMP/p/tgt-old/global_epoch1_step1"
echo "user's model" >"$TMP/p/userckpt/global_epoch1_step1/model_states-0.pt"
echo "older run" >"$TMP/p/tgt-old/global_epoch1_step1/model_states-0.pt"
before=$(sums "$TMP/p")
for folder in ../userckpt "$TMP/p/tgt-old"; do
	gf 1 run "$SMALL" --target "$TMP/p/tgt" --results "$TMP/r1" "${CK[@]}" --set checkpoint.checkpoint_folder="$folder" >"$TMP/o" 2>&1
	refused "checkpoint folder $folder" "$TMP/o" $? "is not empty and was not created by gpufeed"
	grep -q "checkpoint.checkpoint_folder" "$TMP/o" && ok "checkpoint folder $folder: the key named" || bad "key not named"
	no_results "checkpoint folder $folder" "$TMP/r1"
done
[ "$before" = "$(sums "$TMP/p")" ] && ok "the user's checkpoints as they were, no marker" ||
	{ bad "the user's folders changed"; diff <(echo "$before") <(sums "$TMP/p"); }
# An empty (or new) folder outside the target is gpufeed's root: marked, and used.
gf 1 run "$SMALL" --target "$TMP/p/tgt" --results "$TMP/r1b" "${CK[@]}" --set checkpoint.checkpoint_folder=../newckpt >"$TMP/o" 2>&1 ||
	{ bad "a new checkpoint folder outside the target"; cat "$TMP/o"; }
[ -f "$TMP/p/newckpt/.gpufeed-data" ] && [ -z "$(find "$TMP/p/newckpt" -name '*.pt')" ] &&
	ok "a new folder outside the target: marked as its own root, emptied of what the run wrote" || { bad "newckpt"; ls -laR "$TMP/p/newckpt"; }

# 2 and 6. Keys that become paths, counts bounded, a URI with one slash.
mkdir -p "$TMP/victim"
echo "user's file" >"$TMP/victim/esc_0_of_64.npz"
before=$(sums "$TMP/victim")
for prefix in ../../victim/esc a/b ..; do
	gf 1 run "$SMALL" --target "$TMP/d/t" --results "$TMP/r2" --set "dataset.file_prefix=$prefix" >"$TMP/o" 2>&1
	refused "file_prefix $prefix" "$TMP/o" $? "dataset.file_prefix '$prefix' becomes part of every file name: give a plain name"
done
[ "$before" = "$(sums "$TMP/victim")" ] && [ ! -e "$TMP/d" ] && ok "file_prefix: nothing written anywhere" || bad "file_prefix wrote something"
no_results "file_prefix" "$TMP/r2"
gf 1 run "$SMALL" --target "$TMP/d/t" --results "$TMP/r2" --set dataset.num_subfolders_train=1000000 >"$TMP/o" 2>&1
refused "1000000 subfolders for 64 files" "$TMP/o" $? "num_subfolders_train (1000000) is more than dataset.num_files_train (64).*at most 64 subfolders"
[ ! -e "$TMP/d" ] && ok "subfolders: nothing created" || bad "subfolders: $(find "$TMP/d" | wc -l) entries created"
(cd "$TMP" && gf 1 run "$SMALL" --target s3:/x --results "$TMP/r2" >"$TMP/o" 2>&1)
refused "--target s3:/x" "$TMP/o" $? "did you mean s3://x"
[ ! -e "$TMP/s3:" ] && ok "s3:/x: no local folder ./s3:/x" || bad "s3:/x became a local folder"

# 3. Links inside a marked target are not followed.
gf 1 datagen "$SMALL" --target "$TMP/m" --results "$TMP/r3" --quiet >"$TMP/o" 2>&1 || { bad "datagen"; cat "$TMP/o"; }
mkdir -p "$TMP/elsewhere"
echo "not gpufeed's" >"$TMP/elsewhere/img_0_of_64.npz"
echo "not gpufeed's either" >"$TMP/elsewhere/victim.pt"
before=$(sums "$TMP/elsewhere")
mv "$TMP/m/train" "$TMP/m/train.real"
ln -s "$TMP/elsewhere" "$TMP/m/train"
# Another record size: the dataset is regenerated, so datagen would write through the link.
gf 1 run "$SMALL" --target "$TMP/m" --results "$TMP/r3b" --set dataset.record_length_bytes=16KiB >"$TMP/o" 2>&1
refused "train -> elsewhere" "$TMP/o" $? "$TMP/m/train is a symbolic link inside gpufeed's folder"
no_results "train -> elsewhere" "$TMP/r3b"
rm "$TMP/m/train"
mv "$TMP/m/train.real" "$TMP/m/train"
ln -sf "$TMP/elsewhere/img_0_of_64.npz" "$TMP/m/train/img_5_of_64.npz"
gf 1 run "$SMALL" --target "$TMP/m" --results "$TMP/r3b" --set dataset.record_length_bytes=16KiB >"$TMP/o" 2>&1
refused "a data file that is a link" "$TMP/o" $? "$TMP/m/train/img_5_of_64.npz is a symbolic link"
rm "$TMP/m/train/img_5_of_64.npz"
ln -s "$TMP/elsewhere" "$TMP/m/checkpoints"
gf 1 run "$SMALL" --target "$TMP/m" --results "$TMP/r3b" "${CK[@]}" >"$TMP/o" 2>&1
refused "checkpoints -> elsewhere" "$TMP/o" $? "$TMP/m/checkpoints is a symbolic link"
no_results "links" "$TMP/r3b"
rm "$TMP/m/checkpoints"
[ "$before" = "$(sums "$TMP/elsewhere")" ] && ok "nothing written through a link" ||
	{ bad "elsewhere changed"; diff <(echo "$before") <(sums "$TMP/elsewhere"); }

# 5. Checkpoints an earlier run kept: a writing run is refused (with or without keep),
# restore-only finds them, and none deletes them.
gf 2 run "$SMALL" --target "$TMP/k" --results "$TMP/r5" "${CK[@]}" --set checkpoint.keep=true --set checkpoint.num_checkpoints_read=0 \
	>"$TMP/o" 2>&1 || { bad "keep run"; cat "$TMP/o"; }
before=$(sums "$TMP/k")
[ "$(find "$TMP/k" -name '*.pt' | wc -l)" -eq 2 ] && ok "kept: 2 shards" || bad "kept: $(find "$TMP/k" -name '*.pt' | wc -l) shards"
for keep in false true; do
	gf 2 run "$SMALL" --target "$TMP/k" --results "$TMP/r5b" "${CK[@]}" --set checkpoint.keep=$keep >"$TMP/o" 2>&1
	refused "a writing run (keep $keep) over kept checkpoints" "$TMP/o" $? "holds checkpoints that an earlier run kept.*checkpoint.num_checkpoints_write=0"
done
no_results "kept" "$TMP/r5b"
gf 2 run "$SMALL" --target "$TMP/k" --results "$TMP/r5c" "${CK[@]}" --set checkpoint.num_checkpoints_write=0 >"$TMP/o" 2>&1 ||
	{ bad "restore-only"; cat "$TMP/o"; }
expect "restore-only found and verified the kept checkpoint" "$(only_result "$TMP/r5c")/summary.json" \
	'.status == "complete" and .checkpoint.restore_count == 1 and .checkpoint.verified == true'
[ "$before" = "$(sums "$TMP/k")" ] && ok "kept checkpoints byte for byte as they were" ||
	{ bad "kept checkpoints changed"; diff <(echo "$before") <(sums "$TMP/k"); }

# 1-3 for the libraries: a file MPI-IO or HDF5 creates is made beneath the root and named
# by its own descriptor (/proc/self/fd/N, io/beneath.h; the swaps it closes are in
# tests/unit/test_beneath.c and races.sh): a collective open with each rank's own name works, the
# files land inside the target, and no /proc name reaches what the user reads.
for layout in shared_file hdf5; do
	gf 2 run "$SMALL" --target "$TMP/lib/$layout" --results "$TMP/r6" "${CK[@]}" --set checkpoint.layout=$layout \
		--set checkpoint.keep=true >"$TMP/o" 2>&1 || { bad "$layout checkpoint run"; cat "$TMP/o"; }
	n=$(find "$TMP/lib/$layout/checkpoints" -type f -name 'checkpoint.*' | wc -l)
	[ "$n" -eq 1 ] && ok "$layout: the library's file created inside the target" || { bad "$layout: $n files"; find "$TMP/lib"; }
done
gf 2 datagen "$SMALL" --target "$TMP/lib/h5data" --results "$TMP/r6" --quiet --set dataset.format=hdf5 >"$TMP/o" 2>&1 ||
	{ bad "hdf5 datagen"; cat "$TMP/o"; }
[ "$(find "$TMP/lib/h5data/train" -type f -name '*.hdf5' | wc -l)" -eq 64 ] && ok "hdf5 datagen: 64 files inside the target" ||
	bad "hdf5 datagen: $(find "$TMP/lib/h5data" -type f | wc -l) files"
! grep -rqs /proc/self "$TMP/r6" "$TMP/o" && ok "no /proc name in the results" || bad "a /proc name in the results"
# Deletes go beneath the root too: checkpoints not kept are removed from the target.
gf 2 run "$SMALL" --target "$TMP/lib/del" --results "$TMP/r6" "${CK[@]}" --set checkpoint.layout=hdf5 >"$TMP/o" 2>&1 ||
	{ bad "hdf5 checkpoint run, not kept"; cat "$TMP/o"; }
[ -z "$(find "$TMP/lib/del/checkpoints" -mindepth 1 2>/dev/null)" ] && [ -f "$TMP/lib/del/.gpufeed-data" ] &&
	ok "checkpoints not kept: deleted beneath the root, the marker stays" || { bad "delete"; find "$TMP/lib/del"; }

# Issue 28 item 1: the target renamed away and a link to another folder put in its place
# mid-run (mv tgt tgt.real; ln -s out tgt): every rank holds the marked folder open, so
# the checkpoints still land in it, and the other folder stays as it was.
mkdir -p "$TMP/i1/out"
echo "the user's" >"$TMP/i1/out/keep.txt"
before=$(sums "$TMP/i1/out")
"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$SMALL" --target "$TMP/i1/tgt" --results "$TMP/r-i1" "${CK[@]}" \
	--set checkpoint.num_checkpoints_write=10 --set checkpoint.num_checkpoints_read=0 \
	--set checkpoint.time_between_checkpoints=0.2 --set checkpoint.keep=true >"$TMP/o-i1" 2>&1 &
pid=$!
for _ in $(seq 200); do [ -d "$TMP/i1/tgt/checkpoints/global_epoch1_step2" ] && break; sleep 0.05; done
mv "$TMP/i1/tgt" "$TMP/i1/tgt.real" && ln -s out "$TMP/i1/tgt"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && ok "target swapped mid-run: exit 0" || { bad "target swapped mid-run: exit $rc"; tail -5 "$TMP/o-i1"; }
n=$(find "$TMP/i1/tgt.real/checkpoints" -name 'model_states-*.pt' | wc -l)
[ "$n" -eq 20 ] && ok "target swapped mid-run: the 10 checkpoints in the folder the run held" || bad "target swapped: $n shards in tgt.real"
[ "$before" = "$(sums "$TMP/i1/out")" ] && ok "target swapped mid-run: nothing written in the folder the link leads to" ||
	{ bad "target swapped mid-run: out changed"; sums "$TMP/i1/out" | head; }

# Items 3 and 15: a hard link to a file elsewhere in place of a data file or a checkpoint
# file is replaced, never written through; a FIFO in place of a data file or of the
# manifest is refused at once, never waited on.
mkdir -p "$TMP/i3/out"
echo "the user's thesis" >"$TMP/i3/out/thesis.txt"
gf 1 datagen "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3" --quiet >"$TMP/o" 2>&1 || { bad "datagen"; cat "$TMP/o"; }
rm "$TMP/i3/t/train/img_5_of_64.npz"
ln "$TMP/i3/out/thesis.txt" "$TMP/i3/t/train/img_5_of_64.npz"
for layout in file_per_rank shared_file hdf5; do
	f=$(case $layout in file_per_rank) echo model_states-0.pt ;; shared_file) echo checkpoint.mpiio ;; *) echo checkpoint.h5 ;; esac)
	mkdir -p "$TMP/i3/t/ck-$layout/global_epoch1_step1"
	ln "$TMP/i3/out/thesis.txt" "$TMP/i3/t/ck-$layout/global_epoch1_step1/$f"
done
before=$(sums "$TMP/i3/out")
gf 1 run "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3" --quiet --set dataset.record_length_bytes=16KiB \
	--set train.epochs=1 >"$TMP/o" 2>&1 || { bad "a hard link in place of a data file: exit $?"; cat "$TMP/o"; }
for layout in file_per_rank shared_file hdf5; do
	gf 2 run "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3" "${CK[@]}" --set checkpoint.layout=$layout \
		--set checkpoint.checkpoint_folder=ck-$layout >"$TMP/o" 2>&1 ||
		{ bad "a hard link in place of a $layout checkpoint: exit $?"; cat "$TMP/o"; }
done
[ "$before" = "$(sums "$TMP/i3/out")" ] && [ "$(stat -c %h "$TMP/i3/out/thesis.txt")" -eq 1 ] &&
	ok "hard links in place of a data file and of each layout's checkpoint: replaced, the file elsewhere as it was" ||
	{ bad "a file elsewhere was written through a hard link"; cat "$TMP/i3/out/thesis.txt" | head -c 100 | od -c | head -3; }
rm -f "$TMP/i3/t/train/img_7_of_64.npz"
mkfifo "$TMP/i3/t/train/img_7_of_64.npz"
timeout 60 "$MPIRUN" --oversubscribe -np 1 "$GPUFEED" run "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3f" \
	--quiet --set dataset.record_length_bytes=8KiB >"$TMP/o" 2>&1
rc=$?
{ [ "$rc" -eq 1 ] && grep -q "img_7_of_64.npz: not a regular file" "$TMP/o"; } &&
	ok "a FIFO in place of a data file: datagen refuses it at once (exit 1)" || { bad "FIFO data file: exit $rc"; tail -5 "$TMP/o"; }
rm -f "$TMP/i3/t/train/img_7_of_64.npz"
gf 1 datagen "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3f" --quiet >"$TMP/o" 2>&1 || { bad "datagen"; cat "$TMP/o"; }
rm "$TMP/i3/t/.gpufeed-manifest.json"
mkfifo "$TMP/i3/t/.gpufeed-manifest.json"
for cmd in train run; do
	timeout 60 "$MPIRUN" --oversubscribe -np 1 "$GPUFEED" $cmd "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3m" \
		--quiet >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -ne 124 ] && ok "a FIFO as the manifest: $cmd does not wait on it (exit $rc)" || bad "a FIFO as the manifest: $cmd hangs"
done

# Item 11: null values in a manifest (every key, and one) are a dataset that differs, no
# crash: train says so (exit 2), run generates the dataset again.
rm -f "$TMP/i3/t/.gpufeed-manifest.json"
for manifest in '{"schema": null, "format": null, "file_prefix": null, "num_files_train": null}' \
	"$(gf 1 datagen "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3n" --quiet >/dev/null 2>&1;
	   jq -c '.format = null' "$TMP/i3/t/.gpufeed-manifest.json")"; do
	echo "$manifest" >"$TMP/i3/t/.gpufeed-manifest.json"
	gf 1 train "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3n" --quiet >"$TMP/o" 2>&1
	refused "train on a manifest with a null" "$TMP/o" $? "run 'gpufeed datagen' first"
	gf 1 run "$SMALL" --target "$TMP/i3/t" --results "$TMP/r-i3n" --quiet --set train.epochs=1 >"$TMP/o" 2>&1 &&
		ok "run on a manifest with a null: generated again, exit 0" || { bad "run on a null manifest: exit $?"; tail -3 "$TMP/o"; }
done

# 4. S3: dataset.keep_files false deletes what the run wrote, nothing else.
builddir=$(dirname "$GPUFEED")
if ! grep -q '^#define HAVE_CURL 1' "$builddir/config.h" 2>/dev/null || ! command -v node >/dev/null ||
	[ ! -d "$SRCDIR/tests/node_modules/@20minutes/s3rver" ]; then
	echo "note: no s3 engine or no s3rver: the S3 cases are left out"
	finish
fi
# The S3 cases run on the plain build only: the code they check (deletes by plan name) runs
# under the sanitizers in faults.sh (dataset.keep_files false on S3, twice), and here they
# cost a minute of the suite's 30 under AddressSanitizer.
if ldd "$GPUFEED" 2>/dev/null | grep -q libasan; then
	echo "note: sanitizer build: the S3 cases run on the plain build"
	finish
fi
srv=$TMP/s3rver
trap '"$SRCDIR/scripts/s3rver-stop.sh" "$srv"; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
endpoint=$("$SRCDIR/scripts/s3rver-start.sh" "$srv" gf-test) || { bad "s3rver did not start"; finish; }
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_ENDPOINT_URL=$endpoint AWS_REGION=us-east-1
unset AWS_SESSION_TOKEN AWS_PROFILE
ls3() { python3 "$SRCDIR/tests/s3ls.py" gf-test "$@"; }
gf 2 datagen "$SMALL" --target s3://gf-test/ds --results "$TMP/r4" --quiet >"$TMP/o" 2>&1 || { bad "s3 datagen"; cat "$TMP/o"; }
echo "the user's notes" >"$TMP/notes.txt"
ls3 --put ds/notes.txt "$TMP/notes.txt"
ls3 >"$TMP/before"
[ "$(grep -c '^ds/' "$TMP/before")" -eq 67 ] && ok "s3: 64 objects, marker, manifest and notes.txt" || { bad "s3 setup"; cat "$TMP/before"; }
gf 2 run "$SMALL" --target s3://gf-test/ds --results "$TMP/r4b" --quiet --set dataset.keep_files=false \
	--set workflow.checkpoint=true --set checkpoint.steps_between_checkpoints=16 --set model.model_size_bytes=1MiB \
	--set checkpoint.type=all_ranks >"$TMP/o" 2>&1 || { bad "s3 keep_files=false run"; cat "$TMP/o"; }
expect "s3: the run used the dataset datagen made and wrote checkpoints" "$(only_result "$TMP/r4b")/summary.json" \
	'.status == "complete" and (has("datagen") | not) and .checkpoint.write_count == 2'
ls3 >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "s3: the earlier dataset and notes.txt stay, the run's checkpoints went" ||
	{ bad "s3: the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }
# A new prefix: the run generated it and deletes exactly that.
gf 2 run "$SMALL" --target s3://gf-test/fresh --results "$TMP/r4c" --quiet --set dataset.keep_files=false >"$TMP/o" 2>&1 ||
	{ bad "s3 fresh run"; cat "$TMP/o"; }
expect "s3: a fresh prefix generated and trained" "$(only_result "$TMP/r4c")/summary.json" '.status == "complete" and .datagen.files == 64'
ls3 >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "s3: what the run generated deleted by name, the bucket as it was" ||
	{ bad "s3: the bucket changed"; diff "$TMP/before" "$TMP/after" | head; }
# The same with the keys spread over 16 hashed prefixes: deleted by their spread names.
gf 2 run "$SMALL" --target s3://gf-test/fresh --results "$TMP/r4s" --quiet --set dataset.keep_files=false \
	--set target.prefix_spread=16 >"$TMP/o" 2>&1 || { bad "s3 spread run"; cat "$TMP/o"; }
ls3 >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "s3: spread keys deleted by name, the bucket as it was" ||
	{ bad "s3: the bucket changed (spread)"; diff "$TMP/before" "$TMP/after" | head; }
# An unmarked prefix with the user's object in it: refused, nothing written.
ls3 --put mine/notes.txt "$TMP/notes.txt"
ls3 >"$TMP/before"
gf 1 run "$SMALL" --target s3://gf-test/mine --results "$TMP/r4d" --set dataset.keep_files=false >"$TMP/o" 2>&1
refused "s3: a prefix holding the user's object" "$TMP/o" $? "is not empty and was not created by gpufeed"
ls3 >"$TMP/after"
diff -q "$TMP/before" "$TMP/after" >/dev/null && ok "s3: the user's prefix as it was" || { bad "s3: mine changed"; diff "$TMP/before" "$TMP/after"; }
# Issue 28 item 20: a user and password in the endpoint URL (the environment's and the
# workload's) reach nothing gpufeed prints or stores; S3 signs with the access key alone.
pw_ep="http://gpufeed:Pa55w0rd@${endpoint#http://}"
AWS_ENDPOINT_URL=$pw_ep gf 1 run "$SMALL" --target s3://gf-test/pw --results "$TMP/r-pw" --set train.epochs=1 \
	--set "storage.storage_options.endpoint_url=$pw_ep" >"$TMP/o" 2>&1 || { bad "s3: a password in the endpoint: exit $?"; tail -3 "$TMP/o"; }
! grep -rq Pa55w0rd "$TMP/r-pw" "$TMP/o" && ok "s3: the endpoint's password in no output, summary or report" ||
	{ bad "s3: the endpoint's password was printed or stored"; grep -rl Pa55w0rd "$TMP/r-pw" "$TMP/o"; }
finish
