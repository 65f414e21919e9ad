#!/usr/bin/env bash
# vs-s3-clients: gpufeed's S3 requests against established S3 clients from Debian (rclone
# and the AWS CLI), the same objects, the same number of requests in flight, one S3 server.
#
# By default it starts a throwaway Ceph RADOS Gateway (scripts/radosgw-start.sh: one
# monitor, one memstore OSD, beast on 127.0.0.1) and stops it at the end. It makes a local
# folder of OBJECTS files of SIZE bytes (gpufeed datagen, on /dev/shm) and one copy of them
# in the bucket, then for ROUNDS rounds, clients in a rotating order:
#   PUT  gpufeed datagen of the OBJECTS objects (one rank, one thread, target.queue_depth
#        INFLIGHT); rclone copy of the local folder (--transfers INFLIGHT, one PUT per
#        object: no bucket check, no HEAD after the upload, no MD5); aws s3 cp --recursive
#        (max_concurrent_requests = INFLIGHT, multipart_threshold 5GB) in a throwaway
#        AWS config. All three overwrite the same keys (the first copy made them).
#   GET  gpufeed ceiling reading every object whole once (read_type memory, queue depth
#        INFLIGHT, one reader thread, one rank); rclone copy to a folder on /dev/shm
#        (--transfers INFLIGHT, no HEAD before the GET, no MD5 check); aws s3 cp --recursive
#        to a folder on /dev/shm.
# Every command runs under /usr/bin/time (gpufeed with its mpirun): "wall req/s" is objects
# / wall time and "CPU s / 1000" the command's user + system time per 1,000 objects, start-up
# included for everyone. "req/s" is the same as "wall req/s" for the clients; for gpufeed it
# is its own in-phase figure from summary.json (datagen files / elapsed_s, ceiling
# read_requests_per_s), without mpirun's start-up. "server req" counts the requests radosgw
# served (its rgw.req counter; only when this script started it): listings, HEADs and
# gpufeed's marker and manifest included. Each figure is the median of the rounds.
#
# usage: scripts/bench/vs-s3-clients.sh [--gpufeed BIN] [--rounds N] [--objects N]
#            [--size SIZE] [--inflight N] [--ops "put get"] [--clients "gpufeed rclone aws"]
#            [--endpoint URL --bucket B] [--keep]
# --endpoint uses an S3 server already running (credentials from AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY; objects go under gpufeed-vs-s3-clients/ in bucket B and are
# deleted at the end unless --keep). --keep leaves the objects, the local folder and the
# radosgw cluster it started running (its folder is printed). Defaults: 3 rounds, 3000
# objects of 128KiB, 16 in flight. Needs mpirun, jq, rclone, Debian's /usr/bin/aws (package
# awscli; AWS_CLI=PATH for another), /usr/bin/time and, without --endpoint, radosgw
# (scripts/install-deps.sh --test installs them all). VSS3_RAW=1 prints every run on stderr.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
GPUFEED=${GPUFEED:-$top/build/gpufeed}
# Debian's AWS CLI explicitly: a pyenv or pip shim named aws may come first on PATH.
AWS=${AWS_CLI:-/usr/bin/aws}
ROUNDS=3
OBJECTS=3000
SIZE=128KiB
INFLIGHT=16
OPS="put get"
CLIENTS="gpufeed rclone aws"
ENDPOINT=
BUCKET=
KEEP=0
while [ $# -gt 0 ]; do
	case $1 in
	--gpufeed) GPUFEED=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--objects) OBJECTS=$2; shift ;;
	--size) SIZE=$2; shift ;;
	--inflight) INFLIGHT=$2; shift ;;
	--ops) OPS=$2; shift ;;
	--clients) CLIENTS=$2; shift ;;
	--endpoint) ENDPOINT=$2; shift ;;
	--bucket) BUCKET=$2; shift ;;
	--keep) KEEP=1 ;;
	-h|--help) sed -n '2,35p' "$0"; exit 0 ;;
	*) echo "vs-s3-clients: unknown option $1 (-h for help)" >&2; exit 2 ;;
	esac
	shift
