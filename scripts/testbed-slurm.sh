#!/usr/bin/env bash
# Slurm on a testbed, as a cluster runs it: scripts/testbed-up.sh --slurm runs this,
# testbed-down.sh stops it.
#
#   scripts/testbed-slurm.sh            # prints the variables to export
#
# One munge key (mungekey) shared by every host, and a munged on each host with it
# (its socket seen at $GF_TESTBED_DIR/munge by that host's processes, through
# scripts/testbed-agent.sh, as /run/munge on a node); slurmctld on the first server host;
# slurmd on every client host, each a NodeName = the host's name with NodeAddr = its
# address on the testbed subnet, so every Slurm message crosses the hosts' links; one
# partition (testbed, the default) of all client hosts. The configuration is
# $GF_TESTBED_DIR/slurm/slurm.conf; scripts/testbed-agent.sh sets SLURM_CONF to it, so
# srun, sbatch, squeue and scontrol work on every testbed host as on a cluster's nodes:
#
#   scripts/testbed-srun.sh --mpi=pmix -N 4 -n 8 build/gpufeed run ...
#   scripts/testbed-agent.sh gf-c1 sbatch -N 4 -n 8 --wait scripts/slurm/gpufeed.sbatch ...
#
# Jobs run as root (SlurmUser root, as the testbed needs root anyway). Processes are tracked
# by parentage (proctrack/linuxproc) and not bound (task/none): there are no cgroups to give
# each host here. Each node offers 8 CPUs whatever this machine has (config_overrides), so
# that a node takes as many ranks as testbed-mpirun.sh would put there. KillWait is
# GF_TESTBED_SLURM_KILLWAIT seconds (10; Slurm's default is 30): the time between a time
# limit's SIGTERM and its SIGKILL. Exit 77 when Slurm or munge is not installed, 1 when
# the cluster does not come up (its logs are in $GF_TESTBED_DIR/log).
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
say() { echo "testbed-slurm: $*" >&2; }
die() { say "$*"; exit 1; }
[ -f "$TB_DIR/testbed.env" ] || die "no testbed at $TB_DIR: run scripts/testbed-up.sh first"
# shellcheck disable=SC1091
. "$TB_DIR/testbed.env"
for b in munged mungekey slurmctld slurmd srun sinfo; do
	command -v "$b" >/dev/null || { say "$b not found: scripts/install-deps.sh --test installs Slurm and munge"; exit 77; }
done
killwait=${GF_TESTBED_SLURM_KILLWAIT:-10}
[[ $killwait =~ ^[0-9]+$ ]] || die "GF_TESTBED_SLURM_KILLWAIT must be a number of seconds, not '$killwait'"
[ -n "$GF_TESTBED_SERVERS" ] || die "slurmctld needs a server host (--servers 1)"
ctl=${GF_TESTBED_SERVERS%% *}
first=${GF_TESTBED_CLIENTS%% *}
addr_of() { awk -v h="$1" '$1 == h { print $3 }' "$TB_DIR/rates"; }
agent=$TB_HERE/testbed-agent.sh
# A command on a testbed host with its output in the host's log.
on() {
	local h=$1
	shift
	"$agent" "$h" "$(printf '%q ' "$@") </dev/null >>$(printf '%q' "$TB_DIR/log/slurm-$h.log") 2>&1"
}

t0=$(date +%s.%N)
S=$TB_DIR/slurm
mkdir -p "$S/state" "$TB_DIR/munge"
chmod 0700 "$S"
echo "slurm $S" >>"$TB_DIR/made"
mungekey --create --keyfile="$S/munge.key" --force 2>"$TB_DIR/log/mungekey.log" ||
	die "mungekey failed: $(cat "$TB_DIR/log/mungekey.log")"
chmod 0600 "$S/munge.key"

# One munged per host, every one with the same key: a credential made on one host is
# accepted on all the others, and only there. Started on all hosts at once (each start
# is a few agent processes: seconds on a loaded machine).
pids=()
for h in $ctl $GF_TESTBED_CLIENTS; do
	m=$TB_DIR/node/$h/munge
	mkdir -p "$m"
	chmod 0755 "$m" # munged: every user must reach its socket
	on "$h" munged --key-file="$S/munge.key" --socket="$m/munge.socket.2" --pid-file="$m/munged.pid" \
		--log-file="$m/munged.log" --seed-file="$m/munged.seed" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || die "munged did not start on every host: see $TB_DIR/node/*/munge/munged.log"
done

nodes=''
{
	cat <<EOF
# Written by scripts/testbed-slurm.sh for the testbed $TB_PREFIX ($TB_DIR).
ClusterName=${TB_PREFIX}testbed
SlurmctldHost=$ctl($(addr_of "$ctl"))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TB_DIR/munge/munge.socket.2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmctldPidFile=$S/slurmctld.pid
SlurmctldLogFile=$TB_DIR/log/slurmctld.log
SlurmdSpoolDir=$TB_DIR/node/%n/slurmd
SlurmdPidFile=$TB_DIR/node/%n/slurmd.pid
SlurmdLogFile=$TB_DIR/log/slurmd-%n.log
TmpFS=$TB_DIR/node/%n/tmp
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
KillWait=$killwait
MinJobAge=600
EOF
	for h in $GF_TESTBED_CLIENTS; do
		echo "NodeName=$h NodeAddr=$(addr_of "$h") CPUs=8 State=UNKNOWN"
		nodes=${nodes:+$nodes,}$h
		mkdir -p "$TB_DIR/node/$h/slurmd" "$TB_DIR/node/$h/tmp"
	done
	echo "PartitionName=testbed Nodes=$nodes Default=YES MaxTime=INFINITE State=UP"
} >"$S/slurm.conf"

# No cgroup is used (proctrack/linuxproc, task/none), but slurmd loads a cgroup plugin
# anyway, and autodetecting one fails in a host: ip netns exec mounts a sysfs of its own
# without /sys/fs/cgroup. Named, the v1 plugin loads without looking.
echo "CgroupPlugin=cgroup/v1" >"$S/cgroup.conf"
export SLURM_CONF=$S/slurm.conf
on "$ctl" slurmctld -f "$S/slurm.conf" || die "slurmctld did not start on $ctl: $(tail -5 "$TB_DIR/log/slurmctld.log" 2>/dev/null)"
for _ in $(seq 1 100); do
	"$agent" "$first" scontrol ping 2>/dev/null | grep -q 'is UP' && break
	sleep 0.2
done
"$agent" "$first" scontrol ping 2>/dev/null | grep -q 'is UP' ||
	die "slurmctld on $ctl does not answer from $first: $("$agent" "$first" scontrol ping 2>&1 | tr '\n' ' ')"
pids=()
for h in $GF_TESTBED_CLIENTS; do
	on "$h" slurmd -f "$S/slurm.conf" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || die "slurmd did not start on every client host: see $TB_DIR/log/slurmd-*.log"
done
n=$(echo "$GF_TESTBED_CLIENTS" | wc -w)
idle=0
for _ in $(seq 1 150); do
	idle=$("$agent" "$first" sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
	[ "$idle" = "$n" ] && break
	sleep 0.2
done
[ "$idle" = "$n" ] || die "$idle of $n nodes idle after 30 s: $("$agent" "$first" sinfo -N 2>&1 | tr '\n' ' ')"
t1=$(date +%s.%N)
say "slurmctld on $ctl, slurmd on $n client host(s), partition testbed, KillWait ${killwait} s: up in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
cat <<EOF
export GF_TESTBED_SLURM_CONF=$S/slurm.conf
export GF_TESTBED_SLURM_PARTITION=testbed
EOF
