#!/usr/bin/env bash
# Description: gpufeed plan does no I/O, is fast and small whatever the dataset size.
# Expected: a workload of 10^10 samples plans with under a second of CPU time (CPU, not
# wall-clock time: a loaded machine stretches the wall clock, never the work done) and a
# peak resident memory under 64 MiB; the demand figures follow batch x mean / compute; the page-cache
# warning shows for a small dataset and not for a large one.
# Buggy: a per-file or per-sample array (memory grows with the dataset), MPI started for
# a plan, wrong arithmetic.
. "$(dirname "$0")/lib.sh"

out=$TMP/plan
/usr/bin/time -v "$GPUFEED" plan "$SMALL" --ranks 1024 --set dataset.num_files_train=10000000000 \
	--set train.computation_time=0.5 --set reader.batch_size=10 --set dataset.record_length_bytes=1MB \
	>"$out" 2>"$TMP/time" || { bad "plan failed"; cat "$out" "$TMP/time"; }
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time")
secs=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s + 0 }' "$TMP/time")
echo "plan of 10^10 samples: ${rss_kb} KiB resident, ${secs} s of CPU"
[ "${rss_kb:-999999}" -lt 65536 ] && ok "peak RSS ${rss_kb} KiB < 64 MiB" || bad "peak RSS ${rss_kb} KiB"
awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }' && ok "plan used ${secs} s of CPU < 1 s" ||
	{ bad "plan used ${secs} s of CPU"; cat "$TMP/time"; }
grep -q "10000000000 samples" "$out" && ok "sample count" || bad "sample count missing"
grep -q "1024 accelerators" "$out" && ok "1024 accelerators" || bad "accelerator count"
# 10 x 1 MB / 0.5 s = 20 MB/s per accelerator, 20.5 GB/s for 1024.
grep -q "demand        20.0 MB/s per accelerator" "$out" && ok "per-accelerator demand" || { bad "demand"; grep demand "$out"; }
grep -q "demand total  20.5 GB/s" "$out" && ok "total demand" || { bad "total demand"; grep demand "$out"; }
grep -q "page cache" "$out" && bad "page-cache warning for a 10 PB dataset" || ok "no page-cache warning for 10 PB"

"$GPUFEED" plan "$SMALL" --ranks 2 >"$out" 2>&1 || bad "small plan failed"
grep -q "page cache" "$out" && ok "page-cache warning for a small dataset" || bad "no page-cache warning"
"$GPUFEED" plan "$SMALL" --ranks 2 --nodes 1 --node-memory 1KiB >"$out" 2>&1
grep -q "page cache" "$out" && bad "warning with 1 KiB node memory" || ok "--node-memory is used"
# plan on a workload too small for the ranks is a usage error.
"$GPUFEED" plan "$SMALL" --ranks 64 >"$out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "fewer than one batch" "$out" && ok "too many ranks: exit 2 with reason" || { bad "too many ranks: exit $rc"; cat "$out"; }
finish