done
for v in ROUNDS OBJECTS INFLIGHT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "vs-s3-clients: --${v,,} must be a positive integer, not '${!v}'" >&2; exit 2; }
done
[[ $SIZE =~ ^[1-9][0-9]*(|[KMG]iB)$ ]] || { echo "vs-s3-clients: --size must be bytes or N KiB/MiB/GiB (e.g. 128KiB), not '$SIZE'" >&2; exit 2; }
for o in $OPS; do case $o in put|get) ;; *) echo "vs-s3-clients: --ops takes put and get, not '$o'" >&2; exit 2 ;; esac; done
for c in $CLIENTS; do case $c in gpufeed|rclone|aws) ;; *) echo "vs-s3-clients: --clients takes gpufeed, rclone and aws, not '$c'" >&2; exit 2 ;; esac; done
if [ -n "$ENDPOINT" ]; then
	[ -n "$BUCKET" ] || { echo "vs-s3-clients: --endpoint needs --bucket" >&2; exit 2; }
	[ -n "${AWS_ACCESS_KEY_ID:-}" ] && [ -n "${AWS_SECRET_ACCESS_KEY:-}" ] ||
		{ echo "vs-s3-clients: --endpoint needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment" >&2; exit 2; }
fi
for tool in jq mpirun rclone /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "vs-s3-clients: $tool is needed (scripts/install-deps.sh --test)" >&2; exit 2; }
done
[ -x "$AWS" ] || { echo "vs-s3-clients: no AWS CLI at $AWS: install Debian's awscli (scripts/install-deps.sh --test) or set AWS_CLI" >&2; exit 2; }
[ -x "$GPUFEED" ] || { echo "vs-s3-clients: no gpufeed at $GPUFEED (--gpufeed BIN)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /tmp/vs-s3-clients.XXXXXX)
SHM=$(mktemp -d /dev/shm/vs-s3-clients.XXXXXX)
RGW=$WORK/rgw
PREFIX=gpufeed-vs-s3-clients
started_rgw=0
cleanup() {
	if [ "$KEEP" = 1 ]; then
		echo "vs-s3-clients: kept $WORK and $SHM${ENDPOINT:+ and s3://$BUCKET/$PREFIX/}" >&2
		[ "$started_rgw" = 1 ] && echo "vs-s3-clients: radosgw still runs: scripts/radosgw-stop.sh $RGW" >&2
		return
	fi
	if [ "$started_rgw" = 1 ]; then
		"$top/scripts/radosgw-stop.sh" "$RGW"
	elif [ -n "$ENDPOINT" ] && [ -n "${AWS_RUN+set}" ]; then
		"${AWS_RUN[@]}" s3 rm --recursive --quiet "s3://$BUCKET/$PREFIX/" || true
	fi
	rm -rf "$WORK" "$SHM"
}
trap cleanup EXIT

if [ -z "$ENDPOINT" ]; then
	command -v radosgw >/dev/null || { echo "vs-s3-clients: radosgw is needed without --endpoint (scripts/install-deps.sh --test)" >&2; exit 2; }
	BUCKET=gf-vs-s3
	started_rgw=1
	echo "starting radosgw in $RGW" >&2
	ENDPOINT=$("$top/scripts/radosgw-start.sh" "$RGW" "$BUCKET") || { echo "vs-s3-clients: radosgw did not start" >&2; exit 1; }
	export AWS_ACCESS_KEY_ID=$(cat "$RGW/access_key") AWS_SECRET_ACCESS_KEY=$(cat "$RGW/secret_key")
fi
export AWS_ENDPOINT_URL=$ENDPOINT AWS_REGION=${AWS_REGION:-us-east-1}
unset AWS_SESSION_TOKEN AWS_PROFILE

# Throwaway client configurations: nothing from ~/.aws or ~/.config/rclone is used.
umask 077
cat >"$WORK/aws.config" <<EOF
[default]
region = $AWS_REGION
s3 =
  max_concurrent_requests = $INFLIGHT
  multipart_threshold = 5GB
  multipart_chunksize = 5GB
EOF
cat >"$WORK/aws.credentials" <<EOF
[default]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $AWS_SECRET_ACCESS_KEY
EOF
cat >"$WORK/rclone.conf" <<EOF
[s3]
type = s3
provider = Other
access_key_id = $AWS_ACCESS_KEY_ID
secret_access_key = $AWS_SECRET_ACCESS_KEY
endpoint = $ENDPOINT
region = $AWS_REGION
force_path_style = true
EOF
umask 022
# Commands as arrays, not functions: /usr/bin/time runs them.
AWS_RUN=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL AWS_CONFIG_FILE="$WORK/aws.config"
	AWS_SHARED_CREDENTIALS_FILE="$WORK/aws.credentials" "$AWS" --endpoint-url "$ENDPOINT")
