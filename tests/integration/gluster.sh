#!/usr/bin/env bash
# Description: gpufeed on a real distributed filesystem: a 4-brick distributed GlusterFS
# volume started by scripts/gluster-start.sh (glusterd on 127.0.0.1, FUSE mount), read and
# written by 4 ranks. Training reads over the FUSE mount with every local engine built in
# (posix, uring, aio) and natively with gfapi (gluster://host/volume/path, no FUSE); a
# dataset written through gfapi is read through FUSE; checkpoint bursts in every layout
# (file per rank, MPI-IO shared file collective and independent, parallel HDF5) over FUSE
# and file per rank through gfapi, each restored from another rank and verified. The
# volume is torn down by a trap whatever happens.
# Expected: every run complete; bytes read through every client = bytes read from a local
# copy of the bricks' files (np.load reads more than a file: its end record, directory and
# header first); fs_type fuse.glusterfs over FUSE (with the client cache noted) and
# glusterfs through gfapi (not page-cached); a "nodes" array that adds up to the run;
# refusals (exit 2) for gluster:// with a local engine or an MPI-IO layout; nothing left
# mounted or running afterwards.
# Buggy: gfapi paths resolved as local paths, a dataset check that looks on the local disk,
# glfs_fini inside the timed phase, checkpoints or glusterd left behind.
. "$(dirname "$0")/lib.sh"

[ -c /dev/fuse ] || { echo "SKIP: /dev/fuse is missing: no FUSE in this kernel or container"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: glusterd and mount need root"; exit 77; }
command -v glusterd >/dev/null || { echo "SKIP: glusterd not installed (scripts/install-deps.sh --test installs glusterfs-server)"; exit 77; }

export GF_GLUSTER_DIR=$TMP/gluster GF_GLUSTER_VOLUME=gftest
teardown() {
	local t0=$SECONDS
	"$SRCDIR/scripts/gluster-stop.sh" >/dev/null 2>&1
	echo "teardown: $((SECONDS - t0)) s"
	rm -rf "$TMP"
}
trap teardown EXIT

t0=$SECONDS
if ! env_out=$("$SRCDIR/scripts/gluster-start.sh" 2>"$TMP/start.err"); then
	cat "$TMP/start.err"
	bad "gluster-start.sh failed"
	finish
fi
eval "$env_out"
echo "bring-up: $((SECONDS - t0)) s ($GF_GLUSTER_URI on $GF_GLUSTER_MOUNT)"
mountpoint -q "$GF_GLUSTER_MOUNT" && ok "volume mounted over FUSE" || bad "no FUSE mount"

MNT=$GF_GLUSTER_MOUNT
URI=$GF_GLUSTER_URI
# The engines this build registered, from --help ("I/O engine: uring|aio|posix|gfapi|null").
names=$("$GPUFEED" run --help 2>&1 | sed -n 's/.*I\/O engine: \([a-z0-9|]*\).*/\1/p')
has() { case "|$names|" in *"|$1|"*) return 0 ;; esac; return 1; }
gfapi=false
has gfapi && gfapi=true
engines=(posix)
for e in uring aio; do has "$e" && engines+=("$e"); done
echo "engines over FUSE: ${engines[*]}; gfapi built: $gfapi"

