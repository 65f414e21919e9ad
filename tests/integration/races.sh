#!/usr/bin/env bash
# Description: links swapped in while checkpoints are written, for every local layout
# (file_per_rank, shared_file, hdf5), issue 28 items 1 and 2: a swapper renames the target
# away and puts a link to an outside folder in its place, does the same to the newest
# checkpoint folder, and puts a link to an outside file in place of the newest checkpoint
# file (checkpoint.mpiio, checkpoint.h5, a shard), putting each back a few milliseconds
# later; and it makes links to the outside file flicker at the names the next checkpoint
# will have; over and over, while runs write. About 3 s of swaps a layout in the default
# suite (about 20 s in all on a quiet machine); 1000 swaps a layout with
# GPUFEED_LONG_TESTS=1.
# Expected: nothing appears in the outside folder and the outside file keeps its bytes,
# whatever each run's exit (a link met on the way fails a burst: exit 1 naming it).
# Buggy: checkpoints land in the folder the link leads to (the target re-resolved by its
# name), MPI-IO or HDF5 write through a link planted after gpufeed looked.
. "$(dirname "$0")/lib.sh"

export OMPI_MCA_rmaps_base_oversubscribe=1
swaps=0 seconds=3
[ "${GPUFEED_LONG_TESTS:-0}" = 1 ] && swaps=1000 seconds=0
LLAMA=$SRCDIR/workloads/llama3_8b.yaml
ck=(--quiet --set checkpoint.scale=1/200000 --set model.parallelism.data=2 --set checkpoint.time_between_checkpoints=0.02
	--set checkpoint.num_checkpoints_write=2000 --set checkpoint.num_checkpoints_read=0)
sums() { (cd "$1" && find . \( -type f -exec sha1sum {} + \) -o \( -type l -printf '%p -> %l\n' \) -o -print | sort); }

# swap.py TGT OUT SECONDS PID: links swapped in for SECONDS, or until PID (the run's
# mpirun) ended; prints how many.
cat >"$TMP/swap.py" <<'PY'
import glob, os, random, re, sys, time
tgt, out, secs, pid = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
victim = os.path.join(out, "victim")
end, done = time.time() + secs, 0

def running():
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False

def newest(pattern, want_dir):
    c = [p for p in glob.glob(pattern) if not os.path.islink(p) and os.path.isdir(p) == want_dir
         and not p.endswith(".real")]
    try:
        return max(c, key=lambda p: os.lstat(p).st_mtime) if c else None
    except OSError:
        return None

def swap(path, to):
    """path renamed away, a link to `to` in its place for a moment, then put back."""
    try:
        os.rename(path, path + ".real")
    except OSError:
        return False
    try:
        os.symlink(to, path)
        time.sleep(random.uniform(0.0005, 0.004))
        os.unlink(path)
    except OSError:
        pass
    os.rename(path + ".real", path)
    return True

NAMES = ("checkpoint.mpiio", "checkpoint.h5", "zero_pp_rank_0_mp_rank_0_model_states.pt",
         "zero_pp_rank_1_mp_rank_0_model_states.pt")

def plant_next(d):
    """Links to the outside file flicker in the next checkpoint's folder, at the names the
    layouts create there: one may appear after gpufeed looked and before the library opens."""
    m = re.match(r"(.*_step)(\d+)$", d)
    if not m:
        return False
    nxt = m.group(1) + str(int(m.group(2)) + 1)
    try:
        os.makedirs(nxt, exist_ok=True)
    except OSError:
        return False
    for _ in range(40):
        for name in NAMES:
            p = os.path.join(nxt, name)
            try:
                os.symlink(victim, p)
            except OSError:
                continue
            time.sleep(0.0002)
            try:
                if os.path.islink(p):
                    os.unlink(p)
            except OSError:
                pass
    return True

while time.time() < end and running():
    kind = done % 4
    if kind == 0:
        ok = swap(tgt, out)
    elif kind == 1:
        d = newest(os.path.join(tgt, "checkpoints", "*", "global_*"), True)
        ok = d is not None and swap(d, out)
    elif kind == 2:
        f = newest(os.path.join(tgt, "checkpoints", "*", "global_*", "*"), False)
        ok = f is not None and swap(f, victim)
    else:
        d = newest(os.path.join(tgt, "checkpoints", "*", "global_*"), True)
        ok = d is not None and plant_next(d)
    done += ok
    time.sleep(random.uniform(0, 0.003))
print(done)
PY

for layout in file_per_rank shared_file hdf5; do
	out=$TMP/out-$layout tgt=$TMP/t-$layout
	mkdir -p "$out"
	echo "the user's file, not gpufeed's" >"$out/victim"
	before=$(sums "$out")
	# Runs one after the other until the swaps are done (or the seconds are up).
	n=0 runs=0 failed=0 t0=$(date +%s)
	while :; do
		"$MPIRUN" --oversubscribe -np 2 "$GPUFEED" run "$LLAMA" --target "$tgt" --results "$TMP/r-$layout" "${ck[@]}" \
			--set checkpoint.layout=$layout >"$TMP/o-$layout" 2>&1 &
		pid=$!
		for _ in $(seq 200); do [ -n "$(find "$tgt/checkpoints" -name 'global_*' 2>/dev/null | head -1)" ] && break; sleep 0.05; done
		left=$((seconds - ($(date +%s) - t0)))
		[ "$swaps" -gt 0 ] && left=600
		[ "$left" -ge 1 ] || left=1
		k=$(python3 "$TMP/swap.py" "$tgt" "$out" "$left" "$pid")
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" || failed=$((failed + 1))
		n=$((n + ${k:-0})) runs=$((runs + 1))
		# A loaded machine makes fewer swaps in the seconds: runs go on (up to 6 times the
		# seconds) until 5 are made, the fewest that says anything.
		t=$(($(date +%s) - t0))
		if [ "$swaps" -gt 0 ]; then [ "$n" -ge "$swaps" ] && break
		elif [ "$t" -ge "$seconds" ] && { [ "$n" -ge 5 ] || [ "$t" -ge $((6 * seconds)) ]; }; then break; fi
		[ "$runs" -ge 300 ] && { bad "$layout: 300 runs, only $n swaps"; break; }
	done
	[ "$before" = "$(sums "$out")" ] && ok "$layout: $n swaps in $runs run(s) ($failed ended by a link or the signal), nothing written outside" ||
		{ bad "$layout: the outside folder changed after $n swaps"; diff <(echo "$before") <(sums "$out") | head; }
	[ "$n" -ge 5 ] || bad "$layout: only $n swaps were made"
	[ ! -e "$tgt.real" ] && [ -d "$tgt" ] && [ ! -L "$tgt" ] || bad "$layout: the swapper did not put the target back"
done
finish