# rclone's AWS SDK refuses AWS_CA_BUNDLE with its own HTTP transport ("unsupported
# transport"), and the endpoint is plain HTTP anyway.
RCLONE_RUN=(env -u AWS_CA_BUNDLE rclone --config "$WORK/rclone.conf")
RCLONE_COMMON=(--transfers "$INFLIGHT" --checkers "$INFLIGHT" --no-check-dest --ignore-checksum --stats 0)
RCLONE_PUT=(--s3-upload-cutoff 5G --s3-no-check-bucket --s3-no-head --s3-disable-checksum)
RCLONE_GET=(--s3-no-head-object)

cat >"$WORK/w.yaml" <<YAML
model: {name: vs_s3_clients}
workflow: {train: True}
dataset: {format: npz, num_files_train: $OBJECTS, num_samples_per_file: 1, record_length_bytes: $SIZE,
          record_length_bytes_stdev: 0}
reader: {batch_size: 1, read_threads: 1, prefetch_size: 1, file_shuffle: off, sample_shuffle: off,
         read_type: memory}
train: {epochs: 1, computation_time: 0}
target: {queue_depth: $INFLIGHT}
YAML

# Requests radosgw has served so far ("-" on a server this script did not start).
server_requests() {
	if [ "$started_rgw" = 1 ]; then
		ceph --admin-daemon "$RGW/run/client.rgw.gf.asok" perf dump 2>/dev/null | jq -r '.rgw.req // "-"'
	else
		echo -
	fi
}

# timed OUT CMD...: run CMD under /usr/bin/time; OUT gets "wall user sys".
timed() {
	local out=$1
	shift
	if ! /usr/bin/time -o "$out" -f "%e %U %S" "$@" >"$WORK/cmd.out" 2>&1; then
		echo "vs-s3-clients: failed: $*" >&2
		tail -20 "$WORK/cmd.out" >&2
		exit 1
	fi
}

