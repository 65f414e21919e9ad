#!/usr/bin/env bash
# mpirun across the client hosts of a testbed (scripts/testbed-up.sh), with no sshd: mpirun
# itself runs on the first client host and starts Open MPI's daemons on the others through
# scripts/testbed-agent.sh; MPI and Open MPI's own traffic stay on the testbed subnet.
#
#   scripts/testbed-mpirun.sh [--ppn K] [--hosts H1,H2,...] [mpirun options] PROGRAM [ARGS]
#   scripts/testbed-mpirun.sh --ppn 2 build/gpufeed run workloads/unet3d_h100.yaml \
#       --target "$GF_TESTBED_DIR/gluster/unet3d" --results /tmp/results
#
# --ppn: ranks per host (1); --hosts: the client hosts to use (all of them). -np defaults
# to hosts x ppn; ranks fill a host before the next (Open MPI's --map-by slot), so with
# --ppn 2 ranks 0-1 are on PREFIX-c1, 2-3 on PREFIX-c2, and so on. The mpirun line it runs:
#
#   testbed-agent.sh PREFIX-c1 mpirun --host PREFIX-c1:K,PREFIX-c2:K,... -np N
#       --mca plm_rsh_agent scripts/testbed-agent.sh
#       --mca oob_tcp_if_include 10.77.0.0/24 --mca btl_tcp_if_include 10.77.0.0/24
#       --mca btl self,vader,tcp --mca pml ob1 --bind-to none [mpirun options] PROGRAM ...
#
# (pml ob1 with the TCP BTL between hosts, shared memory within one; --bind-to none
# because every host has the same few cores of this one machine.) Environment:
# GF_TESTBED_PREFIX / GF_TESTBED_DIR as for testbed-up.sh; OMPI_ALLOW_RUN_AS_ROOT and
# OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 to run as root. The ranks inherit this environment
# (the agent is a local process, not ssh): AWS_* and the like reach every host.
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
[ -f "$TB_DIR/testbed.env" ] || { echo "testbed-mpirun: no testbed at $TB_DIR: run scripts/testbed-up.sh first" >&2; exit 2; }
# shellcheck disable=SC1091
. "$TB_DIR/testbed.env"
ppn=1 hostlist=$GF_TESTBED_CLIENTS
args=()
have_np=0
while [ $# -gt 0 ]; do
	case $1 in
	--ppn) ppn=${2:?--ppn needs a number}; shift 2 ;;
	--hosts) hostlist=$(echo "${2:?--hosts needs a list}" | tr ',' ' '); shift 2 ;;
	-np | -n | --np | -c) have_np=1; args+=("$1" "$2"); shift 2 ;;
	*) break ;;
	esac
done
[[ $ppn =~ ^[0-9]+$ ]] && [ "$ppn" -ge 1 ] || { echo "testbed-mpirun: --ppn must be a positive number" >&2; exit 2; }
spec=() n=0
for h in $hostlist; do
	case " $GF_TESTBED_CLIENTS " in
	*" $h "*) ;;
	*) echo "testbed-mpirun: $h is not a client host of this testbed ($GF_TESTBED_CLIENTS)" >&2; exit 2 ;;
	esac
	spec+=("$h:$ppn")
	n=$((n + ppn))
done
[ "$n" -gt 0 ] || { echo "testbed-mpirun: no hosts" >&2; exit 2; }
first=${spec[0]%%:*}
[ "$have_np" = 1 ] || args+=(-np "$n")
agent=$TB_HERE/testbed-agent.sh
hosts=$(IFS=,; echo "${spec[*]}")
cmd=(mpirun --host "$hosts"
	--mca plm_rsh_agent "$agent"
	--mca oob_tcp_if_include "$GF_TESTBED_SUBNET" --mca btl_tcp_if_include "$GF_TESTBED_SUBNET"
	--mca btl self,vader,tcp --mca pml ob1 --bind-to none
	"${args[@]}" "$@")
# The agent runs one shell command line, as ssh does: every word quoted for bash.
exec "$agent" "$first" "$(printf '%q ' "${cmd[@]}")"