# Bytes of the dataset files on the bricks themselves (not through any client).
brick_bytes() { find "$GF_GLUSTER_DIR"/bricks/*/"$1"/train -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

# --- training reads over the FUSE mount ---
gf 4 datagen "$SMALL" --target "$MNT/data" --results "$TMP/r-gen" --quiet >"$TMP/o" 2>&1 || { bad "datagen over FUSE"; cat "$TMP/o"; }
disk=$(brick_bytes data)
[ "$(find "$GF_GLUSTER_DIR"/bricks/*/data/train -type f | wc -l)" -eq 64 ] && ok "64 files spread over the bricks" || bad "files on the bricks"
# What np.load's reads of these files add up to (the end record, the central directory and
# the member header before the member: more than the files' bytes), from a copy on local
# disk: every client of the volume must read exactly as much.
cp -r "$MNT/data" "$TMP/local-copy"
local_bytes=$(find "$TMP/local-copy/train" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
[ "$local_bytes" = "$disk" ] && ok "the copy through FUSE holds the bricks' bytes ($disk)" || bad "copy $local_bytes bytes, bricks $disk"
want=0
gf 4 train "$SMALL" --target "$TMP/local-copy" --engine posix --results "$TMP/r-local" --quiet \
	--set reader.file_shuffle=off --set reader.sample_shuffle=off --set train.epochs=1 >"$TMP/o" 2>&1 &&
	want=$(jq .train.read_bytes "$(only_result "$TMP/r-local")/summary.json") || { bad "train on the local copy"; cat "$TMP/o"; }
used=$(for b in "$GF_GLUSTER_DIR"/bricks/*; do [ -n "$(ls -A "$b/data/train" 2>/dev/null)" ] && echo "$b"; done | wc -l)
[ "$used" -ge 2 ] && ok "the distributed volume used $used bricks" || bad "only $used brick(s) hold data"
for e in "${engines[@]}"; do
	res=$TMP/r-fuse-$e
	if ! gf 4 train "$SMALL" --target "$MNT/data" --engine "$e" --results "$res" --quiet \
		--set reader.file_shuffle=off --set reader.sample_shuffle=off --set train.epochs=1 >"$TMP/o" 2>&1; then
		bad "train over FUSE with $e"; cat "$TMP/o"; continue
	fi
	s=$(only_result "$res")/summary.json
	expect "fuse/$e: complete, engine $e" "$s" ".status == \"complete\" and .target.engine == \"$e\" and .target.kind == \"local\""
	expect "fuse/$e: bytes read = the local copy's ($want)" "$s" ".train.read_bytes == $want"
	expect "fuse/$e: fs_type fuse.glusterfs, client-cached" "$s" '.environment.fs_type == "fuse.glusterfs" and .environment.client_cache.cached == true and (.environment.client_cache.reason | test("FUSE"))'
	expect "fuse/$e: nodes array adds up" "$s" '(.nodes | length) == 1 and .nodes[0].ranks == 4 and .nodes[0].accelerators == 4 and .nodes[0].read_bytes == .train.read_bytes and (.nodes[0].read_bytes_per_s > 0) and .nodes[0].read_rate_vs_median == 1 and (.nodes[0].host | length) > 0'
done

# --- the same volume through libgfapi ---
if $gfapi; then
	# Reads of the dataset that the FUSE run wrote: the same files, another client.
	res=$TMP/r-gfapi-train
	if gf 4 train "$SMALL" --target "$URI/data" --results "$res" --quiet \
		--set reader.file_shuffle=off --set reader.sample_shuffle=off --set train.epochs=1 >"$TMP/o" 2>&1; then
		s=$(only_result "$res")/summary.json
		expect "gfapi: complete, engine gfapi by default" "$s" '.status == "complete" and .target.engine == "gfapi" and .target.kind == "gluster" and (.target.engine_reason | test("gluster"))'
		expect "gfapi: bytes read = the local copy's ($want)" "$s" ".train.read_bytes == $want"
		expect "gfapi: fs_type glusterfs, not page-cached" "$s" '.environment.fs_type == "glusterfs" and .environment.client_cache.cached == false'
		expect "gfapi: queue depth kept (requests > 0, latency measured)" "$s" '.train.read_requests >= 64 and .train.read_latency_us.p50 > 0'
	else
		bad "train through gfapi"; cat "$TMP/o"
	fi
	# A dataset generated through gfapi (marker, manifest, folders through libgfapi), then
	# trained on through FUSE: both clients see one dataset.
	res=$TMP/r-gfapi-run
	if gf 4 run "$SMALL" --target "$URI/data2" --results "$res" --quiet --set dataset.num_files_train=48 >"$TMP/o" 2>&1; then
		s=$(only_result "$res")/summary.json
		expect "gfapi run: generated 48 files and trained" "$s" '.status == "complete" and .datagen.files == 48 and .train.samples > 0'
		[ -f "$MNT/data2/.gpufeed-data" ] && [ -f "$MNT/data2/.gpufeed-manifest.json" ] &&
			ok "gfapi wrote the marker and the manifest" || bad "no marker or manifest written through gfapi"
		[ "$(find "$MNT/data2/train" -type f | wc -l)" -eq 48 ] && ok "48 files visible through FUSE" || bad "files through FUSE"
		gf 4 train "$SMALL" --target "$MNT/data2" --results "$TMP/r-cross" --quiet --set dataset.num_files_train=48 >"$TMP/o" 2>&1 &&
			ok "FUSE reads the dataset gfapi generated (manifest accepted)" || { bad "FUSE train on the gfapi dataset"; cat "$TMP/o"; }
	else
		bad "run through gfapi"; cat "$TMP/o"
	fi
	# Refusals before any I/O: exit 2 with the reason.
	gf 1 train "$SMALL" --target "$URI/data" --engine posix --results "$TMP/r-x1" >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "gfapi engine" "$TMP/o" && ok "gluster:// with engine posix: exit 2, says why" || { bad "posix on gluster:// gave $rc"; cat "$TMP/o"; }
	gf 1 run "$SRCDIR/workloads/llama3_8b.yaml" --target "$URI/ck" --set checkpoint.layout=shared_file \
		--set model.parallelism.data=1 --results "$TMP/r-x2" >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "MPI-IO" "$TMP/o" && ok "gluster:// with a shared-file layout: exit 2, says why" || { bad "shared_file on gluster:// gave $rc"; cat "$TMP/o"; }
	gf 1 train "$SMALL" --target "gluster://$GF_GLUSTER_HOST" --results "$TMP/r-x3" >"$TMP/o" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "gluster://host" "$TMP/o" && ok "a gluster:// URI without a volume: exit 2" || { bad "bad URI gave $rc"; cat "$TMP/o"; }
else
	bad "this build has no gfapi engine (configure found no glusterfs-api; install libglusterfs-dev)"
fi

# --- checkpoint bursts: 4 ranks, a scaled llama3_8b, one write and one verified restore ---
LLAMA=$SRCDIR/workloads/llama3_8b.yaml
common=(--set checkpoint.scale=1/1000 --set model.parallelism.data=4 --set checkpoint.time_between_checkpoints=0
	--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1 --quiet)
layouts=("$MNT/ck-fpr file_per_rank true" "$MNT/ck-coll shared_file true" "$MNT/ck-ind shared_file false" "$MNT/ck-h5 hdf5 true")
$gfapi && layouts+=("$URI/ck-gfapi file_per_rank true")
for l in "${layouts[@]}"; do
	read -r target layout coll <<<"$l"
	name="${target##*/} ($layout, collective $coll)"
	res=$TMP/r-${target##*/}
	if ! gf 4 run "$LLAMA" --target "$target" --results "$res" "${common[@]}" \
		--set checkpoint.layout="$layout" --set checkpoint.collective="$coll" >"$TMP/o" 2>&1; then
		bad "$name: run failed"; cat "$TMP/o"; continue
	fi
	s=$(only_result "$res")/summary.json
	expect "$name: 1 write, 1 restore, verified" "$s" '.status == "complete" and .checkpoint.write_count == 1 and .checkpoint.restore_count == 1 and .checkpoint.verified == true and ([.checkpoint.bursts[] | select(.kind == "restore") | .blocks_verified > 0] | all)'
	expect "$name: scaled 8B size, durable" "$s" '.checkpoint.bytes > 112423657 and .checkpoint.bytes < 112423657 + 8 * 4096 and .checkpoint.durable == true'
	# Which brick held each rank's files (trusted.glusterfs.pathinfo, FUSE or gfapi alike).
	if [ "$layout" = file_per_rank ]; then
		awk -F, 'NR > 1 && $6 !~ /^[^:;]+:\/[^;]*;[^:;]+:\// { bad++ } END { exit bad > 0 || NR < 9 }' \
			"$(dirname "$s")/checkpoint_ranks.csv" && ok "$name: checkpoint_ranks.csv names the brick of each file" ||
			{ bad "$name: checkpoint_ranks.csv server column"; cat "$(dirname "$s")/checkpoint_ranks.csv"; }
	fi
	left=$(find "$MNT/${target##*/}" -name '*.pt' -o -name 'checkpoint.*' 2>/dev/null | wc -l)
	[ "$left" -eq 0 ] && ok "$name: no checkpoint files left" || bad "$name: $left files left"
	echo "   $name: write $(jq -r '.checkpoint.write_bytes_per_s / 1e6 | floor' "$s") MB/s, restore $(jq -r '.checkpoint.restore_bytes_per_s / 1e6 | floor' "$s") MB/s"
done

# --- teardown leaves nothing ---
trap 'rm -rf "$TMP"' EXIT
t0=$SECONDS
"$SRCDIR/scripts/gluster-stop.sh" >/dev/null 2>&1
echo "teardown: $((SECONDS - t0)) s"
mountpoint -q "$MNT" 2>/dev/null && bad "still mounted after gluster-stop.sh" || ok "unmounted"
if [ -f "$GF_GLUSTER_DIR/glusterd.pid" ] || pgrep -f -- "$GF_GLUSTER_DIR/" >/dev/null; then
	bad "glusterd or a brick of the test volume still runs"
else
	ok "glusterd and bricks stopped, bricks removed"
fi
finish
