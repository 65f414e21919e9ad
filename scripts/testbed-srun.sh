#!/usr/bin/env bash
# srun on a testbed with Slurm (scripts/testbed-up.sh --slurm), from the first client host
# as from a cluster's login node: slurmctld places the tasks, slurmd starts them on the
# client hosts, and gpufeed's Open MPI ranks start from Slurm's PMIx, without mpirun.
#
#   scripts/testbed-srun.sh [srun options] PROGRAM [ARGS]
#   scripts/testbed-srun.sh --mpi=pmix -N 4 --ntasks-per-node=2 "$PWD/build/gpufeed" run \
#       workloads/llama3_8b.yaml --target /tmp/gf/ck --set checkpoint.scale=1/1000
#
# The srun options are srun's own; --mpi=pmix is the one that starts Debian's Open MPI
# (docs/slurm.md). The tasks inherit this environment (slurmd passes srun's on), with
# the transport testbed-mpirun.sh chooses, unless the environment says otherwise:
# OMPI_MCA_pml=ob1, OMPI_MCA_btl=self,vader,tcp, OMPI_MCA_btl_tcp_if_include=the testbed
# subnet, and OMPI_MCA_mpi_yield_when_idle=1: every node claims 8 CPUs of this machine's
# few, so Open MPI does not know the ranks are oversubscribed (mpirun --oversubscribe
# would tell it) and its polling ranks take the cores the readers need. sbatch, squeue, scontrol and scancel run the same way through
# scripts/testbed-agent.sh PREFIX-c1 (it sets SLURM_CONF on every testbed host).
set -euo pipefail
. "$(dirname "$0")/testbed-lib.sh"
[ -f "$TB_DIR/slurm/slurm.conf" ] ||
	{ echo "testbed-srun: no Slurm on a testbed at $TB_DIR: run scripts/testbed-up.sh --slurm first" >&2; exit 2; }
# shellcheck disable=SC1091
. "$TB_DIR/testbed.env"
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader,tcp}
export OMPI_MCA_btl_tcp_if_include=${OMPI_MCA_btl_tcp_if_include:-$GF_TESTBED_SUBNET}
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
# The agent runs one shell command line, as ssh does: every word quoted for bash.
exec "$TB_HERE/testbed-agent.sh" "${GF_TESTBED_CLIENTS%% *}" "$(printf '%q ' srun "$@")"