# run OP CLIENT -> "req/s wall_req/s cpu_s_per_1000 server_requests gpufeed_phase_cpu_s_per_1000"
run() {
	local op=$1 client=$2 t=$WORK/time res=$WORK/res dst=$SHM/get r0 r1 rps=
	rm -rf "$res" "$dst"
	r0=$(server_requests)
	case $op-$client in
	put-gpufeed)
		timed "$t" mpirun --bind-to none -np 1 "$GPUFEED" datagen "$WORK/w.yaml" \
			--target "s3://$BUCKET/$PREFIX/data" --results "$res" --quiet ;;
	put-rclone)
		timed "$t" "${RCLONE_RUN[@]}" copy "$SHM/src/train" "s3:$BUCKET/$PREFIX/data/train" "${RCLONE_COMMON[@]}" "${RCLONE_PUT[@]}" ;;
	put-aws)
		timed "$t" "${AWS_RUN[@]}" s3 cp --recursive --quiet "$SHM/src/train/" "s3://$BUCKET/$PREFIX/data/train/" ;;
	get-gpufeed)
		timed "$t" mpirun --bind-to none -np 1 "$GPUFEED" ceiling "$WORK/w.yaml" \
			--target "s3://$BUCKET/$PREFIX/data" --results "$res" --quiet ;;
	get-rclone)
		mkdir -p "$dst"
		timed "$t" "${RCLONE_RUN[@]}" copy "s3:$BUCKET/$PREFIX/data/train" "$dst" "${RCLONE_COMMON[@]}" "${RCLONE_GET[@]}" ;;
	get-aws)
		mkdir -p "$dst"
		timed "$t" "${AWS_RUN[@]}" s3 cp --recursive --quiet "s3://$BUCKET/$PREFIX/data/train/" "$dst/" ;;
	esac
	r1=$(server_requests)
	# Every object must have moved, whoever moved it.
	if [ "$op" = get ] && [ "$client" != gpufeed ]; then
		local n
		n=$(find "$dst" -type f | wc -l)
		[ "$n" -eq "$OBJECTS" ] || { echo "vs-s3-clients: $client fetched $n objects, not $OBJECTS" >&2; exit 1; }
	fi
	local phase_cpu=-
	if [ "$client" = gpufeed ]; then
		local s
		s=$(echo "$res"/*/summary.json)
		if [ "$op" = put ]; then
			rps=$(jq -r --argjson n "$OBJECTS" 'if .datagen.files == $n then .datagen.files / .datagen.elapsed_s else "bad" end' "$s")
		else
			rps=$(jq -r --argjson n "$OBJECTS" 'if .ceiling.read_requests == $n then .ceiling.read_requests_per_s else "bad" end' "$s")
			phase_cpu=$(jq -r '.ceiling.cpu_s * 1000 / .ceiling.read_requests' "$s")
		fi
		[ "$rps" != bad ] || { echo "vs-s3-clients: gpufeed $op did not move $OBJECTS objects: $s" >&2; exit 1; }
	fi
	rm -rf "$res" "$dst"
	awk -v n="$OBJECTS" -v rps="$rps" -v r0="$r0" -v r1="$r1" -v pc="$phase_cpu" '{
		wall = n / $1
		printf "%s %s %s %s %s\n", (rps == "" ? wall : rps), wall, ($2 + $3) * 1000 / n,
			(r0 == "-" || r1 == "-" ? "-" : r1 - r0), pc }' "$t"
}

median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
col() { awk -v k="$2" '$k != "-" {print $k}' "$1" | median; }

# The source folder (the bytes gpufeed's datagen writes) and the first copy in the bucket,
# which every PUT round then overwrites and every GET round reads.
echo "preparing $OBJECTS objects of $SIZE in $SHM/src and s3://$BUCKET/$PREFIX/data" >&2
mpirun -np 1 "$GPUFEED" datagen "$WORK/w.yaml" --target "$SHM/src" --results "$WORK/prep" --quiet --engine posix >/dev/null
mpirun --bind-to none -np 1 "$GPUFEED" datagen "$WORK/w.yaml" --target "s3://$BUCKET/$PREFIX/data" \
	--results "$WORK/prep" --quiet >/dev/null
rm -rf "$WORK/prep"

read -r -a clients <<<"$CLIENTS"
for r in $(seq "$ROUNDS"); do
	for op in $OPS; do
		# A rotating order: no client always runs first (or right after the PUTs).
		for i in $(seq 0 $((${#clients[@]} - 1))); do
			c=${clients[$(((i + r - 1) % ${#clients[@]}))]}
			line=$(run "$op" "$c")
			echo "$line" >>"$WORK/$op-$c"
			[ -n "${VSS3_RAW:-}" ] && echo "# round $r $op $c: $line" >&2
		done
	done
done

echo "$OBJECTS objects of $SIZE, $INFLIGHT requests in flight, medians of $ROUNDS rounds, $ENDPOINT"
echo
printf '| operation | client | req/s | wall req/s | CPU s / 1000 req | server req | gpufeed / client (req/s) | gpufeed / client (CPU) |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|\n'
for op in $OPS; do
	gr=- gc=-
	if [ -f "$WORK/$op-gpufeed" ]; then
		gr=$(col "$WORK/$op-gpufeed" 1)
		gc=$(col "$WORK/$op-gpufeed" 3)
	fi
	for c in "${clients[@]}"; do
		f=$WORK/$op-$c
		rq=$(col "$f" 1) wr=$(col "$f" 2) cpu=$(col "$f" 3) sv=$(col "$f" 4)
		ratio=- cratio=-
		if [ "$c" != gpufeed ] && [ "$gr" != - ]; then
			ratio=$(awk -v a="$gr" -v b="$rq" 'BEGIN {printf "%.2f", a / b}')
			cratio=$(awk -v a="$gc" -v b="$cpu" 'BEGIN {printf "%.2f", a / b}')
		fi
		printf '| %s | %s | %.0f | %.0f | %.2f | %s | %s | %s |\n' "${op^^}" "$c" "$rq" "$wr" "$cpu" \
			"$([ "$sv" = - ] && echo - || printf '%.0f' "$sv")" "$ratio" "$cratio"
	done
done
if [ -f "$WORK/get-gpufeed" ]; then
	printf '\ngpufeed ceiling in its own phase (no mpirun, no start-up): %.2f CPU s / 1000 req\n' \
		"$(col "$WORK/get-gpufeed" 5)"
fi
