#!/usr/bin/env bash
# Description: S3 on a server host behind a shaped link: radosgw (scripts/radosgw-start.sh,
# inside the host's namespace, on the host's address) on gft-s1 at 100 Mbit/s, 2 client
# hosts at 1 Gbit/s x 2 ranks. A checkpoint (an object per rank, multipart) written and
# restored; a dataset generated and trained on.
# Expected: the S3 phase figures (s3.phases.*.bytes_per_s) and the bursts show the server
# link's limit: checkpoint write and restore within 20% of its payload rate, training
# reads never above it; requests answered without errors, from both hosts.
# Buggy: traffic that bypasses the link (the rate far above 100 Mbit/s), a client that
# reaches radosgw on loopback, S3 figures that do not add up to the bursts.
. "$(dirname "$0")/lib.sh"
command -v radosgw >/dev/null || { echo "SKIP: radosgw not installed (Debian packages radosgw ceph-mon ceph-osd)"; exit 77; }
# No proxy: the testbed reaches nothing but itself.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
tb_up --clients 2 --servers 1 --client-rate 1gbit --server-rate 100mbit --s3
case $AWS_ENDPOINT_URL in
http://10.77.0.101:*) ok "radosgw listens on gft-s1's address ($AWS_ENDPOINT_URL)" ;;
*) bad "radosgw endpoint $AWS_ENDPOINT_URL is not on gft-s1" ;;
esac
# The link's payload rate (bwpredict.py explains the 1448/1514).
link=$(awk '$1 == "gft-s1" { printf "%.0f", $4 / 8 * 1448 / 1514 }' "$GF_TESTBED_DIR/rates")
HOSTS='["gft-c1","gft-c2"]'

# --- a checkpoint: 4 objects written and read back through the 100 Mbit/s link ---
res=$TMP/r-ck
if tbrun 2 run "$SRCDIR/workloads/llama3_8b.yaml" --target s3://gf-testbed/ck --results "$res" \
	--set checkpoint.scale=1/2000 --set model.parallelism.data=4 --set checkpoint.time_between_checkpoints=0 \
	--set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1 --quiet >"$TMP/o" 2>&1; then
	s=$(only_result "$res")/summary.json
	expect "checkpoint: object per rank, written and restored, verified, from 2 hosts" "$s" ".status == \"complete\" and .checkpoint.layout == \"object_per_rank\" and .checkpoint.verified == true and .environment.hosts == $HOSTS"
	expect "s3 phases: the bursts' bytes, no errors or retries" "$s" '.s3.phases.checkpoint_write.bytes_sent == .checkpoint.bytes and .s3.phases.checkpoint_restore.bytes_received == .checkpoint.bytes and ([.s3.errors[]] | add) == 0 and ([.s3.retries[]] | add) == 0'
	for k in write restore; do
		if python3 "$SRCDIR/tests/testbed/bwpredict.py" "s3 1srv@100M cli@1G" "$GF_TESTBED_DIR/rates" "$s" "$k" gft-s1=ALL >"$TMP/row"; then
			ok "checkpoint $k within 20% of the link: $(cut -c28- "$TMP/row" | awk '{ print $5 " MB/s for " $4 }')"
		else
			bad "checkpoint $k: $(cat "$TMP/row")"
		fi
		cat "$TMP/row" >>"$TMP/table"
	done
	expect "s3 phase figures show the link: write and restore 80-105% of $((link / 1000)) kB/s" "$s" "[.s3.phases.checkpoint_write.bytes_per_s, .s3.phases.checkpoint_restore.bytes_per_s] | all(. > 0.8 * $link and . < 1.05 * $link)"
else
	bad "checkpoint over S3 from 2 hosts"
	cat "$TMP/o"
fi

# --- training reads: never above the link ---
W=("$SRCDIR/tests/integration/small.yaml" --set dataset.num_files_train=32 --set dataset.record_length_bytes=512KiB
	--set dataset.record_length_bytes_stdev=0 --set train.epochs=1 --set train.computation_time=0 --quiet)
res=$TMP/r-train
if tbrun 2 run "${W[@]}" --target s3://gf-testbed/data --results "$res" >"$TMP/o" 2>&1; then
	s=$(only_result "$res")/summary.json
	# 32 npz files of 512 KiB each behind its zip and .npy headers (< 1 KiB), read whole.
	expect "train: 32 whole npz files (16 MiB + headers) read from 2 hosts" "$s" ".status == \"complete\" and .train.read_bytes % 32 == 0 and .train.read_bytes >= 16777216 and .train.read_bytes < 16777216 + 32 * 1024 and .environment.hosts == $HOSTS and (.nodes | length) == 2"
	expect "s3 train phase: at most the link's $((link / 1000)) kB/s" "$s" ".s3.phases.train.bytes_received >= .train.read_bytes and .s3.phases.train.bytes_per_s < 1.05 * $link"
	echo "   train over S3: $(jq -r '.s3.phases.train.bytes_per_s / 1e6 * 10 | floor / 10' "$s") MB/s (link $(awk -v l="$link" 'BEGIN { printf "%.1f", l / 1e6 }') MB/s)"
else
	bad "datagen and train over S3 from 2 hosts"
	cat "$TMP/o"
fi
printf '%-26s %-7s %-7s %9s %9s %9s %6s\n' "run" "burst" "bound" "naive" "predict" "measured" "ratio"
cat "$TMP/table" 2>/dev/null
finish
